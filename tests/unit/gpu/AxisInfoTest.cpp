//===- AxisInfoTest.cpp - Contiguity / divisibility / constancy analysis ---===//
//
// Three kinds of cases:
//  * Triton-language kernels (vector add, 2-D tiles, masks, hints, loops,
//    branches) compiled by the frontend and the Tile IR pipeline, as the GPU
//    backend sees them; the expected facts are derived by hand in the
//    comments from the rules in AxisInfo.h / Triton's AxisInfo.
//  * Text IR for single rules that kernels rarely reach (shifts, masks with
//    and, division, select, trans, reshape, scf.while, pointer casts).
//  * Soundness against an independent reference: random straight-line
//    integer programs are evaluated on random inputs that satisfy the
//    specialization, and every fact the analysis claims is checked on the
//    concrete values (aligned groups really are contiguous / constant, group
//    starts really are multiples).
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "../frontend/TestUtil.h"
#include "GpuTestUtil.h"
#include "tessera/gpu/AxisInfo.h"
#include "tessera/transforms/Passes.h"

namespace tessera::gpu {
namespace {

using ir::OpCode;
using ir::Operation;
using ir::Value;
using V = std::vector<int64_t>;
constexpr int64_t kMax = AxisInfo::kMaxDivisor;

/// A module, its kernel and the analysis of the kernel.
struct Analyzed {
  std::unique_ptr<ir::Module> module;
  Operation* func = nullptr;
  std::unique_ptr<AxisInfoAnalysis> axis;

  /// The n-th op (walk order) with this opcode.
  Operation* op(OpCode code, int n = 0) const { return test::nthOp(func, code, n); }
  const AxisInfo& info(Value v) const { return axis->get(v); }
  const AxisInfo& result(OpCode code, int n = 0) const { return axis->get(op(code, n)->result(0)); }
};

Analyzed analyzeKernel(const std::string& src, const std::string& kernel, const std::string& sig) {
  auto prog = frontend::test::load(src);
  frontend::CompileResult r = prog->compile(kernel, frontend::test::parseSpecs(sig), {});
  transforms::runTileIRPipeline(*r.module);
  Analyzed a;
  a.module = std::move(r.module);
  a.func = a.module->lookup(r.kernelName);
  a.axis = std::make_unique<AxisInfoAnalysis>(a.func);
  return a;
}

Analyzed analyzeText(const std::string& text) {
  Analyzed a;
  a.module = ir::parseModule(text);
  a.func = a.module->functions().front();
  a.axis = std::make_unique<AxisInfoAnalysis>(a.func);
  return a;
}

/// Compares all three vectors (and prints the IR when they differ).
void expectInfo(const Analyzed& a, const AxisInfo& got, V contiguity, V divisibility, V constancy) {
  AxisInfo want;
  want.contiguity = std::move(contiguity);
  want.divisibility = std::move(divisibility);
  want.constancy = std::move(constancy);
  EXPECT_EQ(got.str(), want.str()) << ir::print(a.func);
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

const char* kVectorAdd = R"(
import triton
import triton.language as tl

@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)

@triton.jit
def shifted(x_ptr, out_ptr, n, SHIFT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs + SHIFT, mask=offs < n)
    tl.store(out_ptr + offs, x, mask=offs < n)
)";

// offsets = pid * 1024 + arange(1024): pid * 1024 is divisible by 1024, the
// range is contiguous from 0 -> contiguity 1024, divisibility gcd(1024, 2^30).
// x_ptr + offsets: bytes gcd(16, 1024 * 4) = 16, still 1024 contiguous.
// offsets < n with n % 16 == 0: runs of gcd(1024, 1024, 16) = 16 agree.
TEST(AxisInfoKernel, VectorAddSpecialized) {
  Analyzed a = analyzeKernel(kVectorAdd, "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32:16, BLOCK_SIZE=1024");
  expectInfo(a, a.result(OpCode::AddI), {1024}, {1024}, {1});
  Operation* load = a.op(OpCode::Load);
  expectInfo(a, a.info(load->operand(0)), {1024}, {16}, {1});
  expectInfo(a, a.info(load->operand(1)), {1}, {1}, {16});
  EXPECT_EQ(a.axis->vectorElements(load->operand(0), 0), 4);  // 16 bytes of f32
  EXPECT_EQ(a.axis->maskConstancy(load->operand(1), 0), 16);
  Operation* store = a.op(OpCode::Store);
  EXPECT_EQ(a.axis->vectorElements(store->operand(0), 0), 4);
  EXPECT_EQ(a.axis->maskConstancy(store->operand(2), 0), 16);
  EXPECT_EQ(a.axis->maskConstancy(Value(), 0), kMax);  // no mask
}

// n not known divisible: the mask may change at any element; pointers not
// known aligned: divisibility 1 byte, one f32 per access.
TEST(AxisInfoKernel, VectorAddUnspecialized) {
  Analyzed a = analyzeKernel(kVectorAdd, "add_kernel", "*fp32, *fp32:16, *fp32:16, i32, BLOCK_SIZE=256");
  Operation* load = a.op(OpCode::Load);
  expectInfo(a, a.info(load->operand(0)), {256}, {1}, {1});
  expectInfo(a, a.info(load->operand(1)), {1}, {1}, {1});
  EXPECT_EQ(a.axis->vectorElements(load->operand(0), 0), 1);
  EXPECT_EQ(a.axis->maskConstancy(load->operand(1), 0), 1);
  Operation* load2 = a.op(OpCode::Load, 1);  // y_ptr is aligned
  EXPECT_EQ(a.axis->vectorElements(load2->operand(0), 0), 4);
}

// x_ptr + offs + SHIFT: the byte divisibility is gcd(16, 4 * SHIFT) for f32
// and gcd(16, 2 * SHIFT) for f16.
TEST(AxisInfoKernel, ShiftedAccessLimitsAlignment) {
  struct Case {
    const char* sig;
    int64_t bytes, vec;
  };
  for (const Case& c : {Case{"*fp32:16, *fp32:16, i32:16, SHIFT=3, BLOCK=128", 4, 1},
                        Case{"*fp32:16, *fp32:16, i32:16, SHIFT=6, BLOCK=128", 8, 2},
                        Case{"*fp32:16, *fp32:16, i32:16, SHIFT=12, BLOCK=128", 16, 4},
                        Case{"*fp16:16, *fp16:16, i32:16, SHIFT=12, BLOCK=128", 8, 4},
                        Case{"*fp16:16, *fp16:16, i32:16, SHIFT=40, BLOCK=128", 16, 8}}) {
    SCOPED_TRACE(c.sig);
    Analyzed a = analyzeKernel(kVectorAdd, "shifted", c.sig);
    Value ptr = a.op(OpCode::Load)->operand(0);
    expectInfo(a, a.info(ptr), {128}, {c.bytes}, {1});
    EXPECT_EQ(a.axis->vectorElements(ptr, 0), c.vec);
  }
}

const char* kTile2D = R"(
import triton
import triton.language as tl

@triton.jit
def copy2d(src, dst, M, N, stride_m, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ptrs = src + offs_m[:, None] * stride_m + offs_n[None, :]
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    x = tl.load(ptrs, mask=mask)
    tl.store(dst + offs_m[:, None] * stride_m + offs_n[None, :], x, mask=mask)
)";

// offs_m[:, None]: contiguity [32, 1], divisibility [32, 1] (the new dim's
// elements are all the values: the range's run starts say nothing of them).
// * stride (16 | stride): dim 0 per element 1 * 16, dim 1 1 * 16 -> [16, 16].
// src + that (f16): bytes gcd(16, 2 * 16) = 16 in both dims.
// offs_n[None, :] broadcast: contiguity [1, 64], divisibility [1, 64].
// ptrs = [32,1]-broadcast + that: dim 1 contiguous by 64 (the lhs is constant
// along it), divisibility gcd(16, 2 * 64) = 16; dim 0 gcd(16, 2 * 1) = 2.
TEST(AxisInfoKernel, Tile2DPointers) {
  Analyzed a = analyzeKernel(kTile2D, "copy2d", "*fp16:16, *fp16:16, i32:16, i32:16, i32:16, BLOCK_M=32, BLOCK_N=64");
  expectInfo(a, a.result(OpCode::ExpandDims, 0), {32, 1}, {32, 1}, {1, 1});
  expectInfo(a, a.result(OpCode::MulI, 2), {1, 1}, {16, 16}, {1, 1});
  Operation* load = a.op(OpCode::Load);
  expectInfo(a, a.info(load->operand(0)), {1, 64}, {2, 16}, {1, 1});
  EXPECT_EQ(a.axis->vectorElements(load->operand(0), 1), 8);  // 16 bytes of f16
  EXPECT_EQ(a.axis->vectorElements(load->operand(0), 0), 1);
  Operation* store = a.op(OpCode::Store);
  expectInfo(a, a.info(store->operand(0)), {1, 64}, {2, 16}, {1, 1});
}

// (offs_m[:, None] < M): dim 0 runs of gcd(32, 32, 16) = 16 when 16 | M,
// constant along dim 1 after the broadcast (64); (offs_n[None, :] < N) the
// same transposed. The and keeps the gcd of both.
TEST(AxisInfoKernel, Tile2DMasks) {
  {
    Analyzed a = analyzeKernel(kTile2D, "copy2d", "*fp16:16, *fp16:16, i32:16, i32:16, i32:16, BLOCK_M=32, BLOCK_N=64");
    Value mask = a.op(OpCode::Load)->operand(1);
    expectInfo(a, a.info(mask), {1, 1}, {1, 1}, {16, 16});
    EXPECT_EQ(a.axis->maskConstancy(mask, 1), 16);
  }
  {
    // N not divisible: along dim 1 the mask may change at any element.
    Analyzed a = analyzeKernel(kTile2D, "copy2d", "*fp16:16, *fp16:16, i32:16, i32, i32:16, BLOCK_M=32, BLOCK_N=64");
    Value mask = a.op(OpCode::Load)->operand(1);
    expectInfo(a, a.info(mask), {1, 1}, {1, 1}, {16, 1});
    EXPECT_EQ(a.axis->maskConstancy(mask, 1), 1);
    EXPECT_EQ(a.axis->maskConstancy(mask, 0), 16);
  }
  {
    // Stride not divisible: each row starts anywhere; dim 1 stays contiguous
    // but only 2-byte aligned.
    Analyzed a = analyzeKernel(kTile2D, "copy2d", "*fp16:16, *fp16:16, i32:16, i32:16, i32, BLOCK_M=16, BLOCK_N=128");
    Value ptr = a.op(OpCode::Load)->operand(0);
    expectInfo(a, a.info(ptr), {1, 128}, {2, 2}, {1, 1});
    EXPECT_EQ(a.axis->vectorElements(ptr, 1), 1);
  }
}

const char* kHints = R"(
import triton
import triton.language as tl

@triton.jit
def gather(x_ptr, idx_ptr, out_ptr, BLOCK: tl.constexpr, HINT: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    idx = tl.load(idx_ptr + offs)
    if HINT:
        idx = tl.max_contiguous(tl.multiple_of(idx, 16), 16)
    x = tl.load(x_ptr + idx)
    tl.store(out_ptr + offs, x)

@triton.jit
def start_at(x_ptr, out_ptr, start, BLOCK: tl.constexpr, HINT: tl.constexpr):
    offs = start + tl.arange(0, BLOCK)
    if HINT:
        offs = tl.multiple_of(offs, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs))

@triton.jit
def rows(x_ptr, out_ptr, row, BLOCK: tl.constexpr):
    r = tl.max_constancy(row // 4 + tl.zeros([BLOCK], dtype=tl.int32) + tl.arange(0, BLOCK) // 8, 8)
    tl.store(out_ptr + tl.arange(0, BLOCK), tl.load(x_ptr + r))
)";

// Loaded indices are unknown; the hints promise runs of 16 starting at
// multiples of 16 -> x_ptr + idx is 16-contiguous and 64-byte... gcd(16, 4 *
// 16) = 16 aligned.
TEST(AxisInfoKernel, MultipleOfAndMaxContiguousHints) {
  Analyzed plain = analyzeKernel(kHints, "gather", "*fp32:16, *i32:16, *fp32:16, BLOCK=128, HINT=False");
  Value p0 = plain.op(OpCode::Load, 1)->operand(0);
  expectInfo(plain, plain.info(p0), {1}, {4}, {1});  // gcd(16, 4 * 1)
  EXPECT_EQ(plain.axis->vectorElements(p0, 0), 1);

  Analyzed hinted = analyzeKernel(kHints, "gather", "*fp32:16, *i32:16, *fp32:16, BLOCK=128, HINT=True");
  expectInfo(hinted, hinted.result(OpCode::Hint, 1), {16}, {16}, {1});
  Value p1 = hinted.op(OpCode::Load, 1)->operand(0);
  expectInfo(hinted, hinted.info(p1), {16}, {16}, {1});
  EXPECT_EQ(hinted.axis->vectorElements(p1, 0), 4);
}

// start + arange(128) is contiguous but starts anywhere (divisibility 1, so
// 4-byte aligned pointers); tl.multiple_of(offs, 128) fixes the start.
TEST(AxisInfoKernel, MultipleOfOnContiguousRange) {
  Analyzed plain = analyzeKernel(kHints, "start_at", "*fp32:16, *fp32:16, i32, BLOCK=128, HINT=False");
  Value p0 = plain.op(OpCode::Load)->operand(0);
  expectInfo(plain, plain.info(p0), {128}, {4}, {1});
  EXPECT_EQ(plain.axis->vectorElements(p0, 0), 1);
  Analyzed hinted = analyzeKernel(kHints, "start_at", "*fp32:16, *fp32:16, i32, BLOCK=128, HINT=True");
  Value p1 = hinted.op(OpCode::Load)->operand(0);
  expectInfo(hinted, hinted.info(p1), {128}, {16}, {1});
  EXPECT_EQ(hinted.axis->vectorElements(p1, 0), 4);
}

// arange(64) // 8 is constant over aligned runs of gcd(64, 2^30, 8) = 8 by
// itself; adding the splat of row // 4 keeps that; max_constancy(., 8) adds
// nothing new. Pointers built from it are constant in runs of 8.
TEST(AxisInfoKernel, ConstancyFromDivisionAndMaxConstancy) {
  Analyzed a = analyzeKernel(kHints, "rows", "*fp32:16, *fp32:16, i32, BLOCK=64");
  expectInfo(a, a.result(OpCode::Hint), {1}, {1}, {8});
  expectInfo(a, a.info(a.op(OpCode::Load)->operand(0)), {1}, {4}, {8});
}

const char* kLoops = R"(
import triton
import triton.language as tl

@triton.jit
def rowsum(x_ptr, out_ptr, K, STEP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    ptrs = x_ptr + offs
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(0, K, BLOCK):
        acc += tl.load(ptrs)
        ptrs += STEP
    tl.store(out_ptr + offs, acc)

@triton.jit
def by_iv(x_ptr, out_ptr, K, LB: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k in range(LB, K, BLOCK):
        acc += tl.load(x_ptr + k + offs, mask=k + offs < K)
    tl.store(out_ptr + offs, acc)
)";

// The loop-carried pointer starts 16-byte aligned and contiguous; each trip
// adds STEP elements (4 * STEP bytes). The fixpoint meets init and yield:
// STEP = 128 keeps 16 bytes; STEP = 3 gives gcd(16, 12) = 4, then
// gcd(4, 12) = 4 again (stable); STEP = 6 gives 8. Contiguity stays 128
// since the step is a splat.
TEST(AxisInfoKernel, LoopCarriedPointer) {
  struct Case {
    int step;
    int64_t bytes, vec;
  };
  for (const Case& c : {Case{128, 16, 4}, Case{3, 4, 1}, Case{6, 8, 2}}) {
    SCOPED_TRACE(c.step);
    Analyzed a = analyzeKernel(kLoops, "rowsum", "*fp32:16, *fp32:16, i32, STEP=" + std::to_string(c.step) + ", BLOCK=128");
    Value ptr = a.op(OpCode::Load)->operand(0);
    ASSERT_TRUE(ptr.isBlockArgument());
    expectInfo(a, a.info(ptr), {128}, {c.bytes}, {1});
    EXPECT_EQ(a.axis->vectorElements(ptr, 0), c.vec);
    Operation* loop = a.op(OpCode::For);
    expectInfo(a, a.info(loop->result(1)), {128}, {c.bytes}, {1});
  }
}

// k = LB + i * 64: divisible by gcd(LB's, 64). x_ptr + k is a scalar pointer
// with bytes gcd(16, 4 * that); the mask k + offs < K (K unknown) is
// constant in runs of 1.
TEST(AxisInfoKernel, InductionVariable) {
  Analyzed a = analyzeKernel(kLoops, "by_iv", "*fp32:16, *fp32:16, i32, LB=0, BLOCK=64");
  Value iv = a.op(OpCode::For)->region(0).front().argument(0);
  expectInfo(a, a.info(iv), {1}, {64}, {1});
  Value ptr = a.op(OpCode::Load)->operand(0);
  expectInfo(a, a.info(ptr), {64}, {16}, {1});
  EXPECT_EQ(a.axis->maskConstancy(a.op(OpCode::Load)->operand(1), 0), 1);

  Analyzed odd = analyzeKernel(kLoops, "by_iv", "*fp32:16, *fp32:16, i32:16, LB=5, BLOCK=64");
  Value iv2 = odd.op(OpCode::For)->region(0).front().argument(0);
  expectInfo(odd, odd.info(iv2), {1}, {1}, {1});
  Value ptr2 = odd.op(OpCode::Load)->operand(0);
  expectInfo(odd, odd.info(ptr2), {64}, {4}, {1});
  EXPECT_EQ(odd.axis->maskConstancy(odd.op(OpCode::Load)->operand(1), 0), 1);
}

const char* kModulo = R"(
import triton
import triton.language as tl

@triton.jit
def wrap(x_ptr, out_ptr, M, MOD: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if MOD == 0:
        offs = (pid * BLOCK + tl.arange(0, BLOCK)) % M
    else:
        offs = (pid * BLOCK + tl.arange(0, BLOCK)) % MOD
    tl.store(out_ptr + tl.arange(0, BLOCK), tl.load(x_ptr + offs))
)";

// (pid * 64 + arange(64)) % M (matmul's offs_am): runs of gcd(64, 64, 16)
// = 16 stay consecutive when 16 | M; % 48 likewise 16; % 256 keeps all 64;
// M unknown: 1.
TEST(AxisInfoKernel, ModuloKeepsContiguity) {
  struct Case {
    const char* sig;
    int64_t contig, div;
  };
  for (const Case& c : {Case{"*fp32:16, *fp32:16, i32:16, MOD=0, BLOCK=64", 16, 16},
                        Case{"*fp32:16, *fp32:16, i32:16, MOD=48, BLOCK=64", 16, 16},
                        Case{"*fp32:16, *fp32:16, i32:16, MOD=256, BLOCK=64", 64, 64},
                        Case{"*fp32:16, *fp32:16, i32, MOD=0, BLOCK=64", 1, 1}}) {
    SCOPED_TRACE(c.sig);
    Analyzed a = analyzeKernel(kModulo, "wrap", c.sig);
    Operation* rem = a.op(OpCode::RemSI);
    expectInfo(a, a.info(rem->result(0)), {c.contig}, {c.div}, {1});
  }
}

const char* kBranches = R"(
import triton
import triton.language as tl

@triton.jit
def pick(x_ptr, out_ptr, flag, SHIFT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if flag > 0:
        p = x_ptr + offs
    else:
        p = x_ptr + offs + SHIFT
    tl.store(out_ptr + offs, tl.load(p))
)";

// scf.if results meet both branches: 16 bytes vs 4 * SHIFT bytes.
TEST(AxisInfoKernel, IfMeetsBranches) {
  Analyzed a = analyzeKernel(kBranches, "pick", "*fp32:16, *fp32:16, i32, SHIFT=8, BLOCK=128");
  expectInfo(a, a.info(a.op(OpCode::If)->result(0)), {128}, {16}, {1});
  Analyzed b = analyzeKernel(kBranches, "pick", "*fp32:16, *fp32:16, i32, SHIFT=2, BLOCK=128");
  Value p = b.op(OpCode::If)->result(0);
  expectInfo(b, b.info(p), {128}, {8}, {1});
  EXPECT_EQ(b.axis->vectorElements(p, 0), 2);
}

//===----------------------------------------------------------------------===//
// Single rules on text IR
//===----------------------------------------------------------------------===//

// x & 15 of a 64-run from 0 is x mod 16: runs of 16, starts 0. x << 2 of the
// run: per element 1 * 4; x >> 3 is constant in runs of 8; shifting by 0 is
// the identity.
TEST(AxisInfoRules, BitsAndShifts) {
  Analyzed a = analyzeText(R"(
tt.func @f(%n: i32 {divisibility = 16}) {
  %r = tt.make_range {end = 64, start = 0} : tensor<64xi32>
  %c15 = arith.constant {value = 15} : tensor<64xi32>
  %and = arith.andi %r, %c15 : tensor<64xi32>
  %c2 = arith.constant {value = 2} : tensor<64xi32>
  %shl = arith.shli %r, %c2 : tensor<64xi32>
  %c3 = arith.constant {value = 3} : tensor<64xi32>
  %shr = arith.shrsi %r, %c3 : tensor<64xi32>
  %ns = tt.splat %n : tensor<64xi32>
  %shl2 = arith.shli %ns, %c3 : tensor<64xi32>
  %or = arith.ori %shl2, %c3 : tensor<64xi32>
  %and2 = arith.andi %ns, %c3 : tensor<64xi32>
  tt.return
})");
  expectInfo(a, a.result(OpCode::AndI, 0), {16}, {16}, {1});
  expectInfo(a, a.result(OpCode::ShLI, 0), {1}, {4}, {1});
  expectInfo(a, a.result(OpCode::ShRSI), {1}, {1}, {8});
  expectInfo(a, a.result(OpCode::ShLI, 1), {1}, {128}, {64});
  expectInfo(a, a.result(OpCode::OrI), {1}, {1}, {64});
  // n & 3 with 16 | n is 0: the divisibility of n survives.
  expectInfo(a, a.result(OpCode::AndI, 1), {1}, {16}, {64});
}

// Division: a 128-run starting at a multiple of 128 divided by a splat of
// 32 is constant in runs of 32; a per-element multiple of 64 divided by 4 is
// a multiple of 16; x / 1 is x; constants fold (-7 / 2 = -3, -7 % 2 = -1).
TEST(AxisInfoRules, DivisionAndRemainder) {
  Analyzed a = analyzeText(R"(
tt.func @f(%n: i32 {divisibility = 64}) {
  %r = tt.make_range {end = 128, start = 0} : tensor<128xi32>
  %c32 = arith.constant {value = 32} : tensor<128xi32>
  %q = arith.divsi %r, %c32 : tensor<128xi32>
  %c4 = arith.constant {value = 4} : i32
  %q2 = arith.divui %n, %c4 : i32
  %c1 = arith.constant {value = 1} : tensor<128xi32>
  %q3 = arith.divsi %r, %c1 : tensor<128xi32>
  %m7 = arith.constant {value = -7} : i32
  %c2 = arith.constant {value = 2} : i32
  %q4 = arith.divsi %m7, %c2 : i32
  %r4 = arith.remsi %m7, %c2 : i32
  %r5 = arith.remsi %r, %c1 : tensor<128xi32>
  tt.return
})");
  expectInfo(a, a.result(OpCode::DivSI, 0), {1}, {1}, {32});
  expectInfo(a, a.result(OpCode::DivUI), {1}, {16}, {1});
  expectInfo(a, a.result(OpCode::DivSI, 1), {128}, {kMax}, {1});
  EXPECT_EQ(a.result(OpCode::DivSI, 2).constantValue, -3);
  EXPECT_EQ(a.result(OpCode::RemSI, 0).constantValue, -1);
  expectInfo(a, a.result(OpCode::RemSI, 1), {1}, {kMax}, {128});  // x % 1 = 0
  EXPECT_EQ(a.result(OpCode::RemSI, 1).constantValue, 0);
}

// Comparisons: the contiguous side must be on the left for lt/ge and on the
// right for gt/le; eq gives nothing; two constants fold.
TEST(AxisInfoRules, Comparisons) {
  Analyzed a = analyzeText(R"(
tt.func @f(%n: i32 {divisibility = 32}) {
  %r = tt.make_range {end = 128, start = 0} : tensor<128xi32>
  %ns = tt.splat %n : tensor<128xi32>
  %lt = arith.cmpi %r, %ns {predicate = "slt"} : tensor<128xi1>
  %ge = arith.cmpi %r, %ns {predicate = "uge"} : tensor<128xi1>
  %le = arith.cmpi %r, %ns {predicate = "sle"} : tensor<128xi1>
  %gt = arith.cmpi %ns, %r {predicate = "sgt"} : tensor<128xi1>
  %eq = arith.cmpi %r, %ns {predicate = "eq"} : tensor<128xi1>
  %c5 = arith.constant {value = 5} : i32
  %c6 = arith.constant {value = 6} : i32
  %k = arith.cmpi %c5, %c6 {predicate = "ult"} : i1
  tt.return
})");
  expectInfo(a, a.result(OpCode::CmpI, 0), {1}, {1}, {32});
  expectInfo(a, a.result(OpCode::CmpI, 1), {1}, {1}, {32});
  expectInfo(a, a.result(OpCode::CmpI, 2), {1}, {1}, {1});
  expectInfo(a, a.result(OpCode::CmpI, 3), {1}, {1}, {32});
  expectInfo(a, a.result(OpCode::CmpI, 4), {1}, {1}, {1});
  EXPECT_EQ(a.result(OpCode::CmpI, 5).constantValue, 1);
}

// select with a scalar condition keeps what both sides share; with a mask
// constant in runs of 8 both contiguity and constancy are cut to 8; a known
// condition picks one side.
TEST(AxisInfoRules, Select) {
  Analyzed a = analyzeText(R"(
tt.func @f(%b: i1, %n: i32 {divisibility = 16}) {
  %r = tt.make_range {end = 64, start = 0} : tensor<64xi32>
  %c32 = arith.constant {value = 32} : tensor<64xi32>
  %s = arith.addi %r, %c32 : tensor<64xi32>
  %sel = arith.select %b, %r, %s : tensor<64xi32>
  %c3 = arith.constant {value = 3} : tensor<64xi32>
  %grp = arith.shrui %r, %c3 : tensor<64xi32>
  %ns = tt.splat %n : tensor<64xi32>
  %m = arith.cmpi %grp, %ns {predicate = "eq"} : tensor<64xi1>
  %sel2 = arith.select %m, %r, %s : tensor<64xi32>
  %t = arith.constant {value = 1} : i1
  %sel3 = arith.select %t, %ns, %r : tensor<64xi32>
  tt.return
})");
  expectInfo(a, a.result(OpCode::Select, 0), {64}, {32}, {1});
  expectInfo(a, a.result(OpCode::Select, 1), {8}, {8}, {1});
  expectInfo(a, a.result(OpCode::Select, 2), {1}, {16}, {64});
}

// trans permutes the dims; reshape keeps dims that only gain or lose size-1
// neighbours and otherwise keeps the innermost run when it fits.
TEST(AxisInfoRules, TransAndReshape) {
  Analyzed a = analyzeText(R"(
tt.func @f() {
  %r = tt.make_range {end = 64, start = 0} : tensor<64xi32>
  %e = tt.expand_dims %r {axis = 0} : tensor<1x64xi32>
  %b = tt.broadcast %e : tensor<16x64xi32>
  %t = tt.trans %b {order = [1, 0]} : tensor<64x16xi32>
  %re = tt.reshape %e : tensor<64xi32>
  %re2 = tt.reshape %r : tensor<4x16xi32>
  tt.return
})");
  expectInfo(a, a.result(OpCode::Broadcast), {1, 64}, {1, kMax}, {16, 1});
  expectInfo(a, a.result(OpCode::Trans), {64, 1}, {kMax, 1}, {1, 16});
  expectInfo(a, a.result(OpCode::Reshape, 0), {64}, {kMax}, {1});
  expectInfo(a, a.result(OpCode::Reshape, 1), {1, 16}, {1, 16}, {1, 1});
}

// scf.while: the carried offset starts at a multiple of 64 and grows by 24:
// meet(64, gcd(64, 24) = 8) = 8, stable; the after-region argument and the
// result get the forwarded value's facts.
TEST(AxisInfoRules, WhileFixpoint) {
  Analyzed a = analyzeText(R"(
tt.func @f(%n: i32) {
  %c0 = arith.constant {value = 64} : i32
  %w = scf.while %c0 : i32 {
  ^bb0(%x: i32):
    %c = arith.cmpi %x, %n {predicate = "slt"} : i1
    scf.condition %c, %x
  } {
  ^bb0(%y: i32):
    %c24 = arith.constant {value = 24} : i32
    %z = arith.addi %y, %c24 : i32
    scf.yield %z
  }
  tt.return
})");
  Operation* w = a.op(OpCode::While);
  expectInfo(a, a.info(w->region(0).front().argument(0)), {1}, {8}, {1});
  expectInfo(a, a.info(w->region(1).front().argument(0)), {1}, {8}, {1});
  expectInfo(a, a.info(w->result(0)), {1}, {8}, {1});
  EXPECT_FALSE(a.info(w->result(0)).constantValue.has_value());
}

// Pointer casts: an f32 pointer run is not an integer run (addresses move by
// 4) and not an f16 pointer run; i8 pointers are both. Divisibility (bytes)
// survives.
TEST(AxisInfoRules, PointerCasts) {
  Analyzed a = analyzeText(R"(
tt.func @f(%p: !tt.ptr<f32> {divisibility = 16}, %q: !tt.ptr<i8> {divisibility = 16}) {
  %r = tt.make_range {end = 32, start = 0} : tensor<32xi32>
  %ps = tt.splat %p : tensor<32x!tt.ptr<f32>>
  %pp = tt.addptr %ps, %r : tensor<32x!tt.ptr<f32>>
  %i = tt.ptr_to_int %pp : tensor<32xi64>
  %h = tt.bitcast %pp : tensor<32x!tt.ptr<f16>>
  %g = tt.bitcast %pp : tensor<32x!tt.ptr<i32>>
  %qs = tt.splat %q : tensor<32x!tt.ptr<i8>>
  %qq = tt.addptr %qs, %r : tensor<32x!tt.ptr<i8>>
  %j = tt.ptr_to_int %qq : tensor<32xi64>
  %back = tt.int_to_ptr %j : tensor<32x!tt.ptr<i8>>
  tt.return
})");
  expectInfo(a, a.result(OpCode::PtrToInt, 0), {1}, {16}, {1});
  expectInfo(a, a.result(OpCode::PtrBitcast, 0), {1}, {16}, {1});
  expectInfo(a, a.result(OpCode::PtrBitcast, 1), {32}, {16}, {1});
  expectInfo(a, a.result(OpCode::PtrToInt, 1), {32}, {16}, {1});
  expectInfo(a, a.result(OpCode::IntToPtr), {32}, {16}, {1});
  EXPECT_EQ(a.axis->vectorElements(a.op(OpCode::IntToPtr)->result(0), 0), 16);
}

//===----------------------------------------------------------------------===//
// Soundness on concrete values
//===----------------------------------------------------------------------===//

/// A concrete tensor (row-major) or scalar (empty shape).
struct Concrete {
  std::vector<int64_t> shape;
  std::vector<int64_t> data;
};

int64_t wrapTo(int64_t v, unsigned width) {
  if (width >= 64) return v;
  if (width == 1) return v & 1;
  uint64_t m = (uint64_t{1} << width) - 1, u = static_cast<uint64_t>(v) & m;
  if (u >> (width - 1)) u |= ~m;
  return static_cast<int64_t>(u);
}

/// Evaluates the straight-line integer subset the random programs use.
/// Pointers are byte addresses.
class Evaluator {
 public:
  std::map<ir::ValueImpl*, Concrete> values;

  void run(Operation* func) {
    for (Operation* op = ir::funcBody(func).front(); op; op = op->nextOp()) step(op);
  }

 private:
  const Concrete& at(Value v) { return values.at(v.impl()); }

  void step(Operation* op) {
    if (op->numResults() != 1) return;
    ir::Type t = op->result(0).type();
    unsigned w = t.elementType().isInteger() ? t.elementType().bitWidth() : 64;
    Concrete r{t.shape(), {}};
    int64_t n = t.numElements();
    auto elem = [&](unsigned i, int64_t k) {
      const Concrete& c = at(op->operand(i));
      return c.data.size() == 1 ? c.data[0] : c.data[k];
    };
    switch (op->code()) {
      case OpCode::Constant: r.data.assign(n, std::get<int64_t>(*op->attr("value"))); break;
      case OpCode::MakeRange:
        for (int64_t k = 0; k < n; ++k) r.data.push_back(op->intAttr("start") + k);
        break;
      case OpCode::Splat: r.data.assign(n, at(op->operand(0)).data[0]); break;
      case OpCode::ExpandDims: r.data = at(op->operand(0)).data; break;
      case OpCode::Broadcast: {
        const Concrete& s = at(op->operand(0));
        for (int64_t k = 0; k < n; ++k) {
          // Map the result index to the operand index (size-1 dims pinned).
          int64_t rem = k, src = 0, stride = 1;
          for (int d = int(t.rank()) - 1; d >= 0; --d) {
            int64_t i = rem % t.shape()[d];
            rem /= t.shape()[d];
            if (s.shape[d] != 1) src += i * stride;
            stride *= s.shape[d];
          }
          r.data.push_back(s.data[src]);
        }
        break;
      }
      case OpCode::AddPtr: {
        int64_t bytes = t.elementType().pointeeType().byteWidth();
        for (int64_t k = 0; k < n; ++k) r.data.push_back(elem(0, k) + elem(1, k) * bytes);
        break;
      }
      case OpCode::Select:
        for (int64_t k = 0; k < n; ++k) r.data.push_back(elem(0, k) ? elem(1, k) : elem(2, k));
        break;
      case OpCode::CmpI: {
        std::string p = op->strAttr("predicate");
        for (int64_t k = 0; k < n; ++k) {
          int64_t x = elem(0, k), y = elem(1, k);  // non-negative: signed = unsigned
          bool v = p == "eq" ? x == y : p == "ne" ? x != y : p == "slt" || p == "ult" ? x < y
                 : p == "sle" || p == "ule" ? x <= y : p == "sgt" || p == "ugt" ? x > y : x >= y;
          r.data.push_back(v);
        }
        break;
      }
      default:
        for (int64_t k = 0; k < n; ++k) {
          int64_t x = elem(0, k), y = op->numOperands() > 1 ? elem(1, k) : 0;
          int64_t v = 0;
          switch (op->code()) {
            case OpCode::AddI: v = x + y; break;
            case OpCode::SubI: v = x - y; break;
            case OpCode::MulI: v = x * y; break;
            case OpCode::DivSI: v = x / y; break;
            case OpCode::RemSI: v = x % y; break;
            case OpCode::AndI: v = x & y; break;
            case OpCode::OrI: v = x | y; break;
            case OpCode::XOrI: v = x ^ y; break;
            case OpCode::ShLI: v = x << y; break;
            case OpCode::ShRSI: v = x >> y; break;
            case OpCode::MaxSI: v = std::max(x, y); break;
            case OpCode::MinSI: v = std::min(x, y); break;
            default: ADD_FAILURE() << "evaluator: unsupported " << ir::print(op); return;
          }
          r.data.push_back(wrapTo(v, w));
        }
    }
    values[op->result(0).impl()] = std::move(r);
  }
};

/// Checks every claim of `info` on the concrete tensor `c`; returns a
/// description of the first violation ("" if none).
std::string violation(const AxisInfo& info, const Concrete& c, int64_t step) {
  if (info.constantValue)
    for (int64_t v : c.data)
      if (v != *info.constantValue) return "constant " + std::to_string(*info.constantValue) + " but holds " + std::to_string(v);
  std::vector<int64_t> shape = c.shape.empty() ? std::vector<int64_t>{1} : c.shape;
  int rank = int(shape.size());
  for (int d = 0; d < rank; ++d) {
    int64_t inner = 1;
    for (int e = d + 1; e < rank; ++e) inner *= shape[e];
    int64_t n = shape[d], outer = int64_t(c.data.size()) / (n * inner);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t in = 0; in < inner; ++in) {
        auto v = [&](int64_t i) { return c.data[(o * n + i) * inner + in]; };
        int64_t cont = info.contiguity[d], cons = info.constancy[d], div = info.divisibility[d];
        for (int64_t i = 0; i < n; ++i) {
          std::string where = " at dim " + std::to_string(d) + " index " + std::to_string(i);
          if (i % cont != 0 && v(i) - v(i - 1) != step) return "not contiguous" + where;
          if (i % cons != 0 && v(i) != v(i - 1)) return "not constant" + where;
          if (i % cont == 0 && v(i) % div != 0)
            return "group start " + std::to_string(v(i)) + " not a multiple of " + std::to_string(div) + where;
        }
      }
  }
  return "";
}

/// Builds a random program over tensor<16x32xi32> (through 1-D values of 16
/// and 32 elements) from ranges, specialized scalars and constants, with
/// operations chosen so values stay non-negative and small.
std::string randomProgram(std::mt19937& rng) {
  std::string text = "tt.func @f(%a: i32 {divisibility = 16}, %b: i32, %c: i32 {divisibility = 16}, %p: "
                     "!tt.ptr<f16> {divisibility = 16}) {\n";
  int id = 0;
  struct Val {
    std::string name;
    int64_t bound;  // values lie in [0, bound]
    int size;       // 0 scalar, 16, 32, or 512 for 16x32
  };
  std::vector<Val> vals = {{"%a", 1024, 0}, {"%b", 1024, 0}, {"%c", 1024, 0}};
  auto pick = [&](int size) -> Val& {
    std::vector<Val*> c;
    for (auto& v : vals)
      if (v.size == size) c.push_back(&v);
    return *c[rng() % c.size()];
  };
  auto type = [](int size) {
    return size == 0 ? std::string("i32") : size == 512 ? std::string("tensor<16x32xi32>")
                                                        : "tensor<" + std::to_string(size) + "xi32>";
  };
  auto fresh = [&]() { return "%v" + std::to_string(id++); };
  auto emit = [&](const std::string& line, int64_t bound, int size) {
    std::string name = fresh();
    text += "  " + name + " = " + line + "\n";
    vals.push_back({name, bound, size});
  };
  const int64_t small[] = {1, 2, 3, 4, 6, 7, 8, 12, 15, 16, 24, 31, 32, 48, 64};
  for (int size : {16, 32}) {
    for (int k = 0; k < 2; ++k) {
      int64_t start = int64_t(rng() % 3) * 16 + (rng() % 2 ? 0 : int64_t(rng() % 4));
      emit("tt.make_range {end = " + std::to_string(start + size) + ", start = " + std::to_string(start) + "} : " + type(size),
           start + size, size);
    }
    for (int k = 0; k < 2; ++k) {
      Val s = pick(0);
      emit("tt.splat " + s.name + " : " + type(size), s.bound, size);
    }
  }
  const char* binops[] = {"arith.addi", "arith.muli", "arith.divsi", "arith.remsi", "arith.andi", "arith.ori",
                          "arith.xori", "arith.shli", "arith.shrsi", "arith.maxsi", "arith.minsi", "arith.select",
                          "arith.subi"};
  auto arith = [&](int size, int count) {
    for (int k = 0; k < count; ++k) {
      std::string op = binops[rng() % std::size(binops)];
      Val x = pick(size);
      int64_t c = small[rng() % std::size(small)];
      std::string ty = type(size);
      // The right operand: a splat constant (for div/rem/shift/sub: always),
      // or another value.
      bool useConst = op == "arith.divsi" || op == "arith.remsi" || op == "arith.shli" || op == "arith.shrsi" ||
                      op == "arith.subi" || rng() % 3 == 0;
      if (op == "arith.shli" || op == "arith.shrsi") c = rng() % 5;
      Val y{"", c, size};
      if (useConst) {
        y.name = fresh();
        text += "  " + y.name + " = arith.constant {value = " + std::to_string(c) + "} : " + ty + "\n";
      } else {
        y = pick(size);
      }
      if (op == "arith.subi") {  // x + c - c' with c' <= c keeps values >= 0
        std::string s = fresh();
        text += "  " + s + " = arith.addi " + x.name + ", " + y.name + " : " + ty + "\n";
        int64_t c2 = small[rng() % std::size(small)] % (c + 1);
        std::string k2 = fresh();
        text += "  " + k2 + " = arith.constant {value = " + std::to_string(c2) + "} : " + ty + "\n";
        emit("arith.subi " + s + ", " + k2 + " : " + ty, x.bound + c, size);
        continue;
      }
      if (op == "arith.select") {
        Val z = pick(size);
        std::string m = fresh();
        const char* preds[] = {"slt", "sge", "sle", "sgt", "eq"};
        text += "  " + m + " = arith.cmpi " + x.name + ", " + y.name + " {predicate = \"" + preds[rng() % 5] + "\"} : " +
                (size == 0 ? std::string("i1") : size == 512 ? std::string("tensor<16x32xi1>")
                                                             : "tensor<" + std::to_string(size) + "xi1>") + "\n";
        emit("arith.select " + m + ", " + x.name + ", " + z.name + " : " + ty, std::max(x.bound, z.bound), size);
        continue;
      }
      int64_t bound = op == "arith.addi" ? x.bound + y.bound : op == "arith.muli" ? x.bound * y.bound
                    : op == "arith.shli" ? x.bound << c : op == "arith.ori" || op == "arith.xori" ? 2 * std::max(x.bound, y.bound)
                    : op == "arith.maxsi" ? std::max(x.bound, y.bound) : x.bound;
      if (bound > (int64_t{1} << 28)) continue;  // keep clear of i32 overflow
      emit(op + " " + x.name + ", " + y.name + " : " + ty, bound, size);
    }
  };
  arith(0, 3);
  arith(16, 8);
  arith(32, 8);
  // 2-D: rows from a 16-value, columns from a 32-value.
  Val rows = pick(16), cols = pick(32);
  std::string er = fresh(), ec = fresh();
  text += "  " + er + " = tt.expand_dims " + rows.name + " {axis = 1} : tensor<16x1xi32>\n";
  text += "  " + ec + " = tt.expand_dims " + cols.name + " {axis = 0} : tensor<1x32xi32>\n";
  emit("tt.broadcast " + er + " : tensor<16x32xi32>", rows.bound, 512);
  emit("tt.broadcast " + ec + " : tensor<16x32xi32>", cols.bound, 512);
  arith(512, 6);
  Val off = pick(512);
  std::string ps = fresh();
  text += "  " + ps + " = tt.splat %p : tensor<16x32x!tt.ptr<f16>>\n";
  text += "  " + fresh() + " = tt.addptr " + ps + ", " + off.name + " : tensor<16x32x!tt.ptr<f16>>\n";
  return text + "  tt.return\n}\n";
}

TEST(AxisInfoSoundness, RandomProgramsOnRandomInputs) {
  std::mt19937 rng(12345);
  int checked = 0;
  for (int program = 0; program < 150; ++program) {
    std::string text = randomProgram(rng);
    Analyzed a = analyzeText(text);
    ir::Block& body = ir::funcBody(a.func);
    for (int trial = 0; trial < 8; ++trial) {
      Evaluator ev;
      // %a, %c: multiples of 16; %b anything; %p a 16-byte aligned address.
      int64_t args[] = {16 * int64_t(rng() % 64), int64_t(rng() % 1024), 16 * int64_t(rng() % 64),
                        16 * int64_t(rng() % 4096 + 1)};
      for (unsigned i = 0; i < 4; ++i) ev.values[body.argument(i).impl()] = Concrete{{}, {args[i]}};
      ev.run(a.func);
      for (auto& [impl, c] : ev.values) {
        Value v(impl);
        int64_t step = v.type().elementType().isPointer() ? 2 : 1;
        std::string why = violation(a.info(v), c, step);
        ASSERT_EQ(why, "") << "claim " << a.info(v).str() << " fails for "
                           << (v.definingOp() ? ir::print(v.definingOp()) : std::string("an argument"))
                           << " with args " << args[0] << ", " << args[1] << ", " << args[2] << ", " << args[3]
                           << "\nin\n" << text;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 10000);
}

}  // namespace
}  // namespace tessera::gpu
