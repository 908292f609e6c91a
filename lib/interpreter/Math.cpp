//===- interpreter/Math.cpp - math.* and the precise float ops ------------===//
//
// Unary and ternary float functions computed with the C library in the
// type's precision (f32 functions for f32/f16/bf16/fp8, rounded once to the
// type), integer abs and mulhi, clamp.
//
//===----------------------------------------------------------------------===//

// Kernels are tight loops over contiguous buffers: let GCC vectorize them.
#pragma GCC optimize("O3")

#include "interpreter/Codecs.h"

namespace tessera::interp {
namespace {

using ir::OpCode;

#define TESSERA_UNARY(Name, Expr) \
  struct Name { template <class T> static T apply(T x) { return Expr; } };
TESSERA_UNARY(ExpOp, std::exp(x))
TESSERA_UNARY(Exp2Op, std::exp2(x))
TESSERA_UNARY(LogOp, std::log(x))
TESSERA_UNARY(Log2Op, std::log2(x))
TESSERA_UNARY(SqrtOp, std::sqrt(x))
TESSERA_UNARY(RsqrtOp, T(1) / std::sqrt(x))
TESSERA_UNARY(SinOp, std::sin(x))
TESSERA_UNARY(CosOp, std::cos(x))
TESSERA_UNARY(ErfOp, std::erf(x))
TESSERA_UNARY(FloorOp, std::floor(x))
TESSERA_UNARY(CeilOp, std::ceil(x))
TESSERA_UNARY(AbsOp, std::fabs(x))
#undef TESSERA_UNARY

template <class Cd, class Op> void unaryF(const Instr& in, Frame& f) {
  using S = typename Cd::S;
  int64_t n = in.count * f.lanes;
  const S* a = f.in<S>(in.in[0], n, 0);
  S* r = f.out<S>(in.out[0], n);
  for (int64_t i = 0; i < n; ++i) r[i] = Cd::enc(Op::apply(Cd::dec(a[i])));
}

template <class Op> ExecFn pickUnary(ir::Type t) {
  return withFloatCodec(t.elementType().kind(), []<class Cd>(Cd) -> ExecFn { return &unaryF<Cd, Op>; });
}

template <class Cd> void fmaOp(const Instr& in, Frame& f) {
  using S = typename Cd::S;
  int64_t n = in.count * f.lanes;
  const S* a = f.in<S>(in.in[0], n, 0);
  const S* b = f.in<S>(in.in[1], n, 1);
  const S* c = f.in<S>(in.in[2], n, 2);
  S* r = f.out<S>(in.out[0], n);
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<typename Cd::C, double>) {
      r[i] = Cd::enc(std::fma(Cd::dec(a[i]), Cd::dec(b[i]), Cd::dec(c[i])));
    } else if constexpr (std::is_same_v<Cd, F32C>) {
      r[i] = std::fma(a[i], b[i], c[i]);
    } else {
      // Small formats: the product is exact in double; one rounding of the sum.
      double v = std::fma(double(Cd::dec(a[i])), double(Cd::dec(b[i])), double(Cd::dec(c[i])));
      r[i] = static_cast<S>(encodeFloat(v, floatFormat(static_cast<ir::TypeKind>(in.p[0]))));
    }
  }
}

template <class Cd> void clampOp(const Instr& in, Frame& f) {
  using S = typename Cd::S;
  int64_t n = in.count * f.lanes;
  const S* a = f.in<S>(in.in[0], n, 0);
  const S* lo = f.in<S>(in.in[1], n, 1);
  const S* hi = f.in<S>(in.in[2], n, 2);
  S* r = f.out<S>(in.out[0], n);
  bool propagate = in.p[1] != 0;
  for (int64_t i = 0; i < n; ++i) {
    auto x = Cd::dec(a[i]);
    if (propagate && std::isnan(x)) { r[i] = a[i]; continue; }
    r[i] = Cd::enc(std::fmin(std::fmax(x, Cd::dec(lo[i])), Cd::dec(hi[i])));
  }
}

template <class T> void absI(const Instr& in, Frame& f) {
  int64_t n = in.count * f.lanes;
  const T* a = f.in<T>(in.in[0], n, 0);
  T* r = f.out<T>(in.out[0], n);
  using UT = std::make_unsigned_t<T>;
  for (int64_t i = 0; i < n; ++i) r[i] = a[i] < 0 ? T(UT(0) - UT(a[i])) : a[i];
}

template <class T, bool Signed> void mulHi(const Instr& in, Frame& f) {
  int64_t n = in.count * f.lanes;
  const T* a = f.in<T>(in.in[0], n, 0);
  const T* b = f.in<T>(in.in[1], n, 1);
  T* r = f.out<T>(in.out[0], n);
  constexpr int bits = sizeof(T) * 8;
  using UT = std::make_unsigned_t<T>;
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (Signed) {
      __int128 p = static_cast<__int128>(a[i]) * static_cast<__int128>(b[i]);
      r[i] = static_cast<T>(p >> bits);
    } else {
      unsigned __int128 p = static_cast<unsigned __int128>(UT(a[i])) * static_cast<unsigned __int128>(UT(b[i]));
      r[i] = static_cast<T>(p >> bits);
    }
  }
}

}  // namespace

bool buildMath(ir::Operation* op, Instr& in, PlanBuilder& b) {
  if (op->numResults() == 0) return false;
  ir::Type t = op->result(0).type();
  ir::TypeKind k = t.elementType().kind();
  in.p[0] = static_cast<int64_t>(k);
  switch (op->code()) {
  case OpCode::Exp: in.fn = pickUnary<ExpOp>(t); return true;
  case OpCode::Exp2: in.fn = pickUnary<Exp2Op>(t); return true;
  case OpCode::Log: in.fn = pickUnary<LogOp>(t); return true;
  case OpCode::Log2: in.fn = pickUnary<Log2Op>(t); return true;
  case OpCode::Sqrt:
  case OpCode::PreciseSqrt: in.fn = pickUnary<SqrtOp>(t); return true;
  case OpCode::Rsqrt: in.fn = pickUnary<RsqrtOp>(t); return true;
  case OpCode::Sin: in.fn = pickUnary<SinOp>(t); return true;
  case OpCode::Cos: in.fn = pickUnary<CosOp>(t); return true;
  case OpCode::Erf: in.fn = pickUnary<ErfOp>(t); return true;
  case OpCode::Floor: in.fn = pickUnary<FloorOp>(t); return true;
  case OpCode::Ceil: in.fn = pickUnary<CeilOp>(t); return true;
  case OpCode::AbsF: in.fn = pickUnary<AbsOp>(t); return true;
  case OpCode::Fma:
    in.fn = withFloatCodec(k, []<class Cd>(Cd) -> ExecFn { return &fmaOp<Cd>; });
    return true;
  case OpCode::ClampF:
    in.p[1] = op->boolAttr("propagate_nan");
    in.fn = withFloatCodec(k, []<class Cd>(Cd) -> ExecFn { return &clampOp<Cd>; });
    return true;
  case OpCode::AbsI:
    if (isI1(t)) {
      in.fn = identityKernel(1);  // |x| of an i1 (0 or -1) keeps its bit pattern
      return true;
    }
    in.fn = withIntType(t, []<class T>(T) -> ExecFn { return &absI<T>; });
    return true;
  case OpCode::MulHiI: {
    bool isSigned = op->boolAttr("signed");
    in.fn = withIntType(t, [&]<class T>(T) -> ExecFn {
      return isSigned ? &mulHi<T, true> : &mulHi<T, false>;
    });
    return true;
  }
  default: return false;
  }
}

}  // namespace tessera::interp
