//===- SemanticArith.cpp - Promotion, casts, broadcasting, operators ------===//
//
// Triton's type rules (LANGUAGE_CHECKLIST.md §2):
//   literals    bool -> int1; int by range: int32, uint32, int64, uint64;
//               float -> fp32 when representable as a normal fp32 (or 0, inf,
//               nan), else fp64
//   promotion   computationType(): weak Python scalars adopt the tensor's type
//               when their kind is not higher; then fp64 > fp32 > fp16 > bf16
//               (bf16 with anything else -> fp32), fp8 pairs, C-style integer
//               promotion; `/` and `%` upcast fp16/bf16 to fp32; `/`, `//`,
//               `%` refuse mixed signedness
//   operators   `/` always float, `//` ints only (divsi/divui, truncation),
//               `%` srem/urem/frem, shifts by signedness, comparisons without
//               weak typing, pointer arithmetic via tt.addptr; maximum,
//               minimum (and clamp) without weak typing, bf16 -> fp32
//   casts       cast(): fp16/bf16 via fp32, rounding modes, bitcasts,
//               int1 via != 0, pointers
//
//===----------------------------------------------------------------------===//

#include <cfloat>
#include <cmath>

#include "CodeGen.h"

namespace tessera::frontend {

using ir::OpCode;
using K = py::BinOpKind;

DType CodeGen::literalType(const Val& c) {
  switch (c.kind) {
    case Val::Kind::Bool: return ScalarKind::I1;
    case Val::Kind::Int: {
      const BigInt& v = c.i;
      if (v >= BigInt(INT32_MIN) && v <= BigInt(INT32_MAX)) return ScalarKind::I32;
      if (v >= BigInt(0) && v <= BigInt(int64_t{UINT32_MAX})) return ScalarKind::U32;
      if (v.fitsInt64()) return ScalarKind::I64;
      if (v.fitsUInt64()) return ScalarKind::U64;
      fail("integer constant " + v.toString() + " is out of range for int64 and uint64");
    }
    case Val::Kind::Float: {
      double a = std::fabs(c.f);
      if (a == 0 || std::isinf(a) || std::isnan(a) || (a >= FLT_MIN && a <= FLT_MAX)) return ScalarKind::FP32;
      return ScalarKind::FP64;
    }
    default: fail("expected a number, got " + c.typeName());
  }
}

static int64_t wrapToWidth(uint64_t bits, unsigned width) {
  if (width >= 64) return static_cast<int64_t>(bits);
  uint64_t mask = (uint64_t{1} << width) - 1;
  bits &= mask;
  if (width > 1 && (bits >> (width - 1)) & 1) bits |= ~mask;
  return static_cast<int64_t>(bits);
}

Val CodeGen::constant(const DType& t, const std::vector<int64_t>& shape, const Val& c) {
  if (hostMode()) fail("this expression needs the device and cannot be evaluated on the host");
  ir::Type type = irType(t, shape);
  if (t.isFloat()) {
    double v = c.kind == Val::Kind::Float ? c.f : c.kind == Val::Kind::Bool ? c.b : c.i.toDouble();
    return Val::tensor(b_.constantFloat(type, v), t, shape);
  }
  if (t.isInt()) {
    int64_t v;
    if (t.isInt1()) v = c.truthy() ? 1 : 0;
    else if (c.kind == Val::Kind::Float) {
      auto bi = BigInt::fromDouble(c.f);
      v = bi ? wrapToWidth(bi->lowBits64(), t.bitwidth()) : 0;
    } else {
      BigInt bi = c.kind == Val::Kind::Bool ? BigInt(c.b ? 1 : 0) : c.i;
      v = wrapToWidth(bi.lowBits64(), t.bitwidth());
    }
    return Val::tensor(b_.constantInt(type, v), t, shape);
  }
  fail("cannot create a constant of type " + t.name());
}

Val CodeGen::constantInt(const DType& t, int64_t v, const std::vector<int64_t>& shape) {
  return constant(t, shape, Val::integer(BigInt(v)));
}

Val CodeGen::toTensor(const Val& v) {
  if (v.isTensor()) return v;
  if (v.isNumber()) return constant(literalType(v), {}, v);
  fail("expected a tensor or a number, got " + v.typeName());
}

Val CodeGen::splat(const Val& scalar, const std::vector<int64_t>& shape) {
  if (shape.empty() || scalar.isBlock()) return scalar;
  // Splat constants directly.
  if (ir::Operation* def = scalar.value.definingOp(); def && def->is(OpCode::Constant)) {
    ir::AttrMap attrs = def->attrs();
    ir::Operation* op = b_.create(OpCode::Constant, {irType(scalar.dtype, shape)}, {}, std::move(attrs));
    return Val::tensor(op->result(), scalar.dtype, shape);
  }
  return make(OpCode::Splat, scalar.dtype, shape, {scalar.value});
}

Val CodeGen::broadcastTo(const Val& t, const std::vector<int64_t>& shape) {
  if (t.shape == shape) return t;
  if (!t.isBlock()) return splat(t, shape);
  if (t.shape.size() > shape.size())
    fail("cannot broadcast a tensor of shape " + shapeToString(t.shape) + " to shape " + shapeToString(shape));
  Val cur = t;
  while (cur.shape.size() < shape.size()) cur = expandDims(cur, 0);
  for (size_t k = 0; k < shape.size(); ++k)
    if (cur.shape[k] != shape[k] && cur.shape[k] != 1)
      fail("cannot broadcast a tensor of shape " + shapeToString(t.shape) + " to shape " + shapeToString(shape));
  if (cur.shape == shape) return cur;
  return make(OpCode::Broadcast, cur.dtype, shape, {cur.value});
}

std::vector<int64_t> CodeGen::broadcastShapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> x(n - a.size(), 1), y(n - b.size(), 1);
  x.insert(x.end(), a.begin(), a.end());
  y.insert(y.end(), b.begin(), b.end());
  std::vector<int64_t> out(n);
  for (size_t k = 0; k < n; ++k) {
    if (x[k] == y[k] || y[k] == 1) out[k] = x[k];
    else if (x[k] == 1) out[k] = y[k];
    else
      fail("incompatible dimensions at index " + std::to_string(k) + ": " + std::to_string(x[k]) + " and " +
           std::to_string(y[k]));
  }
  checkShape(out, "broadcast");  // [N, 1] with [1, N] may exceed the element limit
  return out;
}

std::pair<Val, Val> CodeGen::broadcastPair(const Val& a, const Val& b) {
  if (!a.isBlock() && !b.isBlock()) return {a, b};
  if (!a.isBlock()) return {splat(a, b.shape), b};
  if (!b.isBlock()) return {a, splat(b, a.shape)};
  auto shape = broadcastShapes(a.shape, b.shape);
  return {broadcastTo(a, shape), broadcastTo(b, shape)};
}

//===----------------------------------------------------------------------===//
// Casts
//===----------------------------------------------------------------------===//

Val CodeGen::cast(const Val& v0, const DType& dst, const std::string& rounding, bool bitcast) {
  Val v = toTensor(v0);
  const DType src = v.dtype;
  auto relabel = [&](const DType& t) {
    Val r = v;
    r.dtype = t;
    return r;
  };
  auto op = [&](OpCode code, const Val& x, const DType& t, ir::AttrMap attrs = {}) {
    return make(code, t, x.shape, {x.value}, std::move(attrs));
  };
  if (src.isBlockPtr() || dst.isBlockPtr()) {
    if (src == dst) return v;
    fail("cannot cast " + src.name() + " to " + dst.name());
  }
  if (dst.isVoid()) fail("cannot cast to void");
  if (bitcast) {
    if (src.bitwidth() != dst.bitwidth())
      fail("cannot bitcast data-type of size " + std::to_string(src.bitwidth()) + " to data-type of size " +
           std::to_string(dst.bitwidth()));
    if (src == dst) return v;
    if (src.isPtr() && dst.isPtr()) return op(OpCode::PtrBitcast, v, dst);
    if (src.isPtr()) return op(OpCode::PtrToInt, v, dst);
    if (dst.isPtr()) return op(OpCode::IntToPtr, v, dst);
    if (src.toIR() == dst.toIR()) return relabel(dst);
    return op(OpCode::Bitcast, v, dst);
  }
  if (src == dst) return v;
  if (!rounding.empty()) {
    if (rounding != "rtne" && rounding != "rtz")
      fail("fp_downcast_rounding must be 'rtne' or 'rtz', got '" + rounding + "'");
    if (!(src.isFloat() && dst.isFloat() && src.bitwidth() > dst.bitwidth()))
      fail("fp_downcast_rounding should be set only for truncating floating-point conversions, but the source is " +
           src.name() + " and the destination is " + dst.name());
  }
  if ((src.isFP8() && dst.isInt()) || (src.isInt() && dst.isFP8()))
    fail("cannot cast " + src.name() + " to " + dst.name() + " (integer <-> fp8 casts go through a wider float)");
  // fp8 <-> other floats convert directly.
  if ((src.isFP8() && dst.isFloat()) || (src.isFloat() && dst.isFP8())) {
    if (src.bitwidth() > dst.bitwidth() || (src.bitwidth() == dst.bitwidth()))
      return op(OpCode::TruncF, v, dst, {{"rounding", rounding.empty() ? std::string("rtne") : rounding}});
    return op(OpCode::ExtF, v, dst);
  }
  // fp16/bf16 to anything but fp32 goes through fp32.
  if ((src.isFP16() || src.isBF16()) && !dst.isFP32()) return cast(cast(v, ScalarKind::FP32), dst, rounding);
  if (src.isFloat() && dst.isFloat()) {
    if (src.bitwidth() > dst.bitwidth())
      return op(OpCode::TruncF, v, dst, {{"rounding", rounding.empty() ? std::string("rtne") : rounding}});
    return op(OpCode::ExtF, v, dst);
  }
  if (src.isInt() && dst.isInt()) {
    if (dst.isInt1()) return cmp(py::CmpOpKind::NotEq, v, constantInt(src, 0, v.shape));
    if (src.bitwidth() == dst.bitwidth()) return relabel(dst);
    if (src.bitwidth() > dst.bitwidth()) return op(OpCode::TruncI, v, dst);
    return op(src.isSigned() ? OpCode::ExtSI : OpCode::ExtUI, v, dst);
  }
  if (src.isFloat() && dst.isInt()) {
    if (dst.isInt1()) {
      Val zero = constant(src, v.shape, Val::flt(0));
      return make(OpCode::CmpF, ScalarKind::I1, v.shape, {v.value, zero.value}, {{"predicate", std::string("une")}});
    }
    return op(dst.isSigned() ? OpCode::FPToSI : OpCode::FPToUI, v, dst);
  }
  if (src.isInt() && dst.isFloat()) return op(src.isSigned() ? OpCode::SIToFP : OpCode::UIToFP, v, dst);
  if (src.isPtr() && dst.isInt()) {
    if (dst.bitwidth() == 64) return op(OpCode::PtrToInt, v, dst);
    if (dst.isInt1()) {
      Val i = op(OpCode::PtrToInt, v, ScalarKind::I64);
      return cmp(py::CmpOpKind::NotEq, i, constantInt(ScalarKind::I64, 0, v.shape));
    }
  }
  if (src.isInt() && dst.isPtr()) {
    Val i = src.bitwidth() == 64 ? v : cast(v, src.isSigned() ? ScalarKind::I64 : ScalarKind::U64);
    return op(OpCode::IntToPtr, i, dst);
  }
  if (src.isPtr() && dst.isPtr()) {
    if (src.toIR() == dst.toIR()) return relabel(dst);
    return op(OpCode::PtrBitcast, v, dst);
  }
  fail("unsupported cast from " + src.name() + " to " + dst.name());
}

//===----------------------------------------------------------------------===//
// Promotion
//===----------------------------------------------------------------------===//

static DType integerPromote(const DType& a, const DType& b) {
  unsigned wa = a.bitwidth(), wb = b.bitwidth();
  if (a.isSigned() == b.isSigned()) return wa > wb ? a : b;
  if (a.isUnsigned()) return wa >= wb ? a : b;
  return wb >= wa ? b : a;
}

DType CodeGen::computationType(const DType& a, bool aWeak, const DType& b, bool bWeak, bool divOrMod) {
  if (aWeak != bWeak) {
    const DType& weak = aWeak ? a : b;
    const DType& strong = aWeak ? b : a;
    if (weak.kindRank() <= strong.kindRank()) {
      if (divOrMod && (strong.isFP16() || strong.isBF16())) return ScalarKind::FP32;
      return strong;
    }
  }
  if (a.isPtr() || b.isPtr() || a.isVoid() || b.isVoid())
    fail("unsupported operand types " + a.name() + " and " + b.name());
  if (a.isFP64() || b.isFP64()) return ScalarKind::FP64;
  if (a.isFP32() || b.isFP32()) return ScalarKind::FP32;
  if (a.isFP16() || b.isFP16()) return divOrMod ? ScalarKind::FP32 : ScalarKind::FP16;
  if (a.isBF16() || b.isBF16()) {
    if (a.isBF16() && b.isBF16()) return divOrMod ? ScalarKind::FP32 : ScalarKind::BF16;
    return ScalarKind::FP32;
  }
  if (a.isFP8() || b.isFP8()) {
    if (a.isFP8() && b.isFP8()) return a == b ? a : DType(ScalarKind::FP16);
    fail("unexpected type: cannot combine " + a.name() + " and " + b.name() + " (cast the integer operand first)");
  }
  if (divOrMod && a.isSigned() != b.isSigned())
    fail("cannot use /, //, or % with " + a.name() + " and " + b.name() +
         " because they have different signedness; cast them to the same signedness");
  return integerPromote(a, b);
}

std::pair<Val, Val> CodeGen::arithOperands(const Val& a0, const Val& b0, bool divOrMod, bool allowPtr,
                                           const char* opName) {
  for (const Val* v : {&a0, &b0})
    if (!v->isTensor() && !v->isNumber())
      fail(std::string("unsupported operand type for ") + opName + ": " + v->typeName());
  bool aWeak = a0.isNumber(), bWeak = b0.isNumber();
  DType ta = aWeak ? literalType(a0) : a0.dtype;
  DType tb = bWeak ? literalType(b0) : b0.dtype;
  if (ta.isPtr() || tb.isPtr()) {
    if (!allowPtr) fail(std::string("unsupported operand types for ") + opName + ": " + ta.name() + " and " + tb.name());
    return broadcastPair(toTensor(a0), toTensor(b0));
  }
  DType t = computationType(ta, aWeak, tb, bWeak, divOrMod);
  auto convert = [&](const Val& v, bool weak) -> Val {
    if (!weak) return cast(v, t);
    if (t.isInt() && (v.kind == Val::Kind::Int || v.kind == Val::Kind::Bool) && !t.isInt1()) {
      BigInt x = v.kind == Val::Kind::Bool ? BigInt(v.b ? 1 : 0) : v.i;
      if (t.isUnsigned() && x.isNegative())
        fail("cannot perform a binary operation between an unsigned tensor (" + t.name() + ") and a negative scalar (" +
             x.toString() + ")");
      unsigned w = t.bitwidth();
      BigInt lo = t.isSigned() ? -BigInt(1).shl(w - 1) : BigInt(0);
      BigInt hi = t.isSigned() ? BigInt(1).shl(w - 1) - BigInt(1) : BigInt(1).shl(w) - BigInt(1);
      if (x < lo || x > hi) fail("scalar " + x.toString() + " is out of range for type " + t.name());
    }
    return constant(t, {}, v);
  };
  Val a = convert(a0, aWeak), b = convert(b0, bWeak);
  return broadcastPair(a, b);
}

Val CodeGen::elementwise(OpCode code, const Val& a, const Val& b) {
  return make(code, a.dtype, a.shape, {a.value, b.value});
}

static Val addPtr(CodeGen& cg, const Val& ptr, Val off) {
  if (!off.dtype.isInt()) cg.fail("pointer offsets must be integers, got " + off.dtype.name());
  if (off.dtype.isUnsigned() && off.dtype.bitwidth() < 64) off = cg.cast(off, ScalarKind::I64);
  auto [p, o] = cg.broadcastPair(ptr, off);
  return cg.make(OpCode::AddPtr, p.dtype, p.shape, {p.value, o.value});
}

Val CodeGen::arith(K op, const Val& a0, const Val& b0) {
  const char* name = py::spelling(op);
  switch (op) {
    case K::Add: case K::Sub: {
      auto [a, b] = arithOperands(a0, b0, false, true, name);
      if (a.dtype.isPtr() || b.dtype.isPtr()) {
        if (a.dtype.isPtr() && b.dtype.isPtr()) fail(std::string("unsupported operand types for ") + name + ": " + a.dtype.name() + " and " + b.dtype.name());
        if (op == K::Sub) {
          if (!a.dtype.isPtr()) fail("cannot subtract a pointer from " + a.dtype.name());
          if (!b.dtype.isInt()) fail("pointer offsets must be integers, got " + b.dtype.name());
          return addPtr(*this, a, negate(b));
        }
        return a.dtype.isPtr() ? addPtr(*this, a, b) : addPtr(*this, b, a);
      }
      if (a.dtype.isFloat()) return elementwise(op == K::Add ? OpCode::AddF : OpCode::SubF, a, b);
      return elementwise(op == K::Add ? OpCode::AddI : OpCode::SubI, a, b);
    }
    case K::Mult: {
      auto [a, b] = arithOperands(a0, b0, false, false, name);
      return elementwise(a.dtype.isFloat() ? OpCode::MulF : OpCode::MulI, a, b);
    }
    case K::Div: {
      auto [a, b] = arithOperands(a0, b0, true, false, name);
      if (a.dtype.isInt()) {
        a = cast(a, ScalarKind::FP32);
        b = cast(b, ScalarKind::FP32);
      }
      return elementwise(OpCode::DivF, a, b);
    }
    case K::FloorDiv: {
      auto [a, b] = arithOperands(a0, b0, true, false, name);
      if (!a.dtype.isInt()) fail("// is only supported for integers, got " + a.dtype.name());
      if (!frames_.empty() && frame().branchMask) std::tie(a, b) = broadcastPair(a, where(*frame().branchMask, b, constantInt(b.dtype, 1)));
      return elementwise(a.dtype.isSigned() ? OpCode::DivSI : OpCode::DivUI, a, b);
    }
    case K::Mod: {
      auto [a, b] = arithOperands(a0, b0, true, false, name);
      if (a.dtype.isFloat()) return elementwise(OpCode::RemF, a, b);
      if (!frames_.empty() && frame().branchMask) std::tie(a, b) = broadcastPair(a, where(*frame().branchMask, b, constantInt(b.dtype, 1)));
      return elementwise(a.dtype.isSigned() ? OpCode::RemSI : OpCode::RemUI, a, b);
    }
    case K::BitAnd: case K::BitOr: case K::BitXor: case K::LShift: case K::RShift: {
      auto [a, b] = arithOperands(a0, b0, false, false, name);
      if (!a.dtype.isInt())
        fail(std::string("bitwise operator ") + name + " is only supported for integers, got " +
             (a0.isTensor() ? a0.dtype.name() : literalType(a0).name()) + " and " +
             (b0.isTensor() ? b0.dtype.name() : literalType(b0).name()));
      OpCode code = op == K::BitAnd ? OpCode::AndI : op == K::BitOr ? OpCode::OrI : op == K::BitXor ? OpCode::XOrI
                    : op == K::LShift ? OpCode::ShLI : a.dtype.isSigned() ? OpCode::ShRSI : OpCode::ShRUI;
      return elementwise(code, a, b);
    }
    case K::Pow: fail("the ** operator is only supported between constexprs");
    case K::MatMult: fail("the @ operator is not supported; use tl.dot");
  }
  fail("unsupported operator");
}

Val CodeGen::cmp(py::CmpOpKind op, const Val& a0, const Val& b0) {
  using C = py::CmpOpKind;
  Val a = tensorArg(a0, "comparison operand"), b = tensorArg(b0, "comparison operand");
  if (a.dtype.isPtr() || b.dtype.isPtr()) {
    if (!(a.dtype.isPtr() && b.dtype.isPtr() && (op == C::Eq || op == C::NotEq)))
      fail(std::string("unsupported operand types for ") + py::spelling(op) + ": " + a.dtype.name() + " and " + b.dtype.name());
    auto [x, y] = broadcastPair(cast(a, ScalarKind::I64), cast(b, ScalarKind::I64));
    a = x;
    b = y;
  } else {
    DType t = computationType(a.dtype, false, b.dtype, false, false);
    auto [x, y] = broadcastPair(cast(a, t), cast(b, t));
    a = x;
    b = y;
  }
  std::string pred;
  if (a.dtype.isFloat()) {
    switch (op) {
      case C::Eq: pred = "oeq"; break;
      case C::NotEq: pred = "une"; break;
      case C::Lt: pred = "olt"; break;
      case C::LtE: pred = "ole"; break;
      case C::Gt: pred = "ogt"; break;
      case C::GtE: pred = "oge"; break;
      default: fail("unsupported comparison");
    }
    return make(OpCode::CmpF, ScalarKind::I1, a.shape, {a.value, b.value}, {{"predicate", pred}});
  }
  bool s = a.dtype.isSigned();
  switch (op) {
    case C::Eq: pred = "eq"; break;
    case C::NotEq: pred = "ne"; break;
    case C::Lt: pred = s ? "slt" : "ult"; break;
    case C::LtE: pred = s ? "sle" : "ule"; break;
    case C::Gt: pred = s ? "sgt" : "ugt"; break;
    case C::GtE: pred = s ? "sge" : "uge"; break;
    default: fail("unsupported comparison");
  }
  return make(OpCode::CmpI, ScalarKind::I1, a.shape, {a.value, b.value}, {{"predicate", pred}});
}

Val CodeGen::negate(const Val& a0) {
  Val a = toTensor(a0);
  if (a.dtype.isPtr()) fail("wrong type argument to unary minus (" + a.dtype.name() + ")");
  Val zero = constant(a.dtype, {}, Val::integer(BigInt(0)));
  return arith(K::Sub, zero, a);
}

Val CodeGen::invert(const Val& a0) {
  Val a = toTensor(a0);
  if (!a.dtype.isInt()) fail("wrong type argument to unary invert (" + a.dtype.name() + ")");
  Val ones = constantInt(a.dtype, -1, a.shape);
  return elementwise(OpCode::XOrI, a, ones);
}

static Val toInt1(CodeGen& cg, const Val& v) {
  Val t = cg.toTensor(v);
  if (t.dtype.isInt1()) return t;
  return cg.cast(t, ScalarKind::I1, "", /*bitcast=*/true);
}

Val CodeGen::logicalNot(const Val& a) { return invert(toInt1(*this, a)); }

Val CodeGen::logicalAndOr(bool isAnd, const Val& a, const Val& b) {
  Val x = toInt1(*this, a), y = toInt1(*this, b);
  auto [p, q] = broadcastPair(x, y);
  return elementwise(isAnd ? OpCode::AndI : OpCode::OrI, p, q);
}

Val CodeGen::minMax(bool isMax, const Val& a0, const Val& b0, bool propagateNan) {
  // tl.maximum/minimum turn literals into tensors first (no weak typing:
  // maximum(int8, 1) is int32, maximum(fp16, 0.0) is fp32); bf16 -> fp32.
  Val a = toTensor(a0), b = toTensor(b0);
  if (a.dtype.isBF16()) a = cast(a, ScalarKind::FP32);
  if (b.dtype.isBF16()) b = cast(b, ScalarKind::FP32);
  auto [x, y] = arithOperands(a, b, false, false, isMax ? "maximum" : "minimum");
  OpCode code;
  if (x.dtype.isFloat())
    code = propagateNan ? (isMax ? OpCode::MaximumF : OpCode::MinimumF) : (isMax ? OpCode::MaxNumF : OpCode::MinNumF);
  else if (x.dtype.isSigned())
    code = isMax ? OpCode::MaxSI : OpCode::MinSI;
  else
    code = isMax ? OpCode::MaxUI : OpCode::MinUI;
  return elementwise(code, x, y);
}

Val CodeGen::where(const Val& cond0, const Val& x0, const Val& y0) {
  Val cond = toTensor(cond0);
  if (!cond.dtype.isInt1()) cond = cast(cond, ScalarKind::I1);
  auto [x, y] = arithOperands(x0, y0, false, true, "where");
  if (x.dtype != y.dtype) fail("tl.where: incompatible value types " + x.dtype.name() + " and " + y.dtype.name());
  if (cond.isBlock()) {
    auto shape = broadcastShapes(cond.shape, x.shape);
    cond = broadcastTo(cond, shape);
    x = broadcastTo(x, shape);
    y = broadcastTo(y, shape);
  }
  return make(OpCode::Select, x.dtype, x.shape, {cond.value, x.value, y.value});
}

}  // namespace tessera::frontend
