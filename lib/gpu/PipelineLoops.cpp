//===- PipelineLoops.cpp - Multi-stage cp.async / TMA pipelines for dots --===//
//
// Tile GPU IR (after AssignLayouts). A wgmma dot in a loop reads A and B
// from ttg.local_alloc copies of tiles loaded in the same iteration: every
// iteration waits for its own loads, then for the copy, then for the dot.
// With num_stages = S >= 2 this pass gives each such operand an S-stage
// shared buffer and keeps S - 1 iterations of tiles in flight, as Triton's
// pipeliner does for cp.async targets:
//
//   buf = ttg.local_alloc : [S, R, C]                      (before the loop)
//   for j in 0 .. S-2:   copy the tile of iteration j into stage j
//                        (ttg.async_copy_global_to_local, masked off when
//                        iteration j does not run), commit
//   loop (iteration i; stages read r = i % S, written w = (i + S - 1) % S):
//     ttg.async_wait {num = S - 2}    (iteration i's tiles have landed;
//                                      every thread is past iteration i-1's
//                                      dot, so stage w is free)
//     copy the tiles of iteration i + S - 1 into stage w, commit
//     dot on stage r
//   ttg.async_wait {num = 0}                               (after the loop)
//
// Asynchronous wgmma: when the loop's one dot accumulates into a
// loop-carried value (acc = dot(a, b, acc), acc used by nothing else), the
// dot is issued without waiting (tt.dot {is_async}) and followed by
// ttng.warp_group_dot_wait {pendings = 1}: the tensor cores work on
// iteration i while the warps go on to iteration i + 1's copies, and only
// iteration i - 1's dot must be done. Iteration i - 1 may then still read
// its stage while iteration i's copies are issued, so the buffer gets S + 1
// stages and the copies of iteration i go to the stage iteration i - 2
// read: every warpgroup waited for its dot of i - 2 before the barrier of
// ttg.async_wait at the top of iteration i. After the loop a
// warp_group_dot_wait {pendings = 0} makes the accumulator readable.
//
// Deferred waits: a dot whose result is only carried to the next
// iteration and read there before the dot
// (attention's acc = dot(p, v, acc * alpha)) is issued asynchronously too
// and waited for (pendings = 0) just before that first read, or right
// after a synchronous wgmma dot that comes before the read (attention's
// Q K^T: its wait completes the deferred dot too), so it runs while the
// next iteration waits for its tiles and issues its copies; its
// result is accumulated in the carried registers (also S + 1 stages).
// Measured on the H100 with exp2 at one MUFU per element:
//   - head_dim 128 (8 warps): 406 -> 468 TFLOP/s;
//   - head_dim 128 causal: 382 -> 365;
//   - head_dim 64 (4 warps): unchanged.
// Other dots of the loop stay synchronous; their wait also completes the
// deferred dot, wgmma groups completing in order.
//
// The tiles' pointers, masks and `other` values are recomputed for the
// other iterations (LoopIterations.h): they must be pure functions of the
// induction variable and iteration arguments. `other` must be 0 (cp.async
// zero-fills) and its accesses must be 4, 8 or 16 bytes per vector along
// the tile's contiguous dim (axis info), else that load stays as it is; no
// load may be volatile and the loop must not write global memory (the
// copies move ahead of its writes), else the loop is left alone. Whether an
// iteration runs is decided in i64, so the look-ahead cannot wrap. A dot
// reading a shared copy made in the body stays synchronous (the next
// iteration's copy would overwrite what it reads).
//
// TMA stages (sm_90a): a wgmma operand that is a ttng.descriptor_load
// (TmaDescriptorLoads.cpp), directly or read transposed through tt.trans
// (attention's k.T: the K-major copy's memory rows are the load's), is
// copied by TMA instead, into stages in the tile's nvmma_shared layout:
// the descriptor is remade with the tile's swizzle and a box of one
// swizzle atom (all rows), one copy per atom. One mbarrier per stage
// (ttng.init_barriers before the loop, ttng.inval_barriers after it):
// where cp.async commits, thread 0 arms the stage's barrier with the
// bytes of its tiles (ttng.barrier_expect) and issues the copies; at the
// top of the body every thread waits for the read stage's barrier
// (ttng.wait_barrier) with the parity of its phase, a loop-carried i32
// that flips each time the read stage wraps to 0. A barrier (that of
// ttg.async_wait when cp.async copies are staged too, else gpu.barrier)
// keeps the copies into stage w behind every thread's last read of it, as
// for cp.async. Iterations that do not run arm no barrier and copy
// nothing, and nothing waits for them.
//
// Warp specialization (WarpSpecialize.h): a TMA-only loop of the kernel's
// entry block, at 4 or 8 warps, after no global write, that runs two or
// more wgmma dots (or whose tl.range asks, warp_specialize=True; False
// refuses) gets a producer warpgroup instead. Its stages and two sets of
// mbarriers move to the kernel's start: "full" (as above) and "empty"
// (ttng.init_barriers {count = num_warps}). The producer's region
// (ttng.warp_specialize) runs every iteration: wait until stage w is
// empty (a parity that starts at 1, so the first lap does not wait, and
// flips when w wraps), arm its full barrier, copy. The kernel's own warps
// only wait for the full barrier of the stage they read and, at the end
// of the body, arrive on the empty barrier (ttng.arrive_barrier, lane 0 of
// each warp) of the stage they are done with: this iteration's, or the
// previous one's when a dot reading it is asynchronous or deferred (its
// wait is in this iteration), that last one after the loop. No barrier of
// all warps is left in the loop, so the two warpgroups of head_dim 128
// can take turns at the dots (PingPong.cpp, after licm). A later loop
// that stages the same tiles (the causal attention's masked diagonal
// block) goes on in the same ring: the producer runs its iterations right
// after the first loop's, so that loop's first stages are full when it
// starts.
// Measured on the H100 (attention, TFLOP/s): d=64 390 -> 413, d=128
// 480 -> 541, d=128 causal 427 -> 455 with the shared ring.
// Such loops may also sit in the body of a persistent loop of the entry
// block (for tile in range(pid, tiles, num_programs)): the stages and
// barriers are still made at the kernel's start (and invalidated after
// the persistent loop), the producer runs its own copy of the persistent
// loop around its loops, and both sides carry the ring (stage, parity)
// through their persistent loop, so the producer fetches the next tile's
// first blocks while the kernel's warps finish this tile (its epilogue,
// its store). The producer then runs ahead of the body's stores: like
// Triton's pipeliner, this takes stores through other pointer arguments
// than the copies' descriptors to write other memory, and refuses the
// producer for a store through the same argument. Descriptors made in the
// persistent loop must be ones the launch encodes (HostTensorMaps.h), so
// that none is rewritten under copies in flight. Measured on the H100
// (attention_fwd_persistent against attention_fwd_descriptor, TFLOP/s):
// d=128 606 -> 652, d=64 452 -> 456.
//
// First, whatever num_stages: a ttg.local_alloc in a loop whose source is
// defined outside it (attention's Q tile) moves before the loop, so the
// tile is copied to shared memory once instead of every iteration.
// Operands of the dot that are not loads of the loop (such hoisted copies,
// or tiles computed in the loop like attention's probabilities) are used as
// they are; the loads are staged.
//
// In the default pipeline (lowerToGpuIR) since its first GPU run: the
// autotuned matmul went from 223 to 482 TFLOP/s at 4096 fp16 on the H100.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <map>
#include <tuple>

#include "gpu/GpuPasses.h"
#include "gpu/HostTensorMaps.h"
#include "gpu/LoopIterations.h"
#include "gpu/WarpSpecialize.h"
#include "tessera/Error.h"
#include "tessera/gpu/AxisInfo.h"
#include "tessera/ir/Matchers.h"

namespace tessera::gpu {

using namespace ir;

bool isWgmmaDot(Operation* op) {
  if (!op->is(OpCode::Dot)) return false;
  Encoding enc = op->result().type().encoding();
  return enc.isNvidiaMma() && enc.versionMajor() == 3;
}

void waitFor(OpBuilder& b, Value v, int64_t pendings) {
  Operation* wait = b.create(OpCode::WarpGroupDotWait, {v.type()}, {v}, {{"pendings", pendings}});
  v.replaceAllUsesWith(wait->result());
  wait->setOperand(0, v);
}

namespace {

/// A tt.dot on mma.sync (an nvidia_mma v2 result).
bool isMmaV2Dot(Operation* op) {
  if (!op->is(OpCode::Dot)) return false;
  Encoding enc = op->result().type().encoding();
  return enc.isNvidiaMma() && enc.versionMajor() == 2;
}

struct Staged {
  Operation* use;   ///< what reads %tile in the body: ttg.local_alloc (wgmma) or
                    ///< ttg.convert_layout to a dot operand (mma.sync)
  Operation* load;  ///< the tt.load (or ttng.descriptor_load: TMA) of %tile
  Operation* trans = nullptr;  ///< TMA: the tt.trans between load and use, if any
  Type tile;        ///< one stage: the shared tile the dot (or ldmatrix) reads
  Value buffer = {};  ///< the S-stage buffer (before the loop)
  Value desc = {};    ///< TMA: the descriptor of swizzled boxes the copies use
  bool tma() const { return load->is(OpCode::DescriptorLoad); }
};

/// The stages, barriers and producer of a warp-specialized pipeline. A
/// later loop of the kernel's entry block that stages the same tiles
/// continues it (the two loops of Triton's tutorial attention): its copies
/// go on in the same ring of stages, so the producer fills the second
/// loop's first stages while the consumers finish the first loop.
struct ProducerPipeline {
  Operation* producer = nullptr;  ///< the ttng.warp_specialize (none yet)
  Block* block = nullptr;         ///< the block of the ring's loops
  Operation* outer = nullptr;          ///< the persistent loop around them, if any
  Operation* producerOuter = nullptr;  ///< the producer's copy of `outer`
  std::vector<Value> swizzled;         ///< descriptors remade for the stages (the producer copies them)
  std::vector<Value> buffers;     ///< the stage buffers of each staged tile, in order
  Value full, empty;                     ///< the stages' mbarriers
  Value producerStage, producerParity;   ///< the producer's ring after its last loop
  Value readStage, readPhase;            ///< the consumers' ring after their last loop
  std::vector<Operation*> invals;        ///< after the last loop
};

class LoopPipeliner {
 public:
  LoopPipeliner(Operation* loop, int stages, AxisInfoAnalysis& axis, bool specialize, ProducerPipeline& chain)
      : loop_(loop),
        body_(loop->region(0).front()),
        specialize_(specialize),
        chain_(chain),
        outer_(persistentLoop(loop)),
        stages_(stages),
        axis_(axis),
        iterations_(loop) {}

  void run() {
    std::vector<Staged> staged;
    std::set<unsigned> args;
    std::set<Operation*> seen;
    for (Operation* op : body_.ops()) {
      bool mmaV2 = isMmaV2Dot(op);
      if (!mmaV2 && !isWgmmaDot(op)) continue;
      for (unsigned i = 0; i < 2; ++i) {
        // What reads the operand tile: wgmma a ttg.local_alloc copy of it,
        // mma.sync (16-bit) its convert to the ldmatrix fragments.
        Operation* use = op->operand(i).definingOp();
        if (mmaV2) {
          if (!use || !use->is(OpCode::ConvertLayout) || !isLdmatrixOperand(use->result().type())) continue;
        } else {
          if (!op->operand(i).type().encoding().isShared()) continue;  // wgmma's A from registers
          if (!use || !use->is(OpCode::LocalAlloc) || use->numOperands() != 1) return;
        }
        if (!seen.insert(use).second) return;
        // Operands copied before the loop (hoisted), or computed in it (the
        // probabilities of an attention loop), are used as they are.
        Operation* load = use->operand(0).definingOp();
        if (use->block() != &body_ || !load || load->block() != &body_) continue;
        // TMA copies descriptor loads, also those read transposed (K^T
        // from a row-major K: the tile's memory is the load's rows).
        Operation* trans = load->is(OpCode::Trans) ? load : nullptr;
        Operation* source = trans ? trans->operand(0).definingOp() : load;
        if (source && source->is(OpCode::DescriptorLoad) && !mmaV2) {
          std::set<unsigned> needs = args;
          if (!use->result().hasOneUse() || !load->result().hasOneUse() || !source->result().hasOneUse() ||
              source->block() != &body_ || !tmaCopyable(use->result().type(), trans != nullptr) ||
              !iterations_.computable(source, needs))
            continue;  // copied to scratch shared memory in the iteration itself
          args = needs;
          staged.push_back(Staged{use, source, trans, use->result().type()});
          continue;
        }
        if (!load->is(OpCode::Load)) continue;
        if (!use->result().hasOneUse() || !load->result().hasOneUse() || !load->operand(0).type().isTensor() ||
            load->boolAttr("volatile"))
          return;
        // Loads cp.async cannot copy stay where they are.
        if (load->numOperands() > 2 && !ir::isZeroConstant(load->operand(2))) continue;
        AccessVector v = access(load);
        // mma.sync's tile: the swizzled rows ldmatrix reads, along the dim
        // the load's memory runs along.
        Type t = load->result().type();
        Type tile = mmaV2 ? Type::tensor(t.shape(), t.elementType(),
                                         mmaV2OperandTileEncoding(t.shape(), static_cast<int>(v.dim)))
                          : use->result().type();
        std::set<unsigned> needs = args;  // left as it was when the load stays
        if (!copyable(v, load, tile) || !iterations_.computable(load, needs)) continue;
        args = needs;
        staged.push_back(Staged{use, load, nullptr, tile});
      }
    }
    if (staged.empty()) return;
    // Loads move iterations ahead of the body's writes: a loop that writes
    // memory (which a later tile might read) is left alone. Copies into its
    // own shared buffers (local_alloc) are not such writes.
    bool writes = false;
    loop_->walk([&](Operation* op) {
      // A descriptor made in the loop writes only this program's slot.
      if (op != loop_ && op->hasTrait(MemWrite) && !op->is(OpCode::LocalAlloc) && !op->is(OpCode::TensormapCreate))
        writes = true;
    });
    if (writes) return;
    asyncDot_ = asyncCandidate(staged);
    if (!asyncDot_) deferredDot_ = deferredCandidate(staged);
    buffers_ = stages_ + (asyncDot_ || deferredDot_ ? 1 : 0);
    rewrite(staged, args);
  }

 private:
  /// How a load's pointers access memory: its widest vectors and their dim.
  AccessVector access(Operation* load) {
    Value ptr = load->operand(0);
    Value mask = load->numOperands() > 1 ? load->operand(1) : Value();
    return accessVector(axis_, ptr, mask, toLinearLayout(ptr.type().shape(), ptr.type().encoding()),
                        load->result().type().elementType().bitWidth() / 8);
  }

  /// cp.async moves 4, 8 or 16 bytes: the load's vectors `v` must be that
  /// wide, and run along the contiguous dim of the shared `tile`.
  static bool copyable(const AccessVector& v, Operation* load, Type tile) {
    int64_t bytes = v.elements * load->result().type().elementType().bitWidth() / 8;
    return v.dim == sharedContiguousDim(tile.encoding()) && (bytes == 4 || bytes == 8 || bytes == 16);
  }

  /// TMA writes an nvmma_shared tile whose memory rows are the
  /// descriptor's (transposed exactly when the load is read transposed):
  /// boxes of all rows x one swizzle atom (rows a multiple of 8, so each
  /// atom stays aligned to the swizzle pattern).
  static bool tmaCopyable(Type tile, bool readTransposed) {
    Encoding enc = tile.encoding();
    if (tile.rank() != 2 || !enc.isNvmmaShared() || enc.transposed() != readTransposed || !enc.swizzlingByteWidth())
      return false;
    int64_t rows = tile.shape()[readTransposed ? 1 : 0];
    return rows % 8 == 0 && rows <= 256;
  }

  Value constI32(OpBuilder& b, int64_t v) { return b.constantInt(Type::i32(), v); }

  /// The loop's dot, when it is the only one, accumulates into a
  /// loop-carried value that nothing else reads (acc = dot(a, b, acc)), and
  /// reads no shared buffer the body rewrites: each shared operand is
  /// staged or copied before the loop (a copy made in the body would
  /// overwrite what the previous, still running, dot reads).
  Operation* asyncCandidate(const std::vector<Staged>& staged) {
    Operation* dot = nullptr;
    for (Operation* op : body_.ops()) {
      if (!op->is(OpCode::Dot)) continue;
      if (dot) return nullptr;
      dot = op;
    }
    if (!dot || !readsStableShared(dot, staged)) return nullptr;
    Value acc = dot->operand(2);
    if (acc.ownerBlock() != &body_ || acc.index() == 0 || !acc.hasOneUse() || !dot->result().hasOneUse())
      return nullptr;
    return body_.terminator()->operand(acc.index() - 1) == dot->result() ? dot : nullptr;
  }

  /// Each shared operand of `dot` is staged or copied before the loop.
  bool readsStableShared(Operation* dot, const std::vector<Staged>& staged) {
    if (!isWgmmaDot(dot)) return false;
    for (unsigned i = 0; i < 2; ++i) {
      Operation* alloc = dot->operand(i).definingOp();
      if (!dot->operand(i).type().encoding().isShared()) continue;  // in registers
      bool isStaged = false;
      for (const Staged& s : staged) isStaged = isStaged || s.use == alloc;
      if (!isStaged && (!alloc || loop_->isAncestorOf(alloc))) return false;
    }
    return true;
  }

  /// A dot whose result is only carried to the next iteration, where every
  /// read of it comes before the dot (attention's acc = dot(p, v, acc *
  /// alpha)): it can run while the next iteration starts, and is waited for
  /// only where the carried value is first read (or after the loop).
  Operation* deferredCandidate(const std::vector<Staged>& staged) {
    std::vector<Operation*> order = body_.ops();
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      Operation* dot = *it;
      if (!dot->is(OpCode::Dot) || !readsStableShared(dot, staged) || !dot->result().hasOneUse()) continue;
      OpOperand* use = dot->result().uses().front();
      if (use->owner != body_.terminator()) continue;
      Value carried = body_.argument(use->index + 1);
      if (carried == dot->operand(2)) continue;
      // Read in the body (its wait there completes the dot before the next
      // one accumulates into the same registers and before its stage is
      // copied into again), and only before the dot.
      std::set<Operation*> before(order.begin(), std::find(order.begin(), order.end(), dot));
      bool readEarlier = !carried.uses().empty();
      for (OpOperand* u : carried.uses()) readEarlier = readEarlier && before.count(u->owner);
      if (readEarlier) return dot;
    }
    return nullptr;
  }

  /// Starts the copies of the staged tiles for the iteration of `m` into
  /// stage `stage`, masked off unless `active` (a scalar i1): TMA copies
  /// arm the stage's barrier with their bytes first.
  void copyTiles(std::vector<Staged>& staged, Value stage, IRMapping& m, Value active, OpBuilder& b) {
    int64_t tmaBytes = 0;
    for (Staged& s : staged)
      if (s.tma()) tmaBytes += s.tile.numElements() * s.tile.elementType().bitWidth() / 8;
    if (tmaBytes) b.create(OpCode::BarrierExpect, {}, {barriers_, stage, active}, {{"bytes", tmaBytes}});
    for (Staged& s : staged) {
      if (!s.tma()) {
        copyTile(s.load, s.buffer, stage, m, active, b);
        continue;
      }
      Value slot = b.create(OpCode::MemdescIndex, {s.tile}, {s.buffer, stage})->result();
      std::vector<Value> operands = {s.desc, slot, barriers_, stage, active};
      for (unsigned i = 1; i < s.load->numOperands(); ++i)
        operands.push_back(iterations_.recompute(s.load->operand(i), m, b));
      b.create(OpCode::AsyncTmaCopyGlobalToLocal, {}, operands);
    }
    if (cpAsync_) b.create(OpCode::AsyncCommitGroup, {}, {});
  }

  /// The descriptor a staged TMA load copies with: its own, remade with
  /// boxes of one swizzle atom of the tile and the tile's swizzle (once
  /// per descriptor, box and swizzle).
  Value swizzledDescriptor(const Staged& s) {
    Operation* create = s.load->operand(0).definingOp();
    if (!create || !create->is(OpCode::TensormapCreate)) return Value();
    int64_t swizzle = s.tile.encoding().swizzlingByteWidth();
    const std::vector<int64_t>& rowsCols = s.load->result().type().shape();  // the tile in memory
    int64_t atomCols = std::min<int64_t>(rowsCols[1], swizzle * 8 / s.tile.elementType().bitWidth());
    std::vector<int64_t> box = {rowsCols[0], atomCols};
    Value& made = swizzled_[{create, box, swizzle}];
    if (made) return made;
    OpBuilder b;
    b.setLoc(create->loc());
    b.setInsertionPointAfter(create);
    AttrMap attrs = create->attrs();
    attrs["box"] = box;
    attrs["swizzle"] = swizzle;
    made = b.create(OpCode::TensormapCreate, {create->result().type()}, create->operands(), attrs)->result();
    return made;
  }

  /// Copies the tile of `load` for the iteration of `m` into stage `stage`
  /// of `buffer`, masked off unless `active` (a scalar i1).
  void copyTile(Operation* load, Value buffer, Value stage, IRMapping& m, Value active, OpBuilder& b) {
    Type tile = load->result().type();
    Type bufType = buffer.type();
    Type view = Type::tensor(tile.shape(), tile.elementType(), bufType.encoding());
    Value slot = b.create(OpCode::MemdescIndex, {view}, {buffer, stage})->result();
    Type maskType = Type::tensor(tile.shape(), Type::i1(), tile.encoding());
    Value guard = b.create(OpCode::Splat, {maskType}, {active})->result();
    Value mask = guard;
    if (load->numOperands() > 1)
      mask = b.create(OpCode::AndI, {maskType}, {iterations_.recompute(load->operand(1), m, b), guard})->result();
    b.create(OpCode::AsyncCopyGlobalToLocal, {}, {iterations_.recompute(load->operand(0), m, b), slot, mask});
  }

  Value lessThan(OpBuilder& b, Value x, Value bound) {
    return b.create(OpCode::CmpI, {Type::i1()}, {x, bound}, {{"predicate", std::string("slt")}})->result();
  }

  Value wide(OpBuilder& b, Value v) {
    return v.type().isInteger(64) ? v : b.create(OpCode::ExtSI, {Type::i64()}, {v})->result();
  }

  /// iv + k * step < ub, computed in i64 so that it cannot wrap near the
  /// top of a 32-bit range (the iteration is then not run, and its copies
  /// must stay masked off).
  Value runs(OpBuilder& b, Value iv, int64_t k) {
    Value step = wide(b, loop_->operand(2));
    Value offset = b.create(OpCode::MulI, {Type::i64()}, {step, b.constantInt(Type::i64(), k)})->result();
    Value at = b.create(OpCode::AddI, {Type::i64()}, {wide(b, iv), offset})->result();
    return lessThan(b, at, wide(b, loop_->operand(1)));
  }

  /// (x + 1) mod B for 0 <= x < B, B the number of buffers.
  Value nextStage(OpBuilder& b, Value x) {
    Value one = constI32(b, 1);
    Value plus = b.create(OpCode::AddI, {Type::i32()}, {x, one})->result();
    Value wraps = b.create(OpCode::CmpI, {Type::i1()}, {plus, constI32(b, buffers_)}, {{"predicate", std::string("eq")}})
                      ->result();
    return b.create(OpCode::Select, {Type::i32()}, {wraps, constI32(b, 0), plus})->result();
  }

  /// The parity a phase counter yields: flipped when `next` (the stage
  /// after this one) wraps to 0.
  Value flipOnWrap(OpBuilder& b, Value next, Value parity) {
    Value wraps =
        b.create(OpCode::CmpI, {Type::i1()}, {next, constI32(b, 0)}, {{"predicate", std::string("eq")}})->result();
    Value flipped = b.create(OpCode::XOrI, {Type::i32()}, {parity, constI32(b, 1)})->result();
    return b.create(OpCode::Select, {Type::i32()}, {wraps, flipped, parity})->result();
  }

  void rewrite(std::vector<Staged>& staged, const std::set<unsigned>& args) {
    OpBuilder b;
    b.setLoc(loop_->loc());
    for (Staged& s : staged) (s.tma() ? tma_ : cpAsync_) = true;
    specialized_ = specialize_ && tma_ && !cpAsync_ && producerCanRun(staged, args) &&
                   (!chain_.producer || continuesChain(staged));
    bool continued = specialized_ && chain_.producer;
    // The producer runs ahead over descriptors made in the persistent loop
    // (persistentLoopAllows): the emitter must encode them on the host,
    // and fails rather than write one in memory.
    for (Staged& s : staged)
      if (specialized_ && outer_ && outer_->isAncestorOf(s.load->operand(0).definingOp()))
        s.load->operand(0).definingOp()->setAttr("host_encoded", true);

    // Buffers, barriers and the prologue (iterations 0 .. S-2), or the
    // producer that copies every iteration's tiles from the kernel's start
    // (the one of an earlier loop whose ring of stages this loop goes on).
    if (specialized_) b.setInsertionPointToStart(&enclosingFunc(loop_)->region(0).front());
    else b.setInsertionPoint(loop_);
    for (size_t i = 0; i < staged.size(); ++i) {
      Staged& s = staged[i];
      if (continued) {
        s.buffer = chain_.buffers[i];
        continue;
      }
      Type view = s.tile;
      std::vector<int64_t> shape = view.shape();
      shape.insert(shape.begin(), buffers_);
      s.buffer = b.create(OpCode::LocalAlloc, {Type::tensor(shape, view.elementType(), view.encoding())}, {})->result();
    }
    for (Staged& s : staged) {
      if (!s.tma()) continue;
      s.desc = swizzledDescriptor(s);
      if (!s.desc)
        throw Error("pipeline-dot-loops: a ttng.descriptor_load whose descriptor is not a ttng.tensormap_create");
    }
    if (continued) {
      barriers_ = chain_.full;
      empty_ = chain_.empty;
    } else if (tma_) {
      Encoding plain = Encoding::swizzledShared(1, 1, 1, {0});
      barriers_ = b.create(OpCode::LocalAlloc, {Type::tensor({buffers_}, Type::i64(), plain)}, {})->result();
      b.create(OpCode::InitBarriers, {}, {barriers_});
      if (specialized_) {
        empty_ = b.create(OpCode::LocalAlloc, {Type::tensor({buffers_}, Type::i64(), plain)}, {})->result();
        b.create(OpCode::InitBarriers, {}, {empty_}, {{"count", numWarps()}});
      }
    }
    if (specialized_) buildProducer(staged, args, b);
    for (int j = 0; !specialized_ && j + 1 < stages_; ++j) {
      IRMapping m = iterations_.fromStart(j, args, b);
      Value active = runs(b, loop_->operand(0), j);
      copyTiles(staged, constI32(b, j), m, active, b);
    }

    // Stage counters as iteration arguments: the stage read, the stage
    // written (not with a producer), with TMA the parity of the phase the
    // read stage's barrier completes next, and with a producer whose
    // stages a dot of iteration i still reads in iteration i + 1, the
    // stage to release at the end of the body (-1: none yet).
    bool releaseLate = specialized_ && (asyncDot_ || deferredDot_);
    Value ringStage = continued ? chain_.readStage : constI32(b, 0);
    Value ringPhase = continued ? chain_.readPhase : constI32(b, 0);
    if (specialized_ && outer_ && !continued) {
      // The ring goes on from one iteration of the persistent loop to the next.
      std::tie(ringStage, ringPhase) = carryThrough(outer_, ringStage, ringPhase);
    }
    std::vector<Value> operands = loop_->operands();
    operands.push_back(ringStage);
    if (!specialized_) operands.push_back(constI32(b, stages_ - 1));
    if (tma_) operands.push_back(ringPhase);
    if (releaseLate) operands.push_back(constI32(b, -1));
    int added = static_cast<int>(operands.size() - loop_->operands().size());
    loop_->setOperands(operands);
    Value readStage = body_.addArgument(Type::i32());
    Value writeStage = specialized_ ? Value() : body_.addArgument(Type::i32());
    Value phase = tma_ ? body_.addArgument(Type::i32()) : Value();
    Value releaseStage = releaseLate ? body_.addArgument(Type::i32()) : Value();
    for (int k = added; k > 0; --k) loop_->appendResult(Type::i32());

    // In the body: wait, read this iteration's stages, start the copies of
    // iteration i + S - 1. The barrier of the wait (or a plain one) also
    // keeps the copies into stage w behind every thread's last read of it;
    // a producer waits for the stages' release instead.
    b.setInsertionPointToStart(&body_);
    if (tma_) b.create(OpCode::WaitBarrier, {}, {barriers_, readStage, phase});
    if (cpAsync_)
      b.create(OpCode::AsyncWait, {}, {}, {{"num", int64_t{stages_ - 2}}});
    else if (!specialized_)
      b.create(OpCode::DebugBarrier, {}, {});
    for (Staged& s : staged) {
      Value slot = b.create(OpCode::MemdescIndex, {s.tile}, {s.buffer, readStage})->result();
      if (s.use->is(OpCode::LocalAlloc)) {
        s.use->result().replaceAllUsesWith(slot);
        continue;
      }
      // mma.sync: the fragments are read where the convert was.
      OpBuilder at;
      at.setLoc(s.use->loc());
      at.setInsertionPoint(s.use);
      s.use->result().replaceAllUsesWith(
          at.create(OpCode::LocalLoad, {s.use->result().type()}, {slot})->result());
    }
    if (!specialized_) {
      IRMapping ahead = iterations_.ahead(stages_ - 1, args, b);
      copyTiles(staged, writeStage, ahead, runs(b, body_.argument(0), stages_ - 1), b);
    }

    Operation* yield = body_.terminator();
    b.setInsertionPoint(yield);
    std::vector<Value> yielded = yield->operands();
    Value nextRead = nextStage(b, readStage);
    yielded.push_back(nextRead);
    if (writeStage) yielded.push_back(nextStage(b, writeStage));
    if (tma_) yielded.push_back(flipOnWrap(b, nextRead, phase));
    if (releaseStage) yielded.push_back(readStage);
    yield->setOperands(yielded);

    b.setInsertionPointAfter(loop_);
    if (cpAsync_) b.create(OpCode::AsyncWait, {}, {}, {{"num", int64_t{0}}});
    // The barriers of a ring through a persistent loop live as long as it.
    OpBuilder atEnd;
    atEnd.setLoc(loop_->loc());
    atEnd.setInsertionPointAfter(specialized_ && outer_ ? outer_ : loop_);
    std::vector<Operation*> invals;
    if (tma_) invals.push_back(atEnd.create(OpCode::InvalBarriers, {}, {barriers_}));
    if (specialized_) invals.push_back(atEnd.create(OpCode::InvalBarriers, {}, {empty_}));
    if (asyncDot_) makeDotAsync(b);
    if (deferredDot_) deferDotWait(b);
    if (specialized_) {
      // Each iteration releases the stage it is done reading: its own, or
      // the previous iteration's when a dot reading it finished at this
      // iteration's wait (none in the first). The stage the last
      // iteration's dot held is free after the waits above: released
      // there, for a later loop's copies into it.
      b.setInsertionPoint(body_.terminator());
      release(b, releaseStage ? releaseStage : readStage, releaseLate);
      int first = static_cast<int>(loop_->numResults()) - added;
      if (releaseLate) {  // after the dots' waits that follow the loop
        Operation* at = loop_->nextOp();
        while (at->is(OpCode::WarpGroupDotWait)) at = at->nextOp();
        b.setInsertionPoint(at);
        release(b, loop_->result(first + 2), true);
      }
      // Only the last loop of the ring invalidates its barriers.
      for (Operation* old : chain_.invals) old->erase();
      chain_.invals = invals;
      chain_.readStage = loop_->result(first);
      chain_.readPhase = loop_->result(first + 1);
      chain_.block = loop_->block();
      chain_.outer = outer_;
      if (outer_) yieldLast(outer_, chain_.readStage, chain_.readPhase);
      chain_.buffers.clear();
      for (Staged& s : staged) chain_.buffers.push_back(s.buffer);
      chain_.full = barriers_;
      chain_.empty = empty_;
    }

    for (Staged& s : staged) {
      Operation* create = s.tma() ? s.load->operand(0).definingOp() : nullptr;
      s.use->erase();
      if (s.trans) s.trans->erase();
      s.load->erase();
      if (create && create->result().uses().empty()) create->erase();
    }
    if (!specialized_) return;
    if (outer_) dropConsumerFence();
    for (auto& [key, desc] : swizzled_) chain_.swizzled.push_back(desc);
  }

  /// Whether a producer warpgroup can copy this loop's tiles: the loop is
  /// in the kernel's entry block (the producer runs it once, from the
  /// start) or in the body of a persistent loop there (the producer runs
  /// its own copy of that loop), the kernel's warps are whole warpgroups,
  /// and the producer can compute the loop's bounds and every value the
  /// copies' coordinates and descriptors are computed from
  /// (WarpSpecialize.h).
  bool producerCanRun(const std::vector<Staged>& staged, const std::set<unsigned>& args) {
    Operation* parent = loop_->parentOp();
    // Whole consumer warpgroups, one or two (WarpSpecialize.h's register
    // budgets; 32 warps plus the producer would not launch).
    if (!parent || !(parent->is(OpCode::Func) || outer_) || (numWarps() != 4 && numWarps() != 8)) return false;
    // The producer copies from the kernel's start, ahead of what the
    // kernel's warps do before the loop: nothing there may write global
    // memory the copies could read, or wait for another program's writes.
    Operation* top = outer_ ? outer_ : loop_;
    for (Operation* op = top->block()->front(); op != top; op = op->nextOp())
      if (orderedAccess(op, {})) return false;
    if (outer_ && !persistentLoopAllows(staged)) return false;
    std::vector<Value> needs = {loop_->operand(0), loop_->operand(1), loop_->operand(2)};
    std::set<Operation*> inBody;
    for (unsigned i : args) {
      if (i == 0) continue;
      needs.push_back(loop_->operand(2 + i));
      outsideValues(body_.terminator()->operand(i - 1), needs, inBody);
    }
    for (const Staged& s : staged)
      for (Value v : s.load->operands()) outsideValues(v, needs, inBody);
    if (outer_) needs.insert(needs.end(), {outer_->operand(0), outer_->operand(1), outer_->operand(2)});
    std::set<Operation*> seen;
    for (Value v : needs)
      if (!producerCanCompute(v, seen, outer_)) return false;
    return true;
  }

  /// Whether `op` (or an op in it) writes global memory, other than
  /// stores through pointers based on kernel arguments outside `copied`,
  /// or waits for another program's writes.
  static bool orderedAccess(Operation* op, const std::set<int>& copied) {
    bool ordered = false;
    op->walk([&](Operation* inner) {
      if (inner->is(OpCode::Store)) {
        int arg = pointerArgumentIndex(inner->operand(0));
        ordered = ordered || copied.empty() || arg < 0 || copied.count(arg);
        return;
      }
      ordered = ordered || inner->is(OpCode::AtomicRMW) || inner->is(OpCode::AtomicCAS) ||
                inner->is(OpCode::Call) || inner->is(OpCode::While) ||
                (inner->is(OpCode::Load) && inner->boolAttr("volatile"));
    });
    return ordered;
  }

  /// The producer of a persistent loop copies the next tile's blocks while
  /// the kernel's warps finish this one, stores included. Like Triton's
  /// pipeliner, this takes stores through other pointer arguments than the
  /// copies' to write other memory; a store through the same argument (or
  /// one of unknown base) keeps the producer out. Its descriptors must be
  /// ones the launch encodes: a descriptor the kernel rewrote in memory for
  /// the next tile could change under copies still in flight.
  bool persistentLoopAllows(const std::vector<Staged>& staged) {
    std::set<int> copied;
    for (const Staged& s : staged) {
      Operation* create = s.load->operand(0).definingOp();
      Value outer;
      if (!create || !create->is(OpCode::TensormapCreate) || (outer_->isAncestorOf(create) && !hostTensorMapOf(create, outer)))
        return false;
      int arg = pointerArgumentIndex(create->operand(0));
      if (arg < 0) return false;
      copied.insert(arg);
    }
    for (Operation* op : outer_->region(0).front().ops())
      if (orderedAccess(op, copied)) return false;
    return true;
  }

  /// tma-descriptor-loads fenced the loop's copies after the previous
  /// tile's stores (fence.proxy.async.global); the producer's thread issues
  /// them now, which a fence on the kernel's warps does not order, and
  /// persistentLoopAllows took those stores to write other memory: the
  /// fence goes.
  void dropConsumerFence() {
    // Not while the kernel's warps still copy with TMA themselves (a
    // descriptor load left unstaged goes through scratch in the body).
    bool ownCopies = false;
    loop_->walk([&](Operation* op) { ownCopies = ownCopies || op->is(OpCode::DescriptorLoad); });
    if (ownCopies) return;
    for (Operation* op = loop_->prevOp(); op && !op->is(OpCode::For) && !op->is(OpCode::Store); op = op->prevOp())
      if (op->is(OpCode::FenceAsyncGlobal)) {
        op->erase();
        return;
      }
  }

  /// The scf.for of the kernel's entry block whose body holds `loop`
  /// directly (a persistent loop over tiles), or null.
  static Operation* persistentLoop(Operation* loop) {
    Operation* parent = loop->parentOp();
    if (!parent || !parent->is(OpCode::For)) return nullptr;
    Operation* grand = parent->parentOp();
    return grand && grand->is(OpCode::Func) ? parent : nullptr;
  }

  /// `loop` carries two more i32 values, starting at `init0` and `init1`
  /// (values before it); returns them as its body sees them. Its yield
  /// passes them on unchanged until yieldLast says otherwise.
  static std::pair<Value, Value> carryThrough(Operation* loop, Value init0, Value init1) {
    std::vector<Value> operands = loop->operands();
    operands.push_back(init0);
    operands.push_back(init1);
    loop->setOperands(operands);
    Block& body = loop->region(0).front();
    Value a = body.addArgument(Type::i32()), c = body.addArgument(Type::i32());
    loop->appendResult(Type::i32());
    loop->appendResult(Type::i32());
    Operation* yield = body.terminator();
    std::vector<Value> yielded = yield->operands();
    yielded.push_back(a);
    yielded.push_back(c);
    yield->setOperands(yielded);
    return {a, c};
  }

  /// The last two values `loop` yields (those of carryThrough) become x, y.
  static void yieldLast(Operation* loop, Value x, Value y) {
    Operation* yield = loop->region(0).front().terminator();
    std::vector<Value> yielded = yield->operands();
    yielded[yielded.size() - 2] = x;
    yielded[yielded.size() - 1] = y;
    yield->setOperands(yielded);
  }

  /// The values from outside the body that the body chain of `v` uses.
  void outsideValues(Value v, std::vector<Value>& out, std::set<Operation*>& seen) {
    Operation* def = v.definingOp();
    if (!def || def->block() != &body_) {
      if (!def && v.parentBlock() == &body_) return;  // the iv, an iteration argument
      out.push_back(v);
      return;
    }
    if (!seen.insert(def).second) return;
    for (Value o : def->operands()) outsideValues(o, out, seen);
  }

  /// ttng.warp_specialize at b's insertion point: one thread of a producer
  /// warpgroup runs the loop's iterations, each waiting for its stage to be
  /// released (the parity starts at 1: a fresh barrier's previous phase
  /// counts as complete, so the first write of each stage does not wait),
  /// then arming the stage's barrier and copying the iteration's tiles.
  void buildProducer(std::vector<Staged>& staged, const std::set<unsigned>& args, OpBuilder& b) {
    OpBuilder p;
    p.setLoc(loop_->loc());
    Value ringStage, ringParity;
    if (chain_.producer) {  // a later loop: its iterations go after the earlier loops'
      producer_ = chain_.producer;
      Block& holder = chain_.producerOuter ? chain_.producerOuter->region(0).front() : producer_->region(0).front();
      p.setInsertionPoint(holder.terminator());
      ringStage = chain_.producerStage;
      ringParity = chain_.producerParity;
    } else {
      auto [producerRegs, consumerRegs] = producerConsumerRegisters(numWarps());
      producer_ = b.create(OpCode::WarpSpecialize, {}, {},
                           {{"producer_warps", int64_t{4}}, {"producer_registers", producerRegs},
                            {"consumer_registers", consumerRegs}},
                           1);
      p.setInsertionPointToEnd(producer_->region(0).addBlock());
      ringStage = constI32(p, 0);
      ringParity = constI32(p, 1);
      if (outer_) {
        // The producer's own persistent loop, carrying its ring from one
        // tile to the next: same bounds (isolateProducer brings them).
        Operation* loop = p.create(OpCode::For, {}, {outer_->operand(0), outer_->operand(1), outer_->operand(2)}, {}, 1);
        Block* body = loop->region(0).addBlock();
        body->addArgument(outer_->region(0).front().argument(0).type());
        OpBuilder(body).create(OpCode::Yield, {}, {});
        p.create(OpCode::Yield, {}, {});
        std::tie(ringStage, ringParity) = carryThrough(loop, ringStage, ringParity);
        chain_.producerOuter = loop;
        p.setInsertionPoint(body->terminator());
      }
    }
    std::vector<Value> operands = {loop_->operand(0), loop_->operand(1), loop_->operand(2)};
    std::vector<unsigned> carried;
    for (unsigned i : args)
      if (i > 0) carried.push_back(i);
    for (unsigned i : carried) operands.push_back(loop_->operand(2 + i));
    operands.push_back(ringStage);
    operands.push_back(ringParity);
    std::vector<Type> types;
    for (size_t k = 3; k < operands.size(); ++k) types.push_back(operands[k].type());
    Operation* loop = p.create(OpCode::For, types, operands, {}, 1);
    Block* body = loop->region(0).addBlock();
    IRMapping m;
    m.map(body_.argument(0), body->addArgument(body_.argument(0).type()));
    for (unsigned i : carried) m.map(body_.argument(i), body->addArgument(body_.argument(i).type()));
    Value stage = body->addArgument(Type::i32()), parity = body->addArgument(Type::i32());
    OpBuilder q(body);
    q.setLoc(loop_->loc());
    q.create(OpCode::WaitBarrier, {}, {empty_, stage, parity});
    copyTiles(staged, stage, m, q.constantInt(Type::i1(), 1), q);
    std::vector<Value> yielded;
    for (unsigned i : carried) yielded.push_back(iterations_.recompute(body_.terminator()->operand(i - 1), m, q));
    Value next = nextStage(q, stage);
    yielded.push_back(next);
    yielded.push_back(flipOnWrap(q, next, parity));
    q.create(OpCode::Yield, {}, yielded);
    if (!chain_.producer && !outer_) p.create(OpCode::Yield, {}, {});
    chain_.producer = producer_;
    chain_.producerStage = loop->result(loop->numResults() - 2);
    chain_.producerParity = loop->result(loop->numResults() - 1);
    if (chain_.producerOuter) yieldLast(chain_.producerOuter, chain_.producerStage, chain_.producerParity);
  }

  /// This loop stages the tiles of the producer's earlier loops, in the
  /// same order and as many stages: its copies go on in their ring.
  bool continuesChain(const std::vector<Staged>& staged) const {
    if (chain_.block != loop_->block() || chain_.buffers.size() != staged.size()) return false;
    for (size_t i = 0; i < staged.size(); ++i) {
      Type ring = chain_.buffers[i].type();  // [stages, tile...]
      std::vector<int64_t> tile(ring.shape().begin() + 1, ring.shape().end());
      if (ring.shape()[0] != buffers_ || Type::tensor(tile, ring.elementType(), ring.encoding()) != staged[i].tile)
        return false;
    }
    return true;
  }

  /// Every warp arrives on the empty barrier of `stage` at b's insertion
  /// point (not when `mayBeNone` and the stage is -1).
  void release(OpBuilder& b, Value stage, bool mayBeNone) {
    Value any = mayBeNone ? b.create(OpCode::CmpI, {Type::i1()}, {stage, constI32(b, 0)},
                                     {{"predicate", std::string("sge")}})->result()
                          : b.constantInt(Type::i1(), 1);
    b.create(OpCode::ArriveBarrier, {}, {empty_, stage, any});
  }

  /// The kernel's num_warps (the arrivals each empty barrier waits for):
  /// a wrong count would let thread 0 overwrite a stage still being read.
  int64_t numWarps() const {
    Operation* f = enclosingFunc(loop_);
    if (!f || !f->hasAttr("num_warps"))
      throw Error("pipeline-dot-loops: a kernel with TMA stages needs its num_warps attribute (run convert-to-gpu first)");
    return f->intAttr("num_warps");
  }

  /// acc = dot {is_async}; wait {pendings = 1} before the yield, wait
  /// {pendings = 0} after the loop (see the file comment).
  void makeDotAsync(OpBuilder& b) {
    Operation* dot = asyncDot_;
    dot->setAttr("is_async", true);
    unsigned position = dot->result().uses().front()->index;  // in the yield
    b.setInsertionPointAfter(dot);
    waitFor(b, dot->result(), 1);
    b.setInsertionPointAfter(loop_);
    waitFor(b, loop_->result(position), 0);
  }

  /// The deferred dot goes asynchronous; its carried result is waited for
  /// (pendings = 0) before its first read in the body and after the loop.
  void deferDotWait(OpBuilder& b) {
    Operation* dot = deferredDot_;
    dot->setAttr("is_async", true);
    unsigned position = dot->result().uses().front()->index;  // in the yield
    Value carried = body_.argument(position + 1);
    std::vector<OpOperand*> reads = carried.uses();
    if (!reads.empty()) {  // all in the body, before the dot (deferredCandidate)
      Operation* first = reads.front()->owner;
      for (Operation* op = body_.front(); op != first; op = op->nextOp())
        for (OpOperand* r : reads) first = r->owner == op ? op : first;
      // A synchronous wgmma dot before that read already waits for every
      // earlier group, the deferred dot's included: the wait goes right
      // after it (where the PTX emitter drops it as redundant), so the
      // carried value is readable from there on and the code between, such
      // as attention's softmax, can be scheduled with its rescaling.
      Operation* at = first;
      for (Operation* op = body_.front(); op != first; op = op->nextOp())
        if (isWgmmaDot(op) && !op->boolAttr("is_async")) at = op->nextOp();
      b.setInsertionPoint(at);
      waitFor(b, carried, 0);
    }
    b.setInsertionPointAfter(loop_);
    waitFor(b, loop_->result(position), 0);
  }

  Operation* loop_;
  Block& body_;
  Operation* asyncDot_ = nullptr;
  Operation* deferredDot_ = nullptr;
  int buffers_ = 0;
  bool tma_ = false;      ///< some staged load is copied by TMA
  bool cpAsync_ = false;  ///< some by cp.async
  Value barriers_;     ///< their mbarriers, one per stage
  bool specialize_ = false;    ///< a producer warpgroup copies the tiles if it can
  bool specialized_ = false;   ///< ... and does (stages released on empty_)
  Value empty_;                ///< the "empty" mbarriers, one per stage
  Operation* producer_ = nullptr;  ///< the ttng.warp_specialize
  ProducerPipeline& chain_;        ///< the kernel's producer pipeline so far
  Operation* outer_ = nullptr;     ///< the persistent loop around this one, if any
  std::map<std::tuple<Operation*, std::vector<int64_t>, int64_t>, Value> swizzled_;  ///< swizzledDescriptor's
  int stages_;
  AxisInfoAnalysis& axis_;
  LoopIterations iterations_;
};

/// A copy to shared memory of a value defined outside the loop (attention's
/// Q tile) is made once, before the loop: its buffer is only read inside.
/// When a copy of the same value is already made before the loop in its
/// block (attention's Q tile for the first key block, peeled off the loop),
/// the loop reads that one: copies made from a value are never written.
bool hoistInvariantAllocs(Operation* loop) {
  bool moved = false;
  for (Operation* op : loop->region(0).front().ops()) {
    if (!op->is(OpCode::LocalAlloc) || op->numOperands() != 1) continue;
    Operation* owner = op->operand(0).parentBlock()->parentOp();
    if (loop->isAncestorOf(owner)) continue;
    moved = true;
    Operation* copy = loop->prevOp();
    while (copy && !(copy->is(OpCode::LocalAlloc) && copy->numOperands() == 1 && copy->operand(0) == op->operand(0) &&
                     copy->result().type() == op->result().type()))
      copy = copy->prevOp();
    if (!copy) {
      op->moveBefore(loop);
      continue;
    }
    op->result().replaceAllUsesWith(copy->result());
    op->erase();
  }
  return moved;
}

}  // namespace

void pipelineDotLoops(Operation* func, int numStages) {
  std::vector<Operation*> loops;
  func->walk([&](Operation* op) {
    if (op->is(OpCode::For)) loops.push_back(op);
  });
  // Until nothing moves: a copy hoisted out of an inner loop may be
  // invariant in the outer one too.
  for (bool moved = true; moved;) {
    moved = false;
    for (Operation* loop : loops) moved = hoistInvariantAllocs(loop) || moved;
  }
  if (numStages < 2) return;
  AxisInfoAnalysis axis(func);
  // One producer warpgroup per kernel: for the first loop that can have
  // it and asks for it (tl.range(..., warp_specialize=True)), or does not
  // refuse it (warp_specialize=False) and runs more than one wgmma dot
  // (attention: the consumers' softmax between the dots is what the
  // producer takes the copies off; a matmul loop measured 0.93-1.04x), and
  // for later such loops that continue its ring of stages.
  ProducerPipeline chain;
  for (Operation* loop : loops) {
    int dots = 0;
    for (Operation* op : loop->region(0).front().ops()) dots += isWgmmaDot(op) ? 1 : 0;
    bool ask = loop->hasAttr("warp_specialize") ? loop->boolAttr("warp_specialize") : dots >= 2;
    LoopPipeliner(loop, numStages, axis, ask, chain).run();
  }
  if (!chain.producer) return;
  // Once all of its loops are in: each chain of values is copied once.
  isolateProducer(chain.producer, chain.outer, chain.producerOuter);
  // The producer made its own copies of the swizzled descriptors.
  for (Value desc : chain.swizzled)
    if (desc.uses().empty()) desc.definingOp()->erase();
}

}  // namespace tessera::gpu
