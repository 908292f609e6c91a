//===- Philox.h - Reference Philox 4x32 for the e2e tests ------*- C++ -*-===//
//
// An independent host implementation of the generator behind tl.rand*:
// Philox 4x32 with Triton's round constants and key schedule, the
// uint -> uniform float mapping and the Box-Muller step of randn.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <array>
#include <cmath>
#include <cstdint>

namespace e2e {

/// Philox4x32 with `rounds` rounds; the 64-bit seed is the key (low word
/// first).
inline std::array<uint32_t, 4> philox4x32(uint64_t seed, std::array<uint32_t, 4> c, int rounds = 10) {
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  auto hi = [](uint32_t a, uint32_t b) { return static_cast<uint32_t>((uint64_t(a) * b) >> 32); };
  for (int r = 0; r < rounds; ++r) {
    uint32_t a0 = c[0], a2 = c[2];
    c[0] = hi(0xCD9E8D57u, a2) ^ c[1] ^ k0;
    c[2] = hi(0xD2511F53u, a0) ^ c[3] ^ k1;
    c[1] = 0xCD9E8D57u * a2;
    c[3] = 0xD2511F53u * a0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return c;
}

/// tl.randint4x(seed, offset) for an int32 (or int64) offset.
inline std::array<uint32_t, 4> randint4x(uint64_t seed, int64_t offset, bool offset64 = false) {
  uint32_t lo = static_cast<uint32_t>(offset);
  uint32_t hi = offset64 ? static_cast<uint32_t>(static_cast<uint64_t>(offset) >> 32) : 0;
  return philox4x32(seed, {lo, hi, 0, 0});
}

/// tl.uint_to_uniform_float for 32-bit words.
inline float uintToUniform(uint32_t x) {
  int32_t s = static_cast<int32_t>(x);
  if (s < 0) s = -s - 1;
  return static_cast<float>(s) * 4.6566127342e-10f;
}

inline float randRef(uint64_t seed, int64_t offset) { return uintToUniform(randint4x(seed, offset)[0]); }

inline double randnRef(uint64_t seed, int64_t offset) {
  auto r = randint4x(seed, offset);
  double u1 = std::max(1.0e-7f, uintToUniform(r[0]));
  double u2 = uintToUniform(r[1]);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

}  // namespace e2e
