//===- Natives.cpp - The outside modules host code sees -------------------===//
//
// Host code imports triton, torch and the standard library. None of them is
// run: each is modeled by its dotted path (a Native value), with the parts
// kernel files use made concrete:
//
//   triton           jit, autotune, heuristics, Config, cdiv,
//                    next_power_of_2, __version__ (3.6.0), the module tree
//                    of Triton 3.6 (an import of a path it lacks raises
//                    ModuleNotFoundError, so version switches pick the
//                    branch Triton 3.6 would)
//   triton.language  dtypes, constexpr (the value itself), and the names
//                    the code generator knows (asked through TritonNames)
//   triton.runtime.driver.active  get_current_target(), get_current_device(),
//                    utils.get_device_properties(i)
//   torch            dtypes, finfo/iinfo, __version__, version.cuda/hip,
//                    cuda.is_available/get_device_capability/
//                    get_device_properties/device_count/current_device
//   stdlib           math, os.environ/getenv, sys.version_info, itertools
//                    (product, chain, combinations), functools (partial,
//                    reduce, cache decorators), operator, packaging.version,
//                    importlib.metadata.version
//
// Device queries answer from the Environment's DeviceInfo. Anything else of
// these modules is a Native path whose calls give Opaque values.
//
//===----------------------------------------------------------------------===//

#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

#include "Builtins.h"

namespace tessera::host {

const char* tritonVersion() { return "3.6.0"; }

namespace {

const char* kTorchVersion = "2.11.0";
const char* kCudaVersion = "13.0";

/// Triton 3.6's modules outside triton.language (which TritonNames answers).
const std::unordered_set<std::string>& tritonModules() {
  static const std::unordered_set<std::string> m = {
      "triton", "triton.runtime", "triton.runtime.jit", "triton.runtime.autotuner", "triton.runtime.driver",
      "triton.runtime.errors", "triton.runtime.cache", "triton.runtime.interpreter", "triton.testing",
      "triton.compiler", "triton.compiler.compiler", "triton.compiler.errors", "triton.tools",
      "triton.tools.tensor_descriptor", "triton.backends", "triton.backends.compiler", "triton.knobs",
      "triton.language.target_info", "triton.experimental", "triton.profiler", "triton.profiler.language",
      "triton.runtime.build", "triton.tools.disasm"};
  return m;
}

const std::unordered_set<std::string>& stdlibRoots() {
  static const std::unordered_set<std::string> m = {
      "math", "os", "sys", "itertools", "functools", "operator", "typing", "typing_extensions", "packaging",
      "importlib", "warnings", "logging", "enum", "dataclasses", "abc", "inspect", "re", "collections",
      "contextlib", "copy", "types", "time", "__future__", "json", "pathlib", "builtins", "numbers", "random",
      "textwrap", "weakref", "threading", "argparse", "platform", "string", "struct", "hashlib"};
  return m;
}

/// Canonical Triton element type of a torch or tl dtype attribute.
const char* dtypeName(const std::string& attr, bool torch) {
  static const std::unordered_map<std::string, const char*> names = {
      {"float16", "fp16"}, {"bfloat16", "bf16"}, {"float32", "fp32"}, {"float64", "fp64"}, {"int8", "i8"},
      {"int16", "i16"}, {"int32", "i32"}, {"int64", "i64"}, {"uint8", "u8"}, {"uint16", "u16"},
      {"uint32", "u32"}, {"uint64", "u64"}, {"float8e4nv", "fp8e4nv"}, {"float8e5", "fp8e5"},
      {"float8e4b15", "fp8e4b15"}, {"float8e4b8", "fp8e4b8"}, {"float8e5b16", "fp8e5b16"},
      {"float8_e4m3fn", "fp8e4nv"}, {"float8_e5m2", "fp8e5"}, {"float8_e4m3fnuz", "fp8e4b8"},
      {"float8_e5m2fnuz", "fp8e5b16"}};
  static const std::unordered_map<std::string, const char*> torchOnly = {
      {"bool", "i1"}, {"half", "fp16"}, {"float", "fp32"}, {"double", "fp64"}, {"int", "i32"}, {"long", "i64"},
      {"short", "i16"}};
  static const std::unordered_map<std::string, const char*> tlOnly = {{"int1", "i1"}};
  if (auto it = names.find(attr); it != names.end()) return it->second;
  const auto& extra = torch ? torchOnly : tlOnly;
  if (auto it = extra.find(attr); it != extra.end()) return it->second;
  return nullptr;
}

/// torch.__version__: a string that compares as a version (torch's
/// TorchVersion), marked by `b`.
Ref versionString(const char* text) {
  Ref s = str(text);
  s->b = true;
  return s;
}

bool isLanguagePath(const std::string& p) { return p == "triton.language" || p.rfind("triton.language.", 0) == 0; }

// ---- triton -----------------------------------------------------------------

Ref makeJit(Interp& in, const Ref& target, const Object& fn, Kwargs& options, bool byCall) {
  if (target->kind == Kind::JitFn) return target;
  if (target->kind == Kind::Opaque) return target;
  if (target->kind != Kind::Function)
    in.raise("TypeError", "triton.jit expects a function, got " + typeName(*target), in.here());
  auto o = std::make_shared<Object>(Kind::JitFn);
  o->jit = std::make_shared<JitData>();
  o->jit->function = target;
  if (fn.self)
    for (auto& [k, v] : fn.self->attrs) o->jit->options.emplace_back(k, v);
  for (auto& [k, v] : options) o->jit->options.emplace_back(k, v);
  options.clear();
  o->jit->loc = in.here();
  if (byCall && in.here().file)
    o->jit->madeBy = "triton.jit(" + target->fn->name + ") at " + in.here().file->name() + ":" +
                     std::to_string(in.here().line);
  return o;
}

Ref tJit(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Ref target = a.empty() ? kwarg(kw, "fn") : a[0];
  if (!target || target->kind == Kind::None) {
    // triton.jit(**options): a decorator that remembers them.
    Ref opts = instance("triton.jit options");
    if (fn.self) opts->attrs = fn.self->attrs;
    for (auto& [k, v] : kw) opts->attrs[k] = v;
    kw.clear();
    return builtin("triton.jit", opts);
  }
  return makeJit(in, target, fn, kw, true);
}

/// triton.autotune(...) / triton.heuristics(...) called as an expression:
/// a decorator holding its (evaluated) arguments.
Ref tDecoratorFactory(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Ref holder = instance(fn.s + " decorator");
  holder->items = a;
  Ref kwDict = dict();
  for (auto& [k, v] : kw) dictSet(*kwDict, str(k), v);
  kw.clear();
  holder->attrs["kwargs"] = kwDict;
  holder->where = in.here();
  return builtin(fn.s + ".apply", holder);
}

Ref tDecoratorApply(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Ref target = arg(in, fn, a, kw, 0, nullptr);
  if (target->kind == Kind::Opaque) return target;
  if (target->kind != Kind::JitFn)
    in.raise("TypeError", fn.s.substr(0, fn.s.size() - 6) + " must wrap a @triton.jit function, got " +
                              typeName(*target), in.here());
  auto o = std::make_shared<Object>(Kind::JitFn);
  o->jit = std::make_shared<JitData>(*target->jit);
  LazyDecorator lazy;
  lazy.what = fn.s == "triton.autotune.apply" ? LazyDecorator::What::Autotune : LazyDecorator::What::Heuristics;
  lazy.args = std::make_shared<std::vector<Ref>>(fn.self->items);
  lazy.kwargs = std::make_shared<Kwargs>();
  const Ref& d = fn.self->attrs.at("kwargs");
  for (size_t k = 0; k < d->keys.size(); ++k) lazy.kwargs->emplace_back(d->keys[k]->s, d->items[k]);
  lazy.loc = fn.self->where;
  o->jit->decorators.push_back(std::move(lazy));
  return o;
}

Ref tConfig(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  static const char* names[] = {"kwargs", "num_warps", "num_stages", "num_ctas", "maxnreg", "pre_hook"};
  Ref c = instance("triton.Config");
  c->attrs["kwargs"] = dict();
  c->attrs["num_warps"] = integer(4);
  c->attrs["num_stages"] = integer(3);
  c->attrs["num_ctas"] = integer(1);
  c->attrs["maxnreg"] = none();
  c->attrs["pre_hook"] = none();
  for (size_t k = 0; k < a.size() && k < 6; ++k) c->attrs[names[k]] = a[k];
  for (const char* n : names)
    if (Ref v = kwarg(kw, n)) c->attrs[n] = v;
  kwarg(kw, "ir_override");
  const Ref& kwargs = c->attrs["kwargs"];
  if (kwargs->kind != Kind::Dict && kwargs->kind != Kind::Opaque)
    in.raise("TypeError", "triton.Config: kwargs must be a dict of meta-parameters, got " + typeName(*kwargs), in.here());
  return c;
}

Ref tConfigAllKwargs(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Ref out = dict();
  const Object& c = *fn.self;
  const Ref& k = c.attrs.at("kwargs");
  for (size_t i = 0; i < k->keys.size(); ++i) dictSet(*out, k->keys[i], k->items[i]);
  for (const char* n : {"num_warps", "num_stages", "num_ctas", "maxnreg"})
    if (c.attrs.at(n)->kind != Kind::None) dictSet(*out, str(n), c.attrs.at(n));
  return out;
}

// torch.Tensor (tensorValue): the attributes and methods prune_configs_by's
// callables read of a launch's tensors.
Ref tensorElementSize(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  const std::string& d = fn.self->attrs.at("dtype")->s;
  int bits = d == "i1" ? 8 : std::atoi(d.c_str() + d.find_first_of("0123456789"));
  if (d.rfind("fp8", 0) == 0) bits = 8;
  return integer(std::max(1, bits / 8));
}

Ref tensorDataPtr(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) { return fn.self->attrs.at("_data_ptr"); }

Ref tensorNumel(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  BigInt n(1);
  for (const Ref& d : fn.self->attrs.at("shape")->items) n = n * d->i;
  return integer(n);
}

Ref tensorDim(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) { return fn.self->attrs.at("ndim"); }

/// size() / stride(): the tuple, or one dimension (negative from the end).
Ref tensorDims(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  bool stride = fn.s == "torch.Tensor.stride";
  const Ref& all = fn.self->attrs.at(stride ? "_strides" : "shape");
  Ref d = arg(in, fn, a, kw, 0, "dim", none());
  if (d->kind == Kind::None) return all;
  int64_t n = static_cast<int64_t>(all->items.size());
  int64_t k = intArg(in, d, stride ? "Tensor.stride" : "Tensor.size");
  if (k < 0) k += n;
  if (k < 0 || k >= n)
    in.raise("IndexError", "Dimension out of range (expected to be in range of [" + std::to_string(-n) + ", " +
                               std::to_string(n - 1) + "], but got " + std::to_string(k) + ")", in.here());
  return all->items[k];
}

Ref tCdiv(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Ref x = arg(in, fn, a, kw, 0, "x"), d = arg(in, fn, a, kw, 1, "div");
  Ref sum = binaryOp(in, py::BinOpKind::Sub, binaryOp(in, py::BinOpKind::Add, x, d), integer(1));
  return binaryOp(in, py::BinOpKind::FloorDiv, sum, d);
}

Ref tNextPow2(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  int64_t n = intArg(in, arg(in, fn, a, kw, 0, "n"), "triton.next_power_of_2");
  int64_t p = 1;
  while (p < n && p < (int64_t{1} << 62)) p <<= 1;
  return integer(p);
}

Ref tConstexpr(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  // Tessera's constexpr globals are the plain values. A function wrapped
  // (`@tl.constexpr` on a host helper, as FlagGems writes them) is one that
  // kernels call at compile time, as a constexpr_function.
  if (!a.empty() && a[0]->kind == Kind::Function) a[0]->fn->constexprFunction = true;
  return a.empty() ? none() : a[0];
}

/// triton.language.core.get_int_dtype(bitwidth, signed): the integer dtype.
Ref tGetIntDtype(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Ref bits = arg(in, fn, a, kw, 0, "bitwidth"), sign = arg(in, fn, a, kw, 1, "signed");
  std::optional<bool> signedness = in.truth(sign);
  if (bits->kind == Kind::Int && signedness) {
    if (bits->i == BigInt(1)) return dtype("i1");
    for (int w : {8, 16, 32, 64})
      if (bits->i == BigInt(w)) return dtype((*signedness ? "i" : "u") + std::to_string(w));
  }
  in.raise("ValueError", "Unsupported bitwidth " + repr(*bits) + " and signedness " + repr(*sign), in.here());
}

Ref tCurrentTarget(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  DeviceInfo d = in.device();
  Ref t = instance("GPUTarget");
  t->attrs["backend"] = str("cuda");
  t->attrs["arch"] = integer(d.major * 10 + d.minor);
  t->attrs["warp_size"] = integer(32);
  return t;
}

Ref deviceProps(Interp& in) {
  DeviceInfo d = in.device();
  Ref p = dict();
  dictSet(*p, str("multiprocessor_count"), integer(d.multiprocessors));
  dictSet(*p, str("max_shared_mem"), integer(d.sharedMemPerBlockOptin));
  dictSet(*p, str("max_num_regs"), integer(65536));
  dictSet(*p, str("warpSize"), integer(32));
  dictSet(*p, str("sm_clock_rate"), integer(1980000));
  dictSet(*p, str("mem_clock_rate"), integer(2619000));
  dictSet(*p, str("mem_bus_width"), integer(5120));
  return p;
}

Ref tDeviceProperties(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) { return deviceProps(in); }
Ref tCurrentDevice(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) { return integer(0); }

// ---- torch ------------------------------------------------------------------

Ref torchCapability(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  kwarg(kw, "device");
  DeviceInfo d = in.device();
  return tuple({integer(d.major), integer(d.minor)});
}

Ref torchProperties(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  kwarg(kw, "device");
  DeviceInfo d = in.device();
  Ref p = instance("torch.cuda.DeviceProperties");
  p->attrs["multi_processor_count"] = integer(d.multiprocessors);
  p->attrs["major"] = integer(d.major);
  p->attrs["minor"] = integer(d.minor);
  p->attrs["name"] = str(d.name);
  p->attrs["total_memory"] = integer(d.totalMemory);
  p->attrs["shared_memory_per_block_optin"] = integer(d.sharedMemPerBlockOptin);
  p->attrs["warp_size"] = integer(32);
  p->attrs["max_threads_per_multi_processor"] = integer(2048);
  p->attrs["L2_cache_size"] = integer(int64_t{50} << 20);
  return p;
}

Ref torchTrue(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) { return boolean(true); }

/// triton.language.target_info: the target is CUDA, of the device's
/// capability (constexpr_functions in Triton, callable from kernels).
const std::unordered_set<std::string>& targetInfoNames() {
  static const std::unordered_set<std::string> names = {"is_cuda", "is_hip", "is_hip_cdna3", "is_hip_cdna4",
                                                        "cuda_capability_geq"};
  return names;
}

Ref targetInfo(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  std::string name = fn.s.substr(fn.s.rfind('.') + 1);
  if (name != "cuda_capability_geq") return boolean(name == "is_cuda");
  Ref major = arg(in, fn, a, kw, 0, "major"), minor = arg(in, fn, a, kw, 1, "minor", integer(0));
  if (major->kind != Kind::Int || minor->kind != Kind::Int)
    in.raise("TypeError", "cuda_capability_geq takes integers", in.here());
  DeviceInfo d = in.device();
  BigInt dm(d.major), dn(d.minor);
  return boolean(dm > major->i || (dm == major->i && dn >= minor->i));
}
Ref torchOne(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) { return integer(fn.s == "torch.cuda.device_count" ? 1 : 0); }
Ref torchName(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) { return str(in.device().name); }

Ref torchFinfo(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Ref t = a.empty() ? dtype("fp32") : a[0];
  if (t->kind != Kind::DType) in.raise("TypeError", fn.s + "() expects a dtype", in.here());
  Ref info = instance(fn.s);
  const std::string& n = t->s;
  if (fn.s == "torch.finfo") {
    struct F { const char* n; double max, tiny, eps; int bits; };
    static const F table[] = {{"fp16", 65504.0, 6.103515625e-05, 0.0009765625, 16},
                              {"bf16", 3.3895313892515355e+38, 1.1754943508222875e-38, 0.0078125, 16},
                              {"fp32", FLT_MAX, FLT_MIN, FLT_EPSILON, 32},
                              {"fp64", DBL_MAX, DBL_MIN, DBL_EPSILON, 64},
                              {"fp8e4nv", 448.0, 0.015625, 0.125, 8},
                              {"fp8e5", 57344.0, 6.103515625e-05, 0.25, 8}};
    for (const F& f : table)
      if (n == f.n) {
        info->attrs["max"] = flt(f.max);
        info->attrs["min"] = flt(-f.max);
        info->attrs["tiny"] = info->attrs["smallest_normal"] = flt(f.tiny);
        info->attrs["eps"] = flt(f.eps);
        info->attrs["bits"] = integer(f.bits);
        return info;
      }
    in.raise("TypeError", "torch.finfo() requires a floating point input type, got " + n, in.here());
  }
  bool isSigned = n[0] == 'i' && n != "i1";
  int bits = n == "i1" ? 8 : std::atoi(n.c_str() + 1);
  if ((n[0] != 'i' && n[0] != 'u') || bits <= 0) in.raise("TypeError", "torch.iinfo() requires an integer input type, got " + n, in.here());
  BigInt one(1);
  info->attrs["bits"] = integer(bits);
  info->attrs["max"] = integer(isSigned ? one.shl(bits - 1) - one : one.shl(bits) - one);
  info->attrs["min"] = integer(isSigned ? -one.shl(bits - 1) : BigInt(0));
  return info;
}

// ---- standard library --------------------------------------------------------

Ref mathFn(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  std::string f = fn.s.substr(5);
  if (f == "gcd" || f == "lcm") {
    auto gcd = [&](BigInt x, BigInt y) {
      if (x.isNegative()) x = -x;
      if (y.isNegative()) y = -y;
      while (!y.isZero()) {
        in.step();
        BigInt t = BigInt::floorMod(x, y);
        x = y;
        y = t;
      }
      return x;
    };
    BigInt r = f == "gcd" ? BigInt(0) : BigInt(1);
    for (auto& x : a) {
      if (x->kind != Kind::Int && x->kind != Kind::Bool) in.raise("TypeError", fn.s + "() takes integers", in.here());
      BigInt v = x->kind == Kind::Bool ? BigInt(x->b) : x->i;
      if (f == "gcd") r = gcd(r, v);
      else if (v.isZero() || r.isZero()) r = 0;
      else {
        BigInt g = gcd(r, v), p = BigInt::floorDiv(r * v, g);
        r = p.isNegative() ? -p : p;
      }
    }
    return integer(r);
  }
  if (f == "prod") {
    Ref acc = integer(1);
    for (auto& x : in.iterate(arg(in, fn, a, kw, 0, nullptr), in.here())) acc = binaryOp(in, py::BinOpKind::Mult, acc, x);
    return acc;
  }
  if (f == "isqrt") {
    int64_t v = intArg(in, arg(in, fn, a, kw, 0, nullptr), "math.isqrt");
    if (v < 0) in.raise("ValueError", "isqrt() argument must be nonnegative", in.here());
    __int128 r = static_cast<int64_t>(std::sqrt(static_cast<double>(v)));
    while (r * r > v) --r;
    while ((r + 1) * (r + 1) <= v) ++r;
    return integer(static_cast<int64_t>(r));
  }
  double x = floatArg(in, arg(in, fn, a, kw, 0, nullptr), fn.s.c_str());
  if (f == "ceil" || f == "floor" || f == "trunc") {
    if (a[0]->kind == Kind::Int) return a[0];
    double r = f == "ceil" ? std::ceil(x) : f == "floor" ? std::floor(x) : std::trunc(x);
    if (auto b = BigInt::fromDouble(r)) return integer(*b);
    in.raise("OverflowError", "cannot convert float infinity to integer", in.here());
  }
  if (f == "isinf") return boolean(std::isinf(x));
  if (f == "isnan") return boolean(std::isnan(x));
  if (f == "isfinite") return boolean(std::isfinite(x));
  if ((f == "log" || f == "log2" || f == "log10") && x <= 0) in.raise("ValueError", "math domain error", in.here());
  if (f == "sqrt" && x < 0) in.raise("ValueError", "math domain error", in.here());
  if (f == "log" && a.size() > 1) return flt(std::log(x) / std::log(floatArg(in, a[1], "math.log")));
  if (f == "pow") return flt(std::pow(x, floatArg(in, arg(in, fn, a, kw, 1, nullptr), "math.pow")));
  if (f == "isclose") {
    double y = floatArg(in, arg(in, fn, a, kw, 1, nullptr), "math.isclose");
    Ref rt = kwarg(kw, "rel_tol"), at = kwarg(kw, "abs_tol");
    double r = rt ? floatArg(in, rt, "rel_tol") : 1e-9, ab = at ? floatArg(in, at, "abs_tol") : 0;
    return boolean(x == y || std::fabs(x - y) <= std::max(r * std::max(std::fabs(x), std::fabs(y)), ab));
  }
  static const std::unordered_map<std::string, double (*)(double)> unary = {
      {"log", std::log}, {"log2", std::log2}, {"log10", std::log10}, {"exp", std::exp}, {"exp2", std::exp2},
      {"sqrt", std::sqrt}, {"fabs", std::fabs}, {"sin", std::sin}, {"cos", std::cos}, {"tan", std::tan},
      {"tanh", std::tanh}, {"erf", std::erf}, {"atan", std::atan}};
  if (auto it = unary.find(f); it != unary.end()) return flt(it->second(x));
  return opaque("a call of " + fn.s + "()", in.here());
}

Ref osGetenv(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Ref name = arg(in, fn, a, kw, 0, "key");
  Ref dflt = a.size() > 1 ? a[1] : kwarg(kw, "default");
  if (name->kind != Kind::Str) in.raise("TypeError", "str expected, not " + typeName(*name), in.here());
  if (const char* v = std::getenv(name->s.c_str())) return str(v);
  return dflt ? dflt : none();
}

Ref itProduct(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Ref rep = kwarg(kw, "repeat");
  std::vector<std::vector<Ref>> pools;
  int64_t times = rep ? intArg(in, rep, "repeat") : 1;
  if (times < 0 || times > 64) return opaque("itertools.product with repeat=" + std::to_string(times), in.here());
  for (int64_t r = 0; r < times; ++r)
    for (auto& x : a) pools.push_back(in.iterate(x, in.here()));
  std::vector<Ref> out{tuple({})};
  for (auto& pool : pools) {
    std::vector<Ref> next;
    for (auto& prefix : out)
      for (auto& x : pool) {
        in.step();
        std::vector<Ref> row = prefix->items;
        row.push_back(x);
        next.push_back(tuple(std::move(row)));
        in.checkSize(next.size(), "list");
      }
    out = std::move(next);
  }
  return list(std::move(out));
}

Ref itChain(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  std::vector<Ref> out;
  for (auto& x : a)
    for (auto& e : in.iterate(x, in.here())) out.push_back(e);
  in.checkSize(out.size(), "list");
  return list(std::move(out));
}

Ref itCombinations(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  std::vector<Ref> pool = in.iterate(arg(in, fn, a, kw, 0, "iterable"), in.here());
  int64_t r = intArg(in, arg(in, fn, a, kw, 1, "r"), "combinations");
  if (r < 0) in.raise("ValueError", "r must be non-negative", in.here());
  std::vector<Ref> out;
  if (r > static_cast<int64_t>(pool.size())) return list({});
  if (r > 64) return opaque("itertools.combinations of more than 64 elements each", in.here());
  std::vector<size_t> idx;
  std::function<void(size_t)> rec = [&](size_t start) {
    in.step();
    if (static_cast<int64_t>(idx.size()) == r) {
      std::vector<Ref> row;
      for (size_t i : idx) row.push_back(pool[i]);
      out.push_back(tuple(std::move(row)));
      in.checkSize(out.size(), "list");
      return;
    }
    for (size_t i = start; i < pool.size(); ++i) {
      idx.push_back(i);
      rec(i + 1);
      idx.pop_back();
    }
  };
  if (r >= 0) rec(0);
  return list(std::move(out));
}

Ref ftPartial(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Ref p = instance("functools.partial");
  p->items = a;
  Ref d = dict();
  for (auto& [k, v] : kw) dictSet(*d, str(k), v);
  kw.clear();
  p->attrs["keywords"] = d;
  return builtin("functools.partial.call", p);
}

Ref ftPartialCall(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  const Object& p = *fn.self;
  if (p.items.empty()) in.raise("TypeError", "the first argument of functools.partial must be callable", in.here());
  std::vector<Ref> args(p.items.begin() + 1, p.items.end());
  args.insert(args.end(), a.begin(), a.end());
  Kwargs all;
  const Ref& d = p.attrs.at("keywords");
  for (size_t k = 0; k < d->keys.size(); ++k) {
    bool overridden = false;
    for (auto& x : kw) overridden = overridden || x.first == d->keys[k]->s;
    if (!overridden) all.emplace_back(d->keys[k]->s, d->items[k]);
  }
  for (auto& x : kw) all.push_back(x);
  kw.clear();
  return in.call(p.items[0], std::move(args), std::move(all), in.here());
}

Ref ftReduce(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Ref f = arg(in, fn, a, kw, 0, nullptr);
  std::vector<Ref> xs = in.iterate(arg(in, fn, a, kw, 1, nullptr), in.here());
  size_t k = 0;
  Ref acc = a.size() > 2 ? a[2] : nullptr;
  if (!acc) {
    if (xs.empty()) in.raise("TypeError", "reduce() of empty iterable with no initial value", in.here());
    acc = xs[k++];
  }
  for (; k < xs.size(); ++k) acc = in.call(f, {acc, xs[k]}, {}, in.here());
  return acc;
}

/// `@functools.cache`, `@lru_cache(...)`, `@wraps(f)`: the function itself.
Ref ftIdentityDecorator(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  kw.clear();
  if (a.size() == 1 && (a[0]->kind == Kind::Function || a[0]->kind == Kind::JitFn) && fn.s != "functools.wraps")
    return a[0];
  return builtin("functools.identity");
}

Ref ftIdentity(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) { return a.empty() ? none() : a[0]; }

/// `collections.namedtuple(name, fields, defaults=...)`: a class whose objects
/// are tuples with named fields (Interp::makeNamedTuple).
Ref namedTupleClass(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Ref defaults;
  for (const auto& [k, v] : kw)
    if (k == "defaults") defaults = v;
  if (a.size() != 2 || a[0]->kind != Kind::Str)
    in.raise("TypeError", "namedtuple() takes a type name and field names", in.here());
  std::vector<Ref> names;
  if (a[1]->kind == Kind::Str) {
    std::string cur;
    for (char c : a[1]->s + " ") {
      if (c == ',' || c == ' ') {
        if (!cur.empty()) names.push_back(str(cur));
        cur.clear();
      } else {
        cur += c;
      }
    }
  } else if (isSequence(*a[1])) {
    for (const auto& x : a[1]->items) {
      if (x->kind != Kind::Str) in.raise("TypeError", "namedtuple() field names must be strings", in.here());
      names.push_back(x);
    }
  } else {
    in.raise("TypeError", "namedtuple() field names must be a string or a list of strings", in.here());
  }
  Ref cls = instance("class " + a[0]->s);
  cls->attrs["__classes__"] = tuple({str(a[0]->s)});
  cls->attrs["__fields__"] = tuple(names);
  cls->attrs["__field_constexpr__"] = tuple(std::vector<Ref>(names.size(), boolean(false)));
  cls->attrs["__namedtuple__"] = boolean(true);
  if (defaults && isSequence(*defaults) && defaults->items.size() <= names.size())
    for (size_t k = 0; k < defaults->items.size(); ++k)
      cls->attrs[names[names.size() - defaults->items.size() + k]->s] = defaults->items[k];
  in.keepClass(cls);
  return cls;
}

/// `@triton.constexpr_function`: the function itself, marked so that kernels
/// may call it (at compile time, on constexprs); on the host it runs as is.
/// A builtin (`triton.constexpr_function(core.get_int_dtype)`) is wrapped in
/// a marked copy: the builtin object itself may be shared.
Ref constexprFunctionDecorator(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  if (a.size() != 1 || !kw.empty() || (a[0]->kind != Kind::Function && a[0]->kind != Kind::Builtin))
    in.raise("TypeError", "triton.constexpr_function expects one function", in.here());
  if (a[0]->kind == Kind::Builtin) {
    Ref marked = builtin(a[0]->s, a[0]->self);
    marked->attrs[kConstexprFunctionAttr] = boolean(true);
    return marked;
  }
  a[0]->fn->constexprFunction = true;
  return a[0];
}

Ref opFn(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  static const std::unordered_map<std::string, py::CmpOpKind> cmp = {
      {"operator.lt", py::CmpOpKind::Lt}, {"operator.le", py::CmpOpKind::LtE}, {"operator.gt", py::CmpOpKind::Gt},
      {"operator.ge", py::CmpOpKind::GtE}, {"operator.eq", py::CmpOpKind::Eq}, {"operator.ne", py::CmpOpKind::NotEq}};
  static const std::unordered_map<std::string, py::BinOpKind> bin = {
      {"operator.add", py::BinOpKind::Add}, {"operator.sub", py::BinOpKind::Sub}, {"operator.mul", py::BinOpKind::Mult},
      {"operator.floordiv", py::BinOpKind::FloorDiv}, {"operator.truediv", py::BinOpKind::Div}, {"operator.mod", py::BinOpKind::Mod}};
  Ref x = arg(in, fn, a, kw, 0, nullptr), y = arg(in, fn, a, kw, 1, nullptr);
  if (auto it = cmp.find(fn.s); it != cmp.end()) return compareOp(in, it->second, x, y);
  return binaryOp(in, bin.at(fn.s), x, y);
}

/// A version object: its text and its release numbers (`3.6.0.dev1+git` ->
/// (3, 6, 0)); pre-releases compare as their release.
Ref makeVersion(Interp& in, const std::string& text) {
  Ref v = instance("<version>");
  v->attrs["text"] = str(text);
  std::vector<Ref> parts;
  size_t k = 0;
  if (k < text.size() && (text[k] == 'v' || text[k] == 'V')) ++k;
  while (k < text.size() && std::isdigit(static_cast<unsigned char>(text[k]))) {
    int64_t n = 0;
    while (k < text.size() && std::isdigit(static_cast<unsigned char>(text[k])) && n < (int64_t{1} << 40))
      n = n * 10 + (text[k++] - '0');
    parts.push_back(integer(n));
    if (k < text.size() && text[k] == '.' && k + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[k + 1]))) ++k;
    else break;
  }
  if (parts.empty()) in.raise("ValueError", "Invalid version: " + repr(*str(text)), in.here());
  v->attrs["release"] = tuple(parts);
  v->attrs["major"] = parts[0];
  v->attrs["minor"] = parts.size() > 1 ? parts[1] : integer(0);
  v->attrs["micro"] = parts.size() > 2 ? parts[2] : integer(0);
  v->attrs["base_version"] = str(text.substr(0, k));
  return v;
}

Ref pkgVersion(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Ref t = arg(in, fn, a, kw, 0, nullptr);
  if (t->kind == Kind::Instance && t->s == "<version>") return t;
  if (t->kind != Kind::Str) in.raise("TypeError", "expected string or bytes-like object, got '" + typeName(*t) + "'", in.here());
  return makeVersion(in, t->s);
}

Ref metadataVersion(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Ref name = arg(in, fn, a, kw, 0, nullptr);
  if (name->kind != Kind::Str) in.raise("TypeError", "a distribution name must be a string", in.here());
  if (name->s == "triton") return str(tritonVersion());
  if (name->s == "torch") return str(kTorchVersion);
  return opaque("the installed version of '" + name->s + "'", in.here());
}

/// importlib.import_module(name): `import name`'s module (absolute names;
/// a relative one, which needs `package`, is left undecided).
Ref importlibImportModule(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Ref name = arg(in, fn, a, kw, 0, "name");
  arg(in, fn, a, kw, 1, "package", none());
  if (name->kind != Kind::Str) in.raise("TypeError", "a module name must be a string", in.here());
  if (name->s.empty() || name->s[0] == '.') return opaque("importlib.import_module of a relative name", in.here());
  return importModule(in, name->s, in.here());
}

Ref findSpec(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Ref name = arg(in, fn, a, kw, 0, nullptr);
  if (name->kind != Kind::Str) return none();
  std::string root = name->s.substr(0, name->s.find('.'));
  if (root == "triton" || root == "torch" || stdlibRoots().count(root)) return instance("ModuleSpec");
  return opaque("whether module '" + name->s + "' is installed", in.here());
}

/// inspect.signature(f): a Signature whose `parameters` is a dict, in
/// order, of name -> Parameter (`name`, `default`: the value or
/// inspect.Parameter.empty), for functions defined in evaluated code and
/// Triton 3.6's decorators (`"c_cache" in
/// inspect.signature(triton.jit).parameters` probes what this Triton takes).
/// Anything else is left undecided.
Ref inspectSignature(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  Ref f = arg(in, fn, a, kw, 0, "obj");
  Ref empty = native("inspect.Parameter.empty");
  std::vector<std::pair<std::string, Ref>> params;
  if (f->kind == Kind::Builtin && !f->self) {
    // Triton 3.6's signatures (only the names and defaults matter here).
    static const std::unordered_map<std::string, std::vector<std::string>> triton = {
        {"triton.jit", {"fn", "version", "repr", "launch_metadata", "do_not_specialize",
                        "do_not_specialize_on_alignment", "debug", "noinline"}},
        {"triton.autotune", {"configs", "key", "prune_configs_by", "reset_to_zero", "restore_value", "pre_hook",
                             "post_hook", "warmup", "rep", "use_cuda_graph", "do_bench", "cache_results"}},
        {"triton.heuristics", {"values"}},
        {"triton.Config", {"kwargs", "num_warps", "num_stages", "num_ctas", "maxnreg", "pre_hook", "ir_override"}}};
    auto it = triton.find(f->s);
    if (it == triton.end()) return opaque("inspect.signature(" + f->s + ")", in.here());
    static const std::unordered_map<std::string, Ref> defaults = {
        {"num_warps", integer(4)}, {"num_stages", integer(3)}, {"num_ctas", integer(1)},
        {"use_cuda_graph", boolean(false)}, {"cache_results", boolean(false)}};
    bool required = f->s == "triton.autotune" || f->s == "triton.heuristics" || f->s == "triton.Config";
    for (const std::string& n : it->second) {
      bool noDefault = required && (n == "configs" || n == "key" || n == "values" || n == "kwargs");
      auto d = defaults.find(n);
      params.emplace_back(n, noDefault ? empty : d != defaults.end() ? d->second : none());
    }
  } else if (f->kind == Kind::Function) {
    const py::Arguments& args = f->fn->args();
    // A wrapper (`@functools.wraps(g) def w(*args, **kwargs)`) has g's
    // signature in CPython (__wrapped__), which is not tracked here.
    if (args.vararg || args.kwarg) return opaque("inspect.signature of a function taking *args or **kwargs", in.here());
    std::vector<const py::Arg*> positional;
    for (const auto& x : args.posonlyargs) positional.push_back(&x);
    for (const auto& x : args.args) positional.push_back(&x);
    size_t firstDefault = positional.size() - f->fn->defaults.size();
    for (size_t i = 0; i < positional.size(); ++i)
      params.emplace_back(positional[i]->name, i >= firstDefault ? f->fn->defaults[i - firstDefault] : empty);
    for (size_t i = 0; i < args.kwonlyargs.size(); ++i) {
      Ref d = i < f->fn->kwDefaults.size() ? f->fn->kwDefaults[i] : nullptr;
      params.emplace_back(args.kwonlyargs[i].name, d ? d : empty);
    }
  } else {
    return opaque("inspect.signature of " + typeName(*f), in.here());
  }
  Ref dictOfParams = dict();
  for (auto& [name, dflt] : params) {
    Ref p = instance("inspect.Parameter");
    p->attrs["name"] = str(name);
    p->attrs["default"] = dflt;
    dictSet(*dictOfParams, str(name), p);
  }
  Ref sig = instance("inspect.Signature");
  sig->attrs["parameters"] = dictOfParams;
  return sig;
}

/// enum.auto(): a marker the class statement numbers.
Ref enumAuto(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) { return instance("enum.auto"); }

Ref warn(Interp& in, const Object& fn, std::vector<Ref>& a, Kwargs& kw) {
  kw.clear();
  return none();
}

}  // namespace

void registerNatives(std::unordered_map<std::string, Handler>& t) {
  t["triton.jit"] = tJit;
  t["triton.autotune"] = tDecoratorFactory;
  t["triton.heuristics"] = tDecoratorFactory;
  t["triton.autotune.apply"] = tDecoratorApply;
  t["triton.heuristics.apply"] = tDecoratorApply;
  t["triton.Config"] = tConfig;
  t["triton.Config.all_kwargs"] = tConfigAllKwargs;
  t["triton.cdiv"] = tCdiv;
  t["torch.Tensor.element_size"] = tensorElementSize;
  t["torch.Tensor.data_ptr"] = tensorDataPtr;
  t["torch.Tensor.numel"] = tensorNumel;
  t["torch.Tensor.dim"] = tensorDim;
  t["torch.Tensor.size"] = tensorDims;
  t["torch.Tensor.stride"] = tensorDims;
  t["triton.next_power_of_2"] = tNextPow2;
  t["triton.language.constexpr"] = tConstexpr;
  t["triton.language.core.get_int_dtype"] = tGetIntDtype;
  t["triton.runtime.driver.active.get_current_target"] = tCurrentTarget;
  t["triton.runtime.driver.active.get_current_device"] = tCurrentDevice;
  t["triton.runtime.driver.active.utils.get_device_properties"] = tDeviceProperties;
  t["torch.cuda.get_device_capability"] = torchCapability;
  for (const std::string& n : targetInfoNames()) t["triton.language.target_info." + n] = targetInfo;
  t["torch.cuda.get_device_properties"] = torchProperties;
  t["torch.cuda.is_available"] = torchTrue;
  t["torch.cuda.device_count"] = torchOne;
  t["torch.cuda.current_device"] = torchOne;
  t["torch.cuda.get_device_name"] = torchName;
  t["torch.finfo"] = torchFinfo;
  t["torch.iinfo"] = torchFinfo;
  for (const char* f : {"log", "log2", "log10", "exp", "exp2", "sqrt", "ceil", "floor", "trunc", "fabs", "gcd", "lcm",
                        "prod", "isqrt", "isinf", "isnan", "isfinite", "pow", "sin", "cos", "tan", "tanh", "erf",
                        "atan", "isclose"})
    t[std::string("math.") + f] = mathFn;
  t["os.getenv"] = osGetenv;
  t["os.environ.get"] = osGetenv;
  t["itertools.product"] = itProduct;
  t["itertools.chain"] = itChain;
  t["itertools.combinations"] = itCombinations;
  t["functools.partial"] = ftPartial;
  t["functools.partial.call"] = ftPartialCall;
  t["functools.reduce"] = ftReduce;
  for (const char* f : {"functools.cache", "functools.lru_cache", "functools.wraps", "functools.cached_property"})
    t[f] = ftIdentityDecorator;
  t["functools.identity"] = ftIdentity;
  t["triton.constexpr_function"] = constexprFunctionDecorator;
  t["collections.namedtuple"] = namedTupleClass;
  for (const char* f : {"lt", "le", "gt", "ge", "eq", "ne", "add", "sub", "mul", "floordiv", "truediv", "mod"})
    t[std::string("operator.") + f] = opFn;
  t["packaging.version.parse"] = pkgVersion;
  t["packaging.version.Version"] = pkgVersion;
  t["importlib.metadata.version"] = metadataVersion;
  t["importlib.util.find_spec"] = findSpec;
  t["importlib.import_module"] = importlibImportModule;
  t["warnings.warn"] = warn;
  t["enum.auto"] = enumAuto;
  t["inspect.signature"] = inspectSignature;
}

bool isModeledRoot(const std::string& root) {
  return root == "triton" || root == "torch" || stdlibRoots().count(root);
}

Ref unknownModule(Interp& in, const std::string& path) {
  Ref n = native(path);
  n->b = true;
  return n;
}

Ref importModule(Interp& in, const std::string& name, const SourceLoc& at) {
  // Modeled modules first, but torch's Triton helpers when their source is
  // on the search path (importUser reads only those of torch).
  bool modeled = isModeledRoot(name.substr(0, name.find('.')));
  if (!modeled || Interp::isTorchSourceModule(name))
    if (ModuleObj* m = in.importUser(name, at)) {
      auto o = std::make_shared<Object>(Kind::Module);
      o->module = m;
      o->s = m->name;
      return o;
    }
  if (modeled) {
    Ref n = importNative(in, name);
    if (!n) in.raise("ModuleNotFoundError", "No module named '" + name + "'", at);
    return n;
  }
  if (in.importFallbacks() > 0) in.raise("ModuleNotFoundError", "No module named '" + name + "'", at);
  return unknownModule(in, name);
}

Ref importNative(Interp& in, const std::string& path) {
  std::string root = path.substr(0, path.find('.'));
  if (root == "triton") {
    if (path == "triton.language.target_info") return native(path);
    const TritonNames& names = in.environment().triton;
    if (tritonModules().count(path) || (isLanguagePath(path) && (!names.isModule || names.isModule(path))))
      return native(path);
    return nullptr;
  }
  if (root == "torch") return native(path);
  if (stdlibRoots().count(root)) {
    static const std::unordered_set<std::string> modeled = {
        "math", "os", "sys", "itertools", "functools", "operator", "packaging", "packaging.version", "importlib",
        "importlib.metadata", "importlib.util", "warnings", "typing", "typing_extensions", "__future__", "enum",
        "collections", "inspect"};
    if (modeled.count(path)) return native(path);
    if (modeled.count(root)) return nullptr;  // not a submodule of a module we model: ModuleNotFoundError
    return unknownModule(in, path);
  }
  return nullptr;
}

Ref nativeAttr(Interp& in, const std::string& path, const std::string& attr) {
  std::string full = path + "." + attr;
  if (Interp::isTorchSourceModule(full)) return importModule(in, full, in.here());  // torch.x.y.triton_helpers
  auto unknown = [&] { return unknownModule(in, full); };
  if (path == "triton") {
    if (attr == "jit" || attr == "autotune" || attr == "heuristics" || attr == "Config" || attr == "cdiv" ||
        attr == "next_power_of_2")
      return builtin(full);
    if (attr == "__version__") return str(tritonVersion());
    if (attr == "constexpr_function") return builtin("triton.constexpr_function");
    if (attr == "aggregate") return builtin("triton.aggregate");
    if (attr == "aggregate_replace") return native(full);
    if (attr == "must_use_result") return builtin("functools.identity");
    if (tritonModules().count(full) || attr == "language") return native(full);
    if (attr == "TritonError" || attr == "CompilationError" || attr == "OutOfResources" || attr == "KernelInterface" ||
        attr == "JITFunction")
      return native(full);
    return nullptr;
  }
  if (path == "triton.language.target_info") return targetInfoNames().count(attr) ? builtin(full) : nullptr;
  if (isLanguagePath(path)) {
    if (attr == "constexpr") return builtin("triton.language.constexpr");
    if (attr == "get_int_dtype") return builtin("triton.language.core.get_int_dtype");
    if (attr == "_aggregate" || attr == "aggregate") return builtin("triton.aggregate");
    if (const char* d = dtypeName(attr, false)) return dtype(d);
    if (attr == "dtype" || attr == "tensor" || attr == "tensor_descriptor" || attr == "pointer_type" ||
        attr == "block_type" || attr == "tuple" || attr == "constexpr_type")
      return native("triton.language." + attr);
    const TritonNames& names = in.environment().triton;
    if (names.isModule && names.isModule(full)) return native(full);
    if (!names.hasAttr || names.hasAttr(path, attr)) return native(full);
    return nullptr;
  }
  if (path == "triton.runtime") {
    if (attr == "driver" || attr == "jit" || attr == "autotuner" || attr == "errors" || attr == "cache") return native(full);
    return unknown();
  }
  if (path == "triton.runtime.driver") return attr == "active" ? native(full) : unknown();
  if (path == "triton.runtime.driver.active") {
    if (attr == "get_current_target" || attr == "get_current_device") return builtin(full);
    if (attr == "utils") return native(full);
    return unknown();
  }
  if (path == "triton.runtime.driver.active.utils")
    return attr == "get_device_properties" ? builtin(full) : unknown();
  // triton.knobs.runtime.interpret: whether kernels run in Triton's Python
  // interpreter, never the case under Tessera (its own interpreter compiles
  // them as the GPU does). Other knobs stay unknown.
  if (path == "triton.knobs") return attr == "runtime" ? native(full) : unknown();
  if (path == "triton.knobs.runtime") return attr == "interpret" ? boolean(false) : unknown();
  if (path.rfind("triton", 0) == 0) return unknown();
  if (path == "torch") {
    if (const char* d = dtypeName(attr, true)) return dtype(d);
    if (attr == "finfo" || attr == "iinfo") return builtin(full);
    if (attr == "__version__") return versionString(kTorchVersion);
    if (attr == "cuda" || attr == "version" || attr == "dtype") return native(full);
    return unknown();
  }
  if (path == "torch.version") {
    if (attr == "hip" || attr == "xpu") return none();
    if (attr == "cuda") return str(kCudaVersion);
    if (attr == "__version__") return versionString(kTorchVersion);
    return unknown();
  }
  if (path == "torch.cuda") {
    if (attr == "get_device_capability" || attr == "get_device_properties" || attr == "is_available" ||
        attr == "device_count" || attr == "current_device" || attr == "get_device_name")
      return builtin(full);
    return unknown();
  }
  if (path == "math") {
    if (attr == "pi") return flt(M_PI);
    if (attr == "e") return flt(M_E);
    if (attr == "tau") return flt(2 * M_PI);
    if (attr == "inf") return flt(INFINITY);
    if (attr == "nan") return flt(NAN);
    static const std::unordered_set<std::string> fns = {
        "log", "log2", "log10", "exp", "exp2", "sqrt", "ceil", "floor", "trunc", "fabs", "gcd", "lcm", "prod",
        "isqrt", "isinf", "isnan", "isfinite", "pow", "sin", "cos", "tan", "tanh", "erf", "atan", "isclose"};
    return fns.count(attr) ? builtin(full) : nullptr;
  }
  if (path == "os") {
    if (attr == "environ") return native(full);
    if (attr == "getenv") return builtin(full);
    if (attr == "sep") return str("/");
    return unknown();
  }
  if (path == "os.environ") return attr == "get" ? builtin(full) : unknown();
  if (path == "sys") {
    if (attr == "version_info") return tuple({integer(3), integer(12), integer(0)});
    if (attr == "platform") return str("linux");
    if (attr == "maxsize") return integer(INT64_MAX);
    return unknown();
  }
  if (path == "itertools" || path == "functools" || path == "operator" || path == "warnings") return builtin(full);
  if (path == "enum") {
    if (attr == "auto") return builtin(full);
    if (attr == "Enum" || attr == "IntEnum" || attr == "Flag" || attr == "IntFlag" || attr == "StrEnum") return native(full);
    if (attr == "unique") return builtin("functools.identity");
    return unknown();
  }
  if (path == "collections") return attr == "namedtuple" ? builtin(full) : unknown();
  if (path == "inspect") {
    if (attr == "signature") return builtin(full);
    return attr == "Parameter" ? native(full) : unknown();
  }
  if (path == "inspect.Parameter") return attr == "empty" ? native(full) : unknown();
  if (path == "packaging") return attr == "version" ? native(full) : unknown();
  if (path == "packaging.version") return attr == "parse" || attr == "Version" ? builtin(full) : unknown();
  if (path == "importlib") {
    if (attr == "metadata" || attr == "util") return native(full);
    return attr == "import_module" ? builtin(full) : unknown();
  }
  if (path == "typing" || path == "typing_extensions") return attr == "TYPE_CHECKING" ? boolean(false) : unknown();
  if (path == "importlib.metadata") return attr == "version" ? builtin(full) : unknown();
  if (path == "importlib.util") return attr == "find_spec" ? builtin(full) : unknown();
  return unknown();
}

Ref nativeCall(Interp& in, const Object& fn, std::vector<Ref>& args, Kwargs& kwargs) {
  kwargs.clear();
  std::string root = fn.s.substr(0, fn.s.find('.'));
  if (fn.b && !isModeledRoot(root))
    return opaque(fn.s + "(...) (module '" + root + "' is not on the search path)", in.here());
  return opaque(fn.s + "(...), which Tessera does not evaluate on the host", in.here());
}

}  // namespace tessera::host
