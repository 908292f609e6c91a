//===- Ops.cpp - Operators and subscripts of host Python ------------------===//
//
// Python's semantics for the operators host code uses: exact integers
// (floor division and modulo toward negative infinity, bounded width),
// floats, bools as ints, string/list/tuple concatenation and repetition,
// `%` formatting of strings, dict and set unions, lexicographic comparison
// of sequences and strings, version objects, `in`, `is`. An Opaque operand
// makes the result Opaque.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cmath>
#include <cstring>

#include "Interp.h"

namespace tessera::host {

namespace {

BigInt asInt(const Object& o) { return o.kind == Kind::Bool ? BigInt(o.b ? 1 : 0) : o.i; }
double asFloat(const Object& o) { return o.kind == Kind::Float ? o.f : asInt(o).toDouble(); }
bool isIntLike(const Object& o) { return o.kind == Kind::Int || o.kind == Kind::Bool; }

/// An operand whose value is unknown: an Opaque, or a name from a module
/// Tessera did not find (a Native with `b` set).
bool unknownValue(const Ref& v) { return v->kind == Kind::Opaque || (v->kind == Kind::Native && v->b); }

Ref firstOpaque(const Ref& a, const Ref& b) {
  if (unknownValue(a)) return a->kind == Kind::Opaque ? a : opaque(a->s + ", from a module Tessera did not find");
  if (b && unknownValue(b)) return b->kind == Kind::Opaque ? b : opaque(b->s + ", from a module Tessera did not find");
  return nullptr;
}

Ref repeat(Interp& in, const Ref& seq, const Object& n) {
  BigInt times = asInt(n);
  if (!times.fitsInt64()) in.raise("OverflowError", "cannot fit 'int' into an index-sized integer", in.here());
  int64_t k = std::max<int64_t>(0, times.toInt64());
  if ((seq->kind == Kind::Str ? seq->s.empty() : seq->items.empty()) || k == 0)
    return seq->kind == Kind::Str ? str("") : seq->kind == Kind::List ? list({}) : tuple({});
  if (seq->kind == Kind::Str) {
    in.checkSize(seq->s.size() * static_cast<size_t>(std::min<int64_t>(k, int64_t{1} << 23)), "str");
    std::string out;
    for (int64_t i = 0; i < k; ++i) out += seq->s;
    return str(std::move(out));
  }
  in.checkSize(seq->items.size() * static_cast<size_t>(std::min<int64_t>(k, int64_t{1} << 23)), "list");
  std::vector<Ref> out;
  for (int64_t i = 0; i < k; ++i) out.insert(out.end(), seq->items.begin(), seq->items.end());
  return seq->kind == Kind::List ? list(std::move(out)) : tuple(std::move(out));
}

/// `"%d items" % n`, `"%s-%s" % (a, b)`: the conversions d i s r f g x.
Ref percentFormat(Interp& in, const std::string& fmt, const Ref& args) {
  std::vector<Ref> values = args->kind == Kind::Tuple ? args->items : std::vector<Ref>{args};
  size_t next = 0;
  std::string out;
  for (size_t k = 0; k < fmt.size(); ++k) {
    if (fmt[k] != '%') { out += fmt[k]; continue; }
    size_t start = k++;
    while (k < fmt.size() && std::strchr("-+ #0123456789.", fmt[k])) ++k;
    if (k >= fmt.size()) in.raise("ValueError", "incomplete format", in.here());
    char conv = fmt[k];
    if (conv == '%') { out += '%'; continue; }
    if (next >= values.size()) in.raise("TypeError", "not enough arguments for format string", in.here());
    Ref v = values[next++];
    // printf flags to format()'s spec: '-' left-aligns, '0' pads with
    // zeros, '+' and ' ' give the sign.
    std::string flags, rest;
    size_t f = start + 1;
    while (f < k && std::strchr("-+ #0", fmt[f])) flags += fmt[f++];
    rest = fmt.substr(f, k - f);
    std::string spec;
    if (flags.find('-') != std::string::npos) spec += '<';
    if (flags.find('+') != std::string::npos) spec += '+';
    else if (flags.find(' ') != std::string::npos) spec += ' ';
    if (flags.find('#') != std::string::npos) spec += '#';
    if (flags.find('0') != std::string::npos && flags.find('-') == std::string::npos) spec += '0';
    spec += rest;
    if (conv == 's' || conv == 'r') {
      out += in.call(builtin("format"), {str(conv == 's' ? strOf(*v) : repr(*v)), str(spec)}, {}, in.here())->s;
    } else {
      if (conv == 'i' || conv == 'u') conv = 'd';
      out += in.call(builtin("format"), {v, str(spec + conv)}, {}, in.here())->s;
    }
  }
  return str(std::move(out));
}

int compareValues(Interp& in, const Object& a, const Object& b, bool& ok);

int compareSeq(Interp& in, const std::vector<Ref>& a, const std::vector<Ref>& b, bool& ok) {
  for (size_t k = 0; k < a.size() && k < b.size(); ++k) {
    if (equal(*a[k], *b[k])) continue;
    return compareValues(in, *a[k], *b[k], ok);
  }
  return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}

/// -1, 0, 1; ok = false when the values are not ordered.
int compareValues(Interp& in, const Object& a, const Object& b, bool& ok) {
  ok = true;
  if (isNumber(a) && isNumber(b)) {
    if (a.kind == Kind::Float && b.kind == Kind::Float) {
      if (std::isnan(a.f) || std::isnan(b.f)) return 2;  // every ordering is false
      return a.f < b.f ? -1 : a.f > b.f ? 1 : 0;
    }
    if (a.kind == Kind::Float || b.kind == Kind::Float) {
      // An int against a float, exactly (2**53 + 1 > 2.0**53).
      bool floatFirst = a.kind == Kind::Float;
      double f = floatFirst ? a.f : b.f;
      BigInt i = asInt(floatFirst ? b : a);
      if (std::isnan(f)) return 2;
      int c;  // int against float
      if (std::isinf(f)) c = f > 0 ? -1 : 1;
      else {
        double fl = std::floor(f);
        c = i.compare(*BigInt::fromDouble(fl));
        if (c == 0 && f > fl) c = -1;
      }
      return floatFirst ? -c : c;
    }
    return asInt(a).compare(asInt(b));
  }
  if (a.kind == Kind::Str && b.kind == Kind::Str && (a.b || b.b)) {
    // torch.__version__ against a string: as versions.
    Ref x = in.call(builtin("packaging.version.parse"), {str(a.s)}, {}, in.here());
    Ref y = in.call(builtin("packaging.version.parse"), {str(b.s)}, {}, in.here());
    return compareValues(in, *x, *y, ok);
  }
  if (a.kind == Kind::Str && b.kind == Kind::Str) return a.s < b.s ? -1 : a.s > b.s ? 1 : 0;
  if (a.kind == b.kind && (a.kind == Kind::Tuple || a.kind == Kind::List)) return compareSeq(in, a.items, b.items, ok);
  if (a.kind == Kind::Instance && b.kind == Kind::Instance && a.s == "<version>" && b.s == "<version>") {
    // 3.0 == 3.0.0: trailing zeros of the release do not count.
    auto trimmed = [](const Object& v) {
      std::vector<Ref> r = v.attrs.at("release")->items;
      while (r.size() > 1 && r.back()->i.isZero()) r.pop_back();
      return r;
    };
    return compareSeq(in, trimmed(a), trimmed(b), ok);
  }
  ok = false;
  return 0;
}

bool contains(Interp& in, const Ref& container, const Ref& x) {
  switch (container->kind) {
    case Kind::Str:
      if (x->kind != Kind::Str) in.raise("TypeError", "'in <string>' requires string as left operand", in.here());
      return container->s.find(x->s) != std::string::npos;
    case Kind::Dict: return dictGet(*container, *x) != nullptr;
    case Kind::Tuple: case Kind::List: case Kind::Set:
      for (const auto& e : container->items)
        if (equal(*e, *x)) return true;
      return false;
    case Kind::Range:
      for (const auto& e : in.iterate(container, in.here()))
        if (equal(*e, *x)) return true;
      return false;
    default: in.raise("TypeError", "argument of type '" + typeName(*container) + "' is not iterable", in.here());
  }
}

}  // namespace

Ref binaryOp(Interp& in, py::BinOpKind op, const Ref& a, const Ref& b) {
  using K = py::BinOpKind;
  if (Ref o = firstOpaque(a, b)) return o;
  const SourceLoc& at = in.here();
  auto unsupported = [&]() -> Ref {
    in.raise("TypeError", std::string("unsupported operand type(s) for ") + py::spelling(op) + ": '" + typeName(*a) +
                              "' and '" + typeName(*b) + "'", at);
  };
  try {
    if (isNumber(*a) && isNumber(*b)) {
      bool ints = isIntLike(*a) && isIntLike(*b);
      if (ints && op != K::Div) {
        BigInt x = asInt(*a), y = asInt(*b);
        switch (op) {
          case K::Add: return integer(x + y);
          case K::Sub: return integer(x - y);
          case K::Mult: return integer(x * y);
          case K::FloorDiv:
            if (y.isZero()) in.raise("ZeroDivisionError", "integer division or modulo by zero", at);
            return integer(BigInt::floorDiv(x, y));
          case K::Mod:
            if (y.isZero()) in.raise("ZeroDivisionError", "integer modulo by zero", at);
            return integer(BigInt::floorMod(x, y));
          case K::Pow:
            if (y.isNegative()) return flt(std::pow(x.toDouble(), y.toDouble()));
            return integer(BigInt::pow(x, y));
          case K::LShift:
            if (y.isNegative()) in.raise("ValueError", "negative shift count", at);
            if (!y.fitsInt64() || y.toInt64() > 1 << 20) in.raise("OverflowError", "shift count too large", at);
            return integer(x.shl(y.toInt64()));
          case K::RShift:
            if (y.isNegative()) in.raise("ValueError", "negative shift count", at);
            return integer(y.fitsInt64() ? x.shr(y.toInt64()) : BigInt(x.isNegative() ? -1 : 0));
          case K::BitAnd: return a->kind == Kind::Bool && b->kind == Kind::Bool ? boolean(a->b && b->b) : integer(BigInt::bitAnd(x, y));
          case K::BitOr: return a->kind == Kind::Bool && b->kind == Kind::Bool ? boolean(a->b || b->b) : integer(BigInt::bitOr(x, y));
          case K::BitXor: return a->kind == Kind::Bool && b->kind == Kind::Bool ? boolean(a->b != b->b) : integer(BigInt::bitXor(x, y));
          default: return unsupported();
        }
      }
      double x = asFloat(*a), y = asFloat(*b);
      switch (op) {
        case K::Add: return flt(x + y);
        case K::Sub: return flt(x - y);
        case K::Mult: return flt(x * y);
        case K::Div:
          if (y == 0) in.raise("ZeroDivisionError", "division by zero", at);
          return flt(x / y);
        case K::FloorDiv:
          if (y == 0) in.raise("ZeroDivisionError", "float floor division by zero", at);
          {
            // CPython's float_floor_div: exact through fmod.
            double mod = std::fmod(x, y), div = (x - mod) / y;
            if (mod != 0 && ((y < 0) != (mod < 0))) div -= 1.0;
            double fl = std::floor(div);
            if (div - fl > 0.5) fl += 1.0;
            return flt(div == 0 ? std::copysign(0.0, x / y) : fl);
          }
        case K::Mod: {
          if (y == 0) in.raise("ZeroDivisionError", "float modulo", at);
          double m = std::fmod(x, y);
          if (m != 0 && ((m < 0) != (y < 0))) m += y;
          return flt(m);
        }
        case K::Pow: return flt(std::pow(x, y));
        default: return unsupported();
      }
    }
  } catch (const frontend::BigIntError& e) {
    in.raise("OverflowError", e.what(), at);
  }
  if (op == K::Add && a->kind == b->kind && (a->kind == Kind::Str)) {
    in.checkSize(a->s.size() + b->s.size(), "str");
    return str(a->s + b->s);
  }
  if (op == K::Add && a->kind == b->kind && (a->kind == Kind::List || a->kind == Kind::Tuple)) {
    std::vector<Ref> out = a->items;
    out.insert(out.end(), b->items.begin(), b->items.end());
    in.checkSize(out.size(), "list");
    return a->kind == Kind::List ? list(std::move(out)) : tuple(std::move(out));
  }
  if (op == K::Mult && (a->kind == Kind::Str || isSequence(*a)) && isIntLike(*b)) return repeat(in, a, *b);
  if (op == K::Mult && (b->kind == Kind::Str || isSequence(*b)) && isIntLike(*a)) return repeat(in, b, *a);
  if (op == K::Mod && a->kind == Kind::Str) return percentFormat(in, a->s, b);
  if (op == K::BitOr && a->kind == Kind::Dict && b->kind == Kind::Dict) {
    Ref out = dict();
    for (const Ref& d : {a, b})
      for (size_t k = 0; k < d->keys.size(); ++k) dictSet(*out, d->keys[k], d->items[k]);
    return out;
  }
  if (a->kind == Kind::Set && b->kind == Kind::Set && (op == K::BitOr || op == K::BitAnd || op == K::Sub)) {
    auto out = std::make_shared<Object>(Kind::Set);
    auto in_ = [](const Object& s, const Ref& x) {
      for (const auto& e : s.items)
        if (equal(*e, *x)) return true;
      return false;
    };
    for (const auto& x : a->items)
      if (op == K::BitOr || (op == K::BitAnd) == in_(*b, x)) out->items.push_back(x);
    if (op == K::BitOr)
      for (const auto& x : b->items)
        if (!in_(*a, x)) out->items.push_back(x);
    return out;
  }
  return unsupported();
}

Ref compareOp(Interp& in, py::CmpOpKind op, const Ref& a, const Ref& b) {
  using C = py::CmpOpKind;
  if (Ref o = firstOpaque(a, b)) return o;
  switch (op) {
    case C::Eq: return boolean(equal(*a, *b));
    case C::NotEq: return boolean(!equal(*a, *b));
    case C::Is: case C::IsNot: {
      bool same = a == b || (a->kind == b->kind && (a->kind == Kind::None || a->kind == Kind::Ellipsis ||
                                                    (a->kind == Kind::Bool && a->b == b->b) ||
                                                    ((a->kind == Kind::DType || a->kind == Kind::Native ||
                                                      a->kind == Kind::Builtin) && a->s == b->s)));
      return boolean(same == (op == C::Is));
    }
    case C::In: return boolean(contains(in, b, a));
    case C::NotIn: return boolean(!contains(in, b, a));
    default: break;
  }
  bool ok = true;
  int c = compareValues(in, *a, *b, ok);
  if (!ok)
    in.raise("TypeError", std::string("'") + py::spelling(op) + "' not supported between instances of '" +
                              typeName(*a) + "' and '" + typeName(*b) + "'", in.here());
  if (c == 2) return boolean(false);
  switch (op) {
    case C::Lt: return boolean(c < 0);
    case C::LtE: return boolean(c <= 0);
    case C::Gt: return boolean(c > 0);
    case C::GtE: return boolean(c >= 0);
    default: return boolean(false);
  }
}

Ref unaryOp(Interp& in, py::UnaryOpKind op, const Ref& a) {
  if (a->kind == Kind::Opaque) return a;
  switch (op) {
    case py::UnaryOpKind::Not: return boolean(!truthy(*a));
    case py::UnaryOpKind::UAdd:
      if (isIntLike(*a)) return integer(asInt(*a));
      if (a->kind == Kind::Float) return a;
      break;
    case py::UnaryOpKind::USub:
      if (isIntLike(*a)) return integer(-asInt(*a));
      if (a->kind == Kind::Float) return flt(-a->f);
      break;
    case py::UnaryOpKind::Invert:
      if (isIntLike(*a)) return integer(~asInt(*a));
      break;
  }
  in.raise("TypeError", std::string("bad operand type for unary ") + py::spelling(op) + ": '" + typeName(*a) + "'",
           in.here());
}

/// Python's slice.indices(n): start, stop, step clamped to a sequence of n.
static void sliceIndices(Interp& in, const Object& sl, int64_t n, int64_t& start, int64_t& stop, int64_t& step) {
  auto get = [&](size_t k, int64_t dflt) -> int64_t {
    const Object& v = *sl.items[k];
    if (v.kind == Kind::None) return dflt;
    if (!isIntLike(v) || !asInt(v).fitsInt64()) in.raise("TypeError", "slice indices must be integers", in.here());
    return asInt(v).toInt64();
  };
  step = get(2, 1);
  if (step == 0) in.raise("ValueError", "slice step cannot be zero", in.here());
  auto clamp = [&](int64_t v, bool isStart) {
    if (v < 0) v += n;
    if (step > 0) return std::clamp<int64_t>(v, 0, n);
    return std::clamp<int64_t>(v, -1, n - 1);
  };
  start = sl.items[0]->kind == Kind::None ? (step > 0 ? 0 : n - 1) : clamp(get(0, 0), true);
  stop = sl.items[1]->kind == Kind::None ? (step > 0 ? n : -1) : clamp(get(1, 0), false);
}

Ref subscript(Interp& in, const Ref& base, const Ref& index) {
  if (Ref o = firstOpaque(base, index)) return o;
  const SourceLoc& at = in.here();
  if (base->kind == Kind::Dict) {
    if (Ref v = dictGet(*base, *index)) return v;
    in.raise("KeyError", repr(*index), at);
  }
  if (base->kind == Kind::Str || isSequence(*base) || base->kind == Kind::Range) {
    std::vector<Ref> items = base->kind == Kind::Range ? in.iterate(base, at) : base->items;
    int64_t n = base->kind == Kind::Str ? static_cast<int64_t>(base->s.size()) : static_cast<int64_t>(items.size());
    if (index->kind == Kind::Slice) {
      int64_t start, stop, step;
      sliceIndices(in, *index, n, start, stop, step);
      std::vector<Ref> out;
      std::string s;
      for (int64_t k = start; step > 0 ? k < stop : k > stop;) {
        if (base->kind == Kind::Str) s += base->s[k];
        else out.push_back(items[k]);
        if (__builtin_add_overflow(k, step, &k)) break;  // past any index
      }
      if (base->kind == Kind::Str) return str(std::move(s));
      return base->kind == Kind::Tuple ? tuple(std::move(out)) : list(std::move(out));
    }
    if (!isIntLike(*index))
      in.raise("TypeError", typeName(*base) + " indices must be integers or slices, not " + typeName(*index), at);
    BigInt k = asInt(*index);
    if (k.isNegative()) k = k + BigInt(n);
    if (k.isNegative() || k >= BigInt(n)) in.raise("IndexError", typeName(*base) + " index out of range", at);
    if (base->kind == Kind::Str) return str(std::string(1, base->s[k.toInt64()]));
    return items[k.toInt64()];
  }
  if (base->kind == Kind::Native || base->kind == Kind::DType || base->kind == Kind::Builtin)
    return opaque("a subscript of " + repr(*base), at);  // type annotations such as tl.tensor[...]
  in.raise("TypeError", "'" + typeName(*base) + "' object is not subscriptable", at);
}

Ref methodOf(Interp& in, const Ref& self, const std::string& name) {
  static const char* listMethods[] = {"append", "extend", "insert", "pop", "index", "count", "copy", "sort",
                                      "reverse", "remove", "clear"};
  static const char* dictMethods[] = {"get", "keys", "values", "items", "update", "pop", "setdefault", "copy"};
  static const char* strMethods[] = {"format", "join", "split", "strip", "lstrip", "rstrip", "startswith",
                                     "endswith", "lower", "upper", "replace", "find", "isdigit", "count"};
  static const char* setMethods[] = {"add", "update", "copy"};
  auto has = [&](const auto& names) {
    for (const char* n : names)
      if (name == n) return true;
    return false;
  };
  switch (self->kind) {
    case Kind::List: if (has(listMethods)) return builtin("list." + name, self); break;
    case Kind::Tuple: if (name == "index" || name == "count") return builtin("list." + name, self); break;
    case Kind::Dict: if (has(dictMethods)) return builtin("dict." + name, self); break;
    case Kind::Str: if (has(strMethods)) return builtin("str." + name, self); break;
    case Kind::Set: if (has(setMethods)) return builtin("set." + name, self); break;
    case Kind::Int: case Kind::Bool: if (name == "bit_length") return builtin("int.bit_length", self); break;
    case Kind::Float: if (name == "is_integer") return builtin("float.is_integer", self); break;
    case Kind::Instance:
      if (self->s == "triton.Config" && name == "all_kwargs") return builtin("triton.Config.all_kwargs", self);
      if (self->s == "torch.Tensor" && (name == "element_size" || name == "data_ptr" || name == "numel" ||
                                        name == "dim" || name == "size" || name == "stride"))
        return builtin("torch.Tensor." + name, self);
      break;
    default: break;
  }
  return nullptr;
}

}  // namespace tessera::host
