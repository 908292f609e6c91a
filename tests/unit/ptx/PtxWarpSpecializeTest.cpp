//===- PtxWarpSpecializeTest.cpp - A producer warpgroup for TMA pipelines --===//
//
// pipeline-dot-loops gives a TMA pipeline's copies to a producer warpgroup
// (ttng.warp_specialize) when the loop runs more than one wgmma dot
// (attention) or tl.range(..., warp_specialize=True) asks for it, and not
// with warp_specialize=False or in a loop nested two deep (one loop deep,
// a persistent loop, the producer runs its own copy of the outer loop). The PTX launches 4 more
// warps, moves registers to the consumers with setmaxnreg (within the
// launch's .maxnreg), and the consumers' barriers are named barrier 1 of
// their own threads; at 8 warps the two consumer warpgroups take turns
// on named barriers 2 and 3 (ping-pong). On the GPU: tests/gpu/run (KernelLibrary attention,
// descriptor form) and bench_attention.
//
//===----------------------------------------------------------------------===//

#include <regex>

#include "PtxTestUtil.h"

namespace tessera {
namespace {

struct Options {
  int warps = 4, stages = 3, maxnreg = 0;
};

gpu::PtxKernel compileWith(const std::string& src, const std::string& kernel, const std::string& sig, Options opts) {
  auto prog = ptxtest::load(src);
  frontend::CompileOptions o;
  o.numWarps = opts.warps;
  frontend::CompileResult r = prog->compile(kernel, ptxtest::parseSpecs(sig), o);
  transforms::runTileIRPipeline(*r.module);
  gpu::GpuOptions g;
  g.numWarps = opts.warps;
  g.numStages = opts.stages;
  g.maxNumRegisters = opts.maxnreg;
  g.target = gpu::Target::parse("sm_90a");
  return ptx::compileToPtx(*r.module, r.kernelName, g);
}

using ptxtest::has;
using ptxtest::librarySource;

/// The PTX after the producer's branch: what the kernel's own warps run.
std::string consumerCode(const std::string& ptx) {
  size_t at = ptx.find("\n$L_consumers_");
  return at == std::string::npos ? "" : ptx.substr(at);
}

const char* kAttentionSig = "*bf16:16, *bf16:16, *bf16:16, *bf16:16, fp32, i32, HEAD_DIM=%d, BLOCK_M=128, "
                            "BLOCK_N=%d, CAUSAL=%d";

std::string attentionSig(int headDim, int blockN, int causal) {
  char buf[256];
  std::snprintf(buf, sizeof buf, kAttentionSig, headDim, blockN, causal);
  return buf;
}

// The library's descriptor attention as the H100 runs it: 8 warps at
// head_dim 128 (168 registers at launch, 40 for the producer, 232 for
// the two consumer warpgroups), 4 at 64 (two CTAs per multiprocessor:
// 128 at launch, 216 for the one consumer warpgroup).
TEST(PtxWarpSpecialize, AttentionGetsAProducerWarpgroup) {
  struct Case {
    int headDim, blockN, causal, warps, stages, launch, consumer;
  } cases[] = {{128, 128, 0, 8, 2, 168, 232}, {128, 128, 1, 8, 2, 168, 232}, {64, 64, 1, 4, 3, 128, 216}};
  for (const Case& c : cases) {
    SCOPED_TRACE("head_dim " + std::to_string(c.headDim) + " causal " + std::to_string(c.causal));
    gpu::PtxKernel k = compileWith(librarySource("attention.py"), "attention_fwd_descriptor",
                                   attentionSig(c.headDim, c.blockN, c.causal), {c.warps, c.stages, 0});
    EXPECT_EQ(k.numWarps, c.warps + 4);
    EXPECT_TRUE(has(k.ptx, ".maxntid " + std::to_string(32 * (c.warps + 4)) + ", 1, 1"));
    EXPECT_TRUE(has(k.ptx, ".maxnreg " + std::to_string(c.launch)));
    EXPECT_TRUE(has(k.ptx, "setmaxnreg.dec.sync.aligned.u32 40;"));
    EXPECT_TRUE(has(k.ptx, "setmaxnreg.inc.sync.aligned.u32 " + std::to_string(c.consumer) + ";"));
    std::string consumers = consumerCode(k.ptx);
    ASSERT_FALSE(consumers.empty());
    EXPECT_TRUE(has(consumers, "bar.sync 1, " + std::to_string(32 * c.warps) + ";"));
    EXPECT_FALSE(has(consumers, "bar.sync 0;"));
    // The producer's copies are issued before the consumers' code; the
    // consumers release stages.
    // Ping-pong at 8 warps: warpgroup 1 gives warpgroup 0 the first turn
    // on named barrier 2; each loop takes turns (bar.sync of its own
    // barrier, bar.arrive of the other's).
    EXPECT_EQ(has(consumers, "bar.arrive 2, 256;"), c.warps == 8);
    EXPECT_EQ(has(consumers, "bar.arrive %r"), c.warps == 8);
    std::string producer = k.ptx.substr(0, k.ptx.size() - consumers.size());
    // 3-D: the descriptors of all heads, each program at its head (PtxTensorMaps).
    EXPECT_TRUE(has(producer, "cp.async.bulk.tensor.3d"));
    // Its one thread guards them with elect.sync (lane 0 of its warp), so
    // ptxas takes their operands as one lane's, without a loop over lanes.
    std::smatch elect;
    ASSERT_TRUE(std::regex_search(producer, elect, std::regex(R"(elect\.sync _\|(%p\d+), 1;)")));
    EXPECT_TRUE(has(producer, ", " + elect[1].str() + ";\n"));  // and.pred of a copy's predicate
    EXPECT_TRUE(has(consumers, "mbarrier.arrive.shared::cta.b64"));
    if (ptxtest::ptxasPath().empty()) continue;
    std::string report = ptxtest::assemblerReport(k, "sm_90a");
    EXPECT_FALSE(has(report, "ptxas failed")) << report;
    EXPECT_TRUE(has(report, " 0 bytes spill stores")) << report;
    EXPECT_FALSE(has(report, "serialized")) << report;
  }
}

// At 4 warps the consumers' 216 registers are for two CTAs per
// multiprocessor; stages that keep the second CTA out of shared memory
// (d=64 on 128-key blocks: 146 KiB) leave every thread the launch's 255.
TEST(PtxWarpSpecialize, OneCtaOfFourWarpsKeepsItsRegisters) {
  gpu::PtxKernel k = compileWith(librarySource("attention.py"), "attention_fwd_descriptor", attentionSig(64, 128, 0),
                                 {4, 3, 0});
  EXPECT_EQ(k.numWarps, 8);
  EXPECT_GT(k.sharedBytes, 114 * 1024);
  EXPECT_FALSE(has(k.ptx, "setmaxnreg"));
  EXPECT_FALSE(has(k.ptx, ".maxnreg"));
}

int occurrences(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The causal form's two loops (whole key blocks, then the masked diagonal
// block) stage the same tiles: the second continues the first's ring of
// stages with the same producer, which fills it while the consumers finish
// the first loop. One set of stages and barriers, invalidated once; each
// loop releases the stage its last dot held after the loop.
TEST(PtxWarpSpecialize, TheCausalLoopsShareOneRing) {
  gpu::PtxKernel k = compileWith(librarySource("attention.py"), "attention_fwd_descriptor", attentionSig(128, 128, 1),
                                 {8, 2, 0});
  EXPECT_EQ(occurrences(k.ttgir, "ttng.warp_specialize"), 1);
  EXPECT_EQ(occurrences(k.ttgir, "ttng.init_barriers"), 2);
  EXPECT_EQ(occurrences(k.ttgir, "ttng.inval_barriers"), 2);
  int stageBuffers = 0;
  std::istringstream lines(k.ttgir);
  for (std::string line; std::getline(lines, line);)
    stageBuffers += has(line, "ttg.local_alloc {offset = ") && has(line, ": tensor<3x128x128xbf16");
  EXPECT_EQ(stageBuffers, 2);
  EXPECT_EQ(occurrences(k.ttgir, "ttng.arrive_barrier"), 4);
  EXPECT_EQ(occurrences(k.ttgir, "scf.for"), 4);  // the producer's two loops, the consumers' two
  // Ping-pong: one first turn, then for each loop a wait before it and
  // before P V, a pass after Q K^T's issue and after the loop.
  EXPECT_EQ(occurrences(k.ttgir, "ttng.ping_pong {step = \"start\"}"), 1);
  EXPECT_EQ(occurrences(k.ttgir, "ttng.ping_pong {step = \"wait\"}"), 4);
  EXPECT_EQ(occurrences(k.ttgir, "ttng.ping_pong {step = \"pass\"}"), 4);
  std::string consumers = consumerCode(k.ptx);
  EXPECT_FALSE(has(consumers, "cp.async.bulk.tensor"));
  EXPECT_FALSE(has(consumers, "mbarrier.init"));
}

const char* kMatmulLoop = R"(
import triton
import triton.language as tl

@triton.jit
def mm(a_ptr, b_ptr, c_ptr, M, N, K, WS: tl.constexpr, NESTED: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [64, 32])
    b_desc = tl.make_tensor_descriptor(b_ptr, [K, N], [N, 1], [32, 128])
    acc = tl.zeros([64, 128], dtype=tl.float32)
    if NESTED == 2:
        for rep in range(0, 2):
            for rep2 in range(0, 2):
                for k in tl.range(0, K, 32, warp_specialize=WS):
                    acc = tl.dot(a_desc.load([0, k]), b_desc.load([k, 0]), acc)
    elif NESTED == 1:
        for rep in range(0, 2):
            for k in tl.range(0, K, 32, warp_specialize=WS):
                acc = tl.dot(a_desc.load([0, k]), b_desc.load([k, 0]), acc)
    else:
        for k in tl.range(0, K, 32, warp_specialize=WS):
            acc = tl.dot(a_desc.load([0, k]), b_desc.load([k, 0]), acc)
    tl.store(c_ptr + tl.arange(0, 64)[:, None] * 128 + tl.arange(0, 128)[None, :], acc)
)";

const char* kMatmulSig = "*fp16:16, *fp16:16, *fp32:16, i32:16, i32:16, i32:16, WS=%d, NESTED=%d";

std::string matmulSig(int ws, int nested) {
  char buf[128];
  std::snprintf(buf, sizeof buf, kMatmulSig, ws, nested);
  return buf;
}

// A one-dot loop gets a producer only when it asks; so does one in a loop
// of the kernel's entry block (a persistent loop: the producer runs its
// own copy of it), but not one nested deeper, which stays a pipeline of
// the kernel's own warps.
TEST(PtxWarpSpecialize, OnlyWhenAskedAndAtMostOneLoopDeep) {
  gpu::PtxKernel asked = compileWith(kMatmulLoop, "mm", matmulSig(1, 0), {});
  EXPECT_EQ(asked.numWarps, 8);
  EXPECT_TRUE(has(asked.ptx, "setmaxnreg.inc.sync.aligned.u32 216;"));
  gpu::PtxKernel plain = compileWith(librarySource("matmul.py"), "matmul_kernel_descriptor",
                                     "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, stride_ak=1, i32:16, "
                                     "stride_bn=1, i32:16, stride_cn=1, BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, GROUP_M=8",
                                     {8, 3, 0});
  EXPECT_EQ(plain.numWarps, 8);
  EXPECT_FALSE(has(plain.ptx, "setmaxnreg"));
  EXPECT_TRUE(has(plain.ptx, "cp.async.bulk.tensor.2d"));
  gpu::PtxKernel persistent = compileWith(kMatmulLoop, "mm", matmulSig(1, 1), {});
  EXPECT_EQ(persistent.numWarps, 8);
  EXPECT_TRUE(has(persistent.ptx, "setmaxnreg.inc.sync.aligned.u32 216;"));
  gpu::PtxKernel nested = compileWith(kMatmulLoop, "mm", matmulSig(1, 2), {});
  EXPECT_EQ(nested.numWarps, 4);
  EXPECT_FALSE(has(nested.ptx, "setmaxnreg"));
  EXPECT_TRUE(has(nested.ptx, "cp.async.bulk.tensor.2d"));
  EXPECT_TRUE(has(nested.ptx, "bar.sync 0;"));
  if (ptxtest::ptxasPath().empty()) return;
  EXPECT_EQ(ptxtest::assemble(asked, "sm_90a"), "");
  EXPECT_EQ(ptxtest::assemble(persistent, "sm_90a"), "");
  EXPECT_EQ(ptxtest::assemble(nested, "sm_90a"), "");
}

const char* kPersistentAttentionSig = "*bf16:16, *bf16:16, *bf16:16, *bf16:16, fp32, i32:16, i32, HEAD_DIM=%d, "
                                      "BLOCK_M=128, BLOCK_N=%d, CAUSAL=%d";

// The persistent attention (kernels/attention.py): the producer runs its
// own copy of the loop over tiles, around its copies of the two key loops,
// and its ring of stages goes on from tile to tile, as the consumers' does
// (carried by both persistent loops). One set of stages and barriers, made
// before the loop and invalidated after it; the per-head descriptors are
// 3-D parameters the launch encodes, the head (a quotient of the tile
// index, >= 0 by the kernel's tl.assume) the outer coordinate.
TEST(PtxWarpSpecialize, PersistentAttentionKeepsOneRingAcrossTiles) {
  struct Case {
    int headDim, blockN, causal, warps, stages;
  } cases[] = {{128, 128, 0, 8, 2}, {128, 128, 1, 8, 2}, {64, 64, 0, 4, 3}};
  for (const Case& c : cases) {
    SCOPED_TRACE("head_dim " + std::to_string(c.headDim) + " causal " + std::to_string(c.causal));
    char sig[256];
    std::snprintf(sig, sizeof sig, kPersistentAttentionSig, c.headDim, c.blockN, c.causal);
    gpu::PtxKernel k = compileWith(librarySource("attention.py"), "attention_fwd_persistent", sig, {c.warps, c.stages, 0});
    EXPECT_EQ(k.numWarps, c.warps + 4);
    EXPECT_EQ(occurrences(k.ttgir, "ttng.warp_specialize"), 1);
    EXPECT_EQ(occurrences(k.ttgir, "scf.for"), 6);  // each side: the tiles' loop around the two key loops
    EXPECT_EQ(occurrences(k.ttgir, "ttng.init_barriers"), 2);
    EXPECT_EQ(occurrences(k.ttgir, "ttng.inval_barriers"), 2);
    EXPECT_EQ(occurrences(k.ttgir, "ttng.arrive_barrier"), 4);
    EXPECT_EQ(occurrences(k.ttgir, "ttng.ping_pong {step = \"start\"}"), c.warps == 8 ? 1 : 0);
    // The stages are allocated and the barriers invalidated outside the loops.
    size_t firstLoop = k.ttgir.find("scf.for"), lastYield = k.ttgir.rfind("scf.yield");
    EXPECT_LT(k.ttgir.find("ttng.init_barriers"), firstLoop);
    EXPECT_GT(k.ttgir.find("ttng.inval_barriers"), lastYield);
    std::string consumers = consumerCode(k.ptx);
    ASSERT_FALSE(consumers.empty());
    std::string producer = k.ptx.substr(0, k.ptx.size() - consumers.size());
    EXPECT_TRUE(has(producer, "cp.async.bulk.tensor.3d"));
    EXPECT_FALSE(has(consumers, "cp.async.bulk.tensor"));
    EXPECT_FALSE(has(k.ptx, "tensormap.replace"));
    if (ptxtest::ptxasPath().empty()) continue;
    std::string report = ptxtest::assemblerReport(k, "sm_90a");
    EXPECT_FALSE(has(report, "ptxas failed")) << report;
    // The causal kernel at 168 registers spills 4 bytes (outside the key loops).
    if (!c.causal) {
      EXPECT_TRUE(has(report, " 0 bytes spill stores")) << report;
    }
  }
}

// In a persistent loop the producer copies the next tile's blocks while
// the kernel's warps store this one's: a store through the pointer
// argument the copies read keeps the copies on the kernel's warps.
TEST(PtxWarpSpecialize, PersistentLoopStoringWhatItCopies) {
  const char* src = R"(
import triton
import triton.language as tl

@triton.jit
def mm(a_ptr, b_ptr, c_ptr, M, N, K, SAME: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [64, 32])
    b_desc = tl.make_tensor_descriptor(b_ptr, [K, N], [N, 1], [32, 128])
    for tile in range(tl.program_id(0), 4, tl.num_programs(0)):
        acc = tl.zeros([64, 128], dtype=tl.float32)
        for k in tl.range(0, K, 32, warp_specialize=True):
            acc = tl.dot(a_desc.load([0, k]), b_desc.load([k, 0]), acc)
        out = c_ptr
        if SAME:
            out = b_ptr
        tl.store(out + tile * 8192 + tl.arange(0, 64)[:, None] * 128 + tl.arange(0, 128)[None, :], acc.to(tl.float16))
)";
  for (int same : {0, 1}) {
    gpu::PtxKernel k = compileWith(src, "mm", "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, SAME=" +
                                                  std::to_string(same), {});
    EXPECT_EQ(k.numWarps, same ? 4 : 8) << "SAME=" << same;
    EXPECT_TRUE(has(k.ptx, "cp.async.bulk.tensor.2d"));
  }
}

// The producer copies from the kernel's start: a loop after a global
// write (which its tiles might read) keeps its copies on the kernel's warps.
TEST(PtxWarpSpecialize, NotAfterAGlobalWrite) {
  const char* src = R"(
import triton
import triton.language as tl

@triton.jit
def mm(a_ptr, b_ptr, c_ptr, M, N, K):
    tl.store(a_ptr + tl.arange(0, 32), tl.zeros([32], dtype=tl.float16))
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [64, 32])
    b_desc = tl.make_tensor_descriptor(b_ptr, [K, N], [N, 1], [32, 128])
    acc = tl.zeros([64, 128], dtype=tl.float32)
    for k in tl.range(0, K, 32, warp_specialize=True):
        acc = tl.dot(a_desc.load([0, k]), b_desc.load([k, 0]), acc)
    tl.store(c_ptr + tl.arange(0, 64)[:, None] * 128 + tl.arange(0, 128)[None, :], acc)
)";
  gpu::PtxKernel k = compileWith(src, "mm", "*fp16:16, *fp16:16, *fp32:16, i32:16, i32:16, i32:16", {});
  EXPECT_EQ(k.numWarps, 4);
  EXPECT_FALSE(has(k.ptx, "setmaxnreg"));
  EXPECT_TRUE(has(k.ptx, "cp.async.bulk.tensor.2d"));
}

// warp_specialize=False keeps a two-dot loop (attention's shape) on the
// kernel's own warps.
TEST(PtxWarpSpecialize, FalseKeepsItOff) {
  const char* src = R"(
import triton
import triton.language as tl

@triton.jit
def mm(q_ptr, k_ptr, v_ptr, o_ptr, N, WS: tl.constexpr):
    k_desc = tl.make_tensor_descriptor(k_ptr, [N, 64], [64, 1], [64, 64])
    v_desc = tl.make_tensor_descriptor(v_ptr, [N, 64], [64, 1], [64, 64])
    offs = tl.arange(0, 64)
    q = tl.load(q_ptr + offs[:, None] * 64 + offs[None, :])
    acc = tl.zeros([64, 64], dtype=tl.float32)
    for s in tl.range(0, N, 64, warp_specialize=WS):
        p = tl.dot(q, k_desc.load([s, 0]).T)
        acc = tl.dot(p.to(tl.float16), v_desc.load([s, 0]), acc)
    tl.store(o_ptr + offs[:, None] * 64 + offs[None, :], acc)
)";
  for (int ws : {0, 1}) {
    gpu::PtxKernel k = compileWith(src, "mm", "*fp16:16, *fp16:16, *fp16:16, *fp32:16, i32:16, WS=" + std::to_string(ws),
                                   {});
    EXPECT_EQ(k.numWarps, ws ? 8 : 4) << "warp_specialize=" << ws;
    EXPECT_EQ(has(k.ptx, "setmaxnreg"), ws == 1);
  }
}

// An explicit register limit (triton.Config maxnreg) leaves the register
// pool alone: setmaxnreg.inc would wait forever for registers a launch at
// that limit does not have.
TEST(PtxWarpSpecialize, ExplicitMaxnregKeepsTheRegisterPool) {
  gpu::PtxKernel k = compileWith(kMatmulLoop, "mm", matmulSig(1, 0), {4, 3, 128});
  EXPECT_EQ(k.numWarps, 8);
  EXPECT_FALSE(has(k.ptx, "setmaxnreg"));
  EXPECT_TRUE(has(k.ptx, ".maxnreg 128"));
}

}  // namespace
}  // namespace tessera
