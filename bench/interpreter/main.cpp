//===- main.cpp - Interpreter throughput benchmark ------------------------===//
//
// Times the CPU interpreter on the shapes of ANCHORS.md's interpreter rows and
// prints GB/s (bytes read + written / time, median of several runs after a
// warm-up that includes compilation) next to Triton's TRITON_INTERPRET=1
// figures measured on the GPU machine's host.
//
//   bench_interpreter [REPEATS]
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <thread>
#include <vector>

#include "tessera/tessera.h"

namespace {

double medianSeconds(int repeats, const std::function<void()>& fn) {
  fn();  // warm-up (compiles)
  std::vector<double> times;
  for (int i = 0; i < repeats; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    fn();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = argc > 1 ? std::atoi(argv[1]) : 5;
  try {
    auto program = tessera::Program::from_file(TESSERA_BENCH_DIR "/kernels.py");
    tessera::Device dev = tessera::Device::interpreter();
    std::printf("| kernel | shape | Tessera interpreter GB/s | Triton interpreter GB/s | ratio |\n");
    std::printf("| --- | --- | --- | --- | --- |\n");

    {
      int64_t n = int64_t(1) << 22;
      std::vector<float> host(n, 1.5f);
      auto a = dev.upload(host, {n}), b = dev.upload(host, {n});
      auto c = dev.empty(tessera::DType::fp32, {n});
      auto k = program.kernel("vadd");
      double s = medianSeconds(repeats, [&] { k.launch(dev, {n / 1024}, {a, b, c, n}, {{"BLOCK", int64_t(1024)}}); });
      double gbs = 3.0 * n * 4 / s / 1e9;
      std::printf("| vector add fp32 | 2^22 | %.2f | 0.016 | %.0fx |\n", gbs, gbs / 0.016);
    }
    {
      int64_t rows = 1024, cols = 1024;
      std::vector<float> host(rows * cols);
      for (size_t i = 0; i < host.size(); ++i) host[i] = float(i % 97) * 0.01f;
      auto x = dev.upload(host, {rows, cols});
      auto y = dev.empty(tessera::DType::fp32, {rows, cols});
      auto k = program.kernel("row_softmax");
      double s = medianSeconds(repeats, [&] { k.launch(dev, {rows}, {y, x, cols, cols}, {{"BLOCK", int64_t(1024)}}); });
      double gbs = 2.0 * rows * cols * 4 / s / 1e9;
      std::printf("| softmax fp32 | 1024x1024 | %.2f | 0.0056 | %.0fx |\n", gbs, gbs / 0.0056);
    }
    std::printf("\n(%u hardware threads; Triton figures from ANCHORS.md)\n", std::thread::hardware_concurrency());
  } catch (const tessera::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
