//===- KernelLibraryTest.cpp - kernels/ through tessera/kernels.h ---------===//
//
// The kernel library's C++ functions on odd shapes in fp32, fp16 and bf16,
// against float64 references computed from the values the kernels read
// (inputs rounded to the dtype first): RMSNorm forward and backward (dx, dw,
// the saved 1/rms), softmax (in registers and in two sweeps), SwiGLU and
// GeGLU; and their argument checks.
//
//===----------------------------------------------------------------------===//

#include <cmath>

#include "e2e/Harness.h"
#include "tessera/kernels.h"

using namespace e2e;
using tessera::DType;
namespace K = tessera::kernels;

namespace {

/// Values as stored in `dtype` (what the kernel reads).
std::vector<float> rounded(DType dtype, std::vector<float> v) {
  for (float& x : v) x = dtype == DType::fp16 ? roundHalf(x) : dtype == DType::bf16 ? roundBf16(x) : x;
  return v;
}

/// Tolerance of an output stored in `dtype`.
double outputTolerance(DType dtype) { return dtype == DType::fp32 ? 2e-5 : dtype == DType::fp16 ? 2e-3 : 1.6e-2; }

TEST(KernelLibrary, RmsNormForwardAndBackward) {
  E2E_RNG(rng);
  for (DType dt : {DType::fp32, DType::fp16, DType::bf16}) {
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{37, 300}, {5, 4099}, {33, 64}}) {
      SCOPED_TRACE(std::string(tessera::dtype_name(dt)) + " " + std::to_string(rows) + "x" + std::to_string(cols));
      auto x = rounded(dt, rng.floats(rows * cols, -2, 2)), w = rounded(dt, rng.floats(cols, 0.5f, 1.5f));
      auto dy = rounded(dt, rng.floats(rows * cols, -1, 1));
      tessera::Tensor tx = uploadAs(dt, x, {rows, cols}), tw = uploadAs(dt, w, {cols});
      tessera::Tensor tdy = uploadAs(dt, dy, {rows, cols});
      const double eps = 1e-5;
      tessera::Tensor rstd;
      tessera::Tensor y = K::rms_norm(dev(), tx, tw, eps, &rstd);
      tessera::Tensor dx, dw;
      K::rms_norm_backward(dev(), tdy, tx, tw, rstd, dx, dw);

      std::vector<float> wantY(rows * cols), wantR(rows), wantDx(rows * cols), wantDw(cols, 0.f);
      std::vector<double> dwAcc(cols, 0.0);
      for (int64_t r = 0; r < rows; ++r) {
        double ss = 0;
        for (int64_t c = 0; c < cols; ++c) ss += double(x[r * cols + c]) * x[r * cols + c];
        double rs = 1.0 / std::sqrt(ss / cols + eps);
        wantR[r] = float(rs);
        double dot = 0;
        for (int64_t c = 0; c < cols; ++c) dot += double(dy[r * cols + c]) * w[c] * x[r * cols + c] * rs;
        for (int64_t c = 0; c < cols; ++c) {
          double xhat = x[r * cols + c] * rs;
          wantY[r * cols + c] = float(xhat * w[c]);
          wantDx[r * cols + c] = float(rs * (double(dy[r * cols + c]) * w[c] - xhat * dot / cols));
          dwAcc[c] += double(dy[r * cols + c]) * xhat;
        }
      }
      for (int64_t c = 0; c < cols; ++c) wantDw[c] = float(dwAcc[c]);
      double tol = outputTolerance(dt);
      expectClose(downloadFloats(y), wantY, tol, tol, "y");
      expectClose(rstd.download<float>(), wantR, 1e-5, 1e-6, "rstd");
      expectClose(downloadFloats(dx), wantDx, tol, tol * 4, "dx");
      expectClose(dw.download<float>(), wantDw, 1e-4, 1e-3, "dw");
    }
  }
}

TEST(KernelLibrary, GatedActivations) {
  E2E_RNG(rng);
  for (DType dt : {DType::fp32, DType::fp16, DType::bf16}) {
    for (auto [rows, d] : {std::pair<int64_t, int64_t>{7, 333}, {3, 2500}}) {
      SCOPED_TRACE(std::string(tessera::dtype_name(dt)) + " " + std::to_string(rows) + "x" + std::to_string(2 * d));
      auto in = rounded(dt, rng.floats(rows * 2 * d, -4, 4));
      tessera::Tensor t = uploadAs(dt, in, {rows, 2 * d});
      tessera::Tensor swiglu = K::silu_and_mul(dev(), t), geglu = K::gelu_and_mul(dev(), t);
      ASSERT_EQ(swiglu.shape(), (std::vector<int64_t>{rows, d}));
      std::vector<float> wantS(rows * d), wantG(rows * d);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < d; ++c) {
          double g = in[r * 2 * d + c], u = in[r * 2 * d + d + c];
          wantS[r * d + c] = float(g / (1 + std::exp(-g)) * u);
          wantG[r * d + c] = float(0.5 * g * (1 + std::erf(g / std::sqrt(2.0))) * u);
        }
      double tol = outputTolerance(dt) * (onGpu() ? 4 : 1);  // GPU: sigmoid through ex2.approx
      expectClose(downloadFloats(swiglu), wantS, tol, tol, "silu(gate) * up");
      expectClose(downloadFloats(geglu), wantG, tol, tol, "gelu(gate) * up");
    }
  }
}

TEST(KernelLibrary, SoftmaxNarrowAndWide) {
  E2E_RNG(rng);
  for (DType dt : {DType::fp32, DType::fp16, DType::bf16}) {
    // 300 and 8192 columns stay in registers; 9001 takes the two-sweep kernel.
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{37, 300}, {3, 8192}, {4, 9001}}) {
      SCOPED_TRACE(std::string(tessera::dtype_name(dt)) + " " + std::to_string(rows) + "x" + std::to_string(cols));
      auto x = rounded(dt, rng.floats(rows * cols, -6, 6));
      tessera::Tensor y = K::softmax(dev(), uploadAs(dt, x, {rows, cols}));
      std::vector<float> want = rowSoftmaxReference(x, rows, cols);
      double tol = outputTolerance(dt) * (onGpu() ? 4 : 1);
      expectClose(downloadFloats(y), want, tol, 1e-7, "softmax");
    }
  }
}

TEST(KernelLibrary, ArgumentChecks) {
  auto odd = dev().zeros(DType::fp32, {4, 7});
  std::string msg = errorOf([&] { K::silu_and_mul(dev(), odd); });
  EXPECT_NE(msg.find("even"), std::string::npos) << msg;
  auto x = dev().zeros(DType::fp32, {4, 8}), w = dev().zeros(DType::fp32, {7});
  msg = errorOf([&] { K::rms_norm(dev(), x, w); });
  EXPECT_NE(msg.find("w must be 1-D with 8 elements"), std::string::npos) << msg;
  auto ints = dev().zeros(DType::i32, {4, 8});
  msg = errorOf([&] { K::rms_norm(dev(), ints, w); });
  EXPECT_NE(msg.find("fp32, fp16 or bf16"), std::string::npos) << msg;
}

}  // namespace
