// A C++ program that ships Triton-language kernels compiled ahead of time
// (tessera_add_kernel in CMakeLists.txt): softmax over the rows of a random
// 1823 x 781 matrix, and a bf16 matmul through tensor descriptors (TMA on
// sm_90a) of 272 x 208 by 208 x 400, on the GPU, each checked against a
// host reference. It uses
// the CUDA driver API only; there is no compiler in it. Exit status: 0 when
// the result is right, 1 when it is wrong or CUDA fails, 77 when the machine
// has no usable GPU (the test suite counts that as skipped).
#include <cuda.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <cstdio>
#include <random>
#include <vector>

#include "matmul_descriptor_bf16.h"
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

/// The bf16 nearest to `f` (ties to even), as its bits.
uint16_t toBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return uint16_t((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

float fromBf16(uint16_t h) {
  uint32_t u = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// C = A @ B in bf16 with the TMA launcher, against float64 sums of the
/// rounded inputs: ||C - ref|| / ||ref||.
int matmulError(std::mt19937& rng, double* error) {
  const int M = 272, N = 400, K = 208;  // multiples of 16, not of the 128-wide blocks
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<uint16_t> a(size_t(M) * K), b(size_t(K) * N), c(size_t(M) * N);
  for (uint16_t& v : a) v = toBf16(dist(rng));
  for (uint16_t& v : b) v = toBf16(dist(rng));
  CUdeviceptr da, db, dc;
  CHECK(cuMemAlloc(&da, a.size() * 2));
  CHECK(cuMemAlloc(&db, b.size() * 2));
  CHECK(cuMemAlloc(&dc, c.size() * 2));
  CHECK(cuMemcpyHtoD(da, a.data(), a.size() * 2));
  CHECK(cuMemcpyHtoD(db, b.data(), b.size() * 2));
  CHECK(cuMemsetD8(dc, 0xff, c.size() * 2));  // NaN until written
  // matmul_kernel_descriptor(a, b, c, M, N, K, stride_am, stride_bk, stride_cm); unit strides are specialized away.
  unsigned tiles = unsigned((M + 127) / 128 * ((N + 127) / 128));
  CHECK(tessera_aot::matmul_descriptor_bf16(nullptr, tiles, 1, 1, da, db, dc, M, N, K, K, N, N));
  CHECK(cuCtxSynchronize());
  CHECK(cuMemcpyDtoH(c.data(), dc, c.size() * 2));
  double diff = 0, norm = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double want = 0;
      for (int k = 0; k < K; ++k) want += double(fromBf16(a[size_t(i) * K + k])) * fromBf16(b[size_t(k) * N + j]);
      double got = fromBf16(c[size_t(i) * N + j]);
      diff += (got - want) * (got - want);
      norm += want * want;
    }
  *error = std::isfinite(diff) ? std::sqrt(diff / norm) : INFINITY;
  cuMemFree(da);
  cuMemFree(db);
  cuMemFree(dc);
  tessera_aot::matmul_descriptor_bf16_unload();
  return 0;
}

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
  // Again with launch attributes (Triton's launch_pdl and num_ctas; sm_90+), over the first rows - 1
  // rows so that the grid is a multiple of the clusters: the same result.
  tessera_aot::LaunchAttributes attributes;
  attributes.launch_pdl = true;
  attributes.num_ctas = 2;
  CHECK(tessera_aot::softmax_rows_1024_ex(attributes, nullptr, rows - 1, 1, 1, dy, dx, cols, cols, cols));
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
  double matmul = INFINITY;
  if (matmulError(rng, &matmul) != 0) return 1;
  std::printf("bf16 matmul 272 x 208 x 400 through tensor descriptors, ahead-of-time kernel: relative error %.2e -> %s\n",
              matmul, matmul < 1e-2 ? "OK" : "WRONG");
  cuMemFree(dx);
  cuMemFree(dy);
  tessera_aot::softmax_rows_1024_unload();
  cuDevicePrimaryCtxRelease(dev);
  return worst < 1e-4 && matmul < 1e-2 ? 0 : 1;
}
