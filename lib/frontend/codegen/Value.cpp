//===- Value.cpp - What a name or expression evaluates to -----------------===//

#include "Value.h"

#include <cmath>
#include <cstdio>

#include "tessera/frontend/Frontend.h"

namespace tessera::frontend {

bool Val::isConstexpr() const {
  if (kind == Kind::Tensor || kind == Kind::TensorDesc) return false;
  if (kind == Kind::Tuple)
    for (const auto& e : elems)
      if (!e.isConstexpr()) return false;
  return true;
}

int64_t Val::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

bool Val::truthy() const {
  switch (kind) {
    case Kind::None: return false;
    case Kind::Bool: return b;
    case Kind::Int: return !i.isZero();
    case Kind::Float: return f != 0;
    case Kind::Str: return !s.empty();
    case Kind::Tuple: return !elems.empty();
    case Kind::Dict: return !keys.empty();
    default: return true;
  }
}

static std::string floatRepr(double f) {
  if (std::isnan(f)) return "nan";
  if (std::isinf(f)) return f < 0 ? "-inf" : "inf";
  char buf[64];
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, f);
    if (std::strtod(buf, nullptr) == f) break;
  }
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

std::string Val::repr() const {
  switch (kind) {
    case Kind::None: return "None";
    case Kind::Bool: return b ? "True" : "False";
    case Kind::Int: return i.toString();
    case Kind::Float: return floatRepr(f);
    case Kind::Str: return "'" + s + "'";
    case Kind::DType: return dtype.name();
    case Kind::Tuple: {
      if (st) {
        std::string r = st->name + "(";
        for (size_t k = 0; k < elems.size() && k < st->fields.size(); ++k)
          r += (k ? ", " : "") + st->fields[k] + "=" + elems[k].repr();
        return r + ")";
      }
      std::string r = "(";
      for (size_t k = 0; k < elems.size(); ++k) r += (k ? ", " : "") + elems[k].repr();
      if (elems.size() == 1) r += ",";
      return r + ")";
    }
    case Kind::Slice:
      return "slice(" + elems[0].repr() + ", " + elems[1].repr() + ", " + elems[2].repr() + ")";
    case Kind::Dict: return "{...}";
    case Kind::Func: return "<jit function " + (fn.fn ? fn.fn->name : std::string("?")) + ">";
    case Kind::Builtin: return "<builtin " + s + ">";
    case Kind::Namespace: case Kind::Module: return "<module " + s + ">";
    case Kind::Opaque: return s;
    case Kind::Class: return "<class " + st->name + ">";
    case Kind::Tensor: case Kind::TensorDesc: return typeName();
  }
  return "?";
}

std::string Val::typeName() const {
  if (kind == Kind::Tensor) {
    if (shape.empty()) return dtype.name();
    return dtype.name() + shapeToString(shape);
  }
  if (kind == Kind::TensorDesc) return "tensor_descriptor<" + dtype.name() + shapeToString(shape) + ">";
  if (kind == Kind::Tuple) {
    std::string r = st ? st->name + "(" : "tuple(";
    for (size_t k = 0; k < elems.size(); ++k) r += (k ? ", " : "") + elems[k].typeName();
    return r + ")";
  }
  return "constexpr[" + repr() + "]";
}

bool Val::sameConst(const Val& o) const {
  auto numeric = [](const Val& v) { return v.kind == Kind::Bool || v.kind == Kind::Int || v.kind == Kind::Float; };
  if (numeric(*this) && numeric(o)) {
    if (kind == Kind::Float || o.kind == Kind::Float) {
      double a = kind == Kind::Float ? f : kind == Kind::Bool ? b : i.toDouble();
      double c = o.kind == Kind::Float ? o.f : o.kind == Kind::Bool ? o.b : o.i.toDouble();
      return a == c;
    }
    BigInt a = kind == Kind::Bool ? BigInt(b) : i;
    BigInt c = o.kind == Kind::Bool ? BigInt(o.b) : o.i;
    return a == c;
  }
  // A dtype equals a string naming it (constexpr dtypes arrive as strings).
  if (kind == Kind::DType && o.kind == Kind::Str) {
    auto t = DType::fromName(o.s);
    return t && *t == dtype;
  }
  if (kind == Kind::Str && o.kind == Kind::DType) return o.sameConst(*this);
  if (kind != o.kind) return false;
  switch (kind) {
    case Kind::None: return true;
    case Kind::Str: case Kind::Builtin: case Kind::Namespace: case Kind::Opaque: case Kind::Module: return s == o.s;
    case Kind::DType: return dtype == o.dtype;
    case Kind::Class: return st == o.st;
    case Kind::Tuple: case Kind::Slice:  // (a namedtuple equals the plain tuple of its values, as in Python)
      if (elems.size() != o.elems.size()) return false;
      for (size_t k = 0; k < elems.size(); ++k)
        if (!elems[k].sameConst(o.elems[k])) return false;
      return true;
    case Kind::Func: return fn.fn == o.fn.fn;
    case Kind::Tensor: return value == o.value;
    default: return false;
  }
}

std::string toString(const ConstValue& v) {
  struct V {
    std::string operator()(std::monostate) const { return "None"; }
    std::string operator()(bool b) const { return b ? "True" : "False"; }
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return floatRepr(d); }
    std::string operator()(const std::string& s) const { return "'" + s + "'"; }
  };
  return std::visit(V{}, v);
}

}  // namespace tessera::frontend
