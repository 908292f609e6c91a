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
// No function grows past `max-ops` operations (nested ops included; 0, the
// default: TESSERA_INLINE_BUDGET or 250000): a call
// graph whose flattened size would (helpers that call helpers twice double
// it per level) is a located error naming the heaviest call chain, raised
// before anything is copied.
//
// Why: Triton inlines every non-noinline function; the later passes (folding,
// CSE, LICM) and the GPU layout passes all work within one function.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "tessera/Error.h"
#include "tessera/ir/Builder.h"
#include "tessera/support/Env.h"
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
  Inliner(Module& module, int64_t maxOps) : module_(module), maxOps_(maxOps) {
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
    stack_.push_back(func);
    std::vector<Operation*> calls;
    func->walk([&](Operation* op) {
      if (op->is(OpCode::Call)) calls.push_back(op);
    });
    for (Operation* call : calls) {
      Operation* callee = lookup(call->strAttr("callee"));
      if (!callee || callee == func) continue;
      visit(callee);
    }
    checkBudget(func, calls);
    for (Operation* call : calls) {
      Operation* callee = lookup(call->strAttr("callee"));
      if (callee && canInline(callee)) inlineCall(call, callee);
    }
    state_[func] = State::Done;
    stack_.pop_back();
  }

  static int64_t countOps(Operation* func) {
    int64_t n = 0;
    func->walk([&](Operation*) { ++n; });
    return n;
  }

  /// Records func's size once its callees are inlined, or throws when that
  /// size would exceed the budget. Each callee is already flattened, so the
  /// size is exact: func's own ops, plus each inlinable call's callee body
  /// (less its return and the call itself).
  void checkBudget(Operation* func, const std::vector<Operation*>& calls) {
    int64_t own = countOps(func);
    int64_t total = own;
    Operation* heaviestCall = nullptr;
    int64_t heaviestSize = -1;
    for (Operation* call : calls) {
      Operation* callee = lookup(call->strAttr("callee"));
      if (!callee || !canInline(callee)) continue;
      int64_t size = size_[callee];
      total += size - 3;  // the callee's body less its return, less the call
      if (size > heaviestSize) heaviestSize = size, heaviestCall = call;
      if (total > maxOps_) break;
    }
    // Callees, not calls: the calls are gone once inlined.
    heaviest_[func] = heaviestCall ? lookup(heaviestCall->strAttr("callee")) : nullptr;
    // A function over the budget by its own ops (static_range unrolling has
    // its own limit) is not the inliner's to refuse: only growth is.
    if (total <= std::max(maxOps_, own) || !heaviestCall) {
      size_[func] = total;
      return;
    }
    // The path from the root the DFS came from, then the heaviest callees.
    std::string chain;
    for (size_t i = 0; i + 1 < stack_.size(); ++i) {
      if (stack_.size() > 8 && i == 2) {
        chain += "... (" + std::to_string(stack_.size() - 6) + " more) -> ";
        i = stack_.size() - 4;
      }
      chain += displayName(stack_[i]) + " -> ";
    }
    chain += displayName(func);
    for (Operation* callee = heaviest_[func]; callee; callee = heaviest_[callee])
      chain += " -> " + displayName(callee) + " (" + std::to_string(size_[callee]) + " ops)";
    Location l = heaviestCall->loc();
    std::string where = l.known() ? *l.file + ":" + std::to_string(l.line) + ":" + std::to_string(l.col) + ": " : "";
    throw Error(where + "error: inlining the calls in '" + displayName(func) + "' would make it more than " +
                std::to_string(maxOps_) + " operations (the inline budget): call chain " + chain +
                ". Each call is a copy of its callee: call fewer helpers per level or loop instead of repeating "
                "calls (TESSERA_INLINE_BUDGET raises the budget)");
  }

  /// A function's name as the user wrote it: the code generator's symbol
  /// is "name__<specialization key>".
  static std::string displayName(Operation* func) {
    std::string name = funcName(func);
    size_t cut = name.find("__");
    return cut == std::string::npos || cut == 0 ? name : name.substr(0, cut);
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
  int64_t maxOps_;
  bool inlineNoinline_ = false;
  std::unordered_map<Operation*, int64_t> size_;            ///< flattened size of a visited function
  std::unordered_map<Operation*, Operation*> heaviest_;     ///< its largest inlined callee
  std::vector<Operation*> stack_;                           ///< the DFS path, root first
  std::unordered_map<std::string, Operation*> byName_;
  std::unordered_map<Operation*, State> state_;
};

class InlinerPass : public Pass {
 public:
  InlinerPass(bool removeDead, bool inlineNoinline, int64_t maxOps)
      : removeDead_(removeDead), inlineNoinline_(inlineNoinline), maxOps_(maxOps) {}
  void run(Module& module) override {
    Inliner inliner(module, maxOps_);
    inliner.setInlineNoinline(inlineNoinline_);
    inliner.run(removeDead_);
  }

 private:
  bool removeDead_;
  bool inlineNoinline_;
  int64_t maxOps_;
};

}  // namespace

std::unique_ptr<Pass> createInlinerPass(const PassOptions& options) {
  // 0: the default budget, which TESSERA_INLINE_BUDGET may raise.
  int64_t maxOps = intOption(options, "inline", "max-ops", 0);
  if (maxOps < 0) throw Error("pass 'inline': option 'max-ops' must be positive (0: the default budget)");
  if (maxOps == 0) maxOps = env::integer("TESSERA_INLINE_BUDGET").value_or(kDefaultInlineBudget);
  return std::make_unique<InlinerPass>(boolOption(options, "inline", "remove-dead-functions", true),
                                       boolOption(options, "inline", "noinline-too", false), maxOps);
}

}  // namespace tessera::transforms
