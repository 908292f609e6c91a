//===- DCE.cpp - Dead code elimination ("dce") ---------------------------===//
//
// Rewrites: removes side-effect-free ops whose results nobody needs, however
// long the chain; removes unused results of scf.if and unused
// loop-carried values of scf.for (result, init, iteration argument and yield
// operand together), also when the iteration argument only feeds its own
// update (`%acc = %acc + 1` whose result is never read); removes whole
// scf.for / scf.if ops that compute nothing needed and contain no side
// effects; removes scf.while slots nobody reads (a forwarded value whose
// result and after-region argument are unused; a carried value whose
// before-region argument is unused). Functions are never removed (that is
// the inliner's job).
//
// Expects: verified IR.
//
// How: mark and sweep per function (linear). Roots are the ops with side
// effects (stores, atomics, loads, calls, prints, asserts, tt.return) and
// every scf.while (which may not terminate, so it is kept whole with all the
// values its terminators pass on). Liveness flows from a live op to the
// definitions of its operands; for scf.for/scf.if it flows per slot: slot i is
// live when result i or iteration argument i is used by a live op, and then
// init i and yield operand i are live. An op nested in a region keeps its
// enclosing scf ops alive, and with them their bounds / condition. Sweeping
// walks blocks bottom-up, so users are gone before their definitions.
//
// Guarantees: ops with side effects and everything they depend on survive;
// semantics unchanged.
//
// Why: folding, CSE and inlining leave dead values behind; dead loop-carried
// values cost registers on the GPU.
//
//===----------------------------------------------------------------------===//

#include <unordered_map>
#include <unordered_set>

#include "transforms/PassDetail.h"

namespace tessera::transforms {
namespace {

using namespace ir;

bool isStructured(const Operation* op) {
  return op->is(OpCode::For) || op->is(OpCode::If) || op->is(OpCode::While);
}

class DeadCodeElimination {
 public:
  void run(Operation* func) {
    // Phase 1 of 2: mark.
    func->walk([&](Operation* op) {
      if (op == func || isStructured(op) || op->is(OpCode::Yield) || op->is(OpCode::Condition)) {
        if (op->is(OpCode::While)) markOp(op);
        return;
      }
      if (!isSideEffectFree(op) && !isInsidePureRegionOp(op)) markOp(op);
    });
    drain();
    // Phase 2 of 2: sweep.
    for (unsigned b = 0; b < func->region(0).numBlocks(); ++b) sweepBlock(*func->region(0).block(b));
  }

 private:
  /// Ops nested in a pure op with regions (tt.reduce combine bodies) live
  /// and die with that op.
  bool isInsidePureRegionOp(Operation* op) {
    for (Operation* p = op->parentOp(); p; p = p->parentOp())
      if (!isStructured(p) && !p->is(OpCode::Func)) return true;
    return false;
  }

  void markOp(Operation* op) {
    if (!liveOps_.insert(op).second) return;
    worklist_.push_back(op);
  }

  /// Makes the enclosing structured ops of `op` live (kept), with their
  /// control operands.
  void keepParents(Operation* op) {
    for (Operation* p = op->parentOp(); p && isStructured(p); p = p->parentOp()) {
      if (kept_.count(p)) return;  // its parents are kept already
      kept_.insert(p);
      if (p->is(OpCode::For)) {
        for (unsigned i = 0; i < 3; ++i) markValue(p->operand(i));
      } else if (p->is(OpCode::If)) {
        markValue(p->operand(0));
      } else {
        markOp(p);
      }
    }
  }

  void markSlot(Operation* op, unsigned slot) {
    if (!liveSlots_[op].insert(slot).second) return;
    if (!kept_.count(op)) {
      kept_.insert(op);
      if (op->is(OpCode::For))
        for (unsigned i = 0; i < 3; ++i) markValue(op->operand(i));
      else
        markValue(op->operand(0));
      keepParents(op);
    }
    if (op->is(OpCode::For)) {
      markValue(op->operand(3 + slot));
      Operation* yield = op->region(0).front().terminator();
      if (yield && slot < yield->numOperands()) markValue(yield->operand(slot));
      return;
    }
    for (unsigned r = 0; r < op->numRegions(); ++r) {
      if (op->region(r).empty()) continue;
      Operation* yield = op->region(r).front().terminator();
      if (yield && slot < yield->numOperands()) markValue(yield->operand(slot));
    }
  }

  void markValue(Value v) {
    if (Operation* def = v.definingOp()) {
      if (def->is(OpCode::For) || def->is(OpCode::If)) markSlot(def, v.index());
      else markOp(def);
      return;
    }
    Block* block = v.ownerBlock();
    Operation* owner = block ? block->parentOp() : nullptr;
    if (owner && owner->is(OpCode::For) && v.index() >= 1) markSlot(owner, v.index() - 1);
    // Other block arguments (function parameters, while and reduce region
    // arguments) are kept with their owner.
  }

  void drain() {
    while (!worklist_.empty()) {
      Operation* op = worklist_.back();
      worklist_.pop_back();
      keepParents(op);
      for (unsigned i = 0; i < op->numOperands(); ++i) markValue(op->operand(i));
      if (op->is(OpCode::While)) {
        kept_.insert(op);
        for (unsigned r = 0; r < op->numRegions(); ++r)
          if (!op->region(r).empty())
            if (Operation* term = op->region(r).front().terminator()) markOp(term);
        continue;
      }
      // A live pure op with regions (tt.reduce, tt.scan) keeps its whole body.
      if (op->numRegions() > 0 && !isStructured(op))
        for (unsigned r = 0; r < op->numRegions(); ++r)
          for (unsigned b = 0; b < op->region(r).numBlocks(); ++b)
            for (Operation* n = op->region(r).block(b)->front(); n; n = n->nextOp()) markOp(n);
    }
  }

  bool isLive(Operation* op) {
    if (isStructured(op)) return kept_.count(op) != 0;
    if (op->is(OpCode::Yield) || op->is(OpCode::Condition)) return true;
    return liveOps_.count(op) != 0;
  }

  void sweepBlock(Block& block) {
    Operation* prev = nullptr;
    for (Operation* op = block.back(); op; op = prev) {
      prev = op->prevOp();
      if (!isLive(op)) {
        op->dropAllReferences();
        for (Value r : op->results()) assert(!r.hasUses() && "dce: a dead op still has users");
        op->erase();
        ++erased_;
        continue;
      }
      if (op->is(OpCode::Yield)) {
        trimYield(op);
        continue;
      }
      if (!isStructured(op)) continue;
      for (unsigned r = 0; r < op->numRegions(); ++r)
        for (unsigned b = 0; b < op->region(r).numBlocks(); ++b) sweepBlock(*op->region(r).block(b));
      if (op->is(OpCode::For)) trimFor(op);
      if (op->is(OpCode::If)) trimIf(op);
    }
  }

  bool slotLive(Operation* op, unsigned slot) {
    auto it = liveSlots_.find(op);
    return it != liveSlots_.end() && it->second.count(slot);
  }

  void trimYield(Operation* yield) {
    Operation* parent = yield->parentOp();
    if (!parent || !(parent->is(OpCode::For) || parent->is(OpCode::If))) return;
    for (unsigned i = yield->numOperands(); i-- > 0;)
      if (!slotLive(parent, i)) yield->eraseOperand(i);
  }

  void trimFor(Operation* op) {
    Block& body = op->region(0).front();
    for (unsigned i = op->numResults(); i-- > 0;) {
      if (slotLive(op, i)) continue;
      body.eraseArgument(i + 1);
      op->eraseResult(i);
      op->eraseOperand(3 + i);
    }
  }

  void trimIf(Operation* op) {
    for (unsigned i = op->numResults(); i-- > 0;)
      if (!slotLive(op, i)) op->eraseResult(i);
  }

  std::unordered_set<Operation*> liveOps_;
  std::unordered_set<Operation*> kept_;  // structured ops that stay
  std::unordered_map<Operation*, std::unordered_set<unsigned>> liveSlots_;
  std::vector<Operation*> worklist_;
  size_t erased_ = 0;
};

/// Removes the slots of scf.while ops that nothing reads. A forwarded slot i
/// (condition operand 1+i, after-region argument i, result i) goes when the
/// result and the argument are unused; a carried slot j (init j,
/// before-region argument j, yield operand j) goes when the before-region
/// argument is unused. Returns true if anything changed.
bool trimWhileLoops(Operation* func) {
  std::vector<Operation*> loops;
  func->walkPostOrder([&](Operation* op) {
    if (op->is(OpCode::While)) loops.push_back(op);
  });
  bool changed = false;
  for (Operation* loop : loops) {
    if (loop->region(0).empty() || loop->region(1).empty()) continue;
    Block& before = loop->region(0).front();
    Block& after = loop->region(1).front();
    Operation* cond = before.terminator();
    Operation* yield = after.terminator();
    if (!cond || !cond->is(OpCode::Condition) || !yield || !yield->is(OpCode::Yield)) continue;
    for (unsigned i = loop->numResults(); i-- > 0;) {
      if (i >= after.numArguments() || 1 + i >= cond->numOperands()) continue;
      if (loop->result(i).hasUses() || after.argument(i).hasUses()) continue;
      loop->eraseResult(i);
      after.eraseArgument(i);
      cond->eraseOperand(1 + i);
      changed = true;
    }
    for (unsigned j = before.numArguments(); j-- > 0;) {
      if (before.argument(j).hasUses() || j >= yield->numOperands() || j >= loop->numOperands()) continue;
      yield->eraseOperand(j);
      before.eraseArgument(j);
      loop->eraseOperand(j);
      changed = true;
    }
  }
  return changed;
}

class DCEPass : public Pass {
 public:
  void run(Module& module) override {
    for (Operation* func : module.functions()) {
      // Trimming a while loop can make the code feeding its terminators dead;
      // each round is linear and rounds are bounded by the loop nesting.
      do {
        DeadCodeElimination().run(func);
      } while (trimWhileLoops(func));
    }
  }
};

}  // namespace

std::unique_ptr<Pass> createDCEPass(const PassOptions&) { return std::make_unique<DCEPass>(); }

}  // namespace tessera::transforms
