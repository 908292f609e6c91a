//===- Value.cpp - Objects of the host-Python evaluator -------------------===//

#include "Value.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "Interp.h"

namespace tessera::host {

Object::~Object() {
  if (items.empty() && keys.empty() && attrs.empty() && !self) return;
  std::vector<Ref> pending;
  auto take = [&pending](Object& o) {
    for (auto& x : o.items) pending.push_back(std::move(x));
    for (auto& x : o.keys) pending.push_back(std::move(x));
    for (auto& [k, x] : o.attrs) pending.push_back(std::move(x));
    if (o.self) pending.push_back(std::move(o.self));
    o.items.clear();
    o.keys.clear();
    o.attrs.clear();
  };
  take(*this);
  while (!pending.empty()) {
    Ref r = std::move(pending.back());
    pending.pop_back();
    if (r && r.use_count() == 1) take(*r);  // the last owner: empty it before it dies
  }
}

Ref none() {
  static const Ref n = std::make_shared<Object>(Kind::None);
  return n;
}
Ref boolean(bool v) {
  static const Ref t = [] { auto o = std::make_shared<Object>(Kind::Bool); o->b = true; return o; }();
  static const Ref f = std::make_shared<Object>(Kind::Bool);
  return v ? t : f;
}
Ref integer(BigInt v) {
  auto o = std::make_shared<Object>(Kind::Int);
  o->i = std::move(v);
  return o;
}
Ref flt(double v) {
  auto o = std::make_shared<Object>(Kind::Float);
  o->f = v;
  return o;
}
Ref str(std::string v) {
  auto o = std::make_shared<Object>(Kind::Str);
  o->s = std::move(v);
  return o;
}
Ref tuple(std::vector<Ref> v) {
  auto o = std::make_shared<Object>(Kind::Tuple);
  o->items = std::move(v);
  return o;
}
Ref list(std::vector<Ref> v) {
  auto o = std::make_shared<Object>(Kind::List);
  o->items = std::move(v);
  return o;
}
Ref dict() { return std::make_shared<Object>(Kind::Dict); }
Ref builtin(std::string name, Ref self) {
  auto o = std::make_shared<Object>(Kind::Builtin);
  o->s = std::move(name);
  o->self = std::move(self);
  return o;
}
Ref native(std::string path) {
  auto o = std::make_shared<Object>(Kind::Native);
  o->s = std::move(path);
  return o;
}
Ref dtype(std::string name) {
  auto o = std::make_shared<Object>(Kind::DType);
  o->s = std::move(name);
  return o;
}
Ref instance(std::string cls) {
  auto o = std::make_shared<Object>(Kind::Instance);
  o->s = std::move(cls);
  return o;
}
Ref tensorValue(const std::string& dtypeName, const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                uint64_t dataPtr) {
  auto ints = [](const std::vector<int64_t>& v) {
    std::vector<Ref> out;
    for (int64_t x : v) out.push_back(integer(BigInt(x)));
    return tuple(std::move(out));
  };
  Ref t = instance("torch.Tensor");
  t->attrs["dtype"] = dtype(dtypeName);
  t->attrs["shape"] = ints(shape);
  t->attrs["ndim"] = integer(BigInt(static_cast<int64_t>(shape.size())));
  t->attrs["_strides"] = ints(strides);
  t->attrs["_data_ptr"] = integer(BigInt(static_cast<int64_t>(dataPtr)));
  return t;
}
Ref opaque(std::string why, SourceLoc where) {
  auto o = std::make_shared<Object>(Kind::Opaque);
  o->s = std::move(why);
  o->where = where;
  return o;
}

bool isNumber(const Object& o) { return o.kind == Kind::Bool || o.kind == Kind::Int || o.kind == Kind::Float; }
bool isSequence(const Object& o) { return o.kind == Kind::Tuple || o.kind == Kind::List; }
bool isUnknown(const Object& o) { return o.kind == Kind::Opaque || (o.kind == Kind::Native && o.b); }

bool truthy(const Object& o) {
  switch (o.kind) {
    case Kind::None: return false;
    case Kind::Bool: return o.b;
    case Kind::Int: return !o.i.isZero();
    case Kind::Float: return o.f != 0;
    case Kind::Str: return !o.s.empty();
    case Kind::Tuple: case Kind::List: case Kind::Dict: case Kind::Set: return !o.items.empty();
    case Kind::Range: {
      const BigInt &a = o.items[0]->i, &b = o.items[1]->i, &s = o.items[2]->i;
      return s.isNegative() ? a > b : a < b;
    }
    default: return true;
  }
}

static bool equalAt(const Object& a, const Object& b, int depth);

bool equal(const Object& a, const Object& b) { return equalAt(a, b, 0); }

/// Python's ==; containers nested deeper than 100 (or cyclic) compare unequal.
static bool equalAt(const Object& a, const Object& b, int depth) {
  if (&a == &b) return a.kind != Kind::Float || !std::isnan(a.f);
  if (depth > 100) return false;
  if (isNumber(a) && isNumber(b)) {
    if (a.kind == Kind::Float && b.kind == Kind::Float) return a.f == b.f;
    if (a.kind == Kind::Float || b.kind == Kind::Float) {
      // An int equals a float only when the float is that exact integer.
      const Object& f = a.kind == Kind::Float ? a : b;
      const Object& i = a.kind == Kind::Float ? b : a;
      if (!std::isfinite(f.f) || std::floor(f.f) != f.f) return false;
      return *BigInt::fromDouble(f.f) == (i.kind == Kind::Bool ? BigInt(i.b ? 1 : 0) : i.i);
    }
    BigInt x = a.kind == Kind::Bool ? BigInt(a.b ? 1 : 0) : a.i;
    BigInt y = b.kind == Kind::Bool ? BigInt(b.b ? 1 : 0) : b.i;
    return x == y;
  }
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Kind::None: case Kind::Ellipsis: return true;
    case Kind::Str: case Kind::DType: case Kind::Native: return a.s == b.s;
    case Kind::Builtin: return a.s == b.s && a.self == b.self;
    case Kind::Tuple: case Kind::List: case Kind::Slice: case Kind::Range:
      if (a.items.size() != b.items.size()) return false;
      for (size_t k = 0; k < a.items.size(); ++k)
        if (!equalAt(*a.items[k], *b.items[k], depth + 1)) return false;
      return true;
    case Kind::Set:
      if (a.items.size() != b.items.size()) return false;
      for (const auto& x : a.items) {
        bool found = false;
        for (const auto& y : b.items) found = found || equalAt(*x, *y, depth + 1);
        if (!found) return false;
      }
      return true;
    case Kind::Dict:
      if (a.items.size() != b.items.size()) return false;
      for (size_t k = 0; k < a.keys.size(); ++k) {
        Ref v = dictGet(b, *a.keys[k]);
        if (!v || !equalAt(*v, *a.items[k], depth + 1)) return false;
      }
      return true;
    case Kind::Instance:
      if (a.s == "<version>" && b.s == "<version>") {
        std::vector<Ref> x = a.attrs.at("release")->items, y = b.attrs.at("release")->items;
        while (x.size() > 1 && x.back()->i.isZero()) x.pop_back();  // 3.0 == 3.0.0
        while (y.size() > 1 && y.back()->i.isZero()) y.pop_back();
        return equal(*tuple(x), *tuple(y));
      }
      return false;
    default: return false;
  }
}

/// Python's repr of a float: the shortest digits that read back the same
/// value, fixed notation for decimal exponents from -4 to 16, else
/// scientific with at least two exponent digits.
static std::string floatRepr(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  char buf[64];
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*e", prec - 1, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  std::string text = buf, digits;
  bool neg = text[0] == '-';
  size_t e = text.find('e');
  for (size_t k = neg ? 1 : 0; k < e; ++k)
    if (text[k] != '.') digits += text[k];
  int exp = std::atoi(text.c_str() + e + 1);
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  int decpt = exp + 1, n = static_cast<int>(digits.size());
  std::string out = neg ? "-" : "";
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) out += "0." + std::string(-decpt, '0') + digits;
    else if (decpt >= n) out += digits + std::string(decpt - n, '0') + ".0";
    else out += digits.substr(0, decpt) + "." + digits.substr(decpt);
  } else {
    char ebuf[16];
    std::snprintf(ebuf, sizeof ebuf, "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
    out += digits.substr(0, 1) + (n > 1 ? "." + digits.substr(1) : "") + ebuf;
  }
  return out;
}

/// Python's repr of a string: single quotes unless it holds one and no
/// double quote; backslashes and control characters escaped.
static std::string quote(const std::string& s) {
  char q = s.find('\'') != std::string::npos && s.find('"') == std::string::npos ? '"' : '\'';
  std::string out(1, q);
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == q || c == '\\') out += '\\', out += c;
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (u < 0x20 || u == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", u);
      out += hex;
    } else out += c;
  }
  return out + q;
}

static std::string reprAt(const Object& o, int depth);

std::string repr(const Object& o) { return reprAt(o, 0); }

/// repr(); containers nested deeper than 100 (or cyclic) print as "...".
static std::string reprAt(const Object& o, int depth) {
  if (depth > 100) return "...";
  auto repr = [depth](const Object& x) { return reprAt(x, depth + 1); };
  auto seq = [&](const std::vector<Ref>& xs, const char* open, const char* close, bool oneTuple) {
    std::string s = open;
    for (size_t k = 0; k < xs.size(); ++k) s += (k ? ", " : "") + repr(*xs[k]);
    if (oneTuple && xs.size() == 1) s += ",";
    return s + close;
  };
  switch (o.kind) {
    case Kind::None: return "None";
    case Kind::Bool: return o.b ? "True" : "False";
    case Kind::Int: return o.i.toString();
    case Kind::Float: return floatRepr(o.f);
    case Kind::Str: return quote(o.s);
    case Kind::Tuple: return seq(o.items, "(", ")", true);
    case Kind::List: return seq(o.items, "[", "]", false);
    case Kind::Set: return o.items.empty() ? "set()" : seq(o.items, "{", "}", false);
    case Kind::Dict: {
      std::string s = "{";
      for (size_t k = 0; k < o.keys.size(); ++k) s += (k ? ", " : "") + repr(*o.keys[k]) + ": " + repr(*o.items[k]);
      return s + "}";
    }
    case Kind::Slice: return "slice" + seq(o.items, "(", ")", false);
    case Kind::Range:
      return "range(" + repr(*o.items[0]) + ", " + repr(*o.items[1]) +
             (o.items[2]->i == BigInt(1) ? "" : ", " + repr(*o.items[2])) + ")";
    case Kind::Ellipsis: return "Ellipsis";
    case Kind::Function: return "<function " + o.fn->name + ">";
    case Kind::Builtin: return "<built-in " + o.s + ">";
    case Kind::Module: return "<module '" + o.s + "'>";
    case Kind::Native: return "<" + o.s + ">";
    case Kind::DType: return o.s;
    case Kind::Instance:
      if (o.s == "<version>") return o.attrs.at("text")->s;
      if (o.s == "triton.Config") {
        std::string s;
        if (auto kw = o.attrs.find("kwargs"); kw != o.attrs.end())
          for (size_t k = 0; k < kw->second->keys.size(); ++k)
            s += strOf(*kw->second->keys[k]) + ": " + repr(*kw->second->items[k]) + ", ";
        for (const char* a : {"num_warps", "num_stages", "num_ctas", "maxnreg"})
          if (auto it = o.attrs.find(a); it != o.attrs.end()) s += std::string(a) + ": " + repr(*it->second) + ", ";
        if (s.size() >= 2) s.resize(s.size() - 2);
        return s;
      }
      return "<" + o.s + " object>";
    case Kind::JitFn: return "JITFunction(" + o.jit->function->fn->name + ")";
    case Kind::Exception: {
      auto m = o.attrs.find("message");
      auto cls = o.attrs.find("__class__");
      return (cls != o.attrs.end() ? cls->second->s : o.s) + "(" + (m != o.attrs.end() ? quote(m->second->s) : "") + ")";
    }
    case Kind::Opaque: return "<unevaluated: " + o.s + ">";
  }
  return "?";
}

std::string strOf(const Object& o) {
  if (o.kind == Kind::Str) return o.s;
  if (o.kind == Kind::Exception) {
    // str(KeyError('k')) is the key's repr; others give their message.
    auto args = o.attrs.find("args");
    if (o.s == "KeyError" && args != o.attrs.end() && args->second->items.size() == 1)
      return repr(*args->second->items[0]);
    auto m = o.attrs.find("message");
    return m != o.attrs.end() ? m->second->s : "";
  }
  return repr(o);
}

std::string typeName(const Object& o) {
  switch (o.kind) {
    case Kind::None: return "NoneType";
    case Kind::Bool: return "bool";
    case Kind::Int: return "int";
    case Kind::Float: return "float";
    case Kind::Str: return "str";
    case Kind::Tuple: return "tuple";
    case Kind::List: return "list";
    case Kind::Dict: return "dict";
    case Kind::Set: return "set";
    case Kind::Slice: return "slice";
    case Kind::Range: return "range";
    case Kind::Ellipsis: return "ellipsis";
    case Kind::Function: return "function";
    case Kind::Builtin: return "builtin_function_or_method";
    case Kind::Module: return "module";
    case Kind::Native: return o.s;
    case Kind::DType: return "dtype";
    case Kind::Instance: return o.s;
    case Kind::JitFn: return "JITFunction";
    case Kind::Exception: return o.s;
    case Kind::Opaque: return "unevaluated value";
  }
  return "object";
}

Ref dictGet(const Object& d, const Object& key) {
  for (size_t k = 0; k < d.keys.size(); ++k)
    if (equal(*d.keys[k], key)) return d.items[k];
  return nullptr;
}

void dictSet(Object& d, Ref key, Ref value) {
  for (size_t k = 0; k < d.keys.size(); ++k)
    if (equal(*d.keys[k], *key)) {
      d.items[k] = std::move(value);
      return;
    }
  d.keys.push_back(std::move(key));
  d.items.push_back(std::move(value));
}

}  // namespace tessera::host
