//===- WarpsTest.cpp - Every num_warps from 1 to 32 ------------------------===//
//
// kernels/warps.py at num_warps 1, 2, 4, 8, 16 and 32: reductions of a 2-D
// tile along each axis (sum, max, argmax with ties), a cumsum, a row softmax,
// a row sort, a histogram with atomics. Tiles both larger and smaller than
// the block (warps then hold copies of the same elements), odd extents,
// random inputs, C++ references. On the interpreter num_warps changes
// nothing; on the GPU it changes every layout and the cross-warp paths.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cmath>

#include "e2e/Harness.h"

using namespace e2e;
using tessera::DType;

namespace {

const char* kFile = "warps.py";
const int kWarps[] = {1, 2, 4, 8, 16, 32};

tessera::LaunchOptions warps(int n) {
  tessera::LaunchOptions o;
  o.num_warps = n;
  return o;
}

TEST(Warps, TileReductionsAndCumsum) {
  E2E_RNG(rng);
  // A 16 x 64 tile holds 1024 elements: from 32 per thread (1 warp) to one
  // per thread (32 warps); the 13 x 45 problem leaves masked edges.
  const int64_t R = 13, C = 45;
  for (int w : kWarps) {
    SCOPED_TRACE("num_warps " + std::to_string(w));
    auto x = rng.ints<int32_t>(R * C, -50, 50);
    for (int64_t r = 0; r < R; ++r) x[r * C + rng.integer(0, C - 1)] = 50;  // ties for argmax
    auto tx = dev().upload(x, {R * C});
    auto rs = dev().zeros(DType::i32, {R}), rm = dev().zeros(DType::i32, {R}), ra = dev().zeros(DType::i32, {R});
    auto cs = dev().zeros(DType::i32, {C}), cu = dev().zeros(DType::i32, {R * C});
    kernel(kFile, "tile_stats")
        .launch(dev(), {1}, {tx, rs, rm, ra, cs, cu, R, C}, {{"BLOCK_R", int64_t(16)}, {"BLOCK_C", int64_t(64)}},
                warps(w));
    std::vector<int32_t> wrs(R, 0), wrm(R), wra(R), wcs(C, 0), wcu(R * C);
    for (int64_t r = 0; r < R; ++r) {
      const int32_t* row = &x[r * C];
      wra[r] = static_cast<int32_t>(std::max_element(row, row + C) - row);  // first maximum
      wrm[r] = row[wra[r]];
      int32_t acc = 0;
      for (int64_t c = 0; c < C; ++c) {
        acc += row[c];
        wcu[r * C + c] = acc;
        wcs[c] += row[c];
      }
      wrs[r] = acc;
    }
    expectEqual(rs.download<int32_t>(), wrs, "row sums");
    expectEqual(rm.download<int32_t>(), wrm, "row maxima");
    expectEqual(ra.download<int32_t>(), wra, "row argmax");
    expectEqual(cs.download<int32_t>(), wcs, "column sums");
    expectEqual(cu.download<int32_t>(), wcu, "cumsum along rows");
  }
}

TEST(Warps, RowSoftmax) {
  E2E_RNG(rng);
  const int64_t rows = 7;
  for (int64_t cols : {int64_t(37), int64_t(300), int64_t(1000)}) {
    int64_t block = 1;
    while (block < cols) block *= 2;
    for (int w : kWarps) {
      SCOPED_TRACE("cols " + std::to_string(cols) + ", num_warps " + std::to_string(w));
      auto x = rng.floats(rows * cols, -8, 8);
      auto tx = dev().upload(x, {rows, cols});
      auto ty = dev().zeros(DType::fp32, {rows, cols});
      kernel(kFile, "row_softmax").launch(dev(), {rows}, {tx, ty, cols}, {{"BLOCK", block}}, warps(w));
      std::vector<float> want = rowSoftmaxReference(x, rows, cols);
      expectClose(ty.download<float>(), want, 1e-5, 1e-7, "softmax");
    }
  }
}

TEST(Warps, SortRows) {
  E2E_RNG(rng);
  const int64_t R = 4, C = 128;
  for (int w : kWarps) {
    SCOPED_TRACE("num_warps " + std::to_string(w));
    auto x = rng.floats(R * C, -1000, 1000);
    for (int64_t i = 0; i < 20; ++i) x[rng.integer(0, R * C - 1)] = x[rng.integer(0, R * C - 1)];  // duplicates
    auto tx = dev().upload(x, {R, C});
    auto ty = dev().zeros(DType::fp32, {R, C});
    kernel(kFile, "sort_rows").launch(dev(), {1}, {tx, ty}, {{"BLOCK_R", R}, {"BLOCK_C", C}}, warps(w));
    std::vector<float> want = x;
    for (int64_t r = 0; r < R; ++r) std::sort(want.begin() + r * C, want.begin() + (r + 1) * C);
    expectSameBits(ty.download<float>(), want, "sorted rows");
  }
}

TEST(Warps, HistogramAndAtomics) {
  E2E_RNG(rng);
  const int64_t n = 3001, bins = 64, block = 512;
  for (int w : kWarps) {
    SCOPED_TRACE("num_warps " + std::to_string(w));
    auto x = rng.ints<int32_t>(n, 0, bins - 1);
    auto tx = dev().upload(x, {n});
    auto hist = dev().zeros(DType::i32, {bins}), total = dev().zeros(DType::i32, {1});
    kernel(kFile, "histogram_and_atomics")
        .launch(dev(), {cdiv(n, block)}, {tx, hist, total, n}, {{"BINS", bins}, {"BLOCK", block}}, warps(w));
    std::vector<int32_t> want(bins, 0);
    int32_t sum = 0;
    for (int32_t v : x) ++want[v], sum += v;
    expectEqual(hist.download<int32_t>(), want, "histogram");
    expectEqual(total.download<int32_t>(), std::vector<int32_t>{sum}, "total");
  }
}

}  // namespace
