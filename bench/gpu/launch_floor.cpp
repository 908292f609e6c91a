//===- launch_floor.cpp - What cuLaunchKernel itself costs here ----------===//
//
// The warm-launch target (<= 3 us from C++) is only meaningful next to what
// the driver's own launch call costs on the machine. This program loads a
// no-op kernel (2 parameters) from PTX with the driver API alone and prints
// the CPU time of one cuLaunchKernel / cuLaunchKernelEx call on the legacy
// default stream, the per-thread default stream, a created blocking and a
// created non-blocking stream (the best of 30 batches of 100 launches, each
// batch right after a synchronize, as bench_gpu --only launch measures),
// a few trivial driver calls for scale, and the throughput of 10000
// launches through the GPU. No Tessera code is involved.
//
//   nvcc -std=c++17 -O2 bench/gpu/launch_floor.cpp -o launch_floor -lcuda
//
//===----------------------------------------------------------------------===//
#include <cuda.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#define CK(call) check((call), #call)

static void check(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  const char* name = "?";
  cuGetErrorName(r, &name);
  std::fprintf(stderr, "%s failed: %s\n", what, name);
  std::exit(1);
}
static const char* kPtx = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry noop(.param .u64 a, .param .u64 b) { ret; }
)";
using Clock = std::chrono::steady_clock;
static double bestPerCall(const std::function<void()>& f, int batch = 100, int reps = 30) {
  for (int i = 0; i < 20; ++i) f();
  cuCtxSynchronize();
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    cuCtxSynchronize();
    auto t0 = Clock::now();
    for (int i = 0; i < batch; ++i) f();
    best = std::min(best, std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / batch);
  }
  cuCtxSynchronize();
  return best;
}
int main(int argc, char** argv) {
  CK(cuInit(0));
  CUdevice dev; CK(cuDeviceGet(&dev, 0));
  CUcontext ctx; CK(cuDevicePrimaryCtxRetain(&ctx, dev)); CK(cuCtxSetCurrent(ctx));
  CUmodule mod; CK(cuModuleLoadData(&mod, kPtx));
  CUfunction fn; CK(cuModuleGetFunction(&fn, mod, "noop"));
  CUdeviceptr buf; CK(cuMemAlloc(&buf, 1024));
  unsigned long long a = buf, b = 16; void* params[] = {&a, &b};
  CUstream sBlocking, sNonBlocking;
  CK(cuStreamCreate(&sBlocking, CU_STREAM_DEFAULT));
  CK(cuStreamCreate(&sNonBlocking, CU_STREAM_NON_BLOCKING));
  struct { const char* name; CUstream s; } streams[] = {
      {"null (legacy)", nullptr}, {"per-thread", CU_STREAM_PER_THREAD},
      {"created blocking", sBlocking}, {"created non-blocking", sNonBlocking}};
  for (int round = 0; round < 2; ++round)
    for (auto& st : streams) {
      double us = bestPerCall([&] { cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, st.s, params, nullptr); });
      std::printf("cuLaunchKernel  %-22s %.2f us\n", st.name, us);
    }
  CUlaunchConfig cfg = {}; cfg.gridDimX = cfg.gridDimY = cfg.gridDimZ = 1; cfg.blockDimX = 32; cfg.blockDimY = cfg.blockDimZ = 1;
  for (auto& st : streams) {
    cfg.hStream = st.s;
    double us = bestPerCall([&] { cuLaunchKernelEx(&cfg, fn, params, nullptr); });
    std::printf("cuLaunchKernelEx %-22s %.2f us\n", st.name, us);
  }
  CUcontext cur;
  std::printf("cuCtxGetCurrent %.3f us\n", bestPerCall([&] { cuCtxGetCurrent(&cur); }, 1000));
  std::printf("cuStreamQuery(nb) %.3f us\n", bestPerCall([&] { cuStreamQuery(sNonBlocking); }, 1000));
  std::printf("steady_clock::now %.3f us\n", bestPerCall([&] { volatile auto t = Clock::now(); (void)t; }, 1000));
  // throughput through the GPU, 10000 launches
  for (auto& st : streams) {
    cuCtxSynchronize(); auto t0 = Clock::now();
    for (int i = 0; i < 10000; ++i) cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, st.s, params, nullptr);
    cuCtxSynchronize();
    std::printf("throughput %-22s %.2f us/launch\n", st.name, std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / 10000);
  }
  return 0;
}
