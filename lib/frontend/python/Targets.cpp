//===- Targets.cpp - Assignment and deletion targets ------------*- C++ -*-===//
//
// The parser reads the left side of `=`, `for ... in`, `with ... as`, `del`
// and `:=` as an ordinary expression and then checks here that it is a valid
// target, switching its context to Store or Del. Invalid targets get
// CPython's messages ("cannot assign to function call", "'tuple' is an
// illegal expression for augmented assignment", ...).
//
//===----------------------------------------------------------------------===//

#include "frontend/python/Parser.h"

namespace tessera::py {

const char* exprDescription(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Attribute: return "attribute";
    case ExprKind::Subscript: return "subscript";
    case ExprKind::Starred: return "starred";
    case ExprKind::Name: return "name";
    case ExprKind::List: return "list";
    case ExprKind::Tuple: return "tuple";
    case ExprKind::Lambda: return "lambda";
    case ExprKind::Call: return "function call";
    case ExprKind::BoolOp:
    case ExprKind::BinOp:
    case ExprKind::UnaryOp: return "expression";
    case ExprKind::GeneratorExp: return "generator expression";
    case ExprKind::Yield:
    case ExprKind::YieldFrom: return "yield expression";
    case ExprKind::Await: return "await expression";
    case ExprKind::ListComp: return "list comprehension";
    case ExprKind::SetComp: return "set comprehension";
    case ExprKind::DictComp: return "dict comprehension";
    case ExprKind::Dict: return "dict literal";
    case ExprKind::Set: return "set display";
    case ExprKind::JoinedStr:
    case ExprKind::FormattedValue: return "f-string expression";
    case ExprKind::Constant: {
      const auto& c = static_cast<const Constant&>(e);
      if (c.type == Constant::Type::None) return "None";
      if (c.type == Constant::Type::Bool) return c.boolValue ? "True" : "False";
      if (c.type == Constant::Type::Ellipsis) return "ellipsis";
      return "literal";
    }
    case ExprKind::Compare: return "comparison";
    case ExprKind::IfExp: return "conditional expression";
    case ExprKind::NamedExpr: return "named expression";
    case ExprKind::Slice: return "slice";
  }
  return "expression";
}

namespace {
/// Sets the context of a valid target tree; returns the first invalid node.
const Expr* applyContext(Expr& e, ExprContext ctx, bool allowNested, int* starCount) {
  switch (e.kind) {
    case ExprKind::Name: static_cast<Name&>(e).ctx = ctx; return nullptr;
    case ExprKind::Attribute: static_cast<Attribute&>(e).ctx = ctx; return nullptr;
    case ExprKind::Subscript: static_cast<Subscript&>(e).ctx = ctx; return nullptr;
    case ExprKind::Starred: {
      auto& s = static_cast<Starred&>(e);
      s.ctx = ctx;
      if (starCount) ++*starCount;
      return applyContext(*s.value, ctx, allowNested, nullptr);
    }
    case ExprKind::Tuple:
    case ExprKind::List: {
      if (!allowNested) return &e;
      ExprList& elts = e.kind == ExprKind::Tuple ? static_cast<Tuple&>(e).elts : static_cast<List&>(e).elts;
      if (e.kind == ExprKind::Tuple) static_cast<Tuple&>(e).ctx = ctx;
      else static_cast<List&>(e).ctx = ctx;
      int stars = 0;
      for (ExprPtr& x : elts) {
        if (const Expr* bad = applyContext(*x, ctx, true, &stars)) return bad;
      }
      if (stars > 1 && ctx == ExprContext::Store) return &e;  // reported by the caller
      return nullptr;
    }
    default: return &e;
  }
}

int countStars(const Expr& e) {
  const ExprList* elts = nullptr;
  if (auto* t = e.as<Tuple>()) elts = &t->elts;
  if (auto* l = e.as<List>()) elts = &l->elts;
  if (!elts) return 0;
  int n = 0;
  for (const ExprPtr& x : *elts) n += x->kind == ExprKind::Starred;
  return n;
}
}  // namespace

void Parser::setStore(Expr& e, TargetUse use, bool singleAssign) {
  if (use == TargetUse::AugAssign) {
    if (e.kind == ExprKind::Name || e.kind == ExprKind::Attribute || e.kind == ExprKind::Subscript) {
      applyContext(e, ExprContext::Store, false, nullptr);
      return;
    }
    error(e, std::string("'") + exprDescription(e) + "' is an illegal expression for augmented assignment");
  }
  if (e.kind == ExprKind::Starred && use != TargetUse::Comprehension && use != TargetUse::For)
    error(e, "starred assignment target must be in a list or tuple");
  if (e.kind == ExprKind::Yield || e.kind == ExprKind::YieldFrom) {
    if (use == TargetUse::Assign) error(e, "assignment to yield expression not possible");
  }
  const Expr* bad = applyContext(e, ExprContext::Store, true, nullptr);
  if (!bad) return;
  if (bad->kind == ExprKind::Tuple || bad->kind == ExprKind::List) {
    if (countStars(*bad) > 1) error(*bad, "multiple starred expressions in assignment");
  }
  std::string what = exprDescription(*bad);
  if (bad->kind == ExprKind::Constant && (what == "None" || what == "True" || what == "False"))
    error(*bad, "cannot assign to " + what);
  if (use == TargetUse::Assign && singleAssign && bad == &e && e.kind != ExprKind::Constant &&
      e.kind != ExprKind::Yield && e.kind != ExprKind::YieldFrom) {
    error(*bad, "cannot assign to " + what + " here. Maybe you meant '==' instead of '='?");
  }
  error(*bad, "cannot assign to " + what);
}

void Parser::setDelete(Expr& e) {
  const Expr* bad = applyContext(e, ExprContext::Del, true, nullptr);
  if (!bad && e.kind == ExprKind::Starred) bad = &e;
  if (!bad) {
    // `del (*a,)` is not valid either.
    if (auto* t = e.as<Tuple>())
      for (auto& x : t->elts)
        if (x->kind == ExprKind::Starred) error(*x, "cannot delete starred");
    if (auto* l = e.as<List>())
      for (auto& x : l->elts)
        if (x->kind == ExprKind::Starred) error(*x, "cannot delete starred");
    return;
  }
  error(*bad, std::string("cannot delete ") + exprDescription(*bad));
}

}  // namespace tessera::py
