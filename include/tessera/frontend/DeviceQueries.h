//===- tessera/frontend/DeviceQueries.h - What host code learns of the GPU -*- C++ -*-===//
//
// The answers of the device queries host Python makes while a program loads
// (`torch.cuda.get_device_properties(0).multi_processor_count`,
// `triton.runtime.driver.active.get_current_target()`, ...). The defaults
// describe an H100 SXM.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>

namespace tessera::frontend {

struct DeviceQueries {
  int major = 9, minor = 0;
  int multiprocessors = 132;
  int64_t sharedMemPerBlockOptin = 232448;
  int64_t totalMemory = int64_t{80} << 30;
  std::string name = "NVIDIA H100 80GB HBM3";
};

}  // namespace tessera::frontend
