//===- ConstantFold.cpp - Evaluating ops on constant operands ------------===//
//
// See ConstantFold.h. Integer arithmetic is done on uint64 and wrapped to the
// type width (two's complement); the op decides signed or unsigned. Float
// arithmetic is done in double and rounded once to the result type: for
// +, -, *, /, sqrt that equals the correctly rounded result in f32, f16, bf16
// and fp8 because double has more than 2p+2 bits of precision for each of
// them (double rounding is innocuous). Library functions (exp, log, ...) are
// evaluated in the type's precision, like the interpreter: float functions for
// f32 and narrower (then rounded to the type), double functions for f64.
//
//===----------------------------------------------------------------------===//

#include "transforms/ConstantFold.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace tessera::transforms {

using namespace ir;

//===----------------------------------------------------------------------===//
// Float formats
//===----------------------------------------------------------------------===//

namespace {

struct FloatFormat {
  int mantissa;      ///< explicit mantissa bits
  int bias;
  bool hasInf;       ///< IEEE-like: exponent all ones = inf/NaN
  bool hasNegZero;   ///< false for the FNUZ formats
  double maxFinite;
};

std::optional<FloatFormat> formatOf(TypeKind kind) {
  switch (kind) {
    case TypeKind::F16: return FloatFormat{10, 15, true, true, 65504.0};
    case TypeKind::BF16: return FloatFormat{7, 127, true, true, 0x1.fep127};
    case TypeKind::F32: return FloatFormat{23, 127, true, true, std::numeric_limits<float>::max()};
    case TypeKind::F8E5M2: return FloatFormat{2, 15, true, true, 57344.0};
    case TypeKind::F8E4M3FN: return FloatFormat{3, 7, false, true, 448.0};
    case TypeKind::F8E4M3FNUZ: return FloatFormat{3, 8, false, false, 240.0};
    case TypeKind::F8E5M2FNUZ: return FloatFormat{2, 16, false, false, 57344.0};
    case TypeKind::F8E4M3B11FNUZ: return FloatFormat{3, 11, false, false, 30.0};
    default: return std::nullopt;
  }
}

bool isF64(Type t) { return t.elementType().kind() == TypeKind::F64; }
bool isF32(Type t) { return t.elementType().kind() == TypeKind::F32; }

}  // namespace

std::optional<double> roundToFloatType(double x, Type type, bool towardZero) {
  Type element = type.elementType();
  if (element.kind() == TypeKind::F64) return x;
  std::optional<FloatFormat> f = formatOf(element.kind());
  if (!f) return std::nullopt;
  if (std::isnan(x)) return x;
  if (std::isinf(x)) {
    if (f->hasInf) return x;
    return std::nullopt;
  }
  if (x == 0) return f->hasNegZero ? x : 0.0;
  int exp = 0;
  std::frexp(x, &exp);
  int lead = std::max(exp - 1, 1 - f->bias);  // exponent of the leading bit (or subnormal)
  double quantum = std::ldexp(1.0, lead - f->mantissa);
  double q = x / quantum;  // exact: scaling by a power of two
  q = towardZero ? std::trunc(q) : std::nearbyint(q);
  double r = q * quantum;
  if (std::fabs(r) > f->maxFinite) {
    if (towardZero && f->hasInf) return std::copysign(f->maxFinite, x);
    if (!towardZero && f->hasInf) return std::copysign(HUGE_VAL, x);
    return std::nullopt;  // fp8 without inf: saturation rules belong to the target
  }
  if (r == 0 && !f->hasNegZero) return 0.0;
  return r;
}

int64_t normalizeInt(uint64_t value, unsigned width) {
  if (width == 1) return static_cast<int64_t>(value & 1);
  if (width >= 64) return static_cast<int64_t>(value);
  unsigned shift = 64 - width;
  return static_cast<int64_t>(value << shift) >> shift;
}

namespace {

//===----------------------------------------------------------------------===//
// Bit patterns (for arith.bitcast)
//===----------------------------------------------------------------------===//

std::optional<uint64_t> floatToBits(double x, Type type) {
  if (std::isnan(x)) return std::nullopt;  // NaN payloads are not ours to choose
  switch (type.kind()) {
    case TypeKind::F64: {
      uint64_t bits;
      std::memcpy(&bits, &x, 8);
      return bits;
    }
    case TypeKind::F32: {
      float f = static_cast<float>(x);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      return bits;
    }
    default: break;
  }
  std::optional<FloatFormat> f = formatOf(type.kind());
  if (!f || !f->hasInf) return std::nullopt;  // f16, bf16, e5m2 only
  unsigned width = type.bitWidth();
  int expBits = static_cast<int>(width) - 1 - f->mantissa;
  uint64_t sign = std::signbit(x) ? uint64_t(1) << (width - 1) : 0;
  double a = std::fabs(x);
  uint64_t expAll = (uint64_t(1) << expBits) - 1;
  if (std::isinf(a)) return sign | (expAll << f->mantissa);
  if (a == 0) return sign;
  int exp = 0;
  std::frexp(a, &exp);
  int lead = exp - 1;
  if (lead < 1 - f->bias)  // subnormal
    return sign | static_cast<uint64_t>(std::ldexp(a, f->bias - 1 + f->mantissa));
  uint64_t mant = static_cast<uint64_t>(std::ldexp(a, f->mantissa - lead)) - (uint64_t(1) << f->mantissa);
  return sign | (uint64_t(lead + f->bias) << f->mantissa) | mant;
}

std::optional<double> bitsToFloat(uint64_t bits, Type type) {
  switch (type.kind()) {
    case TypeKind::F64: {
      double d;
      std::memcpy(&d, &bits, 8);
      if (std::isnan(d)) return std::nullopt;
      return d;
    }
    case TypeKind::F32: {
      uint32_t b = static_cast<uint32_t>(bits);
      float f;
      std::memcpy(&f, &b, 4);
      if (std::isnan(f)) return std::nullopt;
      return static_cast<double>(f);
    }
    default: break;
  }
  std::optional<FloatFormat> f = formatOf(type.kind());
  if (!f || !f->hasInf) return std::nullopt;
  unsigned width = type.bitWidth();
  int expBits = static_cast<int>(width) - 1 - f->mantissa;
  uint64_t mant = bits & ((uint64_t(1) << f->mantissa) - 1);
  uint64_t exp = (bits >> f->mantissa) & ((uint64_t(1) << expBits) - 1);
  bool negative = (bits >> (width - 1)) & 1;
  double value;
  if (exp == (uint64_t(1) << expBits) - 1) {
    if (mant != 0) return std::nullopt;
    value = HUGE_VAL;
  } else if (exp == 0) {
    value = std::ldexp(static_cast<double>(mant), 1 - f->bias - f->mantissa);
  } else {
    value = std::ldexp(static_cast<double>(mant | (uint64_t(1) << f->mantissa)),
                       static_cast<int>(exp) - f->bias - f->mantissa);
  }
  return negative ? -value : value;
}

//===----------------------------------------------------------------------===//
// Integer folding
//===----------------------------------------------------------------------===//

uint64_t toUnsigned(int64_t v, unsigned w) {
  return w >= 64 ? static_cast<uint64_t>(v) : static_cast<uint64_t>(v) & ((uint64_t(1) << w) - 1);
}
int64_t toSigned(int64_t v, unsigned w) {
  if (w >= 64) return v;
  unsigned shift = 64 - w;
  return static_cast<int64_t>(static_cast<uint64_t>(v) << shift) >> shift;
}
int64_t signedMin(unsigned w) { return w >= 64 ? std::numeric_limits<int64_t>::min() : -(int64_t(1) << (w - 1)); }

std::optional<int64_t> foldIntBinary(OpCode code, int64_t a, int64_t b, unsigned w, const Operation* op) {
  uint64_t ua = toUnsigned(a, w), ub = toUnsigned(b, w);
  int64_t sa = toSigned(a, w), sb = toSigned(b, w);
  auto norm = [&](uint64_t v) { return normalizeInt(v, w); };
  switch (code) {
    case OpCode::AddI: return norm(ua + ub);
    case OpCode::SubI: return norm(ua - ub);
    case OpCode::MulI: return norm(ua * ub);
    case OpCode::DivSI:
      if (sb == 0 || (sa == signedMin(w) && sb == -1)) return std::nullopt;
      return norm(static_cast<uint64_t>(sa / sb));
    case OpCode::RemSI:
      if (sb == 0) return std::nullopt;
      return norm(sb == -1 ? 0 : static_cast<uint64_t>(sa % sb));
    case OpCode::DivUI:
      if (ub == 0) return std::nullopt;
      return norm(ua / ub);
    case OpCode::RemUI:
      if (ub == 0) return std::nullopt;
      return norm(ua % ub);
    case OpCode::AndI: return norm(ua & ub);
    case OpCode::OrI: return norm(ua | ub);
    case OpCode::XOrI: return norm(ua ^ ub);
    case OpCode::ShLI: return norm(ub >= w ? 0 : ua << ub);
    case OpCode::ShRUI: return norm(ub >= w ? 0 : ua >> ub);
    case OpCode::ShRSI: return norm(static_cast<uint64_t>(ub >= w ? (sa < 0 ? -1 : 0) : sa >> ub));
    case OpCode::MaxSI: return norm(static_cast<uint64_t>(std::max(sa, sb)));
    case OpCode::MinSI: return norm(static_cast<uint64_t>(std::min(sa, sb)));
    case OpCode::MaxUI: return norm(std::max(ua, ub));
    case OpCode::MinUI: return norm(std::min(ua, ub));
    case OpCode::MulHiI: {
      if (op->boolAttr("signed")) {
        __int128 p = static_cast<__int128>(sa) * sb;
        return norm(static_cast<uint64_t>(p >> w));
      }
      unsigned __int128 p = static_cast<unsigned __int128>(ua) * ub;
      return norm(static_cast<uint64_t>(p >> w));
    }
    default: return std::nullopt;
  }
}

std::optional<bool> compareInts(const std::string& pred, int64_t a, int64_t b, unsigned w) {
  uint64_t ua = toUnsigned(a, w), ub = toUnsigned(b, w);
  int64_t sa = toSigned(a, w), sb = toSigned(b, w);
  if (pred == "eq") return ua == ub;
  if (pred == "ne") return ua != ub;
  if (pred == "slt") return sa < sb;
  if (pred == "sle") return sa <= sb;
  if (pred == "sgt") return sa > sb;
  if (pred == "sge") return sa >= sb;
  if (pred == "ult") return ua < ub;
  if (pred == "ule") return ua <= ub;
  if (pred == "ugt") return ua > ub;
  if (pred == "uge") return ua >= ub;
  return std::nullopt;
}

std::optional<bool> compareFloats(const std::string& pred, double a, double b) {
  bool unordered = std::isnan(a) || std::isnan(b);
  if (pred == "ord") return !unordered;
  if (pred == "uno") return unordered;
  bool isU = pred.size() == 3 && pred[0] == 'u';
  bool isO = pred.size() == 3 && pred[0] == 'o';
  if (!isU && !isO) return std::nullopt;
  if (unordered) return isU;
  std::string rel = pred.substr(1);
  if (rel == "eq") return a == b;
  if (rel == "ne") return a != b;
  if (rel == "lt") return a < b;
  if (rel == "le") return a <= b;
  if (rel == "gt") return a > b;
  if (rel == "ge") return a >= b;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Float folding
//===----------------------------------------------------------------------===//

std::optional<double> foldFloatBinary(OpCode code, double a, double b) {
  switch (code) {
    case OpCode::AddF: return a + b;
    case OpCode::SubF: return a - b;
    case OpCode::MulF: return a * b;
    case OpCode::DivF:
    case OpCode::PreciseDivF:
      if (b == 0) return std::nullopt;
      return a / b;
    case OpCode::RemF:
      if (b == 0) return std::nullopt;
      return std::fmod(a, b);
    case OpCode::MaxNumF:
    case OpCode::MinNumF:
      if (a == 0 && b == 0 && std::signbit(a) != std::signbit(b)) return std::nullopt;
      return code == OpCode::MaxNumF ? std::fmax(a, b) : std::fmin(a, b);
    case OpCode::MaximumF:
    case OpCode::MinimumF: {
      if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
      if (a == 0 && b == 0) {  // -0 < +0 for these two
        bool pickNeg = code == OpCode::MinimumF;
        return (std::signbit(a) == pickNeg) ? a : b;
      }
      return code == OpCode::MaximumF ? std::max(a, b) : std::min(a, b);
    }
    default: return std::nullopt;
  }
}

/// Library functions in the type's precision (float for f32 and narrower).
std::optional<double> foldFloatUnary(OpCode code, double a, bool wide) {
  float f = static_cast<float>(a);
  switch (code) {
    case OpCode::NegF: return -a;
    case OpCode::AbsF: return std::fabs(a);
    case OpCode::Floor: return std::floor(a);
    case OpCode::Ceil: return std::ceil(a);
    case OpCode::Sqrt:
    case OpCode::PreciseSqrt: return std::sqrt(a);  // correctly rounded after rounding to the type
    case OpCode::Exp: return wide ? std::exp(a) : std::exp(f);
    case OpCode::Exp2: return wide ? std::exp2(a) : std::exp2(f);
    case OpCode::Log: return wide ? std::log(a) : std::log(f);
    case OpCode::Log2: return wide ? std::log2(a) : std::log2(f);
    case OpCode::Sin: return wide ? std::sin(a) : std::sin(f);
    case OpCode::Cos: return wide ? std::cos(a) : std::cos(f);
    case OpCode::Erf: return wide ? std::erf(a) : std::erf(f);
    case OpCode::Rsqrt:
      if (a == 0) return std::nullopt;
      return wide ? 1.0 / std::sqrt(a) : 1.0f / std::sqrt(f);
    default: return std::nullopt;
  }
}

std::optional<ConstantValue> foldCast(const Operation* op, const ConstantValue& in) {
  Type src = op->operand(0).type().elementType();
  Type dst = op->result(0).type().elementType();
  auto asInt = [&]() { return std::get<int64_t>(in); };
  auto asFloat = [&]() { return std::get<double>(in); };
  switch (op->code()) {
    case OpCode::ExtSI:
    case OpCode::TruncI:
      return ConstantValue(normalizeInt(static_cast<uint64_t>(toSigned(asInt(), src.bitWidth())), dst.bitWidth()));
    case OpCode::ExtUI: return ConstantValue(normalizeInt(toUnsigned(asInt(), src.bitWidth()), dst.bitWidth()));
    case OpCode::SIToFP:
    case OpCode::UIToFP: {
      bool isSigned = op->is(OpCode::SIToFP);
      int64_t s = toSigned(asInt(), src.bitWidth());
      uint64_t u = toUnsigned(asInt(), src.bitWidth());
      // Exact in double below 2^53; otherwise only f32/f64 convert directly
      // with one rounding.
      bool small = isSigned ? (s > -(int64_t(1) << 53) && s < (int64_t(1) << 53)) : u < (uint64_t(1) << 53);
      double exact = isSigned ? static_cast<double>(s) : static_cast<double>(u);
      if (small) {
        if (auto r = roundToFloatType(exact, dst)) return ConstantValue(*r);
        return std::nullopt;
      }
      if (dst.kind() == TypeKind::F64) return ConstantValue(exact);
      if (dst.kind() == TypeKind::F32)
        return ConstantValue(static_cast<double>(isSigned ? static_cast<float>(s) : static_cast<float>(u)));
      return std::nullopt;
    }
    case OpCode::FPToSI:
    case OpCode::FPToUI: {
      double t = std::trunc(asFloat());
      if (std::isnan(t)) return std::nullopt;
      unsigned w = dst.bitWidth();
      if (op->is(OpCode::FPToSI)) {
        double lo = -std::ldexp(1.0, w - 1), hi = std::ldexp(1.0, w - 1);
        if (t < lo || t >= hi) return std::nullopt;
        return ConstantValue(normalizeInt(static_cast<uint64_t>(static_cast<int64_t>(t)), w));
      }
      if (t < 0 || t >= std::ldexp(1.0, w)) return std::nullopt;
      return ConstantValue(normalizeInt(static_cast<uint64_t>(t), w));
    }
    case OpCode::ExtF: return ConstantValue(asFloat());
    case OpCode::TruncF: {
      bool rtz = op->strAttr("rounding", "rtne") == "rtz";
      if (auto r = roundToFloatType(asFloat(), dst, rtz)) return ConstantValue(*r);
      return std::nullopt;
    }
    case OpCode::Bitcast: {
      if (src.isInteger() && dst.isFloat()) {
        if (auto r = bitsToFloat(toUnsigned(asInt(), src.bitWidth()), dst)) return ConstantValue(*r);
        return std::nullopt;
      }
      if (src.isFloat() && dst.isInteger()) {
        if (auto bits = floatToBits(asFloat(), src)) return ConstantValue(normalizeInt(*bits, dst.bitWidth()));
        return std::nullopt;
      }
      if (src == dst) return in;
      return std::nullopt;
    }
    default: return std::nullopt;
  }
}

}  // namespace

std::optional<ConstantValue> foldConstantOp(const Operation* op, const std::vector<ConstantValue>& operands) {
  if (op->numResults() != 1 || operands.size() != op->numOperands() || operands.empty()) return std::nullopt;
  Type resultType = op->result(0).type();
  Type element = resultType.elementType();
  // Integer payloads for integer operands, double payloads for float ones.
  for (unsigned i = 0; i < operands.size(); ++i) {
    bool wantInt = op->operand(i).type().elementType().isInteger();
    if (wantInt != std::holds_alternative<int64_t>(operands[i])) return std::nullopt;
  }
  auto intOf = [&](unsigned i) { return std::get<int64_t>(operands[i]); };
  auto floatOf = [&](unsigned i) { return std::get<double>(operands[i]); };
  auto roundedResult = [&](std::optional<double> r) -> std::optional<ConstantValue> {
    if (!r) return std::nullopt;
    if (auto rounded = roundToFloatType(*r, resultType)) return ConstantValue(*rounded);
    return std::nullopt;
  };

  OpCode code = op->code();
  switch (code) {
    case OpCode::AddI: case OpCode::SubI: case OpCode::MulI: case OpCode::DivSI: case OpCode::DivUI:
    case OpCode::RemSI: case OpCode::RemUI: case OpCode::AndI: case OpCode::OrI: case OpCode::XOrI:
    case OpCode::ShLI: case OpCode::ShRSI: case OpCode::ShRUI: case OpCode::MaxSI: case OpCode::MaxUI:
    case OpCode::MinSI: case OpCode::MinUI: case OpCode::MulHiI: {
      if (!element.isInteger()) return std::nullopt;
      if (auto r = foldIntBinary(code, intOf(0), intOf(1), element.bitWidth(), op)) return ConstantValue(*r);
      return std::nullopt;
    }
    case OpCode::AbsI: {
      unsigned w = element.bitWidth();
      int64_t s = toSigned(intOf(0), w);
      return ConstantValue(normalizeInt(s < 0 ? 0 - static_cast<uint64_t>(s) : static_cast<uint64_t>(s), w));
    }
    case OpCode::AddF: case OpCode::SubF: case OpCode::MulF: case OpCode::DivF: case OpCode::RemF:
    case OpCode::MaxNumF: case OpCode::MinNumF: case OpCode::MaximumF: case OpCode::MinimumF:
    case OpCode::PreciseDivF:
      if (code == OpCode::PreciseDivF && !isF32(resultType) && !isF64(resultType)) return std::nullopt;
      return roundedResult(foldFloatBinary(code, floatOf(0), floatOf(1)));
    case OpCode::NegF: case OpCode::AbsF: case OpCode::Floor: case OpCode::Ceil: case OpCode::Sqrt:
    case OpCode::PreciseSqrt: case OpCode::Exp: case OpCode::Exp2: case OpCode::Log: case OpCode::Log2:
    case OpCode::Sin: case OpCode::Cos: case OpCode::Erf: case OpCode::Rsqrt:
      return roundedResult(foldFloatUnary(code, floatOf(0), isF64(resultType)));
    case OpCode::Fma: {
      if (isF64(resultType)) return ConstantValue(std::fma(floatOf(0), floatOf(1), floatOf(2)));
      if (!isF32(resultType)) return std::nullopt;  // one rounding to f16/bf16 needs more care
      float r = std::fma(static_cast<float>(floatOf(0)), static_cast<float>(floatOf(1)),
                         static_cast<float>(floatOf(2)));
      return ConstantValue(static_cast<double>(r));
    }
    case OpCode::ClampF: {
      double x = floatOf(0), lo = floatOf(1), hi = floatOf(2);
      if (std::isnan(x) || std::isnan(lo) || std::isnan(hi) || x == 0) return std::nullopt;
      return ConstantValue(std::min(std::max(x, lo), hi));
    }
    case OpCode::CmpI: {
      unsigned w = op->operand(0).type().elementType().bitWidth();
      if (auto r = compareInts(op->strAttr("predicate"), intOf(0), intOf(1), w)) return ConstantValue(int64_t(*r));
      return std::nullopt;
    }
    case OpCode::CmpF:
      if (auto r = compareFloats(op->strAttr("predicate"), floatOf(0), floatOf(1))) return ConstantValue(int64_t(*r));
      return std::nullopt;
    case OpCode::Select:
      return (intOf(0) & 1) ? operands[1] : operands[2];
    case OpCode::ExtSI: case OpCode::ExtUI: case OpCode::TruncI: case OpCode::SIToFP: case OpCode::UIToFP:
    case OpCode::FPToSI: case OpCode::FPToUI: case OpCode::ExtF: case OpCode::TruncF: case OpCode::Bitcast:
      return foldCast(op, operands[0]);
    default:
      return std::nullopt;
  }
}

}  // namespace tessera::transforms
