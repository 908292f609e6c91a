//===- Inliner.cpp - Inline tt.call ("inline") ---------------------------===//
//
// Rewrites: every `tt.call @f(args)` whose callee is a function of the same
// module without `noinline = true` is replaced by a copy of f's body, with
// f's parameters mapped to the call's operands and the call's results
// replaced by the operands of f's final `tt.return`. Functions that had call
// sites before the pass and have none afterwards are erased, except kernels
// (`kernel = true`) and `noinline` functions.
//
// Expects: callee bodies are one block whose only `tt.return` is its last op
// (the code generator emits structured returns). A callee that breaks this is
// left as a call rather than inlined wrongly.
//
// Guarantees: no call to an inlinable function remains, except calls inside a
// recursive cycle (those stay calls; Triton rejects recursion earlier).
// Callees are processed before callers (post-order over the call graph), so
// each callee is copied already flattened and every call site costs one copy.
//
// Why: Triton inlines every non-noinline function; the later passes (folding,
// CSE, LICM) and the GPU layout passes all work within one function.
//
//===----------------------------------------------------------------------===//

#include <unordered_map>
#include <unordered_set>

#include "tessera/ir/Builder.h"
#include "transforms/PassDetail.h"

namespace tessera::transforms {
namespace {

using namespace ir;

/// True if the body's only tt.return is its last op.
bool hasStructuredReturn(Operation* func) {
  Block& body = funcBody(func);
  if (body.empty() || !body.back()->is(OpCode::Return)) return false;
  bool ok = true;
  for (Operation* op = body.front(); op && ok; op = op->nextOp()) {
    if (op == body.back()) break;
    op->walk([&](Operation* nested) {
      if (nested->is(OpCode::Return)) ok = false;
    });
  }
  return ok;
}

class Inliner {
 public:
  explicit Inliner(Module& module) : module_(module) {
    for (Operation* f : module.functions()) byName_.emplace(funcName(f), f);
  }

  /// GPU code generation inlines everything, noinline functions included.
  void setInlineNoinline(bool value) { inlineNoinline_ = value; }

  void run(bool removeDead) {
    std::unordered_set<std::string> calledBefore = calledFunctions();
    for (Operation* func : module_.functions()) visit(func);
    if (removeDead) eraseDeadFunctions(calledBefore);
  }

 private:
  enum class State { Unvisited, OnStack, Done };

  /// Post-order DFS over the call graph: inlines into `func` after all of
  /// its callees are done.
  void visit(Operation* func) {
    State& state = state_[func];
    if (state != State::Unvisited) return;
    state = State::OnStack;
    std::vector<Operation*> calls;
    func->walk([&](Operation* op) {
      if (op->is(OpCode::Call)) calls.push_back(op);
    });
    for (Operation* call : calls) {
      Operation* callee = lookup(call->strAttr("callee"));
      if (!callee || callee == func) continue;
      visit(callee);
    }
    for (Operation* call : calls) {
      Operation* callee = lookup(call->strAttr("callee"));
      if (callee && canInline(callee)) inlineCall(call, callee);
    }
    state_[func] = State::Done;
  }

  bool canInline(Operation* callee) {
    if (callee->boolAttr("noinline") && !inlineNoinline_) return false;
    if (callee->numRegions() != 1 || callee->region(0).empty()) return false;  // a declaration
    if (state_[callee] != State::Done) return false;  // recursive cycle
    return hasStructuredReturn(callee);
  }

  void inlineCall(Operation* call, Operation* callee) {
    Block& body = funcBody(callee);
    if (body.numArguments() != call->numOperands()) return;  // the verifier reports it
    IRMapping mapping;
    for (unsigned i = 0; i < body.numArguments(); ++i) mapping.map(body.argument(i), call->operand(i));
    Block* target = call->block();
    for (Operation* op = body.front(); op != body.back(); op = op->nextOp())
      target->insert(call, op->clone(mapping));
    Operation* ret = body.back();
    unsigned n = std::min(ret->numOperands(), call->numResults());
    for (unsigned i = 0; i < n; ++i) call->result(i).replaceAllUsesWith(mapping.lookupOrDefault(ret->operand(i)));
    call->erase();
  }

  std::unordered_set<std::string> calledFunctions() const {
    std::unordered_set<std::string> names;
    module_.walk([&](Operation* op) {
      if (op->is(OpCode::Call)) names.insert(op->strAttr("callee"));
    });
    return names;
  }

  /// Keeps every function reachable through calls from a root (a kernel, a
  /// noinline function, or one nobody called before the pass).
  void eraseDeadFunctions(const std::unordered_set<std::string>& calledBefore) {
    std::unordered_set<Operation*> live;
    std::vector<Operation*> stack;
    for (Operation* f : module_.functions()) {
      bool root = f->boolAttr("kernel") || (f->boolAttr("noinline") && !inlineNoinline_) ||
                  !calledBefore.count(funcName(f));
      if (root && live.insert(f).second) stack.push_back(f);
    }
    while (!stack.empty()) {
      Operation* f = stack.back();
      stack.pop_back();
      f->walk([&](Operation* op) {
        if (!op->is(OpCode::Call)) return;
        Operation* callee = lookup(op->strAttr("callee"));
        if (callee && live.insert(callee).second) stack.push_back(callee);
      });
    }
    std::vector<Operation*> dead;
    for (Operation* f : module_.functions())
      if (!live.count(f)) dead.push_back(f);
    for (Operation* f : dead) module_.eraseFunction(f);
  }

  Operation* lookup(const std::string& name) const {
    auto it = byName_.find(name);
    return it == byName_.end() ? nullptr : it->second;
  }

  Module& module_;
  bool inlineNoinline_ = false;
  std::unordered_map<std::string, Operation*> byName_;
  std::unordered_map<Operation*, State> state_;
};

class InlinerPass : public Pass {
 public:
  InlinerPass(bool removeDead, bool inlineNoinline) : removeDead_(removeDead), inlineNoinline_(inlineNoinline) {}
  void run(Module& module) override {
    Inliner inliner(module);
    inliner.setInlineNoinline(inlineNoinline_);
    inliner.run(removeDead_);
  }

 private:
  bool removeDead_;
  bool inlineNoinline_;
};

}  // namespace

std::unique_ptr<Pass> createInlinerPass(const PassOptions& options) {
  return std::make_unique<InlinerPass>(boolOption(options, "inline", "remove-dead-functions", true),
                                       boolOption(options, "inline", "noinline-too", false));
}

}  // namespace tessera::transforms
