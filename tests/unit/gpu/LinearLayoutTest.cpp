//===- LinearLayoutTest.cpp - Linear layouts against brute force ----------===//
//
// Every encoding's layout is checked by enumerating all hardware indices and
// comparing with an independent direct formula (Triton's blocked semantics:
// coordinates from thread ids by div/mod, wrap-around repetition; the
// swizzled-shared address formula). The GF(2) operations (invert, free
// variables, surjectivity) are checked against exhaustive search, including
// on random linear layouts with dependent bases.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "tessera/Error.h"
#include "tessera/gpu/LinearLayout.h"

using namespace tessera;
using namespace tessera::gpu;
using ir::Encoding;
using HwIndex = std::array<int64_t, kNumHwDims>;
using Coords = std::vector<int64_t>;

namespace {

int64_t product(const std::vector<int64_t>& v) {
  int64_t n = 1;
  for (int64_t x : v) n *= x;
  return n;
}

/// Digits of `index` in the mixed radix `sizes`, order[0] fastest.
Coords delinearize(int64_t index, const std::vector<int64_t>& sizes, const std::vector<int64_t>& order) {
  Coords out(sizes.size(), 0);
  for (int64_t d : order) {
    out[d] = index % sizes[d];
    index /= sizes[d];
  }
  return out;
}

/// Calls f(index) for every hardware index of `ll`.
template <typename F>
void forEachIndex(const LinearLayout& ll, F f) {
  for (int64_t b = 0; b < ll.inDimSize(HwDim::Block); ++b)
    for (int64_t w = 0; w < ll.inDimSize(HwDim::Warp); ++w)
      for (int64_t l = 0; l < ll.inDimSize(HwDim::Lane); ++l)
        for (int64_t r = 0; r < ll.inDimSize(HwDim::Register); ++r) f(HwIndex{r, l, w, b});
}

/// Triton's blocked layout, directly: a thread's registers cover
/// sizePerThread elements (clamped to the shape) then repeat the CTA tile
/// (spt * tpw * wpc) until the shape is covered; lane and warp ids split by
/// div/mod along `order`; coordinates wrap modulo the shape (a tile larger
/// than the tensor broadcasts). Register numbering: the sizePerThread block
/// first, then the repetitions, each order[0] fastest (Triton 3.x).
struct DirectBlocked {
  std::vector<int64_t> spt, tpw, wpc, order, shape, sptEff, reps;

  DirectBlocked(Encoding e, std::vector<int64_t> shape)
      : spt(e.sizePerThread()), tpw(e.threadsPerWarp()), wpc(e.warpsPerCTA()), order(e.order()),
        shape(std::move(shape)) {
    for (size_t d = 0; d < spt.size(); ++d) {
      sptEff.push_back(std::min(spt[d], this->shape[d]));
      reps.push_back(std::max<int64_t>(1, this->shape[d] / (spt[d] * tpw[d] * wpc[d])));
    }
  }
  int64_t numRegisters() const { return product(sptEff) * product(reps); }
  Coords at(int64_t reg, int64_t lane, int64_t warp) const {
    Coords within = delinearize(reg % product(sptEff), sptEff, order);
    Coords rep = delinearize(reg / product(sptEff), reps, order);
    Coords t = delinearize(lane, tpw, order), q = delinearize(warp, wpc, order);
    Coords out(spt.size());
    for (size_t d = 0; d < spt.size(); ++d)
      out[d] = (within[d] + t[d] * spt[d] + q[d] * spt[d] * tpw[d] + rep[d] * spt[d] * tpw[d] * wpc[d]) % shape[d];
    return out;
  }
};

/// Checks toLinearLayout(shape, blocked) against DirectBlocked index by
/// index, and the coverage properties.
void checkBlocked(Encoding e, const std::vector<int64_t>& shape) {
  SCOPED_TRACE(e.str() + " on shape " + ::testing::PrintToString(shape));
  LinearLayout ll = toLinearLayout(shape, e);
  DirectBlocked direct(e, shape);
  ASSERT_EQ(ll.outDimSizes(), shape);
  ASSERT_EQ(ll.inDimSize(HwDim::Register), direct.numRegisters());
  ASSERT_EQ(ll.inDimSize(HwDim::Lane), product(e.threadsPerWarp()));
  ASSERT_EQ(ll.inDimSize(HwDim::Warp), product(e.warpsPerCTA()));
  ASSERT_EQ(ll.inDimSize(HwDim::Block), 1);
  std::map<Coords, int> held;
  forEachIndex(ll, [&](const HwIndex& i) {
    Coords c = ll.apply(i);
    ASSERT_EQ(c, direct.at(i[0], i[1], i[2])) << "reg " << i[0] << " lane " << i[1] << " warp " << i[2];
    ++held[c];
  });
  // Every element is held, each equally often; exactly once when the tile fits.
  ASSERT_EQ(static_cast<int64_t>(held.size()), product(shape));
  bool fits = true;
  for (size_t d = 0; d < shape.size(); ++d)
    fits = fits && e.sizePerThread()[d] * e.threadsPerWarp()[d] * e.warpsPerCTA()[d] <= shape[d];
  int64_t copies = ll.inDimSize(HwDim::Register) * ll.inDimSize(HwDim::Lane) * ll.inDimSize(HwDim::Warp) /
                   product(shape);
  for (const auto& [c, n] : held) ASSERT_EQ(n, copies);
  EXPECT_EQ(copies == 1, fits);
  EXPECT_TRUE(ll.isSurjective());
  EXPECT_EQ(ll.isBijective(), fits);
  // Free variables of a blocked layout are exactly its zero bases, and
  // the indices with free bits zero hold every element once.
  auto masks = ll.freeVariableMasks();
  for (int d = 0; d < kNumHwDims; ++d)
    for (int i = 0; i < ll.numBases(static_cast<HwDim>(d)); ++i) {
      const auto& b = ll.bases(static_cast<HwDim>(d))[i];
      bool zero = std::all_of(b.begin(), b.end(), [](int64_t v) { return v == 0; });
      EXPECT_EQ(((masks[d] >> i) & 1) != 0, zero) << "in dim " << d << " bit " << i;
    }
  EXPECT_EQ(masks[0], 0) << "a blocked layout never duplicates registers";
}

TEST(LinearLayout, BlockedMatchesDirectFormula) {
  struct Case {
    std::vector<int64_t> spt, tpw, wpc, order, shape;
  };
  std::vector<Case> cases = {
      {{1}, {32}, {4}, {0}, {128}},                       // exact fit
      {{4}, {32}, {4}, {0}, {512}},                       // exact fit, vectors
      {{4}, {32}, {4}, {0}, {2048}},                      // repeats in registers
      {{4}, {32}, {4}, {0}, {64}},                        // warps broadcast
      {{4}, {32}, {4}, {0}, {2}},                         // registers clamp, lanes broadcast
      {{1}, {32}, {1}, {0}, {1}},                         // one element
      {{2, 2}, {4, 8}, {2, 2}, {1, 0}, {16, 32}},         // 2-D exact
      {{2, 2}, {4, 8}, {2, 2}, {0, 1}, {16, 32}},         // column-major order
      {{1, 1}, {4, 8}, {2, 2}, {0, 1}, {32, 64}},         // repetitions in both dims, dim 0 first
      {{2, 1, 1}, {2, 4, 4}, {1, 2, 2}, {0, 1, 2}, {16, 32, 16}},
      {{1, 4}, {8, 4}, {4, 1}, {1, 0}, {64, 128}},        // repetition in both dims
      {{1, 4}, {8, 4}, {4, 1}, {1, 0}, {8, 4}},           // tile larger in both dims
      {{1, 4}, {8, 4}, {4, 1}, {1, 0}, {128, 2}},         // larger in one dim, smaller in the other
      {{1, 1}, {1, 32}, {8, 1}, {1, 0}, {1, 1024}},       // size-1 dim
      {{2, 1}, {2, 16}, {1, 2}, {0, 1}, {1, 16}},         // spt past a size-1 dim
      {{1, 2, 2}, {2, 4, 4}, {2, 1, 2}, {2, 1, 0}, {8, 16, 16}},
      {{1, 2, 2}, {2, 4, 4}, {2, 1, 2}, {1, 2, 0}, {4, 4, 4}},
      {{2, 1, 1}, {1, 8, 4}, {4, 2, 1}, {0, 2, 1}, {2, 64, 8}},
  };
  for (const Case& c : cases) checkBlocked(Encoding::blocked(c.spt, c.tpw, c.wpc, c.order), c.shape);
}

TEST(LinearLayout, DefaultBlockedLayoutsMatchDirectFormula) {
  std::vector<std::vector<int64_t>> shapes = {{1},      {16},         {128},       {4096},   {1, 1},
                                              {16, 16}, {2, 256},     {64, 1},     {32, 64}, {256, 8},
                                              {2, 2, 2}, {4, 8, 32},  {1, 64, 2},  {16, 1, 16}};
  for (const auto& shape : shapes)
    for (int warps : {1, 2, 4, 8})
      for (int64_t spt : {1, 4}) {
        std::vector<int64_t> dimZeroFirst;
        for (size_t d = 0; d < shape.size(); ++d) dimZeroFirst.push_back(static_cast<int64_t>(d));
        for (Encoding e :
             {defaultBlockedEncoding(shape, warps, spt), defaultBlockedEncoding(shape, warps, spt, dimZeroFirst)}) {
          EXPECT_EQ(product(e.threadsPerWarp()), 32);
          EXPECT_EQ(product(e.warpsPerCTA()), warps);
          checkBlocked(e, shape);
        }
      }
}

TEST(LinearLayout, DefaultBlockedEncodingPicksTritonsParameters) {
  // 1-D: everything along the only dim.
  EXPECT_EQ(defaultBlockedEncoding({1024}, 4, 4), Encoding::blocked({4}, {32}, {4}, {0}));
  // 16x16, 4 warps: 16 lanes fill dim 1, the other 2 lanes and all warps go to dim 0.
  EXPECT_EQ(defaultBlockedEncoding({16, 16}, 4), Encoding::blocked({1, 1}, {2, 16}, {4, 1}, {1, 0}));
  // 128x64, 8 warps, 4 per thread: 64/4 = 16 lanes on dim 1.
  EXPECT_EQ(defaultBlockedEncoding({128, 64}, 8, 4), Encoding::blocked({1, 4}, {2, 16}, {8, 1}, {1, 0}));
  // 32x256, 4 warps: lanes (32) and warps (256/32 = 8 -> 4) all on dim 1.
  EXPECT_EQ(defaultBlockedEncoding({32, 256}, 4), Encoding::blocked({1, 1}, {1, 32}, {1, 4}, {1, 0}));
  // sizePerThread clamps to the shape; a tiny tensor still uses every lane.
  EXPECT_EQ(defaultBlockedEncoding({2}, 4, 8), Encoding::blocked({2}, {32}, {4}, {0}));
  // Explicit order: dim 0 fastest.
  EXPECT_EQ(defaultBlockedEncoding({64, 8}, 2, 2, {0, 1}), Encoding::blocked({2, 1}, {32, 1}, {1, 2}, {0, 1}));
  EXPECT_THROW(defaultBlockedEncoding({12}, 4), Error);
  EXPECT_THROW(defaultBlockedEncoding({16}, 3), Error);
}

TEST(LinearLayout, BlockedBasesAreTritons) {
  // Worked example: sizePerThread [1, 4], threadsPerWarp [8, 4], warpsPerCTA
  // [4, 1], order [1, 0] on 64x32: registers 1, 2 along dim 1, then the tile
  // (32 x 16) repeats: register bit 2 -> dim 1 coordinate 16, bit 3 -> dim 0
  // coordinate 32. Lanes: 4, 8 along dim 1 then 1, 2, 4 along dim 0; warps 8, 16.
  LinearLayout ll = toLinearLayout({64, 32}, Encoding::blocked({1, 4}, {8, 4}, {4, 1}, {1, 0}));
  EXPECT_EQ(ll.str(),
            "register = [[0, 1], [0, 2], [0, 16], [32, 0]], lane = [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], "
            "warp = [[8, 0], [16, 0]], block = [] -> [64, 32]");
  EXPECT_EQ(ll.contiguousRegisters(1), 4);
  EXPECT_EQ(ll.contiguousRegisters(0), 1);
  // The same on 8x4: lanes 8 and warps reach past -> zero (broadcast).
  LinearLayout small = toLinearLayout({4, 4}, Encoding::blocked({1, 4}, {8, 4}, {4, 1}, {1, 0}));
  EXPECT_EQ(small.str(),
            "register = [[0, 1], [0, 2]], lane = [[0, 0], [0, 0], [1, 0], [2, 0], [0, 0]], "
            "warp = [[0, 0], [0, 0]], block = [] -> [4, 4]");
  auto masks = small.freeVariableMasks();
  EXPECT_EQ(masks[0], 0);
  EXPECT_EQ(masks[1], 0b10011);
  EXPECT_EQ(masks[2], 0b11);
}

TEST(LinearLayout, ContiguousRegisters) {
  EXPECT_EQ(toLinearLayout({512}, Encoding::blocked({4}, {32}, {4}, {0})).contiguousRegisters(0), 4);
  // Repetitions are not contiguous with the first vector: still 4.
  EXPECT_EQ(toLinearLayout({4096}, Encoding::blocked({4}, {32}, {4}, {0})).contiguousRegisters(0), 4);
  // Clamped by the shape.
  EXPECT_EQ(toLinearLayout({2}, Encoding::blocked({4}, {32}, {4}, {0})).contiguousRegisters(0), 2);
  EXPECT_EQ(toLinearLayout({128}, Encoding::blocked({1}, {32}, {4}, {0})).contiguousRegisters(0), 1);
  // 2-D: the first register bases go along order[0].
  Encoding rowMajor = Encoding::blocked({2, 4}, {8, 4}, {1, 1}, {1, 0});
  Encoding colMajor = Encoding::blocked({2, 4}, {8, 4}, {1, 1}, {0, 1});
  EXPECT_EQ(toLinearLayout({16, 16}, rowMajor).contiguousRegisters(1), 4);
  EXPECT_EQ(toLinearLayout({16, 16}, rowMajor).contiguousRegisters(0), 1);
  EXPECT_EQ(toLinearLayout({16, 16}, colMajor).contiguousRegisters(0), 2);
  EXPECT_EQ(toLinearLayout({16, 16}, colMajor).contiguousRegisters(1), 1);
  // A register that reaches past a basis with another coordinate breaks the run.
  LinearLayout::Bases b;
  b[0] = {{0, 1}, {1, 2}};
  EXPECT_EQ(LinearLayout(b, {2, 4}).contiguousRegisters(1), 2);
  // No registers at all: a single register is trivially contiguous.
  EXPECT_EQ(LinearLayout::empty(1).contiguousRegisters(0), 1);
}

/// The smallest index (block, warp, lane, register lexicographic) over the
/// in dims `dims` (others 0) that maps to `coords`, by exhaustive search.
std::optional<HwIndex> bruteInvert(const LinearLayout& ll, const Coords& coords, const std::vector<HwDim>& dims) {
  auto size = [&](HwDim d) {
    return std::find(dims.begin(), dims.end(), d) == dims.end() ? int64_t{1} : ll.inDimSize(d);
  };
  for (int64_t b = 0; b < size(HwDim::Block); ++b)
    for (int64_t w = 0; w < size(HwDim::Warp); ++w)
      for (int64_t l = 0; l < size(HwDim::Lane); ++l)
        for (int64_t r = 0; r < size(HwDim::Register); ++r)
          if (ll.apply(HwIndex{r, l, w, b}) == coords) return HwIndex{r, l, w, b};
  return std::nullopt;
}

void checkInvert(const LinearLayout& ll) {
  SCOPED_TRACE(ll.str());
  std::vector<std::vector<HwDim>> dimSets = {{HwDim::Register, HwDim::Lane, HwDim::Warp, HwDim::Block},
                                             {HwDim::Register},
                                             {HwDim::Lane, HwDim::Warp},
                                             {HwDim::Register, HwDim::Warp}};
  for (const auto& dims : dimSets)
    for (int64_t flat = 0; flat < ll.totalOutSize(); ++flat) {
      Coords c(ll.rank());
      int64_t rest = flat;
      for (int k = ll.rank() - 1; k >= 0; --k) {
        c[k] = rest % ll.outDimSize(k);
        rest /= ll.outDimSize(k);
      }
      auto got = ll.invert(c, dims);
      auto want = bruteInvert(ll, c, dims);
      ASSERT_EQ(got.has_value(), want.has_value()) << "coords " << ::testing::PrintToString(c);
      if (want) {
        ASSERT_EQ(*got, *want) << "coords " << ::testing::PrintToString(c);
      }
    }
}

/// A random layout whose bases may be zero or dependent (rank 1..3).
LinearLayout randomLayout(std::mt19937& rng) {
  int rank = 1 + static_cast<int>(rng() % 3);
  std::vector<int64_t> sizes(rank);
  for (auto& s : sizes) s = int64_t{1} << (rng() % 4);
  LinearLayout::Bases bases;
  int counts[kNumHwDims] = {static_cast<int>(rng() % 4), static_cast<int>(rng() % 4), static_cast<int>(rng() % 3),
                            static_cast<int>(rng() % 2)};
  for (int d = 0; d < kNumHwDims; ++d)
    for (int i = 0; i < counts[d]; ++i) {
      std::vector<int64_t> b(rank);
      for (int k = 0; k < rank; ++k) b[k] = (rng() % 3 == 0) ? 0 : static_cast<int64_t>(rng() % sizes[k]);
      bases[d].push_back(std::move(b));
    }
  return LinearLayout(std::move(bases), sizes);
}

TEST(LinearLayout, InvertMatchesExhaustiveSearch) {
  checkInvert(toLinearLayout({64, 32}, Encoding::blocked({1, 4}, {8, 4}, {4, 1}, {1, 0})));
  checkInvert(toLinearLayout({4, 4}, Encoding::blocked({1, 4}, {8, 4}, {4, 1}, {1, 0})));
  checkInvert(toLinearLayout({256}, Encoding::blocked({2}, {32}, {2}, {0})));
  checkInvert(toLinearLayout({2, 8, 4}, Encoding::blocked({1, 2, 2}, {2, 4, 4}, {2, 1, 2}, {2, 1, 0})));
  checkInvert(sharedToLinearLayout({16, 32}, Encoding::swizzledShared(4, 2, 4, {1, 0})));
  std::mt19937 rng(12345);
  for (int i = 0; i < 200; ++i) checkInvert(randomLayout(rng));
}

TEST(LinearLayout, InvertRejectsOutOfRangeCoordinates) {
  LinearLayout ll = toLinearLayout({128}, Encoding::blocked({1}, {32}, {4}, {0}));
  EXPECT_FALSE(ll.invert({128}).has_value());
  EXPECT_FALSE(ll.invert({-1}).has_value());
  // Only registers: element 1 lives in lane 1.
  EXPECT_FALSE(ll.invert({1}, {HwDim::Register}).has_value());
  EXPECT_EQ(*ll.invert({37}), (HwIndex{0, 5, 1, 0}));
}

TEST(LinearLayout, FreeVariablesAndSurjectivityMatchExhaustiveSearch) {
  std::mt19937 rng(777);
  for (int iter = 0; iter < 300; ++iter) {
    LinearLayout ll = randomLayout(rng);
    SCOPED_TRACE(ll.str());
    std::set<Coords> image;
    std::map<Coords, int> heldByNonFree;
    int64_t indices = 0;
    auto masks = ll.freeVariableMasks();
    forEachIndex(ll, [&](const HwIndex& i) {
      ++indices;
      Coords c = ll.apply(i);
      image.insert(c);
      bool nonFree = true;
      for (int d = 0; d < kNumHwDims; ++d) nonFree = nonFree && (i[d] & masks[d]) == 0;
      if (nonFree) ++heldByNonFree[c];
    });
    // The indices with free bits zero hold the whole image, each element once.
    ASSERT_EQ(heldByNonFree.size(), image.size());
    for (const auto& [c, n] : heldByNonFree) ASSERT_EQ(n, 1);
    // Every free bit is genuinely redundant: the image has 2^(non-free bits) elements.
    int nonFreeBits = 0;
    for (int d = 0; d < kNumHwDims; ++d)
      nonFreeBits += ll.numBases(static_cast<HwDim>(d)) - std::popcount(static_cast<uint64_t>(masks[d]));
    ASSERT_EQ(static_cast<int64_t>(image.size()), int64_t{1} << nonFreeBits);
    EXPECT_EQ(ll.isSurjective(), static_cast<int64_t>(image.size()) == ll.totalOutSize());
    EXPECT_EQ(ll.isBijective(), static_cast<int64_t>(image.size()) == ll.totalOutSize() &&
                                    indices == ll.totalOutSize());
  }
}

TEST(LinearLayout, SliceHoldsTheParentsElementsWithoutTheDim) {
  struct Case {
    Encoding parent;
    std::vector<int64_t> shape;  // the slice's shape
  };
  Encoding b2 = Encoding::blocked({1, 4}, {8, 4}, {4, 1}, {1, 0});
  Encoding b3 = Encoding::blocked({1, 2, 2}, {2, 4, 4}, {2, 1, 2}, {2, 1, 0});
  std::vector<Case> cases = {{b2, {64}}, {b2, {128}}, {b2, {2}}, {b3, {4, 8}}, {b3, {16, 2}}, {b3, {1, 64}}};
  for (const Case& c : cases)
    for (int64_t dim = 0; dim < c.parent.rank(); ++dim) {
      if (c.parent.rank() - 1 != static_cast<int64_t>(c.shape.size())) continue;
      Encoding slice = Encoding::slice(dim, c.parent);
      SCOPED_TRACE(slice.str() + " on " + ::testing::PrintToString(c.shape));
      LinearLayout ll = toLinearLayout(c.shape, slice);
      std::vector<int64_t> parentShape = c.shape;
      parentShape.insert(parentShape.begin() + dim, 1);
      DirectBlocked direct(c.parent, parentShape);
      ASSERT_EQ(ll.inDimSize(HwDim::Lane), product(c.parent.threadsPerWarp()));
      ASSERT_EQ(ll.inDimSize(HwDim::Warp), product(c.parent.warpsPerCTA()));
      // Per thread: the same elements as the parent's, the sliced dim dropped.
      for (int64_t w = 0; w < ll.inDimSize(HwDim::Warp); ++w)
        for (int64_t l = 0; l < ll.inDimSize(HwDim::Lane); ++l) {
          std::vector<Coords> mine, parents;
          for (int64_t r = 0; r < ll.inDimSize(HwDim::Register); ++r) mine.push_back(ll.apply(HwIndex{r, l, w, 0}));
          for (int64_t r = 0; r < direct.numRegisters(); ++r) {
            Coords p = direct.at(r, l, w);
            p.erase(p.begin() + dim);
            parents.push_back(p);
          }
          std::sort(mine.begin(), mine.end());
          std::sort(parents.begin(), parents.end());
          ASSERT_EQ(mine, parents) << "lane " << l << " warp " << w;
          ASSERT_EQ(std::adjacent_find(mine.begin(), mine.end()), mine.end()) << "a register is duplicated";
        }
      EXPECT_TRUE(ll.isSurjective());
    }
}

TEST(LinearLayout, SliceOfSliceAndSliceErrors) {
  Encoding b3 = Encoding::blocked({1, 1, 4}, {2, 4, 4}, {2, 2, 1}, {2, 1, 0});
  // Slicing dim 2, then dim 0 of the result, leaves the parent's dim 1:
  // each thread holds the parent's dim-1 coordinates of a 1 x 8 x 1 tensor.
  Encoding s = Encoding::slice(0, Encoding::slice(2, b3));
  LinearLayout ll = toLinearLayout({8}, s);
  DirectBlocked direct(b3, {1, 8, 1});
  for (int64_t w = 0; w < 4; ++w)
    for (int64_t l = 0; l < 32; ++l) {
      std::set<Coords> mine, parents;
      for (int64_t r = 0; r < ll.inDimSize(HwDim::Register); ++r) mine.insert(ll.apply(HwIndex{r, l, w, 0}));
      for (int64_t r = 0; r < direct.numRegisters(); ++r) parents.insert({direct.at(r, l, w)[1]});
      ASSERT_EQ(mine, parents);
    }
  EXPECT_THROW(toLinearLayout({8, 8}, s), Error);
}

/// Triton's swizzled shared address of element (row, col): the vec-element
/// group index XOR the phase, within the row.
int64_t swizzledOffset(const Coords& c, const std::vector<int64_t>& shape, Encoding e) {
  const auto& order = e.order();
  if (shape.size() == 1) return c[0];
  int64_t numCols = shape[order[0]], numRows = shape[order[1]];
  int64_t row = c[order[1]], col = c[order[0]];
  int64_t phase = (row / e.perPhase()) % e.maxPhase();
  int64_t swizzled = col;
  if (e.vec() < numCols) swizzled = (((col / e.vec()) ^ phase) % (numCols / e.vec())) * e.vec() + col % e.vec();
  int64_t offset = row * numCols + swizzled;
  int64_t stride = numCols * numRows;
  for (size_t i = 2; i < order.size(); ++i) {
    offset += c[order[i]] * stride;
    stride *= shape[order[i]];
  }
  return offset;
}

TEST(LinearLayout, SwizzledSharedIsABijectionMatchingTritonsFormula) {
  struct Case {
    int64_t vec, perPhase, maxPhase;
    std::vector<int64_t> order, shape;
  };
  std::vector<Case> cases = {
      {1, 1, 1, {1, 0}, {16, 32}},   // plain row-major
      {1, 1, 1, {0, 1}, {16, 32}},   // plain column-major
      {8, 1, 8, {1, 0}, {64, 64}},   // the classic fp16 128B swizzle
      {4, 2, 4, {1, 0}, {16, 32}},
      {4, 2, 4, {0, 1}, {16, 32}},
      {8, 1, 8, {1, 0}, {8, 16}},    // vec * maxPhase wider than a row: wraps
      {16, 1, 4, {1, 0}, {8, 8}},    // vec wider than a row: no swizzle
      {2, 4, 2, {1, 0}, {1, 16}},
      {4, 1, 4, {0}, {32}},          // 1-D: identity
      {2, 1, 4, {2, 1, 0}, {4, 8, 8}},
      {2, 1, 4, {1, 2, 0}, {2, 8, 16}},
  };
  for (const Case& c : cases) {
    Encoding e = Encoding::swizzledShared(c.vec, c.perPhase, c.maxPhase, c.order);
    SCOPED_TRACE(e.str() + " on " + ::testing::PrintToString(c.shape));
    LinearLayout ll = sharedToLinearLayout(c.shape, e);
    ASSERT_EQ(ll.outDimSizes(), c.shape);
    ASSERT_EQ(ll.inDimSize(HwDim::Register), product(c.shape));
    EXPECT_TRUE(ll.isBijective());
    std::set<Coords> seen;
    for (int64_t off = 0; off < product(c.shape); ++off) {
      Coords elem = ll.apply(HwDim::Register, off);
      ASSERT_EQ(swizzledOffset(elem, c.shape, e), off) << "offset " << off;
      seen.insert(elem);
    }
    EXPECT_EQ(static_cast<int64_t>(seen.size()), product(c.shape));
  }
  // The unswizzled layout is plain row-major along the order.
  LinearLayout plain = sharedToLinearLayout({4, 8}, Encoding::swizzledShared(1, 1, 1, {1, 0}));
  EXPECT_EQ(plain.str(),
            "register = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0]], lane = [], warp = [], block = [] -> [4, 8]");
  EXPECT_THROW(sharedToLinearLayout({4, 8}, Encoding::blocked({1, 1}, {4, 8}, {1, 1}, {1, 0})), Error);
  EXPECT_THROW(toLinearLayout({4, 8}, Encoding::swizzledShared(1, 1, 1, {1, 0})), Error);
}

TEST(LinearLayout, ProductIdentityAndZeros) {
  LinearLayout a = LinearLayout::identity1D(4, HwDim::Register, 1, 2);
  EXPECT_EQ(a.str(), "register = [[0, 1], [0, 2]], lane = [], warp = [], block = [] -> [1, 4]");
  LinearLayout b = LinearLayout::identity1D(8, HwDim::Lane, 1, 2) * LinearLayout::identity1D(4, HwDim::Lane, 0, 2);
  EXPECT_EQ(b.str(), "register = [], lane = [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0]], warp = [], block = [] -> [4, 8]");
  // Other's coordinates are scaled past this layout's extent per dim.
  LinearLayout ab = a * b;
  EXPECT_EQ(ab.str(),
            "register = [[0, 1], [0, 2]], lane = [[0, 4], [0, 8], [0, 16], [1, 0], [2, 0]], warp = [], block = [] "
            "-> [4, 32]");
  // Registers present in both: this layout's first.
  LinearLayout aa = a * LinearLayout::identity1D(2, HwDim::Register, 0, 2);
  EXPECT_EQ(aa.bases(HwDim::Register), (std::vector<std::vector<int64_t>>{{0, 1}, {0, 2}, {1, 0}}));
  LinearLayout z = a * LinearLayout::zeros1D(4, HwDim::Warp, 2);
  EXPECT_EQ(z.bases(HwDim::Warp), (std::vector<std::vector<int64_t>>{{0, 0}, {0, 0}}));
  EXPECT_EQ(z.outDimSizes(), (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(z.freeVariableMasks()[2], 0b11);
  EXPECT_FALSE(z.isBijective());
  EXPECT_TRUE(z.isSurjective());
  EXPECT_EQ(LinearLayout::empty(3).totalOutSize(), 1);
  EXPECT_TRUE(LinearLayout::empty(3).isBijective());
  EXPECT_EQ(a * LinearLayout::empty(2), a);
  EXPECT_EQ(LinearLayout::empty(2) * a, a);
}

TEST(LinearLayout, ApplyXorsTheBasesOfSetBits) {
  LinearLayout::Bases b;
  b[0] = {{1, 2}, {3, 0}, {0, 5}};
  b[1] = {{2, 1}};
  LinearLayout ll(b, {4, 8});
  EXPECT_EQ(ll.apply(HwDim::Register, 0b101), (Coords{1, 7}));
  EXPECT_EQ(ll.apply(HwDim::Register, 0b111), (Coords{2, 7}));
  EXPECT_EQ(ll.apply(HwIndex{0b011, 1, 0, 0}), (Coords{0, 3}));
}

/// f applied to every hardware index of `from` and `to` agrees.
template <typename F>
void expectSameUpTo(const LinearLayout& from, const LinearLayout& to, F f) {
  ASSERT_EQ(from.bases().size(), to.bases().size());
  for (HwDim d : {HwDim::Register, HwDim::Lane, HwDim::Warp, HwDim::Block})
    ASSERT_EQ(from.inDimSize(d), to.inDimSize(d));
  forEachIndex(from, [&](const HwIndex& i) { ASSERT_EQ(to.apply(i), f(from.apply(i))); });
}

TEST(LinearLayout, TransposeReshapeInsertDropOuts) {
  LinearLayout ll = toLinearLayout({4, 8, 16}, Encoding::blocked({1, 2, 2}, {2, 4, 4}, {2, 1, 2}, {2, 1, 0}));
  // Transpose: result dim i = this dim order[i].
  std::vector<int64_t> order = {2, 0, 1};
  LinearLayout t = ll.transposedOuts(order);
  EXPECT_EQ(t.outDimSizes(), (std::vector<int64_t>{16, 4, 8}));
  expectSameUpTo(ll, t, [&](const Coords& c) { return Coords{c[2], c[0], c[1]}; });
  // Reshape: row-major flat index kept.
  for (std::vector<int64_t> shape : {std::vector<int64_t>{512}, {32, 16}, {2, 2, 128}, {64, 2, 2, 2}}) {
    LinearLayout r = ll.reshapedOuts(shape);
    EXPECT_EQ(r.outDimSizes(), shape);
    expectSameUpTo(ll, r, [&](const Coords& c) {
      int64_t flat = (c[0] * 8 + c[1]) * 16 + c[2];
      Coords out(shape.size());
      for (int k = static_cast<int>(shape.size()) - 1; k >= 0; --k) {
        out[k] = flat % shape[k];
        flat /= shape[k];
      }
      return out;
    });
  }
  // Insert a size-1 dim, then drop it again.
  LinearLayout ins = ll.insertedOutDim(1);
  EXPECT_EQ(ins.outDimSizes(), (std::vector<int64_t>{4, 1, 8, 16}));
  expectSameUpTo(ll, ins, [](const Coords& c) { return Coords{c[0], 0, c[1], c[2]}; });
  EXPECT_EQ(ins.droppedOutDim(1), ll);
  EXPECT_EQ(ll.insertedOutDim(3).outDimSizes(), (std::vector<int64_t>{4, 8, 16, 1}));
  // Drop: register bases that only moved along the dropped dim disappear;
  // lanes and warps become broadcast (zero) bases.
  LinearLayout dropped = ll.droppedOutDim(2);
  EXPECT_EQ(dropped.outDimSizes(), (std::vector<int64_t>{4, 8}));
  int regsAlongDim2 = 0;
  for (const auto& b : ll.bases(HwDim::Register)) regsAlongDim2 += b[2] != 0 && b[0] == 0 && b[1] == 0;
  EXPECT_EQ(dropped.numBases(HwDim::Register), ll.numBases(HwDim::Register) - regsAlongDim2);
  EXPECT_EQ(dropped.numBases(HwDim::Lane), ll.numBases(HwDim::Lane));
  EXPECT_EQ(dropped.numBases(HwDim::Warp), ll.numBases(HwDim::Warp));
  std::set<Coords> want, got;
  forEachIndex(ll, [&](const HwIndex& i) {
    Coords c = ll.apply(i);
    want.insert({c[0], c[1]});
  });
  forEachIndex(dropped, [&](const HwIndex& i) { got.insert(dropped.apply(i)); });
  EXPECT_EQ(got, want);
}

TEST(LinearLayout, ResizedToGrowsInRegistersAlongTheOrder) {
  LinearLayout tile = LinearLayout::identity1D(2, HwDim::Lane, 0, 2) * LinearLayout::identity1D(2, HwDim::Lane, 1, 2);
  // Default order rank-1 .. 0: dim 1's repetitions first.
  EXPECT_EQ(tile.resizedTo({4, 4}).bases(HwDim::Register),
            (std::vector<std::vector<int64_t>>{{0, 2}, {2, 0}}));
  EXPECT_EQ(tile.resizedTo({4, 4}, {0, 1}).bases(HwDim::Register),
            (std::vector<std::vector<int64_t>>{{2, 0}, {0, 2}}));
  // Shrinking: lanes past the shape become zero.
  EXPECT_EQ(tile.resizedTo({1, 2}).bases(HwDim::Lane), (std::vector<std::vector<int64_t>>{{0, 0}, {0, 1}}));
  EXPECT_EQ(tile.resizedTo({2, 2}), tile);
}

TEST(LinearLayout, ToEncodingRoundTrips) {
  for (auto [shape, enc] : std::vector<std::pair<std::vector<int64_t>, Encoding>>{
           {{64, 32}, Encoding::blocked({1, 4}, {8, 4}, {4, 1}, {1, 0})},
           {{4, 4}, Encoding::blocked({1, 4}, {8, 4}, {4, 1}, {1, 0})},
           {{2, 8, 4}, Encoding::blocked({1, 2, 2}, {2, 4, 4}, {2, 1, 2}, {2, 1, 0})},
           {{64}, Encoding::slice(1, Encoding::blocked({1, 4}, {8, 4}, {4, 1}, {1, 0}))},
           {{1, 1}, Encoding::blocked({1, 1}, {4, 8}, {1, 1}, {1, 0})}}) {
    LinearLayout ll = toLinearLayout(shape, enc);
    Encoding lin = ll.toEncoding();
    ASSERT_TRUE(lin.isLinear());
    EXPECT_EQ(lin, ll.toEncoding());  // interned
    EXPECT_EQ(toLinearLayout(shape, lin), ll) << lin.str();
  }
}

TEST(LinearLayout, BadShapesAndEncodingsThrow) {
  Encoding b = Encoding::blocked({1}, {32}, {4}, {0});
  EXPECT_THROW(toLinearLayout({12}, b), Error);         // not a power of two
  EXPECT_THROW(toLinearLayout({100}, b), Error);
  EXPECT_THROW(toLinearLayout({16, 16}, b), Error);     // rank mismatch
  EXPECT_THROW(toLinearLayout({16}, Encoding()), Error);
  EXPECT_THROW(toLinearLayout({16}, Encoding::blocked({3}, {32}, {4}, {0})), Error);
  EXPECT_THROW(toLinearLayout({16, 16}, Encoding::blocked({1, 1}, {4, 8}, {1, 1}, {0, 0})), Error);
  // A linear encoding fixes its shape.
  Encoding lin = Encoding::linear({{{0, 1}}, {{1, 0}, {2, 0}}, {}, {}});
  EXPECT_EQ(toLinearLayout({4, 2}, lin).str(),
            "register = [[0, 1]], lane = [[1, 0], [2, 0]], warp = [], block = [] -> [4, 2]");
  EXPECT_THROW(toLinearLayout({8, 2}, lin), Error);
  EXPECT_THROW(toLinearLayout({4, 1}, lin), Error);
  EXPECT_THROW(toLinearLayout({4, 2, 1}, lin), Error);
  EXPECT_THROW(toLinearLayout({6, 2}, lin), Error);
  EXPECT_THROW(sharedToLinearLayout({12, 8}, Encoding::swizzledShared(1, 1, 1, {1, 0})), Error);
}

}  // namespace

namespace tessera::gpu {
namespace {

// nvmma_shared: offset -> element, against the layout wgmma's descriptors
// describe, written out: atoms of `swizzle` bytes per row along dim 1,
// rows inside an atom, 16-byte chunks XOR (row / perPhase) % maxPhase.
TEST(LinearLayout, NvmmaSharedMatchesTheWgmmaOperandLayout) {
  struct Case {
    std::vector<int64_t> shape;
    int64_t swizzle;
  } cases[] = {{{64, 64}, 128}, {{128, 32}, 64}, {{64, 16}, 32}, {{64, 128}, 128}, {{16, 256}, 128}};
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.shape[0]) + "x" + std::to_string(c.shape[1]) + " swizzle " + std::to_string(c.swizzle));
    LinearLayout ll = sharedToLinearLayout(c.shape, ir::Encoding::nvmmaShared(c.swizzle, false, 16));
    int64_t rows = c.shape[0], cols = c.shape[1];
    int64_t atomCols = std::min<int64_t>(cols, c.swizzle / 2);
    int64_t perPhase = 128 / c.swizzle, maxPhase = std::min<int64_t>(8 / perPhase, atomCols / 8);
    for (int64_t o = 0; o < rows * cols; ++o) {
      std::vector<int64_t> rc = ll.apply(HwDim::Register, o);
      int64_t r = rc[0], col = rc[1];
      int64_t within = r * atomCols + ((((col % atomCols) / 8) ^ ((r / perPhase) % maxPhase)) * 8) + col % 8;
      ASSERT_EQ((col / atomCols) * rows * atomCols + within, o) << "element (" << r << ", " << col << ")";
    }
  }
}

}  // namespace
}  // namespace tessera::gpu
