//===- Fp8FormatsTest.cpp - Every fp8 kind, every source, every edge ------===//
//
// kernels/fp8_formats.py: conversions to the five fp8 kinds from fp32,
// fp16, bf16 and fp64, and from every code back to fp32, fp16, bf16 and
// fp64, including what the other fp8 tests leave out: NaN, infinities,
// finite overflow, signed zeros, ties, and fp64 values a hair off a tie
// (rounding through fp32 first would land on the tie). The references are
// written here from the format definitions:
//
//   fp8e4nv  (E4M3FN)    bias 7,  no inf, S.1111.111 is NaN, max 448
//   fp8e5    (E5M2)      bias 15, IEEE inf/NaN, max 57344
//   fp8e4b8  (E4M3FNUZ)  bias 8,  no inf, 0x80 the only NaN, no -0
//   fp8e5b16 (E5M2FNUZ)  bias 16, no inf, 0x80 the only NaN, no -0
//   fp8e4b15 (E4M3B11FNUZ) bias 15, no inf, 0x80 the only NaN, no -0
//
// and Tessera's rules for them (the interpreter's, which the GPU matches):
// round to nearest, ties to the even code; finite values beyond the largest
// finite one saturate to it; inf stays inf in fp8e5 and saturates in the
// formats without inf; NaN becomes the format's NaN, keeping its sign where
// the format has a sign for NaN.
//
//===----------------------------------------------------------------------===//

#include <limits>

#include "e2e/Harness.h"

using namespace e2e;
using tessera::DType;

namespace {

const char* kFile = "fp8_formats.py";

struct Fp8 {
  const char* name;
  int exp, man, bias;
  enum Kind { Ieee, Fn, Fnuz } kind;

  bool isNan(uint8_t c) const {
    if (kind == Fnuz) return c == 0x80;
    if (kind == Fn) return (c & 0x7F) == 0x7F;
    return (c & 0x7F) > 0x7C;
  }
  uint8_t maxCode() const { return kind == Ieee ? 0x7B : kind == Fn ? 0x7E : 0x7F; }

  double decode(uint8_t c) const {
    if (isNan(c)) return (c & 0x80) && kind != Fnuz ? -std::numeric_limits<double>::quiet_NaN()
                                                    : std::numeric_limits<double>::quiet_NaN();
    if (kind == Ieee && (c & 0x7F) == 0x7C) return (c & 0x80) ? -INFINITY : INFINITY;
    int e = (c >> man) & ((1 << exp) - 1), m = c & ((1 << man) - 1);
    double mag = e == 0 ? std::ldexp(m, 1 - bias - man) : std::ldexp((1 << man) + m, e - bias - man);
    return (c & 0x80) ? -mag : mag;
  }

  /// The code of the exact value x, by search over the finite codes.
  uint8_t encode(double x) const {
    uint8_t sign = std::signbit(x) ? 0x80 : 0;
    if (std::isnan(x)) return kind == Fnuz ? 0x80 : sign | (kind == Ieee ? 0x7E : 0x7F);
    if (std::isinf(x) && kind == Ieee) return sign | 0x7C;
    double a = std::fabs(x);
    if (a >= decode(maxCode())) return sign | maxCode();
    uint8_t best = 0;
    double bestErr = INFINITY;
    for (int c = 0; c <= maxCode(); ++c) {
      double err = std::fabs(decode(static_cast<uint8_t>(c)) - a);
      if (err < bestErr || (err == bestErr && (c & 1) == 0)) {
        best = static_cast<uint8_t>(c);
        bestErr = err;
      }
    }
    if (best == 0 && kind == Fnuz) return 0;
    return sign | best;
  }
};

const Fp8 kFormats[] = {{"fp8e4nv", 4, 3, 7, Fp8::Fn},
                        {"fp8e5", 5, 2, 15, Fp8::Ieee},
                        {"fp8e4b8", 4, 3, 8, Fp8::Fnuz},
                        {"fp8e5b16", 5, 2, 16, Fp8::Fnuz},
                        {"fp8e4b15", 4, 3, 15, Fp8::Fnuz}};

/// Values around every code of `f`: the code, the ties between neighbours
/// and values just off them, beyond the largest finite value, specials.
std::vector<double> edgeValues(const Fp8& f, Rng& rng) {
  std::vector<double> v;
  for (int c = 0; c <= f.maxCode(); ++c) {
    double a = f.decode(static_cast<uint8_t>(c)), b = c < f.maxCode() ? f.decode(static_cast<uint8_t>(c + 1)) : 2 * a;
    double mid = (a + b) / 2;
    // Off a tie by 2^-40 relative: fp64 inputs must not be rounded to fp32
    // (which would land on the tie) before the one rounding to fp8.
    for (double x : {a, mid, mid * (1 + std::ldexp(1.0, -12)), mid * (1 - std::ldexp(1.0, -12)),
                     mid * (1 + std::ldexp(1.0, -40)), mid * (1 - std::ldexp(1.0, -40))})
      for (double s : {1.0, -1.0}) v.push_back(s * x);
  }
  double mx = f.decode(f.maxCode());
  for (double x : {0.0, -0.0, mx * 1.06, -mx * 1.5, mx * 1e6, -1e30, 1e-30, -1e-30, double(INFINITY), -double(INFINITY),
                   std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::quiet_NaN()})
    v.push_back(x);
  for (float x : rng.wideFloats(200, 1 - f.bias - f.man - 3, static_cast<int>(std::log2(mx)) + 3)) v.push_back(x);
  return v;
}

std::vector<uint8_t> encodeOnDevice(const Fp8& f, const tessera::Tensor& x, int64_t n) {
  auto codes = dev().zeros(DType::u8, {n});
  kernel(kFile, "fp8_encode_from")
      .launch(dev(), {cdiv(n, 256)}, {x, codes, n}, {{"DT", std::string(f.name)}, {"BLOCK", int64_t(256)}});
  return codes.download<uint8_t>();
}

TEST(Fp8Formats, EncodeFromFp32AndFp64WithEveryEdge) {
  E2E_RNG(rng);
  for (const Fp8& f : kFormats) {
    SCOPED_TRACE(f.name);
    std::vector<double> xs = edgeValues(f, rng);
    std::vector<float> x32;
    std::vector<uint8_t> want32, want64;
    for (double x : xs) {
      x32.push_back(static_cast<float>(x));
      want32.push_back(f.encode(static_cast<float>(x)));
      want64.push_back(f.encode(x));
    }
    int64_t n = static_cast<int64_t>(xs.size());
    expectEqual(encodeOnDevice(f, dev().upload(x32, {n}), n), want32, "fp32 -> " + std::string(f.name));
    expectEqual(encodeOnDevice(f, dev().upload(xs, {n}), n), want64, "fp64 -> " + std::string(f.name));
  }
}

TEST(Fp8Formats, EncodeEveryFp16AndBf16Value) {
  std::vector<uint16_t> all(65536);
  for (int i = 0; i < 65536; ++i) all[i] = static_cast<uint16_t>(i);
  for (const Fp8& f : kFormats) {
    SCOPED_TRACE(f.name);
    std::vector<uint8_t> wantH, wantB;
    for (uint16_t h : all) {
      wantH.push_back(f.encode(halfToFloat(h)));
      wantB.push_back(f.encode(bf16ToFloat(h)));
    }
    expectEqual(encodeOnDevice(f, dev().upload(all.data(), DType::fp16, {65536}), 65536), wantH,
                "fp16 -> " + std::string(f.name));
    expectEqual(encodeOnDevice(f, dev().upload(all.data(), DType::bf16, {65536}), 65536), wantB,
                "bf16 -> " + std::string(f.name));
  }
}

/// Same value, or NaNs of the same sign (FNUZ NaN: any sign).
template <class T> void expectDecoded(const Fp8& f, const std::vector<T>& got, const std::string& what) {
  int bad = 0;
  for (int c = 0; c < 256 && bad < 8; ++c) {
    double want = f.decode(static_cast<uint8_t>(c)), g = static_cast<double>(got[c]);
    bool ok = std::isnan(want) ? std::isnan(g) && (f.kind == Fp8::Fnuz || std::signbit(g) == std::signbit(want))
                               : g == want && std::signbit(g) == std::signbit(want);
    if (!ok) {
      ++bad;
      ADD_FAILURE() << what << ": code 0x" << std::hex << c << std::dec << " -> " << g << ", want " << want;
    }
  }
}

TEST(Fp8Formats, DecodeEveryCodeToEveryFloatType) {
  std::vector<uint8_t> codes(256);
  for (int c = 0; c < 256; ++c) codes[c] = static_cast<uint8_t>(c);
  for (const Fp8& f : kFormats) {
    SCOPED_TRACE(f.name);
    auto tc = dev().upload(codes, {256});
    auto run = [&](DType dt) {
      auto out = dev().zeros(dt, {256});
      kernel(kFile, "fp8_decode_to")
          .launch(dev(), {2}, {tc, out, int64_t(256)}, {{"DT", std::string(f.name)}, {"BLOCK", int64_t(128)}});
      return out;
    };
    expectDecoded(f, run(DType::fp32).download<float>(), "-> fp32");
    expectDecoded(f, run(DType::fp64).download<double>(), "-> fp64");
    expectDecoded(f, downloadFloats(run(DType::fp16)), "-> fp16");
    expectDecoded(f, downloadFloats(run(DType::bf16)), "-> bf16");
  }
}

}  // namespace
