//===- main.cpp - Autotuning from C++: a tuned LayerNorm -------------------===//
//
// The user guide's autotuning example: launches layernorm.py's
// @triton.autotune kernel on the default device (the GPU tunes its five
// configs on the first launch and reuses the choice; the interpreter runs
// the first config), checks the result against a C++ LayerNorm, and prints
// the config chosen and the time of the first and second launch.
//
//   autotune_example [ROWS COLS]
//
//===----------------------------------------------------------------------===//

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "tessera/tessera.h"

int main(int argc, char** argv) {
  int64_t rows = argc > 2 ? std::atoll(argv[1]) : 1000;
  int64_t cols = argc > 2 ? std::atoll(argv[2]) : 1500;
  try {
    tessera::Device device = tessera::Device::default_device();
    tessera::Kernel layerNorm =
        tessera::Program::from_file(TESSERA_EXAMPLES_DIR "/autotune/layernorm.py").kernel("layer_norm");

    std::mt19937 rng(std::random_device{}());
    std::uniform_real_distribution<float> uniform(-2.f, 3.f);
    std::vector<float> x(rows * cols), w(cols), b(cols);
    for (float& v : x) v = uniform(rng);
    for (int64_t c = 0; c < cols; ++c) w[c] = 1.f + 0.1f * uniform(rng), b[c] = 0.1f * uniform(rng);
    tessera::Tensor dx = device.upload(x, {rows, cols}), dw = device.upload(w, {cols}), db = device.upload(b, {cols});
    tessera::Tensor dy = device.empty(tessera::DType::fp32, {rows, cols});

    int64_t block = 1;
    while (block < cols) block *= 2;
    double ms[2];
    for (double& t : ms) {  // the first launch tunes (on a GPU), the second reuses the choice
      auto start = std::chrono::steady_clock::now();
      layerNorm[{rows}](tessera::on_device(device), dx, dw, db, dy, cols, 1e-5f, tessera::kw("BLOCK", block));
      device.synchronize();
      t = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    }

    std::vector<float> y = dy.download<float>();
    double worst = 0;
    for (int64_t r = 0; r < rows; ++r) {
      double mean = 0, var = 0;
      for (int64_t c = 0; c < cols; ++c) mean += x[r * cols + c] / double(cols);
      for (int64_t c = 0; c < cols; ++c) var += (x[r * cols + c] - mean) * (x[r * cols + c] - mean) / double(cols);
      for (int64_t c = 0; c < cols; ++c) {
        double want = (x[r * cols + c] - mean) / std::sqrt(var + 1e-5) * w[c] + b[c];
        worst = std::max(worst, std::abs(want - y[r * cols + c]) / (1 + std::abs(want)));
      }
    }
    std::optional<tessera::AutotuneConfig> best = layerNorm.best_config();
    std::printf("layer_norm on %s, %lld x %lld fp32: first launch %.1f ms, second %.3f ms\n", device.name().c_str(),
                (long long)rows, (long long)cols, ms[0], ms[1]);
    std::printf("config: %s\n", best ? ("num_warps " + std::to_string(best->num_warps)).c_str()
                                     : "the first (the interpreter does not tune)");
    bool ok = worst < 1e-4;
    std::printf("max relative error %.2e -> %s\n", worst, ok ? "OK" : "WRONG");
    return ok ? 0 : 1;
  } catch (const tessera::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
