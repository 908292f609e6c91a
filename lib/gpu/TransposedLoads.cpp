//===- TransposedLoads.cpp - tl.trans of a loaded dot operand -> a load ---===//
//
// Rewrites (transposed-loads, Tile IR before convert-to-gpu):
//
//   %x  = tt.load %ptrs, %mask, %other : tensor<RxC>
//   %xt = tt.trans %x {order = [1, 0]}  : tensor<CxR>     (read only by tt.dot;
//                                                          %x read elsewhere too)
//     ->
//   %x  = tt.load %ptrs, %mask, %other                    (if still used)
//   %xt = tt.load trans(%ptrs), trans(%mask), trans(%other)  (right after %x)
//
// Expects: Tile IR (no layouts yet); 2-D pointer-tensor loads.
// Guarantees: the new load reads the same addresses under the same mask
//   right after the original one, so it sees the values the original saw.
//   Left alone: volatile and block-pointer loads; loads that a store or
//   atomic may precede (one earlier in the function, or in a loop around
//   the load) unless it is a store or relaxed atomic through another
//   kernel argument (PointerArguments.h): the program's own writes are
//   visible to the original load's threads, not necessarily to the
//   transposed load's; loads whose pointer
//   or mask is not index arithmetic the pass can rebuild transposed (a
//   loop-carried pointer tile would need a data transpose per iteration).
//   The pointer and mask are rebuilt with their dims swapped (no data
//   movement); `other` may be transposed as data. The second load keeps the
//   first's cache hint, not its eviction policy (it should hit the cache).
// Why: backward kernels read a tile both ways — FlashAttention's dK/dV loop
//   uses Q^T and dO in one dot and their transposes in another
//   (tl.dot(ds, tl.trans(qT))). A register transpose of a loaded tile costs
//   a trip through shared memory per iteration, and a tile with two readers
//   cannot be staged by the loop pipeliner, which then leaves the whole
//   loop unpipelined. As a load of its own, each orientation is one more
//   cp.async/TMA tile the pipeliner stages in the layout its dot wants; the
//   second read of the same bytes comes from L1/L2. Triton reaches the same
//   end with a transposed view of one shared buffer (memdesc_trans);
//   Tessera has no shared-memory views yet (docs/decisions.md).
//
//===----------------------------------------------------------------------===//

#include <map>

#include "gpu/GpuPasses.h"
#include "gpu/PointerArguments.h"
#include "tessera/ir/Builder.h"
#include "tessera/ir/OpViews.h"

namespace tessera::gpu {

using namespace ir;

namespace {

bool isTranspose2D(Operation* op) {
  if (!op->is(OpCode::Trans) || op->result().type().rank() != 2) return false;
  std::vector<int64_t> order = op->intArrayAttr("order");
  return order == std::vector<int64_t>{1, 0};
}

/// Every reader of `v` is a tt.dot reading it as its A or B operand.
bool onlyDotOperand(Value v) {
  if (!v.hasUses()) return false;
  for (OpOperand* u : v.uses())
    if (!u->owner->is(OpCode::Dot) || u->index > 1) return false;
  return true;
}

/// Builds tiles transposed: index arithmetic (splats, ranges expanded and
/// broadcast, constants, elementwise ops) is rebuilt with the dims
/// swapped, so `ptr + rows[None, :] * D + dims[:, None]` becomes
/// `ptr + rows[:, None] * D + dims[None, :]` and layout assignment gives
/// it the new load's layout with no data movement; anything else (a load,
/// a reduction) gets a tt.trans.
class Transposer {
 public:
  explicit Transposer(OpBuilder& b) : b_(b) {}

  Value operator()(Value v) {
    if (!v || !v.type().isTensor() || v.type().rank() != 2) return v;
    auto it = memo_.find(v.impl());
    if (it != memo_.end()) return it->second;
    const std::vector<int64_t>& shape = v.type().shape();
    Type t = Type::tensor({shape[1], shape[0]}, v.type().elementType());
    Operation* def = v.definingOp();
    Value r;
    if (def && def->numRegions() == 0 && def->numResults() == 1 &&
        (def->is(OpCode::Splat) || def->is(OpCode::Constant) || def->is(OpCode::Broadcast) ||
         (def->is(OpCode::ExpandDims) && def->operand(0).type().rank() == 1) || isRematerializable(def))) {
      std::vector<Value> operands;
      for (Value o : def->operands()) operands.push_back(o.type().isTensor() && o.type().rank() == 2 ? (*this)(o) : o);
      AttrMap attrs = def->attrs();
      if (def->is(OpCode::ExpandDims)) attrs["axis"] = int64_t{1 - def->intAttr("axis")};
      r = b_.create(def->code(), {t}, operands, attrs)->result();
    } else {
      r = b_.create(OpCode::Trans, {t}, {v}, {{"order", std::vector<int64_t>{1, 0}}})->result();
    }
    memo_[v.impl()] = r;
    return r;
  }

 private:
  OpBuilder& b_;
  std::map<ValueImpl*, Value> memo_;
};

/// Whether the Transposer rebuilds `v` without a data transpose.
bool rebuildable(Value v, int depth = 0) {
  if (!v || !v.type().isTensor() || v.type().rank() != 2) return true;
  Operation* def = v.definingOp();
  if (!def || depth > 32 || def->numRegions() != 0 || def->numResults() != 1) return false;
  bool simple = def->is(OpCode::Splat) || def->is(OpCode::Constant) || def->is(OpCode::Broadcast) ||
                (def->is(OpCode::ExpandDims) && def->operand(0).type().rank() == 1) || isRematerializable(def);
  if (!simple) return false;
  for (Value o : def->operands())
    if (!rebuildable(o, depth + 1)) return false;
  return true;
}

/// Ops that write memory, in program order, and whether `load` may come
/// after one of them: an earlier one in the walk, or one inside a loop
/// that also holds the load (a later iteration reads after it).
class Writes {
 public:
  explicit Writes(Operation* func) {
    func->walk([&](Operation* op) {
      order_[op] = order_.size();
      if (op->hasTrait(MemWrite) && !op->is(OpCode::LocalAlloc)) writes_.push_back(op);
    });
  }
  bool mayPrecede(Operation* load) const {
    size_t at = order_.at(load);
    Value read = pointerArgument(load->operand(0));
    for (Operation* w : writes_) {
      if (writeSpares(w, read)) continue;  // another kernel argument (PointerArguments.h)
      if (order_.at(w) < at) return true;
      for (Operation* p = load->parentOp(); p; p = p->parentOp())
        if ((p->is(OpCode::For) || p->is(OpCode::While)) && p->isAncestorOf(w)) return true;
    }
    return false;
  }

 private:
  std::map<Operation*, size_t> order_;
  std::vector<Operation*> writes_;
};

}  // namespace

void transposeLoadedOperands(Operation* func) {
  std::vector<Operation*> transposes;
  func->walk([&](Operation* op) {
    if (isTranspose2D(op)) transposes.push_back(op);
  });
  if (transposes.empty()) return;
  Writes writes(func);
  for (Operation* trans : transposes) {
    Operation* load = trans->operand(0).definingOp();
    // A load read only through the transpose is left to the passes that
    // copy it transposed (pointer-tiles-to-tma's K^T).
    if (!load || !load->is(OpCode::Load) || load->result().hasOneUse() || !onlyDotOperand(trans->result()))
      continue;
    LoadOp view(load);
    const std::vector<int64_t>& shape = load->result().type().shape();
    if (view.isVolatile() || !view.ptr().type().isTensor() || view.ptr().type().shape() != shape ||
        !view.boundaryCheck().empty() || !view.padding().empty() || !rebuildable(view.ptr()) ||
        !rebuildable(view.mask()) || writes.mayPrecede(load))
      continue;
    OpBuilder b;
    b.setInsertionPointAfter(load);
    b.setLoc(load->loc());
    Transposer transposed(b);
    std::vector<Value> operands;
    for (Value v : load->operands()) operands.push_back(v.type().shape() == shape ? transposed(v) : v);
    AttrMap attrs = load->attrs();
    attrs.erase("evict");
    Operation* copy = b.create(OpCode::Load, {trans->result().type()}, operands, attrs);
    trans->result().replaceAllUsesWith(copy->result());
    trans->erase();
    if (!load->result().hasUses()) load->erase();
  }
}

}  // namespace tessera::gpu
