//===- Casts.cpp - Conversions between scalar types ------------------------===//
//
// Integer widening/narrowing (8-bit values kept sign-extended in 16-bit
// registers), int <-> float, float <-> float. Every narrowing rounds ONCE,
// like the interpreter (the executable specification, lib/interpreter/
// Cast.cpp): f32 -> f16/bf16 and f64 -> f16/f32 are single cvt
// instructions (rn or rz); f64 -> bf16 and 32/64-bit int -> f16/bf16 first
// round to f32 with round-to-odd (truncate, then set the lowest mantissa bit
// when inexact), which makes the second rounding to <= 22 bits correct.
// bf16 -> f32 is a 16-bit shift (exact, any arch); bf16 rtz keeps the sign
// of a NaN. fp8 e4m3/e5m2 use the satfinite conversions of sm_89+ (what
// Triton emits on Hopper). Conversions without a direct instruction go
// through f32.
//
//===----------------------------------------------------------------------===//

#include "ptx/Emitter.h"

namespace tessera::ptx {

using namespace ir;

namespace {

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

  std::string floatToF32(const std::string& v, Type from) {
    switch (from.kind()) {
      case TypeKind::F32: return v;
      case TypeKind::F16: return un("cvt.f32.f16", Type::f32(), v);
      case TypeKind::BF16: {
        std::string w = un("cvt.u32.u16", Type::i32(), v);
        std::string d = e_.reg(RegClass::B32);
        e_.ins("shl.b32 " + d + ", " + w + ", 16");
        return d;
      }
      case TypeKind::F64: return un(rtz() ? "cvt.rz.f32.f64" : "cvt.rn.f32.f64", Type::f32(), v);
      default: return un("cvt.f32.f16", Type::f32(), fp8ToF16(v, from));
    }
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

  void needFp8Hardware(Type t) {
    if (e_.options().target.capability < 89)
      e_.fail(op_, "conversions of " + t.str() + " need sm_89 or newer on the GPU (target " +
                       e_.options().target.name() + ")");
    if (t.kind() != TypeKind::F8E4M3FN && t.kind() != TypeKind::F8E5M2)
      e_.fail(op_, "the GPU backend supports fp8e4nv and fp8e5 only, not " + t.str());
  }

  static std::string fp8Name(Type t) { return t.kind() == TypeKind::F8E4M3FN ? "e4m3x2" : "e5m2x2"; }

  std::string fp8ToF16(const std::string& v, Type from) {
    needFp8Hardware(from);
    std::string pair = e_.reg(RegClass::B32), lo = e_.reg(RegClass::B16), hi = e_.reg(RegClass::B16);
    e_.ins("cvt.rn.f16x2." + fp8Name(from) + " " + pair + ", " + v);
    e_.ins("mov.b32 {" + lo + ", " + hi + "}, " + pair);
    return lo;
  }

  std::string f32ToFp8(const std::string& v, Type to) {
    needFp8Hardware(to);
    if (rtz()) e_.fail(op_, "round-toward-zero conversions to fp8 are not supported on the GPU");
    std::string d = e_.reg(RegClass::B16);
    e_.ins("cvt.rn.satfinite." + fp8Name(to) + ".f32 " + d + ", " + e_.constFloat(Type::f32(), 0.0) + ", " + v);
    std::string low = e_.reg(RegClass::B16);
    e_.ins("and.b16 " + low + ", " + d + ", 0x00FF");
    return low;
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
      default: return f32ToFp8(v, to);
    }
  }

  std::string floatToFloat(const std::string& v, Type from, Type to) {
    if (from == to) return v;
    // Direct instructions where they exist (single rounding).
    if (from.kind() == TypeKind::F16 && to.kind() == TypeKind::F64) return un("cvt.f64.f16", to, v);
    if (from.kind() == TypeKind::F64 && to.kind() == TypeKind::F16)
      return un(rtz() ? "cvt.rz.f16.f64" : "cvt.rn.f16.f64", to, v);
    if (from.isFP8() && to.kind() == TypeKind::F16) return fp8ToF16(v, from);
    if (from.kind() == TypeKind::F16 && to.isFP8()) {
      needFp8Hardware(to);
      std::string pair = e_.reg(RegClass::B32), d = e_.reg(RegClass::B16), low = e_.reg(RegClass::B16);
      e_.ins("mov.b32 " + pair + ", {" + v + ", " + e_.constInt(Type::i16(), 0) + "}");
      e_.ins("cvt.rn.satfinite." + fp8Name(to) + ".f16x2 " + d + ", " + pair);
      e_.ins("and.b16 " + low + ", " + d + ", 0x00FF");
      return low;
    }
    // f64 -> bf16: round-to-odd f32 first, so the bf16 rounding is the only
    // one (rtz composes exactly without it).
    if (from.kind() == TypeKind::F64 && to.kind() == TypeKind::BF16 && !rtz())
      return un("cvt.rn.bf16.f32", to, f64ToF32Odd(v));
    return f32ToFloat(floatToF32(v, from), to);
  }

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
    return f32ToFloat(f, to);
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
