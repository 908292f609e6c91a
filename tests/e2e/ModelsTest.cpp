//===- ModelsTest.cpp - Model-shaped kernels -------------------------------===//
//
// kernels/models.py: fused softmax (one row per program), two-pass online
// softmax for rows wider than the block, layer norm forward (fp16 in/out)
// and backward (dx, and dw/db accumulated with atomics), fused residual +
// layer norm + dropout (the dropout mask from the host Philox), a causal
// and a non-causal attention forward over uneven sequence lengths, and a
// persistent kernel striding over tiles.
//
//===----------------------------------------------------------------------===//

#include "e2e/Harness.h"
#include "e2e/Philox.h"

using namespace e2e;
using tessera::DType;

namespace {

const char* kFile = "models.py";

std::vector<float> softmaxRows(const std::vector<float>& x, int64_t rows, int64_t cols, int64_t stride) {
  std::vector<float> y(rows * stride, 0.0f);
  for (int64_t r = 0; r < rows; ++r) {
    double mx = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) mx = std::max(mx, double(x[r * stride + c]));
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * stride + c] - mx);
    for (int64_t c = 0; c < cols; ++c) y[r * stride + c] = static_cast<float>(std::exp(x[r * stride + c] - mx) / s);
  }
  return y;
}

TEST(Models, FusedSoftmaxOneRowPerProgram) {
  E2E_RNG(rng);
  int64_t rows = 37, cols = 781;
  auto x = rng.floats(rows * cols, -8, 8);
  auto tx = dev().upload(x, {rows, cols});
  auto y = dev().zeros(DType::fp32, {rows, cols});
  kernel(kFile, "softmax_row_per_program").launch(dev(), {rows}, {y, tx, cols, cols, cols}, {{"BLOCK", int64_t(1024)}});
  expectClose(y.download<float>(), softmaxRows(x, rows, cols, cols), 2e-5, 1e-9, "softmax");
}

TEST(Models, OnlineSoftmaxWideRows) {
  E2E_RNG(rng);
  int64_t rows = 5, cols = 3000, stride = 3001;
  auto x = rng.floats(rows * stride, -20, 20);
  auto tx = dev().upload(x, {rows, stride});
  auto y = dev().zeros(DType::fp32, {rows, stride});
  kernel(kFile, "softmax_wide_rows").launch(dev(), {rows}, {y, tx, stride, cols}, {{"CHUNK", int64_t(256)}});
  expectClose(y.download<float>(), softmaxRows(x, rows, cols, stride), 2e-5, 1e-12, "online softmax");
}

struct LayerNormRef {
  std::vector<double> mean, rstd;
};

LayerNormRef layerNormStats(const std::vector<float>& x, int64_t rows, int64_t cols, double eps) {
  LayerNormRef r;
  for (int64_t i = 0; i < rows; ++i) {
    double mu = 0, var = 0;
    for (int64_t c = 0; c < cols; ++c) mu += x[i * cols + c];
    mu /= cols;
    for (int64_t c = 0; c < cols; ++c) var += (x[i * cols + c] - mu) * (x[i * cols + c] - mu);
    r.mean.push_back(mu);
    r.rstd.push_back(1.0 / std::sqrt(var / cols + eps));
  }
  return r;
}

TEST(Models, LayerNormForwardAndBackward) {
  E2E_RNG(rng);
  int64_t rows = 19, cols = 300;
  float eps = 1e-5f;
  auto xf = rng.floats(rows * cols, -3, 3);
  for (auto& v : xf) v = roundHalf(v);
  auto w = rng.floats(cols, 0.5f, 1.5f), b = rng.floats(cols, -0.5f, 0.5f);
  auto tx = uploadAs(DType::fp16, xf, {rows, cols});
  auto tw = dev().upload(w, {cols}), tb = dev().upload(b, {cols});
  auto y = dev().zeros(DType::fp16, {rows, cols});
  auto mean = dev().zeros(DType::fp32, {rows}), rstd = dev().zeros(DType::fp32, {rows});
  kernel(kFile, "layernorm_forward")
      .launch(dev(), {rows}, {tx, tw, tb, y, mean, rstd, cols, eps}, {{"BLOCK", int64_t(512)}});
  auto ref = layerNormStats(xf, rows, cols, eps);
  std::vector<float> wy(rows * cols), wMean(ref.mean.begin(), ref.mean.end()), wRstd(ref.rstd.begin(), ref.rstd.end());
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t c = 0; c < cols; ++c)
      wy[i * cols + c] = static_cast<float>((xf[i * cols + c] - ref.mean[i]) * ref.rstd[i] * w[c] + b[c]);
  expectClose(mean.download<float>(), wMean, 1e-5, 1e-5, "mean");
  expectClose(rstd.download<float>(), wRstd, 1e-5, 0, "rstd");
  expectClose(downloadFloats(y), wy, 2e-3, 2e-3, "y (fp16)");

  // Backward, on fp32 copies of the same activations.
  auto dy = rng.floats(rows * cols, -1, 1);
  auto tx32 = dev().upload(xf, {rows, cols}), tdy = dev().upload(dy, {rows, cols});
  auto dx = dev().zeros(DType::fp32, {rows, cols});
  auto dw = dev().zeros(DType::fp32, {cols}), db = dev().zeros(DType::fp32, {cols});
  kernel(kFile, "layernorm_backward")
      .launch(dev(), {rows}, {tdy, tx32, tw, mean, rstd, dx, dw, db, cols}, {{"BLOCK", int64_t(512)}});
  std::vector<float> wdx(rows * cols), wdw(cols, 0), wdb(cols, 0);
  std::vector<double> accW(cols, 0), accB(cols, 0);
  for (int64_t i = 0; i < rows; ++i) {
    double c1 = 0, c2 = 0;
    std::vector<double> xhat(cols), g(cols);
    for (int64_t c = 0; c < cols; ++c) {
      xhat[c] = (xf[i * cols + c] - ref.mean[i]) * ref.rstd[i];
      g[c] = double(dy[i * cols + c]) * w[c];
      c1 += xhat[c] * g[c];
      c2 += g[c];
      accW[c] += dy[i * cols + c] * xhat[c];
      accB[c] += dy[i * cols + c];
    }
    c1 /= cols;
    c2 /= cols;
    for (int64_t c = 0; c < cols; ++c) wdx[i * cols + c] = static_cast<float>((g[c] - (xhat[c] * c1 + c2)) * ref.rstd[i]);
  }
  for (int64_t c = 0; c < cols; ++c) wdw[c] = static_cast<float>(accW[c]), wdb[c] = static_cast<float>(accB[c]);
  expectClose(dx.download<float>(), wdx, 1e-3, 1e-4, "dx");
  expectClose(dw.download<float>(), wdw, 1e-4, 1e-4, "dw (atomics)");
  expectClose(db.download<float>(), wdb, 1e-4, 1e-4, "db (atomics)");
}

TEST(Models, ResidualLayerNormDropout) {
  E2E_RNG(rng);
  int64_t rows = 11, cols = 200;
  float eps = 1e-5f, p = 0.3f;
  int64_t seed = rng.integer(2, INT32_MAX);
  auto x = rng.floats(rows * cols, -2, 2), res = rng.floats(rows * cols, -2, 2);
  auto w = rng.floats(cols, 0.5f, 1.5f), b = rng.floats(cols, -0.5f, 0.5f);
  auto tx = dev().upload(x, {rows, cols}), tr = dev().upload(res, {rows, cols});
  auto tw = dev().upload(w, {cols}), tb = dev().upload(b, {cols});
  auto sum = dev().zeros(DType::fp32, {rows, cols}), out = dev().zeros(DType::fp32, {rows, cols});
  kernel(kFile, "residual_layernorm_dropout")
      .launch(dev(), {rows}, {tx, tr, tw, tb, sum, out, cols, eps, p, seed}, {{"BLOCK", int64_t(256)}});
  std::vector<float> h(rows * cols);
  for (int64_t i = 0; i < rows * cols; ++i) h[i] = x[i] + res[i];
  auto ref = layerNormStats(h, rows, cols, eps);
  std::vector<float> want(rows * cols);
  int64_t kept = 0;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t c = 0; c < cols; ++c) {
      int64_t idx = i * cols + c;
      bool keep = randRef(seed, idx) > p;
      kept += keep;
      double y = (h[idx] - ref.mean[i]) * ref.rstd[i] * w[c] + b[c];
      want[idx] = keep ? static_cast<float>(y / (1 - p)) : 0.0f;
    }
  expectSameBits(sum.download<float>(), h, "residual sum");
  expectClose(out.download<float>(), want, 1e-4, 1e-4, "dropout(layernorm(x + res))");
  EXPECT_GT(kept, rows * cols / 2);
  EXPECT_LT(kept, rows * cols * 9 / 10);
}

void runAttention(bool causal) {
  SCOPED_TRACE(causal ? "causal" : "full");
  E2E_RNG(rng);
  const int64_t heads = 2, seq = 50, D = 16;
  auto q = rng.floats(heads * seq * D, -1, 1), k = rng.floats(heads * seq * D, -1, 1);
  auto v = rng.floats(heads * seq * D, -1, 1);
  auto tq = dev().upload(q, {heads, seq, D}), tk = dev().upload(k, {heads, seq, D});
  auto tv = dev().upload(v, {heads, seq, D});
  auto o = dev().zeros(DType::fp32, {heads, seq, D});
  float scale = 1.0f / std::sqrt(static_cast<float>(D));
  kernel(kFile, "attention_forward")
      .launch(dev(), gridFn([&](const tessera::Meta& m) {
                return std::vector<int64_t>{cdiv(seq, metaInt(m, "BLOCK_M")), heads};
              }),
              {tq, tk, tv, o, seq, scale},
              {{"HEAD_DIM", D}, {"BLOCK_M", int64_t(16)}, {"BLOCK_N", int64_t(16)}, {"CAUSAL", causal}});
  std::vector<float> want(heads * seq * D);
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t i = 0; i < seq; ++i) {
      const float* qi = &q[(h * seq + i) * D];
      int64_t last = causal ? i : seq - 1;
      std::vector<double> s(last + 1);
      double mx = -INFINITY, total = 0;
      for (int64_t j = 0; j <= last; ++j) {
        double dotp = 0;
        for (int64_t d = 0; d < D; ++d) dotp += double(qi[d]) * k[(h * seq + j) * D + d];
        s[j] = dotp * scale;
        mx = std::max(mx, s[j]);
      }
      for (int64_t j = 0; j <= last; ++j) total += s[j] = std::exp(s[j] - mx);
      for (int64_t d = 0; d < D; ++d) {
        double acc = 0;
        for (int64_t j = 0; j <= last; ++j) acc += s[j] * v[(h * seq + j) * D + d];
        want[(h * seq + i) * D + d] = static_cast<float>(acc / total);
      }
    }
  expectClose(o.download<float>(), want, 1e-4, 1e-5, "attention output");
}

TEST(Models, AttentionForwardCausal) { runAttention(true); }
TEST(Models, AttentionForwardFull) { runAttention(false); }

TEST(Models, PersistentGrid) {
  E2E_RNG(rng);
  int64_t numel = 2900;
  const int64_t block = 128, programs = 3;
  int64_t tiles = cdiv(numel, block);
  auto x = rng.floats(numel, -1, 1);
  auto tx = dev().upload(x, {numel});
  auto out = dev().zeros(DType::fp32, {numel});
  auto visits = dev().zeros(DType::i32, {tiles});
  kernel(kFile, "persistent_tiles").launch(dev(), {programs}, {tx, out, visits, numel}, {{"BLOCK", block}});
  std::vector<float> want(numel);
  for (int64_t i = 0; i < numel; ++i) want[i] = x[i] * 2.0f + static_cast<float>(i / block);
  expectSameBits(out.download<float>(), want, "x * 2 + tile");
  std::vector<int32_t> wv(tiles);
  for (int64_t t = 0; t < tiles; ++t) wv[t] = static_cast<int32_t>(t % programs + 1);
  expectEqual(visits.download<int32_t>(), wv, "each tile visited once, by program tile % P");
}

}  // namespace
