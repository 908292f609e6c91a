//===- interpreter/FloatFormats.cpp - Exact small-float conversions -------===//
//
// Generic decode/encode for every float format of at most 32 bits, plus the
// decoding tables the hot loops use. The generic encoder rounds the exact
// double once, so f64 -> f16 never double-rounds through f32.
//
//===----------------------------------------------------------------------===//

#include "ir/FloatFormats.h"

#include <cassert>
#include <cmath>
#include <vector>

namespace tessera::ir::floats {

namespace {
// expBits manBits bias hasInf ieeeNaN fnNaN uzNaN saturate
constexpr FloatFormat kF16{5, 10, 15, true, true, false, false, false};
constexpr FloatFormat kBF16{8, 7, 127, true, true, false, false, false};
constexpr FloatFormat kF32{8, 23, 127, true, true, false, false, false};
constexpr FloatFormat kE5M2{5, 2, 15, true, true, false, false, true};
constexpr FloatFormat kE4M3FN{4, 3, 7, false, false, true, false, true};
constexpr FloatFormat kE4M3FNUZ{4, 3, 8, false, false, false, true, true};
constexpr FloatFormat kE5M2FNUZ{5, 2, 16, false, false, false, true, true};
constexpr FloatFormat kE4M3B15{4, 3, 15, false, false, false, true, true};

uint32_t nanBits(const FloatFormat& f, bool negative) {
  uint32_t total = 1 + f.expBits + f.manBits;
  uint32_t signBit = 1u << (total - 1);
  if (f.uzNaN) return signBit;
  uint32_t expMask = ((1u << f.expBits) - 1) << f.manBits;
  uint32_t quiet = f.fnNaN ? (1u << f.manBits) - 1 : 1u << (f.manBits - 1);
  return (negative ? signBit : 0) | expMask | quiet;
}

/// Largest finite value's bit pattern without the sign.
uint32_t maxFiniteBits(const FloatFormat& f) {
  uint32_t expAll = (1u << f.expBits) - 1;
  uint32_t manAll = (1u << f.manBits) - 1;
  if (f.hasInf || f.ieeeNaN) return ((expAll - 1) << f.manBits) | manAll;
  if (f.fnNaN) return (expAll << f.manBits) | (manAll - 1);
  return (expAll << f.manBits) | manAll;  // FNUZ: every code but 0x80 is a number
}

std::vector<float> makeTable(const FloatFormat& f, unsigned count) {
  std::vector<float> t(count);
  for (unsigned i = 0; i < count; ++i) t[i] = static_cast<float>(decodeFloat(i, f));
  return t;
}

const std::vector<float>& halfTable() {
  static const std::vector<float> t = makeTable(kF16, 65536);
  return t;
}
const std::vector<float>& bf16Table() {
  static const std::vector<float> t = makeTable(kBF16, 65536);
  return t;
}
}  // namespace

const float* const kHalfToFloat = halfTable().data();
const float* const kBF16ToFloat = bf16Table().data();

const FloatFormat& floatFormat(ir::TypeKind kind) {
  using K = ir::TypeKind;
  switch (kind) {
  case K::F16: return kF16;
  case K::BF16: return kBF16;
  case K::F8E5M2: return kE5M2;
  case K::F8E4M3FN: return kE4M3FN;
  case K::F8E4M3FNUZ: return kE4M3FNUZ;
  case K::F8E5M2FNUZ: return kE5M2FNUZ;
  case K::F8E4M3B11FNUZ: return kE4M3B15;
  default: return kF32;
  }
}

double decodeFloat(uint32_t bits, const FloatFormat& f) {
  uint32_t total = 1 + f.expBits + f.manBits;
  bool negative = (bits >> (total - 1)) & 1u;
  uint32_t expField = (bits >> f.manBits) & ((1u << f.expBits) - 1);
  uint32_t man = bits & ((1u << f.manBits) - 1);
  uint32_t expAll = (1u << f.expBits) - 1;
  if (f.uzNaN && bits == (1u << (total - 1))) return std::nan("");
  if (f.fnNaN && expField == expAll && man == (1u << f.manBits) - 1) return negative ? -std::nan("") : std::nan("");
  if (f.ieeeNaN && expField == expAll) {
    if (man != 0) return negative ? -std::nan("") : std::nan("");
    return negative ? -INFINITY : INFINITY;
  }
  double v;
  if (expField == 0)
    v = std::ldexp(static_cast<double>(man), 1 - f.bias - f.manBits);
  else
    v = std::ldexp(static_cast<double>(man | (1u << f.manBits)), static_cast<int>(expField) - f.bias - f.manBits);
  return negative ? -v : v;
}

uint32_t encodeFloat(double x, const FloatFormat& f, bool towardZero) {
  uint32_t total = 1 + f.expBits + f.manBits;
  uint32_t signBit = 1u << (total - 1);
  bool negative = std::signbit(x);
  if (std::isnan(x)) return nanBits(f, negative);
  uint32_t sign = negative ? signBit : 0;
  uint32_t maxBits = maxFiniteBits(f);
  double a = std::fabs(x);
  if (std::isinf(a)) {
    if (f.hasInf) return sign | (((1u << f.expBits) - 1) << f.manBits);
    return f.saturate ? sign | maxBits : nanBits(f, negative);
  }
  int emin = 1 - f.bias;  // exponent of the smallest normal
  int e = a == 0 ? emin : std::ilogb(a);
  int ulpExp = (e < emin ? emin : e) - f.manBits;
  double q = std::ldexp(a, -ulpExp);  // exact: scaling by a power of two
  q = towardZero ? std::trunc(q) : std::nearbyint(q);
  double v = std::ldexp(q, ulpExp);
  double maxValue = decodeFloat(maxBits, f);
  if (v > maxValue) {
    if (f.saturate || towardZero || !f.hasInf) return sign | maxBits;
    return sign | (((1u << f.expBits) - 1) << f.manBits);
  }
  if (v == 0) return f.uzNaN ? 0 : sign;
  uint32_t bits;
  int ve = std::ilogb(v);
  if (ve < emin) {
    bits = static_cast<uint32_t>(std::ldexp(v, f.manBits - emin));
  } else {
    uint32_t man = static_cast<uint32_t>(std::ldexp(v, f.manBits - ve)) - (1u << f.manBits);
    bits = (static_cast<uint32_t>(ve + f.bias) << f.manBits) | man;
  }
  return sign | bits;
}

const float* fp8Table(ir::TypeKind kind) {
  using K = ir::TypeKind;
  static const std::vector<float> tables[5] = {
      makeTable(kE4M3FN, 256), makeTable(kE5M2, 256), makeTable(kE4M3FNUZ, 256),
      makeTable(kE5M2FNUZ, 256), makeTable(kE4M3B15, 256)};
  switch (kind) {
  case K::F8E4M3FN: return tables[0].data();
  case K::F8E5M2: return tables[1].data();
  case K::F8E4M3FNUZ: return tables[2].data();
  case K::F8E5M2FNUZ: return tables[3].data();
  default: return tables[4].data();
  }
}

}  // namespace tessera::ir::floats
