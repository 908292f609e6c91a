//===- PtxAsyncCopyTest.cpp - The pipeline ops lower to cp.async ----------===//
//
// A wgmma dot whose operands come from ttg.local_alloc copies is rewritten
// here by hand into the form a software pipeline gives it: a two-stage
// buffer per operand (ttg.local_alloc without operand), the stage read
// (ttg.memdesc_index), the tile copied into it asynchronously
// (ttg.async_copy_global_to_local from the load's pointers and mask),
// ttg.async_commit_group and ttg.async_wait. The PTX must use cp.async of
// 16 bytes with zero-fill for masked vectors, wait, fence for the async
// proxy, and assemble for sm_90a.
//
//===----------------------------------------------------------------------===//

#include <fstream>
#include <regex>
#include <sstream>

#include "PtxTestUtil.h"
#include "gpu/GpuPasses.h"
#include "tessera/ir/Builder.h"

namespace tessera {
namespace {

using namespace ir;
using ptxtest::compile;

const char* kMasked = R"(
import triton
import triton.language as tl

@triton.jit
def mm(a_ptr, b_ptr, c_ptr, k_valid):
    rm = tl.arange(0, 64)
    rk = tl.arange(0, 64)
    a = tl.load(a_ptr + rm[:, None] * 64 + rk[None, :], mask=rk[None, :] < k_valid, other=0.0)
    b = tl.load(b_ptr + rk[:, None] * 64 + rm[None, :], mask=rk[:, None] < k_valid, other=0.0)
    c = tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * 64 + rm[None, :], c)
)";

/// Replaces each `ttg.local_alloc %x` whose %x is a tt.load by stage 1 of a
/// two-stage buffer filled with an async copy of the load's pointers.
void pipelineByHand(Operation* kernel) {
  std::vector<Operation*> allocs;
  kernel->walk([&](Operation* op) {
    if (op->is(OpCode::LocalAlloc) && op->numOperands() == 1) allocs.push_back(op);
  });
  ASSERT_EQ(allocs.size(), 2u);
  for (Operation* alloc : allocs) {
    Operation* load = alloc->operand(0).definingOp();
    ASSERT_TRUE(load && load->is(OpCode::Load));
    Type view = alloc->result().type();
    std::vector<int64_t> staged = view.shape();
    staged.insert(staged.begin(), 2);
    OpBuilder b;
    b.setInsertionPoint(alloc);
    Value buffer = b.create(OpCode::LocalAlloc, {Type::tensor(staged, view.elementType(), view.encoding())}, {})
                       ->result();
    Value stage = b.constantInt(Type::i32(), 1);
    Value slot = b.create(OpCode::MemdescIndex, {view}, {buffer, stage})->result();
    std::vector<Value> operands = {load->operand(0), slot};
    for (unsigned i = 1; i < load->numOperands(); ++i) operands.push_back(load->operand(i));
    b.create(OpCode::AsyncCopyGlobalToLocal, {}, operands);
    b.create(OpCode::AsyncCommitGroup, {}, {});
    b.create(OpCode::AsyncWait, {}, {}, {{"num", int64_t{0}}});
    alloc->result().replaceAllUsesWith(slot);
    alloc->erase();
  }
}

struct Lowered {
  std::unique_ptr<Module> gpu;
  std::string kernel;
  gpu::GpuOptions options;
};

/// `src`'s kernel mm for signature `sig`, lowered to Tile GPU IR for sm_90a.
Lowered lower(const char* src, const std::string& sig) {
  auto prog = ptxtest::load(src);
  frontend::CompileResult r = prog->compile("mm", ptxtest::parseSpecs(sig), {});
  transforms::runTileIRPipeline(*r.module);
  Lowered l;
  l.kernel = r.kernelName;
  l.options.target = gpu::Target::parse("sm_90a");
  l.options.pointerTma = false;  // the cp.async copies, not TMA's (PtxTma*)
  l.gpu = gpu::lowerToGpuIR(*r.module, r.kernelName, l.options);
  return l;
}

/// `src`'s kernel mm lowered, then through pipeline-dot-loops (3 stages)
/// and dce, verified.
Lowered lowerAndPipelineLoops(const char* src, const std::string& sig) {
  Lowered l = lower(src, sig);
  gpu::pipelineDotLoops(l.gpu->lookup(l.kernel), 3);
  transforms::runPasses(*l.gpu, "dce");
  EXPECT_EQ(verify(*l.gpu), std::nullopt) << print(*l.gpu);
  return l;
}

/// `ttgir` without allocate-shared-memory's buffer offsets (the lowering
/// placed the buffers it made; the checks are about which buffers exist).
std::string withoutOffsets(const std::string& ttgir) {
  return std::regex_replace(ttgir, std::regex(" \\{offset = [0-9]+\\}"), "");
}

/// How many times `what` occurs in `text`.
int occurrences(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

/// The same, then pipelined by hand. k_valid % 16 == 0: the masks are
/// constant over 16-byte vectors.
Lowered lowerAndPipeline(const char* src) {
  Lowered l = lower(src, "*fp16:16, *fp16:16, *fp32:16, i32:16");
  pipelineByHand(l.gpu->lookup(l.kernel));
  return l;
}

TEST(PtxAsyncCopy, PipelineOpsLowerToCpAsync) {
  Lowered l = lowerAndPipeline(kMasked);
  ASSERT_EQ(verify(*l.gpu), std::nullopt) << print(*l.gpu);
  gpu::PtxKernel k = ptxtest::planAndEmit(*l.gpu, l.kernel, l.options);
  // 64 x 64 fp16 = 8 KB per operand: 4 vectors of 16 bytes per thread each.
  EXPECT_EQ(occurrences(k.ptx, "cp.async.cg.shared.global"), 8) << k.ptx;
  EXPECT_NE(k.ptx.find(", 16, %r"), std::string::npos) << "masked copies give their source size";
  EXPECT_NE(k.ptx.find("cp.async.commit_group"), std::string::npos);
  EXPECT_NE(k.ptx.find("cp.async.wait_group 0"), std::string::npos);
  EXPECT_NE(k.ptx.find("fence.proxy.async.shared::cta"), std::string::npos);
  EXPECT_NE(k.ptx.find("wgmma.mma_async"), std::string::npos);
  // Two two-stage buffers of 8 KB each, then the scratch area.
  EXPECT_GE(k.sharedBytes, 2 * 2 * 8192);
  if (ptxtest::ptxasPath().empty()) GTEST_SKIP() << "no CUDA toolkit (ptxas) on this machine";
  EXPECT_EQ(ptxtest::assemble(k, "sm_90a"), "");
}

TEST(PtxAsyncCopy, NonZeroOtherIsRefused) {
  const char* src = R"(
import triton
import triton.language as tl

@triton.jit
def mm(a_ptr, b_ptr, c_ptr, k_valid):
    rm = tl.arange(0, 64)
    rk = tl.arange(0, 64)
    a = tl.load(a_ptr + rm[:, None] * 64 + rk[None, :], mask=rk[None, :] < k_valid, other=1.0)
    b = tl.load(b_ptr + rk[:, None] * 64 + rm[None, :], mask=rk[:, None] < k_valid, other=1.0)
    tl.store(c_ptr + rm[:, None] * 64 + rm[None, :], tl.dot(a, b))
)";
  Lowered l = lowerAndPipeline(src);
  try {
    ptxtest::planAndEmit(*l.gpu, l.kernel, l.options);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("`other` must be 0"), std::string::npos) << e.what();
  }
}

// The pipeliner on a matmul loop with num_stages = 3: the accumulator is
// loop-carried, so the dot goes asynchronous and each operand gets S + 1 = 4
// stages; two prologue groups, a wait for all but one group in the loop,
// 16-byte cp.async (the operand loads have their own coalesced layout, not
// the fp32 store's 4 elements per thread), wgmma waited for down to one
// group in the loop and to none after it, and it assembles.
TEST(PtxAsyncCopy, PipelinedMatmulLoop) {
  const char* src = R"(
import triton
import triton.language as tl

@triton.jit
def mm(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < K - k0), other=0.0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < K - k0) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * N
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))
)";
  Lowered l = lowerAndPipelineLoops(
      src, "*fp16:16, *fp16:16, *fp32:16, i32:16, i32:16, i32:16, BLOCK_M=128, BLOCK_N=128, BLOCK_K=64");
  if (HasFailure()) return;
  std::string ttgir = withoutOffsets(print(*l.gpu));
  EXPECT_NE(ttgir.find("ttg.local_alloc : tensor<4x128x64xf16"), std::string::npos) << ttgir;
  EXPECT_NE(ttgir.find("ttg.local_alloc : tensor<4x64x128xf16"), std::string::npos) << ttgir;
  EXPECT_EQ(ttgir.find("tt.load"), std::string::npos) << "the loads became async copies\n" << ttgir;
  EXPECT_NE(ttgir.find("is_async = true"), std::string::npos) << ttgir;
  EXPECT_NE(ttgir.find("ttng.warp_group_dot_wait %"), std::string::npos) << ttgir;
  EXPECT_NE(ttgir.find("{pendings = 1}"), std::string::npos) << ttgir;
  EXPECT_NE(ttgir.find("{pendings = 0}"), std::string::npos) << ttgir;
  gpu::PtxKernel k = ptxtest::planAndEmit(*l.gpu, l.kernel, l.options);
  EXPECT_NE(k.ptx.find("cp.async.wait_group 1"), std::string::npos);
  EXPECT_NE(k.ptx.find("cp.async.cg.shared.global"), std::string::npos) << k.ptx;
  EXPECT_EQ(k.ptx.find("cp.async.ca.shared.global"), std::string::npos) << "8-byte copies\n" << k.ptx;
  EXPECT_NE(k.ptx.find("wgmma.mma_async"), std::string::npos);
  EXPECT_NE(k.ptx.find("wgmma.wait_group.sync.aligned 1"), std::string::npos);
  EXPECT_NE(k.ptx.find("wgmma.wait_group.sync.aligned 0"), std::string::npos);
  // The stages, and the fp32 epilogue's scratch after the loop reuses them.
  EXPECT_GE(k.sharedBytes, 4 * (128 * 64 + 64 * 128) * 2);
  EXPECT_LT(k.sharedBytes, 4 * (128 * 64 + 64 * 128) * 2 + 128 * 128 * 4);
  if (ptxtest::ptxasPath().empty()) GTEST_SKIP() << "no CUDA toolkit (ptxas) on this machine";
  EXPECT_EQ(ptxtest::assemble(k, "sm_90a"), "");
}

// A matmul loop with B scaled in the body (SCALE_B) or C written in it
// (STORE_IN_LOOP), for the pipeliner's refusals below.
const char* kMatmulLoopVariants = R"(
import triton
import triton.language as tl

@triton.jit
def mm(a_ptr, b_ptr, c_ptr, K, SCALE_B: tl.constexpr, STORE_IN_LOOP: tl.constexpr):
    rm = tl.arange(0, 64)
    rk = tl.arange(0, 32)
    acc = tl.zeros((64, 64), dtype=tl.float32)
    for k0 in range(0, K, 32):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(b_ptr + (k0 + rk)[:, None] * 64 + rm[None, :])
        if SCALE_B:
            b = b * 2.0
        acc += tl.dot(a, b)
        if STORE_IN_LOOP == 1:
            tl.store(c_ptr + rm[:, None] * 64 + rm[None, :], acc)
        if STORE_IN_LOOP == 2:  # into B, which later iterations load
            tl.store(b_ptr + rm[:, None] * 64 + rm[None, :], acc.to(tl.float16))
    tl.store(c_ptr + rm[:, None] * 64 + rm[None, :], acc)
)";

// Two pipelined loops one after the other (attention's unmasked key
// blocks, then the masked ones): the second loop's stages reuse the bytes
// of the first's, whose live range has ended.
TEST(PtxAsyncCopy, ConsecutiveLoopsShareTheirStageBuffers) {
  const char* src = R"(
import triton
import triton.language as tl

@triton.jit
def mm(a_ptr, b_ptr, c_ptr, K, SPLIT):
    r = tl.arange(0, 128)
    rk = tl.arange(0, 64)
    acc = tl.zeros((128, 128), dtype=tl.float32)
    for k0 in range(0, SPLIT, 64):
        a = tl.load(a_ptr + r[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(b_ptr + (k0 + rk)[:, None] * 128 + r[None, :])
        acc += tl.dot(a, b)
    for k0 in range(SPLIT, K, 64):
        a = tl.load(a_ptr + r[:, None] * K + (k0 + rk)[None, :], mask=(k0 + rk)[None, :] < K, other=0.0)
        b = tl.load(b_ptr + (k0 + rk)[:, None] * 128 + r[None, :], mask=(k0 + rk)[:, None] < K, other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + r[:, None] * 128 + r[None, :], acc)
)";
  Lowered l = lowerAndPipelineLoops(src, "*fp16:16, *fp16:16, *fp32:16, i32:16, i32:16");
  if (HasFailure()) return;
  std::string ttgir = withoutOffsets(print(*l.gpu));
  ASSERT_EQ(occurrences(ttgir, "ttg.local_alloc : tensor<4x"), 4) << "A and B stages for each loop\n" << ttgir;
  gpu::PtxKernel k = ptxtest::planAndEmit(*l.gpu, l.kernel, l.options);
  const int64_t oneLoop = 4 * (128 * 64 + 64 * 128) * 2;  // 128 KiB
  EXPECT_GE(k.sharedBytes, oneLoop);
  EXPECT_LT(k.sharedBytes, 2 * oneLoop) << "the second loop's stages have buffers of their own";
  if (ptxtest::ptxasPath().empty()) GTEST_SKIP() << "no CUDA toolkit (ptxas) on this machine";
  EXPECT_EQ(ptxtest::assemble(k, "sm_90a"), "");
}

// A loop that writes what its tiles are loaded from keeps its loads where
// they are: the copies of later iterations would run before the writes
// they depend on. Writes into another kernel argument (C) do not hold the
// copies back: arguments are taken not to alias, as Triton's pipeliner
// takes them (lib/gpu/PointerArguments.h).
TEST(PtxAsyncCopy, LoopsThatWriteWhatTheyLoadAreNotPipelined) {
  Lowered into = lower(kMatmulLoopVariants, "*fp16:16, *fp16:16, *fp32:16, i32:16, SCALE_B=0, STORE_IN_LOOP=2");
  gpu::pipelineDotLoops(into.gpu->lookup(into.kernel), 3);
  std::string ttgir = withoutOffsets(print(*into.gpu));
  EXPECT_EQ(ttgir.find("ttg.async_copy_global_to_local"), std::string::npos) << ttgir;
  EXPECT_NE(ttgir.find("tt.load"), std::string::npos) << ttgir;
  Lowered other = lower(kMatmulLoopVariants, "*fp16:16, *fp16:16, *fp32:16, i32:16, SCALE_B=0, STORE_IN_LOOP=1");
  gpu::pipelineDotLoops(other.gpu->lookup(other.kernel), 3);
  ttgir = withoutOffsets(print(*other.gpu));
  EXPECT_NE(ttgir.find("ttg.async_copy_global_to_local"), std::string::npos) << ttgir;
}

// B is computed in the body (a scaled load), so its shared copy is rewritten
// every iteration: A is staged, but the dot stays synchronous, else the next
// iteration's copy of B would overwrite what the running dot reads.
TEST(PtxAsyncCopy, DotReadingACopyMadeInTheLoopStaysSynchronous) {
  Lowered l = lower(kMatmulLoopVariants, "*fp16:16, *fp16:16, *fp32:16, i32:16, SCALE_B=1, STORE_IN_LOOP=0");
  ASSERT_EQ(verify(*l.gpu), std::nullopt) << print(*l.gpu);
  std::string ttgir = withoutOffsets(print(*l.gpu));
  EXPECT_NE(ttgir.find("ttg.async_copy_global_to_local"), std::string::npos) << "A is staged\n" << ttgir;
  EXPECT_NE(ttgir.find("tt.load"), std::string::npos) << "B's load stays\n" << ttgir;
  EXPECT_EQ(ttgir.find("is_async"), std::string::npos) << ttgir;
  gpu::PtxKernel k = ptxtest::planAndEmit(*l.gpu, l.kernel, l.options);
  EXPECT_NE(k.ptx.find("wgmma.wait_group.sync.aligned 0"), std::string::npos);
  EXPECT_EQ(k.ptx.find("wgmma.wait_group.sync.aligned 1"), std::string::npos);
  if (ptxtest::ptxasPath().empty()) GTEST_SKIP() << "no CUDA toolkit (ptxas) on this machine";
  EXPECT_EQ(ptxtest::assemble(k, "sm_90a"), "");
}

// ptxas keeps the wgmma pipelines as written: no "wgmma.mma_async
// instructions are serialized" (an accumulator register touched while its
// wgmma runs) and no injected warpgroup.arrive (an operand register written
// between two wgmmas). Checked on the library's matmul (asynchronous dot,
// in-place accumulator) and attention (A from registers, deferred wait at 4
// warps; 8 warps) kernels as the H100 gets them.
/// The text of kernels/FILE, the library's kernels.
std::string librarySource(const std::string& file) {
  std::ifstream in(std::string(TESSERA_SOURCE_DIR) + "/kernels/" + file);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The PTX of the first scf.for's body: from its head label to the branch
/// back ("" when there is no loop).
std::string firstLoopBody(const std::string& ptx) {
  size_t head = ptx.find("$L_for_");
  if (head == std::string::npos) return "";
  size_t back = ptx.find("bra.uni $L_for_", head);
  return back == std::string::npos ? "" : ptx.substr(head, back - head);
}

TEST(PtxAsyncCopy, PtxasKeepsTheWgmmaPipelines) {
  if (ptxtest::ptxasPath().empty()) GTEST_SKIP() << "no CUDA toolkit (ptxas) on this machine";
  auto source = librarySource;
  struct Case {
    std::string file, kernel, sig;
    int warps;
  } cases[] = {
      {"matmul.py", "matmul_kernel",
       "*fp16:16, *fp16:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, stride_ak=1, i32:16, stride_bn=1, i32:16, "
       "stride_cn=1, BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, GROUP_M=8",
       8},
      {"attention.py", "attention_fwd",
       "*bf16:16, *bf16:16, *bf16:16, *bf16:16, fp32, i32, HEAD_DIM=64, BLOCK_M=128, BLOCK_N=64, CAUSAL=0", 4},
      {"attention.py", "attention_fwd",
       "*bf16:16, *bf16:16, *bf16:16, *bf16:16, fp32, i32, HEAD_DIM=128, BLOCK_M=128, BLOCK_N=64, CAUSAL=1", 8},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file + " " + std::to_string(c.warps) + " warps");
    gpu::PtxKernel k = ptxtest::compile(source(c.file), c.kernel, c.sig, c.warps, "sm_90a");
    ASSERT_NE(k.ptx.find("wgmma.mma_async"), std::string::npos);
    std::string report = ptxtest::assemblerReport(k, "sm_90a");
    EXPECT_EQ(report.find("ptxas failed"), std::string::npos) << report;
    EXPECT_EQ(report.find("serialized"), std::string::npos) << report;
    EXPECT_EQ(report.find("injected"), std::string::npos) << report;
  }
}

// Attention's loop, at one warpgroup and two: P @ V is issued
// asynchronously and its deferred wait lands right after Q K^T's own
// wait for all groups, where the emitter drops it. So the loop body has two
// wgmma commits and one wait, and it does no wait right after P @ V's
// commit. exp2 is the one-instruction ex2.approx.ftz.f32 (Triton's). With
// its K and V tiles copied by cp.async: by TMA, the loop gets a producer
// warpgroup (PtxWarpSpecialize*).
TEST(PtxAsyncCopy, AttentionLoopWaitsOncePerIteration) {
  for (int d : {64, 128}) {
    int warps = d == 64 ? 4 : 8;
    SCOPED_TRACE("head_dim " + std::to_string(d));
    std::string sig = "*bf16:16, *bf16:16, *bf16:16, *bf16:16, fp32, i32, HEAD_DIM=" + std::to_string(d) +
                      ", BLOCK_M=128, BLOCK_N=64, CAUSAL=0";
    gpu::PtxKernel k =
        ptxtest::compile(librarySource("attention.py"), "attention_fwd", sig, warps, "sm_90a", /*pointerTma=*/false);
    std::string body = firstLoopBody(k.ptx);
    ASSERT_FALSE(body.empty()) << k.ptx;
    auto count = [&](const std::string& what) { return occurrences(body, what); };
    EXPECT_EQ(count("wgmma.commit_group.sync.aligned"), 2) << body;
    EXPECT_EQ(count("wgmma.wait_group.sync.aligned"), 1) << body;
    size_t lastCommit = body.rfind("wgmma.commit_group.sync.aligned");
    EXPECT_EQ(body.find("wgmma.wait_group", lastCommit), std::string::npos) << "P @ V is waited for in its iteration";
    EXPECT_GT(count("ex2.approx.ftz.f32"), 0) << body;
    EXPECT_EQ(count("ex2.approx.f32"), 0) << body;
  }
}

// sm_80: the matmul loop feeds mma.sync from cp.async stages. Its body
// copies the tiles of a later iteration (16-byte cp.async.cg: A 128 x 32
// and B 32 x 128 fp16 over 128 threads are 4 vectors each), reads this
// iteration's fragments with ldmatrix (A: 2 x4 per warp tile row of 16, B
// transposed: row-major B has N contiguous), and loads nothing from global
// memory itself. ptxas takes it for sm_80.
TEST(PtxAsyncCopy, MmaSyncMatmulLoopReadsStagesWithLdmatrix) {
  std::string sig =
      "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, stride_ak=1, i32:16, stride_bn=1, i32:16, "
      "stride_cn=1, BLOCK_M=128, BLOCK_N=128, BLOCK_K=32, GROUP_M=8";
  gpu::PtxKernel k = ptxtest::compile(librarySource("matmul.py"), "matmul_kernel", sig, 4, "sm_80");
  std::string body = firstLoopBody(k.ptx);
  ASSERT_FALSE(body.empty()) << k.ptx;
  auto count = [&](const std::string& what) { return occurrences(body, what); };
  EXPECT_EQ(count("cp.async.cg.shared.global"), 8) << body;
  EXPECT_EQ(count("cp.async.wait_group"), 1) << body;
  EXPECT_EQ(count("ld.global"), 0) << body;
  EXPECT_GT(count("ldmatrix.sync.aligned.m8n8.x4.shared.b16"), 0) << body;
  EXPECT_GT(count("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"), 0) << body;
  EXPECT_GT(count("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"), 0) << body;
  EXPECT_EQ(count("st.shared"), 0) << "the operands reach shared memory by cp.async only";
  if (ptxtest::ptxasPath().empty()) return;
  std::string report = ptxtest::assemblerReport(k, "sm_80");
  EXPECT_EQ(report.find("ptxas failed"), std::string::npos) << report;
}

}  // namespace
}  // namespace tessera
