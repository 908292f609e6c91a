//===- main.cpp - The kernel library from C++: a transformer block's edges -===//
//
// The user guide's kernel-library example: the fused residual + LayerNorm
// (dropout off) at a block's start, SwiGLU in its MLP, and the
// cross-entropy loss and its gradient at the model's end, through
// tessera/kernels.h on the default device (the CPU interpreter when there is
// no GPU), each checked against plain C++.
//
//   kernel_library_example
//
//===----------------------------------------------------------------------===//

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "tessera/kernels.h"

namespace K = tessera::kernels;

int main() {
  try {
    tessera::Device dev = tessera::Device::default_device();
    std::mt19937 rng(std::random_device{}());
    std::uniform_real_distribution<float> uniform(-1.f, 1.f);
    auto random = [&](size_t n, float scale) {
      std::vector<float> v(n);
      for (float& x : v) x = scale * uniform(rng);
      return v;
    };
    const int64_t tokens = 77, hidden = 640, ffn = 1000, vocab = 5003;
    double worst = 0;
    auto check = [&](double got, double want) { worst = std::max(worst, std::abs(got - want) / (1 + std::abs(want))); };

    // 1. h = x + residual; y = LayerNorm(h) * w + b (p = 0: no dropout).
    auto x = random(tokens * hidden, 1), res = random(tokens * hidden, 1);
    auto w = random(hidden, 0.1f), b = random(hidden, 0.1f);
    for (float& v : w) v += 1;
    tessera::Tensor h;
    tessera::Tensor y = K::add_layer_norm_dropout(dev, dev.upload(x, {tokens, hidden}), dev.upload(res, {tokens, hidden}),
                                                  dev.upload(w, {hidden}), dev.upload(b, {hidden}), 0.0, 0, 1e-5, &h);
    std::vector<float> gotY = y.download<float>();
    for (int64_t t = 0; t < tokens; ++t) {
      double mean = 0, var = 0;
      for (int64_t c = 0; c < hidden; ++c) mean += (x[t * hidden + c] + res[t * hidden + c]) / double(hidden);
      for (int64_t c = 0; c < hidden; ++c) {
        double d = x[t * hidden + c] + res[t * hidden + c] - mean;
        var += d * d / double(hidden);
      }
      for (int64_t c = 0; c < hidden; ++c)
        check(gotY[t * hidden + c], (x[t * hidden + c] + res[t * hidden + c] - mean) / std::sqrt(var + 1e-5) * w[c] + b[c]);
    }

    // 2. SwiGLU: silu(gate) * up over [gate | up].
    auto gateUp = random(tokens * 2 * ffn, 3);
    std::vector<float> act = K::silu_and_mul(dev, dev.upload(gateUp, {tokens, 2 * ffn})).download<float>();
    for (int64_t t = 0; t < tokens; ++t)
      for (int64_t c = 0; c < ffn; ++c) {
        double g = gateUp[t * 2 * ffn + c], u = gateUp[t * 2 * ffn + ffn + c];
        check(act[t * ffn + c], g / (1 + std::exp(-g)) * u);
      }

    // 3. Cross-entropy over the vocabulary, mean over tokens, and its gradient.
    auto logits = random(tokens * vocab, 6);
    std::vector<int64_t> targets(tokens);
    for (auto& t : targets) t = std::uniform_int_distribution<int64_t>(0, vocab - 1)(rng);
    tessera::Tensor tl = dev.upload(logits, {tokens, vocab}), tt = dev.upload(targets, {tokens});
    tessera::Tensor lse;
    std::vector<float> loss = K::cross_entropy(dev, tl, tt, -100, &lse).download<float>();
    tessera::Tensor dloss = dev.upload(std::vector<float>(tokens, 1.0f / tokens), {tokens});
    std::vector<float> grad = K::cross_entropy_backward(dev, dloss, tl, tt, lse).download<float>();
    double meanLoss = 0;
    for (int64_t t = 0; t < tokens; ++t) {
      double top = -INFINITY, sum = 0;
      for (int64_t c = 0; c < vocab; ++c) top = std::max(top, double(logits[t * vocab + c]));
      for (int64_t c = 0; c < vocab; ++c) sum += std::exp(logits[t * vocab + c] - top);
      double l = top + std::log(sum);
      check(loss[t], l - logits[t * vocab + targets[t]]);
      meanLoss += loss[t] / tokens;
      for (int64_t c = 0; c < vocab; ++c)
        check(grad[t * vocab + c] * tokens, std::exp(logits[t * vocab + c] - l) - (c == targets[t]));
    }
    bool ok = worst < 1e-4;
    std::printf("kernel library on %s: layer norm, SwiGLU, cross-entropy (mean loss %.4f); max relative error "
                "%.2e -> %s\n", dev.name().c_str(), meanLoss, worst, ok ? "OK" : "WRONG");
    return ok ? 0 : 1;
  } catch (const tessera::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
