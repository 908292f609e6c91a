//===- CodeGenExpr.cpp - Expressions ---------------------------------------===//
//
// Evaluates Python expressions to Vals. Constexpr operands fold in Python
// semantics (ConstFold.cpp); tensor operands go through the semantic layer.
// Name lookup order: locals, module globals, Python builtins (as in Triton).
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cmath>

#include "CodeGen.h"

namespace tessera::frontend {

using py::ExprKind;

/// The error for using opaque global `v` (named `id`) in a kernel.
static std::string opaqueUse(const Val& v, const std::string& id) {
  if (v.b) return v.s;
  if (v.s.rfind("global variable", 0) == 0)
    return "cannot access global variable '" + id +
           "' from within a @jit function: only constexpr globals (e.g. `" + id +
           " = tl.constexpr(...)`, ints, floats, bools, strings, dtypes) can be used";
  return v.s + " cannot be used inside a @jit function";
}

/// A private prelude function (tl_prelude.py), as a method to bind.
static Val preludeMethod(const std::string& name) {
  const SourceProgram& p = preludeProgram();
  const JitFunction* fn = p.find(name);
  if (!fn) throw std::logic_error("the prelude lacks " + name);
  return Val::func(FuncRef{&p, fn});
}

Val CodeGen::lookupName(const std::string& id, const py::Node& at) {
  if (!frames_.empty()) {
    auto& locals = frame().locals;
    if (auto it = locals.find(id); it != locals.end()) return it->second;
    if (std::optional<Val> v = frame().program->globals().lookup(id)) {
      if (v->kind == Val::Kind::Opaque) fail(at, opaqueUse(*v, id));
      return *v;
    }
  }
  if (auto v = pythonBuiltin(id)) return *v;
  fail(at, "name '" + id + "' is not defined");
}

Val CodeGen::getAttr(const Val& v, const std::string& attr, const py::Node& at) {
  if (v.st) return structAttr(v, attr, at);  // an aggregate or namedtuple object or class
  switch (v.kind) {
    case Val::Kind::Module: {
      std::optional<Val> r = v.fn.program->globals().lookup(attr);
      if (!r) fail(at, "module '" + v.s + "' has no attribute '" + attr + "'");
      if (r->kind == Val::Kind::Opaque) fail(at, opaqueUse(*r, v.s + "." + attr));
      return *r;
    }
    case Val::Kind::Namespace: {
      if (auto r = namespaceAttr(v.s, attr)) {
        if (r->kind == Val::Kind::Opaque) fail(at, r->s + " cannot be used inside a @jit function");
        return *r;
      }
      if (v.s == "tl" || v.s == "math") fail(at, (v.s == "tl" ? "tl." : "tl.math.") + attr + " is not a Triton language function");
      if (v.s == "libdevice") fail(at, "libdevice." + attr + " is not a libdevice function");
      fail(at, "module '" + v.s + "' has no attribute '" + attr + "'");
    }
    case Val::Kind::Tensor: {
      if (attr == "dtype") return Val::dtypeOf(v.dtype);
      if (attr == "type") return Val::dtypeOf(v.dtype);
      if (attr == "shape") {
        std::vector<Val> dims;
        for (int64_t d : v.shape) dims.push_back(Val::integer(BigInt(d)));
        return Val::tuple(std::move(dims));
      }
      if (attr == "numel") return Val::integer(BigInt(v.numel()));
      if (attr == "ndim") return Val::integer(BigInt(static_cast<int64_t>(v.shape.size())));
      if (attr == "T") {
        if (v.shape.size() != 2) fail(at, "x.T requires a 2-D tensor, got shape " + shapeToString(v.shape));
        return permute(v, {1, 0});
      }
      Val m;
      if (attr == "to") m = Val::builtin("tl.cast");
      else if (attr == "item") m = Val::builtin("tl._item");
      else if (auto r = namespaceAttr("tl", attr); r && (r->kind == Val::Kind::Builtin || r->kind == Val::Kind::Func))
        m = *r;
      else
        fail(at, "tensor has no attribute '" + attr + "'");
      m.self = std::make_shared<Val>(v);
      return m;
    }
    case Val::Kind::TensorDesc: {
      if (attr == "dtype") return Val::dtypeOf(v.dtype);
      if (attr == "block_shape" || attr == "shape") {
        std::vector<Val> dims;
        for (int64_t d : v.shape) dims.push_back(Val::integer(BigInt(d)));
        return attr == "shape" ? v.elems[1] : Val::tuple(std::move(dims));
      }
      if (attr == "strides") return v.elems[2];
      if (attr == "base") return v.elems[0];
      if (attr == "round_f32_to_tf32") return Val::boolean(v.s.find(kRoundTf32) != std::string::npos);
      if (attr == "padding") {
        std::string padding = v.s.substr(0, v.s.find(kRoundTf32));
        return Val::str(padding.empty() ? "zero" : padding);
      }
      Val m;
      if (attr == "load") m = Val::builtin("tl.load_tensor_descriptor");
      else if (attr == "store") m = Val::builtin("tl.store_tensor_descriptor");
      else if (attr == "gather" || attr == "scatter" || attr == "atomic_add" || attr == "atomic_min" ||
               attr == "atomic_max" || attr == "atomic_and" || attr == "atomic_or" || attr == "atomic_xor")
        m = preludeMethod("_desc_" + attr);  // tl_prelude.py
      else fail(at, "tensor_descriptor has no attribute '" + attr + "'");
      m.self = std::make_shared<Val>(v);
      return m;
    }
    case Val::Kind::DType: {
      const DType& t = v.dtype;
      if (attr == "element_ty") return t.isPtr() ? Val::dtypeOf(t.pointee()) : v;
      // A dtype passed to a @jit function is a constexpr there in Triton,
      // and `.value` unwraps it (FlagGems' dtype helpers).
      if (attr == "scalar" || attr == "value") return v;
      if (attr == "primitive_bitwidth") return Val::integer(BigInt(static_cast<int64_t>(t.bitwidth())));
      if (attr == "int_bitwidth") return Val::integer(BigInt(static_cast<int64_t>(t.isInt() ? t.bitwidth() : 0)));
      if (attr == "fp_mantissa_width") return Val::integer(BigInt(static_cast<int64_t>(t.mantissaBits())));
      if (attr == "name") return Val::str(t.name());
      if (attr == "shape") {
        std::vector<Val> dims;
        for (int64_t d : t.blockShape()) dims.push_back(Val::integer(BigInt(d)));
        return Val::tuple(std::move(dims));
      }
      if (findBuiltin("dtype." + attr)) {
        Val m = Val::builtin("dtype." + attr);
        m.self = std::make_shared<Val>(v);
        return m;
      }
      fail(at, "dtype has no attribute '" + attr + "'");
    }
    case Val::Kind::Str:
      if (attr == "value") return v;
      // A dtype passed from the host arrives as the string naming it; it has
      // the attributes and methods of the dtype object.
      if (auto t = DType::fromName(v.s)) return getAttr(Val::dtypeOf(*t), attr, at);
      break;
    case Val::Kind::Int: case Val::Kind::Float: case Val::Kind::Bool:
      if (attr == "value") return v;
      // Triton makes a number assigned to a local a scalar tensor
      // (`t = float("-inf"); t.to(tl.float32)`); Tessera keeps it constexpr
      // and gives it the tensor's attributes and methods on first use.
      if (attr == "to" || attr == "dtype" || attr == "type" || attr == "shape" || attr == "numel" ||
          attr == "ndim" || namespaceAttr("tl", attr))
        return getAttr(toTensor(v), attr, at);
      break;
    case Val::Kind::None:
      if (attr == "value") return v;
      break;
    default: break;
  }
  // Triton unwraps a constexpr for any other attribute: Python's own
  // attributes and methods of the value (`D.bit_length()`, `ACT.upper()`),
  // run on the host at compile time.
  if (!frames_.empty() && (v.kind == Val::Kind::Int || v.kind == Val::Kind::Float || v.kind == Val::Kind::Bool ||
                           v.kind == Val::Kind::Str || v.kind == Val::Kind::Tuple))
    if (std::optional<Val> r = frame().program->globals().constexprAttr(v, attr)) return *r;
  fail(at, "'" + v.typeName() + "' object has no attribute '" + attr + "'");
}

/// Python's operator methods of `op` (and their reflected forms).
static std::pair<const char*, const char*> operatorMethods(py::BinOpKind op) {
  using B = py::BinOpKind;
  switch (op) {
    case B::Add: return {"__add__", "__radd__"};
    case B::Sub: return {"__sub__", "__rsub__"};
    case B::Mult: return {"__mul__", "__rmul__"};
    case B::Div: return {"__truediv__", "__rtruediv__"};
    case B::FloorDiv: return {"__floordiv__", "__rfloordiv__"};
    case B::Mod: return {"__mod__", "__rmod__"};
    case B::Pow: return {"__pow__", "__rpow__"};
    case B::MatMult: return {"__matmul__", "__rmatmul__"};
    case B::LShift: return {"__lshift__", "__rlshift__"};
    case B::RShift: return {"__rshift__", "__rrshift__"};
    case B::BitAnd: return {"__and__", "__rand__"};
    case B::BitOr: return {"__or__", "__ror__"};
    case B::BitXor: return {"__xor__", "__rxor__"};
  }
  return {nullptr, nullptr};
}

static std::pair<const char*, const char*> operatorMethods(py::CmpOpKind op) {
  using C = py::CmpOpKind;
  switch (op) {
    case C::Eq: return {"__eq__", "__eq__"};
    case C::NotEq: return {"__ne__", "__ne__"};
    case C::Lt: return {"__lt__", "__gt__"};
    case C::LtE: return {"__le__", "__ge__"};
    case C::Gt: return {"__gt__", "__lt__"};
    case C::GtE: return {"__ge__", "__le__"};
    default: return {nullptr, nullptr};
  }
}

static bool isAggregate(const Val& v) { return v.isTuple() && v.st && v.st->aggregate; }

Val CodeGen::binary(py::BinOpKind op, const Val& a, const Val& b) {
  if ((a.isTuple() && a.st) || (b.isTuple() && b.st)) {
    auto [name, reflected] = operatorMethods(op);
    if (auto r = structOperator(name, reflected, a, b)) return *r;
    if (isAggregate(a) || isAggregate(b))
      fail(std::string("unsupported operand types for ") + py::spelling(op) + ": " + a.typeName() + " and " +
           b.typeName() + " (the class defines no " + name + ")");
  }
  if (a.isConstexpr() && b.isConstexpr()) return foldBinary(op, a, b);
  if (op == py::BinOpKind::MatMult) fail("the @ operator is not supported; use tl.dot");
  if (op == py::BinOpKind::Pow) fail("the ** operator is only supported between constexprs; use libdevice.pow for tensors");
  if (a.isTuple() || b.isTuple()) {
    if (a.isTuple() && b.isTuple() && op == py::BinOpKind::Add) return foldBinary(op, a, b);
    fail(std::string("unsupported operand types for ") + py::spelling(op) + ": " + a.typeName() + " and " + b.typeName());
  }
  return arith(op, a, b);
}

Val CodeGen::compare(py::CmpOpKind op, const Val& a, const Val& b) {
  using C = py::CmpOpKind;
  if (op == C::Is || op == C::IsNot) {
    // `x is None` on a tensor: a tensor is never None.
    if (!a.isConstexpr() || !b.isConstexpr()) {
      bool same = a.isTensor() && b.isTensor() && a.value == b.value;
      return Val::boolean(op == C::Is ? same : !same);
    }
    return foldCompare(op, a, b);
  }
  if ((a.isTuple() && a.st) || (b.isTuple() && b.st)) {
    auto [name, reflected] = operatorMethods(op);
    if (auto r = structOperator(name, reflected, a, b)) return *r;
    if ((isAggregate(a) || isAggregate(b)) && name)
      fail(std::string("unsupported operand types for ") + py::spelling(op) + ": " + a.typeName() + " and " +
           b.typeName() + " (the class defines no " + name + ")");
  }
  if (a.isConstexpr() && b.isConstexpr()) return foldCompare(op, a, b);
  if (op == C::In || op == C::NotIn) fail("'in' is only supported between constexprs");
  return cmp(op, a, b);
}

Val CodeGen::unary(py::UnaryOpKind op, const Val& a) {
  using U = py::UnaryOpKind;
  if (a.isTuple() && a.st && op != U::Not) {
    const char* name = op == U::USub ? "__neg__" : op == U::UAdd ? "__pos__" : "__invert__";
    if (auto r = structUnary(name, a)) return *r;
    fail(std::string("bad operand type for unary ") + py::spelling(op) + ": " + a.typeName() + " (the class defines no " +
         name + ")");
  }
  if (a.isConstexpr()) {
    if (op == U::Not) return Val::boolean(!a.truthy());
    if (a.kind == Val::Kind::Float) {
      if (op == U::USub) return Val::flt(-a.f);
      if (op == U::UAdd) return a;
      fail("bad operand type for unary ~: 'float'");
    }
    if (a.kind == Val::Kind::Int || a.kind == Val::Kind::Bool) {
      BigInt x = a.kind == Val::Kind::Bool ? BigInt(a.b ? 1 : 0) : a.i;
      if (op == U::USub) return Val::integer(-x);
      if (op == U::UAdd) return Val::integer(x);
      return Val::integer(~x);
    }
    fail(std::string("bad operand type for unary ") + py::spelling(op) + ": " + a.typeName());
  }
  if (a.isTuple()) fail(std::string("bad operand type for unary ") + py::spelling(op) + ": tuple");
  switch (op) {
    case U::Not: return logicalNot(a);
    case U::USub: return negate(a);
    case U::UAdd:
      if (a.dtype.isPtr()) fail("wrong type argument to unary plus (" + a.dtype.name() + ")");
      return a;
    case U::Invert: return invert(a);
  }
  return a;
}

Val CodeGen::condition(const Val& v) {
  if (v.isConstexpr()) {
    if (v.isTuple() || v.isNumber() || v.isNone() || v.kind == Val::Kind::Str) return Val::boolean(v.truthy());
    return Val::boolean(true);
  }
  if (v.isTuple()) fail("a tuple cannot be used as a condition");
  Val c = v;
  if (c.isBlock()) {
    if (c.numel() != 1)
      fail("boolean value of a tensor with more than one value is ambiguous (shape " + shapeToString(c.shape) + ")");
    c = reshape(c, {}, false);
  }
  if (!c.dtype.isInt1()) c = cast(c, ScalarKind::I1);
  return c;
}

namespace {

std::string formatConst(CodeGen& cg, const Val& v, const py::Expr* spec) {
  std::string s = v.kind == Val::Kind::Str ? v.s : v.repr();
  (void)spec;
  (void)cg;
  return s;
}

}  // namespace

Val CodeGen::eval(const py::Expr& e) {
  CurrentNodeGuard guard(*this, &e);
  NestingGuard nest(*this, e);
  try {
    return evalNode(e);
  } catch (const BigIntError& err) {
    // Constexpr integers are bounded (BigInt::kMaxBits); whatever operation
    // overflowed, report it at the innermost expression being evaluated.
    fail(err.what());
  }
}

Val CodeGen::evalNode(const py::Expr& e) {
  switch (e.kind) {
    case ExprKind::Constant: {
      auto& c = *e.as<py::Constant>();
      switch (c.type) {
        case py::Constant::Type::None: return Val::none();
        case py::Constant::Type::Bool: return Val::boolean(c.boolValue);
        case py::Constant::Type::Int:
          if (c.bigInt) {
            auto v = BigInt::fromDecimal(*c.bigInt);
            if (!v) fail("integer literal too large");
            return Val::integer(*v);
          }
          return Val::integer(BigInt(c.intValue));
        case py::Constant::Type::Float: return Val::flt(c.floatValue);
        case py::Constant::Type::Str: return Val::str(c.strValue);
        case py::Constant::Type::Ellipsis: return Val::opaque("Ellipsis");
        default: fail("unsupported constant (complex and bytes literals are not supported)");
      }
    }
    case ExprKind::Name: return lookupName(e.as<py::Name>()->id, e);
    case ExprKind::Attribute: {
      auto& a = *e.as<py::Attribute>();
      // `Ops.double(x)`, `language.Sum.forward(...)`: a function (or
      // constant) of a module-level class used as a namespace; each part of
      // the chain is evaluated once.
      auto classAttr = [&](const SourceProgram& program, const std::string& cls) -> std::optional<Val> {
        std::optional<Val> r = program.globals().lookupClassAttr(cls, a.attr);
        if (r && r->kind == Val::Kind::Opaque) fail(e, opaqueUse(*r, cls + "." + a.attr));
        return r;
      };
      if (auto* n = a.value->as<py::Name>(); n && !frames_.empty() && !frame().locals.count(n->id))
        if (std::optional<Val> r = classAttr(*frame().program, n->id)) return *r;
      if (auto* inner = a.value->as<py::Attribute>()) {
        Val owner = eval(*inner->value);
        if (owner.kind == Val::Kind::Module)
          if (std::optional<Val> r = classAttr(*owner.fn.program, inner->attr)) return *r;
        return getAttr(getAttr(owner, inner->attr, *a.value), a.attr, e);
      }
      return getAttr(eval(*a.value), a.attr, e);
    }
    case ExprKind::BinOp: {
      auto& b = *e.as<py::BinOp>();
      Val l = eval(*b.left);
      Val r = eval(*b.right);
      return binary(b.op, l, r);
    }
    case ExprKind::UnaryOp: {
      auto& u = *e.as<py::UnaryOp>();
      return unary(u.op, eval(*u.operand));
    }
    case ExprKind::BoolOp: {
      auto& bo = *e.as<py::BoolOp>();
      // As Triton: operands in order; a constexpr that decides the result
      // (false for `and`, true for `or`) is the result, wherever it stands
      // (`i == last and RETURN_STATE` with RETURN_STATE false is False, so
      // the branch is never generated); other constexprs drop out; the
      // runtime operands are combined. All constexprs: the last one.
      bool isAnd = bo.op == py::BoolOpKind::And;
      Val last;
      std::vector<Val> runtime;
      for (const auto& operand : bo.values) {
        last = eval(*operand);
        if (!last.isConstexpr()) {
          runtime.push_back(last);
          continue;
        }
        if (isAnd ? !last.truthy() : last.truthy()) return last;
      }
      if (runtime.empty()) return last;
      Val acc = runtime[0];
      for (size_t k = 1; k < runtime.size(); ++k) acc = logicalAndOr(isAnd, acc, runtime[k]);
      return acc;
    }
    case ExprKind::Compare: {
      // a < b < c is (a < b) and (b < c), b evaluated once (Python, and
      // Triton from 3.9): a constexpr false stops the chain; tensors are
      // combined as `and` combines them.
      auto& c = *e.as<py::Compare>();
      Val l = eval(*c.left);
      Val acc;
      for (size_t k = 0; k < c.ops.size(); ++k) {
        if (k > 0 && acc.isConstexpr() && !acc.truthy()) return acc;
        Val r = eval(*c.comparators[k]);
        Val cmp = compare(c.ops[k], l, r);
        acc = k == 0 || acc.isConstexpr() ? cmp : logicalAndOr(true, acc, cmp);
        l = r;
      }
      return acc;
    }
    case ExprKind::IfExp: {
      auto& ie = *e.as<py::IfExp>();
      Val cond;
      {
        CurrentNodeGuard g2(*this, ie.test.get());
        Val test = eval(*ie.test);
        if (auto c = elementwiseCondition(test)) {  // map_elementwise: select per element
          Val tv = underBranch(*c, [&] { return eval(*ie.body); });
          Val ev = underBranch(logicalNot(*c), [&] { return eval(*ie.orelse); });
          return selectMerge(*c, tv, ev, "the conditional expression");
        }
        cond = condition(test);
      }
      if (cond.isConstexpr()) return eval(cond.truthy() ? *ie.body : *ie.orelse);
      return runtimeTernary(cond, *ie.body, *ie.orelse);
    }
    case ExprKind::Call: return evalCall(*e.as<py::Call>());
    case ExprKind::Subscript: {
      auto& s = *e.as<py::Subscript>();
      Val base = eval(*s.value);
      Val idx = eval(*s.slice);
      return subscriptVal(base, idx);
    }
    case ExprKind::Tuple: case ExprKind::List: {
      const py::ExprList& elts = e.kind == ExprKind::Tuple ? e.as<py::Tuple>()->elts : e.as<py::List>()->elts;
      std::vector<Val> out;
      for (const auto& x : elts) {
        if (auto* st = x->as<py::Starred>()) {
          Val t = eval(*st->value);
          if (!t.isTuple()) fail(*x, "only tuples can be unpacked with *");
          out.insert(out.end(), t.elems.begin(), t.elems.end());
        } else {
          out.push_back(eval(*x));
        }
      }
      return Val::tuple(std::move(out));
    }
    case ExprKind::Slice: {
      auto& s = *e.as<py::Slice>();
      Val r;
      r.kind = Val::Kind::Slice;
      r.elems = {s.lower ? eval(*s.lower) : Val::none(), s.upper ? eval(*s.upper) : Val::none(),
                 s.step ? eval(*s.step) : Val::none()};
      return r;
    }
    case ExprKind::JoinedStr: {
      std::string out;
      for (const auto& part : e.as<py::JoinedStr>()->values) {
        if (auto* c = part->as<py::Constant>()) {
          out += c->strValue;
          continue;
        }
        auto* fv = part->as<py::FormattedValue>();
        if (!fv) fail(*part, "unsupported f-string part");
        Val v = eval(*fv->value);
        if (!v.isConstexpr()) fail(*fv->value, "cannot evaluate f-string containing non-constexpr conversion values");
        out += formatConst(*this, v, fv->formatSpec.get());
      }
      return Val::str(out);
    }
    case ExprKind::Dict: {
      if (!hostMode()) fail("dict literals are not supported in @jit functions");
      auto& d = *e.as<py::Dict>();
      Val r;
      r.kind = Val::Kind::Dict;
      for (size_t k = 0; k < d.keys.size(); ++k) {
        if (!d.keys[k]) fail("** in dict literals is not supported");
        Val key = eval(*d.keys[k]);
        if (key.kind != Val::Kind::Str) fail(*d.keys[k], "dict keys must be strings");
        r.keys.push_back(key.s);
        r.elems.push_back(eval(*d.values[k]));
      }
      return r;
    }
    case ExprKind::Starred: fail("starred expressions are only supported in calls and tuples");
    case ExprKind::Lambda: fail("lambda expressions are not supported in @jit functions");
    case ExprKind::ListComp: case ExprKind::GeneratorExp: {
      // Triton's tuple comprehension (3.9): unrolled at compile time into a
      // tuple; its names do not leak out of it, as in Python.
      const py::Expr& elt = e.kind == ExprKind::ListComp ? *e.as<py::ListComp>()->elt : *e.as<py::GeneratorExp>()->elt;
      const auto& gens =
          e.kind == ExprKind::ListComp ? e.as<py::ListComp>()->generators : e.as<py::GeneratorExp>()->generators;
      auto saved = frame().locals;
      std::vector<Val> out;
      comprehension(elt, gens, 0, out);
      frame().locals = std::move(saved);
      return Val::tuple(std::move(out));
    }
    case ExprKind::SetComp: case ExprKind::DictComp:
      fail("set and dict comprehensions are not supported in @jit functions (list and tuple ones are)");
    case ExprKind::NamedExpr: fail("assignment expressions (:=) are not supported in @jit functions");
    default: fail("unsupported expression in a @jit function");
  }
}

Val CodeGen::subscriptVal(const Val& base, const Val& idx) {
  if (base.kind == Val::Kind::Dict) {
    if (idx.kind != Val::Kind::Str) fail("dict keys must be strings");
    for (size_t k = 0; k < base.keys.size(); ++k)
      if (base.keys[k] == idx.s) return base.elems[k];
    fail("key '" + idx.s + "' is not defined");
  }
  if (base.isTuple() && base.st) {  // an aggregate's __getitem__ (a namedtuple indexes as a tuple)
    const Val* m = base.st->member("__getitem__");
    if (m && m->kind == Val::Kind::Func) return callJit(m->fn, {base, idx}, {});
    if (base.st->aggregate) fail("'" + base.st->name + "' object is not subscriptable (the class defines no __getitem__)");
  }
  if (base.isTuple()) {
    if (idx.kind == Val::Kind::Slice) {
      int64_t n = static_cast<int64_t>(base.elems.size());
      int64_t step = idx.elems[2].isNone() ? 1 : constInt(idx.elems[2], "slice step");
      if (step == 0) fail("slice step cannot be zero");
      auto bound = [&](const Val& v, int64_t dflt) {
        if (v.isNone()) return dflt;
        int64_t x = constInt(v, "slice index");
        if (x < 0) x += n;
        return std::clamp<int64_t>(x, step > 0 ? 0 : -1, step > 0 ? n : n - 1);
      };
      int64_t lo = bound(idx.elems[0], step > 0 ? 0 : n - 1), hi = bound(idx.elems[1], step > 0 ? n : -1);
      std::vector<Val> out;
      for (int64_t k = lo; step > 0 ? k < hi : k > hi; k += step) out.push_back(base.elems[k]);
      return Val::tuple(std::move(out));
    }
    int64_t n = static_cast<int64_t>(base.elems.size());
    int64_t k = constInt(idx, "tuple index");
    if (k < -n || k >= n) fail("tuple index " + std::to_string(k) + " out of range (size " + std::to_string(n) + ")");
    return base.elems[k < 0 ? k + n : k];
  }
  if (base.isTensor() || base.isNumber()) {
    // A number bound to a local is a scalar tensor in Triton (`x = 0.0;
    // x[None]`).
    std::vector<Val> parts = idx.isTuple() ? idx.elems : std::vector<Val>{idx};
    return subscript(toTensor(base), parts);
  }
  fail("'" + base.typeName() + "' object is not subscriptable");
}

/// The elements of a comprehension from generator `i` on: each value its
/// iterable gives (a tuple's elements, or a range with constexpr bounds,
/// unrolled), bound to its target, kept when its `if`s (constexprs) hold.
void CodeGen::comprehension(const py::Expr& elt, const std::vector<py::Comprehension>& gens, size_t i,
                            std::vector<Val>& out) {
  if (i == gens.size()) {
    out.push_back(eval(elt));
    return;
  }
  const py::Comprehension& gen = gens[i];
  if (gen.isAsync) fail(*gen.iter, "async comprehensions are not supported");
  std::vector<Val> items;
  const auto* call = gen.iter->as<py::Call>();
  Val fn = call ? eval(*call->func) : Val::none();
  if (fn.kind == Val::Kind::Builtin && (fn.s == "py.range" || fn.s == "tl.range" || fn.s == "tl.static_range")) {
    CurrentNodeGuard guard(*this, call);
    if (call->args.empty() || call->args.size() > 3 || !call->keywords.empty())
      fail("a comprehension's range takes 1 to 3 positional constexpr bounds");
    std::vector<int64_t> b;
    for (const auto& a : call->args) b.push_back(constInt(eval(*a), "a comprehension's range bound"));
    int64_t start = b.size() > 1 ? b[0] : 0, stop = b.size() > 1 ? b[1] : b[0], step = b.size() > 2 ? b[2] : 1;
    if (step == 0) fail("a comprehension's range step must not be zero");
    // In 128 bits: the span of two int64 bounds may overflow int64.
    __int128 span = step > 0 ? __int128{stop} - start : __int128{start} - stop;
    __int128 stride = step > 0 ? __int128{step} : -__int128{step};
    __int128 count = span > 0 ? (span + stride - 1) / stride : 0;
    if (count > staticIterationsLeft) fail("a comprehension unrolls too many elements (more than 65536 in all)");
    staticIterationsLeft -= static_cast<int64_t>(count);
    for (__int128 k = 0; k < count; ++k) items.push_back(Val::integer(BigInt(static_cast<int64_t>(start + k * step))));
  } else {
    Val it = eval(*gen.iter);
    if (!it.isTuple())
      fail(*gen.iter, "a comprehension iterates over a tuple or a range with constexpr bounds, got " + it.typeName());
    items = it.elems;
  }
  for (const Val& item : items) {
    assign(*gen.target, item);
    bool keep = true;
    for (const auto& cond : gen.ifs) {
      Val c = eval(*cond);
      if (!c.isConstexpr()) fail(*cond, "a comprehension's `if` must be a constexpr condition");
      if (!c.truthy()) {
        keep = false;
        break;
      }
    }
    if (keep) comprehension(elt, gens, i + 1, out);
  }
}

}  // namespace tessera::frontend
