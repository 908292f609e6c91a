//===- PackagesTest.cpp - Kernels of a package of several modules ---------===//
//
// kernels/fusedpkg is laid out as real Triton projects are: kernels in
// sibling modules import helpers, constexpr globals, configs built by host
// functions and version switches from utils.py; some kernels are made by
// calls (`axpby = triton.jit(_axpby)`), one sits under a project's own
// decorator, launch.py re-binds kernels of other modules, and ops/broken.py
// has an autotune decorator that cannot be evaluated. Every kernel is checked
// against a C++ reference, on the interpreter in CI and on the GPU in
// tests/gpu/run.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cmath>

#include "e2e/Harness.h"

using namespace e2e;
using tessera::DType;

namespace {

const char* kElementwise = "fusedpkg/ops/elementwise.py";
const char* kNorm = "fusedpkg/ops/norm.py";
const char* kLaunch = "fusedpkg/launch.py";

// A helper from a sibling module reached through `import fusedpkg.utils as U`
// (U.scale) and a constexpr global of that module (SCALE = 2.0); the kernel
// sits under a decorator of the project's own.
TEST(Packages, HelpersAndConstantsFromASiblingModule) {
  E2E_RNG(rng);
  for (int64_t n : {int64_t(1), int64_t(1000), int64_t(4099)}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    auto x = rng.floats(n, -4, 4), y = rng.floats(n, -4, 4);
    auto tx = dev().upload(x, {n}), ty = dev().upload(y, {n});
    auto out = dev().zeros(DType::fp32, {n});
    kernel(kElementwise, "add_kernel").launch(dev(), {cdiv(n, 128)}, {tx, ty, out, n}, {{"BLOCK", int64_t(128)}});
    std::vector<float> want(n);
    for (int64_t i = 0; i < n; ++i) want[i] = x[i] * 2.0f + y[i];
    expectSameBits(out.download<float>(), want, "2 * x + y");
  }
}

// A kernel defined in a class (`Kernels.scale_offset`, a @staticmethod) that
// calls a function and reads a constant of a class in a sibling module
// (`U.RowOps.scaled`, `U.RowOps.OFFSET`).
TEST(Packages, KernelsAndHelpersInClasses) {
  E2E_RNG(rng);
  for (int64_t n : {int64_t(1), int64_t(777)}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    auto x = rng.floats(n, -4, 4);
    auto out = dev().zeros(DType::fp32, {n});
    const double factor = std::ldexp(1.0, static_cast<int>(rng.integer(-2, 2)));  // exact products: FMA or not
    kernel(kElementwise, "Kernels.scale_offset")
        .launch(dev(), {1}, {dev().upload(x, {n}), out, n, factor}, {{"BLOCK", int64_t(128)}});
    std::vector<float> want(n);
    for (int64_t i = 0; i < n; ++i) want[i] = x[i] * static_cast<float>(factor) + 3.0f;
    expectSameBits(out.download<float>(), want, "x * factor + 3");
  }
}

// Configs computed by utils.get_configs() (a comprehension filtered by a
// nested function) and extended with += afterwards; the EVEN heuristic comes
// from a helper's call. Any config gives the right result.
TEST(Packages, ComputedConfigsAndHeuristicsFromAHelper) {
  tessera::Kernel k = kernel(kElementwise, "scaled_add");
  std::vector<tessera::AutotuneConfig> configs = k.autotune_configs();
  // BLOCK in {32, 64, 128, 256} x num_warps in {1, 2, 4}, kept when
  // BLOCK >= 32 * num_warps: 9 configs, and the one added with +=.
  ASSERT_EQ(configs.size(), 10u);
  for (size_t c = 0; c + 1 < configs.size(); ++c)
    EXPECT_GE(std::get<int64_t>(configs[c].kwargs.at("BLOCK")), 32 * configs[c].num_warps) << c;
  EXPECT_EQ(std::get<int64_t>(configs.back().kwargs.at("BLOCK")), 512);
  EXPECT_EQ(configs.back().num_warps, 8);
  E2E_RNG(rng);
  for (int64_t n : {int64_t(2048), int64_t(2051)}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    auto x = rng.floats(n, -1, 1), y = rng.floats(n, -1, 1);
    float alpha = rng.uniform(0.5f, 2.0f);
    auto tx = dev().upload(x, {n}), ty = dev().upload(y, {n});
    auto out = dev().zeros(DType::fp32, {n});
    auto even = dev().upload(std::vector<int32_t>{-1}, {1});
    int64_t block = 0;
    k.launch(dev(), gridFn([&](const tessera::Meta& m) {
               block = metaInt(m, "BLOCK");
               return std::vector<int64_t>{cdiv(n, block)};
             }),
             {tx, ty, out, even, n, alpha});
    std::vector<float> want(n);
    for (int64_t i = 0; i < n; ++i) want[i] = std::fma(x[i], alpha, y[i]);
    expectClose(out.download<float>(), want, 1e-6, 1e-6, "x * alpha + y");
    EXPECT_EQ(even.download<int32_t>()[0], n % block == 0 ? 1 : 0) << "EVEN with BLOCK=" << block;
  }
}

// `axpby = triton.jit(_axpby)` and `triton.jit(do_not_specialize=["n"])(_axpby)`.
TEST(Packages, KernelsMadeByCalls) {
  E2E_RNG(rng);
  const int64_t n = 777;
  auto x = rng.floats(n, -2, 2), y = rng.floats(n, -2, 2);
  float a = rng.uniform(-2, 2), b = rng.uniform(-2, 2);
  std::vector<float> want(n);
  for (int64_t i = 0; i < n; ++i) want[i] = a * x[i] + b * y[i];
  for (const char* name : {"axpby", "axpby_nospec"}) {
    SCOPED_TRACE(name);
    tessera::Kernel k = kernel(kElementwise, name);
    EXPECT_NE(k.defined_at().find("made by triton.jit(_axpby) at "), std::string::npos) << k.defined_at();
    EXPECT_NE(k.defined_at().find("elementwise.py:"), std::string::npos) << k.defined_at();
    auto tx = dev().upload(x, {n}), ty = dev().upload(y, {n});
    auto out = dev().zeros(DType::fp32, {n});
    k.launch(dev(), {cdiv(n, 64)}, {tx, ty, out, n, a, b}, {{"BLOCK", int64_t(64)}});
    expectClose(out.download<float>(), want, 1e-6, 1e-6, "a * x + b * y");
  }
}

// rms_norm_rows loops over rows with a step from a heuristic that reads the
// SM count host code asked torch for; rsqrt comes through a version switch
// (try/except ModuleNotFoundError) and ROW_SCALE through an `if` on the
// installed Triton's version.
TEST(Packages, DeviceQueriesAndVersionSwitches) {
  E2E_RNG(rng);
  const int64_t rows = 37, cols = 100;
  const float eps = 1e-5f;
  auto x = rng.floats(rows * cols, -3, 3), w = rng.floats(cols, 0.5f, 1.5f);
  for (const char* file : {kNorm, kLaunch}) {
    SCOPED_TRACE(file);
    auto tx = dev().upload(x, {rows, cols}), tw = dev().upload(w, {cols});
    auto out = dev().zeros(DType::fp32, {rows, cols});
    int64_t programs = 0;
    kernel(file, std::string(file) == kNorm ? "rms_norm_rows" : "rms")
        .launch(dev(), gridFn([&](const tessera::Meta& m) {
                  programs = metaInt(m, "NUM_PROGRAMS");
                  return std::vector<int64_t>{programs};
                }),
                {tx, tw, out, rows, cols, eps}, {{"BLOCK", int64_t(128)}});
    // min(NUM_SMS, rows): every SM count this runs on exceeds 37.
    EXPECT_EQ(programs, rows);
    std::vector<float> want(rows * cols);
    for (int64_t r = 0; r < rows; ++r) {
      double ss = 0;
      for (int64_t c = 0; c < cols; ++c) ss += double(x[r * cols + c]) * x[r * cols + c];
      double inv = 1.0 / std::sqrt(ss / cols + eps);
      for (int64_t c = 0; c < cols; ++c) want[r * cols + c] = float(x[r * cols + c] * inv * w[c]);
    }
    expectClose(out.download<float>(), want, 2e-5, 1e-5, "rms norm");
  }
}

// FP32_MIN = tl.constexpr(torch.finfo(torch.float32).min) as the `other`
// of masked loads: rows of negative numbers keep their true maximum.
TEST(Packages, ConstantsComputedWithTorchFinfo) {
  E2E_RNG(rng);
  const int64_t rows = 9, cols = 50;
  auto x = rng.floats(rows * cols, -1e30f, -1.0f);
  auto tx = dev().upload(x, {rows, cols});
  auto out = dev().zeros(DType::fp32, {rows});
  kernel(kNorm, "row_max").launch(dev(), {rows}, {tx, out, cols}, {{"BLOCK", int64_t(64)}});
  std::vector<float> want(rows);
  for (int64_t r = 0; r < rows; ++r) want[r] = *std::max_element(x.begin() + r * cols, x.begin() + (r + 1) * cols);
  expectSameBits(out.download<float>(), want, "row max");
}

// A kernel bound in another module is found by a dotted path.
TEST(Packages, KernelsByDottedPath) {
  tessera::Program p = tessera::Program::from_file(kernelPath(kLaunch));
  EXPECT_EQ(p.kernel("_norm.row_max").name(), "row_max");
  EXPECT_EQ(p.kernel("fusedpkg.ops.elementwise.add_kernel").name(), "add_kernel");
  EXPECT_EQ(tessera::Program::from_file(kernelPath(kElementwise)).kernel_names(),
            (std::vector<std::string>{"add_kernel", "scaled_add", "axpby", "axpby_nospec", "Kernels.scale_offset"}));
  // Through modules and a class.
  EXPECT_EQ(p.kernel("fusedpkg.ops.elementwise.Kernels.scale_offset").name(), "scale_offset");
  std::vector<std::string> modules;
  for (const auto& [name, kernels] : p.modules()) modules.push_back(name);
  EXPECT_EQ(modules.front(), "fusedpkg.launch");
  for (const char* m : {"fusedpkg", "fusedpkg.utils", "fusedpkg.ops", "fusedpkg.ops.elementwise", "fusedpkg.ops.norm"})
    EXPECT_NE(std::find(modules.begin(), modules.end(), m), modules.end()) << m;
}

// ops/broken.py: broken_tuning's autotune calls a function nobody defined.
// That kernel fails when its configs are needed, located at the decorator,
// every time; the module's other kernel (and the one it imports) never
// notice; with every meta-parameter given its configs are not needed.
TEST(Packages, OneBadDecoratorBreaksNoOtherKernel) {
  tessera::Program p = tessera::Program::from_file(kernelPath("fusedpkg/ops/broken.py"));
  EXPECT_EQ(p.kernel_names(), (std::vector<std::string>{"fill", "broken_tuning"}));
  tessera::Kernel k = p.kernel("broken_tuning");
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      k.autotune_configs();
      ADD_FAILURE() << "expected an error";
    } catch (const tessera::Error& e) {
      std::string msg = e.what();
      EXPECT_NE(msg.find("broken.py:17:"), std::string::npos) << msg;
      EXPECT_NE(msg.find("_configs_nobody_defined"), std::string::npos) << msg;
    }
  }
  tessera::CompiledKernel c = k.compile("*i32, i32", {{"BLOCK", int64_t(32)}}, {}, "sm_90a");
  EXPECT_NE(c.asm_text("ttir").find("tt.func"), std::string::npos);
  const int64_t n = 300;
  auto x = dev().zeros(DType::i32, {n});
  p.kernel("fill").launch(dev(), {cdiv(n, 128)}, {x, n, int64_t(7)}, {{"BLOCK", int64_t(128)}});
  EXPECT_EQ(x.download<int32_t>(), std::vector<int32_t>(n, 7));
  EXPECT_EQ(p.kernel("add_kernel").autotune_configs().size(), 0u);
}

}  // namespace
