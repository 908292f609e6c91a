//===- Casts.cpp - Conversions between scalar types ------------------------===//
//
// Integer widening/narrowing (8-bit values kept sign-extended in 16-bit
// registers), int <-> float, float <-> float. Every narrowing rounds ONCE,
// like the interpreter (the executable specification, lib/interpreter/
// Cast.cpp), with the same results bit for bit:
//
//  * f32 -> f16/bf16 and f64 -> f16/f32 are single cvt instructions (rn or
//    rz). f64 -> bf16 and 32/64-bit int -> f16/bf16/fp8 first round to f32
//    with round-to-odd (truncate, then set the lowest mantissa bit when
//    inexact), which makes the second rounding to <= 22 bits correct.
//  * fp8 (all five kinds: e4m3fn, e5m2, e4m3fnuz, e5m2fnuz, e4m3b11fnuz) in
//    software, on every target. Decoding is exact: the code's exponent and
//    mantissa bits shifted into f32 position, then scaled by 2^(127-bias)
//    (which also normalises subnormals), NaN/inf patched in. Encoding mirrors
//    ir::floats::encodeFloat: round to nearest even (or toward zero) in
//    integer arithmetic on the f32 bits, subnormals through a scaled
//    cvt.rni, finite overflow saturating to the largest finite code, inf ->
//    inf for e5m2 (saturated for the formats without inf), NaN -> the
//    format's NaN with the sign kept (0x80 for FNUZ, which has no -0 either).
//    The sm_89 cvt.rn.satfinite instructions are not used: they saturate inf
//    to the largest finite e5m2 value (the interpreter and the format keep
//    inf) and give canonical NaNs, so results would depend on the target.
//  * NaN results of fp8 -> f16/bf16/f64 are the interpreter's (sign kept,
//    quiet bit only); bf16 rtz keeps the sign of a NaN too.
//
//===----------------------------------------------------------------------===//

#include <cstdio>

#include "ir/FloatFormats.h"
#include "ptx/Emitter.h"

namespace tessera::ptx {

using namespace ir;

namespace {

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08X", v);
  return buf;
}

/// A PTX f32 immediate (0fXXXXXXXX) for 2^e.
std::string pow2f(int e) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0f%08X", static_cast<uint32_t>(e + 127) << 23);
  return buf;
}

class Caster {
 public:
  Caster(Emitter& e, Operation* op) : e_(e), op_(op) {}

  std::string un(const std::string& opcode, Type t, const std::string& a) {
    std::string d = e_.reg(t);
    e_.ins(opcode + " " + d + ", " + a);
    return d;
  }
  /// d = opcode a, b on b32 registers (b may be an immediate).
  std::string bin(const std::string& opcode, const std::string& a, const std::string& b) {
    std::string d = e_.reg(RegClass::B32);
    e_.ins(opcode + " " + d + ", " + a + ", " + b);
    return d;
  }
  std::string pred(const std::string& cmp, const std::string& a, const std::string& b) {
    std::string d = e_.reg(RegClass::Pred);
    e_.ins("setp." + cmp + " " + d + ", " + a + ", " + b);
    return d;
  }
  std::string sel(const std::string& t, const std::string& f, const std::string& p) {
    std::string d = e_.reg(RegClass::B32);
    e_.ins("selp.b32 " + d + ", " + t + ", " + f + ", " + p);
    return d;
  }

  bool isUnsigned() const {
    return op_ && (op_->is(OpCode::ExtUI) || op_->is(OpCode::UIToFP) || op_->is(OpCode::FPToUI));
  }

  static std::string it(unsigned bits, bool s) { return (s ? "s" : "u") + std::to_string(bits <= 16 ? 16 : bits); }

  std::string norm8(const std::string& r) { return un("cvt.s16.s8", Type::i8(), r); }
  std::string zext8(const std::string& r) {
    std::string d = e_.reg(RegClass::B16);
    e_.ins("and.b16 " + d + ", " + r + ", 0x00FF");
    return d;
  }

  std::string intToInt(const std::string& v, Type from, Type to) {
    unsigned fb = from.bitWidth(), tb = to.bitWidth();
    bool sgn = !isUnsigned();
    if (fb == tb) return v;
    if (fb == 1) {
      std::string d = e_.reg(to);
      std::string bits = "b" + std::to_string(tb <= 16 ? 16 : tb);
      e_.ins("selp." + bits + " " + d + ", " + e_.constInt(to, sgn && op_ && op_->is(OpCode::ExtSI) ? -1 : 1) + ", " +
             e_.constInt(to, 0) + ", " + v);
      return d;
    }
    if (tb == 1) {
      std::string low = e_.reg(from), d = e_.reg(RegClass::Pred);
      std::string bits = "b" + std::to_string(fb <= 16 ? 16 : fb);
      e_.ins("and." + bits + " " + low + ", " + v + ", 1");
      e_.ins("setp.ne." + bits + " " + d + ", " + low + ", 0");
      return d;
    }
    if (tb > fb) {  // widen
      std::string src = v;
      if (fb == 8 && !sgn) src = zext8(v);
      if (tb == 16) return src;  // 8 -> 16: canonical form already
      return un("cvt." + it(tb, sgn) + "." + it(fb, sgn), to, src);
    }
    // narrow
    std::string r = v;
    if (tb >= 16 || fb > 16) r = un("cvt.u" + std::to_string(tb <= 16 ? 16 : tb) + ".u" + std::to_string(fb), to, v);
    return tb == 8 ? norm8(r) : r;
  }

  bool rtz() const { return op_ && op_->strAttr("rounding") == "rtz"; }

  // ---- round-to-odd f32 -------------------------------------------------------

  /// x32 | (x32 inexact ? 1 : 0): the lowest mantissa bit becomes sticky.
  std::string stickyLowBit(const std::string& x32, const std::string& inexact) {
    return sel(bin("or.b32", x32, "1"), x32, inexact);
  }

  /// f64 -> f32 with round-to-odd (NaN stays NaN, beyond the f32 range:
  /// +-FLT_MAX, which any narrower rounding treats like the true value).
  std::string f64ToF32Odd(const std::string& v) {
    std::string t = un("cvt.rz.f32.f64", Type::f32(), v);
    std::string back = un("cvt.f64.f32", Type::f64(), t);
    return stickyLowBit(t, pred("neu.f64", back, v));
  }

  /// A 32/64-bit integer -> f32 with round-to-odd (exact below 2^24).
  std::string intToF32Odd(const std::string& v, unsigned bits, bool sgn) {
    std::string ty = it(bits, sgn);
    std::string t = un("cvt.rz.f32." + ty, Type::f32(), v);
    std::string back = un("cvt.rzi." + ty + ".f32", Type::integer(bits), t);
    return stickyLowBit(t, pred("ne." + ty, back, v));
  }

  // ---- fp8 in software ---------------------------------------------------------

  static const floats::FloatFormat& fmt(Type t) { return floats::floatFormat(t.kind()); }

  /// Exact f32 bits of an fp8 code (the low byte of a b16 register).
  std::string fp8ToF32(const std::string& v, Type from) {
    const floats::FloatFormat& f = fmt(from);
    std::string c = bin("and.b32", un("cvt.u32.u16", Type::i32(), v), "255");
    std::string mag = bin("and.b32", c, "127");
    // As f32 bits the code's fields are off by a factor 2^(127 - bias),
    // subnormal codes included (they become f32 subnormals): one exact mul.
    std::string shifted = bin("shl.b32", mag, std::to_string(23 - f.manBits));
    std::string value = e_.reg(RegClass::B32);
    e_.ins("mul.rn.f32 " + value + ", " + shifted + ", " + pow2f(127 - f.bias));
    std::string sign = bin("shl.b32", bin("and.b32", c, "128"), "24");
    std::string r = bin("or.b32", value, sign);
    std::string nan = bin("or.b32", sign, "0x7FC00000");
    uint32_t expAll = ((1u << f.expBits) - 1) << f.manBits;
    if (f.uzNaN) return sel("0x7FC00000", r, pred("eq.u32", c, "128"));
    if (f.fnNaN) return sel(nan, r, pred("eq.u32", mag, "127"));
    // IEEE-like (e5m2): exponent all ones is inf (mantissa 0) or NaN.
    std::string inf = bin("or.b32", sign, "0x7F800000");
    r = sel(inf, r, pred("eq.u32", mag, std::to_string(expAll)));
    return sel(nan, r, pred("gt.u32", mag, std::to_string(expAll)));
  }

  /// The fp8 code of the f32 `u` with its sign replaced by `sign80` (a b32
  /// register holding 0 or 0x80), as the low byte of a b16 register.
  std::string f32ToFp8(const std::string& u, const std::string& sign80, Type to, bool towardZero) {
    const floats::FloatFormat& f = fmt(to);
    int shift = 23 - f.manBits;
    uint32_t expAll = ((1u << f.expBits) - 1) << f.manBits;
    uint32_t maxBits = f.hasInf ? expAll - 1 : f.fnNaN ? expAll | ((1u << f.manBits) - 2) : 127;
    std::string a = bin("and.b32", u, "0x7FFFFFFF");
    // Normal results: rebias the f32 bits, round at the code's last bit
    // (a carry moves into the exponent), saturate.
    std::string r = bin("sub.u32", a, hex32(static_cast<uint32_t>(127 - f.bias) << 23));
    if (!towardZero) {
      std::string odd = bin("and.b32", bin("shr.u32", r, std::to_string(shift)), "1");
      r = bin("add.u32", bin("add.u32", r, std::to_string((1u << (shift - 1)) - 1)), odd);
    }
    std::string normal = bin("min.u32", bin("shr.u32", r, std::to_string(shift)), std::to_string(maxBits));
    // Below the smallest normal (2^(1-bias)): count quanta of
    // 2^(1-bias-man); rounding up to 2^man gives the smallest normal code.
    std::string scaled = e_.reg(RegClass::B32);
    e_.ins("mul.rn.f32 " + scaled + ", " + a + ", " + pow2f(f.manBits - 1 + f.bias));
    std::string sub = un(towardZero ? "cvt.rzi.u32.f32" : "cvt.rni.u32.f32", Type::i32(), scaled);
    std::string isSub = pred("lt.u32", a, hex32(static_cast<uint32_t>(128 - f.bias) << 23));
    std::string code = sel(sub, normal, isSub);
    std::string isNan = pred("gt.u32", a, "0x7F800000");
    if (f.uzNaN) {
      // No negative zero; 0x80 is the only NaN.
      std::string sign = sel("0", sign80, pred("eq.u32", code, "0"));
      code = sel("128", bin("or.b32", code, sign), isNan);
    } else {
      if (f.hasInf) code = sel(std::to_string(expAll), code, pred("eq.u32", a, "0x7F800000"));
      uint32_t nanBits = f.fnNaN ? 127 : expAll | (1u << (f.manBits - 1));
      code = bin("or.b32", sel(std::to_string(nanBits), code, isNan), sign80);
    }
    return un("cvt.u16.u32", Type::i16(), code);
  }

  /// 0x80 when bit `bit` of the b32 `x` is set, else 0.
  std::string signTo80(const std::string& x, int bit) {
    return bin("and.b32", bin("shr.u32", x, std::to_string(bit - 7)), "128");
  }

  /// Any float or f32-rounded value -> fp8 (one rounding).
  std::string toFp8(const std::string& v, Type from, Type to) {
    bool tz = rtz();
    switch (from.kind()) {
      case TypeKind::F32: return f32ToFp8(v, signTo80(v, 31), to, tz);
      case TypeKind::BF16: {
        std::string u = floatToF32(v, from);
        return f32ToFp8(u, signTo80(u, 31), to, tz);
      }
      case TypeKind::F16: {
        std::string wide = un("cvt.u32.u16", Type::i32(), v);
        return f32ToFp8(un("cvt.f32.f16", Type::f32(), v), signTo80(wide, 15), to, tz);
      }
      case TypeKind::F64: {
        std::string lo = e_.reg(RegClass::B32), hi = e_.reg(RegClass::B32);
        e_.ins("mov.b64 {" + lo + ", " + hi + "}, " + v);
        std::string u = tz ? un("cvt.rz.f32.f64", Type::f32(), v) : f64ToF32Odd(v);
        return f32ToFp8(u, signTo80(hi, 31), to, tz);
      }
      default: {  // another fp8 kind: exact through f32
        std::string u = fp8ToF32(v, from);
        return f32ToFp8(u, signTo80(u, 31), to, tz);
      }
    }
  }

  /// The decoded f32 of an fp8 value -> f16/bf16/f64 with the interpreter's
  /// NaNs (every finite value and inf converts exactly).
  std::string fromFp8(const std::string& v, Type from, Type to) {
    std::string u = fp8ToF32(v, from);
    switch (to.kind()) {
      case TypeKind::F32: return u;
      case TypeKind::BF16: return un("cvt.u16.u32", Type::i16(), bin("shr.u32", u, "16"));  // low bits are 0
      case TypeKind::F16: {
        std::string isNan = pred("nan.f32", u, u);
        std::string h = un("cvt.rn.f16.f32", Type::f16(), u);
        std::string sign = bin("shr.u32", bin("and.b32", u, "0x80000000"), "16");
        std::string nan = un("cvt.u16.u32", Type::i16(), bin("or.b32", sign, "0x7E00"));
        std::string d = e_.reg(RegClass::B16);
        e_.ins("selp.b16 " + d + ", " + nan + ", " + h + ", " + isNan);
        return d;
      }
      case TypeKind::F64: {
        std::string isNan = pred("nan.f32", u, u);
        std::string x = un("cvt.f64.f32", Type::f64(), u);
        std::string hi = bin("or.b32", bin("and.b32", u, "0x80000000"), "0x7FF80000");
        std::string nan = e_.reg(RegClass::B64), d = e_.reg(RegClass::B64);
        e_.ins("mov.b64 " + nan + ", {" + e_.constInt(Type::i32(), 0) + ", " + hi + "}");
        e_.ins("selp.b64 " + d + ", " + nan + ", " + x + ", " + isNan);
        return d;
      }
      default: return f32ToFp8(u, signTo80(u, 31), to, rtz());
    }
  }

  // ---- floats --------------------------------------------------------------------

  /// An exact (or, from f64, correctly rounded) f32.
  std::string floatToF32(const std::string& v, Type from) {
    switch (from.kind()) {
      case TypeKind::F32: return v;
      case TypeKind::F16: return un("cvt.f32.f16", Type::f32(), v);
      case TypeKind::BF16: {
        std::string w = un("cvt.u32.u16", Type::i32(), v);
        return bin("shl.b32", w, "16");
      }
      case TypeKind::F64: return un(rtz() ? "cvt.rz.f32.f64" : "cvt.rn.f32.f64", Type::f32(), v);
      default: return fp8ToF32(v, from);
    }
  }

  std::string f32ToFloat(const std::string& v, Type to) {
    switch (to.kind()) {
      case TypeKind::F32: return v;
      case TypeKind::F64: return un("cvt.f64.f32", to, v);
      case TypeKind::F16: return un(rtz() ? "cvt.rz.f16.f32" : "cvt.rn.f16.f32", to, v);
      case TypeKind::BF16: {
        if (!rtz()) return un("cvt.rn.bf16.f32", to, v);
        // Truncate the low 16 bits; a NaN becomes the quiet NaN of its sign.
        std::string top = bin("shr.u32", v, "16");
        std::string nan = bin("or.b32", bin("and.b32", top, "0x8000"), "0x7FC0");
        return un("cvt.u16.u32", Type::i16(), sel(nan, top, pred("nan.f32", v, v)));
      }
      default: return f32ToFp8(v, signTo80(v, 31), to, rtz());
    }
  }

  std::string floatToFloat(const std::string& v, Type from, Type to) {
    if (from == to) return v;
    if (from.isFP8()) return fromFp8(v, from, to);
    if (to.isFP8()) return toFp8(v, from, to);
    // Direct instructions where they exist (single rounding).
    if (from.kind() == TypeKind::F16 && to.kind() == TypeKind::F64) return un("cvt.f64.f16", to, v);
    if (from.kind() == TypeKind::F64 && to.kind() == TypeKind::F16)
      return un(rtz() ? "cvt.rz.f16.f64" : "cvt.rn.f16.f64", to, v);
    // f64 -> bf16: round-to-odd f32 first, so the bf16 rounding is the only
    // one (rtz composes exactly without it).
    if (from.kind() == TypeKind::F64 && to.kind() == TypeKind::BF16 && !rtz())
      return un("cvt.rn.bf16.f32", to, f64ToF32Odd(v));
    return f32ToFloat(floatToF32(v, from), to);
  }

  // ---- int <-> float ---------------------------------------------------------------

  std::string intToFloat(const std::string& v, Type from, Type to) {
    bool sgn = !isUnsigned();
    std::string src = v;
    unsigned fb = from.bitWidth();
    if (fb == 1) {
      src = intToInt(v, from, Type::i32());
      fb = 32;
    } else if (fb == 8 && !sgn) {
      src = zext8(v);
    }
    std::string srcType = it(fb, sgn);
    switch (to.kind()) {
      case TypeKind::F32: return un("cvt.rn.f32." + srcType, to, src);
      case TypeKind::F64: return un("cvt.rn.f64." + srcType, to, src);
      default: break;
    }
    // f16/bf16/fp8: an exact f32 (8/16-bit sources) or a round-to-odd one,
    // then the one rounding to the target.
    std::string f = fb <= 16 ? un("cvt.rn.f32." + srcType, Type::f32(), src) : intToF32Odd(src, fb, sgn);
    if (to.kind() == TypeKind::F16) return un("cvt.rn.f16.f32", to, f);
    if (to.kind() == TypeKind::BF16) return un("cvt.rn.bf16.f32", to, f);
    return f32ToFp8(f, signTo80(f, 31), to, false);
  }

  std::string floatToInt(const std::string& v, Type from, Type to) {
    bool sgn = !isUnsigned();
    std::string src = v;
    Type f = from;
    if (from.kind() == TypeKind::BF16 || from.isFP8()) {
      src = floatToF32(v, from);
      f = Type::f32();
    }
    std::string ft = f.kind() == TypeKind::F16 ? "f16" : f.kind() == TypeKind::F64 ? "f64" : "f32";
    unsigned tb = to.bitWidth();
    if (tb == 1) {
      std::string i = un("cvt.rzi.s32." + ft, Type::i32(), src);
      std::string d = e_.reg(RegClass::Pred);
      e_.ins("setp.ne.s32 " + d + ", " + i + ", 0");
      return d;
    }
    std::string r = un("cvt.rzi." + it(tb, sgn) + "." + ft, to, src);
    return tb == 8 ? norm8(r) : r;
  }

  std::string bitcast(const std::string& v, Type from, Type to) {
    if (to.isInteger(8)) return norm8(v);
    if (from.isInteger(8) && to.isFP8()) return zext8(v);
    return v;
  }

  std::string run(const std::string& v, Type from, Type to) {
    if (op_ && op_->is(OpCode::Bitcast)) return bitcast(v, from, to);
    bool fi = from.isInteger(), ti = to.isInteger();
    if (fi && ti) return intToInt(v, from, to);
    if (fi) return intToFloat(v, from, to);
    if (ti) return floatToInt(v, from, to);
    return floatToFloat(v, from, to);
  }

 private:
  Emitter& e_;
  Operation* op_;
};

}  // namespace

std::string emitCast(Emitter& e, Operation* op, const std::string& value, Type from, Type to) {
  return Caster(e, op).run(value, from, to);
}

}  // namespace tessera::ptx
