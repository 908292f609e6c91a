//===- compare.cpp - Replays Triton's results on Tessera's interpreter ----===//
//
// Reads the manifest written by triton_reference.py (inputs and Triton's
// outputs from a GPU run), runs the same kernels of parity_kernels.py on the
// interpreter with the same inputs, and compares every output: bit for bit
// where the manifest says TOL 0, within TOL*(1+|ref|) otherwise. Prints one
// table row per case; exits 1 on any mismatch.
//
//   parity_compare DIR KERNEL_FILE
//
//===----------------------------------------------------------------------===//

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "tessera/tessera.h"

namespace {

struct TensorArg {
  tessera::DType dtype;
  int64_t numel = 0;
  std::string file;
  bool output = false;
  double tol = 0;
};

struct Case {
  std::string name, kernel;
  int64_t grid = 1;
  std::vector<std::variant<TensorArg, int64_t>> args;
  tessera::Meta consts;
};

tessera::DType parseDType(const std::string& s) {
  static const std::pair<const char*, tessera::DType> table[] = {
      {"i8", tessera::DType::i8}, {"i32", tessera::DType::i32}, {"i64", tessera::DType::i64},
      {"u32", tessera::DType::u32}, {"fp16", tessera::DType::fp16}, {"bf16", tessera::DType::bf16},
      {"fp32", tessera::DType::fp32}, {"fp64", tessera::DType::fp64}, {"fp8e4nv", tessera::DType::fp8e4nv}, {"fp8e5", tessera::DType::fp8e5}};
  for (auto& [n, d] : table)
    if (s == n) return d;
  throw std::runtime_error("unknown dtype " + s);
}

std::vector<char> readFile(const std::string& path, size_t bytes) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> data(bytes);
  if (!in.read(data.data(), static_cast<std::streamsize>(bytes))) throw std::runtime_error("cannot read " + path);
  return data;
}

/// Value of element i as a double (for tolerance checks of float outputs).
double asDouble(tessera::DType dtype, const char* p, int64_t i) {
  switch (dtype) {
    case tessera::DType::fp32: { float f; std::memcpy(&f, p + 4 * i, 4); return f; }
    case tessera::DType::i32: { int32_t v; std::memcpy(&v, p + 4 * i, 4); return v; }
    case tessera::DType::u32: { uint32_t v; std::memcpy(&v, p + 4 * i, 4); return v; }
    case tessera::DType::fp16: {
      uint16_t h;
      std::memcpy(&h, p + 2 * i, 2);
      int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
      double v = exp == 0 ? std::ldexp(mant, -24) : exp == 31 ? INFINITY : std::ldexp(mant | 0x400, exp - 25);
      return (h & 0x8000) ? -v : v;
    }
    case tessera::DType::bf16: {
      uint16_t b;
      std::memcpy(&b, p + 2 * i, 2);
      uint32_t bits = uint32_t(b) << 16;
      float f;
      std::memcpy(&f, &bits, 4);
      return f;
    }
    default: return 0;
  }
}

std::vector<Case> readManifest(const std::string& dir) {
  std::ifstream in(dir + "/manifest.txt");
  if (!in) throw std::runtime_error("no manifest in " + dir);
  std::vector<Case> cases;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::string word;
    ss >> word;
    if (word == "case") {
      cases.emplace_back();
      ss >> cases.back().name >> cases.back().kernel >> cases.back().grid;
    } else if (word == "tensor") {
      TensorArg t;
      std::string dtype, role;
      ss >> dtype >> t.numel >> t.file >> role >> t.tol;
      t.dtype = parseDType(dtype);
      t.output = role == "out";
      cases.back().args.push_back(t);
    } else if (word == "int") {
      int64_t v;
      ss >> v;
      cases.back().args.push_back(v);
    } else if (word == "const") {
      std::string name;
      int64_t v;
      ss >> name >> v;
      cases.back().consts[name] = v;
    }
  }
  return cases;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: parity_compare DIR KERNEL_FILE\n");
    return 2;
  }
  std::string dir = argv[1];
  int failures = 0;
  try {
    auto program = tessera::Program::from_file(argv[2]);
    auto dev = tessera::Device::interpreter();
    std::printf("| case | outputs | elements | bit-exact outputs | max rel. error (toleranced) | result |\n");
    std::printf("| --- | --- | --- | --- | --- | --- |\n");
    for (const Case& c : readManifest(dir)) {
      std::vector<tessera::Tensor> tensors;
      std::vector<tessera::Arg> args;
      std::vector<std::pair<size_t, const TensorArg*>> outputs;
      for (const auto& a : c.args) {
        if (auto* t = std::get_if<TensorArg>(&a)) {
          size_t bytes = t->numel * tessera::dtype_size(t->dtype);
          std::vector<char> data = t->output ? std::vector<char>(bytes, 0) : readFile(dir + "/" + t->file, bytes);
          tensors.push_back(dev.upload(data.data(), t->dtype, {t->numel}));
          args.push_back(tensors.back());
          if (t->output) outputs.push_back({tensors.size() - 1, t});
        } else {
          int64_t v = std::get<int64_t>(a);
          args.push_back(v);
        }
      }
      program.kernel(c.kernel).launch(dev, {c.grid}, args, c.consts);
      int exact = 0, elements = 0;
      double worst = 0;
      bool ok = true;
      for (auto& [index, t] : outputs) {
        std::vector<std::byte> got = tensors[index].download_bytes();
        std::vector<char> want = readFile(dir + "/" + t->file, got.size());
        elements += t->numel;
        if (t->tol == 0) {
          // Bit-exact, except that any NaN equals any NaN (payloads are not
          // part of the language's semantics).
          size_t es = tessera::dtype_size(t->dtype);
          bool isFloat = t->dtype == tessera::DType::fp32 || t->dtype == tessera::DType::fp16 ||
                         t->dtype == tessera::DType::bf16;
          int mismatches = 0;
          for (int64_t i = 0; i < t->numel; ++i) {
            const char* g = reinterpret_cast<const char*>(got.data()) + i * es;
            const char* w = want.data() + i * es;
            if (std::memcmp(g, w, es) == 0) continue;
            if (isFloat && std::isnan(asDouble(t->dtype, g, 0)) && std::isnan(asDouble(t->dtype, w, 0))) continue;
            if (++mismatches <= 3) {
              uint64_t gb = 0, wb = 0;
              std::memcpy(&gb, g, es);
              std::memcpy(&wb, w, es);
              std::fprintf(stderr, "%s: %s[%lld]: tessera 0x%llx, triton 0x%llx\n", c.name.c_str(), t->file.c_str(),
                           (long long)i, (unsigned long long)gb, (unsigned long long)wb);
            }
          }
          if (mismatches) {
            ok = false;
            std::fprintf(stderr, "%s: %s: %d of %lld elements differ\n", c.name.c_str(), t->file.c_str(), mismatches,
                         (long long)t->numel);
          } else {
            ++exact;
          }
          continue;
        }
        for (int64_t i = 0; i < t->numel; ++i) {
          double g = asDouble(t->dtype, reinterpret_cast<const char*>(got.data()), i);
          double w = asDouble(t->dtype, want.data(), i);
          if (g == w || (std::isnan(g) && std::isnan(w))) continue;  // incl. equal infinities
          double err = std::abs(g - w) / (1 + std::abs(w));
          if (!(err <= t->tol)) ok = false;
          worst = std::max(worst, err);
        }
      }
      failures += !ok;
      std::printf("| %s | %zu | %d | %d | %.2g | %s |\n", c.name.c_str(), outputs.size(), elements, exact, worst,
                  ok ? "pass" : "FAIL");
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return failures ? 1 : 0;
}
