//===- LICM.cpp - Loop-invariant code motion ("licm") --------------------===//
//
// Rewrites: moves an op from the body of an scf.for (or either region of an
// scf.while) to just before the loop when
//   - it has no side effects and no regions (loads, stores, atomics, calls and
//     prints never move), and
//   - every operand is defined outside the loop, and
//   - executing it when the loop would have run zero times is harmless:
//     integer division and remainder move only with a constant divisor that
//     is neither 0 nor -1 (the interpreter reports division by zero).
// Hoisted ops make their users invariant in turn (one forward sweep per
// body). Loops are visited innermost first, so an op can climb out of a whole
// nest. Loops with `disable_licm = true` are left alone (ops inside their
// nested loops still move, but not out of the marked loop).
//
// Expects: verified IR. Only ops directly in the loop's blocks move; ops
// inside an scf.if in the body stay under their condition.
//
// Guarantees: semantics unchanged; the number of ops is unchanged.
//
// Why: index and pointer arithmetic that does not depend on the induction
// variable is computed once instead of once per iteration.
//
//===----------------------------------------------------------------------===//

#include "transforms/PassDetail.h"

namespace tessera::transforms {
namespace {

using namespace ir;

/// True if `v` is defined outside `loop` (not in any block nested in it).
bool isDefinedOutside(Value v, const Operation* loop) {
  Operation* def = v.definingOp();
  if (def) return !loop->isAncestorOf(def);
  Operation* owner = v.ownerBlock()->parentOp();
  return !owner || !loop->isAncestorOf(owner);
}

bool isSpeculatable(Operation* op) {
  switch (op->code()) {
    case OpCode::DivSI:
    case OpCode::RemSI:
    case OpCode::DivUI:
    case OpCode::RemUI: {
      std::optional<int64_t> d = intConstantOf(op->operand(1));
      if (!d || *d == 0) return false;
      bool isSigned = op->is(OpCode::DivSI) || op->is(OpCode::RemSI);
      return !(isSigned && *d == -1);
    }
    default:
      return true;
  }
}

bool canHoist(Operation* op, const Operation* loop) {
  if (op->numRegions() > 0 || !isSideEffectFree(op) || !isSpeculatable(op)) return false;
  for (unsigned i = 0; i < op->numOperands(); ++i)
    if (!isDefinedOutside(op->operand(i), loop)) return false;
  return true;
}

size_t hoistFrom(Operation* loop) {
  size_t moved = 0;
  for (unsigned r = 0; r < loop->numRegions(); ++r) {
    for (unsigned b = 0; b < loop->region(r).numBlocks(); ++b) {
      Block* block = loop->region(r).block(b);
      Operation* next = nullptr;
      for (Operation* op = block->front(); op; op = next) {
        next = op->nextOp();
        if (!canHoist(op, loop)) continue;
        op->moveBefore(loop);
        ++moved;
      }
    }
  }
  return moved;
}

class LICMPass : public Pass {
 public:
  void run(Module& module) override {
    for (Operation* func : module.functions()) {
      // Post-order: inner loops first, so what leaves an inner loop can
      // leave the outer one when the outer loop is visited.
      std::vector<Operation*> loops;
      func->walkPostOrder([&](Operation* op) {
        if ((op->is(OpCode::For) || op->is(OpCode::While)) && !op->boolAttr("disable_licm"))
          loops.push_back(op);
      });
      for (Operation* loop : loops) hoistFrom(loop);
    }
  }
};

}  // namespace

std::unique_ptr<Pass> createLICMPass(const PassOptions&) { return std::make_unique<LICMPass>(); }

}  // namespace tessera::transforms
