//===- Specialization.cpp - Launch arguments -> parameter specs -----------===//

#include "Specialization.h"

#include <tuple>

#include "Internal.h"
#include "tessera/support/IntLiteral.h"

#include <cctype>
#include <sstream>

namespace tessera::detail {

using frontend::ConstValue;
using frontend::ParamSpec;

frontend::ConstValue toConstValue(const Value& v) {
  return std::visit([](const auto& x) -> ConstValue { return x; }, v);
}

Value toMetaValue(const ConstValue& v) {
  if (auto* b = std::get_if<bool>(&v)) return *b;
  if (auto* i = std::get_if<int64_t>(&v)) return *i;
  if (auto* d = std::get_if<double>(&v)) return *d;
  if (auto* s = std::get_if<std::string>(&v)) return *s;
  return std::monostate{};
}

static std::string describe(const Arg& a) {
  switch (a.kind) {
    case Arg::Kind::Tensor: return std::string("a tensor of ") + dtype_name(a.tensor.dtype());
    case Arg::Kind::Int: return "the integer " + std::to_string(a.i);
    case Arg::Kind::Float: return "a float";
    case Arg::Kind::Bool: return "a bool";
    case Arg::Kind::Null: return "None";
    case Arg::Kind::TensorDesc: return std::string("a tensor descriptor of ") + dtype_name(a.tensor.dtype());
    case Arg::Kind::Tuple: return a.tuple_->names.empty() ? "a tuple" : "a namedtuple " + a.tuple_->type_name;
  }
  return "?";
}

static bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

/// Triton's typing of a Python int argument: i32 when it fits, else i64/u64.
static std::string intTypeOf(int64_t v, bool isUnsigned64) {
  if (isUnsigned64) return "u64";
  if (v >= INT32_MIN && v <= INT32_MAX) return "i32";
  return "i64";
}

/// The parameter type of a host descriptor ("tensordesc<fp16[64, 64]>")
/// after Triton's TensorDescriptor checks: 1 to 5 dims, shapes and
/// strides of the block's rank, a unit last stride, a 16-byte aligned base
/// and other strides.
static std::string checkedDescriptorType(const frontend::JitFunction& fn, const frontend::Parameter& p,
                                         const TensorDescriptor& d) {
  std::string where = "kernel '" + fn.name + "': tensor descriptor argument '" + p.name + "'";
  size_t r = d.block_shape.size();
  if (!d.base.defined()) throw Error(where + " has an undefined base tensor");
  if (r < 1 || r > 5) throw Error(where + ": block_shape must have 1 to 5 dims, got " + std::to_string(r));
  if (d.shape.size() != r || d.strides.size() != r)
    throw Error(where + ": shape, strides and block_shape must have the same length");
  if (d.strides.back() != 1) throw Error(where + ": the last stride must be 1, got " + std::to_string(d.strides.back()));
  int64_t bytes = std::max<int64_t>(1, dtype_size(d.base.dtype()));
  if (d.base.data_ptr() % 16 != 0) throw Error(where + ": the base must be 16-byte aligned");
  for (size_t k = 0; k + 1 < r; ++k)
    if (d.strides[k] * bytes % 16 != 0)
      throw Error(where + ": strides (but the last) must be multiples of 16 bytes, got " +
                  std::to_string(d.strides[k]) + " elements of " + std::to_string(bytes) + " bytes");
  // TMA's ranges: dims below 2^32, strides positive and below 2^40 bytes.
  for (size_t k = 0; k < r; ++k) {
    if (d.shape[k] < 0 || d.shape[k] >= (int64_t{1} << 32))
      throw Error(where + ": shape[" + std::to_string(k) + "] must be in [0, 2^32), got " + std::to_string(d.shape[k]));
    if (k + 1 < r && (d.strides[k] <= 0 || d.strides[k] * bytes >= (int64_t{1} << 40)))
      throw Error(where + ": strides must be positive and below 2^40 bytes, got " + std::to_string(d.strides[k]));
    int64_t b = d.block_shape[k];
    if (b <= 0 || (b & (b - 1)) != 0 || b > 256)
      throw Error(where + ": block_shape entries must be powers of two up to 256, got " + std::to_string(b));
  }
  if (d.block_shape.back() * bytes < 16)
    throw Error(where + ": the last block dim must span at least 16 bytes, got " +
                std::to_string(d.block_shape.back() * bytes));
  if (d.padding != "zero" && d.padding != "nan")
    throw Error(where + ": padding must be 'zero' or 'nan', got '" + d.padding + "'");
  std::string dtype = dtype_name(d.base.dtype());
  if (d.padding == "nan" && !frontend::ArgType(dtype).isFloat())
    throw Error(where + ": padding 'nan' is only supported for floating-point data");
  if (d.round_f32_to_tf32 && dtype != "fp32")
    throw Error(where + ": round_f32_to_tf32 is only supported for float32 data, got " + dtype);
  frontend::TensorDescType t;
  t.dtype = dtype;
  t.block = d.block_shape;
  t.padding = d.padding;
  t.roundTf32 = d.round_f32_to_tf32;
  return t.str();
}

static BoundParam bindRuntime(const frontend::JitFunction& fn, const frontend::Parameter& p, const Arg& a) {
  BoundParam b;
  ParamSpec& s = b.spec;
  // A tuple's elements (named `p[k]`) follow their parameter's do_not_specialize.
  std::string param = p.name.substr(0, p.name.find('['));
  bool noSpecialize = contains(fn.doNotSpecialize, param);
  bool noAlign = noSpecialize || contains(fn.doNotSpecializeOnAlignment, param);
  switch (a.kind) {
    case Arg::Kind::Tensor:
      if (!a.tensor.defined())
        throw Error("kernel '" + fn.name + "': argument '" + p.name + "' is an undefined tensor");
      if (p.annotatedType && !p.annotatedType->empty() && (*p.annotatedType)[0] != '*' &&
          p.annotatedType->find("pointer") == std::string::npos)
        throw Error("kernel '" + fn.name + "': argument '" + p.name + "' is annotated as " + *p.annotatedType +
                    " but got " + describe(a));
      s.kind = ParamSpec::Kind::Pointer;
      s.type = std::string("*") + dtype_name(a.tensor.dtype());
      s.divisibleBy16 = !noAlign && a.tensor.data_ptr() % 16 == 0;
      b.tensor = &a.tensor;
      break;
    case Arg::Kind::Int:
      if (a.i == 1 && !noSpecialize && !a.isUnsigned64) {
        s.kind = ParamSpec::Kind::Constexpr;
        s.value = int64_t{1};
        break;
      }
      s.kind = ParamSpec::Kind::Scalar;
      s.type = intTypeOf(a.i, a.isUnsigned64);
      s.divisibleBy16 = !noAlign && intDivisibleBy16(a.i, a.isUnsigned64);
      std::tie(b.intValue, b.floatValue) = scalarValues(a);
      break;
    case Arg::Kind::Float:
      s.kind = ParamSpec::Kind::Scalar;
      s.type = "fp32";
      std::tie(b.intValue, b.floatValue) = scalarValues(a);
      break;
    case Arg::Kind::Bool:
      s.kind = ParamSpec::Kind::Scalar;
      s.type = "i1";
      std::tie(b.intValue, b.floatValue) = scalarValues(a);
      break;
    case Arg::Kind::Null:
      s.kind = ParamSpec::Kind::Constexpr;
      s.value = std::monostate{};
      break;
    case Arg::Kind::TensorDesc:
      s.kind = ParamSpec::Kind::TensorDesc;
      s.type = checkedDescriptorType(fn, p, *a.desc);
      b.tensor = &a.tensor;
      b.desc = a.desc.get();
      break;
    case Arg::Kind::Tuple: {
      // Each element is specialized like an argument of its own (the
      // parameter's annotation is the tuple's, not theirs).
      s.kind = ParamSpec::Kind::Tuple;
      s.fields = a.tuple_->names;
      s.typeName = a.tuple_->type_name;
      frontend::Parameter elem = p;
      elem.annotatedType.reset();
      for (size_t k = 0; k < a.tuple_->elems.size(); ++k) {
        elem.name = p.name + "[" + std::to_string(k) + "]";
        b.elems.push_back(bindRuntime(fn, elem, a.tuple_->elems[k]));
        s.elems.push_back(b.elems.back().spec);
      }
      return b;
    }
  }
  if (p.annotatedType && s.kind == ParamSpec::Kind::Scalar) s.type = *p.annotatedType;
  return b;
}

static BoundParam bindConstexpr(const frontend::JitFunction& fn, const frontend::Parameter& p, const Arg& a) {
  BoundParam b;
  b.spec.kind = ParamSpec::Kind::Constexpr;
  switch (a.kind) {
    case Arg::Kind::Int: b.spec.value = a.i; break;
    case Arg::Kind::Float: b.spec.value = a.f; break;
    case Arg::Kind::Bool: b.spec.value = a.b; break;
    case Arg::Kind::Null: b.spec.value = std::monostate{}; break;
    case Arg::Kind::Tensor: case Arg::Kind::TensorDesc: case Arg::Kind::Tuple:
      throw Error("kernel '" + fn.name + "': argument '" + p.name +
                  "' is a tl.constexpr parameter but got " + describe(a));
  }
  return b;
}

static Arg argFromValue(const Value& v) {
  if (auto* b = std::get_if<bool>(&v)) return Arg(*b);
  if (auto* i = std::get_if<int64_t>(&v)) return Arg(*i);
  if (auto* d = std::get_if<double>(&v)) return Arg(*d);
  return Arg(nullptr);
}

std::vector<BoundParam> bindArguments(const frontend::JitFunction& fn, const std::vector<Arg>& args,
                                      const Meta& constexprs, const Meta& extra) {
  const auto& params = fn.params;
  // The C++ API has no keyword syntax for tensors: its positional list fills
  // the runtime parameters in declaration order, keyword-only ones included
  // (the Python launcher applies Python's rule before it gets here).
  if (args.size() > params.size())
    throw Error("kernel '" + fn.name + "' takes " + std::to_string(params.size()) + " arguments but " +
                std::to_string(args.size()) + " were given");
  for (const auto& entry : constexprs) {
    // Not a structured binding: clang < 16 cannot capture one in a lambda.
    const std::string& name = entry.first;
    bool known = std::any_of(params.begin(), params.end(), [&](const auto& p) { return p.name == name; });
    if (!known)
      throw Error("kernel '" + fn.name + "': keyword argument '" + name +
                  "' was specified but the kernel has no such parameter");
  }
  std::vector<BoundParam> bound(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    const auto& p = params[i];
    auto named = constexprs.find(p.name);
    auto injected = extra.find(p.name);
    int sources = (i < args.size()) + (named != constexprs.end()) + (injected != extra.end());
    if (sources > 1)
      throw Error("kernel '" + fn.name + "': argument '" + p.name +
                  "' is given more than once (positionally, by name, or by autotune/heuristics)");
    if (i < args.size()) {
      bound[i] = p.isConstexpr ? bindConstexpr(fn, p, args[i]) : bindRuntime(fn, p, args[i]);
      continue;
    }
    const Value* v = named != constexprs.end() ? &named->second
                     : injected != extra.end() ? &injected->second
                                               : nullptr;
    if (v) {
      if (std::holds_alternative<std::string>(*v)) {
        if (!p.isConstexpr)
          throw Error("kernel '" + fn.name + "': argument '" + p.name +
                      "' is not a tl.constexpr parameter and cannot take a string");
        bound[i].spec.kind = ParamSpec::Kind::Constexpr;
        bound[i].spec.value = std::get<std::string>(*v);
        continue;
      }
      Arg a = argFromValue(*v);
      bound[i] = p.isConstexpr ? bindConstexpr(fn, p, a) : bindRuntime(fn, p, a);
      continue;
    }
    if (p.hasDefault && p.defaultValue) {
      bound[i].spec.kind = ParamSpec::Kind::Constexpr;
      bound[i].spec.value = *p.defaultValue;
      if (!p.isConstexpr) {
        // A runtime parameter with a default: pass the default as a runtime value.
        Arg a = argFromValue(toMetaValue(*p.defaultValue));
        if (!std::holds_alternative<std::monostate>(*p.defaultValue)) bound[i] = bindRuntime(fn, p, a);
      }
      continue;
    }
    throw Error("kernel '" + fn.name + "': missing argument '" + p.name + "' (parameter " +
                std::to_string(i + 1) + " of " + std::to_string(params.size()) + ")");
  }
  return bound;
}

Meta metaOf(const frontend::JitFunction& fn, const std::vector<BoundParam>& bound) {
  Meta meta;
  for (size_t i = 0; i < bound.size(); ++i) {
    const auto& s = bound[i].spec;
    if (s.kind == ParamSpec::Kind::Constexpr) {
      meta[fn.params[i].name] = toMetaValue(s.value);
    } else if (s.kind == ParamSpec::Kind::Scalar) {
      if (s.type == "fp32" || s.type == "fp64" || s.type == "fp16" || s.type == "bf16")
        meta[fn.params[i].name] = bound[i].floatValue;
      else if (s.type == "i1")
        meta[fn.params[i].name] = bound[i].intValue != 0;
      else
        meta[fn.params[i].name] = bound[i].intValue;
    }
  }
  return meta;
}

//===----------------------------------------------------------------------===//
// AOT signatures
//===----------------------------------------------------------------------===//

static std::string trim(std::string s) {
  size_t b = s.find_first_not_of(" \t\n");
  size_t e = s.find_last_not_of(" \t\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

/// Splits at the commas outside brackets and quoted strings; `unbalanced`,
/// when given, says whether a bracket is left open or closes none.
static std::vector<std::string> splitTopLevel(const std::string& sig, int* unbalanced = nullptr) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  bool unopened = false;
  char quote = 0;
  for (char c : sig) {
    if (quote) quote = c == quote ? 0 : quote;
    else if (c == '\'' || c == '"') quote = c;
    else if (c == '<' || c == '[' || c == '(') ++depth;
    else if ((c == '>' || c == ']' || c == ')') && --depth < 0) unopened = true;
    if (c == ',' && depth == 0 && !quote) {
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!trim(cur).empty() || !out.empty()) out.push_back(trim(cur));
  if (unbalanced) *unbalanced = unopened ? -1 : depth;
  return out;
}

static const char* const kTypeNames[] = {"i1",      "i8",      "i16",      "i32",     "i64",      "u1",   "u8",
                                         "u16",     "u32",     "u64",      "fp8e4nv", "fp8e5",    "fp8e4b15",
                                         "fp8e4b8", "fp8e5b16", "fp16",    "bf16",    "fp32",     "fp64", "B"};

static bool isKnownType(const std::string& t) {
  for (const char* n : kTypeNames)
    if (t == n) return true;
  return false;
}

static std::string knownTypes() {
  std::string list;
  for (const char* n : kTypeNames) list += (list.empty() ? "" : ", ") + std::string(n);
  return list;
}

/// True for an entry that is a word but no type, such as `i3`, `int32` or
/// `*fp3:16`: a misspelled type (a constexpr literal is a number, a quoted
/// string, True/False or None).
static bool isMisspelledType(const std::string& entry) {
  std::string type = trim(entry.substr(0, entry.rfind(':')));
  bool pointer = !type.empty() && type[0] == '*';
  if (pointer) type = type.substr(type.size() > 1 && type[1] == 'k' ? 2 : 1);
  if (type.empty() || isKnownType(type) || frontend::TensorDescType::parse(type)) return false;
  if (!pointer && (type == "True" || type == "False" || type == "true" || type == "false" || type == "None"))
    return false;
  return pointer || std::isalpha(static_cast<unsigned char>(type[0])) || type[0] == '_';
}

/// A constexpr literal in a signature: int (as Python writes it), float,
/// True/False, None, or a string.
static ConstValue parseLiteral(const std::string& text) {
  if (text == "True" || text == "true") return true;
  if (text == "False" || text == "false") return false;
  if (text == "None") return std::monostate{};
  int64_t i = 0;
  IntLiteralStatus status = parseIntLiteral(text, i);
  if (status == IntLiteralStatus::Ok) return i;
  if (status != IntLiteralStatus::NotAnInteger) throw Error(intLiteralError(text, status));
  char* end = nullptr;
  double d = std::strtod(text.c_str(), &end);
  if (end && *end == '\0' && !text.empty()) return d;
  std::string s = text;
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front()) s = s.substr(1, s.size() - 2);
  return s;
}

static bool isIdentifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

static ParamSpec parseEntry(const frontend::JitFunction& fn, const frontend::Parameter& p, const std::string& entry) {
  ParamSpec s;
  // A tuple argument: `(*fp32:16, i32)`, nested, or a namedtuple
  // `Sizes(n=i32, scale=i32:1)` whose fields the kernel reads by name.
  if (size_t open = entry.find('('); open != std::string::npos && entry.back() == ')' &&
                                      (open == 0 || isIdentifier(trim(entry.substr(0, open))))) {
    s.kind = ParamSpec::Kind::Tuple;
    s.typeName = trim(entry.substr(0, open));
    std::vector<std::string> items = splitTopLevel(entry.substr(open + 1, entry.size() - open - 2));
    if (!items.empty() && items.back().empty()) items.pop_back();  // `(x,)`
    for (const std::string& item : items) {
      size_t eq = item.find('=');
      bool named = eq != std::string::npos && isIdentifier(trim(item.substr(0, eq)));
      if (named) s.fields.push_back(trim(item.substr(0, eq)));
      if (!s.fields.empty() && s.fields.size() != s.elems.size() + 1)
        throw Error("signature of kernel '" + fn.name + "', parameter '" + p.name + "': in '" + entry +
                    "' either every element has a field name (name=TYPE) or none has");
      frontend::Parameter elem = p;
      elem.name = p.name + "[" + std::to_string(s.elems.size()) + "]";
      s.elems.push_back(parseEntry(fn, elem, named ? trim(item.substr(eq + 1)) : item));
    }
    if (!s.fields.empty() && s.typeName.empty()) s.typeName = "namedtuple";
    if (s.fields.empty() && !s.typeName.empty())
      throw Error("signature of kernel '" + fn.name + "', parameter '" + p.name + "': namedtuple '" + s.typeName +
                  "' needs its field names (" + s.typeName + "(name=TYPE, ...))");
    return s;
  }
  std::string type = entry, hint;
  if (size_t colon = entry.rfind(':'); colon != std::string::npos) {
    type = trim(entry.substr(0, colon));
    hint = trim(entry.substr(colon + 1));
  }
  auto bad = [&](const std::string& why) {
    return Error("signature of kernel '" + fn.name + "', parameter '" + p.name + "': " + why);
  };
  if (frontend::TensorDescType::parse(type)) {
    if (!hint.empty()) throw bad("a tensor descriptor takes no ':" + hint + "' specialization");
    s.kind = ParamSpec::Kind::TensorDesc;
    s.type = frontend::TensorDescType::parse(type)->str();
    return s;
  }
  if (!type.empty() && type[0] == '*') {
    std::string elem = type.substr(1);
    if (!elem.empty() && elem[0] == 'k') elem = elem.substr(1);
    if (!isKnownType(elem)) throw bad("unknown pointer element type '" + elem + "' (types: " + knownTypes() + ")");
    s.kind = ParamSpec::Kind::Pointer;
    s.type = type;
  } else if (isKnownType(type)) {
    s.kind = ParamSpec::Kind::Scalar;
    s.type = type == "B" || type == "u1" ? "i1" : type;
  } else {
    // A runtime parameter specialized to a constant (`1`, `None`, a quoted
    // string); a word is a misspelled type, not a string constant.
    if (isMisspelledType(entry))
      throw bad("unknown type '" + entry + "' (types: " + knownTypes() +
                "; *TYPE for a pointer; TYPE:16 for a multiple of 16, TYPE:1 for the value 1)");
    s.kind = ParamSpec::Kind::Constexpr;
    try {
      s.value = parseLiteral(entry);
    } catch (const Error& e) {
      throw bad(e.what());
    }
    return s;
  }
  // :16 and :1 say things of integers (and :16 of addresses): a float or
  // bool parameter with one is a mistake (fp32:1 was the integer 1).
  bool integer = s.kind == ParamSpec::Kind::Scalar && s.type.str() != "i1" && type[0] != 'f' && type != "bf16";
  if (!hint.empty() && s.kind == ParamSpec::Kind::Scalar && !integer)
    throw bad("':" + hint + "' specializes integer parameters (and :16 pointers), not " + s.type.str());
  if (hint == "16") {
    s.divisibleBy16 = true;
  } else if (hint == "1" && s.kind == ParamSpec::Kind::Scalar) {
    s.kind = ParamSpec::Kind::Constexpr;
    s.value = int64_t{1};
  } else if (!hint.empty()) {
    throw bad("unknown specialization ':" + hint + "' (expected :16 or :1)");
  }
  return s;
}

std::vector<ParamSpec> parseSignature(const frontend::JitFunction& fn, const std::string& signature,
                                      const Meta& constexprs) {
  // Brackets must pair up: one left open would swallow the entries after
  // it (reported as a wrong count before).
  int unbalanced = 0;
  std::vector<std::string> entries = splitTopLevel(signature, &unbalanced);
  if (unbalanced != 0)
    throw Error("signature of kernel '" + fn.name + "': '" + signature + "' has " +
                (unbalanced > 0 ? "an unclosed" : "an unopened") +
                " bracket (tuples are (T, T), descriptors tensordesc<...>)");
  if (!entries.empty() && entries.back().empty()) entries.pop_back();  // a trailing comma
  for (size_t i = 0; i < entries.size(); ++i)
    if (entries[i].empty())
      throw Error("signature of kernel '" + fn.name + "': entry " + std::to_string(i + 1) + " of '" + signature +
                  "' is empty (entries are types such as *fp32:16 or i32, separated by commas)");
  const auto& params = fn.params;
  // A non-constexpr parameter given a value (-D bias_ptr=None) is
  // specialized to it, as the same value in the signature (`None`, `1`)
  // would; it then leaves the signature.
  size_t runtimeCount = 0, runtimeByValue = 0;
  for (const auto& p : params)
    if (!p.isConstexpr) {
      ++runtimeCount;
      runtimeByValue += constexprs.count(p.name);
    }
  bool allParams = entries.size() == params.size() && entries.size() != runtimeCount &&
                   entries.size() != runtimeCount - runtimeByValue;
  bool byValue = !allParams && runtimeByValue > 0 && entries.size() == runtimeCount - runtimeByValue;
  for (const auto& p : params)
    if (!p.isConstexpr && constexprs.count(p.name) && !byValue)
      throw Error("kernel '" + fn.name + "': parameter '" + p.name + "' given both in the signature and by -D");
  if (!allParams && !byValue && entries.size() != runtimeCount) {
    // A misspelled type is the likelier mistake when there is one.
    std::string typo;
    for (const std::string& e : entries)
      if (isMisspelledType(e)) {
        typo = "; '" + e + "' is not a type (types: " + knownTypes() + ")";
        break;
      }
    throw Error("signature of kernel '" + fn.name + "' has " + std::to_string(entries.size()) +
                " entries but the kernel has " + std::to_string(runtimeCount) + " non-constexpr parameters (" +
                std::to_string(params.size()) + " in all)" + typo);
  }
  std::vector<ParamSpec> specs(params.size());
  size_t next = 0;
  for (size_t i = 0; i < params.size(); ++i) {
    const auto& p = params[i];
    auto named = constexprs.find(p.name);
    if (p.isConstexpr) {
      specs[i].kind = ParamSpec::Kind::Constexpr;
      if (allParams) {
        try {
          specs[i].value = parseLiteral(entries[next++]);
        } catch (const Error& e) {
          throw Error("signature of kernel '" + fn.name + "', constexpr '" + p.name + "': " + e.what());
        }
        if (named != constexprs.end())
          throw Error("kernel '" + fn.name + "': constexpr '" + p.name + "' given both in the signature and by -D");
      } else if (named != constexprs.end()) {
        specs[i].value = toConstValue(named->second);
      } else if (p.hasDefault && p.defaultValue) {
        specs[i].value = *p.defaultValue;
      } else {
        throw Error("kernel '" + fn.name + "': missing value for constexpr parameter '" + p.name +
                    "' (pass -D " + p.name + "=VALUE)");
      }
      continue;
    }
    if (named != constexprs.end()) {  // (byValue)
      specs[i].kind = ParamSpec::Kind::Constexpr;
      specs[i].value = toConstValue(named->second);
      continue;
    }
    specs[i] = parseEntry(fn, p, entries[next++]);
  }
  for (const auto& entry : constexprs) {
    // Not a structured binding: clang < 16 cannot capture one in a lambda.
    const std::string& name = entry.first;
    bool known = std::any_of(params.begin(), params.end(), [&](const auto& p) { return p.name == name; });
    if (!known) throw Error("kernel '" + fn.name + "' has no parameter named '" + name + "'");
  }
  return specs;
}

static void specKey(std::ostringstream& key, const ParamSpec& s) {
  switch (s.kind) {
    case ParamSpec::Kind::Pointer:
    case ParamSpec::Kind::Scalar: key << s.type << (s.divisibleBy16 ? ":D" : "") << ','; break;
    case ParamSpec::Kind::Constexpr: key << "c=" << frontend::toString(s.value) << ','; break;
    case ParamSpec::Kind::TensorDesc: key << s.type << ','; break;
    case ParamSpec::Kind::Tuple:
      key << s.typeName << '(';
      for (size_t k = 0; k < s.elems.size(); ++k) {
        if (k < s.fields.size()) key << s.fields[k] << '=';
        specKey(key, s.elems[k]);
      }
      key << "),";
      break;
  }
}

std::string specializationKey(const std::vector<ParamSpec>& specs, const frontend::CompileOptions& options) {
  std::ostringstream key;
  for (const auto& s : specs) specKey(key, s);
  key << "|debug=" << options.debug << "|warps=" << options.numWarps << "|stages=" << options.numStages;
  if (options.maxNumRegisters) key << "|maxnreg=" << options.maxNumRegisters;
  if (options.numCtas != 1) key << "|ctas=" << options.numCtas;
  return key.str();
}

}  // namespace tessera::detail
