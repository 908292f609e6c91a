//===- Canonicalize.cpp - Folding and local simplification ("canonicalize") ===//
//
// Rewrites, op by op until nothing changes (a worklist: an op is revisited
// only when one of its operands changed):
//   - constant folding: an arith/math op whose operands are all constants
//     becomes a constant, with the semantics of Ops.def (ConstantFold.cpp);
//     undefined cases such as division by zero stay;
//   - identities: x+0, x-0, x*1, x/1, x<<0, x|0, x^0, x&-1 -> x; x*0, x&0,
//     x-x, x^x, x%1 -> 0 (integers only: in floats x*0 is not 0 for NaN/inf,
//     and only x+(-0.0), x-(+0.0), x*1.0, x/1.0 are exact identities);
//     x&x, x|x, max/min(x,x) -> x; select(true,a,b) -> a; select(c,x,x) -> x;
//     cmpi p (x, x) -> true/false; trunc(ext(x)) -> x (or one cast);
//     ext(ext(x)) -> ext(x); addptr(p, 0) -> p;
//   - shapes: splat/broadcast/expand_dims/reshape/trans of a constant -> a
//     constant tensor; broadcast/expand_dims/reshape/trans of a splat -> one
//     splat; broadcast or reshape to the operand's own type -> the operand;
//   - uniform values: a pure elementwise op on splats only -> the scalar op
//     and one splat of its result;
//   - control flow: scf.if on a constant condition -> the taken region
//     inlined; scf.for with constant bounds and lb >= ub -> its inits; an
//     scf.for iteration argument yielded unchanged (itself or its init)
//     -> its init, in the body and for the loop's result;
//   - ops without side effects whose results became unused are erased.
// tt.hint is never folded away (its attributes are information). Dead
// loop-carried values are left to DCE.
//
// Expects: verified IR; constants are arith.constant (scalar or splat).
// Guarantees: semantics unchanged (the folder refuses undefined cases); new
// constants are created right before the op they replace, so they dominate
// its users; the pass is linear-ish (each op is revisited only when an operand
// changes; a rewrite budget bounds it).
//
// Why: specialization (constexprs, "== 1" and divisibility facts) leaves
// many constant expressions and trivial ops; folding them early makes every
// later pass and the GPU code smaller.
//
//===----------------------------------------------------------------------===//

#include <cmath>
#include <unordered_set>

#include "tessera/Error.h"
#include "tessera/ir/Builder.h"
#include "transforms/ConstantFold.h"

namespace tessera::transforms {
namespace {

using namespace ir;

struct CanonicalizeOptions {
  bool fold = true;
  bool regions = true;
  int64_t maxRewrites = 1000000;
};

bool isIntConst(Value v, int64_t payload) {
  std::optional<int64_t> c = intConstantOf(v);
  return c && *c == payload;
}

bool isAllOnes(Value v) {
  Type element = v.type().elementType();
  return element.isInteger() && isIntConst(v, normalizeInt(~uint64_t(0), element.bitWidth()));
}

/// Bitwise float check (distinguishes 0.0 from -0.0).
bool isFloatConst(Value v, double payload) {
  std::optional<double> c = floatConstantOf(v);
  return c && *c == payload && std::signbit(*c) == std::signbit(payload);
}

class Canonicalizer {
 public:
  Canonicalizer(Operation* func, const CanonicalizeOptions& options) : func_(func), options_(options) {}

  void run() {
    std::vector<Operation*> initial;
    func_->walk([&](Operation* op) {
      if (op != func_) initial.push_back(op);
    });
    for (auto it = initial.rbegin(); it != initial.rend(); ++it) push(*it);
    int64_t rewrites = 0;
    while (!worklist_.empty()) {
      Operation* op = worklist_.back();
      worklist_.pop_back();
      if (!pending_.erase(op)) continue;  // erased or already visited
      if (simplify(op) && ++rewrites >= options_.maxRewrites) break;
    }
  }

 private:
  //===--------------------------------------------------------------------===//
  // Worklist and rewriting primitives
  //===--------------------------------------------------------------------===//

  void push(Operation* op) {
    if (pending_.insert(op).second) worklist_.push_back(op);
  }

  void pushUsers(Value v) {
    for (OpOperand* use : v.uses()) push(use->owner);
  }

  /// Erases `op` (and what is nested in it); revisits operand definitions
  /// that may have become dead.
  void eraseOp(Operation* op) {
    std::vector<Operation*> defs;
    for (unsigned i = 0; i < op->numOperands(); ++i)
      if (Operation* def = op->operand(i).definingOp()) defs.push_back(def);
    op->walk([&](Operation* nested) { pending_.erase(nested); });
    op->erase();
    for (Operation* def : defs) push(def);
  }

  void replaceOp(Operation* op, const std::vector<Value>& values) {
    assert(values.size() == op->numResults());
    for (unsigned i = 0; i < values.size(); ++i) {
      assert(values[i].type() == op->result(i).type() && "canonicalize: replacement changes the type");
      pushUsers(op->result(i));
      op->result(i).replaceAllUsesWith(values[i]);
    }
    eraseOp(op);
  }

  bool replaceWith(Operation* op, Value v) {
    replaceOp(op, {v});
    return true;
  }

  /// Creates an arith.constant of `type` with `payload` before `op`.
  Value constantBefore(Operation* op, Type type, ConstantValue payload) {
    OpBuilder b;
    b.setInsertionPoint(op);
    b.setLoc(op->loc());
    Value c = std::holds_alternative<int64_t>(payload) ? b.constantInt(type, std::get<int64_t>(payload))
                                                       : b.constantFloat(type, std::get<double>(payload));
    return c;
  }

  bool replaceWithConstant(Operation* op, ConstantValue payload) {
    return replaceWith(op, constantBefore(op, op->result(0).type(), payload));
  }

  /// Replaces `op` with a new single-result op of `code` on `operands`.
  bool replaceWithNew(Operation* op, OpCode code, const std::vector<Value>& operands, AttrMap attrs = {}) {
    OpBuilder b;
    b.setInsertionPoint(op);
    b.setLoc(op->loc());
    Operation* created = b.create(code, {op->result(0).type()}, operands, std::move(attrs));
    push(created);
    return replaceWith(op, created->result());
  }

  //===--------------------------------------------------------------------===//
  // Patterns
  //===--------------------------------------------------------------------===//

  bool simplify(Operation* op) {
    if (isSideEffectFree(op) && op->numResults() > 0) {
      bool used = false;
      for (unsigned i = 0; i < op->numResults() && !used; ++i) used = op->result(i).hasUses();
      if (!used) {
        eraseOp(op);
        return true;
      }
    }
    if (op->is(OpCode::If)) return options_.regions && simplifyIf(op);
    if (op->is(OpCode::For)) return options_.regions && simplifyFor(op);
    // A changed yield may make an iteration argument invariant.
    if (op->is(OpCode::Yield) && op->parentOp() && op->parentOp()->is(OpCode::For)) push(op->parentOp());
    if (op->numResults() != 1 || op->is(OpCode::Constant) || op->is(OpCode::Hint)) return false;
    if (options_.fold && foldConstants(op)) return true;
    return simplifyIdentity(op) || simplifyShape(op) || scalarizeUniform(op);
  }

  /// A pure elementwise op whose tensor operands are all splats (of a scalar
  /// or a constant) computes one value for every element: compute it once as
  /// a scalar and splat the result. Triton's frontend keeps such values
  /// scalar from the start (the Philox key schedule of tl.rand is uniform in
  /// a program); here tensors built from scalars would otherwise cost one
  /// instruction per element on the GPU and one per lane in the interpreter.
  bool scalarizeUniform(Operation* op) {
    Type type = op->result(0).type();
    if (!type.isTensor() || !hasTrait(op->code(), Pure) || !hasTrait(op->code(), Elementwise) ||
        op->numRegions() > 0 || op->numOperands() == 0)
      return false;
    std::vector<Value> scalars;
    for (unsigned i = 0; i < op->numOperands(); ++i) {
      Value v = op->operand(i);
      if (!v.type().isTensor()) return false;
      if (Operation* def = v.definingOp(); def && def->is(OpCode::Splat)) {
        scalars.push_back(def->operand(0));
        continue;
      }
      std::optional<ConstantValue> c = constantOf(v);
      if (!c) return false;
      if (v.type().elementType().isFloat() && std::holds_alternative<int64_t>(*c))
        c = ConstantValue(static_cast<double>(std::get<int64_t>(*c)));
      scalars.push_back(constantBefore(op, v.type().elementType(), *c));
    }
    OpBuilder b;
    b.setInsertionPoint(op);
    b.setLoc(op->loc());
    Operation* scalar = b.create(op->code(), {type.elementType()}, scalars, op->attrs());
    push(scalar);
    return replaceWithNew(op, OpCode::Splat, {scalar->result()});
  }

  bool foldConstants(Operation* op) {
    if (op->numOperands() == 0 || !hasTrait(op->code(), Pure) || op->numRegions() > 0) return false;
    std::vector<ConstantValue> payloads;
    payloads.reserve(op->numOperands());
    for (unsigned i = 0; i < op->numOperands(); ++i) {
      std::optional<ConstantValue> c = constantOf(op->operand(i));
      if (!c) return false;
      // A float constant may carry an integer payload: normalize to double.
      if (op->operand(i).type().elementType().isFloat() && std::holds_alternative<int64_t>(*c))
        c = ConstantValue(static_cast<double>(std::get<int64_t>(*c)));
      payloads.push_back(*c);
    }
    std::optional<ConstantValue> folded = foldConstantOp(op, payloads);
    if (!folded) return false;
    return replaceWithConstant(op, *folded);
  }

  /// The operand that is not `c`-like in a binary op (either order for
  /// commutative ops), or null.
  template <class Pred>
  Value otherIf(Operation* op, Pred isNeutral) {
    if (isNeutral(op->operand(1))) return op->operand(0);
    if (op->hasTrait(Commutative) && isNeutral(op->operand(0))) return op->operand(1);
    return Value();
  }

  bool replaceSameType(Operation* op, Value v) {
    if (!v || v.type() != op->result(0).type()) return false;
    return replaceWith(op, v);
  }

  bool simplifyIdentity(Operation* op) {
    auto zero = [](Value v) { return isIntConst(v, 0); };
    auto one = [](Value v) { return isIntConst(v, 1); };
    Type type = op->result(0).type();
    bool sameOperands = op->numOperands() == 2 && op->operand(0) == op->operand(1);
    switch (op->code()) {
      case OpCode::AddI:
      case OpCode::OrI:
      case OpCode::XOrI:
      case OpCode::ShLI:
      case OpCode::ShRSI:
      case OpCode::ShRUI:
        if (replaceSameType(op, otherIf(op, zero))) return true;
        if (op->is(OpCode::OrI)) {
          if (sameOperands) return replaceSameType(op, op->operand(0));
          if (otherIf(op, isAllOnes)) return replaceWithConstant(op, int64_t(normalizeInt(~uint64_t(0), type.elementType().bitWidth())));
        }
        if (op->is(OpCode::XOrI) && sameOperands) return replaceWithConstant(op, int64_t(0));
        return false;
      case OpCode::SubI:
        if (zero(op->operand(1))) return replaceSameType(op, op->operand(0));
        if (sameOperands) return replaceWithConstant(op, int64_t(0));
        return false;
      case OpCode::MulI:
        if (replaceSameType(op, otherIf(op, one))) return true;
        if (otherIf(op, zero)) return replaceWithConstant(op, int64_t(0));
        return false;
      case OpCode::AndI:
        if (otherIf(op, zero)) return replaceWithConstant(op, int64_t(0));
        if (sameOperands) return replaceSameType(op, op->operand(0));
        return replaceSameType(op, otherIf(op, isAllOnes));
      case OpCode::DivSI:
      case OpCode::DivUI:
        return one(op->operand(1)) && replaceSameType(op, op->operand(0));
      case OpCode::RemSI:
      case OpCode::RemUI:
        if (one(op->operand(1))) return replaceWithConstant(op, int64_t(0));
        return false;
      case OpCode::MaxSI:
      case OpCode::MaxUI:
      case OpCode::MinSI:
      case OpCode::MinUI:
        return sameOperands && replaceSameType(op, op->operand(0));
      case OpCode::AddF:
        return replaceSameType(op, otherIf(op, [](Value v) { return isFloatConst(v, -0.0); }));
      case OpCode::SubF:
        return isFloatConst(op->operand(1), 0.0) && replaceSameType(op, op->operand(0));
      case OpCode::MulF:
        return replaceSameType(op, otherIf(op, [](Value v) { return isFloatConst(v, 1.0); }));
      case OpCode::DivF:
        return isFloatConst(op->operand(1), 1.0) && replaceSameType(op, op->operand(0));
      case OpCode::Select:
        return simplifySelect(op);
      case OpCode::CmpI:
        return sameOperands && simplifyCmpSame(op);
      case OpCode::TruncI:
        return simplifyTruncOfExt(op);
      case OpCode::ExtSI:
      case OpCode::ExtUI:
      case OpCode::ExtF:
        return simplifyExtOfExt(op);
      case OpCode::AddPtr:
        return zero(op->operand(1)) && replaceSameType(op, op->operand(0));
      default:
        return false;
    }
  }

  bool simplifySelect(Operation* op) {
    if (op->operand(1) == op->operand(2)) return replaceSameType(op, op->operand(1));
    std::optional<int64_t> cond = intConstantOf(op->operand(0));
    if (!cond) return false;
    return replaceSameType(op, op->operand(*cond ? 1 : 2));
  }

  bool simplifyCmpSame(Operation* op) {
    std::string pred = op->strAttr("predicate");
    bool reflexive = pred == "eq" || pred == "sle" || pred == "sge" || pred == "ule" || pred == "uge";
    bool irreflexive = pred == "ne" || pred == "slt" || pred == "sgt" || pred == "ult" || pred == "ugt";
    if (!reflexive && !irreflexive) return false;
    return replaceWithConstant(op, int64_t(reflexive ? 1 : 0));
  }

  bool simplifyTruncOfExt(Operation* op) {
    Operation* ext = op->operand(0).definingOp();
    if (!ext || !(ext->is(OpCode::ExtSI) || ext->is(OpCode::ExtUI))) return false;
    Value x = ext->operand(0);
    unsigned from = x.type().elementType().bitWidth();
    unsigned to = op->result(0).type().elementType().bitWidth();
    if (from == to) return replaceSameType(op, x);
    if (from < to) return replaceWithNew(op, ext->code(), {x});
    return replaceWithNew(op, OpCode::TruncI, {x});
  }

  bool simplifyExtOfExt(Operation* op) {
    Operation* inner = op->operand(0).definingOp();
    if (!inner) return false;
    if (op->is(OpCode::ExtF)) {
      if (!inner->is(OpCode::ExtF)) return false;
      return replaceWithNew(op, OpCode::ExtF, {inner->operand(0)});
    }
    if (!(inner->is(OpCode::ExtSI) || inner->is(OpCode::ExtUI))) return false;
    // A zero-extended value has a clear sign bit, so extsi(extui(x)) = extui(x).
    OpCode code = inner->is(OpCode::ExtUI) ? OpCode::ExtUI : op->code();
    if (inner->is(OpCode::ExtSI) && op->is(OpCode::ExtUI)) return false;  // not one cast
    return replaceWithNew(op, code, {inner->operand(0)});
  }

  bool simplifyShape(Operation* op) {
    OpCode code = op->code();
    bool shapeOnly = code == OpCode::Splat || code == OpCode::Broadcast || code == OpCode::ExpandDims ||
                     code == OpCode::Reshape || code == OpCode::Trans;
    if (!shapeOnly || op->numOperands() != 1) return false;
    Value src = op->operand(0);
    Type type = op->result(0).type();
    // A splat stays a splat under every shape op: a constant becomes a
    // constant tensor, a tt.splat one splat of the result type.
    if (options_.fold)
      if (std::optional<ConstantValue> c = constantOf(src)) return replaceWithConstant(op, *c);
    if (code != OpCode::Splat) {
      if (src.type() == type && (code == OpCode::Broadcast || code == OpCode::Reshape)) return replaceWith(op, src);
      if (Operation* def = src.definingOp(); def && def->is(OpCode::Splat))
        return replaceWithNew(op, OpCode::Splat, {def->operand(0)});
    }
    return false;
  }

  //===--------------------------------------------------------------------===//
  // Control flow
  //===--------------------------------------------------------------------===//

  /// scf.if on a constant: moves the taken block's ops before the if and
  /// replaces the results with what its yield yields.
  bool simplifyIf(Operation* op) {
    std::optional<int64_t> cond = intConstantOf(op->operand(0));
    if (!cond) return false;
    Region& taken = op->region(*cond ? 0 : 1);
    if (taken.empty()) {
      if (op->numResults() != 0) return false;  // the verifier rejects this
      eraseOp(op);
      return true;
    }
    Block& block = taken.front();
    Operation* yield = block.terminator();
    if (!yield || !yield->is(OpCode::Yield) || yield->numOperands() != op->numResults()) return false;
    for (Operation* inner = block.front(); inner != yield;) {
      Operation* next = inner->nextOp();
      inner->moveBefore(op);
      inner = next;
    }
    std::vector<Value> values = yield->operands();
    replaceOp(op, values);
    return true;
  }

  /// scf.for with constant bounds and lb >= ub never runs its body; an
  /// iteration argument the body yields unchanged (itself, or its init)
  /// is its init throughout, and so is the loop's result for it.
  bool simplifyFor(Operation* op) {
    if (dropInvariantIterArgs(op)) return true;
    std::optional<int64_t> lb = intConstantOf(op->operand(0));
    std::optional<int64_t> ub = intConstantOf(op->operand(1));
    if (!lb || !ub || *lb < *ub) return false;
    std::vector<Value> inits;
    for (unsigned i = 3; i < op->numOperands(); ++i) inits.push_back(op->operand(i));
    if (inits.size() != op->numResults()) return false;
    replaceOp(op, inits);
    return true;
  }

  bool dropInvariantIterArgs(Operation* op) {
    Block& body = op->region(0).front();
    Operation* yield = body.terminator();
    if (!yield || !yield->is(OpCode::Yield) || yield->numOperands() != op->numResults() ||
        op->numOperands() != 3 + op->numResults())
      return false;
    bool changed = false;
    for (unsigned i = 0; i < op->numResults(); ++i) {
      Value arg = body.argument(i + 1), init = op->operand(3 + i), yielded = yield->operand(i);
      if ((yielded != arg && yielded != init) || (!arg.hasUses() && !op->result(i).hasUses())) continue;
      // The yield is a use of arg: it then yields init, and arg is unused.
      pushUsers(arg);
      pushUsers(op->result(i));
      arg.replaceAllUsesWith(init);
      op->result(i).replaceAllUsesWith(init);
      changed = true;
    }
    return changed;
  }

  Operation* func_;
  CanonicalizeOptions options_;
  std::vector<Operation*> worklist_;
  std::unordered_set<Operation*> pending_;
};

class CanonicalizePass : public Pass {
 public:
  explicit CanonicalizePass(CanonicalizeOptions options) : options_(options) {}
  void run(Module& module) override {
    for (Operation* func : module.functions()) Canonicalizer(func, options_).run();
  }

 private:
  CanonicalizeOptions options_;
};

}  // namespace

std::unique_ptr<Pass> createCanonicalizePass(const PassOptions& options) {
  CanonicalizeOptions o;
  o.fold = boolOption(options, "canonicalize", "fold", true);
  o.regions = boolOption(options, "canonicalize", "regions", true);
  o.maxRewrites = intOption(options, "canonicalize", "max-rewrites", 1000000);
  if (o.maxRewrites <= 0) throw Error("pass 'canonicalize': option 'max-rewrites' must be positive");
  return std::make_unique<CanonicalizePass>(o);
}

}  // namespace tessera::transforms
