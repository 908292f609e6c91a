//===- ControlTest.cpp - Control flow, calls, heuristics, autotune --------===//
//
// kernels/control.py: early return, runtime if/else, while loops, for over
// range / tl.range / tl.static_range, nested @jit calls (one noinline),
// tuples returned from jit functions and indexed by a static loop variable,
// @triton.heuristics, @triton.autotune with a grid callable of the chosen
// config, and the compiler hints (multiple_of & co.) leaving results alone.
//
//===----------------------------------------------------------------------===//

#include <numeric>

#include <cstdlib>

#include "e2e/Harness.h"
#include "tessera/runtime/DiskCache.h"

using namespace e2e;
using tessera::DType;

namespace {

const char* kFile = "control.py";

TEST(Control, EarlyReturnIfElseLoopsAndCalls) {
  E2E_RNG(rng);
  const int64_t programs = 12, limit = 9;
  auto a = rng.ints<int32_t>(programs, 1, 100000), b = rng.ints<int32_t>(programs, 1, 100000);
  for (int64_t i = 0; i < programs; ++i) a[i] *= 6, b[i] *= 4;  // nontrivial gcds
  auto ta = dev().upload(a, {programs}), tb = dev().upload(b, {programs});
  auto out = dev().upload(std::vector<int32_t>(programs * 5, -5), {programs, 5});
  kernel(kFile, "control_flow").launch(dev(), {programs}, {ta, tb, out, limit});
  std::vector<int32_t> want(programs * 5, -5);
  for (int64_t p = 0; p < limit; ++p) {
    int32_t g = std::gcd(a[p], b[p]);
    int32_t acc = 0;
    for (int64_t i = p; i < p + 10; i += 3) acc += static_cast<int32_t>(i * i);
    want[p * 5 + 0] = g;
    want[p * 5 + 1] = p % 2 == 0 ? g * 2 : g - 1;
    want[p * 5 + 2] = acc;
    want[p * 5 + 3] = a[p] * 3 + 1;
    want[p * 5 + 4] = p < 3 ? b[p] * 2 : -b[p];
  }
  expectEqual(out.download<int32_t>(), want, "per-program records");
}

TEST(Control, LoopsAndTuples) {
  E2E_RNG(rng);
  const int64_t B = 32, terms = 5;
  int64_t iters = rng.integer(2, 9);
  auto x = rng.ints<int32_t>(B, -5, 5);
  auto tx = dev().upload(x, {B});
  auto out = dev().zeros(DType::i32, {2 * B + 3});
  kernel(kFile, "loops_and_tuples").launch(dev(), {1}, {tx, out, iters}, {{"BLOCK", B}, {"N_TERMS", terms}});
  const int32_t coeffs[] = {1, 3, 5, 7, 9};
  std::vector<int32_t> want(2 * B + 3);
  int32_t total = 0, biggest = INT32_MIN;
  for (int64_t i = 0; i < B; ++i) {
    int32_t poly = 0;
    for (int k = 0; k < terms; ++k) poly = poly * x[i] + coeffs[k];
    want[i] = poly;
    int32_t acc = 0;
    for (int64_t it = 0; it < iters; ++it) acc += x[i] * static_cast<int32_t>(it);
    want[B + i] = acc;
    total += x[i];
    biggest = std::max(biggest, x[i]);
  }
  want[2 * B] = total;
  want[2 * B + 1] = biggest;
  want[2 * B + 2] = static_cast<int32_t>((iters * 3 + 1) / 2);
  expectEqual(out.download<int32_t>(), want, "horner, loop accumulation, tuple results, while steps");
}

TEST(Control, HeuristicsComputeEvenN) {
  E2E_RNG(rng);
  const int64_t block = 64;
  for (int64_t n : {int64_t(640), int64_t(650)}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    auto x = rng.floats(n, -1, 1);
    float alpha = rng.uniform(0.5f, 2.0f);
    auto tx = dev().upload(x, {n});
    auto out = dev().zeros(DType::fp32, {n});
    auto flag = dev().upload(std::vector<int32_t>{-1}, {1});
    kernel(kFile, "scale_maybe_even").launch(dev(), {cdiv(n, block)}, {tx, out, flag, n, alpha}, {{"BLOCK", block}});
    std::vector<float> want(n);
    for (int64_t i = 0; i < n; ++i) want[i] = x[i] * alpha;
    expectSameBits(out.download<float>(), want, "x * alpha");
    EXPECT_EQ(flag.download<int32_t>()[0], n % block == 0 ? 1 : 0) << "EVEN_N";
  }
}

/// Launches an autotuned a * x + y kernel of control.py (tuned_axpy's
/// parameters) over n elements with its grid from the chosen BLOCK, checks
/// the result and that every program saw that BLOCK; returns the BLOCK.
int64_t launchTunedAxpy(tessera::Kernel& k, int64_t n) {
  E2E_RNG(rng);
  auto x = rng.floats(n, -1, 1), y = rng.floats(n, -1, 1);
  float a = rng.uniform(-2, 2);
  auto tx = dev().upload(x, {n}), ty = dev().upload(y, {n});
  auto out = dev().zeros(DType::fp32, {n});
  auto blocks = dev().zeros(DType::i32, {n});
  int64_t chosen = 0;
  k.launch(dev(), gridFn([&](const tessera::Meta& m) {
             chosen = metaInt(m, "BLOCK");
             return std::vector<int64_t>{cdiv(n, chosen)};
           }),
           {tx, ty, out, blocks, n, a});
  std::vector<float> want(n);
  for (int64_t i = 0; i < n; ++i) want[i] = a * x[i] + y[i];
  expectClose(out.download<float>(), want, 1e-6, 1e-7, "a * x + y");
  auto b = blocks.download<int32_t>();
  for (int64_t p = 0; p < cdiv(n, std::max<int64_t>(chosen, 1)); ++p) EXPECT_EQ(b[p], chosen) << "program " << p;
  return chosen;
}

TEST(Control, AutotuneAnyConfigGivesTheRightResult) {
  tessera::Kernel k = kernel(kFile, "tuned_axpy");
  int64_t chosen = launchTunedAxpy(k, 1000);
  EXPECT_TRUE(chosen == 32 || chosen == 64 || chosen == 128) << chosen;
}

// A tuning key may name a constexpr with a default that a launch leaves
// out (Triton keys on what is passed): the default applies and keys alike;
// passed, its value keys. (The tuning key is made on a GPU only: the
// interpreter runs the first config.)
TEST(Control, AutotuneKeyOfADefaultedConstexpr) {
  E2E_RNG(rng);
  const int64_t n = 300;
  auto x = rng.floats(n, -1, 1), y = rng.floats(n, -1, 1);
  auto tx = dev().upload(x, {n}), ty = dev().upload(y, {n});
  tessera::Kernel k = kernel(kFile, "tuned_scaled_axpy");
  for (int64_t scale : {int64_t(0), int64_t(2), int64_t(0)}) {  // 0: left out (the default, 1)
    auto out = dev().zeros(DType::fp32, {n});
    auto grid = gridFn([&](const tessera::Meta& m) { return std::vector<int64_t>{cdiv(n, metaInt(m, "BLOCK"))}; });
    if (scale) k.launch(dev(), grid, {tx, ty, out, n, 0.5}, {{"SCALE", scale}});
    else k.launch(dev(), grid, {tx, ty, out, n, 0.5});
    std::vector<float> want(n);
    for (int64_t i = 0; i < n; ++i) want[i] = 0.5f * float(scale ? scale : 1) * x[i] + y[i];
    expectClose(out.download<float>(), want, 1e-6, 1e-7, "SCALE " + std::to_string(scale));
  }
}

// Configs with a register cap (maxnreg) tune like the others, and so does a
// config asking for thread-block clusters (num_ctas=2: clusters of 2
// programs on sm_90a); best_config() reports the winner with its cap or
// its clusters. The interpreter runs the first config and tunes nothing.
TEST(Control, AutotuneConfigsWithRegisterCaps) {
  tessera::Kernel k = kernel(kFile, "tuned_axpy_capped");
  ASSERT_EQ(k.autotune_configs().size(), 3u);
  EXPECT_EQ(k.autotune_configs()[0].maxnreg, 32);
  EXPECT_EQ(k.autotune_configs()[2].num_ctas, 2);
  int64_t chosen = launchTunedAxpy(k, 2999);
  EXPECT_TRUE(chosen == 64 || chosen == 128 || chosen == 256) << chosen;
  std::optional<tessera::AutotuneConfig> best = k.best_config();
  if (onGpu()) {
    ASSERT_TRUE(best.has_value());
    if (chosen == 256) {
      EXPECT_EQ(best->num_ctas, 2);
      EXPECT_FALSE(best->maxnreg.has_value());
    } else {
      EXPECT_EQ(best->maxnreg, chosen == 64 ? 32 : 64);
    }
  } else {
    // The interpreter runs the first config and reports it.
    ASSERT_TRUE(best.has_value());
    EXPECT_EQ(best->maxnreg, 32);
    EXPECT_EQ(chosen, 64);
  }
}

// Tuning runs the kernel many times (every config, warm-up and timed runs):
// the sweep must put back what it clobbered (acc), zero reset_to_zero
// tensors before every run (hits), skip the config that cannot launch, and
// tune once per key. A second Program (a second process's view: nothing in
// memory) reuses the choice from the disk cache.
TEST(Control, AutotuneSweepLeavesNoTrace) {
  E2E_RNG(rng);
  const int64_t n = 3001;
  auto x = rng.floats(n, -1, 1), acc0 = rng.floats(n, -1, 1);
  auto tx = dev().upload(x, {n}), tacc = dev().upload(acc0, {n});
  auto hits = dev().zeros(DType::i32, {1});
  int64_t chosen = 0;
  auto grid = gridFn([&](const tessera::Meta& m) {
    chosen = metaInt(m, "BLOCK");
    return std::vector<int64_t>{cdiv(n, chosen)};
  });
  testing::internal::CaptureStderr();
  setenv("TESSERA_PRINT_AUTOTUNING", "1", 1);
  try {
    kernel(kFile, "tuned_accumulate").launch(dev(), grid, {tx, tacc, hits, n});
    dev().synchronize();
  } catch (...) {
    unsetenv("TESSERA_PRINT_AUTOTUNING");
    testing::internal::GetCapturedStderr();
    throw;
  }
  std::string printed = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(chosen == 64 || chosen == 256) << chosen << "\n" << printed;
  std::vector<float> want(n);
  for (int64_t i = 0; i < n; ++i) want[i] = acc0[i] + x[i];
  expectSameBits(tacc.download<float>(), want, "acc + x, once");
  expectEqual(hits.download<int32_t>(), std::vector<int32_t>{int32_t(cdiv(n, chosen))}, "programs of one launch");
  if (onGpu()) {
    EXPECT_NE(printed.find("num_warps: 64"), std::string::npos) << printed;
    EXPECT_NE(printed.find("skipped"), std::string::npos) << printed;
    EXPECT_NE(printed.find("best config selected"), std::string::npos) << printed;
  }

  // Same key: no second sweep.
  testing::internal::CaptureStderr();
  kernel(kFile, "tuned_accumulate").launch(dev(), grid, {tx, tacc, hits, n});
  dev().synchronize();
  printed = testing::internal::GetCapturedStderr();
  EXPECT_EQ(printed.find("finished after"), std::string::npos) << printed;
  for (int64_t i = 0; i < n; ++i) want[i] += x[i];
  expectSameBits(tacc.download<float>(), want, "acc + 2x");

  // A fresh Program has nothing in memory: the disk cache answers.
  if (onGpu()) {
    auto fresh = tessera::Program::from_file(kernelPath(kFile)).kernel("tuned_accumulate");
    testing::internal::CaptureStderr();
    fresh.launch(dev(), grid, {tx, tacc, hits, n});
    dev().synchronize();
    printed = testing::internal::GetCapturedStderr();
    if (!tessera::runtime::cacheDirectory().empty()) {
      EXPECT_NE(printed.find("cached on disk"), std::string::npos) << printed;
    }
    for (int64_t i = 0; i < n; ++i) want[i] += x[i];
    expectSameBits(tacc.download<float>(), want, "acc + 3x");
  }
  unsetenv("TESSERA_PRINT_AUTOTUNING");
}

// prune_configs_by names Python functions: on the GPU the sweep runs the
// decorator's own early_config_prune on the host evaluator (BLOCK <= 128
// kept); C++ hooks given with set_autotune_hooks take precedence
// (early_config_prune keeping the configs of BLOCK <= 128, then perf_model +
// top_k 1 keeping the one estimated fastest: BLOCK 128), and only that
// config runs. The interpreter times nothing but prunes the same way: the
// first config the hooks keep runs.
TEST(Control, AutotunePruneConfigsByTakesCppHooks) {
  E2E_RNG(rng);
  const int64_t n = 5000;
  auto x = rng.floats(n, -1, 1);
  auto tx = dev().upload(x, {n});
  auto out = dev().zeros(DType::fp32, {n}), chosen = dev().zeros(DType::i32, {1});
  auto grid = gridFn([&](const tessera::Meta& m) { return std::vector<int64_t>{cdiv(n, metaInt(m, "BLOCK"))}; });
  auto fresh = tessera::Program::from_file(kernelPath(kFile)).kernel("pruned_copy");
  std::vector<tessera::AutotuneConfig> configs = fresh.autotune_configs();
  ASSERT_EQ(configs.size(), 4u);
  EXPECT_EQ(std::get<int64_t>(configs[2].kwargs.at("BLOCK")), 512);
  EXPECT_EQ(configs[3].num_warps, 8);
  if (onGpu()) {
    fresh.launch(dev(), grid, {tx, out, chosen, n});
    expectSameBits(out.download<float>(), x, "copy (Python prune)");
    int32_t block = chosen.download<int32_t>()[0];
    EXPECT_TRUE(block == 64 || block == 128) << block;
    fresh = tessera::Program::from_file(kernelPath(kFile)).kernel("pruned_copy");  // untuned again
  }
  tessera::AutotuneHooks hooks;
  int earlyCalls = 0;
  hooks.early_config_prune = [&](const std::vector<tessera::AutotuneConfig>& all, const tessera::Meta& args) {
    ++earlyCalls;
    EXPECT_EQ(std::get<int64_t>(args.at("n")), n);
    std::vector<size_t> keep;
    for (size_t i = 0; i < all.size(); ++i)
      if (std::get<int64_t>(all[i].kwargs.at("BLOCK")) <= 128) keep.push_back(i);
    return keep;
  };
  hooks.perf_model = [](const tessera::AutotuneConfig& c, const tessera::Meta&) {
    return 1.0 / double(std::get<int64_t>(c.kwargs.at("BLOCK")));  // "bigger is faster"
  };
  hooks.top_k = 1;
  fresh.set_autotune_hooks(hooks);
  fresh.launch(dev(), grid, {tx, out, chosen, n});
  expectSameBits(out.download<float>(), x, "copy");
  int32_t block = chosen.download<int32_t>()[0];
  EXPECT_EQ(block, 128);
  EXPECT_EQ(earlyCalls, 1);
  std::string msg = errorOf([&] { kernel(kFile, "hinted_copy").set_autotune_hooks(hooks); });
  EXPECT_NE(msg.find("no @triton.autotune"), std::string::npos) << msg;
}

// A launch that gives every meta-parameter the autotuner tunes has pinned
// the config: nothing is tuned (so prune_configs_by's Python functions are
// not needed), the launch runs with the given BLOCK (one no config has) and
// options, by name or positionally. Triton raises "conflicting
// meta-parameters" there (docs/decisions.md, "Reach").
TEST(Control, AutotuneSkippedWhenTheLaunchGivesEveryTunedValue) {
  E2E_RNG(rng);
  const int64_t n = 3001, block = 256;
  auto x = rng.floats(n, -1, 1);
  auto tx = dev().upload(x, {n});
  for (bool positional : {false, true}) {
    auto out = dev().zeros(DType::fp32, {n}), chosen = dev().zeros(DType::i32, {1});
    auto fresh = tessera::Program::from_file(kernelPath(kFile)).kernel("pruned_copy");
    tessera::LaunchOptions options;
    options.num_warps = 2;
    if (positional)
      fresh.launch(dev(), {cdiv(n, block)}, {tx, out, chosen, n, block}, {}, options);
    else
      fresh.launch(dev(), {cdiv(n, block)}, {tx, out, chosen, n}, {{"BLOCK", block}}, options);
    expectSameBits(out.download<float>(), x, "copy");
    EXPECT_EQ(chosen.download<int32_t>()[0], block) << (positional ? "positional" : "by name");
    EXPECT_FALSE(fresh.best_config().has_value()) << "nothing was tuned";
  }
}

TEST(Control, HintsDoNotChangeResults) {
  E2E_RNG(rng);
  int64_t n = 700;
  const int64_t block = 128;
  auto x = rng.floats(n, -1, 1);
  auto tx = dev().upload(x, {n});
  auto out = dev().zeros(DType::fp32, {n});
  kernel(kFile, "hinted_copy").launch(dev(), {cdiv(n, block)}, {tx, out, n}, {{"BLOCK", block}});
  std::vector<float> want(n);
  for (int64_t i = 0; i < n; ++i) want[i] = x[i] + static_cast<float>(i / block * block);
  expectSameBits(out.download<float>(), want, "x + block start");
}

}  // namespace
