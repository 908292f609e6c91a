//===- MmaLayoutTest.cpp - Tensor-core layouts against the PTX ISA ----------===//
//
// nvidia_mma (version 2) and dot_op encodings as linear layouts, checked
// element by element against the fragment tables of the PTX ISA for
// mma.sync.aligned.m16n8k16 (f16/bf16: A, B and the f32 accumulator) and
// m16n8k32 (8-bit A), and wgmma's m64nNk16 accumulator: which lane and
// register hold which element. Then the
// warp and repetition structure on larger tiles, the text forms, and the
// errors for what is not supported yet.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include <set>

#include "tessera/Error.h"
#include "tessera/gpu/LinearLayout.h"
#include "tessera/ir/Types.h"

namespace tessera::gpu {
namespace {

using ir::Encoding;

Encoding mma(std::vector<int64_t> warps) { return Encoding::nvidiaMma(2, 0, std::move(warps), {16, 8}); }

/// (row, col) the layout gives register `reg` of `lane` in warp `warp`.
std::pair<int64_t, int64_t> at(const LinearLayout& ll, int64_t reg, int64_t lane, int64_t warp = 0) {
  std::vector<int64_t> c = ll.apply({reg, lane, warp, 0});
  return {c[0], c[1]};
}

TEST(MmaLayout, AccumulatorIsThePtxFragment) {
  // PTX ISA, m16n8k16 D (f32): c_i of lane l is at row l/4 + 8 (i >= 2),
  // column 2 (l % 4) + (i % 2).
  LinearLayout ll = toLinearLayout({16, 8}, mma({1, 1}));
  EXPECT_EQ(ll.inDimSize(HwDim::Register), 4);
  EXPECT_EQ(ll.inDimSize(HwDim::Lane), 32);
  for (int64_t lane = 0; lane < 32; ++lane)
    for (int64_t i = 0; i < 4; ++i)
      EXPECT_EQ(at(ll, i, lane), std::make_pair(lane / 4 + 8 * (i >= 2), 2 * (lane % 4) + i % 2))
          << "lane " << lane << " c" << i;
}

TEST(MmaLayout, OperandsAreThePtxFragments) {
  Encoding parent = mma({1, 1});
  // A (16 x 16, f16): a_i at row l/4 + 8 ((i / 2) % 2), column 2 (l % 4) + i % 2 + 8 (i >= 4).
  LinearLayout a = toLinearLayout({16, 16}, Encoding::dotOperand(0, parent, 2));
  // B (16 x 8, f16): b_i at row 2 (l % 4) + i % 2 + 8 (i >= 2), column l / 4.
  LinearLayout b = toLinearLayout({16, 8}, Encoding::dotOperand(1, parent, 2));
  // A (16 x 32, 8-bit, m16n8k32): a_i at row l/4 + 8 ((i / 4) % 2), column 4 (l % 4) + i % 4 + 16 (i >= 8).
  LinearLayout a8 = toLinearLayout({16, 32}, Encoding::dotOperand(0, parent, 4));
  for (int64_t lane = 0; lane < 32; ++lane) {
    int64_t group = lane / 4, inGroup = lane % 4;
    for (int64_t i = 0; i < 8; ++i)
      EXPECT_EQ(at(a, i, lane), std::make_pair(group + 8 * ((i / 2) % 2), 2 * inGroup + i % 2 + 8 * (i >= 4)))
          << "A lane " << lane << " a" << i;
    for (int64_t i = 0; i < 4; ++i)
      EXPECT_EQ(at(b, i, lane), std::make_pair(2 * inGroup + i % 2 + 8 * (i >= 2), group)) << "B lane " << lane << " b" << i;
    for (int64_t i = 0; i < 16; ++i)
      EXPECT_EQ(at(a8, i, lane), std::make_pair(group + 8 * ((i / 4) % 2), 4 * inGroup + i % 4 + 16 * (i >= 8)))
          << "A8 lane " << lane << " a" << i;
  }
}

TEST(MmaLayout, WarpsAndRepetitions) {
  // Accumulator 64 x 32 over 2 x 2 warps: warp bit 0 steps N by 8, bit 1
  // steps M by 16; the 32 x 16 warp tile then repeats N first (registers 4,
  // 8), then M (register 16).
  LinearLayout acc = toLinearLayout({64, 32}, mma({2, 2}));
  EXPECT_EQ(at(acc, 0, 0, 1), std::make_pair(int64_t(0), int64_t(8)));
  EXPECT_EQ(at(acc, 0, 0, 2), std::make_pair(int64_t(16), int64_t(0)));
  EXPECT_EQ(at(acc, 4, 0), std::make_pair(int64_t(0), int64_t(16)));
  EXPECT_EQ(at(acc, 8, 0), std::make_pair(int64_t(32), int64_t(0)));
  EXPECT_EQ(acc.inDimSize(HwDim::Register), 16);
  // Every element held exactly once: 16 regs x 32 lanes x 4 warps = 64 x 32.
  std::set<std::pair<int64_t, int64_t>> seen;
  for (int64_t w = 0; w < 4; ++w)
    for (int64_t l = 0; l < 32; ++l)
      for (int64_t r = 0; r < 16; ++r) seen.insert(at(acc, r, l, w));
  EXPECT_EQ(seen.size(), 64u * 32u);

  // A (64 x 32) for those warps: the warps that differ in N (bit 0) hold the
  // same A; K repeats first (register 8 steps K by 16), then M.
  LinearLayout a = toLinearLayout({64, 32}, Encoding::dotOperand(0, mma({2, 2}), 2));
  EXPECT_EQ(at(a, 0, 5, 1), at(a, 0, 5, 0));
  EXPECT_EQ(at(a, 0, 0, 2), std::make_pair(int64_t(16), int64_t(0)));
  EXPECT_EQ(at(a, 8, 0), std::make_pair(int64_t(0), int64_t(16)));
  EXPECT_EQ(at(a, 16, 0), std::make_pair(int64_t(32), int64_t(0)));
  // B (32 x 32): warps that differ in M (bit 1) hold the same B.
  LinearLayout b = toLinearLayout({32, 32}, Encoding::dotOperand(1, mma({2, 2}), 2));
  EXPECT_EQ(at(b, 0, 7, 2), at(b, 0, 7, 0));
  EXPECT_EQ(at(b, 0, 0, 1), std::make_pair(int64_t(0), int64_t(8)));
  EXPECT_EQ(at(b, 4, 0), std::make_pair(int64_t(16), int64_t(0)));  // K first
}

TEST(MmaLayout, WgmmaAccumulatorIsThePtxFragment) {
  // PTX ISA, wgmma m64nNk16 D (f32) over a warpgroup: d_i of lane l in
  // warp w is at row 16 w + l/4 + 8 ((i / 2) % 2), column 8 (i / 4) +
  // 2 (l % 4) + i % 2. Here N = 32: 16 registers per thread.
  LinearLayout ll = toLinearLayout({64, 32}, Encoding::nvidiaMma(3, 0, {4, 1}, {16, 32, 16}));
  EXPECT_EQ(ll.inDimSize(HwDim::Register), 16);
  EXPECT_EQ(ll.inDimSize(HwDim::Warp), 4);
  for (int64_t w = 0; w < 4; ++w)
    for (int64_t lane = 0; lane < 32; ++lane)
      for (int64_t i = 0; i < 16; ++i)
        EXPECT_EQ(at(ll, i, lane, w),
                  std::make_pair(16 * w + lane / 4 + 8 * ((i / 2) % 2), 8 * (i / 4) + 2 * (lane % 4) + i % 2))
            << "warp " << w << " lane " << lane << " d" << i;
  // Two warpgroups along N (warpsPerCTA [4, 2]): warp bits 0-1 step M, bit 2 steps N by 32.
  LinearLayout two = toLinearLayout({64, 64}, Encoding::nvidiaMma(3, 0, {4, 2}, {16, 32, 16}));
  EXPECT_EQ(at(two, 0, 0, 4), std::make_pair(int64_t(0), int64_t(32)));
  EXPECT_EQ(at(two, 0, 0, 1), std::make_pair(int64_t(16), int64_t(0)));
}

TEST(MmaLayout, TextFormsRoundTripAndErrors) {
  std::string text =
      "tensor<64x32xf16, #ttg.dot_op<{opIdx = 1, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, "
      "warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>>";
  ir::Type t = ir::Type::parse(text);
  ASSERT_TRUE(t) << text;
  EXPECT_EQ(t.str(), text);
  Encoding e = t.encoding();
  ASSERT_TRUE(e.isDotOperand());
  EXPECT_EQ(e.opIdx(), 1);
  EXPECT_EQ(e.kWidth(), 2);
  ASSERT_TRUE(e.parent().isNvidiaMma());
  EXPECT_EQ(e.parent().versionMajor(), 2);
  EXPECT_EQ(e.parent().instrShape(), (std::vector<int64_t>{16, 8}));
  EXPECT_EQ(e.parent(), mma({2, 2}));  // interned
  EXPECT_EQ(e.rank(), 2);
  EXPECT_FALSE(ir::Type::parse("tensor<16x16xf16, #ttg.dot_op<{opIdx = 2, parent = #ttg.nvidia_mma<{versionMajor "
                               "= 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>, kWidth = 2}>>"));
  try {
    toLinearLayout({16, 64}, Encoding::dotOperand(1, Encoding::nvidiaMma(3, 0, {4, 1}, {16, 64, 16}), 2));
    ADD_FAILURE() << "wgmma takes B only from shared memory";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("only a 2-D A"), std::string::npos) << err.what();
  }
}

TEST(MmaLayout, WgmmaRegisterOperandIsThePtxFragment) {
  // PTX ISA, wgmma m64nNk16 with A in registers (16-bit): a_i (4 b32
  // registers of 2 elements, element e = 2 i + h) of lane l in warp w holds
  // row 16 w + l/4 + 8 (i % 2), column 8 (i / 2) + 2 (l % 4) + h. Here
  // K = 32: two K steps, the second 8 elements per thread.
  Encoding acc = Encoding::nvidiaMma(3, 0, {4, 1}, {16, 64, 16});
  LinearLayout ll = toLinearLayout({64, 32}, Encoding::dotOperand(0, acc, 2));
  EXPECT_EQ(ll.inDimSize(HwDim::Register), 16);
  for (int64_t w = 0; w < 4; ++w)
    for (int64_t lane = 0; lane < 32; ++lane)
      for (int64_t step = 0; step < 2; ++step)
        for (int64_t e = 0; e < 8; ++e) {
          int64_t i = e / 2, h = e % 2;
          EXPECT_EQ(at(ll, 8 * step + e, lane, w),
                    std::make_pair(16 * w + lane / 4 + 8 * (i % 2), 16 * step + 8 * (i / 2) + 2 * (lane % 4) + h))
              << "warp " << w << " lane " << lane << " step " << step << " a" << i << "." << h;
        }
  // It is the accumulator layout of a 64 x 32 result: a dot result cast to
  // 16 bits feeds the next dot's A without moving.
  EXPECT_EQ(ll, toLinearLayout({64, 32}, acc));
  // Warpgroups along N (warpsPerCTA [4, 2]) hold the same A.
  LinearLayout two = toLinearLayout({64, 32}, Encoding::dotOperand(0, Encoding::nvidiaMma(3, 0, {4, 2}, {16, 64, 16}), 2));
  EXPECT_EQ(at(two, 0, 0, 4), at(two, 0, 0, 0));
}

}  // namespace
}  // namespace tessera::gpu
