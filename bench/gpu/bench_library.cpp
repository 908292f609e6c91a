//===- bench_library.cpp - The kernel library's C++ functions, timed -------===//
//
// Times each function of tessera/kernels.h as a C++ user calls it (output
// allocation included: the device's memory pool) with do_bench (25 ms
// warm-up, 100 ms of runs, L2 flushed before each), on the shapes of
// kLibraryRows; bench_library.py times the same kernels/*.py sources under
// Triton 3.6 with the same launch parameters, and PyTorch's own operators.
// Correctness is the e2e suite's job (KernelLibraryTest, also on the GPU);
// here a NaN-free output is checked so that a broken kernel is not timed.
// One JSON line per row on stdout (or --json FILE):
//   {"kind": "library", "provider": "tessera", "op": ..., "dtype": ...,
//    "shape": "RxC", "bytes": ..., "ms": ..., "gbps": ...}
//
//   bench_library [--json FILE] [--only OP1,OP2] [--rep MS]
//
//===----------------------------------------------------------------------===//

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "ir/FloatFormats.h"
#include "tessera/kernels.h"
#include "tessera/tessera.h"
#include "tessera/testing.h"

namespace {

using tessera::Device;
using tessera::DType;
using tessera::Tensor;
namespace K = tessera::kernels;

struct Row {
  const char* op;
  DType dtype;
  int64_t rows, cols;
};

// The shapes: transformer-sized rows (hidden 4096, vocabulary 32000,
// MLP 2 x 8192), as bench_library.py.
const Row kLibraryRows[] = {
    {"layer_norm", DType::fp16, 16384, 4096},
    {"layer_norm_backward", DType::fp16, 16384, 4096},
    {"rms_norm", DType::fp16, 16384, 4096},
    {"rms_norm_backward", DType::fp16, 16384, 4096},
    {"add_layer_norm_dropout", DType::fp16, 16384, 4096},
    {"softmax", DType::fp16, 4096, 4096},
    {"softmax", DType::fp32, 4096, 32768},
    {"softmax_persistent", DType::fp32, 4096, 4096},
    {"cross_entropy", DType::bf16, 8192, 32000},
    {"cross_entropy_backward", DType::bf16, 8192, 32000},
    {"silu_and_mul", DType::fp16, 8192, 16384},
    {"gelu_and_mul", DType::fp16, 8192, 16384},
};

/// Uniform values in [lo, hi) uploaded as `dtype` (rounded to nearest even).
Tensor random(Device& dev, DType dtype, std::vector<int64_t> shape, float lo, float hi, uint64_t seed) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::mt19937 gen(static_cast<uint32_t>(seed));
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  if (dtype == DType::fp32) return dev.upload(v, shape);
  std::vector<uint16_t> bits(n);
  for (int64_t i = 0; i < n; ++i)
    bits[i] = dtype == DType::bf16 ? tessera::ir::floats::floatToBF16(v[i]) : tessera::ir::floats::floatToHalf(v[i]);
  return dev.upload(bits.data(), dtype, shape);
}

/// True when no element of an fp32/fp16/bf16 tensor is NaN or infinite.
bool finite(const Tensor& t) {
  if (t.dtype() == DType::fp32) {
    for (float x : t.download<float>())
      if (!std::isfinite(x)) return false;
    return true;
  }
  for (uint16_t b : t.download<uint16_t>()) {
    bool nonFinite = t.dtype() == DType::bf16 ? (b & 0x7f80) == 0x7f80 : (b & 0x7c00) == 0x7c00;
    if (nonFinite) return false;
  }
  return true;
}

struct Prepared {
  std::function<Tensor()> run;  ///< one call; returns the main output
  double bytes = 0;             ///< bytes the op must move
};

Prepared prepare(Device& dev, const Row& row) {
  const int64_t R = row.rows, C = row.cols;
  const double es = static_cast<double>(tessera::dtype_size(row.dtype));
  const double rc = static_cast<double>(R) * static_cast<double>(C);
  const std::string op = row.op;
  Prepared p;
  if (op == "layer_norm" || op == "layer_norm_backward" || op == "rms_norm" || op == "rms_norm_backward") {
    Tensor x = random(dev, row.dtype, {R, C}, -2, 3, 1), w = random(dev, row.dtype, {C}, 0.5f, 1.5f, 2);
    Tensor b = random(dev, row.dtype, {C}, -0.5f, 0.5f, 3), dy = random(dev, row.dtype, {R, C}, -1, 1, 4);
    Tensor mean, rstd;
    bool layer = op.rfind("layer", 0) == 0;
    if (layer) K::layer_norm(dev, x, w, b, 1e-5, &mean, &rstd);
    else K::rms_norm(dev, x, w, 1e-6, &rstd);
    if (op == "layer_norm") p.run = [=, &dev] { return K::layer_norm(dev, x, w, b, 1e-5); };
    if (op == "rms_norm") p.run = [=, &dev] { return K::rms_norm(dev, x, w, 1e-6); };
    if (op == "layer_norm_backward")
      p.run = [=, &dev] {
        Tensor dx, dw, db;
        K::layer_norm_backward(dev, dy, x, w, mean, rstd, dx, dw, db);
        return dx;
      };
    if (op == "rms_norm_backward")
      p.run = [=, &dev] {
        Tensor dx, dw;
        K::rms_norm_backward(dev, dy, x, w, rstd, dx, dw);
        return dx;
      };
    p.bytes = (op.find("backward") != std::string::npos ? 3 : 2) * rc * es;
  } else if (op == "add_layer_norm_dropout") {
    Tensor x = random(dev, row.dtype, {R, C}, -1, 1.5f, 5), res = random(dev, row.dtype, {R, C}, -1, 1, 6);
    Tensor w = random(dev, row.dtype, {C}, 0.5f, 1.5f, 7), b = random(dev, row.dtype, {C}, -0.5f, 0.5f, 8);
    p.run = [=, &dev] { return K::add_layer_norm_dropout(dev, x, res, w, b, 0.1, 1234); };
    p.bytes = 4 * rc * es;
  } else if (op == "softmax" || op == "softmax_persistent") {
    Tensor x = random(dev, row.dtype, {R, C}, -4, 4, 9);
    bool persistent = op == "softmax_persistent";
    p.run = [=, &dev] { return persistent ? K::softmax_persistent(dev, x) : K::softmax(dev, x); };
    p.bytes = 2 * rc * es;
  } else if (op == "cross_entropy" || op == "cross_entropy_backward") {
    Tensor logits = random(dev, row.dtype, {R, C}, -8, 8, 10);
    std::mt19937 gen(11);
    std::vector<int64_t> t(R);
    for (auto& v : t) v = std::uniform_int_distribution<int64_t>(0, C - 1)(gen);
    Tensor targets = dev.upload(t, {R});
    Tensor dloss = dev.upload(std::vector<float>(R, 1.0f / static_cast<float>(R)), {R});
    Tensor lse;
    K::cross_entropy(dev, logits, targets, -100, &lse);
    if (op == "cross_entropy") {
      p.run = [=, &dev] { return K::cross_entropy(dev, logits, targets); };
      p.bytes = rc * es;
    } else {
      p.run = [=, &dev] { return K::cross_entropy_backward(dev, dloss, logits, targets, lse); };
      p.bytes = 2 * rc * es;
    }
  } else if (op == "silu_and_mul" || op == "gelu_and_mul") {
    Tensor gateUp = random(dev, row.dtype, {R, C}, -4, 4, 12);
    bool silu = op == "silu_and_mul";
    p.run = [=, &dev] { return silu ? K::silu_and_mul(dev, gateUp) : K::gelu_and_mul(dev, gateUp); };
    p.bytes = 1.5 * rc * es;  // reads [gate | up], writes half as much
  } else {
    throw tessera::Error("bench_library: no op '" + op + "'");
  }
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  std::string jsonPath, only;
  int repMs = 100;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--json" && i + 1 < argc) jsonPath = argv[++i];
    else if (a == "--only" && i + 1 < argc) only = "," + std::string(argv[++i]) + ",";
    else if (a == "--rep" && i + 1 < argc) repMs = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: bench_library [--json FILE] [--only OP1,OP2] [--rep MS]\n");
      return 2;
    }
  }
  FILE* out = jsonPath.empty() ? stdout : std::fopen(jsonPath.c_str(), "a");
  if (!out) {
    std::fprintf(stderr, "bench_library: cannot write %s\n", jsonPath.c_str());
    return 2;
  }
  int failures = 0;
  try {
    Device dev = Device::cuda(0);
    for (const Row& row : kLibraryRows) {
      if (!only.empty() && only.find("," + std::string(row.op) + ",") == std::string::npos) continue;
      std::string shape = std::to_string(row.rows) + "x" + std::to_string(row.cols);
      std::string head = std::string("{\"kind\": \"library\", \"provider\": \"tessera\", \"op\": \"") + row.op +
                         "\", \"dtype\": \"" + tessera::dtype_name(row.dtype) + "\", \"shape\": \"" + shape + "\"";
      try {
        Prepared p = prepare(dev, row);
        Tensor first = p.run();
        dev.synchronize();
        if (!finite(first)) throw tessera::Error("the output holds NaN or infinity");
        tessera::testing::BenchOptions bo;
        bo.rep_ms = repMs;
        double ms = tessera::testing::do_bench(dev, [&] { p.run(); }, bo).median_ms;
        double gbps = p.bytes / (ms * 1e-3) / 1e9;
        std::fprintf(out, "%s, \"bytes\": %.0f, \"ms\": %.6f, \"gbps\": %.1f}\n", head.c_str(), p.bytes, ms, gbps);
        std::fprintf(stderr, "ok   %s %s %s: %.4f ms, %.0f GB/s\n", row.op, tessera::dtype_name(row.dtype),
                     shape.c_str(), ms, gbps);
      } catch (const std::exception& e) {
        ++failures;
        std::string why = e.what();
        for (char& c : why)
          if (c == '"' || c == '\n' || c == '\\') c = ' ';
        std::fprintf(out, "%s, \"error\": \"%s\"}\n", head.c_str(), why.c_str());
        std::fprintf(stderr, "FAIL %s %s: %s\n", row.op, shape.c_str(), e.what());
      }
      std::fflush(out);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_library: %s\n", e.what());
    return 2;
  }
  if (out != stdout) std::fclose(out);
  return failures ? 1 : 0;
}
