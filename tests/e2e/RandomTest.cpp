//===- RandomTest.cpp - tl.rand / randn / randint / randint4x / philox ----===//
//
// kernels/random_numbers.py against the host Philox in Philox.h: the integer
// streams and rand must be bit-exact, randn within the tolerance of the
// fast log/cos (on the GPU widened by the error of lg2.approx, see
// boxMullerLogSlack).
//
//===----------------------------------------------------------------------===//

#include <algorithm>

#include "e2e/Harness.h"
#include "e2e/Philox.h"

using namespace e2e;
using tessera::DType;

namespace {

const char* kFile = "random_numbers.py";

TEST(Random, RandRandnRandint) {
  E2E_RNG(rng);
  int64_t n = 2049;
  int64_t seed = rng.integer(2, INT32_MAX);
  SCOPED_TRACE("philox seed " + std::to_string(seed));
  auto u = dev().zeros(DType::fp32, {n}), g = dev().zeros(DType::fp32, {n});
  auto ints = dev().zeros(DType::u32, {n});
  kernel(kFile, "random_streams").launch(dev(), {cdiv(n, 256)}, {seed, u, g, ints, n}, {{"BLOCK", int64_t(256)}});
  std::vector<float> wu(n), wg(n);
  std::vector<double> tg(n);
  std::vector<uint32_t> wi(n);
  for (int64_t i = 0; i < n; ++i) {
    wu[i] = randRef(seed, i);
    wg[i] = static_cast<float>(randnRef(seed, i));
    wi[i] = randint4x(seed, i)[0];
    tg[i] = 1e-4 + 1e-4 * std::fabs(wg[i]) + boxMullerLogSlack(std::max(1.0e-7f, uintToUniform(wi[i])));
  }
  expectEqual(ints.download<uint32_t>(), wi, "randint");
  expectSameBits(u.download<float>(), wu, "rand");
  expectWithin(g.download<float>(), wg, tg, "randn");
  auto got = u.download<float>();
  for (float v : got) {
    ASSERT_GE(v, 0.0f);
    ASSERT_LT(v, 1.0f);
  }
}

TEST(Random, Randint4xWithSixtyFourBitSeed) {
  E2E_RNG(rng);
  int64_t n = 700;
  // A seed above 2^32 exercises the high key word.
  int64_t seed = rng.integer(int64_t(1) << 33, int64_t(1) << 50);
  SCOPED_TRACE("philox seed " + std::to_string(seed));
  auto out = dev().zeros(DType::u32, {4 * n});
  kernel(kFile, "random_four").launch(dev(), {cdiv(n, 128)}, {seed, out, n}, {{"BLOCK", int64_t(128)}});
  std::vector<uint32_t> want(4 * n);
  for (int64_t i = 0; i < n; ++i) {
    auto r = randint4x(static_cast<uint64_t>(seed), i);
    for (int k = 0; k < 4; ++k) want[k * n + i] = r[k];
  }
  expectEqual(out.download<uint32_t>(), want, "randint4x");
}

TEST(Random, SixtyFourBitOffsets) {
  E2E_RNG(rng);
  int64_t seed = rng.integer(2, INT32_MAX);
  int64_t base = rng.integer(int64_t(1) << 32, int64_t(1) << 40);
  const int64_t B = 64;
  auto out = dev().zeros(DType::u32, {B});
  kernel(kFile, "random_wide_offsets").launch(dev(), {1}, {seed, base, out}, {{"BLOCK", B}});
  std::vector<uint32_t> want(B);
  for (int64_t i = 0; i < B; ++i) want[i] = randint4x(seed, base + i, true)[0];
  expectEqual(out.download<uint32_t>(), want, "randint with int64 offsets");
}

TEST(Random, PhiloxOnArbitraryCounters) {
  E2E_RNG(rng);
  const int64_t B = 32;
  int64_t seed = rng.integer(2, INT32_MAX);
  auto ctr = rng.ints<uint32_t>(4 * B, 0, UINT32_MAX);
  auto tc = dev().upload(ctr, {B, 4});
  auto out = dev().zeros(DType::u32, {2, B, 4});
  kernel(kFile, "philox_block").launch(dev(), {1}, {seed, tc, out}, {{"BLOCK", B}});
  std::vector<uint32_t> want(8 * B);
  for (int64_t i = 0; i < B; ++i) {
    std::array<uint32_t, 4> c = {ctr[4 * i], ctr[4 * i + 1], ctr[4 * i + 2], ctr[4 * i + 3]};
    auto r10 = philox4x32(seed, c, 10), r7 = philox4x32(seed, c, 7);
    for (int k = 0; k < 4; ++k) {
      want[4 * i + k] = r10[k];
      want[4 * B + 4 * i + k] = r7[k];
    }
  }
  expectEqual(out.download<uint32_t>(), want, "philox 10 and 7 rounds");
}

}  // namespace
