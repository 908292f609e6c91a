//===- Builtins.cpp - Python builtins and methods of host Python ----------===//
//
// The table of native callables by name: Python's builtins (`len`, `range`,
// `sorted`, `format`, the exception classes, ...), the methods of lists,
// dicts, strings and sets, and (registered by Natives.cpp) the modeled
// outside callables (`triton.Config`, `math.log2`, `torch.cuda.*`, ...).
//
// A call with an Opaque argument returns an Opaque naming the call, except
// for the callables that only store their arguments (list.append,
// triton.Config, functools.partial, ...), which keep them.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "Builtins.h"

namespace tessera::host {

Ref kwarg(Kwargs& kw, const char* name) {
  for (auto it = kw.begin(); it != kw.end(); ++it)
    if (it->first == name) {
      Ref v = it->second;
      kw.erase(it);
      return v;
    }
  return nullptr;
}

Ref arg(Interp& in, const Object& fn, std::vector<Ref>& args, Kwargs& kw, size_t k, const char* name, Ref dflt) {
  if (k < args.size()) return args[k];
  if (name)
    if (Ref v = kwarg(kw, name)) return v;
  if (dflt) return dflt;
  in.raise("TypeError", fn.s + "() missing required argument '" + std::string(name ? name : "?") + "'", in.here());
}

int64_t intArg(Interp& in, const Ref& v, const char* what) {
  if (v->kind == Kind::Bool) return v->b;
  if (v->kind != Kind::Int || !v->i.fitsInt64())
    in.raise("TypeError", std::string(what) + ": expected an int, got " + typeName(*v), in.here());
  return v->i.toInt64();
}

double floatArg(Interp& in, const Ref& v, const char* what) {
  if (v->kind == Kind::Float) return v->f;
  if (v->kind == Kind::Int) return v->i.toDouble();
  if (v->kind == Kind::Bool) return v->b;
  in.raise("TypeError", std::string(what) + ": must be a real number, not " + typeName(*v), in.here());
}

bool lessThan(Interp& in, const Ref& a, const Ref& b) {
  Ref r = compareOp(in, py::CmpOpKind::Lt, a, b);
  return r->kind == Kind::Bool && r->b;
}

namespace {

// ---- format() -------------------------------------------------------------

/// format(value, spec) for the mini-language's common part:
/// [[fill]align][sign][#][0][width][,|_][.precision][type].
std::string formatValue(Interp& in, const Ref& v, const std::string& spec) {
  size_t k = 0;
  char fill = ' ', align = 0, sign = '-';
  if (spec.size() >= 2 && std::strchr("<>^=", spec[1])) fill = spec[0], align = spec[1], k = 2;
  else if (!spec.empty() && std::strchr("<>^=", spec[0])) align = spec[0], k = 1;
  if (k < spec.size() && std::strchr("+- ", spec[k])) sign = spec[k++];
  bool alt = k < spec.size() && spec[k] == '#' ? (++k, true) : false;
  if (k < spec.size() && spec[k] == '0' && !align) fill = '0', align = '=', ++k;
  int width = 0;
  while (k < spec.size() && std::isdigit(static_cast<unsigned char>(spec[k]))) {
    width = width * 10 + (spec[k++] - '0');
    if (width > (1 << 20)) in.raise("ValueError", "format width too large", in.here());
  }
  char group = 0;
  if (k < spec.size() && (spec[k] == ',' || spec[k] == '_')) group = spec[k++];
  int prec = -1;
  if (k < spec.size() && spec[k] == '.') {
    prec = 0;
    ++k;
    while (k < spec.size() && std::isdigit(static_cast<unsigned char>(spec[k]))) {
      prec = prec * 10 + (spec[k++] - '0');
      if (prec > (1 << 20)) in.raise("ValueError", "format precision too large", in.here());
    }
  }
  char type = k < spec.size() ? spec[k++] : 0;
  if (k != spec.size()) in.raise("ValueError", "Invalid format specifier '" + spec + "'", in.here());
  std::string body, prefix;
  bool numeric = isNumber(*v) && !(v->kind == Kind::Bool && !type);  // format(True) is "True"
  if (!numeric || type == 's') {
    if (type && type != 's') in.raise("ValueError", std::string("Unknown format code '") + type + "' for object of type '" + typeName(*v) + "'", in.here());
    body = strOf(*v);
    if (prec >= 0 && static_cast<int>(body.size()) > prec) body.resize(prec);
    if (!align) align = '<';
  } else {
    bool isInt = v->kind != Kind::Float;
    if (!type) type = isInt ? 'd' : prec >= 0 ? 'n' : 'r';  // 'n' here: general, keeping a ".0"
    bool neg = false;
    if (std::strchr("dxXob", type)) {
      if (!isInt) in.raise("ValueError", std::string("Unknown format code '") + type + "' for object of type 'float'", in.here());
      BigInt x = v->kind == Kind::Bool ? BigInt(v->b) : v->i;
      neg = x.isNegative();
      if (neg) x = -x;
      if (type == 'd') body = x.toString();
      else {
        int base = type == 'o' ? 8 : type == 'b' ? 2 : 16;
        if (x.isZero()) body = "0";
        while (!x.isZero()) {
          int digit = static_cast<int>(BigInt::floorMod(x, BigInt(base)).toInt64());
          body.insert(body.begin(), "0123456789abcdef"[digit]);
          x = BigInt::floorDiv(x, BigInt(base));
        }
        if (type == 'X') for (char& c : body) c = static_cast<char>(std::toupper(c));
        if (alt) prefix = type == 'o' ? "0o" : type == 'b' ? "0b" : type == 'X' ? "0X" : "0x";
      }
    } else {
      double d = v->kind == Kind::Float ? v->f : v->kind == Kind::Bool ? v->b : v->i.toDouble();
      neg = std::signbit(d) && !std::isnan(d);
      d = std::fabs(d);
      char buf[512];
      if (type == 'r') {
        body = repr(*flt(d));
      } else if (type == 'n') {
        std::snprintf(buf, sizeof buf, "%.*g", std::min(std::max(prec, 1), 100), d);
        body = buf;
        if (body.find_first_of(".eni") == std::string::npos) body += ".0";
      } else if (std::strchr("fFeEgG%", type)) {
        if (type == '%') d *= 100;
        std::snprintf(buf, sizeof buf, (std::string("%.*") + (type == '%' ? 'f' : type)).c_str(), prec < 0 ? 6 : std::min(prec, 100), d);
        body = buf;
        if (type == '%') body += '%';
      } else {
        in.raise("ValueError", std::string("Unknown format code '") + type + "' for a number", in.here());
      }
    }
    if (group) {
      size_t end = body.find_first_of(".eE%");
      if (end == std::string::npos) end = body.size();
      for (int64_t p = static_cast<int64_t>(end) - 3; p > 0; p -= 3) body.insert(body.begin() + p, group);
    }
    prefix = (neg ? "-" : sign == '+' ? "+" : sign == ' ' ? " " : "") + prefix;
    if (!align) align = '>';
  }
  int pad = width - static_cast<int>(prefix.size() + body.size());
  if (pad <= 0) return prefix + body;
  std::string p(pad, fill);
  switch (align) {
    case '<': return prefix + body + p;
    case '^': return std::string(pad / 2, fill) + prefix + body + std::string(pad - pad / 2, fill);
    case '=': return prefix + p + body;
    default: return p + prefix + body;
  }
}

/// `"{} {name} {0:>4}".format(...)`.
std::string strFormat(Interp& in, const std::string& fmt, const std::vector<Ref>& args, const Kwargs& kw) {
  std::string out;
  size_t auto_ = 0;
  for (size_t k = 0; k < fmt.size(); ++k) {
    char c = fmt[k];
    if (c == '}' && k + 1 < fmt.size() && fmt[k + 1] == '}') { out += '}'; ++k; continue; }
    if (c != '{') { out += c; continue; }
    if (k + 1 < fmt.size() && fmt[k + 1] == '{') { out += '{'; ++k; continue; }
    size_t end = fmt.find('}', k);
    if (end == std::string::npos) in.raise("ValueError", "Single '{' encountered in format string", in.here());
    std::string field = fmt.substr(k + 1, end - k - 1), spec;
    if (size_t colon = field.find(':'); colon != std::string::npos) spec = field.substr(colon + 1), field.resize(colon);
    bool asRepr = field.size() >= 2 && field.substr(field.size() - 2) == "!r";
    if (asRepr || (field.size() >= 2 && field[field.size() - 2] == '!')) field.resize(field.size() - 2);
    Ref v;
    if (field.empty()) {
      if (auto_ >= args.size()) in.raise("IndexError", "Replacement index out of range", in.here());
      v = args[auto_++];
    } else if (std::isdigit(static_cast<unsigned char>(field[0]))) {
      if (field.size() > 9 || field.find_first_not_of("0123456789") != std::string::npos)
        in.raise("IndexError", "Replacement index " + field + " out of range", in.here());
      size_t i = std::stoul(field);
      if (i >= args.size()) in.raise("IndexError", "Replacement index out of range", in.here());
      v = args[i];
    } else {
      for (const auto& [name, value] : kw)
        if (name == field) v = value;
      if (!v) in.raise("KeyError", "'" + field + "'", in.here());
    }
    if (asRepr) v = str(repr(*v));
    out += formatValue(in, v, spec);
    k = end;
  }
  in.checkSize(out.size(), "str");
  return out;
}

// ---- Python builtins ------------------------------------------------------

Ref bRange(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  if (a.empty() || a.size() > 3) in.raise("TypeError", "range expected 1 to 3 arguments", in.here());
  for (auto& x : a)
    if (x->kind != Kind::Int && x->kind != Kind::Bool)
      in.raise("TypeError", "'" + typeName(*x) + "' object cannot be interpreted as an integer", in.here());
  auto asInt = [](const Ref& x) { return x->kind == Kind::Bool ? BigInt(x->b) : x->i; };
  auto o = std::make_shared<Object>(Kind::Range);
  if (a.size() == 1) o->items = {integer(0), integer(asInt(a[0])), integer(1)};
  else o->items = {integer(asInt(a[0])), integer(asInt(a[1])), integer(a.size() == 3 ? asInt(a[2]) : BigInt(1))};
  if (o->items[2]->i.isZero()) in.raise("ValueError", "range() arg 3 must not be zero", in.here());
  return o;
}

Ref bLen(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Ref x = arg(in, fn, a, kw, 0, nullptr);
  switch (x->kind) {
    case Kind::Str: {
      int64_t n = 0;  // code points: bytes that do not continue a UTF-8 sequence
      for (char c : x->s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
      return integer(n);
    }
    case Kind::Tuple: case Kind::List: case Kind::Dict: case Kind::Set:
      return integer(static_cast<int64_t>(x->items.size()));
    case Kind::Range: return integer(static_cast<int64_t>(in.iterate(x, in.here()).size()));
    default: in.raise("TypeError", "object of type '" + typeName(*x) + "' has no len()", in.here());
  }
}

Ref bMinMax(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  bool isMax = fn.s == "max";
  Ref key = kwarg(kw, "key"), dflt = kwarg(kw, "default");
  std::vector<Ref> xs = a.size() == 1 ? in.iterate(a[0], in.here()) : a;
  if (xs.empty()) {
    if (dflt) return dflt;
    in.raise("ValueError", fn.s + "() arg is an empty sequence", in.here());
  }
  Ref best = xs[0], bestKey = key && key->kind != Kind::None ? in.call(key, {best}, {}, in.here()) : best;
  for (size_t k = 1; k < xs.size(); ++k) {
    Ref kk = key && key->kind != Kind::None ? in.call(key, {xs[k]}, {}, in.here()) : xs[k];
    if (kk->kind == Kind::Opaque) return kk;
    if (isMax ? lessThan(in, bestKey, kk) : lessThan(in, kk, bestKey)) best = xs[k], bestKey = kk;
  }
  return best;
}

Ref bSum(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Ref total = a.size() > 1 ? a[1] : kwarg(kw, "start");
  if (!total) total = integer(0);
  for (auto& x : in.iterate(arg(in, fn, a, kw, 0, nullptr), in.here())) total = binaryOp(in, py::BinOpKind::Add, total, x);
  return total;
}

Ref bAbs(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Ref x = arg(in, fn, a, kw, 0, nullptr);
  if (x->kind == Kind::Float) return flt(std::fabs(x->f));
  if (x->kind == Kind::Int) return integer(x->i.isNegative() ? -x->i : x->i);
  if (x->kind == Kind::Bool) return integer(x->b);
  in.raise("TypeError", "bad operand type for abs(): '" + typeName(*x) + "'", in.here());
}

Ref bFilter(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Ref pred = arg(in, fn, a, kw, 0, nullptr);
  std::vector<Ref> out;
  for (auto& x : in.iterate(arg(in, fn, a, kw, 1, nullptr), in.here())) {
    Ref keep = pred->kind == Kind::None ? x : in.call(pred, {x}, {}, in.here());
    std::optional<bool> t = in.truth(keep);
    if (!t) return opaque("filter(): the predicate's result could not be evaluated (" + keep->s + ")", in.here());
    if (*t) out.push_back(x);
  }
  return list(std::move(out));
}

Ref bMap(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Ref f = arg(in, fn, a, kw, 0, nullptr);
  std::vector<std::vector<Ref>> seqs;
  for (size_t k = 1; k < a.size(); ++k) seqs.push_back(in.iterate(a[k], in.here()));
  std::vector<Ref> out;
  for (size_t i = 0; !seqs.empty(); ++i) {
    std::vector<Ref> args;
    for (auto& s : seqs) {
      if (i >= s.size()) return list(std::move(out));
      args.push_back(s[i]);
    }
    out.push_back(in.call(f, args, {}, in.here()));
  }
  return list(std::move(out));
}

Ref bZip(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Ref strict = kwarg(kw, "strict");  // Python 3.10: unequal lengths raise
  std::vector<std::vector<Ref>> seqs;
  for (auto& x : a) seqs.push_back(in.iterate(x, in.here()));
  if (strict && truthy(*strict) && !seqs.empty()) {
    // CPython's report: iteration stops at the shortest length; the first
    // argument exhausted there, or else the first one left over, is named.
    size_t shortest = seqs[0].size();
    for (const auto& q : seqs) shortest = std::min(shortest, q.size());
    for (size_t k = 1; k < seqs.size(); ++k) {
      bool shorter = seqs[0].size() > shortest && seqs[k].size() == shortest;
      bool longer = seqs[0].size() == shortest && seqs[k].size() > shortest;
      if (!shorter && !longer) continue;
      in.raise("ValueError", "zip() argument " + std::to_string(k + 1) + " is " + (shorter ? "shorter" : "longer") +
                                 " than argument" + (k == 1 ? std::string(" 1") : "s 1-" + std::to_string(k)),
               in.here());
    }
  }
  std::vector<Ref> out;
  for (size_t i = 0; !seqs.empty(); ++i) {
    std::vector<Ref> row;
    for (auto& s : seqs) {
      if (i >= s.size()) return list(std::move(out));
      row.push_back(s[i]);
    }
    out.push_back(tuple(std::move(row)));
  }
  return list(std::move(out));
}

Ref bEnumerate(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Ref start = a.size() > 1 ? a[1] : kwarg(kw, "start");
  BigInt k = start ? BigInt(intArg(in, start, "enumerate")) : BigInt(0);
  std::vector<Ref> out;
  for (auto& x : in.iterate(arg(in, fn, a, kw, 0, nullptr), in.here())) {
    out.push_back(tuple({integer(k), x}));
    k = k + BigInt(1);
  }
  return list(std::move(out));
}

Ref bSorted(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Ref key = kwarg(kw, "key"), rev = kwarg(kw, "reverse");
  std::vector<Ref> xs = in.iterate(arg(in, fn, a, kw, 0, nullptr), in.here());
  std::vector<std::pair<Ref, Ref>> keyed;
  for (auto& x : xs) {
    Ref k = key && key->kind != Kind::None ? in.call(key, {x}, {}, in.here()) : x;
    if (k->kind == Kind::Opaque) return k;
    keyed.emplace_back(k, x);
  }
  bool reverse = rev && truthy(*rev);
  std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& p, const auto& q) {
    return reverse ? lessThan(in, q.first, p.first) : lessThan(in, p.first, q.first);
  });
  std::vector<Ref> out;
  for (auto& p : keyed) out.push_back(p.second);
  return list(std::move(out));
}

Ref bReversed(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  std::vector<Ref> xs = in.iterate(arg(in, fn, a, kw, 0, nullptr), in.here());
  std::reverse(xs.begin(), xs.end());
  return list(std::move(xs));
}

Ref bAnyAll(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  bool isAny = fn.s == "any";
  for (auto& x : in.iterate(arg(in, fn, a, kw, 0, nullptr), in.here())) {
    std::optional<bool> t = in.truth(x);
    if (!t) return x;
    if (*t == isAny) return boolean(isAny);
  }
  return boolean(!isAny);
}

Ref bInt(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  if (a.empty()) return integer(0);
  Ref x = a[0];
  if (x->kind == Kind::Int) return x;
  if (x->kind == Kind::Bool) return integer(x->b);
  if (x->kind == Kind::Float) {
    if (!std::isfinite(x->f)) in.raise(std::isnan(x->f) ? "ValueError" : "OverflowError", "cannot convert float " + repr(*x) + " to integer", in.here());
    if (auto b = BigInt::fromDouble(std::trunc(x->f))) return integer(*b);
    in.raise("OverflowError", "float too large", in.here());
  }
  if (x->kind == Kind::Str) {
    Ref b = a.size() > 1 ? a[1] : kwarg(kw, "base");
    int base = b ? static_cast<int>(intArg(in, b, "int() base")) : 10;
    std::string s = x->s;
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
    size_t p = 0;
    while (p < s.size() && std::isspace(static_cast<unsigned char>(s[p]))) ++p;
    bool neg = p < s.size() && s[p] == '-';
    if (p < s.size() && (s[p] == '-' || s[p] == '+')) ++p;
    // 0x / 0o / 0b prefixes, with base 0 (any) or the matching base.
    if (p + 1 < s.size() && s[p] == '0') {
      char c = static_cast<char>(std::tolower(static_cast<unsigned char>(s[p + 1])));
      int prefixed = c == 'x' ? 16 : c == 'o' ? 8 : c == 'b' ? 2 : 0;
      if (prefixed && (base == 0 || base == prefixed)) base = prefixed, p += 2;
    }
    if (base == 0) base = 10;
    BigInt v = 0;
    if (p == s.size() || base < 2 || base > 36)
      in.raise("ValueError", "invalid literal for int() with base " + std::to_string(base) + ": " + repr(*x), in.here());
    for (; p < s.size(); ++p) {
      char c = static_cast<char>(std::tolower(static_cast<unsigned char>(s[p])));
      int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : c >= 'a' && c <= 'z' ? c - 'a' + 10 : 99;
      if (c == '_') continue;
      if (d >= base)
        in.raise("ValueError", "invalid literal for int() with base " + std::to_string(base) + ": " + repr(*x), in.here());
      v = v * BigInt(base) + BigInt(d);
    }
    return integer(neg ? -v : v);
  }
  in.raise("TypeError", "int() argument must be a string or a number, not '" + typeName(*x) + "'", in.here());
}

Ref bFloat(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  if (a.empty()) return flt(0);
  Ref x = a[0];
  if (x->kind == Kind::Str) {
    std::string s;
    for (char c : x->s)
      if (!std::isspace(static_cast<unsigned char>(c)) && c != '_') s += static_cast<char>(std::tolower(c));
    if (s == "inf" || s == "+inf" || s == "infinity") return flt(INFINITY);
    if (s == "-inf" || s == "-infinity") return flt(-INFINITY);
    if (s == "nan" || s == "+nan" || s == "-nan") return flt(NAN);
    char* end = nullptr;
    double d = std::strtod(s.c_str(), &end);
    if (s.empty() || *end) in.raise("ValueError", "could not convert string to float: " + repr(*x), in.here());
    return flt(d);
  }
  return flt(floatArg(in, x, "float()"));
}

Ref bStr(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) { return str(a.empty() ? "" : strOf(*a[0])); }
Ref bRepr(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) { return str(repr(*arg(in, fn, a, kw, 0, nullptr))); }
Ref bBool(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) { return boolean(!a.empty() && truthy(*a[0])); }

Ref bList(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  std::vector<Ref> xs = a.empty() ? std::vector<Ref>{} : in.iterate(a[0], in.here());
  if (fn.s == "tuple") return tuple(std::move(xs));
  if (fn.s == "set") {
    auto o = std::make_shared<Object>(Kind::Set);
    for (auto& x : xs) {
      bool dup = false;
      for (auto& y : o->items) dup = dup || equal(*x, *y);
      if (!dup) o->items.push_back(x);
    }
    return o;
  }
  return list(std::move(xs));
}

Ref bDict(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Ref d = dict();
  if (!a.empty()) {
    if (a[0]->kind == Kind::Dict) {
      for (size_t k = 0; k < a[0]->keys.size(); ++k) dictSet(*d, a[0]->keys[k], a[0]->items[k]);
    } else {
      for (auto& pair : in.iterate(a[0], in.here())) {
        std::vector<Ref> kv = in.iterate(pair, in.here());
        if (kv.size() != 2) in.raise("ValueError", "dictionary update sequence element has length " + std::to_string(kv.size()) + "; 2 is required", in.here());
        dictSet(*d, kv[0], kv[1]);
      }
    }
  }
  for (auto& [k, v] : kw) dictSet(*d, str(k), v);
  kw.clear();
  return d;
}

/// The class a value belongs to, as the name isinstance() compares.
bool isInstanceOf(Interp& in, const Ref& x, const Ref& cls) {
  if (cls->kind == Kind::Tuple) {
    for (auto& c : cls->items)
      if (isInstanceOf(in, x, c)) return true;
    return false;
  }
  const std::string& n = cls->s;
  if (cls->kind == Kind::Builtin) {
    if (n == "int") return x->kind == Kind::Int || x->kind == Kind::Bool;
    if (n == "bool") return x->kind == Kind::Bool;
    if (n == "float") return x->kind == Kind::Float;
    if (n == "str") return x->kind == Kind::Str;
    if (n == "list") return x->kind == Kind::List;
    if (n == "tuple") return x->kind == Kind::Tuple;
    if (n == "dict") return x->kind == Kind::Dict;
    if (n == "set") return x->kind == Kind::Set;
    if (n == "triton.Config") return x->kind == Kind::Instance && x->s == "triton.Config";
    if (exceptionMatches(n, "BaseException")) return x->kind == Kind::Exception && exceptionMatches(x->s, n);
    return false;
  }
  if (cls->kind == Kind::Instance && cls->s.rfind("class ", 0) == 0) {
    // An object of a user class, of this class or a subclass.
    if (x->kind != Kind::Instance || !x->self) return false;
    auto it = x->self->attrs.find("__classes__");
    if (it == x->self->attrs.end()) return false;
    for (const Ref& c : it->second->items)
      if (c->s == cls->s.substr(6)) return true;
    return false;
  }
  if (cls->kind == Kind::Native) {
    if (n == "triton.language.constexpr") return isNumber(*x) || x->kind == Kind::Str || x->kind == Kind::None;
    if (n == "triton.language.dtype" || n == "torch.dtype") return x->kind == Kind::DType;
    if (n == "triton.runtime.jit.JITFunction") return x->kind == Kind::JitFn;
    return false;
  }
  return false;
}

Ref bIsinstance(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Ref x = arg(in, fn, a, kw, 0, nullptr), cls = arg(in, fn, a, kw, 1, nullptr);
  if (x->kind == Kind::Opaque) return x;
  if (cls->kind == Kind::Opaque || (cls->kind == Kind::Native && cls->b)) return opaque("isinstance() with a class Tessera does not model", in.here());
  return boolean(isInstanceOf(in, x, cls));
}

Ref bGetattr(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Ref x = arg(in, fn, a, kw, 0, nullptr), name = arg(in, fn, a, kw, 1, nullptr);
  if (name->kind != Kind::Str) in.raise("TypeError", "attribute name must be string", in.here());
  try {
    return in.getAttr(x, name->s, in.here());
  } catch (const PyException& e) {
    if (a.size() > 2 && exceptionMatches(e.exc->s, "AttributeError")) return a[2];
    throw;
  }
}

Ref bHasattr(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Ref x = arg(in, fn, a, kw, 0, nullptr), name = arg(in, fn, a, kw, 1, nullptr);
  if (x->kind == Kind::Opaque) return x;
  try {
    Ref r = in.getAttr(x, name->s, in.here());
    return r->kind == Kind::Opaque && x->kind != Kind::Native ? r : boolean(true);
  } catch (const PyException& e) {
    if (exceptionMatches(e.exc->s, "AttributeError")) return boolean(false);
    throw;
  }
}

Ref bPrint(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  kw.clear();
  return none();  // host output is not reproduced
}

Ref bRound(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Ref x = arg(in, fn, a, kw, 0, nullptr);
  Ref nd = a.size() > 1 ? a[1] : kwarg(kw, "ndigits");
  if (nd && nd->kind != Kind::None && (x->kind == Kind::Int || x->kind == Kind::Bool)) {
    int64_t digits = intArg(in, nd, "round");
    BigInt v = x->kind == Kind::Bool ? BigInt(x->b) : x->i;
    if (digits >= 0) return integer(v);
    if (digits < -4000) return integer(0);
    BigInt unit = BigInt::pow(BigInt(10), BigInt(-digits));
    BigInt q = BigInt::floorDiv(v, unit), r = BigInt::floorMod(v, unit);
    BigInt twice = r + r;  // ties go to the even multiple, as Python
    if (twice > unit || (twice == unit && !BigInt::floorMod(q, BigInt(2)).isZero())) q = q + BigInt(1);
    return integer(q * unit);
  }
  if (nd && nd->kind != Kind::None) {
    int64_t digits = intArg(in, nd, "round");
    double v = floatArg(in, x, "round");
    if (digits >= 0 && digits <= 60 && std::isfinite(v)) {
      // Rounded as the exact binary value's decimal expansion, ties to even
      // (round(2.675, 2) == 2.67), which is what printf does.
      char buf[512];
      std::snprintf(buf, sizeof buf, "%.*f", static_cast<int>(digits), v);
      return flt(std::strtod(buf, nullptr));
    }
    double scale = std::pow(10.0, static_cast<double>(digits));
    return flt(std::nearbyint(v * scale) / scale);
  }
  if (x->kind == Kind::Int || x->kind == Kind::Bool) return integer(x->kind == Kind::Bool ? BigInt(x->b) : x->i);
  double r = std::nearbyint(floatArg(in, x, "round"));  // ties to even, as Python
  if (auto b = BigInt::fromDouble(r)) return integer(*b);
  in.raise("OverflowError", "cannot convert float infinity to integer", in.here());
}

Ref bFormat(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Ref v = arg(in, fn, a, kw, 0, nullptr);
  Ref spec = a.size() > 1 ? a[1] : str("");
  return str(formatValue(in, v, spec->s));
}

Ref bPow(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  if (a.size() == 3 && a[2]->kind != Kind::None) {
    BigInt base = a[0]->i, e = a[1]->i, m = a[2]->i;
    if (a[0]->kind != Kind::Int || a[1]->kind != Kind::Int || a[2]->kind != Kind::Int)
      in.raise("TypeError", "pow() 3rd argument not allowed unless all arguments are integers", in.here());
    if (m.isZero()) in.raise("ValueError", "pow() 3rd argument cannot be 0", in.here());
    if (e.isNegative()) in.raise("ValueError", "pow() with a negative exponent and a modulus is not supported here", in.here());
    BigInt r = BigInt::floorMod(BigInt(1), m);
    base = BigInt::floorMod(base, m);
    for (int bit = e.bitLength() - 1; bit >= 0; --bit) {
      in.step();
      r = BigInt::floorMod(r * r, m);
      if (!BigInt::bitAnd(e.shr(bit), BigInt(1)).isZero()) r = BigInt::floorMod(r * base, m);
    }
    return integer(r);
  }
  return binaryOp(in, py::BinOpKind::Pow, arg(in, fn, a, kw, 0, nullptr), arg(in, fn, a, kw, 1, nullptr));
}

Ref bDivmod(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Ref x = arg(in, fn, a, kw, 0, nullptr), y = arg(in, fn, a, kw, 1, nullptr);
  return tuple({binaryOp(in, py::BinOpKind::FloorDiv, x, y), binaryOp(in, py::BinOpKind::Mod, x, y)});
}

Ref bNext(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  std::vector<Ref> xs = in.iterate(arg(in, fn, a, kw, 0, nullptr), in.here());
  if (!xs.empty()) return xs[0];
  if (a.size() > 1) return a[1];
  in.raise("StopIteration", "", in.here());
}

Ref bRadix(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Ref x = arg(in, fn, a, kw, 0, nullptr);
  if (x->kind != Kind::Int && x->kind != Kind::Bool)
    in.raise("TypeError", "'" + typeName(*x) + "' object cannot be interpreted as an integer", in.here());
  return str(formatValue(in, x, fn.s == "hex" ? "#x" : fn.s == "oct" ? "#o" : "#b"));
}

Ref bChrOrd(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Ref x = arg(in, fn, a, kw, 0, nullptr);
  if (fn.s == "ord") {
    if (x->kind != Kind::Str || x->s.size() != 1) in.raise("TypeError", "ord() expected a character", in.here());
    return integer(static_cast<unsigned char>(x->s[0]));
  }
  int64_t c = intArg(in, x, "chr");
  if (c < 0 || c > 127) return opaque("chr() beyond ASCII", in.here());
  return str(std::string(1, static_cast<char>(c)));
}

/// type(x): the builtin class for Python's own types (so `type(x) is int`
/// holds), a named Native otherwise.
Ref bType(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Ref x = arg(in, fn, a, kw, 0, nullptr);
  std::string t = typeName(*x);
  if (t == "int" || t == "float" || t == "str" || t == "bool" || t == "list" || t == "tuple" || t == "dict" || t == "set")
    return builtin(t);
  return native("type:" + t);
}

/// A method bound to its object (`self`): the function with the object first.
Ref bMethod(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  std::vector<Ref> args{fn.self};
  args.insert(args.end(), a.begin(), a.end());
  Kwargs k = std::move(kw);
  kw.clear();
  return in.call(fn.items.at(0), std::move(args), std::move(k), in.here());
}

Ref bIdentity(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) { return a.empty() ? none() : a[0]; }

Ref bCallable(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Ref x = arg(in, fn, a, kw, 0, nullptr);
  return boolean(x->kind == Kind::Function || x->kind == Kind::Builtin || x->kind == Kind::JitFn ||
                 (x->kind == Kind::Instance && x->s.rfind("class ", 0) == 0));
}

Ref bException(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  auto e = std::make_shared<Object>(Kind::Exception);
  e->s = fn.s;
  e->attrs["message"] = str(a.empty() ? "" : strOf(*a[0]));
  e->attrs["args"] = tuple(a);
  e->where = in.here();
  return e;
}

// ---- methods --------------------------------------------------------------

Ref mList(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Object& self = *fn.self;
  std::string m = fn.s.substr(5);
  auto index = [&](const Ref& x) -> int64_t {
    for (size_t k = 0; k < self.items.size(); ++k)
      if (equal(*self.items[k], *x)) return static_cast<int64_t>(k);
    return -1;
  };
  if (m == "append") { self.items.push_back(arg(in, fn, a, kw, 0, nullptr)); in.checkSize(self.items.size(), "list"); return none(); }
  if (m == "extend") {
    Ref x = arg(in, fn, a, kw, 0, nullptr);
    if (x->kind == Kind::Opaque) return x;
    for (auto& e : in.iterate(x, in.here())) self.items.push_back(e);
    in.checkSize(self.items.size(), "list");
    return none();
  }
  if (m == "insert") {
    int64_t k = intArg(in, arg(in, fn, a, kw, 0, nullptr), "insert");
    int64_t n = static_cast<int64_t>(self.items.size());
    if (k < 0) k = std::max<int64_t>(0, k + n);
    self.items.insert(self.items.begin() + std::min(k, n), arg(in, fn, a, kw, 1, nullptr));
    return none();
  }
  if (m == "pop") {
    if (self.items.empty()) in.raise("IndexError", "pop from empty list", in.here());
    int64_t n = static_cast<int64_t>(self.items.size());
    int64_t k = a.empty() ? n - 1 : intArg(in, a[0], "pop");
    if (k < 0) k += n;
    if (k < 0 || k >= n) in.raise("IndexError", "pop index out of range", in.here());
    Ref v = self.items[k];
    self.items.erase(self.items.begin() + k);
    return v;
  }
  if (m == "index") {
    int64_t k = index(arg(in, fn, a, kw, 0, nullptr));
    if (k < 0) in.raise("ValueError", repr(*a[0]) + " is not in list", in.here());
    return integer(k);
  }
  if (m == "count") {
    int64_t c = 0;
    for (auto& x : self.items) c += equal(*x, *arg(in, fn, a, kw, 0, nullptr));
    return integer(c);
  }
  if (m == "copy") return list(self.items);
  if (m == "sort") {
    Ref me = fn.self;
    std::vector<Ref> args{list(self.items)};
    Ref sorted = bSorted(in, *builtin("sorted"), args, kw);
    if (sorted->kind == Kind::List) self.items = sorted->items;
    return none();
  }
  if (m == "reverse") { std::reverse(self.items.begin(), self.items.end()); return none(); }
  if (m == "remove") {
    int64_t k = index(arg(in, fn, a, kw, 0, nullptr));
    if (k < 0) in.raise("ValueError", "list.remove(x): x not in list", in.here());
    self.items.erase(self.items.begin() + k);
    return none();
  }
  self.items.clear();  // clear
  return none();
}

Ref mDict(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Object& self = *fn.self;
  std::string m = fn.s.substr(5);
  if (m == "get" || m == "setdefault") {
    Ref k = arg(in, fn, a, kw, 0, nullptr);
    if (k->kind == Kind::Opaque) return k;
    Ref dflt = a.size() > 1 ? a[1] : none();
    if (Ref v = dictGet(self, *k)) return v;
    if (m == "setdefault") dictSet(self, k, dflt);
    return dflt;
  }
  if (m == "keys") return list(self.keys);
  if (m == "values") return list(self.items);
  if (m == "items") {
    std::vector<Ref> out;
    for (size_t k = 0; k < self.keys.size(); ++k) out.push_back(tuple({self.keys[k], self.items[k]}));
    return list(std::move(out));
  }
  if (m == "update") {
    std::vector<Ref> args(a.begin(), a.end());
    Ref other = bDict(in, *builtin("dict"), args, kw);
    for (size_t k = 0; k < other->keys.size(); ++k) dictSet(self, other->keys[k], other->items[k]);
    return none();
  }
  if (m == "pop") {
    Ref k = arg(in, fn, a, kw, 0, nullptr);
    for (size_t i = 0; i < self.keys.size(); ++i)
      if (equal(*self.keys[i], *k)) {
        Ref v = self.items[i];
        self.keys.erase(self.keys.begin() + i);
        self.items.erase(self.items.begin() + i);
        return v;
      }
    if (a.size() > 1) return a[1];
    in.raise("KeyError", repr(*k), in.here());
  }
  Ref d = dict();  // copy
  d->keys = self.keys;
  d->items = self.items;
  return d;
}

Ref mStr(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  const std::string& s = fn.self->s;
  std::string m = fn.s.substr(4);
  if (m == "format") {
    for (auto& x : a) if (x->kind == Kind::Opaque) return x;
    for (auto& [k, v] : kw) if (v->kind == Kind::Opaque) return v;
    // Fields reaching into arguments ("{0.attr}", "{d[key]}") are not
    // evaluated: the result is unknown rather than wrong.
    for (size_t p = s.find('{'); p != std::string::npos; p = s.find('{', p + 1)) {
      if (p + 1 < s.size() && s[p + 1] == '{') { ++p; continue; }
      size_t end = s.find_first_of(":}!", p);
      if (end != std::string::npos && s.substr(p + 1, end - p - 1).find_first_of(".[") != std::string::npos)
        return opaque("str.format with a field that reaches into an argument", in.here());
    }
    std::string out = strFormat(in, s, a, kw);
    kw.clear();
    return str(std::move(out));
  }
  if (m == "join") {
    std::string out;
    bool first = true;
    for (auto& x : in.iterate(arg(in, fn, a, kw, 0, nullptr), in.here())) {
      if (x->kind != Kind::Str) in.raise("TypeError", "sequence item: expected str instance, " + typeName(*x) + " found", in.here());
      out += (first ? "" : s) + x->s;
      first = false;
      in.checkSize(out.size(), "str");
    }
    return str(std::move(out));
  }
  if (m == "split") {
    std::vector<Ref> out;
    Ref sep = a.empty() ? nullptr : a[0];
    if (!sep || sep->kind == Kind::None) {
      std::string w;
      for (char c : s) {
        if (std::isspace(static_cast<unsigned char>(c))) { if (!w.empty()) out.push_back(str(w)), w.clear(); }
        else w += c;
      }
      if (!w.empty()) out.push_back(str(w));
    } else {
      if (sep->s.empty()) in.raise("ValueError", "empty separator", in.here());
      Ref maxsplit = a.size() > 1 ? a[1] : kwarg(kw, "maxsplit");
      int64_t left = maxsplit ? intArg(in, maxsplit, "maxsplit") : -1;
      size_t start = 0;
      for (size_t p; left != 0 && (p = s.find(sep->s, start)) != std::string::npos; start = p + sep->s.size(), --left)
        out.push_back(str(s.substr(start, p - start)));
      out.push_back(str(s.substr(start)));
    }
    return list(std::move(out));
  }
  if (m == "strip" || m == "lstrip" || m == "rstrip") {
    std::string chars = a.empty() || a[0]->kind == Kind::None ? std::string(" \t\n\r\f\v") : a[0]->s;
    size_t b = m == "rstrip" ? 0 : s.find_first_not_of(chars);
    if (b == std::string::npos) return str("");
    size_t e = m == "lstrip" ? s.size() : s.find_last_not_of(chars) + 1;
    return str(s.substr(b, e - b));
  }
  if (m == "startswith" || m == "endswith") {
    Ref x = arg(in, fn, a, kw, 0, nullptr);
    std::vector<Ref> options = x->kind == Kind::Tuple ? x->items : std::vector<Ref>{x};
    for (auto& o : options) {
      const std::string& p = o->s;
      bool hit = p.size() <= s.size() && (m == "startswith" ? s.compare(0, p.size(), p) == 0 : s.compare(s.size() - p.size(), p.size(), p) == 0);
      if (hit) return boolean(true);
    }
    return boolean(false);
  }
  if (m == "lower" || m == "upper") {
    std::string out = s;
    for (char& c : out) c = static_cast<char>(m == "lower" ? std::tolower(static_cast<unsigned char>(c)) : std::toupper(static_cast<unsigned char>(c)));
    return str(std::move(out));
  }
  if (m == "replace") {
    std::string from = arg(in, fn, a, kw, 0, nullptr)->s, to = arg(in, fn, a, kw, 1, nullptr)->s, out;
    int64_t left = a.size() > 2 ? intArg(in, a[2], "replace count") : -1;
    if (from.empty()) return str(s);
    size_t start = 0;
    for (size_t p; left != 0 && (p = s.find(from, start)) != std::string::npos; start = p + from.size(), --left)
      out += s.substr(start, p - start) + to;
    out += s.substr(start);
    in.checkSize(out.size(), "str");
    return str(std::move(out));
  }
  if (m == "count") {  // non-overlapping occurrences; "" occurs len + 1 times
    if (a.size() != 1) in.raise("TypeError", "str.count: only the substring is supported (no start or end)", in.here());
    Ref subRef = arg(in, fn, a, kw, 0, nullptr);
    if (subRef->kind != Kind::Str)
      in.raise("TypeError", "must be str, not " + typeName(*subRef), in.here());
    const std::string& sub = subRef->s;
    if (sub.empty()) return integer(static_cast<int64_t>(s.size() + 1));
    int64_t n = 0;
    for (size_t p = s.find(sub); p != std::string::npos; p = s.find(sub, p + sub.size())) ++n;
    return integer(n);
  }
  if (m == "find") {
    size_t p = s.find(arg(in, fn, a, kw, 0, nullptr)->s);
    return integer(p == std::string::npos ? int64_t{-1} : static_cast<int64_t>(p));
  }
  // isdigit
  return boolean(!s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }));
}

Ref mSet(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Object& self = *fn.self;
  auto add = [&](const Ref& x) {
    for (auto& y : self.items)
      if (equal(*x, *y)) return;
    self.items.push_back(x);
  };
  if (fn.s == "set.add") add(arg(in, fn, a, kw, 0, nullptr));
  else if (fn.s == "set.update") for (auto& x : in.iterate(arg(in, fn, a, kw, 0, nullptr), in.here())) add(x);
  else {
    auto o = std::make_shared<Object>(Kind::Set);
    o->items = self.items;
    return o;
  }
  return none();
}

Ref mInt(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  if (fn.s == "int.bit_length") {
    const Object& x = *fn.self;
    BigInt v = x.kind == Kind::Bool ? BigInt(x.b) : x.i;
    return integer(v.isNegative() ? (-v).bitLength() : v.bitLength());
  }
  return boolean(std::isfinite(fn.self->f) && std::trunc(fn.self->f) == fn.self->f);  // float.is_integer
}

const char* kExceptions[][2] = {
    {"BaseException", ""}, {"Exception", "BaseException"}, {"ArithmeticError", "Exception"},
    {"ZeroDivisionError", "ArithmeticError"}, {"OverflowError", "ArithmeticError"}, {"LookupError", "Exception"},
    {"KeyError", "LookupError"}, {"IndexError", "LookupError"}, {"ImportError", "Exception"},
    {"ModuleNotFoundError", "ImportError"}, {"ValueError", "Exception"}, {"TypeError", "Exception"},
    {"AttributeError", "Exception"}, {"NameError", "Exception"}, {"RuntimeError", "Exception"},
    {"NotImplementedError", "RuntimeError"}, {"AssertionError", "Exception"}, {"OSError", "Exception"},
    {"EnvironmentError", "Exception"}, {"StopIteration", "Exception"}, {"SyntaxError", "Exception"},
    {"Warning", "Exception"}, {"UserWarning", "Warning"}, {"DeprecationWarning", "Warning"},
    {"KeyboardInterrupt", "BaseException"}, {"SystemExit", "BaseException"},
};

}  // namespace

bool exceptionMatches(const std::string& type, const std::string& handler) {
  for (std::string t = type; !t.empty();) {
    if (t == handler) return true;
    std::string parent;
    for (const auto& row : kExceptions)
      if (t == row[0]) parent = row[1];
    t = parent;
  }
  return false;
}

using Table = std::unordered_map<std::string, Handler>;

static const Table& table() {
  static const Table t = [] {
    Table t = {
        {"range", bRange}, {"len", bLen}, {"min", bMinMax}, {"max", bMinMax}, {"sum", bSum}, {"abs", bAbs},
        {"filter", bFilter}, {"map", bMap}, {"zip", bZip}, {"enumerate", bEnumerate}, {"sorted", bSorted},
        {"reversed", bReversed}, {"any", bAnyAll}, {"all", bAnyAll}, {"int", bInt}, {"float", bFloat},
        {"str", bStr}, {"repr", bRepr}, {"bool", bBool}, {"list", bList}, {"tuple", bList}, {"set", bList},
        {"frozenset", bList}, {"dict", bDict}, {"isinstance", bIsinstance}, {"getattr", bGetattr},
        {"hasattr", bHasattr}, {"print", bPrint}, {"round", bRound}, {"format", bFormat}, {"pow", bPow},
        {"divmod", bDivmod}, {"callable", bCallable}, {"iter", bList}, {"next", bNext}, {"hex", bRadix},
        {"oct", bRadix}, {"bin", bRadix}, {"chr", bChrOrd}, {"ord", bChrOrd}, {"type", bType},
        {"<method>", bMethod}, {"property", bIdentity}, {"staticmethod", bIdentity}, {"classmethod", bIdentity},
    };
    for (const char* m : {"append", "extend", "insert", "pop", "index", "count", "copy", "sort", "reverse", "remove", "clear"})
      t[std::string("list.") + m] = mList;
    for (const char* m : {"get", "keys", "values", "items", "update", "pop", "setdefault", "copy"})
      t[std::string("dict.") + m] = mDict;
    for (const char* m : {"format", "join", "split", "strip", "lstrip", "rstrip", "startswith", "endswith", "lower",
                          "upper", "replace", "find", "isdigit", "count"})
      t[std::string("str.") + m] = mStr;
    for (const char* m : {"add", "update", "copy"}) t[std::string("set.") + m] = mSet;
    t["int.bit_length"] = mInt;
    t["float.is_integer"] = mInt;
    for (const auto& row : kExceptions) t[row[0]] = bException;
    registerNatives(t);
    return t;
  }();
  return t;
}

Ref pythonBuiltin(const std::string& name) {
  static const std::unordered_set<std::string> names = [] {
    std::unordered_set<std::string> n;
    for (const auto& [k, v] : table())
      if (k.find('.') == std::string::npos && k[0] != '<') n.insert(k);
    return n;
  }();
  if (names.count(name)) return builtin(name);
  if (name == "NotImplemented" || name == "__debug__") return boolean(name == "__debug__");
  return nullptr;
}

/// Callables that keep Opaque arguments instead of becoming Opaque.
static bool keepsOpaque(const std::string& n) {
  return n == "list.append" || n == "list.insert" || n == "dict.update" || n == "dict.setdefault" || n == "set.add" ||
         n == "isinstance" || n == "hasattr" || n == "getattr" || n == "print" || n == "tuple" || n == "list" ||
         n == "len" || n.rfind("triton.", 0) == 0 || n.rfind("functools.", 0) == 0 || n == "dict" ||
         exceptionMatches(n, "BaseException") || n == "str.format";
}

Ref callBuiltin(Interp& in, const Object& fn, std::vector<Ref>& args, Kwargs& kwargs) {
  if (!keepsOpaque(fn.s)) {
    for (const auto& a : args)
      if (a->kind == Kind::Opaque) return opaque(fn.s + "() of " + a->s, in.here());
    for (const auto& [k, v] : kwargs)
      if (v->kind == Kind::Opaque) return opaque(fn.s + "() of " + v->s, in.here());
  }
  if ((fn.s == "len" || fn.s == "list" || fn.s == "tuple") && !args.empty() && args[0]->kind == Kind::Opaque)
    return opaque(fn.s + "() of " + args[0]->s, in.here());
  const Table& t = table();
  auto it = t.find(fn.s);
  if (it == t.end()) {
    if (fn.kind == Kind::Native) return nativeCall(in, fn, args, kwargs);
    return opaque("a call of " + fn.s + "()", in.here());
  }
  Ref r;
  try {
    r = it->second(in, fn, args, kwargs);
  } catch (const frontend::BigIntError& e) {
    in.raise("OverflowError", e.what(), in.here());
  }
  if (!kwargs.empty() && !exceptionMatches(fn.s, "BaseException"))
    in.raise("TypeError", fn.s + "() got an unexpected keyword argument '" + kwargs.front().first + "'", in.here());
  return r;
}

}  // namespace tessera::host
