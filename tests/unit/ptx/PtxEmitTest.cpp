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
  EXPECT_NE(k.ptx.find("ex2.approx.f32"), std::string::npos);
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

TEST(PtxEmit, DotIsRejectedWithAClearError) {
  const char* src = R"(
import triton
import triton.language as tl

@triton.jit
def mm(a_ptr, c_ptr):
    r = tl.arange(0, 16)
    a = tl.load(a_ptr + r[:, None] * 16 + r[None, :])
    tl.store(c_ptr + r[:, None] * 16 + r[None, :], tl.dot(a, a))
)";
  try {
    compile(src, "mm", "*fp16:16, *fp32:16", 4);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("tl.dot"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tessera
