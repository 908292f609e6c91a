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
//   right after the original one, so it sees the values the original saw
//   (a volatile load, a block-pointer load and a load outside the trans's
//   function body region chain are left alone); the transposes move to the
//   pointer, mask and `other` tiles, which layout assignment rebuilds in
//   the load's layout (index arithmetic rebuilt with its dims swapped: no
//   data movement).
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

}  // namespace

void transposeLoadedOperands(Operation* func) {
  std::vector<Operation*> transposes;
  func->walk([&](Operation* op) {
    if (isTranspose2D(op)) transposes.push_back(op);
  });
  for (Operation* trans : transposes) {
    Operation* load = trans->operand(0).definingOp();
    // A load read only through the transpose is left to the passes that
    // copy it transposed (pointer-tiles-to-tma's K^T).
    if (!load || !load->is(OpCode::Load) || load->result().hasOneUse() || !onlyDotOperand(trans->result()))
      continue;
    LoadOp view(load);
    const std::vector<int64_t>& shape = load->result().type().shape();
    if (view.isVolatile() || !view.ptr().type().isTensor() || view.ptr().type().shape() != shape ||
        !view.boundaryCheck().empty() || !view.padding().empty())
      continue;
    OpBuilder b;
    b.setInsertionPointAfter(load);
    b.setLoc(load->loc());
    Transposer transposed(b);
    std::vector<Value> operands;
    for (Value v : load->operands()) operands.push_back(v.type().shape() == shape ? transposed(v) : v);
    Operation* copy = b.create(OpCode::Load, {trans->result().type()}, operands, load->attrs());
    trans->result().replaceAllUsesWith(copy->result());
    trans->erase();
    if (!load->result().hasUses()) load->erase();
  }
}

}  // namespace tessera::gpu
