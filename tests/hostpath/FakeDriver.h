//===- FakeDriver.h - What the fake libcuda.so.1 records ------------------===//
//
// The fake driver of tests/hostpath (FakeDriver.cpp) exports these C
// functions next to the driver API; tests reach them with dlsym on the
// already-loaded libcuda.so.1.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <cstdint>

struct FakeCudaLaunch {
  static constexpr int kMaxParams = 32;
  void* function = nullptr;
  unsigned grid[3] = {0, 0, 0};
  unsigned blockThreads = 0, sharedBytes = 0, clusterSize = 1;
  int programmaticSerialization = 0;
  void* stream = nullptr;
  int numParams = 0;
  uint64_t params[kMaxParams] = {};  ///< each parameter's bytes, zero-extended
};

extern "C" {
/// Launches made so far (cuLaunchKernel and cuLaunchKernelEx).
unsigned long long fakecudaLaunches();
/// The last launch's configuration and parameter values.
const FakeCudaLaunch* fakecudaLastLaunch();
/// How many parameters the next launches pass and each one's size in bytes
/// (a kernel's parameter sizes are in its PTX, which the fake does not read).
void fakecudaExpectParams(int n, const int* bytes);
/// From now on each launch writes `kb` KiB of memory after recording
/// itself, as a real driver's launch evicts the caller's data from the
/// caches (0: none; FAKECUDA_TOUCH_KB sets the first value).
void fakecudaTouch(size_t kb);
/// Whether launches note when they entered the driver (off by default).
void fakecudaStampEntries(int on);
/// When the last launch entered the driver (steady_clock nanoseconds since
/// its epoch; with fakecudaStampEntries on): what precedes it is the
/// caller's host work.
long long fakecudaLastEntryNs();
}
