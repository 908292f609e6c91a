//===- ShapesTest.cpp - Shape manipulation ---------------------------------===//
//
// kernels/shapes.py: trans / .T / permute, reshape / view / ravel,
// expand_dims / broadcast / broadcast_to, cat / join / split / interleave,
// gather along either axis and histogram with a mask.
//
//===----------------------------------------------------------------------===//

#include <algorithm>

#include "e2e/Harness.h"

using namespace e2e;
using tessera::DType;

namespace {

const char* kFile = "shapes.py";

TEST(Shapes, TransposeTile) {
  E2E_RNG(rng);
  const int64_t M = 16, N = 32;
  auto x = rng.floats(M * N, -1, 1);
  auto tx = dev().upload(x, {M, N});
  auto t1 = dev().zeros(DType::fp32, {N, M}), t2 = dev().zeros(DType::fp32, {N, M});
  kernel(kFile, "transpose_tile").launch(dev(), {1}, {tx, t1, t2}, {{"M", M}, {"N", N}});
  std::vector<float> want(M * N);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) want[j * M + i] = x[i * N + j];
  expectSameBits(t1.download<float>(), want, "tl.trans");
  expectSameBits(t2.download<float>(), want, "x.T");
}

TEST(Shapes, Permute3D) {
  E2E_RNG(rng);
  const int64_t A = 2, B = 4, C = 8;
  auto x = rng.ints<int32_t>(A * B * C, -1000, 1000);
  auto tx = dev().upload(x, {A, B, C});
  auto out = dev().zeros(DType::i32, {2 * A * B * C});
  kernel(kFile, "permute3").launch(dev(), {1}, {tx, out}, {{"A", A}, {"B", B}, {"C", C}});
  std::vector<int32_t> want(2 * A * B * C);
  for (int64_t a = 0; a < A; ++a)
    for (int64_t b = 0; b < B; ++b)
      for (int64_t c = 0; c < C; ++c) {
        int32_t v = x[(a * B + b) * C + c];
        want[(c * A + a) * B + b] = v;                  // permute(2, 0, 1)
        want[A * B * C + (b * C + c) * A + a] = v;      // trans(1, 2, 0)
      }
  expectEqual(out.download<int32_t>(), want, "permute / trans(dims)");
}

TEST(Shapes, ReshapeViewRavelExpandBroadcast) {
  E2E_RNG(rng);
  const int64_t M = 8, N = 16;
  auto x = rng.ints<int32_t>(M * N, -1000, 1000);
  auto tx = dev().upload(x, {M * N});
  auto rows = dev().zeros(DType::i32, {M}), total = dev().zeros(DType::i32, {2});
  auto ravel = dev().zeros(DType::i32, {M * N}), centered = dev().zeros(DType::i32, {M, N});
  auto pair = dev().zeros(DType::i32, {2 * M * N});
  kernel(kFile, "reshape_family").launch(dev(), {1}, {tx, rows, total, ravel, centered, pair}, {{"M", M}, {"N", N}});
  std::vector<int32_t> wRows(M, 0), wRavel(M * N), wCentered(M * N), wPair(2 * M * N);
  int32_t sum = 0, mx = INT32_MIN;
  for (int64_t i = 0; i < M * N; ++i) {
    wRows[i / N] += x[i];
    sum += x[i];
    mx = std::max(mx, x[i]);
    wRavel[i] = 2 * x[i];
  }
  for (int64_t r = 0; r < M; ++r)
    for (int64_t c = 0; c < N; ++c) {
      wCentered[r * N + c] = wRows[r] - x[r * N + c];
      wPair[r * N + c] = static_cast<int32_t>(wRows[r] * 1000 + c);
      wPair[M * N + r * N + c] = static_cast<int32_t>(x[r * N + c] + c);
    }
  expectEqual(rows.download<int32_t>(), wRows, "reshape + sum(axis=1)");
  expectEqual(total.download<int32_t>(), std::vector<int32_t>{sum, mx}, "view: sum and max");
  expectEqual(ravel.download<int32_t>(), wRavel, "ravel");
  expectEqual(centered.download<int32_t>(), wCentered, "expand_dims + broadcast_to");
  expectEqual(pair.download<int32_t>(), wPair, "broadcast / reshape varargs");
}

TEST(Shapes, CatJoinSplitInterleave) {
  E2E_RNG(rng);
  const int64_t N = 32;
  auto a = rng.ints<int32_t>(N, -100000, 100000), b = rng.ints<int32_t>(N, -100000, 100000);
  auto ta = dev().upload(a, {N}), tb = dev().upload(b, {N});
  auto cat = dev().zeros(DType::i32, {2 * N}), join = dev().zeros(DType::i32, {N, 2});
  auto split = dev().zeros(DType::i32, {N}), inter = dev().zeros(DType::i32, {2 * N});
  kernel(kFile, "join_split").launch(dev(), {1}, {ta, tb, cat, join, split, inter}, {{"N", N}});
  std::vector<int32_t> wCat(a), wJoin(2 * N), wSplit(N);
  wCat.insert(wCat.end(), b.begin(), b.end());
  for (int64_t i = 0; i < N; ++i) {
    wJoin[2 * i] = a[i];
    wJoin[2 * i + 1] = b[i];
    wSplit[i] = 3 * a[i] - 3 * b[i];
  }
  auto gotCat = cat.download<int32_t>();
  std::sort(gotCat.begin(), gotCat.end());
  std::sort(wCat.begin(), wCat.end());
  expectEqual(gotCat, wCat, "cat(can_reorder=True) as a multiset");
  expectEqual(join.download<int32_t>(), wJoin, "join");
  expectEqual(split.download<int32_t>(), wSplit, "split");
  expectEqual(inter.download<int32_t>(), wJoin, "interleave");
}

TEST(Shapes, GatherAlongBothAxes) {
  E2E_RNG(rng);
  const int64_t R = 4, C = 16, K = 8;
  auto src = rng.floats(R * C, -5, 5);
  auto idx = rng.ints<int32_t>(R * K, 0, C - 1);
  auto ts = dev().upload(src, {R, C}), ti = dev().upload(idx, {R, K});
  auto out = dev().zeros(DType::fp32, {R, K});
  kernel(kFile, "gather_rows").launch(dev(), {1}, {ts, ti, out}, {{"R", R}, {"C", C}, {"K", K}});
  std::vector<float> want(R * K);
  for (int64_t r = 0; r < R; ++r)
    for (int64_t k = 0; k < K; ++k) want[r * K + k] = src[r * C + idx[r * K + k]];
  expectSameBits(out.download<float>(), want, "gather axis=1");

  const int64_t N = 64;
  auto src1 = rng.ints<int32_t>(N, -1000, 1000);
  auto idx1 = rng.ints<int32_t>(N, 0, N - 1);
  auto ts1 = dev().upload(src1, {N}), ti1 = dev().upload(idx1, {N});
  auto out1 = dev().zeros(DType::i32, {N});
  kernel(kFile, "gather_1d").launch(dev(), {1}, {ts1, ti1, out1}, {{"N", N}});
  std::vector<int32_t> want1(N);
  for (int64_t i = 0; i < N; ++i) want1[i] = src1[idx1[i]];
  expectEqual(out1.download<int32_t>(), want1, "gather axis=0");
}

TEST(Shapes, HistogramWithMask) {
  E2E_RNG(rng);
  int64_t n = 450;
  const int64_t bins = 16;
  auto v = rng.ints<int32_t>(n, 0, bins - 1);
  auto tv = dev().upload(v, {n});
  auto hist = dev().zeros(DType::i32, {bins});
  kernel(kFile, "histogram_kernel").launch(dev(), {1}, {tv, hist, n}, {{"BINS", bins}, {"BLOCK", int64_t(512)}});
  std::vector<int32_t> want(bins, 0);
  for (int32_t x : v) ++want[x];
  expectEqual(hist.download<int32_t>(), want, "histogram");
}

}  // namespace
