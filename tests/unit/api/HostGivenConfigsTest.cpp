//===- HostGivenConfigsTest.cpp - Autotune configs the host language gave ---===//
//
// ProgramOptions::autotune_configs: a kernel whose @triton.autotune configs
// only CPython can compute (here from NumPy, which the host evaluator does
// not model) gets the configs it is given, and the interpreter runs the
// first of them; without them the decorator is a located error. And hooks
// the C++ core cannot run (a config's pre_hook) refuse a tuned launch rather
// than being skipped; a pinned launch runs.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include "tessera/tessera.h"

namespace {

constexpr const char* kSource = R"(
import numpy as np
import triton
import triton.language as tl

@triton.autotune(configs=[triton.Config({"BLOCK": int(b)}) for b in np.array([4, 1, 2]) * 32], key=["n"])
@triton.jit
def numpy_tuned(x_ptr, block_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)
    if tl.program_id(0) == 0:
        tl.store(block_ptr, BLOCK)
)";

TEST(HostGivenConfigs, ConfigsOnlyCPythonComputesAreTakenAsGiven) {
  tessera::ProgramOptions options;
  for (int64_t b : {128, 32, 64}) {
    tessera::AutotuneConfig c;
    c.kwargs["BLOCK"] = b;
    c.num_warps = b == 128 ? 8 : 4;
    options.autotune_configs["numpy_tuned"].push_back(c);
  }
  tessera::Kernel k = tessera::Program::from_source(kSource, "numpy_tuned.py", options).kernel("numpy_tuned");
  std::vector<tessera::AutotuneConfig> configs = k.autotune_configs();
  ASSERT_EQ(configs.size(), 3u);
  EXPECT_EQ(std::get<int64_t>(configs[1].kwargs.at("BLOCK")), 32);
  EXPECT_EQ(configs[0].num_warps, 8);
  tessera::Device dev = tessera::Device::interpreter();
  const int64_t n = 300;
  std::vector<float> x(n);
  for (int64_t i = 0; i < n; ++i) x[i] = static_cast<float>(i) * 0.5f;
  tessera::Tensor tx = dev.upload(x, {n});
  tessera::Tensor block = dev.zeros(tessera::DType::i32, {1});
  k.launch(dev, tessera::Grid([&](const tessera::Meta& m) {
             return std::vector<int64_t>{tessera::cdiv(n, tessera::meta_int(m, "BLOCK"))};
           }),
           {tx, block, n});
  std::vector<float> got = tx.download<float>();
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(got[i], x[i] + 1.0f) << i;
  EXPECT_EQ(block.download<int32_t>()[0], 128);  // the interpreter runs the first given config

  // Without them: the decorator cannot be evaluated, and the launch says where.
  tessera::Kernel plain = tessera::Program::from_source(kSource, "numpy_tuned.py").kernel("numpy_tuned");
  try {
    plain.autotune_configs();
    FAIL() << "expected an error";
  } catch (const tessera::Error& e) {
    EXPECT_NE(std::string(e.what()).find("numpy_tuned.py:6"), std::string::npos) << e.what();
  }
}

constexpr const char* kHooked = R"(
import triton
import triton.language as tl

def zero_out(nargs):
    nargs["y_ptr"].zero_()

@triton.autotune(configs=[triton.Config({"BLOCK": 64}, pre_hook=zero_out), triton.Config({"BLOCK": 128})], key=["n"])
@triton.jit
def hooked(y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(y_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)
)";

TEST(HostGivenConfigs, PythonHooksRefuseATunedLaunchButNotAPinnedOne) {
  tessera::Kernel k = tessera::Program::from_source(kHooked, "hooked.py").kernel("hooked");
  tessera::Device dev = tessera::Device::interpreter();
  const int64_t n = 100;
  tessera::Tensor y = dev.zeros(tessera::DType::fp32, {n});
  try {
    k.launch(dev, {2}, {y, n});
    FAIL() << "a pre_hook was skipped";
  } catch (const tessera::Error& e) {
    EXPECT_NE(std::string(e.what()).find("config 0's pre_hook"), std::string::npos) << e.what();
  }
  for (float v : y.download<float>()) ASSERT_EQ(v, 0.0f);  // nothing ran
  k.launch(dev, {1}, {y, n}, {{"BLOCK", int64_t(128)}});     // pinned: the caller runs hooks
  for (float v : y.download<float>()) ASSERT_EQ(v, 1.0f);
}

}  // namespace
