//===- SemanticMath.cpp - Elementwise math ---------------------------------===//
//
// tl.exp and friends accept fp32/fp64 only (Triton 3.6 rejects fp16, bf16
// and integers); fma, umulhi and fdiv promote their operands with the usual
// binary rules first.
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

namespace tessera::frontend {

using ir::OpCode;

Val CodeGen::unaryFloatMath(const std::string& name, OpCode code, const Val& x0) {
  Val x = tensorArg(x0, name.c_str());
  bool fp32Only = code == OpCode::PreciseSqrt;
  if (!(x.dtype.isFP32() || (!fp32Only && x.dtype.isFP64())))
    fail(name + ": expected dtype " + (fp32Only ? "fp32" : "fp32 or fp64") + ", got " + x.dtype.name());
  return make(code, x.dtype, x.shape, {x.value});
}

Val CodeGen::fma(const Val& x0, const Val& y0, const Val& z0) {
  auto [x, y] = arithOperands(x0, y0, false, false, "fma");
  auto [z, x2] = arithOperands(z0, x, false, false, "fma");
  auto [z2, y2] = arithOperands(z, y, false, false, "fma");
  auto [xb, yb] = broadcastPair(x2, y2);
  auto [zb, xc] = broadcastPair(z2, xb);
  auto [zc, yc] = broadcastPair(zb, yb);
  if (!xc.dtype.isFloat()) fail("tl.fma: expected floating-point operands, got " + xc.dtype.name());
  return make(OpCode::Fma, xc.dtype, xc.shape, {xc.value, yc.value, zc.value});
}

Val CodeGen::umulhi(const Val& x0, const Val& y0) {
  auto [x, y] = arithOperands(x0, y0, false, false, "umulhi");
  if (!x.dtype.isInt() || x.dtype.bitwidth() < 32)
    fail("tl.umulhi: expected int32, int64, uint32 or uint64 operands, got " + x.dtype.name());
  // Like Triton's tt.mulhiui: the high half of the *unsigned* product of the
  // bit patterns, whatever the signedness of the dtype (libdevice.mulhi is
  // the signed one).
  return make(OpCode::MulHiI, x.dtype, x.shape, {x.value, y.value});
}

Val CodeGen::fdiv(const Val& x0, const Val& y0, bool ieee, bool approx) {
  Val xt = tensorArg(x0, "tl.fdiv"), yt = tensorArg(y0, "tl.fdiv");
  if (!xt.dtype.isFloat() || !yt.dtype.isFloat())
    fail("tl.fdiv: both operands must be floating point, got " + xt.dtype.name() + " and " + yt.dtype.name());
  auto [x, y] = arithOperands(x0, y0, true, false, "fdiv");
  if (approx) {  // Triton 3.9
    if (ieee) fail("tl.fdiv: approx=True and ieee_rounding=True exclude each other");
    if (!x.dtype.isFP32()) fail("tl.fdiv: approx=True needs fp32 operands, got " + x.dtype.name());
    return make(OpCode::ApproxDivF, x.dtype, x.shape, {x.value, y.value});
  }
  return make(ieee ? OpCode::PreciseDivF : OpCode::DivF, x.dtype, x.shape, {x.value, y.value});
}

}  // namespace tessera::frontend
