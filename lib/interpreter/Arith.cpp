//===- interpreter/Arith.cpp - Constants, integer and float arithmetic ----===//
//
// arith.* ops: constants, integer ops with exact two's-complement semantics
// (wrap-around, truncating division, shifts >= width give 0 or the sign
// fill), float ops computed in the type's precision, comparisons and select.
//
//===----------------------------------------------------------------------===//

// Kernels are tight loops over contiguous buffers: let GCC vectorize them.
#pragma GCC optimize("O3")

#include <algorithm>
#include <limits>

#include "interpreter/ArithOps.h"
#include "interpreter/Codecs.h"

namespace tessera::interp {
namespace {

using ir::OpCode;
using namespace ops;

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

template <class T> void fillConstant(const Instr& in, Frame& f) {
  int64_t n = in.count * f.lanes;
  T value;
  std::memcpy(&value, &in.p[0], sizeof(T));
  T* r = f.out<T>(in.out[0], n);
  for (int64_t i = 0; i < n; ++i) r[i] = value;
}

bool buildConstant(ir::Operation* op, Instr& in) {
  ir::Type t = op->result(0).type().elementType();
  const ir::Attribute* attr = op->attr("value");
  uint64_t bits = 0;
  if (t.isFloat()) {
    double v = 0;
    if (attr && std::holds_alternative<double>(*attr)) v = std::get<double>(*attr);
    else if (attr && std::holds_alternative<int64_t>(*attr)) v = static_cast<double>(std::get<int64_t>(*attr));
    if (t.kind() == ir::TypeKind::F64) bits = doubleToBits(v);
    else if (t.kind() == ir::TypeKind::F32) bits = floatToBits(static_cast<float>(v));
    else bits = encodeFloat(v, floatFormat(t.kind()));
  } else {
    int64_t v = 0;
    if (attr && std::holds_alternative<int64_t>(*attr)) v = std::get<int64_t>(*attr);
    else if (attr && std::holds_alternative<bool>(*attr)) v = std::get<bool>(*attr);
    else if (attr && std::holds_alternative<double>(*attr)) v = static_cast<int64_t>(std::get<double>(*attr));
    if (t.isInteger(1)) v &= 1;
    bits = static_cast<uint64_t>(v);
  }
  std::memcpy(&in.p[0], &bits, 8);
  in.fn = withBytes(in.elemBytes, []<class T>(T) -> ExecFn { return &fillConstant<T>; });
  return true;
}

//===----------------------------------------------------------------------===//
// Integer binary ops
//===----------------------------------------------------------------------===//

template <class T, class Op, bool I1, bool CheckZero> void binaryI(const Instr& in, Frame& f) {
  int64_t n = in.count * f.lanes;
  const T* a = f.in<T>(in.in[0], n, 0);
  const T* b = f.in<T>(in.in[1], n, 1);
  T* r = f.out<T>(in.out[0], n);
  if constexpr (CheckZero) {
    // Undefined in Triton (the GPU gives some value, Triton's NumPy
    // interpreter warns and gives 0): a masked-off lane of a load without
    // `other` (0 here) as the divisor is common and harmless when the lane
    // is masked off again. So a warning naming the place, and 0.
    const T* zero = std::find(b, b + n, T(0));
    if (zero != b + n) {
      runtimeWarningOnce(in, f, "integer division by zero",
                         (n > 1 ? " (lane " + std::to_string(zero - b) + ")" : std::string()) +
                             "; the result is 0 here, undefined on the GPU");
      for (int64_t i = 0; i < n; ++i) r[i] = b[i] == 0 ? T(0) : Op::apply(a[i], b[i]);
      return;
    }
  }
  if constexpr (I1) {
    for (int64_t i = 0; i < n; ++i) r[i] = T(Op::apply(T(-a[i]), T(-b[i])) & 1);
  } else {
    for (int64_t i = 0; i < n; ++i) r[i] = Op::apply(a[i], b[i]);
  }
}

template <class Op, bool CheckZero = false> ExecFn pickInt(ir::Type t) {
  if (isI1(t)) return &binaryI<int8_t, Op, true, CheckZero>;
  return withIntType(t, []<class T>(T) -> ExecFn { return &binaryI<T, Op, false, CheckZero>; });
}

//===----------------------------------------------------------------------===//
// Float binary ops
//===----------------------------------------------------------------------===//

template <class Cd, class Op> void binaryF(const Instr& in, Frame& f) {
  using S = typename Cd::S;
  int64_t n = in.count * f.lanes;
  const S* a = f.in<S>(in.in[0], n, 0);
  const S* b = f.in<S>(in.in[1], n, 1);
  S* r = f.out<S>(in.out[0], n);
  for (int64_t i = 0; i < n; ++i) r[i] = Cd::enc(Op::apply(Cd::dec(a[i]), Cd::dec(b[i])));
}

template <class Op> ExecFn pickFloat(ir::Type t) {
  return withFloatCodec(t.elementType().kind(), []<class Cd>(Cd) -> ExecFn { return &binaryF<Cd, Op>; });
}

template <class Cd> void negF(const Instr& in, Frame& f) {
  using S = typename Cd::S;
  int64_t n = in.count * f.lanes;
  const S* a = f.in<S>(in.in[0], n, 0);
  S* r = f.out<S>(in.out[0], n);
  if constexpr (std::is_floating_point_v<S>) {
    for (int64_t i = 0; i < n; ++i) r[i] = -a[i];
  } else {
    S signBit = S(S(1) << (sizeof(S) * 8 - 1));
    for (int64_t i = 0; i < n; ++i) r[i] = S(a[i] ^ signBit);
  }
}

//===----------------------------------------------------------------------===//
// Comparisons and select
//===----------------------------------------------------------------------===//

enum class Pred { EQ, NE, SLT, SLE, SGT, SGE, ULT, ULE, UGT, UGE };

template <class T, Pred P> void cmpI(const Instr& in, Frame& f) {
  int64_t n = in.count * f.lanes;
  const T* a = f.in<T>(in.in[0], n, 0);
  const T* b = f.in<T>(in.in[1], n, 1);
  uint8_t* r = f.out<uint8_t>(in.out[0], n);
  using UT = U<T>;
  for (int64_t i = 0; i < n; ++i) {
    T x = a[i], y = b[i];
    bool v;
    if constexpr (P == Pred::EQ) v = x == y;
    else if constexpr (P == Pred::NE) v = x != y;
    else if constexpr (P == Pred::SLT) v = x < y;
    else if constexpr (P == Pred::SLE) v = x <= y;
    else if constexpr (P == Pred::SGT) v = x > y;
    else if constexpr (P == Pred::SGE) v = x >= y;
    else if constexpr (P == Pred::ULT) v = UT(x) < UT(y);
    else if constexpr (P == Pred::ULE) v = UT(x) <= UT(y);
    else if constexpr (P == Pred::UGT) v = UT(x) > UT(y);
    else v = UT(x) >= UT(y);
    r[i] = v;
  }
}

template <Pred P> ExecFn pickCmpI(ir::Type t) {
  if (isI1(t)) {
    // i1 stored as 0/1: signed order is reversed (1 means -1).
    constexpr Pred Q = P == Pred::SLT ? Pred::UGT : P == Pred::SLE ? Pred::UGE
                     : P == Pred::SGT ? Pred::ULT : P == Pred::SGE ? Pred::ULE : P;
    return &cmpI<int8_t, Q>;
  }
  return withIntType(t, []<class T>(T) -> ExecFn { return &cmpI<T, P>; });
}

ExecFn buildCmpI(const std::string& pred, ir::Type t) {
  if (pred == "eq") return pickCmpI<Pred::EQ>(t);
  if (pred == "ne") return pickCmpI<Pred::NE>(t);
  if (pred == "slt") return pickCmpI<Pred::SLT>(t);
  if (pred == "sle") return pickCmpI<Pred::SLE>(t);
  if (pred == "sgt") return pickCmpI<Pred::SGT>(t);
  if (pred == "sge") return pickCmpI<Pred::SGE>(t);
  if (pred == "ult") return pickCmpI<Pred::ULT>(t);
  if (pred == "ule") return pickCmpI<Pred::ULE>(t);
  if (pred == "ugt") return pickCmpI<Pred::UGT>(t);
  if (pred == "uge") return pickCmpI<Pred::UGE>(t);
  return nullptr;
}

// Float predicates: bit 0 = less, bit 1 = equal, bit 2 = greater, bit 3 = unordered.
template <class Cd, int Mask> void cmpF(const Instr& in, Frame& f) {
  using S = typename Cd::S;
  int64_t n = in.count * f.lanes;
  const S* a = f.in<S>(in.in[0], n, 0);
  const S* b = f.in<S>(in.in[1], n, 1);
  uint8_t* r = f.out<uint8_t>(in.out[0], n);
  for (int64_t i = 0; i < n; ++i) {
    auto x = Cd::dec(a[i]);
    auto y = Cd::dec(b[i]);
    int rel = x < y ? 1 : x == y ? 2 : x > y ? 4 : 8;
    r[i] = (rel & Mask) != 0;
  }
}

template <int Mask> ExecFn pickCmpF(ir::Type t) {
  return withFloatCodec(t.elementType().kind(), []<class Cd>(Cd) -> ExecFn { return &cmpF<Cd, Mask>; });
}

ExecFn buildCmpF(const std::string& p, ir::Type t) {
  if (p == "oeq") return pickCmpF<2>(t);
  if (p == "ogt") return pickCmpF<4>(t);
  if (p == "oge") return pickCmpF<6>(t);
  if (p == "olt") return pickCmpF<1>(t);
  if (p == "ole") return pickCmpF<3>(t);
  if (p == "one") return pickCmpF<5>(t);
  if (p == "ord") return pickCmpF<7>(t);
  if (p == "ueq") return pickCmpF<10>(t);
  if (p == "ugt") return pickCmpF<12>(t);
  if (p == "uge") return pickCmpF<14>(t);
  if (p == "ult") return pickCmpF<9>(t);
  if (p == "ule") return pickCmpF<11>(t);
  if (p == "une") return pickCmpF<13>(t);
  if (p == "uno") return pickCmpF<8>(t);
  if (p == "false") return pickCmpF<0>(t);
  if (p == "true") return pickCmpF<15>(t);
  return nullptr;
}

template <class T> void selectOp(const Instr& in, Frame& f) {
  int64_t n = in.count * f.lanes;
  Slot& c = f.s(in.in[0]);
  if (c.n == 1 && n > 1) {  // scalar condition selects a whole tensor
    copySlot(f, in.out[0], c.data[0] ? in.in[1] : in.in[2], sizeof(T));
    return;
  }
  const uint8_t* cond = c.data;
  const T* a = f.in<T>(in.in[1], n, 0);
  const T* b = f.in<T>(in.in[2], n, 1);
  T* r = f.out<T>(in.out[0], n);
  for (int64_t i = 0; i < n; ++i) r[i] = cond[i] ? a[i] : b[i];
}

void selectBlockPtr(const Instr& in, Frame& f) {
  Slot& c = f.s(in.in[0]);
  copySlot(f, in.out[0], c.data[0] ? in.in[1] : in.in[2], 0);
}

}  // namespace

bool buildArith(ir::Operation* op, Instr& in, PlanBuilder& b) {
  ir::Type t = op->numResults() ? op->result(0).type() : ir::Type();
  switch (op->code()) {
  case OpCode::Constant: return buildConstant(op, in);
  case OpCode::AddI: in.fn = pickInt<AddI>(t); return true;
  case OpCode::SubI: in.fn = pickInt<SubI>(t); return true;
  case OpCode::MulI: in.fn = pickInt<MulI>(t); return true;
  case OpCode::DivSI: in.fn = pickInt<DivSI, true>(t); return true;
  case OpCode::DivUI: in.fn = pickInt<DivUI, true>(t); return true;
  case OpCode::RemSI: in.fn = pickInt<RemSI, true>(t); return true;
  case OpCode::RemUI: in.fn = pickInt<RemUI, true>(t); return true;
  case OpCode::AndI: in.fn = pickInt<AndI>(t); return true;
  case OpCode::OrI: in.fn = pickInt<OrI>(t); return true;
  case OpCode::XOrI: in.fn = pickInt<XOrI>(t); return true;
  case OpCode::ShLI: in.fn = pickInt<ShLI>(t); return true;
  case OpCode::ShRSI: in.fn = pickInt<ShRSI>(t); return true;
  case OpCode::ShRUI: in.fn = pickInt<ShRUI>(t); return true;
  case OpCode::MaxSI: in.fn = pickInt<MaxSI>(t); return true;
  case OpCode::MaxUI: in.fn = pickInt<MaxUI>(t); return true;
  case OpCode::MinSI: in.fn = pickInt<MinSI>(t); return true;
  case OpCode::MinUI: in.fn = pickInt<MinUI>(t); return true;
  case OpCode::AddF: in.fn = pickFloat<AddF>(t); return true;
  case OpCode::SubF: in.fn = pickFloat<SubF>(t); return true;
  case OpCode::MulF: in.fn = pickFloat<MulF>(t); return true;
  case OpCode::DivF:
  case OpCode::ApproxDivF:  // exact here; the GPU's is within 2 ulp
  case OpCode::PreciseDivF: in.fn = pickFloat<DivF>(t); return true;
  case OpCode::RemF: in.fn = pickFloat<RemF>(t); return true;
  case OpCode::MaxNumF: in.fn = pickFloat<MaxNumF>(t); return true;
  case OpCode::MinNumF: in.fn = pickFloat<MinNumF>(t); return true;
  case OpCode::MaximumF: in.fn = pickFloat<MaximumF>(t); return true;
  case OpCode::MinimumF: in.fn = pickFloat<MinimumF>(t); return true;
  case OpCode::NegF:
    in.fn = withFloatCodec(t.elementType().kind(), []<class Cd>(Cd) -> ExecFn { return &negF<Cd>; });
    return true;
  case OpCode::CmpI:
  case OpCode::CmpF: {
    std::string pred = op->strAttr("predicate");
    ir::Type operandType = op->operand(0).type();
    in.fn = op->is(OpCode::CmpI) ? buildCmpI(pred, operandType) : buildCmpF(pred, operandType);
    if (!in.fn) planError(op, "unknown comparison predicate '" + pred + "'");
    return true;
  }
  case OpCode::Select:
    if (in.elemBytes == 0) in.fn = &selectBlockPtr;
    else in.fn = withBytes(in.elemBytes, []<class T>(T) -> ExecFn { return &selectOp<T>; });
    return true;
  default: return false;
  }
}

}  // namespace tessera::interp
