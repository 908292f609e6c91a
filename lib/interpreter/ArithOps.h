//===- interpreter/ArithOps.h - Scalar semantics of arith ops ---*- C++ -*-===//
//
// One struct per binary arith op with a static apply(a, b): the exact scalar
// semantics (two's-complement wrap, shifts >= width, truncating division,
// NaN rules of max/min). Shared by the elementwise kernels and the fast
// reduction paths so both compute the same bits.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cmath>
#include <limits>
#include <type_traits>

namespace tessera::interp::ops {

template <class T> using U = std::make_unsigned_t<T>;
template <class T> constexpr unsigned kBits = sizeof(T) * 8;

struct AddI { template <class T> static T apply(T a, T b) { return T(U<T>(a) + U<T>(b)); } };
struct SubI { template <class T> static T apply(T a, T b) { return T(U<T>(a) - U<T>(b)); } };
struct MulI { template <class T> static T apply(T a, T b) { return T(U<T>(a) * U<T>(b)); } };
struct AndI { template <class T> static T apply(T a, T b) { return T(a & b); } };
struct OrI { template <class T> static T apply(T a, T b) { return T(a | b); } };
struct XOrI { template <class T> static T apply(T a, T b) { return T(a ^ b); } };
struct ShLI {
  template <class T> static T apply(T a, T b) {
    return U<T>(b) >= kBits<T> ? T(0) : T(U<T>(a) << U<T>(b));
  }
};
struct ShRUI {
  template <class T> static T apply(T a, T b) {
    return U<T>(b) >= kBits<T> ? T(0) : T(U<T>(a) >> U<T>(b));
  }
};
struct ShRSI {
  template <class T> static T apply(T a, T b) {
    return U<T>(b) >= kBits<T> ? T(a < 0 ? -1 : 0) : T(a >> U<T>(b));
  }
};
struct MaxSI { template <class T> static T apply(T a, T b) { return a > b ? a : b; } };
struct MinSI { template <class T> static T apply(T a, T b) { return a < b ? a : b; } };
struct MaxUI { template <class T> static T apply(T a, T b) { return U<T>(a) > U<T>(b) ? a : b; } };
struct MinUI { template <class T> static T apply(T a, T b) { return U<T>(a) < U<T>(b) ? a : b; } };
struct DivSI {
  template <class T> static T apply(T a, T b) {
    if (a == std::numeric_limits<T>::min() && b == T(-1)) return a;
    return T(a / b);
  }
};
struct RemSI {
  template <class T> static T apply(T a, T b) {
    if (b == T(-1)) return 0;
    return T(a % b);
  }
};
struct DivUI { template <class T> static T apply(T a, T b) { return T(U<T>(a) / U<T>(b)); } };
struct RemUI { template <class T> static T apply(T a, T b) { return T(U<T>(a) % U<T>(b)); } };

struct AddF { template <class T> static T apply(T a, T b) { return a + b; } };
struct SubF { template <class T> static T apply(T a, T b) { return a - b; } };
struct MulF { template <class T> static T apply(T a, T b) { return a * b; } };
struct DivF { template <class T> static T apply(T a, T b) { return a / b; } };
struct RemF { template <class T> static T apply(T a, T b) { return std::fmod(a, b); } };
// Inline (no libm call): a NaN operand is ignored; equal values keep +0 over -0.
struct MaxNumF {
  template <class T> static T apply(T a, T b) {
    if (a != a) return b;
    if (b != b) return a;
    return a > b ? a : (b > a ? b : (std::signbit(a) ? b : a));
  }
};
struct MinNumF {
  template <class T> static T apply(T a, T b) {
    if (a != a) return b;
    if (b != b) return a;
    return a < b ? a : (b < a ? b : (std::signbit(a) ? a : b));
  }
};
struct MaximumF {
  template <class T> static T apply(T a, T b) {
    if (std::isnan(a) || std::isnan(b)) return a + b;
    if (a == b) return std::signbit(a) ? b : a;
    return a > b ? a : b;
  }
};
struct MinimumF {
  template <class T> static T apply(T a, T b) {
    if (std::isnan(a) || std::isnan(b)) return a + b;
    if (a == b) return std::signbit(a) ? a : b;
    return a < b ? a : b;
  }
};


}  // namespace tessera::interp::ops
