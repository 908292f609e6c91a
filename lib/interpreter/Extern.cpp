//===- interpreter/Extern.cpp - tt.extern_elementwise (libdevice) ---------===//
//
// Maps libdevice symbols (`__nv_tanhf`, `__nv_pow`, ...) to C/C++ math.
// Float functions are evaluated in double and rounded once to the result
// type (for the f32 variants that is at least as accurate as CUDA's);
// integer functions (popc, clz, mulhi, ...) are evaluated on int64 exactly.
// Operands are decoded block-wise, so the per-element work is one indirect
// call. An unknown symbol is reported when the plan is built.
//
//===----------------------------------------------------------------------===//

// Kernels are tight loops over contiguous buffers: let GCC vectorize them.
#pragma GCC optimize("O3")

#include <bit>
#include <cfenv>
#include <map>

#include "interpreter/Codecs.h"

namespace tessera::interp {
namespace {

using ir::OpCode;
using FloatFn = double (*)(const double*);
using IntFn = int64_t (*)(const int64_t*);

constexpr double kPi = 3.14159265358979323846;

/// Inverse error function: initial rational approximation refined by Newton steps.
double erfinvImpl(double y) {
  if (std::isnan(y) || y < -1 || y > 1) return std::nan("");
  if (y == 1) return INFINITY;
  if (y == -1) return -INFINITY;
  double w = -std::log((1.0 - y) * (1.0 + y)), x;
  if (w < 5.0) {
    w -= 2.5;
    double p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w; p = -3.5233877e-06 + p * w; p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w; p = -0.00125372503 + p * w; p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w; p = 1.50140941 + p * w;
    x = p * y;
  } else {
    w = std::sqrt(w) - 3.0;
    double p = -0.000200214257;
    p = 0.000100950558 + p * w; p = 0.00134934322 + p * w; p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w; p = -0.0076224613 + p * w; p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w; p = 2.83297682 + p * w;
    x = p * y;
  }
  for (int i = 0; i < 3; ++i) {  // Newton on erf(x) - y
    double err = std::erf(x) - y;
    x -= err / (2.0 / std::sqrt(kPi) * std::exp(-x * x));
  }
  return x;
}

double erfcxImpl(double x) {
  if (x < 25) return std::exp(x * x) * std::erfc(x);
  // Asymptotic expansion for large x.
  double x2 = x * x;
  return 1.0 / (x * std::sqrt(kPi)) * (1 - 1 / (2 * x2) + 3 / (4 * x2 * x2));
}


template <int Mode, class T> T withRounding(T (*op)(T, T), T a, T b) {
  int saved = std::fegetround();
  std::fesetround(Mode);
  volatile T r = op(a, b);
  std::fesetround(saved);
  return r;
}

#define F1(expr) [](const double* a) -> double { double x = a[0]; (void)x; return (expr); }
#define F2(expr) [](const double* a) -> double { double x = a[0], y = a[1]; return (expr); }
#define F3(expr) [](const double* a) -> double { double x = a[0], y = a[1], z = a[2]; return (expr); }

struct FloatEntry {
  int arity;
  FloatFn fn;
};

const std::map<std::string, FloatEntry, std::less<>>& floatTable() {
  static const std::map<std::string, FloatEntry, std::less<>> t = {
      {"sin", {1, F1(std::sin(x))}}, {"cos", {1, F1(std::cos(x))}}, {"tan", {1, F1(std::tan(x))}},
      {"asin", {1, F1(std::asin(x))}}, {"acos", {1, F1(std::acos(x))}}, {"atan", {1, F1(std::atan(x))}},
      {"sinh", {1, F1(std::sinh(x))}}, {"cosh", {1, F1(std::cosh(x))}}, {"tanh", {1, F1(std::tanh(x))}},
      {"asinh", {1, F1(std::asinh(x))}}, {"acosh", {1, F1(std::acosh(x))}}, {"atanh", {1, F1(std::atanh(x))}},
      {"sinpi", {1, F1(std::sin(kPi * x))}}, {"cospi", {1, F1(std::cos(kPi * x))}},
      {"exp", {1, F1(std::exp(x))}}, {"exp2", {1, F1(std::exp2(x))}}, {"exp10", {1, F1(std::pow(10.0, x))}},
      {"expm1", {1, F1(std::expm1(x))}}, {"log", {1, F1(std::log(x))}}, {"log2", {1, F1(std::log2(x))}},
      {"log10", {1, F1(std::log10(x))}}, {"log1p", {1, F1(std::log1p(x))}}, {"logb", {1, F1(std::logb(x))}},
      {"fast_exp", {1, F1(std::exp(x))}}, {"fast_log", {1, F1(std::log(x))}}, {"fast_log2", {1, F1(std::log2(x))}},
      {"fast_log10", {1, F1(std::log10(x))}}, {"fast_exp10", {1, F1(std::pow(10.0, x))}},
      {"fast_sin", {1, F1(std::sin(x))}}, {"fast_cos", {1, F1(std::cos(x))}}, {"fast_tan", {1, F1(std::tan(x))}},
      {"fast_pow", {2, F2(std::pow(x, y))}}, {"fast_fdivide", {2, F2(x / y)}},
      {"sqrt", {1, F1(std::sqrt(x))}}, {"rsqrt", {1, F1(1.0 / std::sqrt(x))}}, {"cbrt", {1, F1(std::cbrt(x))}},
      {"rcbrt", {1, F1(1.0 / std::cbrt(x))}}, {"erf", {1, F1(std::erf(x))}}, {"erfc", {1, F1(std::erfc(x))}},
      {"erfinv", {1, F1(erfinvImpl(x))}}, {"erfcinv", {1, F1(erfinvImpl(1.0 - x))}}, {"erfcx", {1, F1(erfcxImpl(x))}},
      {"normcdf", {1, F1(0.5 * std::erfc(-x / std::sqrt(2.0)))}},
      {"normcdfinv", {1, F1(std::sqrt(2.0) * erfinvImpl(2 * x - 1))}},
      {"lgamma", {1, F1(std::lgamma(x))}}, {"tgamma", {1, F1(std::tgamma(x))}},
      {"j0", {1, F1(::j0(x))}}, {"j1", {1, F1(::j1(x))}}, {"y0", {1, F1(::y0(x))}}, {"y1", {1, F1(::y1(x))}},
      {"jn", {2, F2(::jn(static_cast<int>(x), y))}}, {"yn", {2, F2(::yn(static_cast<int>(x), y))}},
      {"cyl_bessel_i0", {1, F1(std::cyl_bessel_i(0.0, x))}}, {"cyl_bessel_i1", {1, F1(std::cyl_bessel_i(1.0, x))}},
      {"floor", {1, F1(std::floor(x))}}, {"ceil", {1, F1(std::ceil(x))}}, {"trunc", {1, F1(std::trunc(x))}},
      {"round", {1, F1(std::round(x))}}, {"rint", {1, F1(std::nearbyint(x))}},
      {"nearbyint", {1, F1(std::nearbyint(x))}}, {"fabs", {1, F1(std::fabs(x))}},
      {"saturate", {1, F1(std::isnan(x) ? 0.0 : std::fmin(std::fmax(x, 0.0), 1.0))}},
      {"rcp", {1, F1(1.0 / x)}}, {"frcp_rn", {1, F1(1.0 / x)}}, {"drcp_rn", {1, F1(1.0 / x)}},
      {"pow", {2, F2(std::pow(x, y))}}, {"powi", {2, F2(std::pow(x, y))}}, {"atan2", {2, F2(std::atan2(x, y))}},
      {"hypot", {2, F2(std::hypot(x, y))}}, {"rhypot", {2, F2(1.0 / std::hypot(x, y))}},
      {"fmod", {2, F2(std::fmod(x, y))}}, {"remainder", {2, F2(std::remainder(x, y))}},
      {"copysign", {2, F2(std::copysign(x, y))}}, {"fdim", {2, F2(std::fdim(x, y))}},
      {"fmax", {2, F2(std::fmax(x, y))}}, {"fmin", {2, F2(std::fmin(x, y))}},
      {"nextafter", {2, F2(std::nextafter(x, y))}},
      {"ldexp", {2, F2(std::ldexp(x, static_cast<int>(y)))}}, {"scalbn", {2, F2(std::scalbn(x, static_cast<int>(y)))}},
      {"fdiv_rn", {2, F2(x / y)}}, {"fadd_rn", {2, F2(x + y)}}, {"fsub_rn", {2, F2(x - y)}},
      {"fmul_rn", {2, F2(x * y)}}, {"fsqrt_rn", {1, F1(std::sqrt(x))}}, {"fdividef", {2, F2(x / y)}},
      {"dadd_rn", {2, F2(x + y)}}, {"dsub_rn", {2, F2(x - y)}}, {"dmul_rn", {2, F2(x * y)}},
      {"ddiv_rn", {2, F2(x / y)}}, {"dsqrt_rn", {1, F1(std::sqrt(x))}},
      {"fma", {3, F3(std::fma(x, y, z))}}, {"fma_rn", {3, F3(std::fma(x, y, z))}},
      {"isnan", {1, F1(std::isnan(x) ? 1.0 : 0.0)}}, {"isinf", {1, F1(std::isinf(x) ? 1.0 : 0.0)}},
      {"signbit", {1, F1(std::signbit(x) ? 1.0 : 0.0)}}, {"finite", {1, F1(std::isfinite(x) ? 1.0 : 0.0)}},
      {"isfinite", {1, F1(std::isfinite(x) ? 1.0 : 0.0)}},
      {"ilogb", {1, F1(static_cast<double>(std::ilogb(x)))}},
      {"llrint", {1, F1(std::nearbyint(x))}}, {"llround", {1, F1(std::round(x))}},
      {"float2int_rn", {1, F1(std::nearbyint(x))}}, {"float2int_rz", {1, F1(std::trunc(x))}},
      {"float2int_rd", {1, F1(std::floor(x))}}, {"float2int_ru", {1, F1(std::ceil(x))}},
      {"double2int_rn", {1, F1(std::nearbyint(x))}}, {"double2int_rz", {1, F1(std::trunc(x))}},
      {"double2float_rn", {1, F1(x)}}, {"int2float_rn", {1, F1(x)}}, {"int2double_rn", {1, F1(x)}},
  };
  return t;
}

// Exact float (f32) overrides where evaluating in double would double-round.
const std::map<std::string, float (*)(const float*), std::less<>>& f32Table() {
  static const std::map<std::string, float (*)(const float*), std::less<>> t = {
      {"fma", [](const float* a) { return std::fma(a[0], a[1], a[2]); }},
      {"fma_rn", [](const float* a) { return std::fma(a[0], a[1], a[2]); }},
      {"fmaf", [](const float* a) { return std::fma(a[0], a[1], a[2]); }},
      {"fmaf_rn", [](const float* a) { return std::fma(a[0], a[1], a[2]); }},
      {"fadd_rz", [](const float* a) { return withRounding<FE_TOWARDZERO, float>([](float x, float y) { return x + y; }, a[0], a[1]); }},
      {"fadd_ru", [](const float* a) { return withRounding<FE_UPWARD, float>([](float x, float y) { return x + y; }, a[0], a[1]); }},
      {"fadd_rd", [](const float* a) { return withRounding<FE_DOWNWARD, float>([](float x, float y) { return x + y; }, a[0], a[1]); }},
      {"fmul_rz", [](const float* a) { return withRounding<FE_TOWARDZERO, float>([](float x, float y) { return x * y; }, a[0], a[1]); }},
      {"fmul_ru", [](const float* a) { return withRounding<FE_UPWARD, float>([](float x, float y) { return x * y; }, a[0], a[1]); }},
      {"fmul_rd", [](const float* a) { return withRounding<FE_DOWNWARD, float>([](float x, float y) { return x * y; }, a[0], a[1]); }},
      {"fdiv_rz", [](const float* a) { return withRounding<FE_TOWARDZERO, float>([](float x, float y) { return x / y; }, a[0], a[1]); }},
      {"fdiv_ru", [](const float* a) { return withRounding<FE_UPWARD, float>([](float x, float y) { return x / y; }, a[0], a[1]); }},
      {"fdiv_rd", [](const float* a) { return withRounding<FE_DOWNWARD, float>([](float x, float y) { return x / y; }, a[0], a[1]); }},
  };
  return t;
}

#undef F1
#undef F2
#undef F3

#define I1(expr) [](const int64_t* a) -> int64_t { int64_t x = a[0]; return (expr); }
#define I2(expr) [](const int64_t* a) -> int64_t { int64_t x = a[0], y = a[1]; return (expr); }
#define I3(expr) [](const int64_t* a) -> int64_t { int64_t x = a[0], y = a[1], z = a[2]; return (expr); }
using u32 = uint32_t;
using u64 = uint64_t;
using i32 = int32_t;

const std::map<std::string, std::pair<int, IntFn>, std::less<>>& intTable() {
  static const std::map<std::string, std::pair<int, IntFn>, std::less<>> t = {
      {"popc", {1, I1(std::popcount(u32(x)))}}, {"popcll", {1, I1(std::popcount(u64(x)))}},
      {"clz", {1, I1(std::countl_zero(u32(x)))}}, {"clzll", {1, I1(std::countl_zero(u64(x)))}},
      {"ffs", {1, I1(u32(x) == 0 ? 0 : std::countr_zero(u32(x)) + 1)}},
      {"ffsll", {1, I1(u64(x) == 0 ? 0 : std::countr_zero(u64(x)) + 1)}},
      {"brev", {1, I1([](u32 v) { u32 r = 0; for (int i = 0; i < 32; ++i) r |= ((v >> i) & 1u) << (31 - i); return int64_t(i32(r)); }(u32(x)))}},
      {"brevll", {1, I1([](u64 v) { u64 r = 0; for (int i = 0; i < 64; ++i) r |= ((v >> i) & 1ull) << (63 - i); return int64_t(r); }(u64(x)))}},
      {"abs", {1, I1(i32(x) < 0 ? int64_t(i32(0u - u32(x))) : x)}}, {"llabs", {1, I1(x < 0 ? int64_t(0ull - u64(x)) : x)}},
      {"min", {2, I2(std::min(i32(x), i32(y)))}}, {"max", {2, I2(std::max(i32(x), i32(y)))}},
      {"umin", {2, I2(int64_t(std::min(u32(x), u32(y))))}}, {"umax", {2, I2(int64_t(std::max(u32(x), u32(y))))}},
      {"llmin", {2, I2(std::min(x, y))}}, {"llmax", {2, I2(std::max(x, y))}},
      {"ullmin", {2, I2(int64_t(std::min(u64(x), u64(y))))}}, {"ullmax", {2, I2(int64_t(std::max(u64(x), u64(y))))}},
      {"mulhi", {2, I2((int64_t(i32(x)) * int64_t(i32(y))) >> 32)}},
      {"umulhi", {2, I2(int64_t((u64(u32(x)) * u64(u32(y))) >> 32))}},
      {"mul64hi", {2, I2(int64_t((__int128(x) * __int128(y)) >> 64))}},
      {"umul64hi", {2, I2(int64_t((static_cast<unsigned __int128>(u64(x)) * u64(y)) >> 64))}},
      {"hadd", {2, I2((int64_t(i32(x)) + int64_t(i32(y))) >> 1)}},
      {"rhadd", {2, I2((int64_t(i32(x)) + int64_t(i32(y)) + 1) >> 1)}},
      {"uhadd", {2, I2(int64_t((u64(u32(x)) + u64(u32(y))) >> 1))}},
      {"urhadd", {2, I2(int64_t((u64(u32(x)) + u64(u32(y)) + 1) >> 1))}},
      {"sad", {3, I3(int64_t(u32(std::llabs(int64_t(i32(x)) - int64_t(i32(y))) + u32(z))))}},
      {"usad", {3, I3(int64_t(u32((u32(x) > u32(y) ? u32(x) - u32(y) : u32(y) - u32(x)) + u32(z))))}},
      {"float_as_int", {1, I1(x)}}, {"int_as_float", {1, I1(x)}},
      {"double_as_longlong", {1, I1(x)}}, {"longlong_as_double", {1, I1(x)}},
  };
  return t;
}
#undef I1
#undef I2
#undef I3

/// Per-op data: the function and the operand/result types.
struct ExternData {
  FloatFn fn = nullptr;
  IntFn ifn = nullptr;
  float (*f32fn)(const float*) = nullptr;
  std::vector<ir::Type> argTypes;
  ir::Type resultType;
};

/// Decodes `n` elements of slot s (type t) into dst (broadcasting a single element).
template <class D> void decodeColumn(D* dst, const Slot& s, ir::Type t, int64_t n) {
  t = t.elementType();
  bool splat = s.n == 1;
  if (t.isFloat()) {
    withFloatCodec(t.kind(), [&]<class Cd>(Cd) {
      const auto* src = reinterpret_cast<const typename Cd::S*>(s.data);
      for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<D>(Cd::dec(src[splat ? 0 : i]));
      return 0;
    });
    return;
  }
  withIntType(t, [&]<class T>(T) {
    const T* src = reinterpret_cast<const T*>(s.data);
    for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<D>(src[splat ? 0 : i]);
    return 0;
  });
}

template <class D> void encodeColumn(Slot& s, const D* src, ir::Type t, int64_t n) {
  t = t.elementType();
  if (t.isFloat()) {
    withFloatCodec(t.kind(), [&]<class Cd>(Cd) {
      auto* dst = reinterpret_cast<typename Cd::S*>(s.data);
      if constexpr (std::is_same_v<Cd, F32C> || std::is_same_v<Cd, F64C>) {
        for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<typename Cd::S>(src[i]);
      } else {
        const FloatFormat& fmt = floatFormat(t.kind());
        for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<typename Cd::S>(encodeFloat(static_cast<double>(src[i]), fmt));
      }
      return 0;
    });
    return;
  }
  withIntType(t, [&]<class T>(T) {
    T* dst = reinterpret_cast<T*>(s.data);
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_floating_point_v<D>) {
        double v = static_cast<double>(src[i]);
        dst[i] = std::isnan(v) ? T(0) : static_cast<T>(static_cast<int64_t>(v));
      } else {
        dst[i] = static_cast<T>(src[i]);
      }
    }
    return 0;
  });
}

void externOp(const Instr& in, Frame& f) {
  const auto& ed = *static_cast<const ExternData*>(in.aux);
  int64_t n = in.count * f.lanes;
  size_t arity = in.in.size();
  ThreadContext& ctx = *f.ctx;
  Slot& out = f.slots[in.out[0]];
  out.ensure(n * in.elemBytes + 8);
  out.n = n;
  if (ed.ifn) {
    std::vector<int64_t*> cols(arity);
    for (size_t k = 0; k < arity; ++k) {
      cols[k] = reinterpret_cast<int64_t*>(ctx.scratchBuf(12 + static_cast<int>(k), n * 8 + 8));
      ir::Type t = ed.argTypes[k];
      if (t.elementType().isFloat()) {  // bit reinterpretation (float_as_int & co.)
        const Slot& s = f.slots[in.in[k]];
        int b = storageBytes(t);
        for (int64_t i = 0; i < n; ++i) { cols[k][i] = 0; std::memcpy(&cols[k][i], s.data + (s.n == 1 ? 0 : i) * b, b); }
      } else {
        decodeColumn(cols[k], f.slots[in.in[k]], t, n);
      }
    }
    int64_t* res = reinterpret_cast<int64_t*>(ctx.scratchBuf(11, n * 8 + 8));
    int64_t args[3] = {};
    for (int64_t i = 0; i < n; ++i) {
      for (size_t k = 0; k < arity; ++k) args[k] = cols[k][i];
      res[i] = ed.ifn(args);
    }
    if (ed.resultType.elementType().isFloat()) {
      int b = in.elemBytes;
      for (int64_t i = 0; i < n; ++i) std::memcpy(out.data + i * b, &res[i], b);
    } else {
      encodeColumn(out, res, ed.resultType, n);
    }
    return;
  }
  if (ed.f32fn) {
    std::vector<float*> cols(arity);
    for (size_t k = 0; k < arity; ++k) {
      cols[k] = reinterpret_cast<float*>(ctx.scratchBuf(12 + static_cast<int>(k), n * 4 + 8));
      decodeColumn(cols[k], f.slots[in.in[k]], ed.argTypes[k], n);
    }
    float* r = out.as<float>();
    float args[3] = {};
    for (int64_t i = 0; i < n; ++i) {
      for (size_t k = 0; k < arity; ++k) args[k] = cols[k][i];
      r[i] = ed.f32fn(args);
    }
    return;
  }
  std::vector<double*> cols(arity);
  for (size_t k = 0; k < arity; ++k) {
    cols[k] = reinterpret_cast<double*>(ctx.scratchBuf(12 + static_cast<int>(k), n * 8 + 8));
    decodeColumn(cols[k], f.slots[in.in[k]], ed.argTypes[k], n);
  }
  double* res = reinterpret_cast<double*>(ctx.scratchBuf(11, n * 8 + 8));
  double args[3] = {};
  for (int64_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < arity; ++k) args[k] = cols[k][i];
    res[i] = ed.fn(args);
  }
  encodeColumn(out, res, ed.resultType, n);
}

}  // namespace

bool buildExtern(ir::Operation* op, Instr& in, PlanBuilder& b) {
  if (op->is(OpCode::InlineAsm)) planError(op, "inline_asm_elementwise is not supported in the interpreter");
  if (!op->is(OpCode::ExternElementwise)) return false;
  std::string symbol = op->strAttr("symbol");
  if (op->numResults() != 1) planError(op, "extern function '" + symbol + "' must have one result");
  std::string_view name = symbol;
  if (name.substr(0, 5) == "__nv_") name.remove_prefix(5);
  auto ed = std::make_shared<ExternData>();
  for (ir::Value v : op->operands()) ed->argTypes.push_back(v.type());
  ed->resultType = op->result(0).type();
  size_t arity = op->numOperands();
  if (arity > 3) planError(op, "extern function '" + symbol + "' has too many operands");
  bool f32Result = ed->resultType.elementType().kind() == ir::TypeKind::F32;
  // Try the name itself, then without the float suffix `f`, then `d` (isnand).
  std::vector<std::string> candidates = {std::string(name)};
  if (!name.empty() && (name.back() == 'f' || name.back() == 'd')) candidates.push_back(std::string(name.substr(0, name.size() - 1)));
  size_t fpos = name.find("f_r");  // __nv_fmaf_rn -> fma_rn
  if (fpos != std::string_view::npos && fpos > 0) candidates.push_back(std::string(name.substr(0, fpos)) + std::string(name.substr(fpos + 1)));
  for (const std::string& c : candidates) {
    if (auto it = intTable().find(c); it != intTable().end()) {
      if (static_cast<size_t>(it->second.first) != arity) continue;
      ed->ifn = it->second.second;
      break;
    }
    if (f32Result) {
      if (auto it = f32Table().find(c); it != f32Table().end() && arity == 3 - (c.find("fma") == std::string::npos)) {
        ed->f32fn = it->second;
        break;
      }
    }
    if (auto it = floatTable().find(c); it != floatTable().end()) {
      if (static_cast<size_t>(it->second.arity) != arity) continue;
      ed->fn = it->second.fn;
      break;
    }
  }
  if (!ed->fn && !ed->ifn && !ed->f32fn)
    planError(op, "extern function '" + symbol + "' is not available in the interpreter");
  in.aux = ed.get();
  in.owned = ed;
  in.fn = &externOp;
  return true;
}

}  // namespace tessera::interp
