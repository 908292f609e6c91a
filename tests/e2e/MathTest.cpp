//===- MathTest.cpp - Elementwise math, libdevice, softmax, cdiv ----------===//
//
// kernels/math_ops.py against <cmath>. Approximate functions (the GPU's fast
// paths) get relative tolerances; the exactly rounded ones (sqrt_rn, div_rn,
// fma, floor, ceil, abs) must match bit for bit.
//
//===----------------------------------------------------------------------===//

#include "e2e/Harness.h"

using namespace e2e;
using tessera::DType;

namespace {

const char* kFile = "math_ops.py";

std::vector<float> slice(const std::vector<float>& v, int64_t k, int64_t n) {
  return std::vector<float>(v.begin() + k * n, v.begin() + (k + 1) * n);
}

/// erfinv by Newton's method on std::erf in double.
double erfinvRef(double y) {
  double x = 0;
  for (int i = 0; i < 60; ++i) x -= (std::erf(x) - y) / (2.0 / std::sqrt(M_PI) * std::exp(-x * x));
  return x;
}

TEST(Math, UnaryFunctions) {
  E2E_RNG(rng);
  int64_t n = 1500;
  auto x = rng.floats(n, 0.05f, 4.0f);
  auto tx = dev().upload(x, {n});
  auto out = dev().zeros(DType::fp32, {15 * n});
  kernel(kFile, "unary_math").launch(dev(), {cdiv(n, 256)}, {tx, out, n}, {{"BLOCK", int64_t(256)}});
  auto got = out.download<float>();
  struct Case {
    const char* name;
    std::function<double(double)> fn;
    double rtol;
  };
  std::vector<Case> cases = {
      {"exp", [](double v) { return std::exp(v); }, 2e-6},
      {"exp2", [](double v) { return std::exp2(v); }, 2e-6},
      {"log", [](double v) { return std::log(v); }, 2e-6},
      {"log2", [](double v) { return std::log2(v); }, 2e-6},
      {"sqrt", [](double v) { return std::sqrt(v); }, 1e-6},
      {"sqrt_rn", nullptr, 0},
      {"rsqrt", [](double v) { return 1 / std::sqrt(v); }, 2e-6},
      {"sin", [](double v) { return std::sin(v); }, 2e-6},
      {"cos", [](double v) { return std::cos(v); }, 2e-6},
      {"erf", [](double v) { return std::erf(v - 2.0); }, 2e-6},
      {"floor", nullptr, 0},
      {"ceil", nullptr, 0},
      {"abs", nullptr, 0},
      {"sigmoid", [](double v) { return 1 / (1 + std::exp(-(v - 2.0))); }, 2e-6},
      {"exp method", [](double v) { return std::exp(v - 2.0); }, 2e-6},
  };
  for (int64_t k = 0; k < static_cast<int64_t>(cases.size()); ++k) {
    std::vector<float> want(n);
    for (int64_t i = 0; i < n; ++i) {
      float v = x[i];
      if (k == 5) want[i] = std::sqrt(v);
      else if (k == 10) want[i] = std::floor(v * 4.0f - 6.0f);
      else if (k == 11) want[i] = std::ceil(v * -4.0f + 3.0f);
      else if (k == 12) want[i] = std::fabs(v - 2.0f);
      else want[i] = static_cast<float>(cases[k].fn(v));
    }
    if (cases[k].fn)
      expectClose(slice(got, k, n), want, cases[k].rtol, 1e-6, cases[k].name);
    else
      expectSameBits(slice(got, k, n), want, cases[k].name);
  }
}

TEST(Math, BinaryAndLibdeviceFunctions) {
  E2E_RNG(rng);
  int64_t n = 1234;
  auto x = rng.floats(n, 0.5f, 3.0f), y = rng.floats(n, 0.5f, 2.0f), z = rng.floats(n, -1.0f, 1.0f);
  auto tx = dev().upload(x, {n}), ty = dev().upload(y, {n}), tz = dev().upload(z, {n});
  auto out = dev().zeros(DType::fp32, {8 * n});
  kernel(kFile, "binary_math").launch(dev(), {cdiv(n, 128)}, {tx, ty, tz, out, n}, {{"BLOCK", int64_t(128)}});
  auto got = out.download<float>();
  std::vector<float> fma(n), fdiv(n), divRn(n), pw(n), at(n), th(n), ei(n);
  for (int64_t i = 0; i < n; ++i) {
    fma[i] = std::fma(x[i], y[i], z[i]);
    fdiv[i] = x[i] / y[i];
    divRn[i] = x[i] / y[i];
    pw[i] = static_cast<float>(std::pow(double(x[i]), double(y[i])));
    at[i] = static_cast<float>(std::atan2(double(z[i]), double(y[i])));
    th[i] = static_cast<float>(std::tanh(3.0 * z[i]));
    ei[i] = static_cast<float>(erfinvRef(0.5 * z[i]));
  }
  expectSameBits(slice(got, 0, n), fma, "fma (single rounding)");
  expectClose(slice(got, 1, n), fdiv, 3e-7, 0, "fdiv");
  expectSameBits(slice(got, 2, n), divRn, "div_rn");
  expectClose(slice(got, 3, n), pw, 2e-6, 1e-6, "libdevice.pow");
  expectClose(slice(got, 4, n), at, 2e-6, 1e-6, "libdevice.atan2");
  expectClose(slice(got, 5, n), th, 2e-6, 1e-6, "libdevice.tanh");
  expectClose(slice(got, 6, n), ei, 2e-6, 1e-6, "libdevice.erfinv");
  expectClose(slice(got, 7, n), fdiv, 3e-7, 0, "x / y");
}

TEST(Math, Umulhi) {
  E2E_RNG(rng);
  int64_t n = 500;
  auto a = rng.ints<uint32_t>(n, 0, UINT32_MAX), b = rng.ints<uint32_t>(n, 0, UINT32_MAX);
  auto ta = dev().upload(a, {n}), tb = dev().upload(b, {n});
  auto out = dev().zeros(DType::u32, {n});
  kernel(kFile, "high_multiply").launch(dev(), {cdiv(n, 64)}, {ta, tb, out, n}, {{"BLOCK", int64_t(64)}});
  std::vector<uint32_t> want(n);
  for (int64_t i = 0; i < n; ++i) want[i] = static_cast<uint32_t>((uint64_t(a[i]) * b[i]) >> 32);
  expectEqual(out.download<uint32_t>(), want, "umulhi");
}

TEST(Math, Cdiv) {
  E2E_RNG(rng);
  int64_t n = 300;
  int64_t d = rng.integer(2, 50);
  auto v = rng.ints<int32_t>(n, 0, 100000);
  auto tv = dev().upload(v, {n});
  auto out = dev().zeros(DType::i32, {n});
  auto scalar = dev().zeros(DType::i32, {1});
  kernel(kFile, "ceil_div").launch(dev(), {cdiv(n, 128)}, {tv, out, scalar, n, d}, {{"BLOCK", int64_t(128)}});
  std::vector<int32_t> want(n);
  for (int64_t i = 0; i < n; ++i) want[i] = static_cast<int32_t>(cdiv(v[i], d));
  expectEqual(out.download<int32_t>(), want, "cdiv(v, d)");
  EXPECT_EQ(scalar.download<int32_t>()[0], cdiv(n, 128));
}

TEST(Math, BuiltinSoftmaxAlongDim1) {
  E2E_RNG(rng);
  int64_t rows = 13, cols = 50, stride = 57;
  auto x = rng.floats(rows * stride, -6, 6);
  auto tx = dev().upload(x, {rows, stride});
  auto out = dev().zeros(DType::fp32, {rows, stride});
  kernel(kFile, "builtin_softmax")
      .launch(dev(), {cdiv(rows, 4)}, {tx, out, rows, cols, stride},
              {{"BLOCK_R", int64_t(4)}, {"BLOCK_C", int64_t(64)}});
  std::vector<float> want(rows * stride, 0.0f);
  for (int64_t r = 0; r < rows; ++r) {
    double mx = -INFINITY, sum = 0;
    for (int64_t c = 0; c < cols; ++c) mx = std::max(mx, double(x[r * stride + c]));
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(x[r * stride + c] - mx);
    for (int64_t c = 0; c < cols; ++c) want[r * stride + c] = static_cast<float>(std::exp(x[r * stride + c] - mx) / sum);
  }
  expectClose(out.download<float>(), want, 1e-5, 1e-7, "tl.softmax");
}

}  // namespace
