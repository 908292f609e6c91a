//===- ReductionsTest.cpp - Reductions, scans and sorting -----------------===//
//
// kernels/reductions.py: sum/max/min/argmax/argmin over masked rows, int8
// sums accumulating in int32, xor_sum, tl.reduce with @jit combine functions
// (including a (value, index) tuple reduce), cumsum/cumprod/associative_scan
// forwards and reversed, sort both ways and flip.
//
//===----------------------------------------------------------------------===//

#include <algorithm>

#include "e2e/Harness.h"

using namespace e2e;
using tessera::DType;

namespace {

const char* kFile = "reductions.py";

TEST(Reductions, MaskedRowReductions) {
  E2E_RNG(rng);
  int64_t rows = 23, cols = 45, stride = 48;
  auto x = rng.floats(rows * stride, -100, 100);
  auto tx = dev().upload(x, {rows, stride});
  auto sum = dev().zeros(DType::fp32, {rows}), mx = dev().zeros(DType::fp32, {rows});
  auto mn = dev().zeros(DType::fp32, {rows});
  auto amax = dev().zeros(DType::i32, {rows}), amin = dev().zeros(DType::i32, {rows});
  kernel(kFile, "row_reductions")
      .launch(dev(), {cdiv(rows, 8)}, {tx, sum, mx, mn, amax, amin, rows, cols, stride},
              {{"BLOCK_R", int64_t(8)}, {"BLOCK_C", int64_t(64)}});
  std::vector<float> wSum(rows), wMax(rows), wMin(rows);
  std::vector<int32_t> wAmax(rows), wAmin(rows);
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = &x[r * stride];
    double s = 0;
    for (int64_t c = 0; c < cols; ++c) s += row[c];
    wSum[r] = static_cast<float>(s);
    wAmax[r] = static_cast<int32_t>(std::max_element(row, row + cols) - row);
    wAmin[r] = static_cast<int32_t>(std::min_element(row, row + cols) - row);
    wMax[r] = row[wAmax[r]];
    wMin[r] = row[wAmin[r]];
  }
  expectClose(sum.download<float>(), wSum, 1e-5, 1e-3, "sum");
  expectSameBits(mx.download<float>(), wMax, "max");
  expectSameBits(mn.download<float>(), wMin, "min");
  expectEqual(amax.download<int32_t>(), wAmax, "argmax");
  expectEqual(amin.download<int32_t>(), wAmin, "argmin");
}

TEST(Reductions, IntegerReductionsAndCombineFunctions) {
  E2E_RNG(rng);
  int64_t n = 201, block = 256;
  // Small values: ties for max/min are certain (leftmost index wins), and
  // the int8 sum leaves int8's range.
  auto x = rng.ints<int8_t>(n, -20, 20);
  for (int64_t i = 0; i < 40; ++i) x[i] = static_cast<int8_t>(rng.integer(90, 127));
  auto tx = dev().upload(x, {n});
  auto out = dev().zeros(DType::i32, {8});
  kernel(kFile, "int_reductions").launch(dev(), {1}, {tx, out, n}, {{"BLOCK", block}});
  int32_t sum = 0, xr = 0, mx = -1000, mn = 1000, amax = 0, amin = 0, mag = 0;
  uint32_t prod = 1;
  for (int64_t i = 0; i < n; ++i) {
    int32_t v = x[i];
    sum += v;
    xr ^= static_cast<int32_t>(static_cast<uint32_t>(v) * 7919u);
    if (v > mx) mx = v, amax = static_cast<int32_t>(i);
    if (v < mn) mn = v, amin = static_cast<int32_t>(i);
    prod *= static_cast<uint32_t>(v);
    mag = std::max(mag, std::abs(v));
  }
  std::vector<int32_t> want = {sum, xr, mx, amax, amin, static_cast<int32_t>(prod), mag, mn};
  expectEqual(out.download<int32_t>(), want, "sum, xor_sum, max, argmax, argmin, product, magnitude, min");
}

TEST(Reductions, TupleReduceArgmax) {
  E2E_RNG(rng);
  int64_t rows = 9, cols = 100;
  auto x = rng.floats(rows * cols, -10, 10);
  for (int64_t c = 0; c < cols; c += 3) x[2 * cols + c] = 11.0f;  // ties in row 2: leftmost wins
  auto tx = dev().upload(x, {rows, cols});
  auto vals = dev().zeros(DType::fp32, {rows});
  auto idx = dev().zeros(DType::i32, {rows});
  kernel(kFile, "tuple_reduce").launch(dev(), {rows}, {tx, vals, idx, cols}, {{"BLOCK", int64_t(128)}});
  std::vector<float> wv(rows);
  std::vector<int32_t> wi(rows);
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = &x[r * cols];
    wi[r] = static_cast<int32_t>(std::max_element(row, row + cols) - row);
    wv[r] = row[wi[r]];
  }
  expectSameBits(vals.download<float>(), wv, "reduced values");
  expectEqual(idx.download<int32_t>(), wi, "reduced indices");
}

TEST(Reductions, ScansForwardAndReverse) {
  E2E_RNG(rng);
  int64_t n = 181, block = 256;
  auto x = rng.ints<int32_t>(n, -1000, 1000);
  auto f = rng.floats(n, 0.9f, 1.1f);
  auto tx = dev().upload(x, {n}), tf = dev().upload(f, {n});
  auto csum = dev().zeros(DType::i32, {n}), rsum = dev().zeros(DType::i32, {n});
  auto cprod = dev().zeros(DType::fp32, {n}), smax = dev().zeros(DType::i32, {n});
  kernel(kFile, "scans").launch(dev(), {1}, {tx, tf, csum, rsum, cprod, smax, n}, {{"BLOCK", block}});
  std::vector<int32_t> wc(n), wr(n), ws(n);
  std::vector<float> wp(n);
  int32_t run = 0;
  double prod = 1;
  for (int64_t i = 0; i < n; ++i) {
    run += x[i];
    wc[i] = run;
    prod *= f[i];
    wp[i] = static_cast<float>(prod);
  }
  run = 0;
  int32_t best = -1000000;
  for (int64_t i = n - 1; i >= 0; --i) {
    run += x[i];
    wr[i] = run;
    best = std::max(best, x[i]);
    ws[i] = best;
  }
  expectEqual(csum.download<int32_t>(), wc, "cumsum");
  expectEqual(rsum.download<int32_t>(), wr, "cumsum reverse");
  expectClose(cprod.download<float>(), wp, 3e-5, 0, "cumprod");
  expectEqual(smax.download<int32_t>(), ws, "associative_scan max reverse");
}

TEST(Reductions, ScanAlongAxis1) {
  E2E_RNG(rng);
  const int64_t R = 4, C = 32;
  auto x = rng.ints<int32_t>(R * C, -500, 500);
  auto tx = dev().upload(x, {R, C});
  auto out = dev().zeros(DType::i32, {R, C});
  kernel(kFile, "row_scan").launch(dev(), {1}, {tx, out}, {{"R", R}, {"C", C}});
  std::vector<int32_t> want(R * C);
  for (int64_t r = 0; r < R; ++r) {
    int32_t best = INT32_MIN;
    for (int64_t c = 0; c < C; ++c) want[r * C + c] = best = std::max(best, x[r * C + c]);
  }
  expectEqual(out.download<int32_t>(), want, "running max per row");
}

TEST(Reductions, SortAscendingDescendingAndFlip) {
  E2E_RNG(rng);
  int64_t n = 100, block = 128;
  auto x = rng.ints<int32_t>(n, -50000, 50000);
  auto tx = dev().upload(x, {n});
  auto asc = dev().zeros(DType::i32, {n}), desc = dev().zeros(DType::i32, {n});
  auto flip = dev().zeros(DType::i32, {block});
  kernel(kFile, "sort_and_flip").launch(dev(), {1}, {tx, asc, desc, flip, n}, {{"BLOCK", block}});
  std::vector<int32_t> wa = x, wd = x, wf(block);
  std::sort(wa.begin(), wa.end());
  std::sort(wd.begin(), wd.end(), std::greater<>());
  for (int64_t i = 0; i < block; ++i) {
    int64_t src = block - 1 - i;
    wf[i] = src < n ? x[src] : -2147483647;
  }
  expectEqual(asc.download<int32_t>(), wa, "sort ascending");
  expectEqual(desc.download<int32_t>(), wd, "sort descending");
  expectEqual(flip.download<int32_t>(), wf, "flip");
}

// Unsigned keys sort in unsigned order (tt.sort compares as signed: the
// frontend flips their top bit around it); uint8 values of 128-255 count
// in a histogram.
TEST(Reductions, SortAndHistogramOfUnsignedIntegers) {
  E2E_RNG(rng);
  const int64_t n = 101, block = 128;
  auto x = rng.ints<uint32_t>(n, 0, 0xFFFFFFFFll);
  x[3] = 0x80000000u, x[7] = 0x7FFFFFFFu, x[11] = 0, x[13] = 0xFFFFFFFFu;  // the edges of the flip
  auto tx = dev().upload(x, {n});
  auto asc = dev().zeros(DType::u32, {n}), desc = dev().zeros(DType::u32, {n});
  kernel(kFile, "sort_unsigned").launch(dev(), {1}, {tx, asc, desc, n}, {{"BLOCK", block}});
  std::vector<uint32_t> wa = x, wd = x;
  std::sort(wa.begin(), wa.end());
  std::sort(wd.begin(), wd.end(), std::greater<>());
  expectEqual(asc.download<uint32_t>(), wa, "uint32 sort ascending");
  expectEqual(desc.download<uint32_t>(), wd, "uint32 sort descending");

  auto bytes = rng.ints<uint8_t>(n, 0, 255);
  auto tb = dev().upload(bytes, {n});
  auto hist = dev().zeros(DType::i32, {256});
  kernel(kFile, "histogram_uint8").launch(dev(), {1}, {tb, hist, n}, {{"BLOCK", block}});
  std::vector<int32_t> wh(256, 0);
  for (uint8_t b : bytes) ++wh[b];
  expectEqual(hist.download<int32_t>(), wh, "uint8 histogram");
}

TEST(Reductions, SortRowsOfFloats) {
  E2E_RNG(rng);
  const int64_t R = 8, C = 16;
  auto x = rng.floats(R * C, -1, 1);
  auto tx = dev().upload(x, {R, C});
  auto out = dev().zeros(DType::fp32, {R, C});
  kernel(kFile, "sort_rows").launch(dev(), {1}, {tx, out}, {{"R", R}, {"C", C}});
  auto want = x;
  for (int64_t r = 0; r < R; ++r) std::sort(want.begin() + r * C, want.begin() + (r + 1) * C);
  expectSameBits(out.download<float>(), want, "rows sorted");
}

}  // namespace
