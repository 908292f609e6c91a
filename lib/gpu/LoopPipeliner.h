//===- LoopPipeliner.h - pipeline-dot-loops' state (private to lib/gpu) -*- C++ -*-===//
//
// The pass pipeline-dot-loops (GpuPasses.h) is one LoopPipeliner per loop,
// its work split by concern: PipelineSchedule.cpp decides (which tiles
// are staged and how, which dot runs asynchronously or deferred),
// PipelineLoops.cpp expands the loop (stage buffers, copies, waits, the
// pass entry), WarpSpecializeLoops.cpp hands the copies to a producer
// warpgroup (WarpSpecialize.h has the region helpers).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "gpu/GpuPasses.h"
#include "gpu/LoopIterations.h"
#include "tessera/gpu/AxisInfo.h"
#include "tessera/ir/Builder.h"
#include "tessera/ir/IR.h"

namespace tessera::gpu::pipeliner {

using namespace ir;

/// A tt.dot on mma.sync (an nvidia_mma v2 result).
inline bool isMmaV2Dot(Operation* op) {
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

  void run();

 private:
  /// How a load's pointers access memory: its widest vectors and their dim.
  AccessVector access(Operation* load);

  /// cp.async moves 4, 8 or 16 bytes: the load's vectors `v` must be that
  /// wide, and run along the contiguous dim of the shared `tile`.
  static bool copyable(const AccessVector& v, Operation* load, Type tile);

  /// TMA writes an nvmma_shared tile whose memory rows are the
  /// descriptor's (transposed exactly when the load is read transposed):
  /// boxes of all rows x one swizzle atom (rows a multiple of 8, so each
  /// atom stays aligned to the swizzle pattern).
  static bool tmaCopyable(Type tile, bool readTransposed);

  Value constI32(OpBuilder& b, int64_t v);

  /// The loop's dot, when it is the only one, accumulates into a
  /// loop-carried value that nothing else reads (acc = dot(a, b, acc)), and
  /// reads no shared buffer the body rewrites: each shared operand is
  /// staged or copied before the loop (a copy made in the body would
  /// overwrite what the previous, still running, dot reads).
  Operation* asyncCandidate(const std::vector<Staged>& staged);

  /// Each shared operand of `dot` is staged or copied before the loop.
  bool readsStableShared(Operation* dot, const std::vector<Staged>& staged);

  /// Whether the loop's writes to memory leave the staged loads free to
  /// move iterations ahead: every write is a tt.store or a relaxed
  /// tt.atomic_rmw through a pointer argument of the kernel that no staged
  /// tile is read through (kernel arguments are taken not to alias, as
  /// Triton's pipeliner takes them); a loop without writes qualifies.
  bool writesSpareStagedTiles(const std::vector<Staged>& staged);

  /// A dot whose result is only carried to the next iteration, where every
  /// read of it comes before the dot (attention's acc = dot(p, v, acc *
  /// alpha)): it can run while the next iteration starts, and is waited for
  /// only where the carried value is first read (or after the loop).
  Operation* deferredCandidate(const std::vector<Staged>& staged);

  /// Starts the copies of the staged tiles for the iteration of `m` into
  /// stage `stage`, masked off unless `active` (a scalar i1): TMA copies
  /// arm the stage's barrier with their bytes first.
  void copyTiles(std::vector<Staged>& staged, Value stage, IRMapping& m, Value active, OpBuilder& b);

  /// The descriptor a staged TMA load copies with: its own, remade with
  /// boxes of one swizzle atom of the tile and the tile's swizzle (once
  /// per descriptor, box and swizzle).
  Value swizzledDescriptor(const Staged& s);

  /// Copies the tile of `load` for the iteration of `m` into stage `stage`
  /// of `buffer`, masked off unless `active` (a scalar i1).
  void copyTile(Operation* load, Value buffer, Value stage, IRMapping& m, Value active, OpBuilder& b);

  Value lessThan(OpBuilder& b, Value x, Value bound);

  Value wide(OpBuilder& b, Value v);

  /// iv + k * step < ub, computed in i64 so that it cannot wrap near the
  /// top of a 32-bit range (the iteration is then not run, and its copies
  /// must stay masked off).
  Value runs(OpBuilder& b, Value iv, int64_t k);

  /// (x + 1) mod B for 0 <= x < B, B the number of buffers.
  Value nextStage(OpBuilder& b, Value x);

  /// The parity a phase counter yields: flipped when `next` (the stage
  /// after this one) wraps to 0.
  Value flipOnWrap(OpBuilder& b, Value next, Value parity);

  void rewrite(std::vector<Staged>& staged, const std::set<unsigned>& args);

  /// Whether a producer warpgroup can copy this loop's tiles: the loop is
  /// in the kernel's entry block (the producer runs it once, from the
  /// start) or in the body of a persistent loop there (the producer runs
  /// its own copy of that loop), the kernel's warps are whole warpgroups,
  /// and the producer can compute the loop's bounds and every value the
  /// copies' coordinates and descriptors are computed from
  /// (WarpSpecialize.h).
  bool producerCanRun(const std::vector<Staged>& staged, const std::set<unsigned>& args);

  /// Whether `op` (or an op in it) writes global memory, other than
  /// stores through pointers based on kernel arguments outside `copied`,
  /// or waits for another program's writes.
  static bool orderedAccess(Operation* op, const std::set<int>& copied);

  /// The producer of a persistent loop copies the next tile's blocks while
  /// the kernel's warps finish this one, stores included. Like Triton's
  /// pipeliner, this takes stores through other pointer arguments than the
  /// copies' to write other memory; a store through the same argument (or
  /// one of unknown base) keeps the producer out. Its descriptors must be
  /// ones the launch encodes: a descriptor the kernel rewrote in memory for
  /// the next tile could change under copies still in flight.
  bool persistentLoopAllows(const std::vector<Staged>& staged);

  /// tma-descriptor-loads fenced the loop's copies after the previous
  /// tile's stores (fence.proxy.async.global); the producer's thread issues
  /// them now, which a fence on the kernel's warps does not order, and
  /// persistentLoopAllows took those stores to write other memory: the
  /// fence goes.
  void dropConsumerFence();

  /// The scf.for of the kernel's entry block whose body holds `loop`
  /// directly (a persistent loop over tiles), or null.
  static Operation* persistentLoop(Operation* loop);

  /// `loop` carries two more i32 values, starting at `init0` and `init1`
  /// (values before it); returns them as its body sees them. Its yield
  /// passes them on unchanged until yieldLast says otherwise.
  static std::pair<Value, Value> carryThrough(Operation* loop, Value init0, Value init1);

  /// The last two values `loop` yields (those of carryThrough) become x, y.
  static void yieldLast(Operation* loop, Value x, Value y);

  /// The values from outside the body that the body chain of `v` uses.
  void outsideValues(Value v, std::vector<Value>& out, std::set<Operation*>& seen);

  /// ttng.warp_specialize at b's insertion point: one thread of a producer
  /// warpgroup runs the loop's iterations, each waiting for its stage to be
  /// released (the parity starts at 1: a fresh barrier's previous phase
  /// counts as complete, so the first write of each stage does not wait),
  /// then arming the stage's barrier and copying the iteration's tiles.
  void buildProducer(std::vector<Staged>& staged, const std::set<unsigned>& args, OpBuilder& b);

  /// This loop stages the tiles of the producer's earlier loops, in the
  /// same order and as many stages: its copies go on in their ring.
  bool continuesChain(const std::vector<Staged>& staged) const;

  /// Every warp arrives on the empty barrier of `stage` at b's insertion
  /// point (not when `mayBeNone` and the stage is -1).
  void release(OpBuilder& b, Value stage, bool mayBeNone);

  /// The kernel's num_warps (the arrivals each empty barrier waits for):
  /// a wrong count would let thread 0 overwrite a stage still being read.
  int64_t numWarps() const;

  /// acc = dot {is_async}; wait {pendings = 1} before the yield, wait
  /// {pendings = 0} after the loop (see the file comment).
  void makeDotAsync(OpBuilder& b);

  /// The deferred dot goes asynchronous; its carried result is waited for
  /// (pendings = 0) before its first read in the body and after the loop.
  void deferDotWait(OpBuilder& b);


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

}  // namespace tessera::gpu::pipeliner
