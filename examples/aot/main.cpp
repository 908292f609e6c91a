// A C++ program that ships a Triton-language kernel compiled ahead of time
// (tessera_add_kernel in CMakeLists.txt): softmax over the rows of a random
// 1823 x 781 matrix on the GPU, checked against a host reference. It uses
// the CUDA driver API only; there is no compiler in it. Exit status: 0 when
// the result is right, 1 when it is wrong or CUDA fails, 77 when the machine
// has no usable GPU (the test suite counts that as skipped).
#include <cuda.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "softmax_rows_1024.h"

#define CHECK(call)                                                                     \
  do {                                                                                  \
    CUresult r_ = (call);                                                               \
    if (r_ != CUDA_SUCCESS) {                                                           \
      const char* name_ = nullptr;                                                      \
      cuGetErrorName(r_, &name_);                                                       \
      std::fprintf(stderr, "%s failed: %s\n", #call, name_ ? name_ : "unknown error"); \
      return 1;                                                                         \
    }                                                                                   \
  } while (0)

int main() {
  CUresult init = cuInit(0);
  int count = 0;
  if (init != CUDA_SUCCESS || cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
    const char* name = nullptr;
    cuGetErrorName(init, &name);
    std::printf("no usable GPU (cuInit: %s): nothing to run\n", name ? name : "?");
    return 77;
  }
  const int rows = 1823, cols = 781;
  std::vector<float> x(size_t(rows) * cols), y(x.size());
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> dist(-5.f, 5.f);
  for (float& v : x) v = dist(rng);

  CUdevice dev;
  CUcontext ctx;
  CHECK(cuDeviceGet(&dev, 0));
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK(cuCtxSetCurrent(ctx));
  CUdeviceptr dx, dy;
  CHECK(cuMemAlloc(&dx, x.size() * sizeof(float)));
  CHECK(cuMemAlloc(&dy, y.size() * sizeof(float)));
  CHECK(cuMemcpyHtoD(dx, x.data(), x.size() * sizeof(float)));
  // softmax_rows(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols), BLOCK = 1024.
  CHECK(tessera_aot::softmax_rows_1024(nullptr, rows, 1, 1, dy, dx, cols, cols, cols));
  CHECK(cuCtxSynchronize());
  CHECK(cuMemcpyDtoH(y.data(), dy, y.size() * sizeof(float)));

  double worst = 0;
  for (int r = 0; r < rows; ++r) {
    const float* row = &x[size_t(r) * cols];
    double mx = -INFINITY, sum = 0;
    for (int c = 0; c < cols; ++c) mx = std::fmax(mx, row[c]);
    for (int c = 0; c < cols; ++c) sum += std::exp(row[c] - mx);
    for (int c = 0; c < cols; ++c) {
      double want = std::exp(row[c] - mx) / sum;
      worst = std::fmax(worst, std::fabs(y[size_t(r) * cols + c] - want) / want);
    }
  }
  std::printf("softmax of %d x %d on the GPU, ahead-of-time kernel: max relative error %.2e -> %s\n", rows, cols,
              worst, worst < 1e-4 ? "OK" : "WRONG");
  cuMemFree(dx);
  cuMemFree(dy);
  tessera_aot::softmax_rows_1024_unload();
  cuDevicePrimaryCtxRelease(dev);
  return worst < 1e-4 ? 0 : 1;
}
