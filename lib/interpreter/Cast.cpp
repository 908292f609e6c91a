//===- interpreter/Cast.cpp - Integer, float and pointer conversions ------===//
//
// Every cast is exact where the language is exact: integer extension and
// truncation are bit operations; int -> float rounds once (int64 values go
// through a round-to-odd double so there is no double rounding); float ->
// int truncates toward zero and saturates (NaN -> 0) like PTX cvt.rzi; float
// narrowing rounds once to the target (RNE or RTZ, fp8 saturating).
//
//===----------------------------------------------------------------------===//

// Kernels are tight loops over contiguous buffers: let GCC vectorize them.
#pragma GCC optimize("O3")

#include <limits>

#include "interpreter/Codecs.h"

namespace tessera::interp {
namespace {

using ir::OpCode;

/// Reads element i of an integer source as int64 (sign- or zero-extended).
template <class S, bool Unsigned, bool I1> inline int64_t readIntElem(const S* a, int64_t i) {
  if constexpr (I1) return Unsigned ? (a[i] & 1) : -(a[i] & 1);
  else if constexpr (Unsigned) return static_cast<int64_t>(static_cast<std::make_unsigned_t<S>>(a[i]));
  else return static_cast<int64_t>(a[i]);
}

template <class S, class D, bool Unsigned, bool SrcI1, bool DstI1> void intToInt(const Instr& in, Frame& f) {
  int64_t n = in.count * f.lanes;
  const S* a = f.in<S>(in.in[0], n, 0);
  D* r = f.out<D>(in.out[0], n);
  for (int64_t i = 0; i < n; ++i) {
    int64_t v = readIntElem<S, Unsigned, SrcI1>(a, i);
    r[i] = DstI1 ? D(v & 1) : static_cast<D>(v);
  }
}

template <bool Unsigned> ExecFn pickIntToInt(ir::Type src, ir::Type dst) {
  bool srcI1 = isI1(src), dstI1 = isI1(dst);
  return withIntType(src, [&]<class S>(S) -> ExecFn {
    return withIntType(dst, [&]<class D>(D) -> ExecFn {
      if (srcI1 && dstI1) return &intToInt<S, D, Unsigned, true, true>;
      if (srcI1) return &intToInt<S, D, Unsigned, true, false>;
      if (dstI1) return &intToInt<S, D, Unsigned, false, true>;
      return &intToInt<S, D, Unsigned, false, false>;
    });
  });
}

/// |v| rounded to 53 bits with round-to-odd (exact when it fits), so a second
/// rounding to <= 51 bits is correct.
inline double roundToOddDouble(int64_t v, bool isUnsigned) {
  bool negative = !isUnsigned && v < 0;
  uint64_t u = negative ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  double d;
  if (u < (1ull << 53)) {
    d = static_cast<double>(u);
  } else {
    int shift = 64 - __builtin_clzll(u) - 53;
    uint64_t kept = u >> shift;
    if (u & ((1ull << shift) - 1)) kept |= 1;
    d = std::ldexp(static_cast<double>(kept), shift);
  }
  return negative ? -d : d;
}

template <class S, class Dc, bool Unsigned, bool SrcI1> void intToFloat(const Instr& in, Frame& f) {
  using DS = typename Dc::S;
  int64_t n = in.count * f.lanes;
  const S* a = f.in<S>(in.in[0], n, 0);
  DS* r = f.out<DS>(in.out[0], n);
  for (int64_t i = 0; i < n; ++i) {
    int64_t v = readIntElem<S, Unsigned, SrcI1>(a, i);
    if constexpr (std::is_same_v<Dc, F64C>) {
      r[i] = Unsigned ? static_cast<double>(static_cast<uint64_t>(v)) : static_cast<double>(v);
    } else if constexpr (std::is_same_v<Dc, F32C>) {
      r[i] = Unsigned ? static_cast<float>(static_cast<uint64_t>(v)) : static_cast<float>(v);
    } else {
      r[i] = static_cast<DS>(encodeFloat(roundToOddDouble(v, Unsigned), floatFormat(static_cast<ir::TypeKind>(in.p[0]))));
    }
  }
}

template <bool Unsigned> ExecFn pickIntToFloat(ir::Type src, ir::Type dst) {
  bool srcI1 = isI1(src);
  return withIntType(src, [&]<class S>(S) -> ExecFn {
    return withFloatCodec(dst.elementType().kind(), [&]<class Dc>(Dc) -> ExecFn {
      return srcI1 ? &intToFloat<S, Dc, Unsigned, true> : &intToFloat<S, Dc, Unsigned, false>;
    });
  });
}

template <class Sc, class D, bool Unsigned, bool DstI1> void floatToInt(const Instr& in, Frame& f) {
  using SS = typename Sc::S;
  int64_t n = in.count * f.lanes;
  const SS* a = f.in<SS>(in.in[0], n, 0);
  D* r = f.out<D>(in.out[0], n);
  using Target = std::conditional_t<Unsigned, std::make_unsigned_t<D>, D>;
  const double lo = static_cast<double>(std::numeric_limits<Target>::min());
  const double hi = static_cast<double>(std::numeric_limits<Target>::max());
  for (int64_t i = 0; i < n; ++i) {
    double x = static_cast<double>(Sc::dec(a[i]));
    Target v;
    if (std::isnan(x)) v = 0;
    else if (x <= lo) v = std::numeric_limits<Target>::min();
    else if (x >= hi) v = std::numeric_limits<Target>::max();
    else v = static_cast<Target>(std::trunc(x));
    r[i] = DstI1 ? D(v != 0) : static_cast<D>(v);
  }
}

template <bool Unsigned> ExecFn pickFloatToInt(ir::Type src, ir::Type dst) {
  bool dstI1 = isI1(dst);
  return withFloatCodec(src.elementType().kind(), [&]<class Sc>(Sc) -> ExecFn {
    return withIntType(dst, [&]<class D>(D) -> ExecFn {
      return dstI1 ? &floatToInt<Sc, D, Unsigned, true> : &floatToInt<Sc, D, Unsigned, false>;
    });
  });
}

/// Exact conversions and single-rounding float -> float through the codecs.
template <class Sc, class Dc> void floatToFloatFast(const Instr& in, Frame& f) {
  using SS = typename Sc::S;
  using DS = typename Dc::S;
  int64_t n = in.count * f.lanes;
  const SS* a = f.in<SS>(in.in[0], n, 0);
  DS* r = f.out<DS>(in.out[0], n);
  for (int64_t i = 0; i < n; ++i) r[i] = Dc::enc(static_cast<typename Dc::C>(Sc::dec(a[i])));
}

/// Generic narrowing: exact double, rounded once by encodeFloat.
template <class Sc, class DS> void floatToFloatGeneric(const Instr& in, Frame& f) {
  using SS = typename Sc::S;
  int64_t n = in.count * f.lanes;
  const SS* a = f.in<SS>(in.in[0], n, 0);
  DS* r = f.out<DS>(in.out[0], n);
  const FloatFormat& fmt = floatFormat(static_cast<ir::TypeKind>(in.p[0]));
  bool rtz = in.p[1] != 0;
  for (int64_t i = 0; i < n; ++i) {
    uint32_t bits = encodeFloat(static_cast<double>(Sc::dec(a[i])), fmt, rtz);
    if constexpr (std::is_same_v<DS, float>) r[i] = bitsToFloat(bits);
    else r[i] = static_cast<DS>(bits);
  }
}

ExecFn pickFloatToFloat(ir::Operation* op, ir::Type src, ir::Type dst, bool rtz) {
  using K = ir::TypeKind;
  K sk = src.elementType().kind(), dk = dst.elementType().kind();
  bool srcIsF64 = sk == K::F64;
  bool exact = dst.elementType().bitWidth() > src.elementType().bitWidth() || dk == K::F64;
  bool fast = exact || (!rtz && !srcIsF64) || (!rtz && dk == K::F32);
  return withFloatCodec(sk, [&]<class Sc>(Sc) -> ExecFn {
    if (fast)
      return withFloatCodec(dk, [&]<class Dc>(Dc) -> ExecFn { return &floatToFloatFast<Sc, Dc>; });
    if (dk == K::F32) return &floatToFloatGeneric<Sc, float>;
    if (dk == K::F16 || dk == K::BF16) return &floatToFloatGeneric<Sc, uint16_t>;
    return &floatToFloatGeneric<Sc, uint8_t>;
  });
}

template <class T> void copyOp(const Instr& in, Frame& f) {
  int64_t n = in.count * f.lanes;
  const T* a = f.in<T>(in.in[0], n, 0);
  T* r = f.out<T>(in.out[0], n);
  std::memcpy(r, a, static_cast<size_t>(n) * sizeof(T));
}

void copyBlockPtr(const Instr& in, Frame& f) { copySlot(f, in.out[0], in.in[0], 0); }

}  // namespace

/// An identity kernel for `bytes`-wide elements (0 = block pointer).
ExecFn identityKernel(int bytes) {
  if (bytes == 0) return &copyBlockPtr;
  return withBytes(bytes, []<class T>(T) -> ExecFn { return &copyOp<T>; });
}

bool buildCast(ir::Operation* op, Instr& in, PlanBuilder& b) {
  if (op->numResults() == 0 || op->numOperands() == 0) return false;
  ir::Type src = op->operand(0).type(), dst = op->result(0).type();
  in.p[0] = static_cast<int64_t>(dst.elementType().kind());
  switch (op->code()) {
  case OpCode::ExtSI:
  case OpCode::TruncI: in.fn = pickIntToInt<false>(src, dst); return true;
  case OpCode::ExtUI: in.fn = pickIntToInt<true>(src, dst); return true;
  case OpCode::SIToFP: in.fn = pickIntToFloat<false>(src, dst); return true;
  case OpCode::UIToFP: in.fn = pickIntToFloat<true>(src, dst); return true;
  case OpCode::FPToSI: in.fn = pickFloatToInt<false>(src, dst); return true;
  case OpCode::FPToUI: in.fn = pickFloatToInt<true>(src, dst); return true;
  case OpCode::ExtF: in.fn = pickFloatToFloat(op, src, dst, false); return true;
  case OpCode::TruncF: {
    std::string mode = op->strAttr("rounding", "rtne");
    if (mode != "rtne" && mode != "rtz") planError(op, "unknown rounding mode '" + mode + "'");
    in.p[1] = mode == "rtz";
    in.fn = pickFloatToFloat(op, src, dst, mode == "rtz");
    return true;
  }
  case OpCode::Bitcast:
  case OpCode::IntToPtr:
  case OpCode::PtrToInt:
  case OpCode::PtrBitcast:
  case OpCode::Hint:
    if (storageBytes(src) != in.elemBytes) planError(op, "bitcast between types of different widths");
    in.fn = identityKernel(in.elemBytes);
    return true;
  default: return false;
  }
}

}  // namespace tessera::interp
