//===- SemanticsCornerCasesTest.cpp - Corner cases of Triton's semantics --===//
//
// kernels/corner_cases.py: one test per group of rules of
// LANGUAGE_CHECKLIST.md §1-§3 (weak literals, mixed signedness, comparisons
// without weak typing, integer and float division, float promotion,
// maximum/minimum, reduction dtypes, loads/stores that cast, where, shape
// compositions, casts, control flow, 3-D grids). The kernels check result
// dtypes with tl.static_assert; the values are compared here with plain C++.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>

#include "e2e/Harness.h"

using namespace e2e;
using tessera::DType;

namespace {

const char* kFile = "corner_cases.py";
constexpr int64_t kB = 16;

TEST(SemanticsCornerCases, IntLiteralsAndSignedness) {
  E2E_RNG(rng);
  auto a = rng.ints<int8_t>(kB, -128, 127);
  auto u = rng.ints<uint8_t>(kB, 0, 255);
  auto w = rng.ints<uint32_t>(kB, 0, 0xFFFFFFFFll);
  int8_t fixedA[] = {127, -128, -1, 0, 1, 64, -65};
  uint8_t fixedU[] = {255, 128, 0, 1, 200};
  uint32_t fixedW[] = {0, 5, 0xFFFFFFFFu, 3000000000u, 1};
  std::copy(std::begin(fixedA), std::end(fixedA), a.begin());
  std::copy(std::begin(fixedU), std::end(fixedU), u.begin());
  std::copy(std::begin(fixedW), std::end(fixedW), w.begin());
  auto out = dev().zeros(DType::i32, {16 * kB});
  kernel(kFile, "int_literals_and_signedness")
      .launch(dev(), {1}, {dev().upload(a, {kB}), dev().upload(u, {kB}), dev().upload(w, {kB}), out},
              {{"BLOCK", kB}});
  std::vector<int32_t> want(16 * kB);
  for (int64_t i = 0; i < kB; ++i) {
    int32_t ai = a[i], ui = u[i];
    bool pos = ai > 0;
    int32_t* row = &want[i];
    row[0 * kB] = static_cast<int8_t>(ai + 1);                                 // int8 wraps
    row[1 * kB] = static_cast<uint8_t>(ui * 2);                                // uint8 wraps
    row[2 * kB] = pos ? 0 : 1;                                                 // int1 + True
    row[3 * kB] = 0;                                                           // uint32 > -1: -1 is 0xffffffff
    row[4 * kB] = 1;                                                           // int8 < 1000 in int32
    row[5 * kB] = static_cast<uint8_t>(-ui);                                   // -uint8 wraps, stays unsigned
    row[6 * kB] = ~ai;                                                         // ~int8
    row[7 * kB] = ai >> 1;                                                     // arithmetic
    row[8 * kB] = static_cast<uint8_t>(ai) >> 1;                               // logical
    row[9 * kB] = static_cast<int8_t>(ai * 2);                                 // << wraps in int8
    row[10 * kB] = static_cast<uint32_t>(ai) < w[i] ? 1 : 0;                   // int32 < uint32: unsigned
    row[11 * kB] = ui + ai;                                                    // uint8 + int16 -> int16
    row[12 * kB] = static_cast<uint8_t>(ai + ui);                              // int8 + uint8 -> uint8
    row[13 * kB] = pos ? 2 : 0;                                                // int32 + int1
    row[14 * kB] = static_cast<int8_t>(-ai);                                   // -(-128) wraps
    row[15 * kB] = pos ? 0 : 1;                                                // ~int1
  }
  expectEqual(out.download<int32_t>(), want, "rows of int_literals_and_signedness");
}

TEST(SemanticsCornerCases, DivisionAndRemainderTruncate) {
  E2E_RNG(rng);
  auto x = rng.ints<int32_t>(kB, -1000, 1000);
  auto y = rng.ints<int32_t>(kB, 2, 50);
  int32_t fx[] = {-7, 7, -7, 7, -128, 128, -1, 0};
  int32_t fy[] = {2, -2, -2, 2, 3, -5, 7, -3};
  std::copy(std::begin(fx), std::end(fx), x.begin());
  std::copy(std::begin(fy), std::end(fy), y.begin());
  for (int64_t i = 8; i < kB; ++i)
    if (rng.integer(0, 1)) y[i] = -y[i];
  auto q = dev().zeros(DType::i32, {4 * kB}), r = dev().zeros(DType::i32, {4 * kB});
  auto f = dev().zeros(DType::fp32, {2 * kB});
  kernel(kFile, "division_and_remainder")
      .launch(dev(), {1}, {dev().upload(x, {kB}), dev().upload(y, {kB}), q, r, f}, {{"BLOCK", kB}});
  std::vector<int32_t> wq(4 * kB), wr(4 * kB);
  std::vector<float> wf(2 * kB);
  for (int64_t i = 0; i < kB; ++i) {
    wq[i] = x[i] / y[i];
    wq[kB + i] = x[i] / 4;
    wq[2 * kB + i] = -x[i] / 4;
    int8_t a = static_cast<int8_t>(x[i]), b = static_cast<int8_t>(y[i]);
    wq[3 * kB + i] = static_cast<int8_t>(a / b);
    wr[i] = x[i] % y[i];
    wr[kB + i] = x[i] % -3;
    uint32_t ux = static_cast<uint32_t>(x[i]), uy = static_cast<uint32_t>(y[i]);
    wr[2 * kB + i] = static_cast<int32_t>(ux / uy);
    wr[3 * kB + i] = static_cast<int32_t>(ux % uy);
    wf[i] = std::fmod(static_cast<float>(x[i]) * 0.25f, static_cast<float>(y[i]));
    wf[kB + i] = static_cast<float>(x[i]) / static_cast<float>(y[i]);
  }
  expectEqual(q.download<int32_t>(), wq, "x//y, x//4, -x//4, int8 //");
  expectEqual(r.download<int32_t>(), wr, "x%y, x%-3, unsigned // and %");
  auto gf = f.download<float>();
  expectSameBits(std::vector<float>(gf.begin(), gf.begin() + kB), std::vector<float>(wf.begin(), wf.begin() + kB),
                 "float % is fmod");
  expectClose(std::vector<float>(gf.begin() + kB, gf.end()), std::vector<float>(wf.begin() + kB, wf.end()), 1e-6,
              0, "int / int in fp32");
}

TEST(SemanticsCornerCases, FloatPromotionAndWeakFloatLiterals) {
  E2E_RNG(rng);
  auto hf = rng.floats(kB, -10, 10);
  auto bff = rng.floats(kB, -10, 10);
  hf[0] = 0.1f;  // fp16(0.1) = 0.0999755859375 < 0.1f
  hf[1] = 0.1f + 0.001f;
  for (auto& v : hf) v = roundHalf(v);
  for (auto& v : bff) v = roundBf16(v);
  auto out = dev().zeros(DType::fp32, {6 * kB});
  kernel(kFile, "float_promotion")
      .launch(dev(), {1}, {uploadAs(DType::fp16, hf, {kB}), uploadAs(DType::bf16, bff, {kB}), out},
              {{"BLOCK", kB}});
  const float tenth = roundHalf(0.1f);
  std::vector<float> want(6 * kB);
  for (int64_t i = 0; i < kB; ++i) {
    want[i] = roundHalf(hf[i] + tenth);
    want[kB + i] = hf[i] < 0.1f ? 1.0f : 0.0f;
    want[2 * kB + i] = roundBf16(bff[i] + bff[i]);
    want[3 * kB + i] = roundHalf(roundHalf(bff[i]) + hf[i]);
    want[4 * kB + i] = hf[i] / 3.0f;
    want[5 * kB + i] = roundHalf(hf[i] + static_cast<float>(i));
  }
  auto got = out.download<float>();
  auto part = [](const std::vector<float>& v, int64_t row) {
    return std::vector<float>(v.begin() + row * kB, v.begin() + (row + 1) * kB);
  };
  // fp16 / int divides in fp32. On the GPU `/` is div.full.f32 like Triton's
  // (docs/decisions.md, GPU backend), whose error the PTX ISA bounds by 2 ulp
  // across the full range; the interpreter divides exactly.
  if (onGpu()) {
    std::vector<double> tol(kB);
    for (int64_t i = 0; i < kB; ++i) tol[i] = 2 * FLT_EPSILON * std::fabs(want[4 * kB + i]);
    expectWithin(part(got, 4), part(want, 4), tol, "fp16 / 3 (div.full.f32)");
  } else {
    expectSameBits(part(got, 4), part(want, 4), "fp16 / 3");
  }
  const char* names[] = {"fp16 + 0.1", "fp16 < 0.1", "bf16 + bf16", "bf16 + fp16", "", "fp16 + int32"};
  for (int64_t row : {0, 1, 2, 3, 5}) expectSameBits(part(got, row), part(want, row), names[row]);
}

TEST(SemanticsCornerCases, MaximumMinimumPromotionAndNaNs) {
  E2E_RNG(rng);
  float nan = std::numeric_limits<float>::quiet_NaN();
  auto x = rng.floats(kB, 1, 100), y = rng.floats(kB, -100, -1);
  for (int64_t i = 0; i < kB; i += 2) std::swap(x[i], y[i]);
  x[1] = nan;
  y[3] = nan;
  x[5] = nan;
  y[5] = nan;
  auto a = rng.ints<int8_t>(kB, -128, 127);
  a[0] = -128;
  a[1] = 127;
  a[2] = 100;
  auto bff = rng.floats(kB, -50, 50);
  for (auto& v : bff) v = roundBf16(v);
  auto out = dev().zeros(DType::fp32, {7 * kB});
  auto iout = dev().zeros(DType::i32, {3 * kB});
  kernel(kFile, "maximum_minimum")
      .launch(dev(), {1},
              {dev().upload(x, {kB}), dev().upload(y, {kB}), dev().upload(a, {kB}), uploadAs(DType::bf16, bff, {kB}),
               out, iout},
              {{"BLOCK", kB}});
  std::vector<float> want(7 * kB);
  std::vector<int32_t> wantI(3 * kB);
  for (int64_t i = 0; i < kB; ++i) {
    bool anyNan = std::isnan(x[i]) || std::isnan(y[i]);
    want[i] = std::fmax(x[i], y[i]);
    want[kB + i] = std::fmin(x[i], y[i]);
    want[2 * kB + i] = anyNan ? nan : std::max(x[i], y[i]);
    want[3 * kB + i] = anyNan ? nan : std::min(x[i], y[i]);
    want[4 * kB + i] = std::max(bff[i], bff[i] * 2);
    want[5 * kB + i] = std::min(10.5f, std::max(-10.5f, static_cast<float>(a[i])));
    want[6 * kB + i] = std::min(20.0f, std::max(-20.0f, bff[i]));
    wantI[i] = std::max<int32_t>(a[i], 100);
    uint8_t ua = static_cast<uint8_t>(a[i]);
    wantI[kB + i] = std::min<uint8_t>(ua, static_cast<uint8_t>(ua + 100));
    wantI[2 * kB + i] = std::max<int8_t>(a[i], static_cast<int8_t>(-a[i]));
  }
  expectClose(out.download<float>(), want, 0, 0, "maxnum, minnum, maximum(ALL), minimum(ALL), bf16 maximum, clamp");
  expectEqual(iout.download<int32_t>(), wantI, "int maximum/minimum");
}

TEST(SemanticsCornerCases, ReductionResultDtypes) {
  E2E_RNG(rng);
  auto a = rng.ints<int8_t>(kB, -100, 127);
  auto u = rng.ints<uint8_t>(kB, 0, 255);
  a[3] = a[9] = 127;    // tie for the max: leftmost index
  a[4] = a[12] = -128;  // tie for the min
  u[2] = u[7] = 255;
  std::vector<float> hf(kB), bff(kB);
  for (int64_t i = 0; i < kB; ++i) {
    hf[i] = static_cast<float>(rng.integer(-100, 100));  // exact fp16 sums in any order
    bff[i] = roundBf16(rng.uniform(-1000, 1000));
  }
  auto out = dev().zeros(DType::i32, {16 + 2 * kB});
  auto fout = dev().zeros(DType::fp32, {3});
  kernel(kFile, "reduction_dtypes")
      .launch(dev(), {1},
              {dev().upload(a, {kB}), dev().upload(u, {kB}), uploadAs(DType::fp16, hf, {kB}),
               uploadAs(DType::bf16, bff, {kB}), out, fout},
              {{"BLOCK", kB}});
  std::vector<int32_t> want(16 + 2 * kB, 0);
  int32_t sum = 0, usum = 0, npos = 0, amax = 0, amin = 0, umaxIdx = 0, xr = 0;
  for (int64_t i = 0; i < kB; ++i) {
    sum += a[i];
    usum += u[i];
    npos += a[i] > 0;
    if (a[i] > a[amax]) amax = static_cast<int32_t>(i);
    if (a[i] < a[amin]) amin = static_cast<int32_t>(i);
    if (u[i] > u[umaxIdx]) umaxIdx = static_cast<int32_t>(i);
    xr ^= a[i];
  }
  want[0] = sum;
  want[1] = usum;
  want[2] = npos;
  want[3] = static_cast<int8_t>(sum);
  want[4] = *std::max_element(u.begin(), u.end());
  want[5] = a[amin];
  want[6] = amax;
  want[7] = amin;
  want[8] = umaxIdx;
  want[9] = sum + a[amax];
  want[10] = xr;
  int32_t run = 0;
  for (int64_t i = 0; i < kB; ++i) want[16 + i] = run += a[i];
  run = 0;
  for (int64_t i = kB - 1; i >= 0; --i) want[16 + kB + i] = run += a[i];
  expectEqual(out.download<int32_t>(), want, "int reductions");
  float hsum = 0;
  for (float v : hf) hsum += v;
  std::vector<float> wantF = {*std::max_element(hf.begin(), hf.end()), hsum, *std::max_element(bff.begin(), bff.end())};
  expectSameBits(fout.download<float>(), wantF, "max fp16, sum fp16, max bf16");
}

TEST(SemanticsCornerCases, LoadsAndStoresCastToThePointee) {
  E2E_RNG(rng);
  int64_t n = 10;
  auto a = rng.ints<int8_t>(kB, -128, 127);
  auto f = rng.floats(kB, -120, 120);
  f[0] = -2.9f;
  f[1] = 2.9f;
  f[2] = 0.0f;
  f[3] = 1.0009765625f;  // halfway between two fp16 values: ties to even
  std::vector<uint8_t> bools(kB);
  for (auto& v : bools) v = static_cast<uint8_t>(rng.integer(0, 2));  // 2: any non-zero byte is true
  auto out8 = dev().zeros(DType::i8, {kB});
  auto outu8 = dev().zeros(DType::u8, {kB});
  auto out32 = dev().zeros(DType::i32, {5 * kB});
  auto outh = dev().zeros(DType::fp16, {kB});
  auto outb = dev().zeros(DType::i1, {3 * kB});
  kernel(kFile, "loads_and_stores_cast")
      .launch(dev(), {1},
              {dev().upload(a, {kB}), dev().upload(f, {kB}), dev().upload(bools.data(), DType::i1, {kB}), out8, outu8,
               out32, outh, outb, n},
              {{"BLOCK", kB}});
  std::vector<int8_t> w8(kB);
  std::vector<uint8_t> wu8(kB), wb(3 * kB);
  std::vector<int32_t> w32(5 * kB);
  std::vector<uint16_t> wh(kB);
  for (int64_t i = 0; i < kB; ++i) {
    w32[i] = i < n ? a[i] : -1;       // other=-1.7 -> int8 -1
    w32[kB + i] = i < n ? a[i] : 44;  // other=300 -> int8 44
    w32[2 * kB + i] = 7;
    w32[3 * kB + i] = bools[i] != 0;
    w8[i] = static_cast<int8_t>(std::trunc(f[i]));
    wu8[i] = static_cast<uint8_t>(i - 3);
    wh[i] = floatToHalf(f[i]);
    wb[i] = f[i] > 0;
    wb[kB + i] = static_cast<uint8_t>(i + 250);  // int32 -> int8 bytes
    wb[2 * kB + i] = 0;                            // 0.5 -> int8 0
    w32[4 * kB + i] = i < 4 ? bools[i] != 0 : 0;   // other=0.5 -> int8 0 -> false
  }
  expectEqual(out32.download<int32_t>(), w32, "masked loads with other, scalar store, int1 load");
  expectEqual(out8.download<int8_t>(), w8, "fp32 stored to int8");
  expectEqual(outu8.download<uint8_t>(), wu8, "int32 stored to uint8");
  expectEqual(outh.download<uint16_t>(), wh, "fp32 stored to fp16");
  expectEqual(outb.download<uint8_t>(), wb, "int1 stores");
}

TEST(SemanticsCornerCases, WhereWithScalarsAndBroadcasting) {
  E2E_RNG(rng);
  const int64_t R = 4, C = 8;
  auto x = rng.ints<int8_t>(R * C, -128, 127);
  auto out = dev().zeros(DType::i32, {5 * R * C});
  auto fout = dev().zeros(DType::fp32, {R * C});
  kernel(kFile, "where_broadcasting")
      .launch(dev(), {1}, {dev().upload(x, {R * C}), out, fout}, {{"R", R}, {"C", C}});
  std::vector<int32_t> want(5 * R * C);
  std::vector<float> wantF(R * C);
  for (int64_t r = 0; r < R; ++r)
    for (int64_t c = 0; c < C; ++c) {
      int64_t k = r * C + c;
      want[k] = r > c;
      want[R * C + k] = c % 2 == 0 ? x[k] : 100;
      want[2 * R * C + k] = c < 2 ? static_cast<int32_t>(r) : -1;
      want[3 * R * C + k] = x[k];
      want[4 * R * C + k] = c != 1 ? 5 : 6;
      wantF[k] = r == 0 ? 1.0f : 2.5f;
    }
  expectEqual(out.download<int32_t>(), want, "where rows");
  expectSameBits(fout.download<float>(), wantF, "where(int, float)");
}

TEST(SemanticsCornerCases, ShapeCompositionsAndCreation) {
  E2E_RNG(rng);
  const int64_t M = 4, N = 8;
  auto x = rng.ints<int32_t>(M * N, -20, 20);
  auto out = dev().zeros(DType::i32, {3 * M * N + 2 * M + 9});
  auto fout = dev().zeros(DType::bf16, {M});
  kernel(kFile, "shape_compositions").launch(dev(), {1}, {dev().upload(x, {M * N}), out, fout}, {{"M", M}, {"N", N}});
  std::vector<int32_t> want(3 * M * N + 2 * M + 9);
  int32_t s = 0;
  for (int32_t v : x) s += v;
  for (int64_t j = 0; j < N; ++j)
    for (int64_t k = 0; k < M; ++k) want[j * M + k] = x[k * N + j];
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t b = 0; b < M / 2; ++b)
      for (int64_t c = 0; c < N; ++c) want[M * N + c * M + a * (M / 2) + b] = x[a * (M / 2) * N + b * N + c];
  for (int64_t i = 0; i < M * N; ++i) want[2 * M * N + i] = x[i];
  int64_t base = 3 * M * N;
  for (int64_t i = 0; i < M; ++i) {
    want[base + i] = static_cast<int32_t>(3 + i);
    want[base + M + i] = static_cast<int8_t>(s);
  }
  base += 2 * M;
  for (int64_t i = 0; i < 4; ++i) want[base + i] = -3;
  want[base + 4] = s;
  want[base + 5] = s + 1;
  want[base + 6] = 1;
  want[base + 7] = 9;
  want[base + 8] = static_cast<int32_t>(M) * s;
  expectEqual(out.download<int32_t>(), want, "reshape/trans/permute, arange, full, join/split, zeros_like");
  expectEqual(fout.download<uint16_t>(), std::vector<uint16_t>{floatToBf16(0), floatToBf16(1), floatToBf16(2),
                                                               floatToBf16(3)}, "bf16 arange");
}

TEST(SemanticsCornerCases, CastsTruncateAndRound) {
  std::vector<float> f = {2.7f, -2.7f, 0.5f, -0.5f, 0.0f, -0.0f, 1e-30f, 200.5f,
                          255.9f, -255.9f, 3.99f, -3.99f, 65519.0f, 1.0f, 100.25f, -1e-3f};
  std::vector<int32_t> i = {16777217, -16777217, 2147483647, -2147483647 - 1, 16777219, 0, 1, -1,
                            33554435, 33554433, -33554435, 255, 256, -129, 128, 1000000007};
  std::vector<int64_t> big = {(1ll << 53) + 1, -((1ll << 53) + 1), (1ll << 62) + (1ll << 38) + 1, 0, 1, -1,
                              (1ll << 24) + 1, (1ll << 40) + (1ll << 16) + 1, INT64_MAX, INT64_MIN, 3, 5,
                              (1ll << 25) + 3, -(1ll << 25) - 3, 123456789012345ll, 7};
  auto oi = dev().zeros(DType::i32, {4 * kB}), ou = dev().zeros(DType::i32, {kB});
  auto of = dev().zeros(DType::fp32, {6 * kB});
  kernel(kFile, "casts_corner")
      .launch(dev(), {1}, {dev().upload(f, {kB}), dev().upload(i, {kB}), dev().upload(big, {kB}), oi, ou, of},
              {{"BLOCK", kB}});
  std::vector<int32_t> wi(4 * kB), wu(kB);
  std::vector<float> wf(6 * kB);
  for (int64_t k = 0; k < kB; ++k) {
    wi[k] = static_cast<int32_t>(std::trunc(f[k]));
    wi[kB + k] = f[k] != 0.0f;
    wi[2 * kB + k] = i[k] > 0 ? 1 : 0;
    wi[3 * kB + k] = static_cast<int8_t>(i[k]);
    wu[k] = static_cast<uint8_t>(std::trunc(std::min(std::fabs(f[k]), 255.0f)));
    wf[k] = static_cast<float>(i[k]);
    wf[kB + k] = static_cast<float>(static_cast<uint32_t>(i[k]));
    wf[2 * kB + k] = static_cast<float>(big[k]);
    wf[3 * kB + k] = i[k] > 0 ? 1.0f : 0.0f;
    wf[4 * kB + k] = static_cast<float>(static_cast<int32_t>(std::trunc(roundHalf(f[k]))));
    wf[5 * kB + k] = bf16ToFloat(floatToBf16(f[k], /*rtz=*/true));
  }
  // 65519 rounds to fp16 65504; min(|f|, 255) keeps the uint8 casts in range.
  expectEqual(oi.download<int32_t>(), wi, "float->int truncation, ->int1, int1->int8, int8->uint32");
  expectEqual(ou.download<int32_t>(), wu, "float->uint8");
  expectSameBits(of.download<float>(), wf, "int->float rounding, int1->float, fp16->int, bf16 rtz");
}

TEST(SemanticsCornerCases, ControlFlowAndConstexprs) {
  int64_t lo = 3000000000ll, hi = lo + 7, n = 9;
  auto out = dev().zeros(DType::i32, {16});
  std::vector<float> ones(kB, 1.0f);
  kernel(kFile, "control_corner")
      .launch(dev(), {1}, {out, uploadAs(DType::fp16, ones, {kB}), lo, hi, n}, {{"BLOCK", kB}});
  int32_t a = 0, b = 1;
  for (int32_t k = 0; k < n; ++k) {
    if (k % 2 == 0) {
      if (k % 4 == 0) a += k, b *= 2;
      else a -= 1;
    } else {
      b += k;
    }
  }
  int32_t p = 1, q = 1;
  for (int32_t k = 0; k < n; ++k) {
    if (k % 3 == 0) {
      int32_t t = p;
      p = q;
      q = t + q;
    } else {
      p += k;
    }
  }
  std::vector<int32_t> want = {10070401, 25, 21, a, b, p, q, 383, 1024, 78, 804, 11, 32, 1016, 5243, 0};
  expectEqual(out.download<int32_t>(), want, "control_corner slots");
}

TEST(SemanticsCornerCases, AssignedNumbersMergeAsTensors) {
  for (int64_t n : {5, 2}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    auto out = dev().zeros(DType::i32, {9});
    kernel(kFile, "assigned_numbers_merge").launch(dev(), {1}, {out, n});
    std::vector<int32_t> want = n == 5 ? std::vector<int32_t>{1, 15, 16, 1, 1001, 32, 10243, 64, 1}
                                       : std::vector<int32_t>{2, 6, 25, 0, 101, 4, 1009, 512, -1};
    expectEqual(out.download<int32_t>(), want, "assigned_numbers_merge slots");
  }
}

TEST(SemanticsCornerCases, ProgramIdsOn3DGrid) {
  auto out = dev().zeros(DType::i32, {24});
  kernel(kFile, "grid_3d").launch(dev(), {2, 3, 4}, {out});
  std::vector<int32_t> want(24);
  for (int32_t z = 0; z < 4; ++z)
    for (int32_t y = 0; y < 3; ++y)
      for (int32_t x = 0; x < 2; ++x) want[(z * 3 + y) * 2 + x] = x * 10000 + y * 100 + z;
  expectEqual(out.download<int32_t>(), want, "program ids");
}

}  // namespace
