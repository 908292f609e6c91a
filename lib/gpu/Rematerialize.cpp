//===- Rematerialize.cpp - Rebuild cheap values in the layout a user wants ===//
//
// assignLayouts converts cheap operands (index ranges, splats, constants and
// arithmetic over them) to the layout of the op that uses them. Moving data
// between layouts costs shared memory and barriers, while recomputing an
// index expression costs a few integer ops per register; so a convert whose
// source chain is cheap is replaced by a clone of the chain built directly in
// the target layout (Triton's backward rematerialization). expand_dims asks
// its operand for slice(target, axis), so a 2-D index grid built as
// `offs_m[:, None] * s + offs_n[None, :]` ends with two ranges in the two
// slice layouts of the tile and no conversion at all.
//
// foldConversions then removes converts that are no-ops: same encoding, or
// different encodings that denote the same linear layout for the shape, and
// collapses chains convert(convert(x)).
//
//===----------------------------------------------------------------------===//

#include <map>

#include "gpu/GpuPasses.h"
#include "tessera/gpu/LinearLayout.h"
#include "tessera/ir/Builder.h"

namespace tessera::gpu {

using namespace ir;

namespace {

class Rematerializer {
 public:
  /// The value `v` rebuilt in `target` before `before`, or null if the chain
  /// is not cheap.
  Value rebuild(Value v, Encoding target, Operation* before, int depth = 0) {
    if (!v.type().isTensor()) return v;
    if (v.type().encoding() == target) return v;
    Operation* def = v.definingOp();
    if (!def || depth > 16 || !isRematerializable(def)) return {};
    auto key = std::make_pair(v.impl(), target.impl());
    auto it = memo_.find(key);
    if (it != memo_.end()) return it->second;
    std::vector<Value> operands;
    const std::vector<int64_t>& shape = v.type().shape();
    for (unsigned i = 0; i < def->numOperands(); ++i) {
      Value o = def->operand(i);
      Encoding want = target;
      if (def->is(OpCode::ExpandDims)) {
        int64_t axis = def->intAttr("axis");
        if (target.isLinear()) {
          // Linear encodings are shape-specific: take the layout's slice.
          std::vector<int64_t> one = shape;
          one[axis] = 1;
          want = toLinearLayout(shape, target).resizedTo(one).droppedOutDim(static_cast<int>(axis)).toEncoding();
        } else {
          want = Encoding::slice(axis, target);
        }
      } else if (def->is(OpCode::Broadcast) && target.isLinear() && o.type().shape() != shape) {
        want = toLinearLayout(shape, target).resizedTo(o.type().shape()).toEncoding();
      }
      Value r = o.type().isTensor() ? rebuild(o, want, before, depth + 1) : o;
      if (!r) return {};
      operands.push_back(r);
    }
    OpBuilder b;
    b.setInsertionPoint(before);
    b.setLoc(def->loc());
    std::vector<Type> types;
    for (Value r : def->results()) types.push_back(r.type().withEncoding(target));
    Operation* clone = b.create(def->code(), types, operands, def->attrs());
    Value result = clone->result(v.index());
    memo_[key] = result;
    return result;
  }

 private:
  std::map<std::pair<ValueImpl*, const EncodingStorage*>, Value> memo_;
};

void collectConverts(Operation* func, std::vector<Operation*>& out) {
  func->walk([&](Operation* op) {
    if (op->is(OpCode::ConvertLayout)) out.push_back(op);
  });
}

void eraseDeadChain(Operation* op) {
  if (!op || !isRematerializable(op) && !op->is(OpCode::ConvertLayout)) return;
  for (Value r : op->results())
    if (r.hasUses()) return;
  std::vector<Operation*> producers;
  for (Value o : op->operands())
    if (Operation* d = o.definingOp()) producers.push_back(d);
  op->erase();
  for (Operation* p : producers) eraseDeadChain(p);
}

}  // namespace

void rematerializeConversions(Operation* func) {
  std::vector<Operation*> converts;
  collectConverts(func, converts);
  for (Operation* cvt : converts) {
    Rematerializer remat;  // per convert: a clone made for one convert may not dominate another
    Value src = cvt->operand(0);
    // Build the clone where the convert is: every operand of the chain
    // dominates the convert, so the clone is valid there.
    Value rebuilt = remat.rebuild(src, cvt->result().type().encoding(), cvt);
    if (!rebuilt) continue;
    cvt->result().replaceAllUsesWith(rebuilt);
    Operation* def = src.definingOp();
    cvt->erase();
    eraseDeadChain(def);
  }
}

void foldConversions(Operation* func) {
  std::vector<Operation*> converts;
  collectConverts(func, converts);
  for (Operation* cvt : converts) {
    Value src = cvt->operand(0);
    // convert(convert(x)) -> convert(x)
    while (Operation* d = src.definingOp()) {
      if (!d->is(OpCode::ConvertLayout)) break;
      src = d->operand(0);
    }
    if (src != cvt->operand(0)) {
      Operation* old = cvt->operand(0).definingOp();
      cvt->setOperand(0, src);
      eraseDeadChain(old);
    }
    Type from = src.type(), to = cvt->result().type();
    bool same = from == to;
    if (!same && from.encoding() && to.encoding() && !from.encoding().isShared() && !to.encoding().isShared())
      same = toLinearLayout(from.shape(), from.encoding()) == toLinearLayout(to.shape(), to.encoding());
    if (from == to) {
      cvt->result().replaceAllUsesWith(src);
      cvt->erase();
    } else if (same) {
      // Same registers, other name: keep the convert (types must match) —
      // the emitter lowers it to register moves.
    }
  }
}

}  // namespace tessera::gpu
