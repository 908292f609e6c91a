//===- main.cpp - First kernel from C++: fused softmax --------------------===//
//
// Loads softmax.py, compiles its @triton.jit kernel, runs it on the default
// device (the CPU interpreter when there is no GPU), checks the result
// against a plain C++ softmax and prints a summary and the Tile IR.
//
//   softmax_example [ROWS COLS]
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <random>
#include <vector>

#include "tessera/tessera.h"

static int64_t nextPowerOf2(int64_t n) {
  int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

int main(int argc, char** argv) {
  int64_t rows = argc > 2 ? std::atoll(argv[1]) : 1000;
  int64_t cols = argc > 2 ? std::atoll(argv[2]) : 781;
  try {
    tessera::Program program = tessera::Program::from_file(TESSERA_EXAMPLES_DIR "/softmax/softmax.py");
    tessera::Kernel kernel = program.kernel("softmax_rows");
    tessera::Device device = tessera::Device::default_device();

    std::mt19937 rng(std::random_device{}());
    std::normal_distribution<float> normal(0.f, 3.f);
    std::vector<float> input(rows * cols);
    for (float& v : input) v = normal(rng);

    tessera::Tensor x = device.upload(input, {rows, cols});
    tessera::Tensor y = device.empty(tessera::DType::fp32, {rows, cols});
    tessera::Meta meta{{"BLOCK", nextPowerOf2(cols)}};
    auto start = std::chrono::steady_clock::now();
    kernel.launch(device, {rows}, {y, x, x.stride(0), y.stride(0), cols}, meta);
    device.synchronize();
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::vector<float> out = y.download<float>();

    // Reference in double precision.
    double maxErr = 0;
    for (int64_t r = 0; r < rows; ++r) {
      const float* row = &input[r * cols];
      double mx = *std::max_element(row, row + cols), sum = 0;
      for (int64_t c = 0; c < cols; ++c) sum += std::exp(double(row[c]) - mx);
      for (int64_t c = 0; c < cols; ++c)
        maxErr = std::max(maxErr, std::abs(std::exp(double(row[c]) - mx) / sum - out[r * cols + c]));
    }
    bool ok = maxErr < 1e-5;
    std::printf("softmax_rows on %s: %lld x %lld fp32, first launch (incl. compile) %.1f ms\n",
                device.name().c_str(), (long long)rows, (long long)cols, ms);
    std::printf("y[0][0:4] = %.6f %.6f %.6f %.6f\n", out[0], out[1], out[2], out[3]);
    std::printf("max |y - reference| = %.3g  ->  %s\n\n", maxErr, ok ? "OK" : "MISMATCH");

    tessera::CompiledKernel compiled = kernel.compile("*fp32:16, *fp32:16, i32, i32, i32", meta);
    std::printf("Tile IR (ttir) of softmax_rows:\n%s", compiled.asm_text("ttir").c_str());
    return ok ? 0 : 1;
  } catch (const tessera::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
