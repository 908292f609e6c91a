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
// A chain that reaches an expensive value (a load, a reduction) fails,
// unless broadcasts on the way made that value at least 4x smaller than the
// converted one and the convert moves data (its layouts are not one linear
// layout): then it is that value that gets converted, and the
// broadcast is rebuilt in the target layout (`lse[None, :]` broadcast over a
// dot's tile converts 32 values, not 128 x 32).
//
// foldConversions then removes converts that are no-ops: same encoding, or
// different encodings that denote the same linear layout for the shape, and
// collapses chains convert(convert(x)).
//
//===----------------------------------------------------------------------===//

#include <map>
#include <set>

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
  /// `convertLeaves`: a chain may end in a convert of a value much smaller
  /// than the converted one (see below).
  explicit Rematerializer(bool convertLeaves = false) : convertLeaves_(convertLeaves) {}

  Value rebuild(Value v, Encoding target, Operation* before, int depth = 0, int64_t rootElements = 0) {
    if (!v.type().isTensor()) return v;
    if (v.type().encoding() == target) return v;
    int64_t elements = v.type().numElements();
    if (depth == 0) rootElements = elements;
    Operation* def = v.definingOp();
    if (!def || depth > 16 || !isRematerializable(def)) {
      // Through a broadcast the chain reached a value at least 4x smaller
      // than the converted one (a row vector of statistics broadcast over
      // a tile): converting it instead of the tile moves that much less
      // through shared memory.
      if (!convertLeaves_ || depth == 0 || elements * 4 > rootElements) return {};
      auto key = std::make_pair(v.impl(), target.impl());
      if (auto it = memo_.find(key); it != memo_.end()) return it->second;
      OpBuilder b;
      b.setInsertionPoint(before);
      b.setLoc(def ? def->loc() : before->loc());
      Value converted = b.create(OpCode::ConvertLayout, {v.type().withEncoding(target)}, {v}, {})->result();
      memo_[key] = converted;
      return converted;
    }
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
      Value r = o.type().isTensor() ? rebuild(o, want, before, depth + 1, rootElements) : o;
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
  bool convertLeaves_;
};

void collectConverts(Operation* func, std::vector<Operation*>& out) {
  func->walk([&](Operation* op) {
    if (op->is(OpCode::ConvertLayout)) out.push_back(op);
  });
}

/// Erases `op` if nothing uses it, then its producers that become unused,
/// and so on. A worklist with a set of what was erased: a chain may reach
/// one producer twice (x * x, or a diamond such as where(offs < n, offs, 0)).
void eraseDeadChain(Operation* root) {
  std::vector<Operation*> work{root};
  std::set<Operation*> erased;
  while (!work.empty()) {
    Operation* op = work.back();
    work.pop_back();
    if (!op || erased.count(op) || (!isRematerializable(op) && !op->is(OpCode::ConvertLayout))) continue;
    bool used = false;
    for (Value r : op->results()) used = used || r.hasUses();
    if (used) continue;
    std::vector<Operation*> producers;
    for (Value o : op->operands())
      if (Operation* d = o.definingOp()) producers.push_back(d);
    erased.insert(op);
    op->erase();
    for (Operation* p : producers)
      if (!erased.count(p)) work.push_back(p);
  }
}

}  // namespace

void rematerializeConversions(Operation* func) {
  std::vector<Operation*> converts;
  collectConverts(func, converts);
  for (Operation* cvt : converts) {
    Value src = cvt->operand(0);
    // Converts whose layouts are the same linear layout move no data (the
    // emitter renames registers): rebuilding their chain to shrink them
    // would only add work.
    Type from = src.type(), to = cvt->result().type();
    bool moves = from.encoding() && to.encoding() && !from.encoding().isShared() && !to.encoding().isShared() &&
                 toLinearLayout(from.shape(), from.encoding()) != toLinearLayout(to.shape(), to.encoding());
    Rematerializer remat(moves);  // per convert: a clone made for one convert may not dominate another
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
