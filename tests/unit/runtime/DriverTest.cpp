//===- DriverTest.cpp - The CUDA driver layer and GPU tensors -------------===//
//
// Without a driver (this development machine, CI) Device::cuda must fail
// with a message naming libcuda.so.1 and the way out, and default_device
// must fall back to the interpreter. With a GPU (the device machine) the same
// tests check tensors round-trip through device memory.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include <numeric>

#include "tessera/runtime/Driver.h"
#include "tessera/tessera.h"

namespace {

std::string errorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const tessera::Error& e) {
    return e.what();
  }
  return "";
}

TEST(Driver, CudaDeviceWithoutDriverSaysWhy) {
  std::string why;
  if (tessera::runtime::cudaAvailable(&why)) GTEST_SKIP() << "a CUDA driver and GPU are present";
  EXPECT_FALSE(why.empty());
  std::string err = errorOf([] { tessera::Device::cuda(0); });
  EXPECT_NE(err.find("Device::cuda(0)"), std::string::npos) << err;
  EXPECT_NE(err.find("libcuda.so.1"), std::string::npos) << err;
  EXPECT_NE(err.find("Device::interpreter()"), std::string::npos) << err;
  EXPECT_NE(err.find("TESSERA_INTERPRET=1"), std::string::npos) << err;
  // The same reason every time (the driver is probed once per process).
  EXPECT_EQ(errorOf([] { tessera::Device::cuda(1); }), "Device::cuda(1): " + why);
  EXPECT_TRUE(tessera::Device::default_device().is_interpreter());
  EXPECT_EQ(tessera::Device::interpreter().arch(), "");
  EXPECT_EQ(tessera::Device::interpreter().ordinal(), -1);
}

TEST(Driver, OrdinalOutOfRange) {
  if (!tessera::runtime::cudaAvailable()) GTEST_SKIP() << "no CUDA driver/GPU";
  int n = tessera::runtime::cudaDeviceCount();
  std::string err = errorOf([&] { tessera::Device::cuda(n); });
  EXPECT_NE(err.find("no such device"), std::string::npos) << err;
}

// TESSERA_CUDA_ARCH picks an older architecture to compile for (what the
// device's CudaDevice and compile() default to), never a newer one; the
// SASS of that code is for the device's own (runtime::sassTarget).
TEST(Driver, ForcedArchitectureMustRunOnTheDevice) {
  if (!tessera::runtime::cudaAvailable()) GTEST_SKIP() << "no CUDA driver/GPU";
  tessera::gpu::Target native = tessera::runtime::cudaDeviceNativeTarget(0);
  ASSERT_GE(native.capability, 80);
  setenv("TESSERA_CUDA_ARCH", "sm_80", 1);
  EXPECT_EQ(tessera::runtime::cudaDeviceTarget(0).name(), "sm_80");
  setenv("TESSERA_CUDA_ARCH", "sm_120a", 1);
  std::string err = errorOf([] { tessera::runtime::cudaDeviceTarget(0); });
  EXPECT_NE(err.find("TESSERA_CUDA_ARCH=sm_120a"), std::string::npos) << err;
  EXPECT_NE(err.find(native.name()), std::string::npos) << err;
  unsetenv("TESSERA_CUDA_ARCH");
  EXPECT_EQ(tessera::runtime::cudaDeviceTarget(0).name(), native.name());
}

TEST(Driver, GpuTensorsRoundTrip) {
  if (!tessera::runtime::cudaAvailable()) GTEST_SKIP() << "no CUDA driver/GPU";
  tessera::Device dev = tessera::Device::cuda(0);
  EXPECT_FALSE(dev.is_interpreter());
  EXPECT_EQ(dev.name(), "cuda:0");
  EXPECT_EQ(dev.impl(), tessera::Device::cuda(0).impl());
  EXPECT_EQ(dev.arch(), tessera::runtime::CudaDevice::get(0).target().name());
  std::vector<int32_t> host(1000 + 37);
  std::iota(host.begin(), host.end(), -500);
  tessera::Tensor t = dev.upload(host, {17, 61});
  EXPECT_NE(t.data_ptr(), 0u);
  EXPECT_EQ(t.download<int32_t>(), host);
  tessera::Tensor z = dev.zeros(tessera::DType::fp32, {3, 333});
  std::vector<float> zf = z.download<float>();
  ASSERT_EQ(zf.size(), 999u);
  for (float f : zf) EXPECT_EQ(f, 0.0f);
  tessera::Tensor e = dev.empty(tessera::DType::fp16, {0});
  EXPECT_TRUE(e.download_bytes().empty());
  dev.synchronize();
}

}  // namespace
