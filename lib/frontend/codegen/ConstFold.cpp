//===- ConstFold.cpp - Python semantics for constexpr operators ------------===//
//
// Operators between two constexprs are evaluated exactly as Python would:
// ints are unbounded (BigInt), `//` and `%` floor, `/` is a float division,
// `**` with a negative exponent gives a float, bools act as ints, strings and
// tuples concatenate and repeat. Tensors never reach this file.
//
//===----------------------------------------------------------------------===//

#include <cmath>

#include "CodeGen.h"

namespace tessera::frontend {

namespace {

const char* pyTypeName(const Val& v) {
  switch (v.kind) {
    case Val::Kind::None: return "NoneType";
    case Val::Kind::Bool: return "bool";
    case Val::Kind::Int: return "int";
    case Val::Kind::Float: return "float";
    case Val::Kind::Str: return "str";
    case Val::Kind::Tuple: return "tuple";
    case Val::Kind::DType: return "dtype";
    default: return "object";
  }
}

BigInt asBig(const Val& v) { return v.kind == Val::Kind::Bool ? BigInt(v.b ? 1 : 0) : v.i; }
double asDouble(const Val& v) {
  return v.kind == Val::Kind::Float ? v.f : v.kind == Val::Kind::Bool ? (v.b ? 1.0 : 0.0) : v.i.toDouble();
}
bool isIntLike(const Val& v) { return v.kind == Val::Kind::Int || v.kind == Val::Kind::Bool; }

double pyFloorMod(double a, double b) {
  double m = std::fmod(a, b);
  if (m != 0 && ((m < 0) != (b < 0))) m += b;
  return m;
}

}  // namespace

Val CodeGen::foldBinary(py::BinOpKind op, const Val& a, const Val& b) {
  using K = py::BinOpKind;
  auto unsupported = [&]() -> Val {
    fail(std::string("unsupported operand type(s) for ") + py::spelling(op) + ": '" + pyTypeName(a) + "' and '" +
         pyTypeName(b) + "'");
  };
  try {
    if (a.isTuple() && b.isTuple() && op == K::Add) {
      std::vector<Val> e = a.elems;
      e.insert(e.end(), b.elems.begin(), b.elems.end());
      return Val::tuple(std::move(e));
    }
    if ((a.isTuple() || a.kind == Val::Kind::Str) && isIntLike(b) && op == K::Mult) {
      BigInt count = asBig(b);
      if (count > BigInt(100000)) fail("sequence repetition too large");
      int64_t n = std::max<int64_t>(0, count.toInt64());
      if (n * static_cast<int64_t>(std::max<size_t>(1, a.isTuple() ? a.elems.size() : a.s.size())) > 100000)
        fail("sequence repetition too large");
      Val r = a;
      r.st = nullptr;  // a namedtuple repeated is a plain tuple, as in Python
      r.elems.clear();
      r.s.clear();
      for (int64_t k = 0; k < n; ++k) {
        r.elems.insert(r.elems.end(), a.elems.begin(), a.elems.end());
        r.s += a.s;
      }
      return r;
    }
    if (a.kind == Val::Kind::Str && b.kind == Val::Kind::Str && op == K::Add) return Val::str(a.s + b.s);
    if (!a.isNumber() || !b.isNumber()) return unsupported();
    if (isIntLike(a) && isIntLike(b)) {
      BigInt x = asBig(a), y = asBig(b);
      switch (op) {
        case K::Add: return Val::integer(x + y);
        case K::Sub: return Val::integer(x - y);
        case K::Mult: return Val::integer(x * y);
        case K::FloorDiv: return Val::integer(BigInt::floorDiv(x, y));
        case K::Mod: return Val::integer(BigInt::floorMod(x, y));
        case K::Div:
          if (y.isZero()) fail("division by zero");
          return Val::flt(x.toDouble() / y.toDouble());
        case K::Pow:
          if (y.isNegative()) return Val::flt(std::pow(x.toDouble(), y.toDouble()));
          return Val::integer(BigInt::pow(x, y));
        case K::LShift:
          if (y.isNegative()) fail("negative shift count");
          if (y > BigInt(BigInt::kMaxBits)) throw BigIntError("integer too large");
          return Val::integer(x.shl(y.toInt64()));
        case K::RShift:
          if (y.isNegative()) fail("negative shift count");
          return Val::integer(y > BigInt(BigInt::kMaxBits) ? (x.isNegative() ? BigInt(-1) : BigInt()) : x.shr(y.toInt64()));
        case K::BitAnd:
          if (a.kind == Val::Kind::Bool && b.kind == Val::Kind::Bool) return Val::boolean(a.b && b.b);
          return Val::integer(BigInt::bitAnd(x, y));
        case K::BitOr:
          if (a.kind == Val::Kind::Bool && b.kind == Val::Kind::Bool) return Val::boolean(a.b || b.b);
          return Val::integer(BigInt::bitOr(x, y));
        case K::BitXor:
          if (a.kind == Val::Kind::Bool && b.kind == Val::Kind::Bool) return Val::boolean(a.b != b.b);
          return Val::integer(BigInt::bitXor(x, y));
        case K::MatMult: return unsupported();
      }
    }
    double x = asDouble(a), y = asDouble(b);
    switch (op) {
      case K::Add: return Val::flt(x + y);
      case K::Sub: return Val::flt(x - y);
      case K::Mult: return Val::flt(x * y);
      case K::Div:
        if (y == 0) fail("float division by zero");
        return Val::flt(x / y);
      case K::FloorDiv:
        if (y == 0) fail("float floor division by zero");
        return Val::flt(std::floor(x / y));
      case K::Mod:
        if (y == 0) fail("float modulo by zero");
        return Val::flt(pyFloorMod(x, y));
      case K::Pow: return Val::flt(std::pow(x, y));
      default: return unsupported();
    }
  } catch (const BigIntError& e) {
    fail(e.what());
  }
}

Val CodeGen::foldCompare(py::CmpOpKind op, const Val& a, const Val& b) {
  using C = py::CmpOpKind;
  if (op == C::Is || op == C::IsNot) {
    bool same = a.kind == b.kind || (a.kind == Val::Kind::DType && b.kind == Val::Kind::Str) ||
                (a.kind == Val::Kind::Str && b.kind == Val::Kind::DType);
    same = same && a.sameConst(b);
    return Val::boolean(op == C::Is ? same : !same);
  }
  if (op == C::In || op == C::NotIn) {
    bool found = false;
    if (b.isTuple()) {
      for (const auto& e : b.elems)
        if (e.isConstexpr() && e.sameConst(a)) found = true;
    } else if (b.kind == Val::Kind::Str && a.kind == Val::Kind::Str) {
      found = b.s.find(a.s) != std::string::npos;
    } else if (b.kind == Val::Kind::Dict && a.kind == Val::Kind::Str) {
      for (const auto& k : b.keys)
        if (k == a.s) found = true;
    } else {
      fail(std::string("argument of type '") + pyTypeName(b) + "' is not iterable");
    }
    return Val::boolean(op == C::In ? found : !found);
  }
  if (op == C::Eq || op == C::NotEq) {
    bool eq = a.sameConst(b);
    return Val::boolean(op == C::Eq ? eq : !eq);
  }
  int c = 0;
  if (a.isNumber() && b.isNumber()) {
    if (isIntLike(a) && isIntLike(b)) {
      c = asBig(a).compare(asBig(b));
    } else {
      double x = asDouble(a), y = asDouble(b);
      if (std::isnan(x) || std::isnan(y)) return Val::boolean(false);
      c = x < y ? -1 : x > y ? 1 : 0;
    }
  } else if (a.kind == Val::Kind::Str && b.kind == Val::Kind::Str) {
    c = a.s.compare(b.s);
    c = c < 0 ? -1 : c > 0 ? 1 : 0;
  } else {
    fail(std::string("'") + py::spelling(op) + "' not supported between instances of '" + pyTypeName(a) +
         "' and '" + pyTypeName(b) + "'");
  }
  switch (op) {
    case C::Lt: return Val::boolean(c < 0);
    case C::LtE: return Val::boolean(c <= 0);
    case C::Gt: return Val::boolean(c > 0);
    case C::GtE: return Val::boolean(c >= 0);
    default: return Val::boolean(false);
  }
}

}  // namespace tessera::frontend
