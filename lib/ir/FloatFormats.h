//===- ir/FloatFormats.h - Exact small-float conversions ---------===//
//
// The interpreter stores fp16, bf16 and the fp8 formats as their bit patterns
// (uint16_t / uint8_t) and converts them exactly:
//
//   decode   bits -> float (every small format is exactly representable)
//   encode   double -> bits, correctly rounded once (RNE or toward zero), with
//            subnormals, inf/NaN, and fp8 saturation (.satfinite: finite
//            overflow -> max finite; inf stays inf where the format has one)
//
// Format table (bias, NaN and inf encodings):
//   f16          e5m10  bias 15   IEEE inf/NaN
//   bf16         e8m7   bias 127  IEEE inf/NaN
//   f8E5M2       e5m2   bias 15   IEEE inf/NaN          (Triton fp8e5)
//   f8E4M3FN     e4m3   bias 7    no inf, NaN = S.1111.111 (Triton fp8e4nv)
//   f8E4M3FNUZ   e4m3   bias 8    no inf, no -0, NaN = 0x80 (fp8e4b8)
//   f8E5M2FNUZ   e5m2   bias 16   no inf, no -0, NaN = 0x80 (fp8e5b16)
//   f8E4M3B11FNUZ e4m3  bias 15   no inf, no -0, NaN = 0x80 (Triton fp8e4b15)
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <cstring>

#include "tessera/ir/Types.h"

namespace tessera::ir::floats {

/// Parameters of a binary floating-point format of at most 32 bits.
struct FloatFormat {
  int expBits;
  int manBits;
  int bias;
  bool hasInf;    ///< IEEE-style inf (exponent all ones, mantissa 0)
  bool ieeeNaN;   ///< NaN = exponent all ones, mantissa nonzero
  bool fnNaN;     ///< only S.1..1.1..1 is NaN (E4M3FN)
  bool uzNaN;     ///< 0x80 is the only NaN, no negative zero (FNUZ)
  bool saturate;  ///< finite overflow -> max finite (fp8 .satfinite)
};

/// The format of a float TypeKind (f16, bf16, f32 and the fp8 kinds).
const FloatFormat& floatFormat(ir::TypeKind kind);

/// Exact value of `bits` in format `f`.
double decodeFloat(uint32_t bits, const FloatFormat& f);
/// Correctly rounded encoding of `x` (round to nearest even, or toward zero).
uint32_t encodeFloat(double x, const FloatFormat& f, bool towardZero = false);

inline float bitsToFloat(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
inline uint32_t floatToBits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline double bitsToDouble(uint64_t u) { double f; std::memcpy(&f, &u, 8); return f; }
inline uint64_t doubleToBits(double f) { uint64_t u; std::memcpy(&u, &f, 8); return u; }

/// Lookup tables for decoding (built once).
extern const float* const kHalfToFloat;   ///< 65536 entries
extern const float* const kBF16ToFloat;   ///< 65536 entries (could be a shift; kept for symmetry)

inline float halfToFloat(uint16_t h) { return kHalfToFloat[h]; }
inline float bf16ToFloat(uint16_t h) { return bitsToFloat(static_cast<uint32_t>(h) << 16); }

/// float -> f16, round to nearest even (NaN keeps its top payload bits, quieted).
inline uint16_t floatToHalf(float value) {
  uint32_t u = floatToBits(value);
  uint32_t sign = (u >> 16) & 0x8000u;
  u &= 0x7fffffffu;
  if (u >= 0x47800000u) {  // >= 65536, inf or NaN
    if (u > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u | ((u >> 13) & 0x3ffu));
    return static_cast<uint16_t>(sign | 0x7c00u);
  }
  if (u < 0x38800000u) {  // result is subnormal or zero: let the FPU round
    float f = bitsToFloat(u) + bitsToFloat(0x3f000000u);  // + 0.5: ulp becomes 2^-24
    return static_cast<uint16_t>(sign | (floatToBits(f) - 0x3f000000u));
  }
  uint32_t odd = (u >> 13) & 1u;
  u += 0xc8000fffu + odd;  // rebias (15 - 127) << 23 and round
  return static_cast<uint16_t>(sign | (u >> 13));
}

/// float -> bf16, round to nearest even.
inline uint16_t floatToBF16(float value) {
  uint32_t u = floatToBits(value);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

/// Decoding table for an fp8 kind (256 floats).
const float* fp8Table(ir::TypeKind kind);

}  // namespace tessera::ir::floats
