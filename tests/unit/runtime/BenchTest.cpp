//===- BenchTest.cpp - tessera::testing::do_bench ----------------------------------===//
//
// Statistics against hand-computed values (no GPU); the interpreter refuses
// to be timed; on a GPU, a launch loop is timed and its numbers are ordered
// and positive, and a kernel moving 16x the data takes longer.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include "api/Internal.h"
#include "tessera/runtime/Driver.h"
#include "tessera/testing.h"

namespace {

using namespace tessera;

TEST(DoBench, StatisticsLikeTorch) {
  tessera::testing::BenchResult r = detail::summarizeTimes({5, 1, 3, 2, 4}, {0.2, 0.8, 0.0, 1.0});
  EXPECT_EQ(r.runs, 5);
  EXPECT_DOUBLE_EQ(r.median_ms, 3);
  EXPECT_DOUBLE_EQ(r.mean_ms, 3);
  EXPECT_DOUBLE_EQ(r.min_ms, 1);
  EXPECT_DOUBLE_EQ(r.max_ms, 5);
  ASSERT_EQ(r.quantiles_ms.size(), 4u);
  EXPECT_DOUBLE_EQ(r.quantiles_ms[0], 1.8);  // position 0.8 between 1 and 2
  EXPECT_DOUBLE_EQ(r.quantiles_ms[1], 4.2);  // position 3.2 between 4 and 5
  EXPECT_DOUBLE_EQ(r.quantiles_ms[2], 1);
  EXPECT_DOUBLE_EQ(r.quantiles_ms[3], 5);
  // torch.median of an even count: the lower middle value.
  EXPECT_DOUBLE_EQ(detail::summarizeTimes({4, 1, 3, 2}, {}).median_ms, 2);
  EXPECT_DOUBLE_EQ(detail::summarizeTimes({4, 1, 3, 2}, {0.5}).quantiles_ms[0], 2.5);
  EXPECT_THROW(detail::summarizeTimes({1}, {1.5}), Error);
}

TEST(DoBench, InterpreterIsRefused) {
  Device dev = Device::interpreter();
  try {
    tessera::testing::do_bench(dev, [] {});
    FAIL() << "the interpreter cannot be timed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("CUDA device"), std::string::npos) << e.what();
  }
}

const char* kCopy = R"(
import triton
import triton.language as tl

@triton.jit
def copy(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=keep), mask=keep)
)";

TEST(DoBench, TimesGpuLaunches) {
  std::string why;
  if (!runtime::cudaAvailable(&why)) GTEST_SKIP() << "no GPU: " << why;
  Device dev = Device::cuda(0);
  Kernel k = Program::from_source(kCopy, "copy.py").kernel("copy");
  auto time = [&](int64_t n) {
    Tensor x = dev.zeros(DType::fp32, {n});
    Tensor y = dev.zeros(DType::fp32, {n});
    tessera::testing::BenchOptions o;
    o.quantiles = {0.2, 0.8};
    return tessera::testing::do_bench(dev, [&] { k.launch(dev, {(n + 1023) / 1024}, {y, x, n}, {{"BLOCK", int64_t(1024)}}); }, o);
  };
  tessera::testing::BenchResult small = time(1 << 20);
  EXPECT_GT(small.runs, 0);
  EXPECT_GT(small.min_ms, 0);
  EXPECT_LE(small.min_ms, small.quantiles_ms[0]);
  EXPECT_LE(small.quantiles_ms[0], small.median_ms);
  EXPECT_LE(small.median_ms, small.quantiles_ms[1]);
  EXPECT_LE(small.quantiles_ms[1], small.max_ms);
  EXPECT_GE(small.mean_ms, small.min_ms);
  EXPECT_LE(small.mean_ms, small.max_ms);
  tessera::testing::BenchResult big = time(16 << 20);  // 128 MiB moved per run
  EXPECT_GT(big.median_ms, small.median_ms);
}

}  // namespace
