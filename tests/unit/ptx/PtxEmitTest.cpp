//===- PtxEmitTest.cpp - Triton-language kernels -> PTX that ptxas accepts -===//
//
// Each case compiles a kernel through the whole pipeline (frontend, Tile IR
// passes, layouts, PTX emission) and assembles the PTX with the toolkit's
// ptxas for sm_80 and sm_90a (skipped when no toolkit is installed). Some
// cases also check the code shape that performance depends on: 16-byte
// vector accesses, warp shuffles for reductions, no shared memory where none
// is needed.
//
//===----------------------------------------------------------------------===//

#include "PtxTestUtil.h"

namespace tessera {
namespace {

using ptxtest::compile;

const char* kVectorAdd = R"(
import triton
import triton.language as tl

@triton.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
)";

TEST(PtxEmit, VectorAddUses16ByteAccesses) {
  gpu::PtxKernel k = compile(kVectorAdd, "add", "*fp32:16, *fp32:16, *fp32:16, i32:16, BLOCK=1024", 4);
  EXPECT_NE(k.ptx.find("ld.global.v4.b32"), std::string::npos) << k.ptx;
  EXPECT_NE(k.ptx.find("st.global.v4.b32"), std::string::npos) << k.ptx;
  EXPECT_EQ(k.sharedBytes, 0);
  ASSERT_EQ(k.params.size(), 4u);
  EXPECT_EQ(k.params[0].bytes, 8);
  EXPECT_EQ(k.params[3].bytes, 4);
  EXPECT_ASSEMBLES(kVectorAdd, "add", "*fp32:16, *fp32:16, *fp32:16, i32:16, BLOCK=1024", 4);
}

TEST(PtxEmit, UnalignedSizeFallsBackToScalarAccesses) {
  gpu::PtxKernel k = compile(kVectorAdd, "add", "*fp32:16, *fp32:16, *fp32:16, i32, BLOCK=256", 4);
  EXPECT_EQ(k.ptx.find("ld.global.v4.b32"), std::string::npos) << k.ptx;
  EXPECT_ASSEMBLES(kVectorAdd, "add", "*fp32:16, *fp32:16, *fp32:16, i32, BLOCK=256", 4);
}

const char* kSoftmax = R"(
import triton
import triton.language as tl

@triton.jit
def softmax(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float('inf')).to(tl.float32)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    y = num / tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_stride + cols, y.to(out_ptr.dtype.element_ty), mask=mask)
)";

TEST(PtxEmit, SoftmaxReducesWithShufflesAndSharedMemory) {
  gpu::PtxKernel k = compile(kSoftmax, "softmax", "*fp32:16, *fp32:16, i32:16, i32:16, i32:16, BLOCK=4096", 8);
  EXPECT_NE(k.ptx.find("shfl.sync.bfly.b32"), std::string::npos);
  EXPECT_NE(k.ptx.find("ex2.approx.ftz.f32"), std::string::npos);
  EXPECT_GT(k.sharedBytes, 0);
  EXPECT_ASSEMBLES(kSoftmax, "softmax", "*fp32:16, *fp32:16, i32:16, i32:16, i32:16, BLOCK=4096", 8);
  EXPECT_ASSEMBLES(kSoftmax, "softmax", "*fp16:16, *fp16:16, i32:16, i32:16, i32, BLOCK=1024", 4);
}

const char* kTiles = R"(
import triton
import triton.language as tl

@triton.jit
def tiles(x_ptr, y_ptr, out_ptr, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * stride + rn[None, :], mask=mask, other=0.0)
    b = tl.load(y_ptr + rn, mask=rn < N, other=0.0)
    z = x * b[None, :]
    s = tl.sum(z, axis=1)
    m = tl.argmax(z, axis=1)
    tl.store(out_ptr + rm, s + m.to(tl.float32), mask=rm < M)
    zt = tl.trans(z)
    tl.store(out_ptr + M + rn[:, None] * BM + tl.arange(0, BM)[None, :], zt)
)";

TEST(PtxEmit, TilesBroadcastReduceArgmaxTranspose) {
  EXPECT_ASSEMBLES(kTiles, "tiles", "*fp32:16, *fp32:16, *fp32:16, i32, i32, i32:16, BM=32, BN=64", 4);
}

const char* kMisc = R"(
import triton
import triton.language as tl

@triton.jit
def misc(x_ptr, i_ptr, h_ptr, out_ptr, cnt_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    i = tl.load(i_ptr + offs, mask=mask, other=0)
    h = tl.load(h_ptr + offs, mask=mask, other=0.0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(0, 4):
        acc += tl.where(i > k, tl.sqrt(x) * k, -x)
    b = h.to(tl.bfloat16) * h.to(tl.bfloat16)
    c = (i.to(tl.int8) * 3).to(tl.int32) + (i // 7) % 5 + (i >> 2) + (i.to(tl.uint32) >> 1).to(tl.int32)
    e = tl.math.erf(x) + tl.log(x) + tl.sin(x) + tl.floor(x) + tl.fma(x, x, x)
    y = acc + b.to(tl.float32) + c.to(tl.float32) + e + h.to(tl.float32)
    tl.store(out_ptr + offs, y, mask=mask)
    tl.atomic_add(cnt_ptr, 1)
    tl.atomic_max(cnt_ptr + 1 + offs % 4, i, mask=mask)
)";

TEST(PtxEmit, MixedTypesLoopsMathAtomics) {
  gpu::PtxKernel k = compile(kMisc, "misc", "*fp32:16, *i32:16, *fp16:16, *fp32:16, *i32:16, i32, BLOCK=512", 4);
  EXPECT_EQ(k.externs.size(), 1u);
  EXPECT_ASSEMBLES(kMisc, "misc", "*fp32:16, *i32:16, *fp16:16, *fp32:16, *i32:16, i32, BLOCK=512", 4);
}

const char* kAtomics16 = R"(
import triton
import triton.language as tl

@triton.jit
def atomics16(x_ptr, acc_ptr, cas_ptr, old_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.atomic_add(acc_ptr + offs % 8, x, mask=m)
    old = tl.atomic_cas(cas_ptr + offs % 4, x, x + 1)
    tl.store(old_ptr + offs, old, mask=m)
    tl.atomic_add(acc_ptr, 1)
)";

// 16-bit atomics: bf16 add has an instruction from sm_90 on and is a CAS
// loop on atom.cas.b16 before; f16 add is atom.add.noftz.f16; CAS of any
// 16-bit type is atom.cas.b16.
TEST(PtxEmit, SixteenBitAtomicsAssembleOnEveryTarget) {
  const char* bf16 = "*bf16:16, *bf16:16, *bf16:16, *bf16:16, i32, BLOCK=256";
  gpu::PtxKernel k80 = compile(kAtomics16, "atomics16", bf16, 4, "sm_80");
  EXPECT_EQ(k80.ptx.find("atom.add.noftz.bf16"), std::string::npos);
  EXPECT_NE(k80.ptx.find(".global.cas.b16"), std::string::npos);
  gpu::PtxKernel k90 = compile(kAtomics16, "atomics16", bf16, 4, "sm_90a");
  EXPECT_NE(k90.ptx.find("atom.acq_rel.gpu.global.add.noftz.bf16"), std::string::npos);
  EXPECT_ASSEMBLES(kAtomics16, "atomics16", bf16, 4);
  EXPECT_ASSEMBLES(kAtomics16, "atomics16", "*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32, BLOCK=256", 4);
}

const char* kCasI16 = R"(
import triton
import triton.language as tl

@triton.jit
def cas16(p_ptr, old_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    old = tl.atomic_cas(p_ptr + offs % 2, offs.to(tl.int16), (offs + 1).to(tl.int16), sem="relaxed")
    tl.store(old_ptr + offs, old)
)";

TEST(PtxEmit, Int16CompareAndSwap) {
  gpu::PtxKernel k = compile(kCasI16, "cas16", "*i16:16, *i16:16, BLOCK=64", 2, "sm_80");
  EXPECT_NE(k.ptx.find("atom.relaxed.gpu.global.cas.b16"), std::string::npos) << k.ptx;
  EXPECT_ASSEMBLES(kCasI16, "cas16", "*i16:16, *i16:16, BLOCK=64", 2);
}

const char* kDot = R"(
import triton
import triton.language as tl

@triton.jit
def mm(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, PRECISION: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    c = tl.dot(a, b, input_precision=PRECISION)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c)
)";

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// 64 x 32 x 32 on 4 warps: warps 2 x 2 (M first while a warp has two M
// tiles per N tile), so each warp owns 2 x 2 accumulator tiles of 16 x 8
// and runs K / k-per-instruction mma.sync for each.
TEST(PtxEmit, DotOnTensorCoresEmitsOneMmaPerTileAndKStep) {
  struct Case {
    const char* sig;
    const char* opcode;
    size_t perTile;
  } cases[] = {
      {"*fp16:16, *fp16:16, *fp32:16, M=64, N=32, K=32, PRECISION=ieee",
       "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 2},
      {"*bf16:16, *bf16:16, *fp32:16, M=64, N=32, K=32, PRECISION=ieee",
       "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", 2},
      {"*fp32:16, *fp32:16, *fp32:16, M=64, N=32, K=32, PRECISION=tf32",
       "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", 4},
      {"*i8:16, *i8:16, *i32:16, M=64, N=32, K=32, PRECISION=ieee",
       "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", 1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.sig);
    gpu::PtxKernel k = compile(kDot, "mm", c.sig, 4, "sm_80");
    EXPECT_EQ(count(k.ptx, c.opcode), 4 * c.perTile) << k.ptx;
    EXPECT_ASSEMBLES(kDot, "mm", c.sig, 4);
  }
}

TEST(PtxEmit, DotInIeeeFp32AndFp64UsesFmas) {
  for (const char* sig : {"*fp32:16, *fp32:16, *fp32:16, M=16, N=16, K=16, PRECISION=ieee",
                          "*fp64:16, *fp64:16, *fp64:16, M=16, N=16, K=16, PRECISION=ieee"}) {
    SCOPED_TRACE(sig);
    gpu::PtxKernel k = compile(kDot, "mm", sig, 4, "sm_90a");
    EXPECT_EQ(count(k.ptx, "mma.sync"), 0u);
    // 256 products of 16 terms over 128 threads: 2 results of 16 FMAs each.
    EXPECT_EQ(count(k.ptx, std::string(sig[1] == 'f' && sig[3] == '6' ? "fma.rn.f64" : "fma.rn.f32")), 32u) << k.ptx;
    EXPECT_ASSEMBLES(kDot, "mm", sig, 4);
  }
}

}  // namespace
}  // namespace tessera
