//===- KernelLibraryTest.cpp - kernels/ through tessera/kernels.h ---------===//
//
// The kernel library's C++ functions on odd shapes in fp32, fp16 and bf16,
// against float64 references computed from the values the kernels read
// (inputs rounded to the dtype first): RMSNorm and LayerNorm forward and
// backward (dx, dw, db, the saved statistics), the fused residual + LayerNorm
// + dropout (its mask from the Philox reference of tl.rand), softmax (in
// registers, in two sweeps, persistent), cross-entropy forward and backward
// (wide vocabularies, ignore_index), SwiGLU and GeGLU, matmul and attention
// (relative error ||out - ref|| / ||ref||, the tensor-core issue's measure);
// and argument checks.
//
//===----------------------------------------------------------------------===//

#include <cmath>
#include <tuple>

#include "e2e/Harness.h"
#include "e2e/Philox.h"
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
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{37, 300}, {5, 4099}, {700, 64}}) {
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

/// LayerNorm of each row in double: xhat and the per-row mean and rstd.
struct LayerNormRef {
  std::vector<double> xhat, mean, rstd;
};
LayerNormRef layerNormRef(const std::vector<float>& x, int64_t rows, int64_t cols, double eps) {
  LayerNormRef ref{std::vector<double>(rows * cols), std::vector<double>(rows), std::vector<double>(rows)};
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0, sq = 0;
    for (int64_t c = 0; c < cols; ++c) sum += x[r * cols + c];
    double mean = sum / cols;
    for (int64_t c = 0; c < cols; ++c) sq += (x[r * cols + c] - mean) * (x[r * cols + c] - mean);
    double rstd = 1.0 / std::sqrt(sq / cols + eps);
    for (int64_t c = 0; c < cols; ++c) ref.xhat[r * cols + c] = (x[r * cols + c] - mean) * rstd;
    ref.mean[r] = mean;
    ref.rstd[r] = rstd;
  }
  return ref;
}

TEST(KernelLibrary, LayerNormForwardAndBackward) {
  E2E_RNG(rng);
  for (DType dt : {DType::fp32, DType::fp16, DType::bf16}) {
    // 1100 rows: 69 partial sums of dw/db, reduced in three slices.
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{37, 300}, {5, 4099}, {1100, 48}}) {
      SCOPED_TRACE(std::string(tessera::dtype_name(dt)) + " " + std::to_string(rows) + "x" + std::to_string(cols));
      auto x = rounded(dt, rng.floats(rows * cols, -2, 3)), w = rounded(dt, rng.floats(cols, 0.5f, 1.5f));
      auto b = rounded(dt, rng.floats(cols, -0.5f, 0.5f)), dy = rounded(dt, rng.floats(rows * cols, -1, 1));
      tessera::Tensor tx = uploadAs(dt, x, {rows, cols}), tw = uploadAs(dt, w, {cols}), tb = uploadAs(dt, b, {cols});
      const double eps = 1e-5;
      tessera::Tensor mean, rstd, dx, dw, db;
      tessera::Tensor y = K::layer_norm(dev(), tx, tw, tb, eps, &mean, &rstd);
      K::layer_norm_backward(dev(), uploadAs(dt, dy, {rows, cols}), tx, tw, mean, rstd, dx, dw, db);

      LayerNormRef ref = layerNormRef(x, rows, cols, eps);
      std::vector<float> wantY(rows * cols), wantDx(rows * cols), wantDw(cols), wantDb(cols);
      std::vector<double> dwAcc(cols, 0.0), dbAcc(cols, 0.0);
      for (int64_t r = 0; r < rows; ++r) {
        double meanG = 0, meanGx = 0;
        for (int64_t c = 0; c < cols; ++c) {
          double g = double(dy[r * cols + c]) * w[c];
          meanG += g / cols;
          meanGx += g * ref.xhat[r * cols + c] / cols;
        }
        for (int64_t c = 0; c < cols; ++c) {
          size_t i = r * cols + c;
          double g = double(dy[i]) * w[c];
          wantY[i] = float(ref.xhat[i] * w[c] + b[c]);
          wantDx[i] = float(ref.rstd[r] * (g - meanG - ref.xhat[i] * meanGx));
          dwAcc[c] += dy[i] * ref.xhat[i];
          dbAcc[c] += dy[i];
        }
      }
      for (int64_t c = 0; c < cols; ++c) wantDw[c] = float(dwAcc[c]), wantDb[c] = float(dbAcc[c]);
      double tol = outputTolerance(dt);
      expectClose(downloadFloats(y), wantY, tol, tol, "y");
      expectClose(mean.download<float>(), std::vector<float>(ref.mean.begin(), ref.mean.end()), 1e-5, 1e-6, "mean");
      expectClose(rstd.download<float>(), std::vector<float>(ref.rstd.begin(), ref.rstd.end()), 1e-5, 1e-6, "rstd");
      expectClose(downloadFloats(dx), wantDx, tol, tol * 4, "dx");
      expectClose(dw.download<float>(), wantDw, 1e-4, 1e-3, "dw");
      expectClose(db.download<float>(), wantDb, 1e-4, 1e-3, "db");
    }
  }
}

// h = x + residual, y = dropout(LayerNorm(h) * w + b): the kept elements
// follow tl.rand's Philox stream (the reference in Philox.h), so the mask
// is checked exactly and the values within tolerance.
TEST(KernelLibrary, AddLayerNormDropout) {
  E2E_RNG(rng);
  const double p = 0.25, eps = 1e-5;
  const int64_t seed = 20261125;
  for (DType dt : {DType::fp32, DType::fp16, DType::bf16}) {
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{29, 777}, {3, 2048}}) {
      SCOPED_TRACE(std::string(tessera::dtype_name(dt)) + " " + std::to_string(rows) + "x" + std::to_string(cols));
      auto x = rounded(dt, rng.floats(rows * cols, -1, 1.5)), res = rounded(dt, rng.floats(rows * cols, -1, 1));
      auto w = rounded(dt, rng.floats(cols, 0.5f, 1.5f)), b = rounded(dt, rng.floats(cols, -0.5f, 0.5f));
      tessera::Tensor h;
      tessera::Tensor y = K::add_layer_norm_dropout(dev(), uploadAs(dt, x, {rows, cols}), uploadAs(dt, res, {rows, cols}),
                                                    uploadAs(dt, w, {cols}), uploadAs(dt, b, {cols}), p, seed, eps, &h);
      std::vector<float> sum(rows * cols);
      for (size_t i = 0; i < sum.size(); ++i) sum[i] = x[i] + res[i];  // exact in fp32 for these inputs
      LayerNormRef ref = layerNormRef(sum, rows, cols, eps);
      std::vector<float> got = downloadFloats(y), want(rows * cols);
      int64_t kept = 0, maskErrors = 0;
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) {
          size_t i = r * cols + c;
          bool keep = randRef(seed, r * cols + c) >= p;
          kept += keep;
          want[i] = keep ? float((ref.xhat[i] * w[c] + b[c]) / (1 - p)) : 0.f;
          // A kept element can itself round to 0 (x_hat * w = -b in the
          // kernel's arithmetic): only a dropped one must be exactly 0.
          bool wrong = keep ? got[i] == 0.f && std::fabs(want[i]) > outputTolerance(dt) * 4 : got[i] != 0.f;
          if (wrong && maskErrors++ < 4)
            ADD_FAILURE() << "element " << r << "," << c << (keep ? " kept" : " dropped") << ": got " << got[i]
                          << ", want " << want[i];
        }
      EXPECT_EQ(maskErrors, 0);
      EXPECT_NEAR(double(kept) / (rows * cols), 1 - p, 0.05);
      double tol = outputTolerance(dt);
      expectClose(got, want, tol, tol * 2, "y");
      expectClose(downloadFloats(h), rounded(dt, sum), tol, tol, "x + residual");
    }
  }
}

/// ||got - want|| / ||want||.
double relativeError(const std::vector<float>& got, const std::vector<double>& want) {
  double err = 0, ref = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    err += (got[i] - want[i]) * (got[i] - want[i]);
    ref += want[i] * want[i];
  }
  return std::sqrt(err / ref);
}

TEST(KernelLibrary, Matmul) {
  E2E_RNG(rng);
  for (DType dt : {DType::fp16, DType::bf16}) {
    for (auto [M, N, K] : {std::tuple<int64_t, int64_t, int64_t>{150, 197, 211}, {64, 64, 64}, {5, 300, 17}}) {
      SCOPED_TRACE(std::string(tessera::dtype_name(dt)) + " " + std::to_string(M) + "x" + std::to_string(N) + "x" +
                   std::to_string(K));
      auto a = rounded(dt, rng.floats(M * K, -1, 1)), b = rounded(dt, rng.floats(K * N, -1, 1));
      tessera::Tensor c = K::matmul(dev(), uploadAs(dt, a, {M, K}), uploadAs(dt, b, {K, N}));
      ASSERT_EQ(c.shape(), (std::vector<int64_t>{M, N}));
      std::vector<double> want(M * N, 0.0);
      for (int64_t i = 0; i < M; ++i)
        for (int64_t k = 0; k < K; ++k)
          for (int64_t j = 0; j < N; ++j) want[i * N + j] += double(a[i * K + k]) * b[k * N + j];
      EXPECT_LE(relativeError(downloadFloats(c), want), 1e-2);
    }
  }
}

// Skinny products (at most 128 rows, fewer 128 x 128 tiles than
// multiprocessors, K >= 1024; on the interpreter, fewer than its pool's
// threads) run the split-K kernel, autotuned over small tiles and K split
// up to 4 ways (the interpreter runs the first config; every config is
// checked below). Odd sizes, K not a multiple of any share; on the GPU
// also inference's shapes, checked on sampled elements.
TEST(KernelLibrary, SkinnyMatmul) {
  E2E_RNG(rng);
  std::vector<std::tuple<int64_t, int64_t, int64_t>> shapes = {{5, 100, 1100}, {16, 64, 2048}, {1, 37, 1037}};
  if (!dev().is_interpreter()) shapes.insert(shapes.end(), {{16, 4096, 4096}, {67, 4096, 4104}, {128, 8192, 8192}});
  for (DType dt : {DType::fp16, DType::bf16}) {
    for (auto [M, N, K] : shapes) {
      SCOPED_TRACE(std::string(tessera::dtype_name(dt)) + " " + std::to_string(M) + "x" + std::to_string(N) + "x" +
                   std::to_string(K));
      auto a = rounded(dt, rng.floats(M * K, -1, 1)), b = rounded(dt, rng.floats(K * N, -1, 1));
      std::vector<float> got = downloadFloats(K::matmul(dev(), uploadAs(dt, a, {M, K}), uploadAs(dt, b, {K, N})));
      ASSERT_EQ(got.size(), size_t(M * N));
      std::vector<float> sampled;
      std::vector<double> want;
      for (int s = 0; s < 600; ++s) {
        // Every element of the small products; corners, then random ones.
        int64_t e = M * N <= 600 ? s % (M * N) : s == 0 ? M * N - 1 : s == 1 ? 0 : rng.integer(0, M * N - 1);
        double sum = 0;
        for (int64_t k = 0; k < K; ++k) sum += double(a[(e / N) * K + k]) * b[k * N + e % N];
        sampled.push_back(got[e]);
        want.push_back(sum);
      }
      EXPECT_LE(relativeError(sampled, want), 1e-2);
    }
  }
}

/// kernels/matmul.py's kernel `name`, loaded once.
tessera::Kernel matmulKernel(const char* name) {
  static tessera::Program program = tessera::Program::from_file(TESSERA_SOURCE_DIR "/kernels/matmul.py");
  return program.kernel(name);
}

/// Makes `k`'s autotuner keep only config `i` (early_config_prune) and
/// returns that config's integer values ("BLOCK_M", ...) by name.
std::map<std::string, int64_t> pinConfig(tessera::Kernel& k, size_t i) {
  std::map<std::string, int64_t> values;
  const std::vector<tessera::AutotuneConfig> configs = k.autotune_configs();  // a temporary: kept for the loop
  for (const auto& [name, v] : configs[i].kwargs)
    if (const int64_t* n = std::get_if<int64_t>(&v)) values[name] = *n;
  tessera::AutotuneHooks hooks;
  hooks.early_config_prune = [i](const std::vector<tessera::AutotuneConfig>&, const tessera::Meta&) {
    return std::vector<size_t>{i};
  };
  k.set_autotune_hooks(hooks);
  return values;
}

// Every config of matmul_kernel_splitk (one kept by early_config_prune at
// a time, each on its own K so that no tuning choice is reused), launched
// twice on the same counters: the second launch only finds a tile's last
// share if the first set every counter back to zero, which the counters
// are checked to be after each launch.
TEST(KernelLibrary, SplitKMatmulEveryConfig) {
  E2E_RNG(rng);
  tessera::Kernel splitk = matmulKernel("matmul_kernel_splitk");
  size_t configs = splitk.autotune_configs().size();
  ASSERT_GE(configs, 4u);
  const int64_t M = 45, N = 150;
  const int64_t splitMax = 4, counters = (M + 15) / 16 * ((N + 63) / 64);
  tessera::Tensor partial = dev().empty(DType::fp32, {splitMax, M, N});
  for (size_t i = 0; i < configs; ++i) {
    auto cfg = pinConfig(splitk, i);
    int64_t K = 700 + 37 * int64_t(i);
    SCOPED_TRACE("config " + std::to_string(i) + ": " + std::to_string(cfg["BLOCK_M"]) + "x" +
                 std::to_string(cfg["BLOCK_N"]) + "x" + std::to_string(cfg["BLOCK_K"]) + ", split " +
                 std::to_string(cfg["SPLIT_K"]) + ", K " + std::to_string(K));
    tessera::Tensor counts = dev().zeros(DType::i32, {counters});
    for (int round = 0; round < 2; ++round) {
      auto a = rounded(DType::fp16, rng.floats(M * K, -1, 1)), b = rounded(DType::fp16, rng.floats(K * N, -1, 1));
      tessera::Tensor c = dev().zeros(DType::fp16, {M, N});
      splitk.launch(dev(),
                    tessera::Grid([&](const tessera::Meta& m) {
                      auto blocks = [&](const char* name) { return std::get<int64_t>(m.at(name)); };
                      return std::vector<int64_t>{(M + blocks("BLOCK_M") - 1) / blocks("BLOCK_M") *
                                                      ((N + blocks("BLOCK_N") - 1) / blocks("BLOCK_N")),
                                                  blocks("SPLIT_K")};
                    }),
                    {uploadAs(DType::fp16, a, {M, K}), uploadAs(DType::fp16, b, {K, N}), c, partial, counts, M, N, K, K,
                     int64_t(1), N, int64_t(1), N, int64_t(1)});
      std::vector<double> want(M * N, 0.0);
      for (int64_t r = 0; r < M; ++r)
        for (int64_t k = 0; k < K; ++k)
          for (int64_t j = 0; j < N; ++j) want[r * N + j] += double(a[r * K + k]) * b[k * N + j];
      EXPECT_LE(relativeError(downloadFloats(c), want), 1e-2) << "round " << round;
      for (int32_t v : counts.download<int32_t>()) ASSERT_EQ(v, 0) << "round " << round;
    }
  }
}

// Every config of matmul_kernel_fp8_persistent (one at a time, each on its
// own K so that no tuning choice is reused) on 3 programs, fewer than the
// tiles, so each walks several and the producer's ring of stages goes on
// across tiles; M, N and K are not multiples of the blocks (the
// descriptors' bounds give zeros). B is K-contiguous (B^T row-major), as
// wgmma reads fp8. Per-tensor scales (torch._scaled_mm's) of 0.75 and 0.5;
// each K step's sum added in fp32, and with FAST_ACCUM accumulated by the
// tensor cores. Against float64 sums of the fp8 values, scaled; C is fp16.
TEST(KernelLibrary, Fp8PersistentMatmulEveryConfig) {
  E2E_RNG(rng);
  tessera::Kernel k = matmulKernel("matmul_kernel_fp8_persistent");
  size_t configs = k.autotune_configs().size();
  ASSERT_GE(configs, 2u);
  const int64_t M = 300, N = 264, programs = 3;
  for (size_t i = 0; i < 2 * configs; ++i) {
    auto cfg = pinConfig(k, i / 2);
    bool fast = i % 2 == 1;
    int64_t K = 208 + 16 * int64_t(i);
    SCOPED_TRACE("config " + std::to_string(i) + ": " + std::to_string(cfg["BLOCK_M"]) + "x" +
                 std::to_string(cfg["BLOCK_N"]) + "x" + std::to_string(cfg["BLOCK_K"]) + ", K " + std::to_string(K) +
                 (fast ? ", FAST_ACCUM" : ""));
    tessera::Tensor a = uploadAs(DType::fp8e4nv, rng.floats(M * K, -2, 2), {M, K});
    tessera::Tensor bt = uploadAs(DType::fp8e4nv, rng.floats(N * K, -2, 2), {N, K});
    tessera::Tensor c = uploadAs(DType::fp16, std::vector<float>(M * N, NAN), {M, N});
    tessera::Tensor aScale = dev().upload(std::vector<float>{0.75f}, {1});
    tessera::Tensor bScale = dev().upload(std::vector<float>{0.5f}, {1});
    k.launch(dev(), {programs}, {a, bt, c, aScale, bScale, M, N, K, K, int64_t(1), int64_t(1), K, N, int64_t(1)},
             {{"FAST_ACCUM", fast}});
    std::vector<float> av = downloadFloats(a), bv = downloadFloats(bt);
    std::vector<double> want(M * N, 0.0);
    for (int64_t r = 0; r < M; ++r)
      for (int64_t j = 0; j < N; ++j) {
        double sum = 0;
        for (int64_t kk = 0; kk < K; ++kk) sum += double(av[r * K + kk]) * bv[j * K + kk];
        want[r * N + j] = 0.375 * sum;
      }
    EXPECT_LE(relativeError(downloadFloats(c), want), 2e-3);
  }
}

// A product large enough for the tensor-descriptor form on sm_90a (TMA),
// checked on 512 sampled elements against float64 sums. GPU only: the
// interpreter would take minutes for it.
TEST(KernelLibrary, LargeMatmul) {
  if (dev().is_interpreter()) GTEST_SKIP() << "2048 x 2304 x 2048 is a GPU-sized product";
  E2E_RNG(rng);
  const int64_t M = 2048, N = 2304, K = 2048;
  for (DType dt : {DType::fp16, DType::bf16}) {
    SCOPED_TRACE(tessera::dtype_name(dt));
    auto a = rounded(dt, rng.floats(M * K, -1, 1)), b = rounded(dt, rng.floats(K * N, -1, 1));
    std::vector<float> got = downloadFloats(K::matmul(dev(), uploadAs(dt, a, {M, K}), uploadAs(dt, b, {K, N})));
    std::vector<float> sampled;
    std::vector<double> want;
    for (int s = 0; s < 512; ++s) {
      int64_t i = s == 0 ? M - 1 : rng.integer(0, M - 1), j = s == 0 ? N - 1 : rng.integer(0, N - 1);
      double sum = 0;
      for (int64_t k = 0; k < K; ++k) sum += double(a[i * K + k]) * b[k * N + j];
      sampled.push_back(got[i * N + j]);
      want.push_back(sum);
    }
    EXPECT_LE(relativeError(sampled, want), 1e-2);
  }
}

TEST(KernelLibrary, GroupedMatmul) {
  E2E_RNG(rng);
  // Products of different sizes in one launch: odd sizes (element-wise
  // tiles), 16-byte multiples throughout (pipelined vector tiles), an empty
  // product and a K = 0 one (zeros), and a strided A (a column slice).
  struct Shape {
    int64_t M, N, K;
  };
  // Each set also has a product of more tiles than a GPU runs programs
  // (132 SMs: 264 programs of 64 x 64 tiles, 132 of 128 x 128), so programs
  // take several tiles, across products (on the interpreter, with one or
  // two programs per pool thread, they always do).
  std::vector<std::vector<Shape>> sets = {
      {{37, 50, 70}, {128, 64, 33}, {1100, 1100, 21}, {5, 200, 48}, {0, 16, 16}, {9, 7, 0}},
      {{64, 48, 96}, {130, 72, 40}, {3, 8, 16}, {1664, 1664, 16}, {200, 136, 64}, {0, 16, 16}, {32, 0, 16},
       {40, 64, 0}}};
  for (DType dt : {DType::fp16, DType::bf16}) {
    for (const auto& set : sets) {
      std::vector<tessera::Tensor> a, b;
      std::vector<std::vector<float>> ha, hb;
      for (const Shape& s : set) {
        ha.push_back(rounded(dt, rng.floats(s.M * s.K, -1, 1)));
        hb.push_back(rounded(dt, rng.floats(s.K * s.N, -1, 1)));
        a.push_back(uploadAs(dt, ha.back(), {s.M, s.K}));
        b.push_back(uploadAs(dt, hb.back(), {s.K, s.N}));
      }
      // The default launch, and for the aligned set both forms on 128 x 128
      // tiles and the descriptor form on 128 x 256 (sm_90a's choice for
      // large groups).
      std::vector<K::GroupedMatmulLaunch> launches = {K::GroupedMatmulLaunch{}};
      if (&set == &sets[1]) {
        for (const char* name : {"grouped_matmul_kernel", "grouped_matmul_kernel_descriptor"}) {
          K::GroupedMatmulLaunch l = K::grouped_matmul_launch(dev().arch(), true, 0);
          l.kernel = name;
          launches.push_back(l);
        }
        launches.push_back(K::grouped_matmul_launch("sm_90a", true, 8));
      }
      for (const K::GroupedMatmulLaunch& launch : launches) {
      std::vector<tessera::Tensor> c = K::grouped_matmul(dev(), a, b, launch);
      ASSERT_EQ(c.size(), set.size());
      for (size_t g = 0; g < set.size(); ++g) {
        const Shape& s = set[g];
        SCOPED_TRACE(std::string(tessera::dtype_name(dt)) + " " + (launch.kernel.empty() ? "default" : launch.kernel) +
                     " " + std::to_string(launch.block_m) + "x" + std::to_string(launch.block_n) + " product " +
                     std::to_string(g) + ": " +
                     std::to_string(s.M) + " x " + std::to_string(s.N) + " x " + std::to_string(s.K));
        ASSERT_EQ(c[g].shape(), (std::vector<int64_t>{s.M, s.N}));
        std::vector<double> want(s.M * s.N, 0.0);
        for (int64_t i = 0; i < s.M; ++i)
          for (int64_t k = 0; k < s.K; ++k)
            for (int64_t j = 0; j < s.N; ++j) want[i * s.N + j] += double(ha[g][i * s.K + k]) * hb[g][k * s.N + j];
        std::vector<float> got = downloadFloats(c[g]);
        if (s.K == 0 || s.M == 0 || s.N == 0) {
          for (float v : got) EXPECT_EQ(v, 0.0f);
          continue;
        }
        EXPECT_LE(relativeError(got, want), outputTolerance(dt) * 4);
      }
      }
    }
  }
  // A column slice of a wider matrix: rows of stride 80, not the width.
  std::vector<float> wide = rounded(DType::fp16, rng.floats(33 * 80, -1, 1)), hb = rounded(DType::fp16, rng.floats(40 * 24, -1, 1));
  tessera::Tensor aw = uploadAs(DType::fp16, wide, {33, 80}).slice(1, 8, 48);
  std::vector<tessera::Tensor> c = K::grouped_matmul(dev(), {aw}, {uploadAs(DType::fp16, hb, {40, 24})});
  std::vector<double> want(33 * 24, 0.0);
  for (int64_t i = 0; i < 33; ++i)
    for (int64_t k = 0; k < 40; ++k)
      for (int64_t j = 0; j < 24; ++j) want[i * 24 + j] += double(wide[i * 80 + 8 + k]) * hb[k * 24 + j];
  EXPECT_LE(relativeError(downloadFloats(c[0]), want), 1e-2);
  // Mismatched inner sizes are an error naming the product.
  tessera::Tensor x = dev().zeros(DType::fp16, {4, 8});
  std::string msg = errorOf([&] { K::grouped_matmul(dev(), {x, x}, {dev().zeros(DType::fp16, {8, 4}), x}); });
  EXPECT_NE(msg.find("product 1: A is 4 x 8 but B has 4 rows"), std::string::npos) << msg;
  // The aligned forms refuse operands that are not 16-byte multiples (the
  // kernels would read them wrong): K = 7 fp16 elements is 14 bytes.
  // Which form: the descriptor form on sm_90a given two 128 x 256 tiles
  // per multiprocessor (its descriptors are made per program and product).
  EXPECT_EQ(K::grouped_matmul_launch("sm_90a", true, 1.5).kernel, "grouped_matmul_kernel");
  EXPECT_EQ(K::grouped_matmul_launch("sm_80", true, 8).kernel, "grouped_matmul_kernel");
  EXPECT_EQ(K::grouped_matmul_launch("sm_90a", false, 8).block_m, 64);
  K::GroupedMatmulLaunch descriptor = K::grouped_matmul_launch("sm_90a", true, 2);
  ASSERT_EQ(descriptor.kernel, "grouped_matmul_kernel_descriptor");
  EXPECT_EQ(descriptor.block_n, 256);
  tessera::Tensor odd = dev().zeros(DType::fp16, {16, 7});
  msg = errorOf([&] { K::grouped_matmul(dev(), {odd}, {dev().zeros(DType::fp16, {7, 16})}, descriptor); });
  EXPECT_NE(msg.find("grouped_matmul_kernel_descriptor needs every base address, row stride, K and N to be a multiple "
                     "of 16 bytes"),
            std::string::npos)
      << msg;
  descriptor.kernel = "matmul_kernel";
  msg = errorOf([&] { K::grouped_matmul(dev(), {x}, {dev().zeros(DType::fp16, {8, 4})}, descriptor); });
  EXPECT_NE(msg.find("unknown kernel 'matmul_kernel'"), std::string::npos) << msg;
}

/// float64 attention of q, k, v ([heads, seq, dim] flattened).
std::vector<double> attentionReference(const std::vector<float>& q, const std::vector<float>& k,
                                       const std::vector<float>& v, int64_t heads, int64_t seq, int64_t dim,
                                       bool causal) {
  double scale = 1.0 / std::sqrt(double(dim));
  std::vector<double> want(heads * seq * dim, 0.0), s(seq);
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t i = 0; i < seq; ++i) {
      const float* qi = &q[(h * seq + i) * dim];
      int64_t last = causal ? i : seq - 1;
      double top = -1e300, total = 0;
      for (int64_t j = 0; j <= last; ++j) {
        double dot = 0;
        for (int64_t d = 0; d < dim; ++d) dot += double(qi[d]) * k[(h * seq + j) * dim + d];
        s[j] = dot * scale;
        top = std::max(top, s[j]);
      }
      for (int64_t j = 0; j <= last; ++j) total += s[j] = std::exp(s[j] - top);
      for (int64_t j = 0; j <= last; ++j)
        for (int64_t d = 0; d < dim; ++d) want[(h * seq + i) * dim + d] += s[j] / total * v[(h * seq + j) * dim + d];
    }
  return want;
}

/// An attention problem of the library tests: q's dtype and shape
/// [..., seq, head_dim], and causal or not.
struct AttentionShapeCase {
  DType dt;
  std::vector<int64_t> shape;
  bool causal;
  /// heads (the leading dims' product), seq, head_dim, elements.
  std::tuple<int64_t, int64_t, int64_t, int64_t> sizes() const {
    int64_t seq = shape[shape.size() - 2], dim = shape.back(), numel = 1;
    for (int64_t d : shape) numel *= d;
    return {numel / (seq * dim), seq, dim, numel};
  }
  std::string text() const {
    auto [heads, seq, dim, numel] = sizes();
    return std::string(tessera::dtype_name(dt)) + " heads " + std::to_string(heads) + " seq " + std::to_string(seq) +
           " dim " + std::to_string(dim) + (causal ? " causal" : "");
  }
};

TEST(KernelLibrary, Attention) {
  E2E_RNG(rng);
  AttentionShapeCase cases[] = {{DType::fp16, {2, 3, 77, 64}, true}, {DType::fp16, {2, 3, 77, 64}, false},
               {DType::bf16, {2, 130, 32}, true}, {DType::fp16, {1, 50, 128}, false},
               // The descriptor form on sm_90a (128-key blocks, 2 stages,
               // a producer warpgroup; causal: the diagonal block's loop
               // goes on in the producer's ring).
               {DType::bf16, {2, 2, 300, 128}, false}, {DType::bf16, {1, 2, 333, 128}, true}};
  for (const AttentionShapeCase& c : cases) {
    auto [heads, seq, dim, numel] = c.sizes();
    SCOPED_TRACE(c.text());
    auto q = rounded(c.dt, rng.floats(numel, -1, 1)), k = rounded(c.dt, rng.floats(numel, -1, 1)),
         v = rounded(c.dt, rng.floats(numel, -1, 1));
    tessera::Tensor o = K::attention(dev(), uploadAs(c.dt, q, c.shape), uploadAs(c.dt, k, c.shape),
                                     uploadAs(c.dt, v, c.shape), c.causal);
    ASSERT_EQ(o.shape(), c.shape);
    EXPECT_LE(relativeError(downloadFloats(o), attentionReference(q, k, v, heads, seq, dim, c.causal)), 1e-2);
  }
}

/// float64 attention forward and backward of one problem ([heads, seq,
/// dim] flattened): the output, each row's natural log-sum-exp, and the
/// gradients of q, k, v for the output gradient `dout`.
struct AttentionGradsRef {
  std::vector<double> out, lse, dq, dk, dv;
};
AttentionGradsRef attentionGradsReference(const std::vector<float>& q, const std::vector<float>& k,
                                          const std::vector<float>& v, const std::vector<float>& dout, int64_t heads,
                                          int64_t seq, int64_t dim, bool causal) {
  double scale = 1.0 / std::sqrt(double(dim));
  int64_t n = heads * seq * dim;
  AttentionGradsRef r{std::vector<double>(n), std::vector<double>(heads * seq), std::vector<double>(n),
                      std::vector<double>(n), std::vector<double>(n)};
  std::vector<double> p(seq * seq), dp(seq * seq);
  for (int64_t h = 0; h < heads; ++h) {
    auto at = [&](const std::vector<float>& t, int64_t row, int64_t d) { return double(t[(h * seq + row) * dim + d]); };
    for (int64_t i = 0; i < seq; ++i) {
      int64_t last = causal ? i : seq - 1;
      double top = -1e300, total = 0;
      for (int64_t j = 0; j < seq; ++j) {
        double dot = 0;
        for (int64_t d = 0; d < dim; ++d) dot += at(q, i, d) * at(k, j, d);
        p[i * seq + j] = dot * scale;
        if (j <= last) top = std::max(top, p[i * seq + j]);
      }
      for (int64_t j = 0; j < seq; ++j) total += p[i * seq + j] = j <= last ? std::exp(p[i * seq + j] - top) : 0.0;
      for (int64_t j = 0; j < seq; ++j) p[i * seq + j] /= total;
      r.lse[h * seq + i] = top + std::log(total);
      for (int64_t d = 0; d < dim; ++d) {
        double o = 0;
        for (int64_t j = 0; j <= last; ++j) o += p[i * seq + j] * at(v, j, d);
        r.out[(h * seq + i) * dim + d] = o;
      }
    }
    // dP = dO V^T, dS = P * (dP - rowsum(dO * O)).
    for (int64_t i = 0; i < seq; ++i) {
      double delta = 0;
      for (int64_t d = 0; d < dim; ++d) delta += at(dout, i, d) * r.out[(h * seq + i) * dim + d];
      for (int64_t j = 0; j < seq; ++j) {
        double s = 0;
        for (int64_t d = 0; d < dim; ++d) s += at(dout, i, d) * at(v, j, d);
        dp[i * seq + j] = p[i * seq + j] * (s - delta);
      }
    }
    for (int64_t i = 0; i < seq; ++i)
      for (int64_t d = 0; d < dim; ++d) {
        double dq = 0, dk = 0, dv = 0;
        for (int64_t j = 0; j < seq; ++j) {
          dq += dp[i * seq + j] * at(k, j, d);
          dk += dp[j * seq + i] * at(q, j, d);
          dv += p[j * seq + i] * at(dout, j, d);
        }
        r.dq[(h * seq + i) * dim + d] = dq * scale;
        r.dk[(h * seq + i) * dim + d] = dk * scale;
        r.dv[(h * seq + i) * dim + d] = dv;
      }
  }
  return r;
}

TEST(KernelLibrary, AttentionBackward) {
  E2E_RNG(rng);
  AttentionShapeCase cases[] = {{DType::fp16, {2, 3, 77, 64}, true}, {DType::fp16, {2, 2, 77, 64}, false},
               {DType::bf16, {2, 130, 32}, true}, {DType::fp16, {1, 161, 16}, false},
               {DType::bf16, {1, 1, 45, 128}, true}};
  for (const AttentionShapeCase& c : cases) {
    auto [heads, seq, dim, numel] = c.sizes();
    SCOPED_TRACE(c.text());
    auto q = rounded(c.dt, rng.floats(numel, -1, 1)), k = rounded(c.dt, rng.floats(numel, -1, 1)),
         v = rounded(c.dt, rng.floats(numel, -1, 1)), dout = rounded(c.dt, rng.floats(numel, -1, 1));
    tessera::Tensor tq = uploadAs(c.dt, q, c.shape), tk = uploadAs(c.dt, k, c.shape), tv = uploadAs(c.dt, v, c.shape);
    K::AttentionForward f = K::attention_forward(dev(), tq, tk, tv, c.causal);
    AttentionGradsRef want = attentionGradsReference(q, k, v, dout, heads, seq, dim, c.causal);
    std::vector<int64_t> rows(c.shape.begin(), c.shape.end() - 1);
    ASSERT_EQ(f.lse.shape(), rows);
    EXPECT_LE(relativeError(downloadFloats(f.out), want.out), 1e-2);
    EXPECT_LE(relativeError(f.lse.download<float>(), want.lse), 1e-5);
    if (dim == 64 || dim == 128) {  // the descriptor form, sm_90a's default there
      K::AttentionForward fd = K::attention_forward(dev(), tq, tk, tv, c.causal, 0, K::attention_launch("sm_90a", dim, true));
      ASSERT_EQ(fd.lse.shape(), rows);
      EXPECT_LE(relativeError(downloadFloats(fd.out), want.out), 1e-2) << "descriptor form";
      EXPECT_LE(relativeError(fd.lse.download<float>(), want.lse), 1e-5) << "descriptor form";
    }
    double tol = c.dt == DType::fp16 ? 1e-2 : 2.5e-2;
    K::AttentionBackwardLaunch fused = K::attention_backward_launch(dev().arch(), dim);
    fused.fused = true;
    for (bool one : {false, true}) {  // three kernels, then the one-pass form with atomic dQ
      K::AttentionGradients g = one ? K::attention_backward(dev(), tq, tk, tv, f.out, f.lse,
                                                            uploadAs(c.dt, dout, c.shape), c.causal, 0, fused)
                                    : K::attention_backward(dev(), tq, tk, tv, f.out, f.lse,
                                                            uploadAs(c.dt, dout, c.shape), c.causal);
      const char* form = one ? "fused" : "three kernels";
      EXPECT_LE(relativeError(downloadFloats(g.dq), want.dq), tol) << "dq, " << form;
      EXPECT_LE(relativeError(downloadFloats(g.dk), want.dk), tol) << "dk, " << form;
      EXPECT_LE(relativeError(downloadFloats(g.dv), want.dv), tol) << "dv, " << form;
    }
  }
  // Arguments are checked by name.
  tessera::Tensor x = dev().zeros(DType::fp16, {1, 20, 16});
  std::string msg = errorOf([&] { K::attention_backward(dev(), x, x, x, x, dev().zeros(DType::fp32, {1, 19}), x); });
  EXPECT_NE(msg.find("lse must be fp32 of q's shape"), std::string::npos) << msg;
  msg = errorOf([&] { K::attention_backward(dev(), x, x, x, x, dev().zeros(DType::fp32, {1, 20}), dev().zeros(DType::fp16, {1, 20, 32})); });
  EXPECT_NE(msg.find("dout must have q's shape"), std::string::npos) << msg;
  msg = errorOf([&] { K::attention_forward(dev(), x, x, x, false, 0, K::attention_launch("sm_90a", 64, false)); });
  EXPECT_NE(msg.find("no form of 'attention_fwd_persistent' keeps the log-sum-exp"), std::string::npos) << msg;
  msg = errorOf([&] { K::attention_forward(dev(), x.transpose(1, 2), x.transpose(1, 2), x.transpose(1, 2)); });
  EXPECT_NE(msg.find("must be contiguous"), std::string::npos) << msg;
}

/// One launch of a form of kernels/attention.py on fresh bf16 q, k, v of
/// [heads, seq, dim], checked against attentionReference: `programs` 0 is
/// a program per query block and head, else a persistent grid of that many.
struct AttentionCase {
  int64_t heads, seq, dim;
  bool causal;
  int64_t blockN, programs;
};

void checkAttentionForm(e2e::Rng& rng, const char* kernel, const AttentionCase& c) {
  static tessera::Program program = tessera::Program::from_file(TESSERA_SOURCE_DIR "/kernels/attention.py");
  SCOPED_TRACE(std::string(kernel) + ": heads " + std::to_string(c.heads) + " seq " + std::to_string(c.seq) + " dim " +
               std::to_string(c.dim) + (c.causal ? " causal" : "") + " BLOCK_N " + std::to_string(c.blockN) +
               " programs " + std::to_string(c.programs));
  int64_t numel = c.heads * c.seq * c.dim;
  auto q = rounded(DType::bf16, rng.floats(numel, -1, 1)), k = rounded(DType::bf16, rng.floats(numel, -1, 1)),
       v = rounded(DType::bf16, rng.floats(numel, -1, 1));
  std::vector<int64_t> shape = {c.heads, c.seq, c.dim};
  tessera::Tensor o = dev().zeros(DType::bf16, shape);
  tessera::LaunchOptions options;
  options.num_warps = c.dim <= 64 ? 4 : 8;
  options.num_stages = c.blockN == 128 ? 2 : 3;
  std::vector<tessera::Arg> args = {uploadAs(DType::bf16, q, shape), uploadAs(DType::bf16, k, shape),
                                    uploadAs(DType::bf16, v, shape), o, 1.0 / std::sqrt(double(c.dim)), c.seq};
  std::vector<int64_t> grid = {(c.seq + 127) / 128, c.heads};
  if (c.programs) {
    args.push_back(c.heads);
    grid = {c.programs};
  }
  program.kernel(kernel).launch(dev(), grid, args,
                                {{"HEAD_DIM", c.dim}, {"BLOCK_M", int64_t{128}}, {"BLOCK_N", c.blockN}, {"CAUSAL", c.causal}},
                                options);
  EXPECT_LE(relativeError(downloadFloats(o), attentionReference(q, k, v, c.heads, c.seq, c.dim, c.causal)), 1e-2);
}

// The tensor-descriptor form of attention (kernels/attention.py): per-head
// descriptors, K read transposed; on sm_90a TMA copies K and V into the
// pipeline's stages. Sequences that end inside a block read zeros there.
TEST(KernelLibrary, AttentionDescriptorForm) {
  E2E_RNG(rng);
  for (const AttentionCase& c : {AttentionCase{3, 200, 64, false, 64, 0}, {2, 131, 64, true, 64, 0},
                                 {2, 77, 128, false, 64, 0}, {1, 300, 128, true, 64, 0}, {2, 333, 128, true, 128, 0},
                                 // 32-key blocks: scores of N 32 per warpgroup, on wgmma too.
                                 {2, 97, 64, true, 32, 0}, {1, 150, 128, false, 32, 0}})
    checkAttentionForm(rng, "attention_fwd_descriptor", c);
}

// Which kernel the library runs: on sm_90a at head_dim 64 and 128 the
// persistent form without a mask (as many programs as fit at once), the
// descriptor form with one; the pointer form elsewhere.
TEST(KernelLibrary, AttentionLaunchPicksTheForm) {
  K::AttentionLaunch d128 = K::attention_launch("sm_90a", 128), d64 = K::attention_launch("sm_90a", 64);
  EXPECT_EQ(d128.kernel, "attention_fwd_persistent");
  EXPECT_EQ(d128.programs_per_multiprocessor, 1);
  EXPECT_EQ(d128.block_n, 128);
  EXPECT_EQ(d64.kernel, "attention_fwd_persistent");
  EXPECT_EQ(d64.programs_per_multiprocessor, 2);
  EXPECT_EQ(d64.block_n, 64);
  EXPECT_EQ(K::attention_launch("sm_90a", 128, true).kernel, "attention_fwd_descriptor");
  EXPECT_EQ(K::attention_launch("sm_90a", 32).kernel, "attention_fwd");
  EXPECT_EQ(K::attention_launch("sm_80", 128).kernel, "attention_fwd");
}

// The persistent form: fewer programs than tiles (each walks several, of
// different heads and query blocks, so a warp-specialized producer's ring
// of stages goes on from one tile to the next), and more programs than
// tiles (some run none). Causal tiles go in pairs of query blocks of equal
// work (an odd count's last block alone), the pairs of 8 heads side by
// side: 11 heads make a full group and a group of 3; 3 blocks leave the
// last one alone, 4 (the last of 6 rows) none.
TEST(KernelLibrary, AttentionPersistentForm) {
  E2E_RNG(rng);
  for (const AttentionCase& c : {AttentionCase{3, 200, 64, false, 64, 2}, {2, 131, 64, true, 64, 3},
                                 {3, 77, 128, false, 64, 2}, {2, 300, 128, true, 64, 5}, {2, 333, 128, true, 128, 4},
                                 {2, 97, 64, true, 64, 9}, {11, 260, 64, true, 64, 7},
                                 {9, 390, 64, true, 64, 4}})
    checkAttentionForm(rng, "attention_fwd_persistent", c);
}

TEST(KernelLibrary, SoftmaxPersistent) {
  E2E_RNG(rng);
  for (DType dt : {DType::fp32, DType::fp16}) {
    // More rows than programs (each program walks several), and fewer.
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{1111, 200}, {3, 5000}}) {
      SCOPED_TRACE(std::string(tessera::dtype_name(dt)) + " " + std::to_string(rows) + "x" + std::to_string(cols));
      auto x = rounded(dt, rng.floats(rows * cols, -6, 6));
      tessera::Tensor y = K::softmax_persistent(dev(), uploadAs(dt, x, {rows, cols}));
      double tol = outputTolerance(dt) * (onGpu() ? 4 : 1);
      expectClose(downloadFloats(y), rowSoftmaxReference(x, rows, cols), tol, 1e-7, "softmax");
    }
  }
}

TEST(KernelLibrary, CrossEntropyForwardAndBackward) {
  E2E_RNG(rng);
  const int64_t ignore = -100;
  for (DType dt : {DType::fp32, DType::bf16}) {
    // 5003 classes: two 4096-wide chunks forward, several programs backward.
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{13, 5003}, {6, 77}}) {
      SCOPED_TRACE(std::string(tessera::dtype_name(dt)) + " " + std::to_string(rows) + "x" + std::to_string(cols));
      auto logits = rounded(dt, rng.floats(rows * cols, -8, 8));
      std::vector<int64_t> targets(rows);
      for (int64_t r = 0; r < rows; ++r) targets[r] = r % 5 == 3 ? ignore : rng.integer(0, cols - 1);
      auto dloss = rng.floats(rows, 0.1f, 1.f);
      tessera::Tensor tl = uploadAs(dt, logits, {rows, cols});
      for (DType targetType : {DType::i64, DType::i32}) {
        tessera::Tensor tt = targetType == DType::i64 ? dev().upload(targets, {rows})
                                                      : dev().upload(std::vector<int32_t>(targets.begin(), targets.end()), {rows});
        tessera::Tensor lse;
        tessera::Tensor loss = K::cross_entropy(dev(), tl, tt, ignore, &lse);
        tessera::Tensor dlogits = K::cross_entropy_backward(dev(), dev().upload(dloss, {rows}), tl, tt, lse, ignore);
        std::vector<float> wantLoss(rows), wantD(rows * cols);
        for (int64_t r = 0; r < rows; ++r) {
          double top = -INFINITY, total = 0;
          for (int64_t c = 0; c < cols; ++c) top = std::max(top, double(logits[r * cols + c]));
          for (int64_t c = 0; c < cols; ++c) total += std::exp(logits[r * cols + c] - top);
          double l = top + std::log(total);
          bool ignored = targets[r] == ignore;
          wantLoss[r] = ignored ? 0.f : float(l - logits[r * cols + targets[r]]);
          for (int64_t c = 0; c < cols; ++c)
            wantD[r * cols + c] = ignored ? 0.f
                                          : float((std::exp(logits[r * cols + c] - l) - (c == targets[r])) * dloss[r]);
        }
        expectClose(loss.download<float>(), wantLoss, 1e-5, 1e-5, "loss");
        double tol = outputTolerance(dt);
        expectClose(downloadFloats(dlogits), wantD, tol, tol * 1e-2, "dlogits");
      }
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
  auto floats = dev().zeros(DType::fp32, {4});
  msg = errorOf([&] { K::cross_entropy(dev(), x, floats); });
  EXPECT_NE(msg.find("int32 or int64"), std::string::npos) << msg;
  auto b = dev().zeros(DType::fp32, {8}), w8 = dev().zeros(DType::fp32, {8});
  msg = errorOf([&] { K::add_layer_norm_dropout(dev(), x, x, w8, b, 1.0, 1); });
  EXPECT_NE(msg.find("[0, 1)"), std::string::npos) << msg;
  msg = errorOf([&] { K::add_layer_norm_dropout(dev(), x, odd, w8, b, 0.1, 1); });
  EXPECT_NE(msg.find("residual must have x's shape"), std::string::npos) << msg;
  auto lse = dev().zeros(DType::fp32, {4}), targets = dev().zeros(DType::i64, {4});
  msg = errorOf([&] { K::cross_entropy_backward(dev(), lse, x, floats, lse); });
  EXPECT_NE(msg.find("int32 or int64"), std::string::npos) << msg;
  auto empty = dev().zeros(DType::fp32, {4, 0});
  msg = errorOf([&] { K::cross_entropy(dev(), empty, targets); });
  EXPECT_NE(msg.find("no columns"), std::string::npos) << msg;
  auto w0 = dev().zeros(DType::fp32, {0});
  msg = errorOf([&] { K::layer_norm(dev(), empty, w0, w0); });
  EXPECT_NE(msg.find("no columns"), std::string::npos) << msg;
  msg = errorOf([&] { K::matmul(dev(), x, x); });
  EXPECT_NE(msg.find("fp16 or bf16"), std::string::npos) << msg;
  auto h48 = dev().zeros(DType::fp16, {4, 8}), h58 = dev().zeros(DType::fp16, {5, 8});
  msg = errorOf([&] { K::matmul(dev(), h48, h58); });
  EXPECT_NE(msg.find("but b has 5 rows"), std::string::npos) << msg;
  auto q48 = dev().zeros(DType::fp16, {2, 10, 48});
  msg = errorOf([&] { K::attention(dev(), q48, q48, q48); });
  EXPECT_NE(msg.find("head_dim must be 16, 32, 64 or 128"), std::string::npos) << msg;
  auto q64 = dev().zeros(DType::fp16, {2, 10, 64}), k64 = dev().zeros(DType::fp16, {2, 11, 64});
  msg = errorOf([&] { K::attention(dev(), q64, k64, q64); });
  EXPECT_NE(msg.find("k must have q's shape"), std::string::npos) << msg;
}

}  // namespace
