//===- PipelineSchedule.cpp - What pipeline-dot-loops stages, and how -------===//
//
// Rewrites: nothing itself: LoopPipeliner::run looks at a loop with wgmma
//   (or 16-bit mma.sync) dots and decides, then hands the decisions to
//   the expansion (PipelineLoops.cpp) and the producer (WarpSpecializeLoops.cpp):
//   - which operand tiles are staged: loads of the body whose pointers,
//     masks and `other` are pure functions of the induction variable and
//     iteration arguments (LoopIterations.h), `other` 0 (cp.async
//     zero-fills) and vectors of 4, 8 or 16 bytes along the contiguous dim
//     (axis info); tt.load tiles by cp.async, ttng.descriptor_load tiles
//     (directly or read through tt.trans: attention's K^T) by TMA;
//   - which dot is issued asynchronously: the loop's one dot accumulating
//     into a carried value nothing else reads (acc = dot(a, b, acc)), its
//     shared operands all staged or copied before the loop;
//   - which dot's wait is deferred: a dot whose result is only carried to
//     the next iteration and read there (attention's acc = dot(p, v, acc *
//     alpha)) waits just before that read;
//   - whether a producer warpgroup copies the tiles (WarpSpecializeLoops.cpp).
// Expects: Tile GPU IR after convert-to-gpu; an scf.for.
// Guarantees: a loop with a volatile or ordered (acquire) load is left
//   alone, and so is one that writes global memory (the copies move ahead
//   of its writes) unless every write is a tt.store or relaxed tt.atomic_rmw through a kernel
//   pointer argument that no staged tile is read through (arguments taken
//   not to alias, as Triton's pipeliner takes them: attention's one-pass
//   backward adds dQ into another buffer in the loop that stages Q and dO);
//   a load that does not qualify stays as it is while the others are staged.
// Why: the decisions are the pipeliner's policy; keeping them apart from the
//   rewriting makes each readable on its own (Triton separates scheduling
//   and expansion the same way).
//
//===----------------------------------------------------------------------===//

#include "gpu/LoopPipeliner.h"
#include "gpu/PointerArguments.h"
#include "tessera/Error.h"
#include "tessera/ir/Matchers.h"
#include "tessera/ir/OpViews.h"

namespace tessera::gpu::pipeliner {

void LoopPipeliner::run() {
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
      if (Value other = LoadOp(load).other(); other && !ir::isZeroConstant(other)) continue;
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
  // memory a later tile might read is left alone.
  if (!writesSpareStagedTiles(staged)) return;
  asyncDot_ = asyncCandidate(staged);
  if (!asyncDot_) deferredDot_ = deferredCandidate(staged);
  buffers_ = stages_ + (asyncDot_ || deferredDot_ ? 1 : 0);
  rewrite(staged, args);
}

/// How a load's pointers access memory: its widest vectors and their dim.
AccessVector LoopPipeliner::access(Operation* load) {
  LoadOp view(load);
  Value ptr = view.ptr(), mask = view.mask();
  return accessVector(axis_, ptr, mask, toLinearLayout(ptr.type().shape(), ptr.type().encoding()),
                      load->result().type().elementType().bitWidth() / 8);
}

/// cp.async moves 4, 8 or 16 bytes: the load's vectors `v` must be that
/// wide, and run along the contiguous dim of the shared `tile`.
bool LoopPipeliner::copyable(const AccessVector& v, Operation* load, Type tile) {
  int64_t bytes = v.elements * load->result().type().elementType().bitWidth() / 8;
  return v.dim == sharedContiguousDim(tile.encoding()) && (bytes == 4 || bytes == 8 || bytes == 16);
}

/// TMA writes an nvmma_shared tile whose memory rows are the
/// descriptor's (transposed exactly when the load is read transposed):
/// boxes of all rows x one swizzle atom (rows a multiple of 8, so each
/// atom stays aligned to the swizzle pattern).
bool LoopPipeliner::tmaCopyable(Type tile, bool readTransposed) {
  Encoding enc = tile.encoding();
  if (tile.rank() != 2 || !enc.isNvmmaShared() || enc.transposed() != readTransposed || !enc.swizzlingByteWidth())
    return false;
  int64_t rows = tile.shape()[readTransposed ? 1 : 0];
  return rows % 8 == 0 && rows <= 256;
}

/// The loop's dot, when it is the only one, accumulates into a
/// loop-carried value that nothing else reads (acc = dot(a, b, acc)), and
/// reads no shared buffer the body rewrites: each shared operand is
/// staged or copied before the loop (a copy made in the body would
/// overwrite what the previous, still running, dot reads).
Operation* LoopPipeliner::asyncCandidate(const std::vector<Staged>& staged) {
  Operation* dot = nullptr;
  for (Operation* op : body_.ops()) {
    if (!op->is(OpCode::Dot)) continue;
    if (dot) return nullptr;
    dot = op;
  }
  if (!dot || !readsStableShared(dot, staged)) return nullptr;
  Value acc = DotOp(dot).acc();
  if (acc.ownerBlock() != &body_ || acc.index() == 0 || !acc.hasOneUse() || !dot->result().hasOneUse())
    return nullptr;
  return body_.terminator()->operand(acc.index() - 1) == dot->result() ? dot : nullptr;
}

/// Each shared operand of `dot` is staged or copied before the loop.
bool LoopPipeliner::readsStableShared(Operation* dot, const std::vector<Staged>& staged) {
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
Operation* LoopPipeliner::deferredCandidate(const std::vector<Staged>& staged) {
  std::vector<Operation*> order = body_.ops();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Operation* dot = *it;
    if (!dot->is(OpCode::Dot) || !readsStableShared(dot, staged) || !dot->result().hasOneUse()) continue;
    OpOperand* use = dot->result().uses().front();
    if (use->owner != body_.terminator()) continue;
    Value carried = body_.argument(use->index + 1);
    if (carried == DotOp(dot).acc()) continue;
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

bool LoopPipeliner::writesSpareStagedTiles(const std::vector<Staged>& staged) {
  std::vector<Value> reads;
  for (const Staged& s : staged) reads.push_back(pointerArgument(s.load->operand(0)));
  bool spared = true;
  loop_->walk([&](Operation* op) {
    // An ordered or volatile load (tl.atomic_load, tl.atomic_poll: a flag
    // another program sets) orders the loads after it: none may move ahead.
    if (op->is(OpCode::Load) && (LoadOp(op).isVolatile() || !op->strAttr("sem").empty())) spared = false;
    if (op == loop_ || !op->hasTrait(MemWrite)) return;
    // Copies into the loop's own shared buffers write no global memory; a
    // descriptor made in the loop writes only this program's slot.
    if (op->is(OpCode::LocalAlloc) || op->is(OpCode::TensormapCreate)) return;
    for (Value read : reads) spared = spared && writeSpares(op, read);
  });
  return spared;
}

}  // namespace tessera::gpu::pipeliner
