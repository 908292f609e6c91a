//===- GpuLaunchTest.cpp - Kernels launched on a CUDA device --------------===//
//
// Runs on the device machine (skipped without a driver/GPU): kernels through
// the real backend on cuda:0, results compared with the interpreter's, odd
// sizes; scalar arguments of every kind packed as the PTX entry declares
// them; tensors on the wrong device rejected with the argument's name.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include <numeric>

#include "tessera/runtime/Driver.h"
#include "tessera/tessera.h"

namespace {

using namespace tessera;

const char* kSource = R"(
import triton
import triton.language as tl

@triton.jit
def affine(y_ptr, x_ptr, n, a, b, flip, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = offs < n
    x = tl.load(x_ptr + offs, mask=keep)
    y = x * a + b
    if flip:
        y = -y
    tl.store(y_ptr + offs, y, mask=keep)

@triton.jit
def offsets(out_ptr, base, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, base + offs.to(tl.int64), mask=offs < n)
)";

#define REQUIRE_GPU()                                                        \
  do {                                                                       \
    std::string why;                                                         \
    if (!runtime::cudaAvailable(&why)) GTEST_SKIP() << "no GPU: " << why;    \
  } while (0)

template <class T> std::vector<T> run(Device dev, const char* name, int64_t n, const std::vector<Arg>& scalars,
                                      const std::vector<float>& input = {}) {
  Program p = Program::from_source(kSource, "gpu_launch.py");
  Tensor out = dev.zeros(dtype_of<T>(), {n});
  std::vector<Arg> args{out};
  if (!input.empty()) args.push_back(dev.upload(input, {n}));
  for (const Arg& a : scalars) args.push_back(a);
  int64_t block = 128;
  p.kernel(name).launch(dev, {(n + block - 1) / block}, args, {{"BLOCK", block}});
  dev.synchronize();
  return out.template download<T>();
}

TEST(GpuLaunch, MatchesTheInterpreter) {
  REQUIRE_GPU();
  Device gpu = Device::cuda(0);
  for (int64_t n : {1, 127, 1000 + 37}) {
    std::vector<float> x(n);
    for (int64_t i = 0; i < n; ++i) x[i] = static_cast<float>((i * 37) % 101 - 50);
    // Integral values times 2.5 plus 3 are exact with or without FMA.
    for (bool flip : {false, true}) {
      std::vector<Arg> scalars{static_cast<int32_t>(n), 2.5f, int32_t(3), flip};
      auto expected = run<float>(Device::interpreter(), "affine", n, scalars, x);
      EXPECT_EQ(run<float>(gpu, "affine", n, scalars, x), expected) << n << " flip=" << flip;
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(expected[i], (flip ? -1 : 1) * (x[i] * 2.5f + 3)) << i;
    }
  }
  // An i64 scalar (beyond 32 bits) reaches the kernel intact.
  int64_t base = (int64_t(1) << 40) + 12345;
  auto got = run<int64_t>(gpu, "offsets", 300, {base, int32_t(300)});
  for (int64_t i = 0; i < 300; ++i) ASSERT_EQ(got[i], base + i) << i;
}

TEST(GpuLaunch, RejectsTensorsOfAnotherDevice) {
  REQUIRE_GPU();
  Device gpu = Device::cuda(0);
  Tensor out = gpu.empty(DType::fp32, {10});
  Tensor hostSide = Device::interpreter().zeros(DType::fp32, {10});
  Program p = Program::from_source(kSource, "gpu_launch.py");
  try {
    p.kernel("affine").launch(gpu, {1}, {out, hostSide, int32_t(10), 1.0f, int32_t(0), false}, {{"BLOCK", int64_t(16)}});
    FAIL() << "an interpreter tensor reached a GPU launch";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("kernel 'affine'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'x_ptr'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("the interpreter"), std::string::npos) << msg;
  }
}

TEST(GpuLaunch, CompileDefaultsToTheDeviceArchitecture) {
  REQUIRE_GPU();
  Program p = Program::from_source(kSource, "gpu_launch.py");
  CompiledKernel c = p.kernel("offsets").compile("*i64:16, i64, i32", {{"BLOCK", int64_t(128)}});
  EXPECT_EQ(c.target(), Device::cuda(0).arch());
  EXPECT_NE(c.asm_text("ptx").find(".target " + c.target()), std::string::npos);
}

}  // namespace

namespace {

// Kernel::launch_if_warm: false (and nothing launched) until a launch of the
// same shape was made; then it launches with this call's values, reading of
// a tensor only its pointer, even from a view without shape or strides.
TEST(GpuLaunch, LaunchIfWarmLaunchesOnlyShapesSeenBefore) {
  REQUIRE_GPU();
  Device dev = Device::cuda();
  Kernel k = Program::from_source(kSource, "gpu_launch_warm.py").kernel("affine");
  const int64_t n = 1000;
  std::vector<float> x(n);
  std::iota(x.begin(), x.end(), -300.0f);
  Tensor tx = dev.upload(x, {n}), ty = dev.zeros(DType::fp32, {n});
  Meta block{{"BLOCK", int64_t(128)}};
  std::vector<Arg> args{ty, tx, n, 2.0f, 1.0f, false};
  EXPECT_FALSE(k.launch_if_warm(dev, {8}, args.data(), args.size(), block, {}));
  dev.synchronize();
  EXPECT_EQ(ty.download<float>(), std::vector<float>(n, 0.0f)) << "a cold launch_if_warm launched";
  k.launch(dev, {8}, args, block);
  // Pointer-only views of the same memory, other scalars: the warm path.
  Tensor py = Tensor::from_blob(dev, reinterpret_cast<void*>(ty.data_ptr()), DType::fp32, {}, {});
  Tensor px = Tensor::from_blob(dev, reinterpret_cast<void*>(tx.data_ptr()), DType::fp32, {}, {});
  std::vector<Arg> light{py, px, n, -3.0f, 0.5f, false};
  EXPECT_TRUE(k.launch_if_warm(dev, {8}, light.data(), light.size(), block, {}));
  dev.synchronize();
  std::vector<float> y = ty.download<float>();
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(y[i], x[i] * -3.0f + 0.5f) << i;
  // Another shape (flip=true is a different bool, same code; n=1 is a
  // different integer property): not warm.
  std::vector<Arg> one{py, px, int64_t(1), -3.0f, 0.5f, false};
  EXPECT_FALSE(k.launch_if_warm(dev, {1}, one.data(), one.size(), block, {}));
  LaunchOptions eight;
  eight.num_warps = 8;
  EXPECT_FALSE(k.launch_if_warm(dev, {8}, light.data(), light.size(), block, eight));
}

}  // namespace
