//===- interpreter/Dot.cpp - tt.dot ---------------------------------------===//
//
// C = A x B + acc for [M,K]x[K,N] and batched [B,M,K]x[B,K,N]. Inputs are
// decoded once into dense scratch arrays, then an i-k-j loop accumulates:
// fp16/bf16/fp8/fp32 inputs in fp32, fp64 in fp64, int8 in int32 (wrapping).
// The accumulator is rounded once to the result type at the end. tf32 input
// rounding of the GPU is not emulated: fp32 inputs multiply exactly.
//
//===----------------------------------------------------------------------===//

// Kernels are tight loops over contiguous buffers: let GCC vectorize them.
#pragma GCC optimize("O3")

#include "interpreter/Codecs.h"

namespace tessera::interp {
namespace {

using ir::OpCode;

/// Decodes `n` elements of slot `slot` (element type kind k) into Acc.
template <class Acc> void decodeInto(Acc* dst, const Slot& s, int64_t n, ir::Type t) {
  t = t.elementType();
  if (t.isInteger()) {
    withIntType(t, [&]<class T>(T) {
      const T* src = reinterpret_cast<const T*>(s.data);
      for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<Acc>(src[i]);
      return 0;
    });
    return;
  }
  withFloatCodec(t.kind(), [&]<class Cd>(Cd) {
    const auto* src = reinterpret_cast<const typename Cd::S*>(s.data);
    for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<Acc>(Cd::dec(src[i]));
    return 0;
  });
}

template <class Acc> void encodeFrom(Slot& s, const Acc* src, int64_t n, ir::Type t) {
  t = t.elementType();
  if (t.isInteger()) {
    withIntType(t, [&]<class T>(T) {
      T* dst = reinterpret_cast<T*>(s.data);
      for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<T>(src[i]);
      return 0;
    });
    return;
  }
  withFloatCodec(t.kind(), [&]<class Cd>(Cd) {
    auto* dst = reinterpret_cast<typename Cd::S*>(s.data);
    for (int64_t i = 0; i < n; ++i) dst[i] = Cd::enc(static_cast<typename Cd::C>(src[i]));
    return 0;
  });
}

/// p[0..3] = batch, M, N, K.
template <class Acc> void dotOp(const Instr& in, Frame& f) {
  int64_t B = in.p[0], M = in.p[1], N = in.p[2], K = in.p[3];
  ir::Operation* op = in.op;
  ThreadContext& ctx = *f.ctx;
  Acc* a = reinterpret_cast<Acc*>(ctx.scratchBuf(4, B * M * K * sizeof(Acc) + 8));
  Acc* b = reinterpret_cast<Acc*>(ctx.scratchBuf(5, B * K * N * sizeof(Acc) + 8));
  Acc* c = reinterpret_cast<Acc*>(ctx.scratchBuf(6, B * M * N * sizeof(Acc) + 8));
  decodeInto(a, f.slots[in.in[0]], B * M * K, op->operand(0).type());
  decodeInto(b, f.slots[in.in[1]], B * K * N, op->operand(1).type());
  decodeInto(c, f.slots[in.in[2]], B * M * N, op->operand(2).type());
  for (int64_t bt = 0; bt < B; ++bt) {
    const Acc* A = a + bt * M * K;
    const Acc* Bm = b + bt * K * N;
    Acc* C = c + bt * M * N;
    for (int64_t i = 0; i < M; ++i) {
      Acc* crow = C + i * N;
      for (int64_t k = 0; k < K; ++k) {
        Acc aik = A[i * K + k];
        const Acc* brow = Bm + k * N;
        if constexpr (std::is_integral_v<Acc>) {
          for (int64_t j = 0; j < N; ++j)
            crow[j] = static_cast<Acc>(static_cast<uint32_t>(crow[j]) + static_cast<uint32_t>(aik * brow[j]));
        } else {
          for (int64_t j = 0; j < N; ++j) crow[j] += aik * brow[j];
        }
      }
    }
  }
  Slot& out = f.slots[in.out[0]];
  out.ensure(B * M * N * in.elemBytes + 8);
  out.n = B * M * N;
  encodeFrom(out, c, B * M * N, op->result(0).type());
}

}  // namespace

bool buildDot(ir::Operation* op, Instr& in, PlanBuilder& b) {
  if (!op->is(OpCode::Dot)) return false;
  if (op->numOperands() != 3) planError(op, "tt.dot takes A, B and the accumulator");
  ir::Type at = op->operand(0).type(), bt = op->operand(1).type(), ct = op->result(0).type();
  if (!at.isTensor() || !bt.isTensor() || !ct.isTensor()) planError(op, "tt.dot on non-tensors");
  const auto& as = at.shape();
  const auto& bs = bt.shape();
  if (as.size() != bs.size() || (as.size() != 2 && as.size() != 3)) planError(op, "tt.dot: ranks must be 2 or 3");
  bool batched = as.size() == 3;
  in.p[0] = batched ? as[0] : 1;
  in.p[1] = as[as.size() - 2];
  in.p[3] = as[as.size() - 1];
  in.p[2] = bs[bs.size() - 1];
  if (bs[bs.size() - 2] != in.p[3]) planError(op, "tt.dot: inner dimensions differ");
  ir::Type e = at.elementType();
  if (e.isInteger()) in.fn = &dotOp<int32_t>;
  else if (e.kind() == ir::TypeKind::F64) in.fn = &dotOp<double>;
  else in.fn = &dotOp<float>;
  if (ct.elementType().isInteger(64)) in.fn = &dotOp<int64_t>;
  return true;
}

}  // namespace tessera::interp
