//===- CodeGenStmt.cpp - Statements and structured control flow -----------===//
//
// genBlock generates a statement list. Control flow:
//
//   static if       constexpr condition: only the taken branch is generated
//                   (the other may be invalid code); it is spliced in front of
//                   the remaining statements.
//   runtime if      scf.if; variables assigned in both branches (or live
//                   before and assigned in one) become results and must keep
//                   their type (differing constexpr numbers become tensors,
//                   as Triton makes every assigned number a tensor);
//                   variables defined in one branch only are undefined
//                   afterwards.
//   early return    a runtime `if` containing `return` takes the remaining
//                   statements of the function into both branches, so every
//                   path ends in a return and the returned values become the
//                   scf.if results: tt.return stays the last op of the body.
//   for / while     scf.for / scf.while; variables assigned in the body that
//                   exist before the loop are loop-carried (constexpr numbers,
//                   also inside tuples, are converted to tensors) and must
//                   keep their type.
//   static_range    unrolled, the induction variable is a constexpr.
//
//===----------------------------------------------------------------------===//

#include <set>

#include "CodeGen.h"

namespace tessera::frontend {

namespace {

constexpr int64_t kMaxStaticIterations = 4096;

std::vector<const py::Stmt*> ptrs(const py::StmtList& l) {
  std::vector<const py::Stmt*> out;
  for (const auto& s : l) out.push_back(s.get());
  return out;
}

void collectTargets(const py::Expr& e, std::set<std::string>& out) {
  if (auto* n = e.as<py::Name>()) out.insert(n->id);
  else if (auto* t = e.as<py::Tuple>()) for (const auto& x : t->elts) collectTargets(*x, out);
  else if (auto* l = e.as<py::List>()) for (const auto& x : l->elts) collectTargets(*x, out);
  else if (auto* s = e.as<py::Starred>()) collectTargets(*s->value, out);
  else if (auto* a = e.as<py::Attribute>()) collectTargets(*a->value, out);  // obj.field = v changes obj
}

void collectAssigned(const py::StmtList& body, std::set<std::string>& out) {
  for (const auto& s : body) {
    if (auto* a = s->as<py::Assign>()) for (const auto& t : a->targets) collectTargets(*t, out);
    else if (auto* a = s->as<py::AugAssign>()) collectTargets(*a->target, out);
    else if (auto* a = s->as<py::AnnAssign>()) collectTargets(*a->target, out);
    else if (auto* i = s->as<py::If>()) {
      collectAssigned(i->body, out);
      collectAssigned(i->orelse, out);
    } else if (auto* f = s->as<py::For>()) {
      collectTargets(*f->target, out);
      collectAssigned(f->body, out);
    } else if (auto* w = s->as<py::While>()) {
      collectAssigned(w->body, out);
    }
  }
}

/// The first `return` statement in `s` or nested in its blocks, or null.
const py::Stmt* firstReturn(const py::StmtList& body);
const py::Stmt* firstReturn(const py::Stmt& s) {
  if (s.kind == py::StmtKind::Return) return &s;
  if (auto* i = s.as<py::If>()) {
    if (const py::Stmt* r = firstReturn(i->body)) return r;
    return firstReturn(i->orelse);
  }
  if (auto* f = s.as<py::For>()) return firstReturn(f->body);
  if (auto* w = s.as<py::While>()) return firstReturn(w->body);
  return nullptr;
}
const py::Stmt* firstReturn(const py::StmtList& body) {
  for (const auto& s : body)
    if (const py::Stmt* r = firstReturn(*s)) return r;
  return nullptr;
}
bool containsReturn(const py::Stmt& s) { return firstReturn(s) != nullptr; }

/// Same value (no merge needed): identical constexprs or the same IR values.
bool sameValue(const Val& a, const Val& b) {
  if (a.isTensor() || b.isTensor()) return a.isTensor() && b.isTensor() && a.value == b.value;
  // Tensor descriptors are their base, shape and strides (and a block type).
  if (a.isTensorDesc() || b.isTensorDesc())
    return a.isTensorDesc() && b.isTensorDesc() && a.dtype == b.dtype && a.shape == b.shape && a.s == b.s &&
           sameValue(Val::tuple(a.elems), Val::tuple(b.elems));
  if (a.isTuple() && b.isTuple()) {
    if (a.st != b.st || a.elems.size() != b.elems.size()) return false;
    for (size_t k = 0; k < a.elems.size(); ++k)
      if (!sameValue(a.elems[k], b.elems[k])) return false;
    return true;
  }
  return a.kind == b.kind && a.sameConst(b);
}

/// Same structure and tensor types (a merge is possible).
bool sameType(const Val& a, const Val& b) {
  if (a.isTensor() || b.isTensor())
    return a.isTensor() && b.isTensor() && a.dtype == b.dtype && a.shape == b.shape;
  if (a.isTensorDesc() || b.isTensorDesc())
    return a.isTensorDesc() && b.isTensorDesc() && a.dtype == b.dtype && a.shape == b.shape && a.s == b.s &&
           sameType(Val::tuple(a.elems), Val::tuple(b.elems));
  if (a.isTuple() && b.isTuple()) {
    if (a.st != b.st || a.elems.size() != b.elems.size()) return false;
    for (size_t k = 0; k < a.elems.size(); ++k)
      if (!sameType(a.elems[k], b.elems[k])) return false;
    return true;
  }
  return a.kind == b.kind && a.sameConst(b);
}

/// Triton turns every number assigned to a variable into a tensor (int32,
/// fp32, ... by value); Tessera keeps them as constexprs until control flow
/// merges them. This makes the numbers in `v` (also inside tuples) tensors,
/// created at the builder's current insertion point.
Val materializeNumbers(CodeGen& cg, const Val& v) {
  if (v.isNumber()) return cg.toTensor(v);
  if (v.isTuple()) {
    Val r = v;  // (an aggregate keeps its class and its constexpr fields)
    for (size_t k = 0; k < r.elems.size(); ++k)
      if (!(v.st && v.st->constexprField[k])) r.elems[k] = materializeNumbers(cg, v.elems[k]);
    return r;
  }
  return v;
}

/// `now` (a value at the end of a loop body) with its numbers turned into
/// tensors wherever `init` (the loop-carried value) holds a scalar tensor of
/// the number's literal type.
Val matchCarriedNumbers(CodeGen& cg, const Val& now, const Val& init) {
  if (now.isNumber() && init.isTensor() && !init.isBlock()) {
    Val t = cg.toTensor(now);
    return t.dtype == init.dtype ? t : now;
  }
  if (now.isTuple() && init.isTuple() && now.elems.size() == init.elems.size()) {
    Val r = now;
    for (size_t k = 0; k < now.elems.size(); ++k) r.elems[k] = matchCarriedNumbers(cg, now.elems[k], init.elems[k]);
    return r;
  }
  return now;
}

std::vector<ir::Value> irValues(const std::vector<Val>& leaves) {
  std::vector<ir::Value> out;
  for (const auto& l : leaves) out.push_back(l.value);
  return out;
}

}  // namespace

void CodeGen::assign(const py::Expr& target, const Val& v) {
  if (auto* n = target.as<py::Name>()) {
    frame().locals[n->id] = v;
    return;
  }
  const py::ExprList* elts = nullptr;
  if (auto* t = target.as<py::Tuple>()) elts = &t->elts;
  else if (auto* l = target.as<py::List>()) elts = &l->elts;
  if (elts) {
    if (!v.isTuple()) fail(target, "cannot unpack a non-tuple value of type " + v.typeName());
    if (v.elems.size() != elts->size())
      fail(target, "cannot unpack " + std::to_string(v.elems.size()) + " values into " +
                       std::to_string(elts->size()) + " targets");
    for (size_t k = 0; k < elts->size(); ++k) assign(*(*elts)[k], v.elems[k]);
    return;
  }
  if (target.kind == py::ExprKind::Subscript)
    fail(target, "item assignment is not supported (tensors are immutable; use tl.where or tl.store)");
  if (auto* a = target.as<py::Attribute>()) return assignAttribute(*a, v);
  fail(target, "unsupported assignment target");
}

Val CodeGen::runtimeTernary(const Val& cond, const py::Expr& then, const py::Expr& otherwise) {
  ir::Operation* ifOp = b_.create(ir::OpCode::If, {}, {cond.value}, {}, 2);
  ir::Block* thenB = ifOp->region(0).addBlock();
  ir::Block* elseB = ifOp->region(1).addBlock();
  Val tv, ev;
  {
    ir::OpBuilder::InsertionGuard g(b_);
    b_.setInsertionPointToEnd(thenB);
    tv = eval(then);
    if (!tv.isTensorDesc()) tv = tensorArg(tv, "the true value of a conditional expression");
  }
  {
    ir::OpBuilder::InsertionGuard g(b_);
    b_.setInsertionPointToEnd(elseB);
    ev = eval(otherwise);
    if (!ev.isTensorDesc()) ev = tensorArg(ev, "the false value of a conditional expression");
  }
  if (!sameType(tv, ev))
    fail("conditional expression with a runtime condition has inconsistent types " + tv.typeName() + " and " +
         ev.typeName());
  if (tv.isTensorDesc()) return yieldBranches(ifOp, tv, ev);  // descriptors: their runtime parts merge
  {
    ir::OpBuilder::InsertionGuard g(b_);
    b_.setInsertionPointToEnd(thenB);
    b_.create(ir::OpCode::Yield, {}, {tv.value});
    b_.setInsertionPointToEnd(elseB);
    b_.create(ir::OpCode::Yield, {}, {ev.value});
  }
  return Val::tensor(ifOp->appendResult(tv.value.type()), tv.dtype, tv.shape);
}

Val CodeGen::yieldBranches(ir::Operation* ifOp, const Val& tv, const Val& ev) {
  std::vector<Val> tl, el;
  flattenTensors(tv, tl);
  flattenTensors(ev, el);
  {
    ir::OpBuilder::InsertionGuard g(b_);
    b_.setInsertionPointToEnd(&ifOp->region(0).front());
    b_.create(ir::OpCode::Yield, {}, irValues(tl));
    b_.setInsertionPointToEnd(&ifOp->region(1).front());
    b_.create(ir::OpCode::Yield, {}, irValues(el));
  }
  std::vector<Val> results;
  for (const auto& l : tl) results.push_back(Val::tensor(ifOp->appendResult(l.value.type()), l.dtype, l.shape));
  size_t pos = 0;
  return rebuildTensors(tv, results, pos);
}

/// Pieces of genBlock that need private access, one per statement kind.
struct StmtGen {
  CodeGen& cg;

  void runtimeIf(const py::If& s, const Val& cond) {
    auto& locals = cg.frame().locals;
    auto before = locals;
    ir::Operation* ifOp = cg.b_.create(ir::OpCode::If, {}, {cond.value}, {}, 2);
    ir::Block* thenB = ifOp->region(0).addBlock();
    ir::Block* elseB = ifOp->region(1).addBlock();
    std::map<std::string, Val> thenLocals, elseLocals;
    {
      ir::OpBuilder::InsertionGuard g(cg.b_);
      cg.b_.setInsertionPointToEnd(thenB);
      cg.genBlock(ptrs(s.body), false);
      thenLocals = cg.frame().locals;
      cg.frame().locals = before;
      cg.b_.setInsertionPointToEnd(elseB);
      cg.genBlock(ptrs(s.orelse), false);
      elseLocals = cg.frame().locals;
      cg.frame().locals = before;
    }
    std::vector<Val> thenLeaves, elseLeaves;
    std::vector<std::pair<std::string, Val>> merged;  // name -> template
    for (auto& [name, tv] : thenLocals) {
      auto eit = elseLocals.find(name);
      if (eit == elseLocals.end()) {
        cg.frame().locals.erase(name);
        continue;
      }
      Val ev = eit->second;
      if (sameValue(tv, ev)) {
        cg.frame().locals[name] = tv;
        continue;
      }
      // Differing numbers (x = 1 / x = 2, or x = 0 before and x = n in one
      // branch) are tensors in Triton: make them tensors in their branch.
      {
        ir::OpBuilder::InsertionGuard g(cg.b_);
        cg.b_.setInsertionPointToEnd(thenB);
        tv = materializeNumbers(cg, tv);
        cg.b_.setInsertionPointToEnd(elseB);
        ev = materializeNumbers(cg, ev);
      }
      if (!sameType(tv, ev))
        cg.fail(s, "mismatched type for '" + name + "' between then block (" + tv.typeName() + ") and else block (" +
                       ev.typeName() + ")");
      flattenTensors(tv, thenLeaves);
      flattenTensors(ev, elseLeaves);
      merged.emplace_back(name, tv);
    }
    for (auto& [name, ev] : elseLocals)
      if (!thenLocals.count(name)) cg.frame().locals.erase(name);
    {
      ir::OpBuilder::InsertionGuard g(cg.b_);
      cg.b_.setInsertionPointToEnd(thenB);
      cg.b_.create(ir::OpCode::Yield, {}, irValues(thenLeaves));
      cg.b_.setInsertionPointToEnd(elseB);
      cg.b_.create(ir::OpCode::Yield, {}, irValues(elseLeaves));
    }
    std::vector<Val> results;
    for (const auto& l : thenLeaves)
      results.push_back(Val::tensor(ifOp->appendResult(l.value.type()), l.dtype, l.shape));
    size_t pos = 0;
    for (auto& [name, templ] : merged) cg.frame().locals[name] = rebuildTensors(templ, results, pos);
  }

  /// An `if` on a per-element condition in tl.map_elementwise's scalar
  /// function: both branches run on all elements (with `rest`, when they
  /// return), then the values they leave (`merge`: the variables; else the
  /// returned values) are selected per element.
  Flow selectingIf(const py::If& s, const Val& cond, const std::vector<const py::Stmt*>& rest, bool merge = false) {
    auto before = cg.frame().locals;
    auto thenStmts = ptrs(s.body), elseStmts = ptrs(s.orelse);
    thenStmts.insert(thenStmts.end(), rest.begin(), rest.end());
    elseStmts.insert(elseStmts.end(), rest.begin(), rest.end());
    Flow tf = cg.underBranch(cond, [&] { return cg.genBlock(thenStmts, !merge); });
    auto thenLocals = cg.frame().locals;
    cg.frame().locals = before;
    Val notCond = cg.logicalNot(cond);
    Flow ef = cg.underBranch(notCond, [&] { return cg.genBlock(elseStmts, !merge); });
    auto elseLocals = cg.frame().locals;
    cg.frame().locals = before;
    if (!merge) return Flow{true, cg.selectMerge(cond, tf.value, ef.value, "the returned value")};
    for (auto& [name, tv] : thenLocals) {
      auto eit = elseLocals.find(name);
      if (eit == elseLocals.end()) cg.frame().locals.erase(name);
      else cg.frame().locals[name] = cg.selectMerge(cond, tv, eit->second, "'" + name + "'");
    }
    for (auto& [name, ev] : elseLocals)
      if (!thenLocals.count(name)) cg.frame().locals.erase(name);
    return Flow{};
  }

  /// A runtime if containing a return: both branches take the rest of the
  /// function, both end in a return; the returned values become results.
  Flow returningIf(const py::If& s, const Val& cond, const std::vector<const py::Stmt*>& rest) {
    auto before = cg.frame().locals;
    ir::Operation* ifOp = cg.b_.create(ir::OpCode::If, {}, {cond.value}, {}, 2);
    ir::Block* thenB = ifOp->region(0).addBlock();
    ir::Block* elseB = ifOp->region(1).addBlock();
    auto thenStmts = ptrs(s.body);
    thenStmts.insert(thenStmts.end(), rest.begin(), rest.end());
    auto elseStmts = ptrs(s.orelse);
    elseStmts.insert(elseStmts.end(), rest.begin(), rest.end());
    Flow tf, ef;
    {
      ir::OpBuilder::InsertionGuard g(cg.b_);
      cg.b_.setInsertionPointToEnd(thenB);
      tf = cg.genBlock(thenStmts, true);
      cg.frame().locals = before;
      cg.b_.setInsertionPointToEnd(elseB);
      ef = cg.genBlock(elseStmts, true);
      cg.frame().locals = before;
    }
    Val tv = tf.value, ev = ef.value;
    // A constexpr number returned on one side and a tensor on the other.
    if (tv.isNumber() && ev.isTensor() && !ev.isBlock()) {
      ir::OpBuilder::InsertionGuard g(cg.b_);
      cg.b_.setInsertionPointToEnd(thenB);
      tv = cg.cast(cg.toTensor(tv), ev.dtype);
    }
    if (ev.isNumber() && tv.isTensor() && !tv.isBlock()) {
      ir::OpBuilder::InsertionGuard g(cg.b_);
      cg.b_.setInsertionPointToEnd(elseB);
      ev = cg.cast(cg.toTensor(ev), tv.dtype);
    }
    // Triton returns numbers as tensors: `return 1` / `return 2` merge.
    if (!sameType(tv, ev) && !sameValue(tv, ev)) {
      ir::OpBuilder::InsertionGuard g(cg.b_);
      cg.b_.setInsertionPointToEnd(thenB);
      tv = materializeNumbers(cg, tv);
      cg.b_.setInsertionPointToEnd(elseB);
      ev = materializeNumbers(cg, ev);
    }
    if (!sameType(tv, ev) && !sameValue(tv, ev))
      cg.fail(s, "mismatched return types: " + tv.typeName() + " in one branch and " + ev.typeName() + " in the other");
    return Flow{true, cg.yieldBranches(ifOp, tv, ev)};
  }

  /// Loop-carried variables: assigned in the body and defined before.
  std::vector<std::pair<std::string, Val>> carried(const py::StmtList& body) {
    std::set<std::string> assigned;
    collectAssigned(body, assigned);
    std::vector<std::pair<std::string, Val>> out;
    for (const auto& name : assigned) {
      auto it = cg.frame().locals.find(name);
      if (it == cg.frame().locals.end()) continue;
      Val v = materializeNumbers(cg, it->second);
      if (v.isConstexpr()) continue;  // None, dtypes, functions: not carried
      out.emplace_back(name, v);
    }
    return out;
  }

  /// Binds loop-carried names to block arguments starting at `firstArg`.
  void bindCarried(const std::vector<std::pair<std::string, Val>>& vars, ir::Block* block, unsigned firstArg) {
    std::vector<Val> leaves;
    for (const auto& [name, v] : vars) flattenTensors(v, leaves);
    std::vector<Val> args;
    for (size_t k = 0; k < leaves.size(); ++k)
      args.push_back(Val::tensor(block->argument(firstArg + static_cast<unsigned>(k)), leaves[k].dtype, leaves[k].shape));
    size_t pos = 0;
    for (const auto& [name, v] : vars) cg.frame().locals[name] = rebuildTensors(v, args, pos);
  }

  /// The values of the carried names at the end of the body, type-checked.
  std::vector<ir::Value> yieldedCarried(const std::vector<std::pair<std::string, Val>>& vars, const py::Stmt& loop) {
    std::vector<Val> leaves;
    for (const auto& [name, init] : vars) {
      auto it = cg.frame().locals.find(name);
      if (it == cg.frame().locals.end())
        cg.fail(loop, "loop-carried variable '" + name + "' is undefined at the end of the loop body");
      Val now = matchCarriedNumbers(cg, it->second, init);
      if (!sameType(now, init))
        cg.fail(loop, "loop-carried variable '" + name + "' has initial type " + init.typeName() +
                          " but is re-assigned to " + now.typeName() + " in the loop");
      flattenTensors(now, leaves);
    }
    return irValues(leaves);
  }

  void staticFor(const py::For& s, BoundArgs& a) {
    int64_t start = 0, stop = 0, step = 1;
    if (a[1].isNone()) {
      stop = cg.constInt(a[0], "tl.static_range bound");
    } else {
      start = cg.constInt(a[0], "tl.static_range bound");
      stop = cg.constInt(a[1], "tl.static_range bound");
    }
    if (!a[2].isNone()) step = cg.constInt(a[2], "tl.static_range step");
    if (step == 0) cg.fail(s, "tl.static_range step must not be zero");
    // In 128 bits: the span of two int64 bounds (and -INT64_MIN) overflows int64.
    __int128 span = step > 0 ? __int128{stop} - start : __int128{start} - stop;
    __int128 stride = step > 0 ? __int128{step} : -__int128{step};
    __int128 wide = span > 0 ? (span + stride - 1) / stride : 0;
    if (wide > kMaxStaticIterations)
      cg.fail(s, "tl.static_range would unroll " + std::to_string(static_cast<unsigned long long>(wide)) +
                     " iterations (at most " + std::to_string(kMaxStaticIterations) + " are allowed)");
    int64_t count = static_cast<int64_t>(wide);
    cg.staticIterationsLeft -= count;
    if (cg.staticIterationsLeft < 0)
      cg.fail(s, "tl.static_range: too many unrolled iterations in total (nested static loops unroll more than 65536 bodies)");
    cg.frame().loopDepth++;
    for (int64_t k = 0; k < count; ++k) {
      // k * step alone may overflow int64 even where the sum is in range.
      cg.assign(*s.target, Val::integer(BigInt(static_cast<int64_t>(start + __int128{k} * step))));
      cg.genBlock(ptrs(s.body), false);
    }
    cg.frame().loopDepth--;
  }

  void runtimeFor(const py::For& s, BoundArgs& a, bool isTlRange) {
    Val lb, ub, step;
    if (a[1].isNone()) {
      lb = Val::integer(BigInt(0));
      ub = a[0];
    } else {
      lb = a[0];
      ub = a[1];
    }
    step = a[2].isNone() ? Val::integer(BigInt(1)) : a[2];
    bool negative = false;
    if (step.isConstexpr()) {
      int64_t st = cg.constInt(step, "range step");
      if (st == 0) cg.fail(s, "range step must not be zero");
      if (st < 0) {
        negative = true;
        step = Val::integer(BigInt(-st));
        std::swap(lb, ub);
      }
    }
    bool perElement = false;
    for (Val* v : {&lb, &ub, &step}) {
      if (v->kind == Val::Kind::Float || (v->isTensor() && !v->dtype.isInt()))
        cg.fail(s, "range bounds must be integers, got " + v->typeName());
      *v = cg.tensorArg(*v, "range bound");
      if (v->isBlock() && !(cg.frame().elementwise && v != &step))
        cg.fail(s, std::string(v == &step ? "range steps" : "range bounds") + " must be scalars, got " + v->typeName());
      perElement = perElement || v->isBlock();
    }
    DType ivType = cg.computationType(lb.dtype, false, ub.dtype, false, false);
    ivType = cg.computationType(ivType, false, step.dtype, false, false);
    if (ivType.isInt1()) ivType = ScalarKind::I32;
    lb = cg.cast(lb, ivType);
    ub = cg.cast(ub, ivType);
    step = cg.cast(step, ivType);
    if (perElement) {  // tl.map_elementwise's function, bounds per element
      if (negative || !(a[2].isNone() || a[2].isConstexpr()))
        cg.fail(s, "a per-element range loop needs a positive constexpr step");
      return perElementFor(s, lb, ub, step);
    }

    auto vars = carried(s.body);
    std::vector<Val> initLeaves;
    for (const auto& [name, v] : vars) flattenTensors(v, initLeaves);
    std::vector<ir::Value> operands = {lb.value, ub.value, step.value};
    for (const auto& l : initLeaves) operands.push_back(l.value);
    ir::AttrMap attrs;
    if (isTlRange) {
      if (!a[3].isNone()) attrs["num_stages"] = cg.constInt(a[3], "num_stages");
      if (!a[4].isNone()) attrs["loop_unroll_factor"] = cg.constInt(a[4], "loop_unroll_factor");
      if (cg.constBool(a[5], "disallow_acc_multi_buffer")) attrs["disallow_acc_multi_buffer"] = true;
      if (cg.constBool(a[6], "flatten")) attrs["flatten"] = true;
      // Unset: the compiler decides (pipeline-dot-loops); False keeps it off.
      if (!a[7].isNone()) attrs["warp_specialize"] = cg.constBool(a[7], "warp_specialize");
      if (cg.constBool(a[8], "disable_licm")) attrs["disable_licm"] = true;
    }
    std::vector<ir::Type> resultTypes;
    for (const auto& l : initLeaves) resultTypes.push_back(l.value.type());
    ir::Operation* forOp = cg.b_.create(ir::OpCode::For, resultTypes, operands, std::move(attrs), 1);
    ir::Block* body = forOp->region(0).addBlock();
    ir::Value iv = body->addArgument(cg.irType(ivType, {}));
    for (const auto& l : initLeaves) body->addArgument(l.value.type());

    auto before = cg.frame().locals;
    std::vector<ir::Value> yielded;
    {
      ir::OpBuilder::InsertionGuard g(cg.b_);
      cg.b_.setInsertionPointToEnd(body);
      bindCarried(vars, body, 1);
      Val ivVal = Val::tensor(iv, ivType, {});
      if (negative) {
        // Iterate lb' = ub .. ub' = lb upwards, map back: iv = ub + lb - iv'.
        ivVal = cg.arith(py::BinOpKind::Add, cg.arith(py::BinOpKind::Sub, ub, ivVal), lb);
      }
      cg.assign(*s.target, ivVal);
      cg.frame().loopDepth++;
      cg.genBlock(ptrs(s.body), false);
      cg.frame().loopDepth--;
      yielded = yieldedCarried(vars, s);
      cg.b_.setLoc(cg.irLoc(s));
      cg.b_.create(ir::OpCode::Yield, {}, yielded);
    }
    cg.frame().locals = before;
    std::vector<Val> results;
    for (size_t k = 0; k < initLeaves.size(); ++k)
      results.push_back(Val::tensor(forOp->result(static_cast<unsigned>(k)), initLeaves[k].dtype, initLeaves[k].shape));
    size_t pos = 0;
    for (const auto& [name, v] : vars) cg.frame().locals[name] = rebuildTensors(v, results, pos);
  }

  /// The evaluated arguments of a loop's `tl.range(...)` / `tl.condition(...)`.
  std::pair<std::vector<Val>, CodeGen::KwArgs> loopCallArgs(const py::Call& call) {
    std::vector<Val> args;
    for (const auto& x : call.args) args.push_back(cg.eval(*x));
    CodeGen::KwArgs kwargs;
    for (const auto& kw : call.keywords) {
      if (!kw.arg) cg.fail(kw, "**kwargs is not supported");
      kwargs.emplace_back(*kw.arg, cg.eval(*kw.value));
    }
    return {std::move(args), std::move(kwargs)};
  }

  void forStmt(const py::For& s) {
    if (!s.orelse.empty()) cg.fail(s, "for ... else is not supported");
    if (s.isAsync) cg.fail(s, "async for is not supported");
    auto* call = s.iter->as<py::Call>();
    Val fn = call ? cg.eval(*call->func) : Val::none();
    std::string name = fn.kind == Val::Kind::Builtin ? fn.s : "";
    if (name != "py.range" && name != "tl.range" && name != "tl.static_range")
      cg.fail(*s.iter, "only `range`, `tl.range` and `tl.static_range` iterators are supported in for loops");
    auto [args, kwargs] = loopCallArgs(*call);
    CurrentNodeGuard guard(cg, call);
    const Builtin* b = findBuiltin(name == "py.range" ? "tl.range" : name);
    if (name == "py.range" && !kwargs.empty()) cg.fail(*call, "range() takes no keyword arguments");
    BoundArgs a = cg.bindBuiltin(*b, std::move(args), std::move(kwargs));
    if (name == "tl.static_range") staticFor(s, a);
    else runtimeFor(s, a, name == "tl.range");
  }

  void whileStmt(const py::While& s) {
    if (!s.orelse.empty()) cg.fail(s, "while ... else is not supported");
    auto vars = carried(s.body);
    if (cg.frame().elementwise && !s.test->as<py::Call>()) {
      // A per-element condition: the carried scalars become blocks of its
      // shape, since each element may leave the loop with its own values.
      // (The test evaluated here is dead code the cleanup removes.)
      CurrentNodeGuard g2(cg, s.test.get());
      if (auto c = cg.elementwiseCondition(cg.eval(*s.test)))
        for (auto& [name, v] : vars)
          if (v.isTensor() && !v.isBlock()) v = cg.broadcastTo(v, c->shape);
    }
    // map_elementwise: a per-element condition loops while any element's
    // holds, and the body's updates apply to those elements only.
    bool perElement = false;
    auto test = [&](ir::Operation* whileOp) {
      CurrentNodeGuard g2(cg, s.test.get());
      // `while tl.condition(c, disable_licm=...)`: the loop's attributes.
      auto* call = s.test->as<py::Call>();
      Val fn = call ? cg.eval(*call->func) : Val::none();
      if (fn.kind == Val::Kind::Builtin && fn.s == "tl.condition") {
        auto [args, kwargs] = loopCallArgs(*call);
        BoundArgs a = cg.bindBuiltin(*findBuiltin("tl.condition"), std::move(args), std::move(kwargs));
        if (cg.constBool(a[1], "disable_licm")) whileOp->setAttr("disable_licm", true);
        return cg.condition(a[0]);
      }
      Val t = cg.eval(*s.test);
      std::optional<Val> c = cg.elementwiseCondition(t);
      perElement = c.has_value();
      // (only elements of the enclosing per-element branch keep it running)
      return perElement ? cg.anyElement(cg.branchMasked(*c)) : cg.condition(t);
    };
    auto active = [&]() -> std::optional<Val> {
      if (!perElement) return std::nullopt;
      CurrentNodeGuard g2(cg, s.test.get());
      return cg.branchMasked(*cg.elementwiseCondition(cg.eval(*s.test)));
    };
    whileLoop(s, vars, test, active, [&] {});
  }

  /// `for target in range(lb, ub, step)` in tl.map_elementwise's function
  /// when a bound is per element: a while loop over an index block, running
  /// while any element's index is below its bound; each element's carried
  /// values change only while its own index is.
  void perElementFor(const py::For& s, Val lb, Val ub, const Val& step) {
    auto* target = s.target->as<py::Name>();
    if (!target) cg.fail(*s.target, "a per-element range loop needs a single name as its target");
    std::vector<int64_t> shape = cg.broadcastShapes(lb.shape, ub.shape);
    lb = cg.broadcastTo(lb, shape);
    ub = cg.broadcastTo(ub, shape);
    auto vars = carried(s.body);
    for (auto& [name, v] : vars)
      if (v.isTensor() && !v.isBlock()) v = cg.broadcastTo(v, shape);
    const std::string iv = "\x01index of " + target->id;  // a name no program can spell
    vars.emplace_back(iv, lb);
    auto running = [&] { return cg.branchMasked(cg.cmp(py::CmpOpKind::Lt, cg.frame().locals.at(iv), ub)); };
    whileLoop(
        s, vars, [&](ir::Operation*) { return cg.anyElement(running()); },
        [&]() -> std::optional<Val> {
          cg.frame().locals[target->id] = cg.frame().locals.at(iv);
          return running();
        },
        [&] {
          Val& i = cg.frame().locals.at(iv);
          i = cg.arith(py::BinOpKind::Add, i, step);
        });
    cg.frame().locals.erase(iv);
  }

  /// A scf.while over `vars`: `test` makes the condition in the before
  /// region; in the after region `active` (per-element loops) names the
  /// elements the body runs for, the body runs (under that mask), `advance`
  /// steps an index, and each variable keeps its old value where the
  /// element is not active.
  template <class Test, class Active, class Advance>
  void whileLoop(const py::Stmt& s, std::vector<std::pair<std::string, Val>>& vars, Test&& test, Active&& active,
                 Advance&& advance) {
    const py::StmtList& body = s.kind == py::StmtKind::While ? s.as<py::While>()->body : s.as<py::For>()->body;
    std::vector<Val> initLeaves;
    for (const auto& [name, v] : vars) flattenTensors(v, initLeaves);
    std::vector<ir::Type> types;
    for (const auto& l : initLeaves) types.push_back(l.value.type());
    ir::Operation* whileOp = cg.b_.create(ir::OpCode::While, types, irValues(initLeaves), {}, 2);
    ir::Block* beforeB = whileOp->region(0).addBlock();
    ir::Block* afterB = whileOp->region(1).addBlock();
    for (auto t : types) {
      beforeB->addArgument(t);
      afterB->addArgument(t);
    }
    auto saved = cg.frame().locals;
    {
      ir::OpBuilder::InsertionGuard g(cg.b_);
      cg.b_.setInsertionPointToEnd(beforeB);
      bindCarried(vars, beforeB, 0);
      Val cond = test(whileOp);
      if (cond.isConstexpr()) cond = cg.constantInt(ScalarKind::I1, cond.truthy() ? 1 : 0);
      std::vector<ir::Value> ops = {cond.value};
      for (unsigned k = 0; k < beforeB->numArguments(); ++k) ops.push_back(beforeB->argument(k));
      cg.b_.create(ir::OpCode::Condition, {}, ops);
      cg.frame().locals = saved;

      cg.b_.setInsertionPointToEnd(afterB);
      bindCarried(vars, afterB, 0);
      auto entry = cg.frame().locals;
      std::optional<Val> on = active();
      cg.frame().loopDepth++;
      if (on) cg.underBranch(*on, [&] { return cg.genBlock(ptrs(body), false); });
      else cg.genBlock(ptrs(body), false);
      cg.frame().loopDepth--;
      advance();
      if (on)
        for (const auto& [name, v] : vars)
          cg.frame().locals[name] = cg.selectMerge(*on, cg.frame().locals[name], entry[name], "'" + name + "'");
      auto yielded = yieldedCarried(vars, s);
      cg.b_.setLoc(cg.irLoc(s));
      cg.b_.create(ir::OpCode::Yield, {}, yielded);
    }
    cg.frame().locals = saved;
    std::vector<Val> results;
    for (size_t k = 0; k < initLeaves.size(); ++k)
      results.push_back(Val::tensor(whileOp->result(static_cast<unsigned>(k)), initLeaves[k].dtype, initLeaves[k].shape));
    size_t pos = 0;
    for (const auto& [name, v] : vars) cg.frame().locals[name] = rebuildTensors(v, results, pos);
  }

  void assertStmt(const py::Assert& s) {
    Val cond = cg.eval(*s.test);
    std::string msg;
    if (s.msg) {
      Val m = cg.eval(*s.msg);
      msg = m.kind == Val::Kind::Str ? m.s : m.repr();
    }
    if (cond.isConstexpr()) {
      if (!cond.truthy() && cg.debugEnabled()) cg.fail(s, "assertion failed" + (msg.empty() ? "" : ": " + msg));
      return;
    }
    if (!cg.debugEnabled()) return;
    emitAssert(cg, cond, msg, s);
  }

  static void emitAssert(CodeGen& cg, const Val& cond0, const std::string& msg, const py::Node& at) {
    Val cond = cond0;
    if (!cond.dtype.isInt1()) cond = cg.cast(cond, ScalarKind::I1);
    // In a per-element branch (map_elementwise) only the elements that take
    // it are checked.
    if (cg.depth() && cg.frame().branchMask) cond = cg.logicalAndOr(false, cond, cg.logicalNot(*cg.frame().branchMask));
    SourceLoc l = cg.locOf(at);
    ir::AttrMap attrs;
    attrs["message"] = msg;
    attrs["file"] = l.file ? l.file->name() : std::string("<unknown>");
    attrs["func"] = cg.frame().fn ? cg.frame().fn->name : std::string("<unknown>");
    attrs["line"] = int64_t{l.line};
    cg.builder().create(ir::OpCode::Assert, {}, {cond.value}, std::move(attrs));
  }
};

void emitDeviceAssert(CodeGen& cg, const Val& cond, const std::string& msg, const py::Node& at) {
  StmtGen::emitAssert(cg, cond, msg, at);
}

Flow CodeGen::genBlock(const std::vector<const py::Stmt*>& stmts, bool atTail) {
  std::optional<NestingGuard> nest;
  if (!stmts.empty()) nest.emplace(*this, *stmts.front());
  StmtGen g{*this};
  for (size_t idx = 0; idx < stmts.size(); ++idx) {
    const py::Stmt& s = *stmts[idx];
    CurrentNodeGuard guard(*this, &s);
    switch (s.kind) {
      case py::StmtKind::Expr: {
        auto& e = *s.as<py::ExprStmt>()->value;
        if (auto* c = e.as<py::Constant>(); c && c->type == py::Constant::Type::Str) break;  // docstring
        eval(e);
        break;
      }
      case py::StmtKind::Assign: {
        auto& a = *s.as<py::Assign>();
        Val v = eval(*a.value);
        for (const auto& t : a.targets) assign(*t, v);
        break;
      }
      case py::StmtKind::AugAssign: {
        auto& a = *s.as<py::AugAssign>();
        if (!a.target->as<py::Name>()) {
          if (a.target->kind == py::ExprKind::Subscript)
            fail(*a.target, "item assignment is not supported (tensors are immutable; use tl.where or tl.store)");
          fail(*a.target, "unsupported augmented assignment target");
        }
        Val cur = lookupName(a.target->as<py::Name>()->id, *a.target);
        Val rhs = eval(*a.value);
        CurrentNodeGuard g2(*this, &s);
        assign(*a.target, binary(a.op, cur, rhs));
        break;
      }
      case py::StmtKind::AnnAssign: {
        auto& a = *s.as<py::AnnAssign>();
        if (!a.value) break;
        // `x: tl.constexpr = value` binds the value as it is: Triton wraps a
        // runtime value in tl.constexpr without checking and it goes on
        // behaving as the runtime value (FlagGems' sort writes
        // `CTA_TILE_N: tl.constexpr = TILE_N * tiles_n_per_cta`).
        assign(*a.target, eval(*a.value));
        break;
      }
      case py::StmtKind::If: {
        auto& i = *s.as<py::If>();
        Val cond;
        std::optional<Val> perElement;
        {
          CurrentNodeGuard g2(*this, i.test.get());
          Val test = eval(*i.test);
          perElement = elementwiseCondition(test);
          if (!perElement) cond = condition(test);
        }
        std::vector<const py::Stmt*> rest(stmts.begin() + idx + 1, stmts.end());
        if (perElement) {  // map_elementwise: both branches, selected per element
          if (containsReturn(s) && (!atTail || frame().loopDepth > 0))
            fail(*firstReturn(s), "cannot have `return` statements inside `while` or `for` statements");
          if (containsReturn(s)) return g.selectingIf(i, *perElement, rest);
          g.selectingIf(i, *perElement, {}, /*merge=*/true);
          break;
        }
        if (cond.isConstexpr()) {
          auto taken = ptrs(cond.truthy() ? i.body : i.orelse);
          taken.insert(taken.end(), rest.begin(), rest.end());
          return genBlock(taken, atTail);
        }
        if (containsReturn(s)) {
          if (!atTail || frame().loopDepth > 0)
            fail(*firstReturn(s), "cannot have `return` statements inside `while` or `for` statements");
          return g.returningIf(i, cond, rest);
        }
        g.runtimeIf(i, cond);
        break;
      }
      case py::StmtKind::For: g.forStmt(*s.as<py::For>()); break;
      case py::StmtKind::While: g.whileStmt(*s.as<py::While>()); break;
      case py::StmtKind::Return: {
        if (frame().loopDepth > 0) fail(s, "cannot have `return` statements inside `while` or `for` statements");
        auto& r = *s.as<py::Return>();
        return Flow{true, r.value ? eval(*r.value) : Val::none()};
      }
      case py::StmtKind::Pass: break;
      case py::StmtKind::Assert: g.assertStmt(*s.as<py::Assert>()); break;
      case py::StmtKind::Break: fail(s, "unsupported statement: break");
      case py::StmtKind::Continue: fail(s, "unsupported statement: continue");
      case py::StmtKind::With: fail(s, "unsupported statement: with");
      case py::StmtKind::FunctionDef: fail(s, "nested function definitions are not supported");
      case py::StmtKind::ClassDef: fail(s, "class definitions are not supported in @jit functions");
      case py::StmtKind::Try: fail(s, "unsupported statement: try");
      case py::StmtKind::Raise: fail(s, "unsupported statement: raise");
      case py::StmtKind::Delete: fail(s, "unsupported statement: del");
      case py::StmtKind::Global: fail(s, "unsupported statement: global");
      case py::StmtKind::Nonlocal: fail(s, "unsupported statement: nonlocal");
      case py::StmtKind::Import: case py::StmtKind::ImportFrom: fail(s, "imports are not supported in @jit functions");
      case py::StmtKind::Match: fail(s, "unsupported statement: match");
      default: fail(s, "unsupported statement");
    }
  }
  return atTail ? Flow{true, Val::none()} : Flow{};
}

}  // namespace tessera::frontend
