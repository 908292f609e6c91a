//===- ScalarOps.cpp - Elementwise ops on scalar registers ---------------===//
//
// One Tile IR elementwise op applied to one register per operand: integer
// and float arithmetic of every width, comparisons, selects, casts, math
// (Triton's fast paths: ex2.approx/lg2.approx/sin.approx/sqrt.approx with
// scale factors; exact sqrt_rn/div_rn/fma), libdevice calls, pointers.
// exp and exp2 are ex2.approx.ftz.f32, as in Triton (which links libdevice
// with nvvm-reflect-ftz): subnormal inputs and results flush to zero, and
// SASS is one MUFU.EX2. The non-ftz form costs three more instructions per
// element (range check and two scalings), which took attention's softmax
// from 378 to 226 TFLOP/s on the H100.
// Tensors are handled by emitElementwise looping over registers; reduce and
// scan combine regions reuse emitScalarOp on their scalar ops.
//
// Narrow types: fp16 arithmetic is native; bf16 add/sub/mul use fma.rn.bf16
// (one rounding, sm_80+); division and math go through f32 and round once
// back. 8-bit integers live sign-extended in 16-bit registers and are
// re-normalized after every op that can overflow them.
//
//===----------------------------------------------------------------------===//

#include <cctype>
#include <map>
#include <memory>
#include <optional>
#include <cmath>

#include "ir/FloatFormats.h"
#include "ptx/Emitter.h"
#include "tessera/Error.h"

namespace tessera::ptx {

using namespace ir;

uint64_t floatBits(Type t, double value) {
  switch (t.kind()) {
    case TypeKind::F64: return floats::doubleToBits(value);
    case TypeKind::F32: return floats::floatToBits(static_cast<float>(value));
    default: return floats::encodeFloat(value, floats::floatFormat(t.kind()));
  }
}

namespace {

bool isF16(Type t) { return t.kind() == TypeKind::F16; }
bool isBF16(Type t) { return t.kind() == TypeKind::BF16; }

/// PTX type suffix of an integer of `t`'s width held in our registers.
std::string intType(Type t, bool isSigned) {
  unsigned bits = t.bitWidth();
  if (bits <= 16) bits = 16;
  return (isSigned ? "s" : "u") + std::to_string(bits);
}

std::string bitType(Type t) {
  unsigned bits = t.isPointer() ? 64 : t.bitWidth();
  if (bits <= 16) bits = 16;
  return "b" + std::to_string(bits);
}

std::string floatType(Type t) {
  switch (t.kind()) {
    case TypeKind::F16: return "f16";
    case TypeKind::BF16: return "bf16";
    case TypeKind::F32: return "f32";
    case TypeKind::F64: return "f64";
    default: return "f32";
  }
}

class Scalar {
 public:
  Scalar(Emitter& e, Operation* op) : e_(e), op_(op) {}

  /// Re-normalizes an 8-bit integer held in a 16-bit register (sign-extend
  /// the low byte), the canonical form of i8 values.
  std::string norm8(Type t, const std::string& r) {
    if (!t.isInteger(8)) return r;
    std::string d = e_.reg(RegClass::B16);
    e_.ins("cvt.s16.s8 " + d + ", " + r);
    return d;
  }
  /// Zero-extends an 8-bit integer's low byte (for unsigned ops).
  std::string zext8(Type t, const std::string& r) {
    if (!t.isInteger(8)) return r;
    std::string d = e_.reg(RegClass::B16);
    e_.ins("and.b16 " + d + ", " + r + ", 0x00FF");
    return d;
  }

  std::string bin(const std::string& opcode, Type t, const std::string& a, const std::string& b) {
    std::string d = e_.reg(t);
    e_.ins(opcode + " " + d + ", " + a + ", " + b);
    return d;
  }
  std::string un(const std::string& opcode, Type t, const std::string& a) {
    std::string d = e_.reg(t);
    e_.ins(opcode + " " + d + ", " + a);
    return d;
  }

  std::string toF32(Type from, const std::string& r) { return emitCast(e_, op_, r, from, Type::f32()); }
  std::string fromF32(Type to, const std::string& r) { return emitCast(e_, op_, r, Type::f32(), to); }

  // ---- integers -------------------------------------------------------------

  std::string intBinary(OpCode code, Type t, std::string a, std::string b) {
    if (t.isInteger(1)) return predBinary(code, a, b);
    bool narrow8 = t.isInteger(8);
    std::string s = intType(t, true), u = intType(t, false), bits = bitType(t);
    std::string r;
    switch (code) {
      case OpCode::AddI: r = bin("add." + s, t, a, b); break;
      case OpCode::SubI: r = bin("sub." + s, t, a, b); break;
      case OpCode::MulI: r = bin("mul.lo." + s, t, a, b); break;
      case OpCode::DivSI: r = bin("div." + s, t, a, b); break;
      case OpCode::RemSI: r = bin("rem." + s, t, a, b); break;
      case OpCode::DivUI: r = bin("div." + u, t, zext8(t, a), zext8(t, b)); break;
      case OpCode::RemUI: r = bin("rem." + u, t, zext8(t, a), zext8(t, b)); break;
      case OpCode::AndI: return bin("and." + bits, t, a, b);
      case OpCode::OrI: return bin("or." + bits, t, a, b);
      case OpCode::XOrI: return bin("xor." + bits, t, a, b);
      case OpCode::MaxSI: return bin("max." + s, t, a, b);
      case OpCode::MinSI: return bin("min." + s, t, a, b);
      case OpCode::MaxUI: r = bin("max." + u, t, zext8(t, a), zext8(t, b)); break;
      case OpCode::MinUI: r = bin("min." + u, t, zext8(t, a), zext8(t, b)); break;
      case OpCode::ShLI: case OpCode::ShRSI: case OpCode::ShRUI: {
        std::string amount = shiftAmount(t, b);
        if (code == OpCode::ShLI) r = bin("shl." + bits, t, a, amount);
        else if (code == OpCode::ShRSI) r = bin("shr." + s, t, a, amount);
        else r = bin("shr." + u, t, zext8(t, a), amount);
        if (narrow8 && code != OpCode::ShRSI) {
          // 8-bit: shifts of 8 or more give 0 (shl/shr.u); the 16-bit
          // instruction only clamps at 16.
          std::string big = e_.reg(RegClass::Pred), zero = e_.constInt(t, 0);
          e_.ins("setp.gt.u32 " + big + ", " + amount + ", 7");
          std::string d = e_.reg(t);
          e_.ins("selp.b16 " + d + ", " + zero + ", " + r + ", " + big);
          r = d;
        }
        break;
      }
      default: e_.fail(op_, "unsupported integer op");
    }
    return narrow8 ? norm8(t, r) : r;
  }

  /// Shift amounts are .u32 in PTX and clamp at the width (what Tile IR
  /// specifies); wider amounts are clamped first so truncation cannot wrap.
  std::string shiftAmount(Type t, const std::string& b) {
    unsigned bits = t.bitWidth();
    if (bits == 32) return b;
    std::string d = e_.reg(RegClass::B32);
    if (bits == 64) {
      std::string c = e_.reg(RegClass::B64);
      e_.ins("min.u64 " + c + ", " + b + ", 64");
      e_.ins("cvt.u32.u64 " + d + ", " + c);
    } else {
      std::string c = e_.reg(RegClass::B16);
      e_.ins(std::string(bits == 8 ? "and.b16 " + c + ", " + b + ", 0x00FF" : "mov.b16 " + c + ", " + b));
      e_.ins("cvt.u32.u16 " + d + ", " + c);
    }
    return d;
  }

  std::string predBinary(OpCode code, const std::string& a, const std::string& b) {
    std::string d = e_.reg(RegClass::Pred);
    switch (code) {
      case OpCode::AndI: case OpCode::MulI: case OpCode::MinUI: case OpCode::MaxSI:
        e_.ins("and.pred " + d + ", " + a + ", " + b);
        return d;
      case OpCode::OrI: case OpCode::MaxUI: case OpCode::MinSI:
        e_.ins("or.pred " + d + ", " + a + ", " + b);
        return d;
      case OpCode::XOrI: case OpCode::AddI: case OpCode::SubI:
        e_.ins("xor.pred " + d + ", " + a + ", " + b);
        return d;
      default: {
        // Rare (division of booleans...): do it on 16-bit 0/1 values.
        Type i16 = Type::i16();
        std::string x = predToInt(a, i16), y = predToInt(b, i16);
        std::string r = intBinary(code, i16, x, y);
        e_.ins("setp.ne.s16 " + d + ", " + r + ", 0");
        return d;
      }
    }
  }

  std::string predToInt(const std::string& p, Type t, int64_t one = 1) {
    std::string d = e_.reg(t);
    e_.ins("selp." + bitType(t) + " " + d + ", " + e_.constInt(t, one) + ", " + e_.constInt(t, 0) + ", " + p);
    return d;
  }

  // ---- floats ---------------------------------------------------------------

  std::string floatBinary(OpCode code, Type t, const std::string& a, const std::string& b) {
    if (t.isFP8() || ((isF16(t) || isBF16(t)) && (code == OpCode::DivF || code == OpCode::RemF))) {
      std::string r = floatBinary(code, Type::f32(), toF32(t, a), toF32(t, b));
      return fromF32(t, r);
    }
    std::string ft = floatType(t);
    if (isBF16(t)) {
      std::string one = e_.constFloat(t, 1.0), negOne = e_.constFloat(t, -1.0), negZero = e_.constFloat(t, -0.0);
      switch (code) {
        case OpCode::AddF: return fma(t, a, one, b);
        case OpCode::SubF: return fma(t, b, negOne, a);
        case OpCode::MulF: return fma(t, a, b, negZero);
        default: break;
      }
    }
    switch (code) {
      case OpCode::AddF: return bin("add." + ft, t, a, b);
      case OpCode::SubF: return bin("sub." + ft, t, a, b);
      case OpCode::MulF: return bin("mul." + ft, t, a, b);
      case OpCode::DivF:
        return bin(t.kind() == TypeKind::F32 ? "div.full.f32" : "div.rn.f64", t, a, b);
      case OpCode::PreciseDivF: return bin("div.rn." + ft, t, a, b);
      case OpCode::ApproxDivF: return bin("div.approx.f32", t, a, b);
      case OpCode::RemF: return libdevice(t.kind() == TypeKind::F32 ? "__nv_fmodf" : "__nv_fmod", t, {a, b}, {t, t});
      case OpCode::MaxNumF: return minMax("max", t, a, b, false);
      case OpCode::MinNumF: return minMax("min", t, a, b, false);
      case OpCode::MaximumF: return minMax("max", t, a, b, true);
      case OpCode::MinimumF: return minMax("min", t, a, b, true);
      default: e_.fail(op_, "unsupported float op");
    }
  }

  std::string fma(Type t, const std::string& a, const std::string& b, const std::string& c) {
    std::string d = e_.reg(t);
    e_.ins("fma.rn." + floatType(t) + " " + d + ", " + a + ", " + b + ", " + c);
    return d;
  }

  /// max/min ignoring NaN (maxnum) or propagating it (maximum).
  std::string minMax(const std::string& which, Type t, const std::string& a, const std::string& b, bool nan) {
    std::string ft = floatType(t);
    if (t.kind() != TypeKind::F64) return bin(which + (nan ? ".NaN." : ".") + ft, t, a, b);
    std::string r = bin(which + ".f64", t, a, b);
    if (!nan) return r;
    // f64 has no .NaN form: r = isnan(a) ? a : isnan(b) ? b : r.
    std::string pa = e_.reg(RegClass::Pred), pb = e_.reg(RegClass::Pred);
    e_.ins("setp.nan.f64 " + pa + ", " + a + ", " + a);
    e_.ins("setp.nan.f64 " + pb + ", " + b + ", " + b);
    std::string r1 = e_.reg(t), r2 = e_.reg(t);
    e_.ins("selp.b64 " + r1 + ", " + b + ", " + r + ", " + pb);
    e_.ins("selp.b64 " + r2 + ", " + a + ", " + r1 + ", " + pa);
    return r2;
  }

  std::string libdevice(const std::string& symbol, Type result, const Regs& args, const std::vector<Type>& argTypes) {
    gpu::ExternFunction f{symbol, gpu::libdeviceWrapperName(symbol), argTypes, result};
    e_.addExtern(f);
    auto pt = [](Type t) {
      unsigned bits = t.bitWidth();
      return std::string(bits <= 16 ? ".b16" : bits == 32 ? ".b32" : ".b64");
    };
    std::string d = e_.reg(result);
    std::string call = "{\n\t.param " + pt(result) + " retval0;\n";
    std::string list;
    for (size_t i = 0; i < args.size(); ++i) {
      call += "\t.param " + pt(argTypes[i]) + " param" + std::to_string(i) + ";\n";
      call += "\tst.param" + pt(argTypes[i]) + " [param" + std::to_string(i) + "], " + args[i] + ";\n";
      list += (i ? ", " : "") + std::string("param") + std::to_string(i);
    }
    call += "\tcall.uni (retval0), " + f.wrapper + ", (" + list + ");\n";
    call += "\tld.param" + pt(result) + " " + d + ", [retval0];\n\t}";
    e_.raw("\t" + call);
    return d;
  }

  /// Triton's fast f32 math; f16/bf16/fp8 computed in f32; f64 via libdevice.
  std::string math(OpCode code, Type t, const Regs& in) {
    if (t.kind() != TypeKind::F32 && t.kind() != TypeKind::F64) {
      if (code == OpCode::AbsF) {
        if (t.isFP8()) return bin("and.b16", t, in[0], e_.constInt(Type::i16(), 0x7F));
        return bin("and.b16", t, in[0], e_.constInt(Type::i16(), 0x7FFF));
      }
      if (code == OpCode::Fma && (isF16(t) || isBF16(t))) return fma(t, in[0], in[1], in[2]);
      Regs up;
      for (const auto& r : in) up.push_back(toF32(t, r));
      return fromF32(t, math(code, Type::f32(), up));
    }
    bool f64 = t.kind() == TypeKind::F64;
    std::string ft = floatType(t);
    auto ld = [&](const char* f32name, const char* f64name) {
      std::vector<Type> types(in.size(), t);
      return libdevice(f64 ? f64name : f32name, t, in, types);
    };
    switch (code) {
      case OpCode::Exp:
        if (f64) return ld("__nv_expf", "__nv_exp");
        return un("ex2.approx.ftz.f32", t, bin("mul.f32", t, in[0], e_.constFloat(t, 1.4426950408889634)));
      case OpCode::Exp2:
        if (f64) return ld("__nv_exp2f", "__nv_exp2");
        return un("ex2.approx.ftz.f32", t, in[0]);
      case OpCode::Log:
        if (f64) return ld("__nv_logf", "__nv_log");
        return bin("mul.f32", t, un("lg2.approx.f32", t, in[0]), e_.constFloat(t, 0.6931471805599453));
      case OpCode::Log2:
        if (f64) return ld("__nv_log2f", "__nv_log2");
        return un("lg2.approx.f32", t, in[0]);
      case OpCode::Sqrt: return un(f64 ? "sqrt.rn.f64" : "sqrt.approx.f32", t, in[0]);
      case OpCode::Rsqrt:
        if (f64) return ld("__nv_rsqrtf", "__nv_rsqrt");
        return un("rsqrt.approx.f32", t, in[0]);
      case OpCode::Sin:
        if (f64) return ld("__nv_sinf", "__nv_sin");
        return un("sin.approx.f32", t, in[0]);
      case OpCode::Cos:
        if (f64) return ld("__nv_cosf", "__nv_cos");
        return un("cos.approx.f32", t, in[0]);
      case OpCode::Erf: return ld("__nv_erff", "__nv_erf");
      case OpCode::Floor: return un("cvt.rmi." + ft + "." + ft, t, in[0]);
      case OpCode::Ceil: return un("cvt.rpi." + ft + "." + ft, t, in[0]);
      case OpCode::AbsF: return un("abs." + ft, t, in[0]);
      case OpCode::NegF: return un("neg." + ft, t, in[0]);
      case OpCode::Fma: return fma(t, in[0], in[1], in[2]);
      case OpCode::PreciseSqrt: return un("sqrt.rn." + ft, t, in[0]);
      default: e_.fail(op_, "unsupported math op");
    }
  }

  std::string cmpF(const std::string& pred, Type t, std::string a, std::string b) {
    if (isBF16(t) || t.isFP8()) {
      a = toF32(t, a);
      b = toF32(t, b);
      t = Type::f32();
    }
    static const std::map<std::string, std::string> kMap = {
        {"oeq", "eq"}, {"one", "ne"}, {"olt", "lt"}, {"ole", "le"}, {"ogt", "gt"}, {"oge", "ge"},
        {"ord", "num"}, {"ueq", "equ"}, {"une", "neu"}, {"ult", "ltu"}, {"ule", "leu"}, {"ugt", "gtu"},
        {"uge", "geu"}, {"uno", "nan"}};
    auto it = kMap.find(pred);
    if (it == kMap.end()) e_.fail(op_, "unknown float predicate '" + pred + "'");
    std::string d = e_.reg(RegClass::Pred);
    e_.ins("setp." + it->second + "." + floatType(t) + " " + d + ", " + a + ", " + b);
    return d;
  }

  std::string cmpI(const std::string& pred, Type t, std::string a, std::string b) {
    if (t.isInteger(1)) {
      a = predToInt(a, Type::i16());
      b = predToInt(b, Type::i16());
      t = Type::i16();
    }
    bool isUnsigned = pred[0] == 'u' || t.isPointer();
    std::string cmp = pred == "eq" || pred == "ne" ? pred : pred.substr(1);
    if (isUnsigned && t.isInteger(8)) {
      a = zext8(t, a);
      b = zext8(t, b);
    }
    std::string type = t.isPointer() ? "u64" : intType(t, !isUnsigned);
    std::string d = e_.reg(RegClass::Pred);
    e_.ins("setp." + cmp + "." + type + " " + d + ", " + a + ", " + b);
    return d;
  }

  std::string select(Type t, const std::string& c, const std::string& a, const std::string& b) {
    if (t.isInteger(1)) {
      std::string x = e_.reg(RegClass::Pred), y = e_.reg(RegClass::Pred), nc = e_.reg(RegClass::Pred);
      std::string d = e_.reg(RegClass::Pred);
      e_.ins("and.pred " + x + ", " + c + ", " + a);
      e_.ins("not.pred " + nc + ", " + c);
      e_.ins("and.pred " + y + ", " + nc + ", " + b);
      e_.ins("or.pred " + d + ", " + x + ", " + y);
      return d;
    }
    std::string d = e_.reg(t);
    e_.ins("selp." + bitType(t) + " " + d + ", " + a + ", " + b + ", " + c);
    return d;
  }

  std::string addPtr(Type ptrType, const std::string& ptr, Type offType, const std::string& off) {
    int64_t size = ptrType.pointeeType().isTensor() ? 1 : ptrType.pointeeType().byteWidth();
    std::string d = e_.reg(RegClass::B64);
    if (offType.bitWidth() == 64) {
      e_.ins("mad.lo.s64 " + d + ", " + off + ", " + std::to_string(size) + ", " + ptr);
      return d;
    }
    std::string o = off;
    if (offType.bitWidth() < 32) o = emitCast(e_, op_, off, offType, Type::i32());
    if (offType.isInteger(1)) o = predToInt(off, Type::i32());
    e_.ins("mad.wide.s32 " + d + ", " + o + ", " + std::to_string(size) + ", " + ptr);
    return d;
  }

  Regs run(const Regs& in) {
    Operation* op = op_;
    Type t = op->numResults() ? op->result(0).type().elementType() : Type();
    Type ot = op->numOperands() ? op->operand(0).type().elementType() : Type();
    switch (op->code()) {
      case OpCode::Constant: {
        const Attribute* v = op->attr("value");
        if (t.isFloat()) {
          double d = std::holds_alternative<double>(*v) ? std::get<double>(*v) : static_cast<double>(std::get<int64_t>(*v));
          return {e_.constFloat(t, d)};
        }
        int64_t i = std::holds_alternative<int64_t>(*v) ? std::get<int64_t>(*v)
                    : std::holds_alternative<bool>(*v) ? std::get<bool>(*v) : 0;
        return {e_.constInt(t, i)};
      }
      case OpCode::AddI: case OpCode::SubI: case OpCode::MulI: case OpCode::DivSI: case OpCode::DivUI:
      case OpCode::RemSI: case OpCode::RemUI: case OpCode::AndI: case OpCode::OrI: case OpCode::XOrI:
      case OpCode::ShLI: case OpCode::ShRSI: case OpCode::ShRUI: case OpCode::MaxSI: case OpCode::MaxUI:
      case OpCode::MinSI: case OpCode::MinUI:
        return {intBinary(op->code(), t, in[0], in[1])};
      case OpCode::AddF: case OpCode::SubF: case OpCode::MulF: case OpCode::DivF: case OpCode::RemF:
      case OpCode::MaxNumF: case OpCode::MinNumF: case OpCode::MaximumF: case OpCode::MinimumF:
      case OpCode::PreciseDivF: case OpCode::ApproxDivF:
        return {floatBinary(op->code(), t, in[0], in[1])};
      case OpCode::NegF:
        if (t.kind() == TypeKind::F32 || t.kind() == TypeKind::F64) return {math(OpCode::NegF, t, in)};
        return {bin("xor.b16", t, in[0], e_.constInt(Type::i16(), t.isFP8() ? 0x80 : 0x8000))};
      case OpCode::CmpI: return {cmpI(op->strAttr("predicate"), ot, in[0], in[1])};
      case OpCode::CmpF: return {cmpF(op->strAttr("predicate"), ot, in[0], in[1])};
      case OpCode::Select: return {select(t, in[0], in[1], in[2])};
      case OpCode::ExtSI: case OpCode::ExtUI: case OpCode::TruncI: case OpCode::SIToFP: case OpCode::UIToFP:
      case OpCode::FPToSI: case OpCode::FPToUI: case OpCode::ExtF: case OpCode::TruncF: case OpCode::Bitcast:
        return {emitCast(e_, op_, in[0], ot, t)};
      case OpCode::Exp: case OpCode::Exp2: case OpCode::Log: case OpCode::Log2: case OpCode::Sqrt:
      case OpCode::Rsqrt: case OpCode::Sin: case OpCode::Cos: case OpCode::Erf: case OpCode::Floor:
      case OpCode::Ceil: case OpCode::AbsF: case OpCode::Fma: case OpCode::PreciseSqrt:
        return {math(op->code(), t, in)};
      case OpCode::AbsI: {
        if (t.isInteger(1)) return {in[0]};
        std::string r = un("abs." + intType(t, true), t, in[0]);
        return {norm8(t, r)};
      }
      case OpCode::MulHiI: {
        bool s = op->boolAttr("signed");
        if (t.bitWidth() < 32) {
          Type w = Type::i32();
          std::string a = emitCast(e_, op_, in[0], t, w), b = emitCast(e_, op_, in[1], t, w);
          if (!s) { a = bin("and.b32", w, a, e_.constInt(w, t.bitWidth() == 8 ? 0xFF : 0xFFFF));
                    b = bin("and.b32", w, b, e_.constInt(w, t.bitWidth() == 8 ? 0xFF : 0xFFFF)); }
          std::string p = bin("mul.lo.s32", w, a, b);
          std::string h = bin(s ? "shr.s32" : "shr.u32", w, p, e_.constInt(w, t.bitWidth()));
          return {emitCast(e_, op_, h, w, t)};
        }
        return {bin("mul.hi." + intType(t, s), t, in[0], in[1])};
      }
      case OpCode::ClampF: {
        bool nan = op->boolAttr("propagate_nan");
        std::string lo = minMax("max", t, in[0], in[1], nan);
        return {minMax("min", t, lo, in[2], nan)};
      }
      case OpCode::ExternElementwise: {
        std::vector<Type> types;
        for (Value v : op->operands()) types.push_back(v.type().elementType());
        return {libdevice(op->strAttr("symbol"), t, in, types)};
      }
      case OpCode::AddPtr: return {addPtr(ot, in[0], op->operand(1).type().elementType(), in[1])};
      case OpCode::IntToPtr: case OpCode::PtrToInt: case OpCode::PtrBitcast:
        return {un("mov.b64", Type::i64(), in[0])};
      case OpCode::GetProgramId: case OpCode::GetNumPrograms: {
        static const char* kAxis[3] = {"x", "y", "z"};
        int64_t axis = op->intAttr("axis");
        std::string d = e_.reg(RegClass::B32);
        e_.ins(std::string("mov.u32 ") + d + ", %" + (op->is(OpCode::GetProgramId) ? "ctaid." : "nctaid.") +
               kAxis[axis]);
        return {d};
      }
      case OpCode::SmId: {
        std::string d = e_.reg(RegClass::B32);
        e_.ins("mov.u32 " + d + ", %smid");
        return {d};
      }
      case OpCode::GlobalTimer: {
        std::string d = e_.reg(RegClass::B64);
        e_.ins("mov.u64 " + d + ", %globaltimer");
        return {d};
      }
      default:
        e_.fail(op, "this op is not supported by the GPU backend yet");
    }
  }

 private:
  Emitter& e_;
  Operation* op_;
};

}  // namespace

Regs emitScalarOp(Emitter& e, Operation* op, const Regs& operands) { return Scalar(e, op).run(operands); }

namespace {

/// Packs consecutive sub-word values (at most 32 bits of them) into one
/// 32-bit register (Triton's `pack` argument), the first in the low bits.
std::string packRegs(Emitter& e, const Regs& values, Type elem) {
  unsigned bits = elem.bitWidth();
  std::string d = e.reg(RegClass::B32);
  if (bits == 16 && values.size() == 2) {
    e.ins("mov.b32 " + d + ", {" + values[0] + ", " + values[1] + "}");
    return d;
  }
  std::string acc = e.constInt(Type::i32(), 0);
  for (size_t k = 0; k < values.size(); ++k) {
    std::string w = e.reg(RegClass::B32), next = e.reg(RegClass::B32);
    e.ins("cvt.u32.u16 " + w + ", " + values[k]);
    e.ins("bfi.b32 " + next + ", " + w + ", " + acc + ", " + std::to_string(k * bits) + ", " + std::to_string(bits));
    acc = next;
  }
  return acc;
}

/// The `count` sub-word values packed into the 32-bit register `word`.
Regs unpackRegs(Emitter& e, const std::string& word, Type elem, int64_t count) {
  unsigned bits = elem.bitWidth();
  Regs out;
  if (bits == 16 && count == 2) {
    std::string lo = e.reg(RegClass::B16), hi = e.reg(RegClass::B16);
    e.ins("mov.b32 {" + lo + ", " + hi + "}, " + word);
    return {lo, hi};
  }
  for (int64_t k = 0; k < count; ++k) {
    std::string w = e.reg(RegClass::B32), h = e.reg(RegClass::B16);
    e.ins(std::string(elem.isInteger(8) ? "bfe.s32 " : "bfe.u32 ") + w + ", " + word + ", " + std::to_string(k * bits) +
          ", " + std::to_string(bits));
    e.ins("cvt.u16.u32 " + h + ", " + w);
    out.push_back(h);
  }
  return out;
}

/// How one value's group of `pack` elements reaches inline asm (Triton's
/// rule): elements of 32 bits or more one register each; narrower ones
/// packed 32 / bits to a 32-bit register, so that 4 int8 share one ("r")
/// and 4 fp16 take two ("=r,=r"). Without packing, one register of the
/// element's own type.
struct AsmPacking {
  int64_t perReg = 1;  ///< elements per register
  int64_t regs = 1;    ///< registers per group
  bool packed = false;  ///< sub-word elements in 32-bit registers
};

AsmPacking asmPacking(Type elem, int64_t pack) {
  unsigned bits = elem.bitWidth();
  if (pack == 1) return {};
  if (bits >= 32) return {1, pack, false};
  int64_t perReg = std::min<int64_t>(pack, 32 / bits);
  return {perReg, (pack + perReg - 1) / perReg, true};
}

/// tl.inline_asm_elementwise: the asm text with $i replaced by registers
/// (outputs first, then inputs), in its own { } scope, once per group of
/// `pack` elements.
void emitInlineAsm(Emitter& e, Operation* op) {
  e.setUsesInlineAsm();
  std::string text = op->strAttr("asm");
  int64_t pack = std::max<int64_t>(1, op->intAttr("pack", 1));
  unsigned nOut = op->numResults(), nIn = op->numOperands();
  Type rt = op->result(0).type();
  int64_t n = e.numRegs(rt);
  std::vector<Regs> results(nOut);
  std::vector<AsmPacking> outPacking, inPacking;
  for (unsigned r = 0; r < nOut; ++r) outPacking.push_back(asmPacking(op->result(r).type().elementType(), pack));
  for (unsigned k = 0; k < nIn; ++k) inPacking.push_back(asmPacking(op->operand(k).type().elementType(), pack));
  // Inputs with an immediate constraint ("n", "i"): "k=value,..." (the
  // frontend checked they are constexpr ints); the value goes into the text.
  std::map<unsigned, std::string> immediates;
  if (op->hasAttr("immediates")) {
    std::string list = op->strAttr("immediates");
    for (size_t at = 0; at < list.size();) {
      size_t comma = std::min(list.find(',', at), list.size());
      std::string item = list.substr(at, comma - at);
      size_t eq = item.find('=');
      immediates[static_cast<unsigned>(std::stoul(item.substr(0, eq)))] = item.substr(eq + 1);
      at = comma + 1;
    }
  }
  for (int64_t i = 0; i < n; i += pack) {
    Regs names;
    std::vector<Regs> outWords(nOut);
    for (unsigned r = 0; r < nOut; ++r) {
      Type et = op->result(r).type().elementType();
      const AsmPacking& p = outPacking[r];
      for (int64_t w = 0; w < p.regs; ++w) {
        outWords[r].push_back(p.packed ? e.reg(RegClass::B32) : e.reg(et));
        names.push_back(outWords[r].back());
      }
    }
    for (unsigned k = 0; k < nIn; ++k) {
      Value v = op->operand(k);
      Type et = v.type().elementType();
      const AsmPacking& p = inPacking[k];
      // A thread with fewer than `pack` elements left pads the group with
      // zeros (Triton pads with undef); their results are dropped below.
      for (int64_t w = 0; w < p.regs; ++w) {
        if (auto imm = immediates.find(k); imm != immediates.end()) {
          names.push_back(imm->second);
          continue;
        }
        Regs group;
        for (int64_t j = w * p.perReg; j < std::min(pack, (w + 1) * p.perReg); ++j)
          group.push_back(i + j < n ? e.at(v, i + j) : e.constInt(et, 0));
        names.push_back(p.packed ? packRegs(e, group, et) : group[0]);
      }
    }
    std::string body;
    for (size_t c = 0; c < text.size(); ++c) {
      if (text[c] == '$' && c + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[c + 1]))) {
        size_t end = c + 1;
        while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
        size_t idx = std::stoul(text.substr(c + 1, end - c - 1));
        if (idx >= names.size()) e.fail(op, "inline asm refers to $" + std::to_string(idx) + " but has only " +
                                                std::to_string(names.size()) + " operands");
        body += names[idx];
        c = end - 1;
      } else {
        body += text[c];
      }
    }
    e.raw("\t{\n\t" + body + "\n\t}");
    for (unsigned r = 0; r < nOut; ++r) {
      Type et = op->result(r).type().elementType();
      const AsmPacking& p = outPacking[r];
      for (int64_t w = 0; w < p.regs; ++w) {
        if (!p.packed) {
          results[r].push_back(outWords[r][w]);
          continue;
        }
        Regs vals = unpackRegs(e, outWords[r][w], et, std::min(p.perReg, pack - w * p.perReg));
        results[r].insert(results[r].end(), vals.begin(), vals.end());
      }
    }
  }
  for (unsigned r = 0; r < nOut; ++r) {
    results[r].resize(n);
    e.bind(op->result(r), results[r]);
  }
}

}  // namespace

namespace {

/// Pointer tensors `ptr + offsets` whose registers lie at constant distances.
/// Where axis info proves the offsets contiguous along a dim in aligned
/// groups of G whose first value is a multiple of G, two registers of one
/// thread in the same group differ by a constant that fits below the group's
/// alignment, so sext(offset) differs by that constant too (no wrap inside a
/// group: every multiple of 2^31 is a multiple of G). Such a register's
/// address is the group leader's plus an immediate, which ptxas folds into
/// the load/store (`[%rd + 2048]`), as LLVM does for Triton through its
/// known-bits `or disjoint`. The base pointer must be the same register for
/// both, and the register bits that differ must be disjoint from the
/// thread's (lane/warp) bits so the distance does not depend on the thread.
struct AddressSteps {
  bool active = false;
  std::vector<int> groupShift;     ///< per dim: log2 of the aligned group size
  std::vector<int64_t> threadBits; ///< per dim: coordinate bits lanes/warps set
  std::map<std::vector<int64_t>, int64_t> leaders;  ///< group key -> first register
  int64_t elementBytes = 1;

  AddressSteps(Emitter& e, Operation* op, bool enabled) {
    if (!enabled || !op->is(OpCode::AddPtr)) return;
    Type rt = op->result(0).type();
    Type offType = op->operand(1).type();
    if (!rt.isTensor() || !offType.isTensor()) return;
    int width = offType.elementType().bitWidth();
    if (!offType.elementType().isInteger() || (width != 32 && width != 64)) return;
    Type pointee = rt.elementType().pointeeType();
    if (pointee.isTensor()) return;
    elementBytes = pointee.byteWidth();
    const gpu::AxisInfo& info = e.axisInfo().get(op->operand(1));
    if (static_cast<int64_t>(info.contiguity.size()) != rt.rank()) return;
    const gpu::LinearLayout& ll = e.layout(rt);
    for (int64_t d = 0; d < rt.rank(); ++d) {
      int64_t g = std::min(info.contiguity[d], info.divisibility[d]);
      int sh = 0;
      while ((int64_t{2} << sh) <= g) ++sh;
      groupShift.push_back(sh);
      int64_t bits = 0;
      for (HwDim h : {HwDim::Lane, HwDim::Warp})
        for (const auto& basis : ll.bases(h)) bits |= basis[d];
      threadBits.push_back(bits);
      active = active || sh > 0;
    }
  }

  /// Register i as leader + immediate, or nullopt (then i is emitted as usual
  /// and may lead its group).
  std::optional<std::string> fromLeader(Emitter& e, Operation* op, int64_t i, const Regs& done) {
    std::vector<int64_t> coords = e.layout(op->result(0).type()).apply(HwDim::Register, i);
    std::vector<int64_t> key = coords;
    for (size_t d = 0; d < key.size(); ++d) key[d] >>= groupShift[d];
    auto [it, inserted] = leaders.emplace(key, i);
    if (inserted) return std::nullopt;
    int64_t lead = it->second;
    std::vector<int64_t> leadCoords = e.layout(op->result(0).type()).apply(HwDim::Register, lead);
    int64_t distance = 0;
    int differing = 0;
    for (size_t d = 0; d < coords.size(); ++d) {
      if (coords[d] == leadCoords[d]) continue;
      ++differing;
      if (((coords[d] | leadCoords[d]) & threadBits[d]) != 0) return std::nullopt;
      distance = coords[d] - leadCoords[d];
    }
    if (differing > 1 || e.at(op->operand(0), i) != e.at(op->operand(0), lead)) return std::nullopt;
    if (differing == 0) return done[lead];
    std::string r = e.reg(RegClass::B64);
    e.ins("add.s64 " + r + ", " + done[lead] + ", " + std::to_string(distance * elementBytes));
    return r;
  }
};

}  // namespace

namespace {

/// The packed conversion (`cvt.rn.bf16x2.f32 d, a, b`: d.hi = a, d.lo = b)
/// that narrows two f32 registers of `op` at once, or "" when `op` is not an
/// f32 -> f16/bf16 round-to-nearest tensor narrowing with an even register
/// count (sm_80+). Triton's conversions pair elements the same way; one
/// F2FP instruction instead of two plus the packing of their halves.
std::string pairedNarrowing(Emitter& e, Operation* op, int64_t numRegs) {
  if (!op->is(OpCode::TruncF) || numRegs % 2 != 0 || e.options().target.capability < 80) return "";
  Type from = op->operand(0).type(), to = op->result(0).type();
  if (!from.isTensor() || from.elementType().kind() != TypeKind::F32) return "";
  if (op->strAttr("rounding") == "rtz") return "";
  switch (to.elementType().kind()) {
    case TypeKind::F16: return "cvt.rn.f16x2.f32";
    case TypeKind::BF16: return "cvt.rn.bf16x2.f32";
    default: return "";
  }
}

}  // namespace

RegisterEmitter beginElementwise(Emitter& e, Operation* op, bool resultReadInRun) {
  struct State {
    Operation* op;
    Type rt;
    std::vector<Regs*> results;
    Regs in;
    // Like Triton: where axis info proves groups of elements equal (a mask
    // `offs < n` with n % 16 == 0 is constant over 16 elements), compute one
    // register per group and reuse it for the others.
    std::map<std::vector<int64_t>, int64_t> groupFirst;
    std::vector<int64_t> shifts;
    std::optional<AddressSteps> addressSteps;
    std::string pairedCvt;   // see pairedNarrowing; "" when converting one by one
    std::string pendingLow;  // the f32 register 2k, waiting for 2k + 1
  };
  auto st = std::make_shared<State>();
  st->op = op;
  st->rt = op->result(0).type();
  int64_t n = e.numRegs(st->rt);
  for (unsigned r = 0; r < op->numResults(); ++r) st->results.push_back(&e.bindSlots(op->result(r), n));
  st->in.resize(op->numOperands());
  Type rt = st->rt;
  if (rt.isTensor() && op->numResults() == 1 && !rt.elementType().isFloat()) {
    const gpu::AxisInfo& info = e.axisInfo().get(op->result(0));
    bool any = false;
    for (int64_t c : info.constancy) {
      int64_t sh = 0;
      while ((int64_t{2} << sh) <= c) ++sh;
      st->shifts.push_back(sh);
      any = any || sh > 0;
    }
    if (!any || static_cast<int64_t>(st->shifts.size()) != rt.rank()) st->shifts.clear();
  }
  st->addressSteps.emplace(e, op, st->shifts.empty());
  if (!resultReadInRun) st->pairedCvt = pairedNarrowing(e, op, n);
  return [&e, st](int64_t i) {
    Operation* op = st->op;
    Regs& first = *st->results[0];
    if (!st->pairedCvt.empty()) {
      const std::string& in = e.at(op->operand(0), i);
      if (i % 2 == 0) {
        st->pendingLow = in;
        return;
      }
      std::string packed = e.reg(RegClass::B32);
      e.ins(st->pairedCvt + " " + packed + ", " + in + ", " + st->pendingLow);
      first[i - 1] = e.reg(RegClass::B16);
      first[i] = e.reg(RegClass::B16);
      e.ins("mov.b32 {" + first[i - 1] + ", " + first[i] + "}, " + packed);
      return;
    }
    if (!st->shifts.empty()) {
      std::vector<int64_t> key = e.layout(st->rt).apply(HwDim::Register, i);
      for (size_t d = 0; d < key.size(); ++d) key[d] >>= st->shifts[d];
      auto [it, inserted] = st->groupFirst.emplace(key, i);
      if (!inserted) {
        first[i] = first[it->second];
        return;
      }
    }
    if (st->addressSteps->active) {
      if (std::optional<std::string> near = st->addressSteps->fromLeader(e, op, i, first)) {
        first[i] = *near;
        return;
      }
    }
    for (unsigned k = 0; k < op->numOperands(); ++k) st->in[k] = e.at(op->operand(k), i);
    Regs out = emitScalarOp(e, op, st->in);
    for (unsigned r = 0; r < out.size() && r < st->results.size(); ++r) (*st->results[r])[i] = out[r];
  };
}

void emitElementwise(Emitter& e, Operation* op) {
  if (op->numResults() == 0) return;
  if (op->is(OpCode::InlineAsm)) return emitInlineAsm(e, op);
  int64_t n = e.numRegs(op->result(0).type());
  RegisterEmitter emitRegister = beginElementwise(e, op);
  for (int64_t i = 0; i < n; ++i) emitRegister(i);
}

}  // namespace tessera::ptx
