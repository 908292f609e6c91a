//===- BasicsTest.cpp - Vector add, grid queries, creation and selection --===//
//
// Kernels of kernels/basics.py against C++ references: masked vector add
// over a grid callable, program_id/num_programs on 1-D..3-D grids, full /
// zeros / zeros_like / arange, where / maximum / minimum / clamp (with NaN
// handling) and a broadcasted outer product over a 2-D grid of tiles.
//
//===----------------------------------------------------------------------===//

#include "e2e/Harness.h"

using namespace e2e;
using tessera::DType;

namespace {

const char* kFile = "basics.py";

TEST(Basics, VectorAddMaskedTail) {
  E2E_RNG(rng);
  for (int64_t n : {int64_t(3001), int64_t(1024), int64_t(17)}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    auto x = rng.floats(n, -10, 10), y = rng.floats(n, -10, 10);
    auto tx = dev().upload(x, {n}), ty = dev().upload(y, {n});
    auto out = dev().zeros(DType::fp32, {n});
    int64_t calls = 0;
    kernel(kFile, "vector_add")
        .launch(dev(), gridFn([&](const tessera::Meta& m) {
                  ++calls;
                  return std::vector<int64_t>{cdiv(n, metaInt(m, "BLOCK"))};
                }),
                {tx, ty, out, n}, {{"BLOCK", int64_t(256)}});
    EXPECT_GE(calls, 1);
    std::vector<float> want(n);
    for (int64_t i = 0; i < n; ++i) want[i] = x[i] + y[i];
    expectSameBits(out.download<float>(), want, "x + y");
  }
}

TEST(Basics, ProgramIdAndNumProgramsOnGrids) {
  for (std::vector<int64_t> dims : {std::vector<int64_t>{5}, {3, 4}, {2, 3, 5}}) {
    int64_t g0 = dims[0], g1 = dims.size() > 1 ? dims[1] : 1, g2 = dims.size() > 2 ? dims[2] : 1;
    int64_t total = g0 * g1 * g2;
    auto out = dev().upload(std::vector<int32_t>(total * 6, -1), {total, 6});
    kernel(kFile, "grid_coords").launch(dev(), tessera::Grid(dims), {out});
    std::vector<int32_t> want;
    for (int64_t p2 = 0; p2 < g2; ++p2)
      for (int64_t p1 = 0; p1 < g1; ++p1)
        for (int64_t p0 = 0; p0 < g0; ++p0)
          for (int64_t v : {p0, p1, p2, g0, g1, g2}) want.push_back(static_cast<int32_t>(v));
    expectEqual(out.download<int32_t>(), want, "grid of " + std::to_string(dims.size()) + " dims");
  }
}

TEST(Basics, CreationOps) {
  E2E_RNG(rng);
  int64_t n = 300, block = 128;
  auto x = rng.floats(n, -4, 4);
  auto tx = dev().upload(x, {n});
  auto iOut = dev().zeros(DType::i32, {n}), fOut = dev().zeros(DType::fp32, {n});
  auto zOut = dev().zeros(DType::i32, {n}), zlOut = dev().zeros(DType::fp32, {n});
  auto rOut = dev().zeros(DType::i32, {n});
  kernel(kFile, "creation_ops")
      .launch(dev(), {cdiv(n, block)}, {tx, iOut, fOut, zOut, zlOut, rOut, n},
              {{"FILL", int64_t(41)}, {"BLOCK", block}});
  std::vector<int32_t> wi(n), wz(n, -7), wr(n);
  std::vector<float> wf(n), wzl(n, 1.25f);
  for (int64_t i = 0; i < n; ++i) {
    wi[i] = static_cast<int32_t>(41 + i);
    wf[i] = 0.5f * x[i];
    wr[i] = static_cast<int32_t>(block + i % block);
  }
  expectEqual(iOut.download<int32_t>(), wi, "full + offsets");
  expectSameBits(fOut.download<float>(), wf, "full(0.5) * x");
  expectEqual(zOut.download<int32_t>(), wz, "zeros - 7");
  expectSameBits(zlOut.download<float>(), wzl, "zeros_like + 1.25");
  expectEqual(rOut.download<int32_t>(), wr, "arange(BLOCK, 2*BLOCK)");
}

TEST(Basics, WhereMaximumMinimumClamp) {
  E2E_RNG(rng);
  int64_t n = 1000;
  auto x = rng.floats(n, -5, 5), y = rng.floats(n, -5, 5);
  float lo = rng.uniform(-3, -1), hi = rng.uniform(1, 3);
  auto tx = dev().upload(x, {n}), ty = dev().upload(y, {n});
  std::vector<tessera::Tensor> outs;
  for (int i = 0; i < 4; ++i) outs.push_back(dev().zeros(DType::fp32, {n}));
  kernel(kFile, "select_ops")
      .launch(dev(), {cdiv(n, 64)}, {tx, ty, outs[0], outs[1], outs[2], outs[3], n, lo, hi},
              {{"BLOCK", int64_t(64)}});
  std::vector<float> ww(n), wmax(n), wmin(n), wc(n);
  for (int64_t i = 0; i < n; ++i) {
    ww[i] = x[i] > y[i] ? x[i] - y[i] : y[i] * 2.0f;
    wmax[i] = std::max(x[i], y[i]);
    wmin[i] = std::min(x[i], y[i]);
    wc[i] = std::min(std::max(x[i], lo), hi);
  }
  expectSameBits(outs[0].download<float>(), ww, "where");
  expectSameBits(outs[1].download<float>(), wmax, "maximum");
  expectSameBits(outs[2].download<float>(), wmin, "minimum");
  expectSameBits(outs[3].download<float>(), wc, "clamp");
}

TEST(Basics, MaximumMinimumNanPropagation) {
  const float nan = std::nanf("");
  std::vector<float> x = {1, nan, 3, nan, -2, 0, 7, -7};
  std::vector<float> y = {nan, 2, 1, nan, -1, -0.5f, 8, -8};
  int64_t n = 8;
  auto tx = dev().upload(x, {n}), ty = dev().upload(y, {n});
  std::vector<tessera::Tensor> outs;
  for (int i = 0; i < 4; ++i) outs.push_back(dev().zeros(DType::fp32, {n}));
  kernel(kFile, "nan_minmax").launch(dev(), {1}, {tx, ty, outs[0], outs[1], outs[2], outs[3]}, {{"BLOCK", n}});
  std::vector<float> maxNone(n), minNone(n), maxAll(n), minAll(n);
  for (int64_t i = 0; i < n; ++i) {
    maxNone[i] = std::fmax(x[i], y[i]);  // NaN-ignoring
    minNone[i] = std::fmin(x[i], y[i]);
    bool anyNan = std::isnan(x[i]) || std::isnan(y[i]);
    maxAll[i] = anyNan ? nan : std::max(x[i], y[i]);
    minAll[i] = anyNan ? nan : std::min(x[i], y[i]);
  }
  expectSameBits(outs[0].download<float>(), maxNone, "maximum NONE");
  expectSameBits(outs[1].download<float>(), minNone, "minimum NONE");
  expectSameBits(outs[2].download<float>(), maxAll, "maximum ALL");
  expectSameBits(outs[3].download<float>(), minAll, "minimum ALL");
}

TEST(Basics, OuterProductOn2DGridFromMeta) {
  E2E_RNG(rng);
  int64_t M = 37, N = 53, strideM = 60;
  auto a = rng.floats(M, -2, 2), b = rng.floats(N, -2, 2);
  float scale = rng.uniform(-1, 1);
  auto ta = dev().upload(a, {M}), tb = dev().upload(b, {N});
  std::vector<float> init(M * strideM, -100.0f);
  auto out = dev().upload(init, {M, strideM});
  kernel(kFile, "outer_affine")
      .launch(dev(), gridFn([&](const tessera::Meta& m) {
                return std::vector<int64_t>{cdiv(M, metaInt(m, "BLOCK_M")), cdiv(N, metaInt(m, "BLOCK_N"))};
              }),
              {ta, tb, out, M, N, strideM, scale}, {{"BLOCK_M", int64_t(16)}, {"BLOCK_N", int64_t(32)}});
  std::vector<float> want = init;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) want[i * strideM + j] = a[i] * b[j] + scale;
  // a*b+scale may be contracted to an fma: allow one rounding of slack.
  expectClose(out.download<float>(), want, 1e-6, 1e-6, "outer product");
}

}  // namespace
