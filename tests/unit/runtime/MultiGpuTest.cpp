//===- MultiGpuTest.cpp - Two GPUs, two threads ----------------------------===//
//
// For the 2-GPU device machine (nvidia-h100-x2); skipped with fewer GPUs.
// Device::cuda(i) is a device of its own: its memory, its loaded modules,
// its autotuning choices. Two threads launch on two GPUs at once and both
// get their results; a tensor of one GPU passed to a launch on the other is
// an error naming the argument and both devices.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include <random>
#include <thread>

#include "tessera/runtime/Driver.h"
#include "tessera/tessera.h"

namespace {

using namespace tessera;

const char* kSource = R"(
import triton
import triton.language as tl

@triton.jit
def axpb(y_ptr, x_ptr, n, a, b, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=keep) * a + b, mask=keep)

@triton.autotune(configs=[triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 256}, num_warps=8)], key=["n"])
@triton.jit
def tuned_copy(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
)";

#define REQUIRE_TWO_GPUS()                                                                     \
  do {                                                                                         \
    std::string why;                                                                           \
    if (!runtime::cudaAvailable(&why)) GTEST_SKIP() << "no GPU: " << why;                      \
    if (runtime::cudaDeviceCount() < 2) GTEST_SKIP() << "one GPU (the test needs two)";         \
  } while (0)

TEST(MultiGpu, TwoThreadsLaunchOnTwoGpusAtOnce) {
  REQUIRE_TWO_GPUS();
  Program p = Program::from_source(kSource, "multi_gpu.py");
  Kernel k = p.kernel("axpb");
  std::vector<std::string> failures(2);
  auto work = [&](int ordinal) {
    try {
      Device dev = Device::cuda(ordinal);
      if (dev.ordinal() != ordinal) throw Error("Device::cuda(" + std::to_string(ordinal) + ") is " + dev.name());
      std::mt19937 rng(17 + ordinal);
      std::uniform_int_distribution<int> small(-50, 50);
      for (int round = 0; round < 20; ++round) {
        int64_t n = 1 + (round * 7919 + ordinal * 104729) % 100003;
        std::vector<float> x(n);
        for (float& v : x) v = static_cast<float>(small(rng));
        Tensor tx = dev.upload(x, {n});
        Tensor ty = dev.empty(DType::fp32, {n});
        float a = 2.0f + ordinal, b = -3.0f * round;
        for (int rep = 0; rep < 10; ++rep)
          k.launch(dev, {cdiv(n, 256)}, {ty, tx, n, a, b}, {{"BLOCK", int64_t(256)}});
        dev.synchronize();
        std::vector<float> y = ty.download<float>();
        for (int64_t i = 0; i < n; ++i)
          if (y[i] != x[i] * a + b)
            throw Error("cuda:" + std::to_string(ordinal) + " round " + std::to_string(round) + " element " +
                        std::to_string(i) + ": " + std::to_string(y[i]));
      }
    } catch (const std::exception& e) {
      failures[ordinal] = e.what();
    }
  };
  std::thread t0(work, 0), t1(work, 1);
  t0.join();
  t1.join();
  EXPECT_EQ(failures[0], "");
  EXPECT_EQ(failures[1], "");
}

TEST(MultiGpu, ATensorOfTheOtherGpuIsRefused) {
  REQUIRE_TWO_GPUS();
  Device d0 = Device::cuda(0), d1 = Device::cuda(1);
  Tensor y = d0.empty(DType::fp32, {100});
  Tensor x = d1.zeros(DType::fp32, {100});
  try {
    Program::from_source(kSource, "multi_gpu.py")
        .kernel("axpb")
        .launch(d0, {1}, {y, x, int64_t(100), 1.0f, 0.0f}, {{"BLOCK", int64_t(128)}});
    FAIL() << "a cuda:1 tensor reached a launch on cuda:0";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("'x_ptr'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("cuda:1"), std::string::npos) << msg;
  }
}

TEST(MultiGpu, EachGpuTunesAndRunsItsOwnCopy) {
  REQUIRE_TWO_GPUS();
  Kernel k = Program::from_source(kSource, "multi_gpu.py").kernel("tuned_copy");
  const int64_t n = 50001;
  for (int ordinal : {0, 1}) {
    Device dev = Device::cuda(ordinal);
    std::vector<float> x(n);
    for (int64_t i = 0; i < n; ++i) x[i] = static_cast<float>(i % 977) - ordinal;
    Tensor tx = dev.upload(x, {n});
    Tensor ty = dev.zeros(DType::fp32, {n});
    k.launch(dev, Grid([&](const Meta& m) { return std::vector<int64_t>{cdiv(n, meta_int(m, "BLOCK"))}; }), {ty, tx, n});
    dev.synchronize();
    EXPECT_EQ(ty.download<float>(), x) << "cuda:" << ordinal;
    EXPECT_TRUE(k.best_config().has_value()) << "cuda:" << ordinal;
  }
}

}  // namespace
