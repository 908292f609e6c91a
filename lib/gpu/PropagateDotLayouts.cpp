//===- PropagateDotLayouts.cpp - Keep tensor-core results in their layout --===//
//
// Tile GPU IR (after AssignLayouts). AssignLayouts gives a dot's result the
// mma layout the tensor cores write, but everything computed from it
// afterwards the rank's blocked layout: in an attention loop the scores go
// mma -> blocked for the softmax, the probabilities back through shared
// memory for the second dot, and the accumulator mma -> blocked to be
// carried, three full-tile conversions per iteration. This pass is the
// forward half of Triton's RemoveLayoutConversions, for mma layouts only:
//
//   1. Seeds: the results of tt.dot in an nvidia_mma encoding.
//   2. Forward propagation through users that can compute in any layout:
//      elementwise ops (all results; libdevice calls and inline asm
//      too), ttg.convert_layout (the convert becomes a no-op), tt.reduce
//      (slice(E, axis)), tt.expand_dims of slice(P, axis) (P),
//      tt.broadcast, tt.trans (the transposed layout, a linear one: the
//      data stays in its registers; it goes on only into converts, so a
//      transposed dot operand, dS^T in attention's backward, is one
//      conversion, not mma -> blocked -> transposed -> dot operand), and
//      control flow: a value yielded by or passed into an scf.for gives
//      its layout to the iteration argument and the loop result (and on to
//      their users); one yielded by an scf.if to the if's result. A value
//      reached twice with different layouts keeps the first.
//   3. Rewrite: every reached value takes its new layout; each operand of
//      an op gets a convert where its layout differs from what the op now
//      needs (an op that was reached: its result's layout, or its slice or
//      parent; anything else: the layout the operand had before), and
//      iteration arguments / yields / inits stay consistent. ttg.local_alloc
//      takes any register layout (it stores by coordinates).
//
// rematerializeConversions and foldConversions then rebuild the cheap
// operands (masks, constants, index ranges) in the mma layout and drop the
// converts that became no-ops, so what is left are converts at the real
// boundaries: a store of the result, or a dot operand.
//
// Blocked layouts are not propagated: kernels without tensor-core dots keep
// AssignLayouts' layouts unchanged.
//
//===----------------------------------------------------------------------===//

#include <deque>
#include <map>

#include "gpu/GpuPasses.h"
#include "tessera/gpu/LinearLayout.h"
#include "tessera/ir/Builder.h"

namespace tessera::gpu {

using namespace ir;

namespace {

class DotLayoutPropagation {
 public:
  explicit DotLayoutPropagation(Operation* func) : func_(func) {}

  void run() {
    func_->walk([&](Operation* op) {
      if (op->is(OpCode::Dot) && op->result().type().encoding().isNvidiaMma())
        reach(op->result(), op->result().type().encoding());
    });
    while (!worklist_.empty()) {
      Value v = worklist_.front();
      worklist_.pop_front();
      for (OpOperand* use : v.uses()) propagateTo(use->owner, use->index, chosen_.at(v.impl()));
    }
    if (chosen_.empty()) return;
    rewrite();
  }

 private:
  void reach(Value v, Encoding e) {
    if (!v.type().isTensor() || !e) return;
    if (!chosen_.emplace(v.impl(), e).second) return;  // first layout wins
    worklist_.push_back(v);
  }

  /// Elementwise ops compute in any layout; that includes libdevice calls
  /// and pure inline asm, whose `pack` groups a thread's consecutive
  /// elements whatever the layout (the emitter pads a thread's last group),
  /// as in Triton. Not asm with side effects: an mma layout may hold an
  /// element in two threads (a tile smaller than the warps' span), and the
  /// asm would then run twice for it.
  static bool flexible(const Operation* op) {
    if (op->is(OpCode::InlineAsm) && !op->boolAttr("pure")) return false;
    return op->numRegions() == 0 && hasTrait(op->code(), Elementwise) && op->numResults() > 0;
  }

  /// `op` uses a value of layout `e` as operand `index`.
  void propagateTo(Operation* op, unsigned index, Encoding e) {
    // A transposed layout only reaches converts (the dot operand's).
    if (e.isLinear() && !op->is(OpCode::ConvertLayout)) return;
    switch (op->code()) {
      case OpCode::Trans: {
        LinearLayout ll = toLinearLayout(op->operand(0).type().shape(), e);
        return reach(op->result(), ll.transposedOuts(op->intArrayAttr("order")).toEncoding());
      }
      case OpCode::ConvertLayout: case OpCode::Broadcast:
        return reach(op->result(), e);
      case OpCode::Reduce:
        for (Value r : op->results()) reach(r, Encoding::slice(op->intAttr("axis"), e));
        return;
      case OpCode::ExpandDims:
        if (e.isSlice() && e.sliceDim() == op->intAttr("axis")) reach(op->result(), e.parent());
        return;
      case OpCode::For:
        if (index >= 3) {
          reach(op->region(0).front().argument(index - 2), e);
          reach(op->result(index - 3), e);
        }
        return;
      case OpCode::Yield: {
        Operation* parent = op->parentOp();
        if (parent && parent->is(OpCode::For)) {
          reach(parent->region(0).front().argument(index + 1), e);
          reach(parent->result(index), e);
        } else if (parent && parent->is(OpCode::If)) {
          reach(parent->result(index), e);
        }
        return;
      }
      default:
        if (flexible(op))
          for (Value r : op->results()) reach(r, e);
        return;
    }
  }

  Encoding chosen(Value v) const {
    auto it = chosen_.find(v.impl());
    return it == chosen_.end() ? Encoding() : it->second;
  }

  bool reached(const Operation* op) const {
    for (Value r : op->results())
      if (chosen(r)) return true;
    return false;
  }

  /// The layout operand `i` of `op` must have after the rewrite; null when
  /// any will do.
  Encoding required(Operation* op, unsigned i, const std::map<OpOperand*, Encoding>& before) {
    Value v = op->operand(i);
    switch (op->code()) {
      case OpCode::For:
        return i >= 3 ? op->region(0).front().argument(i - 2).type().encoding() : Encoding();
      case OpCode::Yield: {
        Operation* parent = op->parentOp();
        if (parent && parent->is(OpCode::For)) return parent->region(0).front().argument(i + 1).type().encoding();
        if (parent && parent->is(OpCode::If)) return parent->result(i).type().encoding();
        break;
      }
      case OpCode::ConvertLayout: case OpCode::LocalAlloc:  // any register layout
        return Encoding();
      case OpCode::Reduce:
        if (reached(op)) return op->result().type().encoding().parent();
        break;
      case OpCode::ExpandDims:
        if (reached(op)) return Encoding::slice(op->intAttr("axis"), op->result().type().encoding());
        break;
      case OpCode::Broadcast:
        if (reached(op)) return op->result().type().encoding();
        break;
      case OpCode::Trans:
        if (reached(op)) return chosen(v);
        break;
      default:
        if (flexible(op) && reached(op)) return op->result().type().encoding();
        break;
    }
    auto it = before.find(&op->operandSlot(i));
    return it == before.end() || !v.type().isTensor() ? Encoding() : it->second;
  }

  void rewrite() {
    // What each operand needs today, before any value changes layout.
    std::map<OpOperand*, Encoding> before;
    std::vector<Operation*> ops;
    func_->walk([&](Operation* op) {
      ops.push_back(op);
      for (unsigned i = 0; i < op->numOperands(); ++i)
        if (op->operand(i).type().isTensor()) before[&op->operandSlot(i)] = op->operand(i).type().encoding();
    });
    for (const auto& [impl, e] : chosen_) {
      Value v(impl);
      v.setType(v.type().withEncoding(e));
    }
    for (Operation* op : ops) {
      for (unsigned i = 0; i < op->numOperands(); ++i) {
        Value v = op->operand(i);
        if (!v.type().isTensor()) continue;
        Encoding want = required(op, i, before);
        if (!want || v.type().encoding() == want) continue;
        OpBuilder b;
        b.setInsertionPoint(op);
        b.setLoc(op->loc());
        op->setOperand(i, b.create(OpCode::ConvertLayout, {v.type().withEncoding(want)}, {v})->result());
      }
    }
  }

  Operation* func_;
  std::map<ValueImpl*, Encoding> chosen_;
  std::deque<Value> worklist_;
};

}  // namespace

void propagateDotLayouts(Operation* func) { DotLayoutPropagation(func).run(); }

}  // namespace tessera::gpu
