//===- interpreter/ExternRounding.cpp - libdevice rounding-mode functions -===//
//
// The `_rn/_rz/_rd/_ru` functions: fp32/fp64 add, sub, mul, div, reciprocal,
// sqrt and fma, and conversions between integers and floats. Each entry
// names a <cfenv> rounding mode that Extern.cpp sets around its element loop
// and restores afterwards; the functions then perform the one IEEE operation
// in the operand type (fp32 operands are converted back from the exact
// double they travel in), so the hardware rounds exactly once in the chosen
// direction. The operations read their operands from memory the optimizer
// cannot see through (an indirect call per element), so nothing is folded
// or moved out of the rounding mode.
//
// Float -> integer conversions follow PTX `cvt.rni/rzi/rmi/rpi` with its
// implicit saturation: out-of-range values clamp to the destination range
// (negative values to 0 for unsigned results); NaN gives 0 when an fp32
// source goes to a 32-bit integer and 1 << (bits - 1) otherwise.
//
//===----------------------------------------------------------------------===//

#include <cfenv>
#include <cmath>
#include <limits>

#include "interpreter/Extern.h"

namespace tessera::interp {
namespace {

struct Mode {
  const char* suffix;
  int fe;
  double (*toIntegral)(double);
};

double roundEven(double x) { return std::nearbyint(x); }  // the default environment rounds to even
double roundDown(double x) { return std::floor(x); }
double roundUp(double x) { return std::ceil(x); }
double roundZero(double x) { return std::trunc(x); }

const Mode kModes[] = {{"rn", FE_TONEAREST, roundEven},
                       {"rz", FE_TOWARDZERO, roundZero},
                       {"rd", FE_DOWNWARD, roundDown},
                       {"ru", FE_UPWARD, roundUp}};

float f32(const Cell& c) { return static_cast<float>(c.f); }

/// Saturating conversion of an integral double to an integer of `bits`
/// bits; the caller handles NaN.
template <class T> int64_t saturate(double v) {
  if (v <= static_cast<double>(std::numeric_limits<T>::min())) return static_cast<int64_t>(std::numeric_limits<T>::min());
  // max + 1 is a power of two and exact in double.
  if (v >= std::ldexp(1.0, std::numeric_limits<T>::digits)) return static_cast<int64_t>(std::numeric_limits<T>::max());
  return static_cast<int64_t>(static_cast<T>(v));
}

/// Registers one float -> integer conversion for every rounding mode.
template <class T, bool FromDouble> void addToInt(ExternTable& t, const std::string& prefix) {
  // One function per mode: the mode's rounding is a template argument.
  auto reg = [&]<int M>(std::integral_constant<int, M>) {
    t[prefix + kModes[M].suffix] = ExternImpl{1, [](const Cell* a) -> Cell {
      double x = a[0].f;
      if (std::isnan(x)) {
        bool zero = !FromDouble && sizeof(T) == 4;
        return icell(zero ? 0 : static_cast<int64_t>(static_cast<T>(uint64_t(1) << (sizeof(T) * 8 - 1))));
      }
      return icell(saturate<T>(kModes[M].toIntegral(x)));
    }};
  };
  reg(std::integral_constant<int, 0>{});
  reg(std::integral_constant<int, 1>{});
  reg(std::integral_constant<int, 2>{});
  reg(std::integral_constant<int, 3>{});
}

/// Correctly rounded fp32 1/sqrt(x): a double estimate, corrected at the
/// neighbouring midpoints m by the exact sign of x m^2 - 1 (m^2 has at most
/// 50 bits, so it is exact; x m^2 is split by fma).
double rsqrtRnF32(double x) {
  if (std::isnan(x) || x < 0) return NAN;
  if (x == 0) return std::copysign(INFINITY, x);
  if (std::isinf(x)) return 0.0;
  float r = static_cast<float>(1.0 / std::sqrt(x));
  auto below = [&](double m) {  // 1/sqrt(x) < m  <=>  x m^2 > 1
    double m2 = m * m, p = x * m2, e = std::fma(x, m2, -p);
    return p > 1 || (p == 1 && e > 0);
  };
  float lo = std::nextafter(r, 0.0f), hi = std::nextafter(r, INFINITY);
  if (below((static_cast<double>(lo) + r) / 2)) return lo;
  if (!below((static_cast<double>(r) + hi) / 2)) return hi;
  return r;
}

}  // namespace

void addExternRounding(ExternTable& t) {
  for (const Mode& m : kModes) {
    std::string s = m.suffix;
    auto add = [&](const std::string& name, int arity, Cell (*fn)(const Cell*)) {
      t["__nv_" + name + "_" + s] = ExternImpl{arity, fn, m.fe};
    };
    add("fadd", 2, [](const Cell* a) { return fcell(f32(a[0]) + f32(a[1])); });
    add("fsub", 2, [](const Cell* a) { return fcell(f32(a[0]) - f32(a[1])); });
    add("fmul", 2, [](const Cell* a) { return fcell(f32(a[0]) * f32(a[1])); });
    add("fdiv", 2, [](const Cell* a) { return fcell(f32(a[0]) / f32(a[1])); });
    add("frcp", 1, [](const Cell* a) { return fcell(1.0f / f32(a[0])); });
    add("fsqrt", 1, [](const Cell* a) { return fcell(std::sqrt(f32(a[0]))); });
    add("fmaf", 3, [](const Cell* a) { return fcell(std::fma(f32(a[0]), f32(a[1]), f32(a[2]))); });
    add("dadd", 2, [](const Cell* a) { return fcell(a[0].f + a[1].f); });
    add("dsub", 2, [](const Cell* a) { return fcell(a[0].f - a[1].f); });
    add("dmul", 2, [](const Cell* a) { return fcell(a[0].f * a[1].f); });
    add("ddiv", 2, [](const Cell* a) { return fcell(a[0].f / a[1].f); });
    add("drcp", 1, [](const Cell* a) { return fcell(1.0 / a[0].f); });
    add("dsqrt", 1, [](const Cell* a) { return fcell(std::sqrt(a[0].f)); });
    add("fma", 3, [](const Cell* a) { return fcell(std::fma(a[0].f, a[1].f, a[2].f)); });
    // Conversions to float types: the converting instruction rounds in the mode.
    add("double2float", 1, [](const Cell* a) { return fcell(static_cast<float>(a[0].f)); });
    add("int2float", 1, [](const Cell* a) { return fcell(static_cast<float>(static_cast<int32_t>(a[0].i))); });
    add("uint2float", 1, [](const Cell* a) { return fcell(static_cast<float>(static_cast<uint32_t>(a[0].i))); });
    add("ll2float", 1, [](const Cell* a) { return fcell(static_cast<float>(a[0].i)); });
    add("ull2float", 1, [](const Cell* a) { return fcell(static_cast<float>(static_cast<uint64_t>(a[0].i))); });
    add("ll2double", 1, [](const Cell* a) { return fcell(static_cast<double>(a[0].i)); });
    add("ull2double", 1, [](const Cell* a) { return fcell(static_cast<double>(static_cast<uint64_t>(a[0].i))); });
  }
  // Exact conversions.
  t["__nv_int2double_rn"] = ExternImpl{1, [](const Cell* a) { return fcell(static_cast<double>(static_cast<int32_t>(a[0].i))); }};
  t["__nv_uint2double_rn"] = ExternImpl{1, [](const Cell* a) { return fcell(static_cast<double>(static_cast<uint32_t>(a[0].i))); }};

  t["__nv_frsqrt_rn"] = ExternImpl{1, [](const Cell* a) { return fcell(rsqrtRnF32(a[0].f)); }};

  // Float -> integer.
  addToInt<int32_t, false>(t, "__nv_float2int_");
  addToInt<uint32_t, false>(t, "__nv_float2uint_");
  addToInt<int64_t, false>(t, "__nv_float2ll_");
  addToInt<uint64_t, false>(t, "__nv_float2ull_");
  addToInt<int32_t, true>(t, "__nv_double2int_");
  addToInt<uint32_t, true>(t, "__nv_double2uint_");
  addToInt<int64_t, true>(t, "__nv_double2ll_");
  addToInt<uint64_t, true>(t, "__nv_double2ull_");
  // llrint / llround: round (to even / half away) then convert like cvt.s64.
  t["__nv_llrintf"] = ExternImpl{1, [](const Cell* a) {
    return std::isnan(a[0].f) ? icell(INT64_MIN) : icell(saturate<int64_t>(std::nearbyint(a[0].f)));
  }};
  t["__nv_llrint"] = t["__nv_llrintf"];
  t["__nv_llroundf"] = ExternImpl{1, [](const Cell* a) {
    return std::isnan(a[0].f) ? icell(INT64_MIN) : icell(saturate<int64_t>(std::round(a[0].f)));
  }};
  t["__nv_llround"] = t["__nv_llroundf"];
}

}  // namespace tessera::interp
