//===- BenchCommon.h - Helpers shared by the tensor-core benchmarks --------===//
//
// bench_matmul.cpp and bench_attention.cpp: comma lists, JSON lines, a
// parallel loop, and deterministic random fp16/bf16 inputs (a hash of the
// element index, the same whatever the thread count).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "ir/FloatFormats.h"
#include "tessera/tessera.h"

namespace bench {

using tessera::DType;
namespace floats = tessera::ir::floats;

/// main() of a benchmark: options from `parse` (nullopt: bad options, exit
/// 2), then `run`'s exit status; an exception (no GPU, ...) is printed
/// under the program's name and exits 2.
template <typename Parse, typename Run>
int benchMain(const char* name, int argc, char** argv, Parse parse, Run run) {
  auto options = parse(argc, argv);
  if (!options) return 2;
  try {
    return run(*options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", name, e.what());
    return 2;
  }
}

inline std::vector<std::string> splitCommas(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

inline std::string jsonEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out;
}

/// One JSON object, fields in insertion order.
class Json {
 public:
  Json& str(const std::string& key, const std::string& v) {
    std::string quoted(1, '"');
    quoted.append(jsonEscape(v)).push_back('"');
    return raw(key, quoted);
  }
  Json& num(const std::string& key, double v) {
    if (!std::isfinite(v)) return raw(key, "null");
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return raw(key, buf);
  }
  Json& integer(const std::string& key, int64_t v) { return raw(key, std::to_string(v)); }
  Json& boolean(const std::string& key, bool v) { return raw(key, v ? "true" : "false"); }
  std::string text() const { return "{" + body_ + "}"; }

 private:
  Json& raw(const std::string& key, const std::string& v) {
    if (!body_.empty()) body_.append(", ");
    body_.append(1, '"').append(jsonEscape(key)).append("\": ").append(v);
    return *this;
  }
  std::string body_;
};

/// fn(begin, end) over [0, n) in chunks on the hardware threads.
inline void parallelFor(int64_t n, const std::function<void(int64_t, int64_t)>& fn) {
  int threads = static_cast<int>(std::max(1u, std::min(32u, std::thread::hardware_concurrency())));
  if (n < (1 << 20) || threads == 1) {
    fn(0, n);
    return;
  }
  std::atomic<int64_t> next{0};
  const int64_t chunk = std::max<int64_t>(1 << 16, n / (threads * 8));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      for (int64_t b; (b = next.fetch_add(chunk)) < n;) fn(b, std::min(n, b + chunk));
    });
  for (auto& th : pool) th.join();
}

inline uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// fp16, bf16 and fp8 e4m3 (in the low byte) bits of a float (rounded to
/// nearest even) and back.
inline uint16_t toBits(DType dtype, float v) {
  if (dtype == DType::fp8e4nv)
    return static_cast<uint16_t>(floats::encodeFloat(v, floats::floatFormat(tessera::ir::TypeKind::F8E4M3FN)));
  return dtype == DType::bf16 ? floats::floatToBF16(v) : floats::floatToHalf(v);
}

inline double fromBits(DType dtype, uint16_t bits) {
  if (dtype == DType::fp8e4nv) return floats::fp8Table(tessera::ir::TypeKind::F8E4M3FN)[bits & 0xff];
  return dtype == DType::bf16 ? floats::bf16ToFloat(bits) : floats::halfToFloat(bits);
}

/// `bits` (from toBits) as a device tensor of `dtype`: one byte per fp8
/// element, two otherwise.
inline tessera::Tensor uploadBits(tessera::Device& dev, const std::vector<uint16_t>& bits, DType dtype,
                                  std::vector<int64_t> shape) {
  if (dtype != DType::fp8e4nv) return dev.upload(bits.data(), dtype, std::move(shape));
  std::vector<uint8_t> bytes(bits.begin(), bits.end());
  return dev.upload(bytes.data(), dtype, std::move(shape));
}

/// n values uniform in [-1, 1] rounded to `dtype` (fp16/bf16/fp8 bits),
/// deterministic for a seed whatever the thread count (a hash of the index).
inline std::vector<uint16_t> randomBits(DType dtype, int64_t n, uint64_t seed) {
  std::vector<uint16_t> bits(n);
  parallelFor(n, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      uint64_t h = splitmix64(seed * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(i));
      float u = static_cast<float>(h >> 40) * (1.0f / 16777215.0f);  // [0, 1]
      bits[i] = toBits(dtype, 2.0f * u - 1.0f);
    }
  });
  return bits;
}

}  // namespace bench
