//===- PtxTensorMapsTest.cpp - TMA descriptors the launch encodes -------===//
//
// A TMA descriptor made from kernel arguments alone (a matmul's
// tl.make_tensor_descriptor or tl.make_block_ptr) becomes a 128-byte
// kernel parameter the launch encodes (gpu::HostTensorMap): the PTX takes
// its generic address (cvta.param) and makes nothing itself. One made from
// a value the kernel computes (attention's per-head base) is still made on
// the device, in global scratch. On the GPU: tests/gpu/run (Dot, Memory,
// KernelLibrary) and bench_matmul.
//
//===----------------------------------------------------------------------===//

#include <regex>

#include "PtxTestUtil.h"

namespace tessera {
namespace {

using ptxtest::has;
using ptxtest::librarySource;

// Unit strides specialize away (i32:1): the entry's parameters are a, b,
// c, M, N, K, stride_am, stride_bk, stride_cm.
const char* kMatmulSig = "*bf16:16, *bf16:16, *bf16:16, i32:16, i32:16, i32:16, i32:16, stride_ak=1, i32:16, "
                         "stride_bn=1, i32:16, stride_cn=1, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, GROUP_M=8";

gpu::HostScalar param(int p) { return gpu::HostScalar{p, 0, false}; }
gpu::HostScalar constant(int64_t c) { return gpu::HostScalar{-1, c, false}; }

void expectMatmulMaps(const gpu::PtxKernel& k) {
  EXPECT_EQ(k.globalScratchBytes, 0);
  EXPECT_FALSE(has(k.ptx, "tensormap.replace"));
  ASSERT_EQ(k.tensorMaps.size(), 2u);
  ASSERT_EQ(k.params.size(), 11u);
  for (int i = 0; i < 9; ++i) EXPECT_EQ(k.params[i].tensorMap, -1) << i;
  for (int m = 0; m < 2; ++m) {
    EXPECT_EQ(k.params[9 + m].tensorMap, m);
    EXPECT_EQ(k.params[9 + m].bytes, 128);
    EXPECT_TRUE(has(k.ptx, ".param .align 64 .b8 " + k.name + "_param_tmap" + std::to_string(m) + "[128]"));
  }
  EXPECT_TRUE(has(k.ptx, "cvta.param.u64"));
  EXPECT_TRUE(has(k.ptx, "prefetch.tensormap"));
  // A: a_ptr, [M, K], [stride_am, 1], one 128-byte swizzle atom of the
  // 128x64 tile; B: b_ptr, [K, N], [stride_bk, 1], 64x64 atoms of 64x128.
  const gpu::HostTensorMap& a = k.tensorMaps[0];
  EXPECT_EQ(a.base, param(0));
  EXPECT_EQ(a.shape, (std::vector<gpu::HostScalar>{param(3), param(5)}));
  EXPECT_EQ(a.strides, (std::vector<gpu::HostScalar>{param(6), constant(1)}));
  EXPECT_EQ(a.box, (std::vector<int64_t>{128, 64}));
  const gpu::HostTensorMap& b = k.tensorMaps[1];
  EXPECT_EQ(b.base, param(1));
  EXPECT_EQ(b.shape, (std::vector<gpu::HostScalar>{param(5), param(4)}));
  EXPECT_EQ(b.strides, (std::vector<gpu::HostScalar>{param(7), constant(1)}));
  EXPECT_EQ(b.box, (std::vector<int64_t>{64, 64}));
  for (const gpu::HostTensorMap& m : k.tensorMaps) {
    EXPECT_EQ(m.elementBytes, 2);
    EXPECT_EQ(m.dataType, 9);  // CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
    EXPECT_EQ(m.swizzle, 128);
    EXPECT_FALSE(m.nanFill);
  }
}

TEST(PtxTensorMaps, DescriptorMatmulTakesItsDescriptorsAsParameters) {
  gpu::PtxKernel k = ptxtest::compile(librarySource("matmul.py"), "matmul_kernel_descriptor", kMatmulSig, 4);
  expectMatmulMaps(k);
  if (ptxtest::ptxasPath().empty()) GTEST_SKIP() << "no CUDA toolkit (ptxas) on this machine";
  EXPECT_EQ(ptxtest::assemble(k, "sm_90a"), "");
}

TEST(PtxTensorMaps, BlockPointerMatmulToo) {
  gpu::PtxKernel k = ptxtest::compile(librarySource("matmul.py"), "matmul_kernel_block_ptr", kMatmulSig, 4);
  expectMatmulMaps(k);
}

// The pointer form (masked pointer tiles, pointer-tiles-to-tma): the same
// two descriptors. Its grouped tile order divides the program id by counts
// computed from N and M, so the row offset of A and the column offset of B
// are not proven non-negative: each is checked once by a `trap` (a call,
// __assertfail, would make ptxas serialize the wgmma pipeline), and the
// kernel lists both checks for the runtime's fault message.
TEST(PtxTensorMaps, PointerMatmulToo) {
  gpu::PtxKernel k = ptxtest::compile(librarySource("matmul.py"), "matmul_kernel", kMatmulSig, 4);
  expectMatmulMaps(k);
  EXPECT_FALSE(has(k.ptx, "cp.async.cg")) << k.ptx;
  EXPECT_FALSE(has(k.ptx, "call")) << k.ptx;
  size_t traps = 0;
  for (size_t at = k.ptx.find(" trap;"); at != std::string::npos; at = k.ptx.find(" trap;", at + 1)) ++traps;
  EXPECT_EQ(traps, 2u) << k.ptx;
  ASSERT_EQ(k.runtimeChecks.size(), 2u);
  // The lines of product_tile's two loads in kernels/matmul.py.
  std::string source = librarySource("matmul.py");
  auto lineOf = [&](const std::string& text) {
    size_t at = source.find(text);
    return at == std::string::npos ? -1 : static_cast<int>(std::count(source.begin(), source.begin() + at, '\n')) + 1;
  };
  std::string aLine = "tl.load at k.py:" + std::to_string(lineOf("a = tl.load(a_ptrs")) + ":";
  std::string bLine = "tl.load at k.py:" + std::to_string(lineOf("b = tl.load(b_ptrs")) + ":";
  EXPECT_TRUE(has(k.runtimeChecks[0], aLine)) << k.runtimeChecks[0] << " (wanted " << aLine << ")";
  EXPECT_TRUE(has(k.runtimeChecks[0], "its offset along dim 0 is negative")) << k.runtimeChecks[0];
  EXPECT_TRUE(has(k.runtimeChecks[1], bLine)) << k.runtimeChecks[1] << " (wanted " << bLine << ")";
  EXPECT_TRUE(has(k.runtimeChecks[1], "its offset along dim 1 is negative")) << k.runtimeChecks[1];
  if (ptxtest::ptxasPath().empty()) GTEST_SKIP() << "no CUDA toolkit (ptxas) on this machine";
  EXPECT_EQ(ptxtest::assemble(k, "sm_90a"), "");
}

// sm_80 has no TMA: no descriptors at all.
TEST(PtxTensorMaps, NoneOnSm80) {
  gpu::PtxKernel k =
      ptxtest::compile(librarySource("matmul.py"), "matmul_kernel_descriptor", kMatmulSig, 4, "sm_80");
  EXPECT_TRUE(k.tensorMaps.empty());
  EXPECT_EQ(k.params.size(), 9u);
}

const char* kAttentionSig = "*bf16:16, *bf16:16, *bf16:16, *bf16:16, fp32, i32:16, HEAD_DIM=64, BLOCK_M=128, "
                            "BLOCK_N=64, CAUSAL=0";

// Attention's descriptors start at k_ptr + head * seq_len * HEAD_DIM: one
// descriptor for every head, with an outer dim of seq_len * HEAD_DIM
// elements in which each program copies at its head (program_id(1)).
TEST(PtxTensorMaps, PerProgramBasesBecomeAnOuterDim) {
  gpu::PtxKernel k = ptxtest::compile(librarySource("attention.py"), "attention_fwd_descriptor", kAttentionSig, 4);
  EXPECT_EQ(k.globalScratchBytes, 0);
  EXPECT_FALSE(has(k.ptx, "tensormap.replace"));
  EXPECT_TRUE(has(k.ptx, "cp.async.bulk.tensor.3d"));
  EXPECT_FALSE(has(k.ptx, "cp.async.bulk.tensor.2d"));
  ASSERT_EQ(k.tensorMaps.size(), 2u);  // K and V (Q is read once, without TMA)
  for (int m = 0; m < 2; ++m) {
    const gpu::HostTensorMap& t = k.tensorMaps[m];
    EXPECT_EQ(t.base, param(1 + m));
    EXPECT_EQ(t.shape, (std::vector<gpu::HostScalar>{constant(0x7fffffff), param(5), constant(64)}));
    EXPECT_EQ(t.strides, (std::vector<gpu::HostScalar>{gpu::HostScalar{5, 0, false, 64}, constant(64), constant(1)}));
    EXPECT_EQ(t.box, (std::vector<int64_t>{1, 64, 64}));
  }
  if (ptxtest::ptxasPath().empty()) GTEST_SKIP() << "no CUDA toolkit (ptxas) on this machine";
  EXPECT_EQ(ptxtest::assemble(k, "sm_90a"), "");
}

// A base the launch cannot compute (two arguments multiplied) is made on
// the device, in global scratch.
TEST(PtxTensorMaps, OtherBasesAreMadeOnTheDevice) {
  std::string source = librarySource("attention.py");
  std::string from = "head.to(tl.int64) * seq_len * HEAD_DIM";
  ASSERT_NE(source.rfind(from), std::string::npos);
  source.replace(source.rfind(from), from.size(), "head.to(tl.int64) * seq_len * seq_len");  // the descriptor form's
  gpu::PtxKernel k = ptxtest::compile(source, "attention_fwd_descriptor", kAttentionSig, 4);
  EXPECT_TRUE(k.tensorMaps.empty());
  EXPECT_GT(k.globalScratchBytes, 0);
  EXPECT_TRUE(has(k.ptx, "tensormap.replace"));
  EXPECT_TRUE(k.params.back().globalScratch);
}

// A descriptor made on the device (the grouped GEMM's, from addresses it
// loads) is read by other warps too: B's 64 x 256 fp16 tile is four
// 128-byte swizzle atoms, warp w copying atom w. So after the issuing
// thread's tensormap fences comes a barrier of the kernel's warps, before
// any copy through it (a warp may otherwise copy with a stale descriptor).
TEST(PtxTensorMaps, DeviceDescriptorsAreFencedBeforeEveryWarpCopies) {
  gpu::PtxKernel k = ptxtest::compile(librarySource("matmul.py"), "grouped_matmul_kernel_descriptor",
                                      "*i64:16, *i32:16, *i32:16, i32, DT=fp16, BLOCK_M=128, BLOCK_N=256, BLOCK_K=64", 8);
  EXPECT_TRUE(has(k.ptx, "tensormap.replace"));
  const std::string acquire = "fence.proxy.tensormap::generic.acquire.gpu";
  size_t fences = 0;
  for (size_t at = k.ptx.find(acquire); at != std::string::npos; at = k.ptx.find(acquire, at + 1)) {
    ++fences;
    size_t next = k.ptx.find('\n', at) + 1;
    EXPECT_EQ(k.ptx.compare(next, 10, "\tbar.sync "), 0) << k.ptx.substr(next, 40);
  }
  EXPECT_EQ(fences, 2u);  // A's and B's (C is stored through pointers)
  // The warp index every lane knows (shfl.sync from lane 0); B's atoms:
  // one copy, at 64 x warp columns and 8192 x warp bytes; the second
  // warpgroup's rows of A in its wgmma descriptor, (warp / 4) x 64 rows of
  // 128 bytes, from it too.
  std::smatch warp;
  ASSERT_TRUE(std::regex_search(k.ptx, warp, std::regex(R"(shfl\.sync\.idx\.b32 (%r\d+), %r\d+, 0, 31, -1;)")));
  const std::string w = warp[1].str();
  EXPECT_TRUE(has(k.ptx, ", " + w + ", 4;"));  // setp.lt.u32: warps 0-3 copy
  EXPECT_TRUE(std::regex_search(k.ptx, std::regex("mad\\.lo\\.u32 %r\\d+, " + w + ", 64, %r\\d+;")));
  EXPECT_TRUE(std::regex_search(k.ptx, std::regex("mad\\.lo\\.u32 %r\\d+, " + w + ", 8192, %r\\d+;")));
  EXPECT_TRUE(std::regex_search(k.ptx, std::regex("shl\\.b32 %r\\d+, " + w + ", 11;")));
  EXPECT_FALSE(has(k.ptx, "+8192], ["));  // not one copy per atom
  if (ptxtest::ptxasPath().empty()) GTEST_SKIP() << "no CUDA toolkit (ptxas) on this machine";
  EXPECT_EQ(ptxtest::assemble(k, "sm_90a"), "");
}

// The persistent attention's per-head base: the head is a quotient of the
// tile index, non-negative only because the kernel assumes seq_len > 0
// (tl.cdiv(seq_len, BLOCK_M) has no lower bound otherwise). Without the
// assumption its descriptors are made on the device, and the producer
// warpgroup, which would run ahead of descriptors rewritten per tile,
// keeps out of the persistent loop. The causal order's head is a select
// of a remainder and a pair's head: proven too.
TEST(PtxTensorMaps, PersistentHeadsNeedTheirAssumption) {
  const char* sig = "*bf16:16, *bf16:16, *bf16:16, *bf16:16, fp32, i32:16, i32, HEAD_DIM=64, BLOCK_M=128, BLOCK_N=64, "
                    "CAUSAL=0";
  std::string source = librarySource("attention.py");
  for (std::string s : {std::string(sig), std::string(sig).replace(std::string(sig).size() - 1, 1, "1")}) {
    SCOPED_TRACE(s);
    gpu::PtxKernel assumed = ptxtest::compile(source, "attention_fwd_persistent", s, 4);
    EXPECT_FALSE(assumed.tensorMaps.empty());
    EXPECT_FALSE(has(assumed.ptx, "tensormap.replace"));
    EXPECT_EQ(assumed.numWarps, 8);
  }
  std::string line = "    tl.assume(seq_len > 0)\n";
  ASSERT_NE(source.find(line), std::string::npos);
  source.erase(source.find(line), line.size());
  gpu::PtxKernel unknown = ptxtest::compile(source, "attention_fwd_persistent", sig, 4);
  EXPECT_TRUE(has(unknown.ptx, "tensormap.replace"));
  EXPECT_EQ(unknown.numWarps, 4);
}

}  // namespace
}  // namespace tessera
