//===- CoverageGapsDataTest.cpp - Data types, math, atomics, debugging ----===//
//
// The second half of the coverage-gap tests (kernels/coverage_gaps.py): the
// FNUZ fp8 formats, fp64 / int16 / uint16 / uint64 data end to end, the
// tl.math spellings, umulhi on every integer type, clamp and softmax
// options, bf16 tl.full, fp16/bf16/fp64 atomic_add, fp32 atomic_cas, atomics
// with sem/scope, device_print(hex=True) and device_assert(mask=...). The
// references are plain C++; the fp8 codecs below are written from the format
// definitions (bias, no infinities, 0x80 the only NaN, no negative zero).
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <limits>
#include <sstream>

#include "e2e/Harness.h"

using namespace e2e;
using tessera::DType;

namespace {

const char* kFile = "coverage_gaps.py";

template <class T> std::vector<T> part(const std::vector<T>& v, int64_t k, int64_t n) {
  return std::vector<T>(v.begin() + k * n, v.begin() + (k + 1) * n);
}

//===----------------------------------------------------------------------===//
// FNUZ fp8 formats
//===----------------------------------------------------------------------===//

/// An 8-bit "FNUZ" float: 1 sign bit, `exp` exponent bits with bias `bias`,
/// `man` mantissa bits; every exponent is finite, 0x80 is the only NaN and
/// there is no negative zero.
struct Fnuz {
  const char* name;
  int exp, man, bias;

  double decode(uint8_t c) const {
    if (c == 0x80) return std::numeric_limits<double>::quiet_NaN();
    int e = (c >> man) & ((1 << exp) - 1);
    int m = c & ((1 << man) - 1);
    double mag = e == 0 ? std::ldexp(m, 1 - bias - man) : std::ldexp((1 << man) + m, e - bias - man);
    return (c & 0x80) ? -mag : mag;
  }

  /// Round to nearest, ties to the even code; beyond the largest finite
  /// value, saturate to it; NaN -> 0x80. Found by search over the codes.
  uint8_t encode(float x) const {
    if (std::isnan(x)) return 0x80;
    uint8_t best = 0;
    double bestErr = std::numeric_limits<double>::infinity();
    for (int c = 0; c < 256; ++c) {
      if (c == 0x80) continue;
      double err = std::fabs(decode(static_cast<uint8_t>(c)) - static_cast<double>(x));
      if (err < bestErr || (err == bestErr && (c & 1) == 0 && (best & 1) == 1)) {
        best = static_cast<uint8_t>(c);
        bestErr = err;
      }
    }
    return best;
  }

  double maxFinite() const { return decode(0x7f); }
};

const Fnuz kE4b8{"fp8e4b8", 4, 3, 8}, kE5b16{"fp8e5b16", 5, 2, 16}, kE4b15{"fp8e4b15", 4, 3, 15};

/// Inputs for a format: every code's value, the midpoints between
/// neighbouring codes (exact ties), random values over the whole range and
/// beyond, signed zeros, tiny values and NaN.
std::vector<float> fp8Inputs(const Fnuz& f, Rng& rng) {
  std::vector<double> pos;
  for (int c = 0; c < 0x80; ++c) pos.push_back(f.decode(static_cast<uint8_t>(c)));
  std::vector<float> xs;
  for (size_t k = 0; k < pos.size(); ++k) {
    for (int s : {1, -1}) {
      xs.push_back(static_cast<float>(s * pos[k]));
      if (k + 1 < pos.size()) xs.push_back(static_cast<float>(s * (pos[k] + pos[k + 1]) / 2));
    }
  }
  int lo = 1 - f.bias - f.man - 2;
  int hi = static_cast<int>(std::ceil(std::log2(f.maxFinite()))) + 2;
  auto wide = rng.wideFloats(300, lo, hi);
  xs.insert(xs.end(), wide.begin(), wide.end());
  for (float v : {0.0f, -0.0f, std::numeric_limits<float>::quiet_NaN(),
                  static_cast<float>(-std::ldexp(1.0, lo)), static_cast<float>(f.maxFinite() * 1.03),
                  static_cast<float>(-f.maxFinite() * 4)})
    xs.push_back(v);
  return xs;
}

/// Casts `xs` to the format in a kernel and returns the codes.
std::vector<uint8_t> encodeOnDevice(const Fnuz& f, const std::vector<float>& xs) {
  int64_t n = static_cast<int64_t>(xs.size());
  auto tx = dev().upload(xs, {n});
  auto codes = dev().zeros(DType::u8, {n});
  kernel(kFile, "fp8_encode").launch(dev(), {cdiv(n, 128)}, {tx, codes, n}, {{"DT", std::string(f.name)}, {"BLOCK", int64_t(128)}});
  return codes.download<uint8_t>();
}

/// Decodes all 256 codes in a kernel, to fp32 and to fp16 (as floats).
std::pair<std::vector<float>, std::vector<float>> decodeOnDevice(const Fnuz& f) {
  std::vector<uint8_t> all(256);
  for (int c = 0; c < 256; ++c) all[c] = static_cast<uint8_t>(c);
  auto tc = dev().upload(all, {256});
  auto o32 = dev().zeros(DType::fp32, {256});
  auto o16 = dev().zeros(DType::fp16, {256});
  kernel(kFile, "fp8_decode").launch(dev(), {2}, {tc, o32, o16, int64_t(256)}, {{"DT", std::string(f.name)}, {"BLOCK", int64_t(128)}});
  std::vector<float> d16;
  for (uint16_t h : o16.download<uint16_t>()) d16.push_back(halfToFloat(h));
  return {o32.download<float>(), d16};
}

TEST(CoverageGapsData, Fp8FnuzFormatsEncodeAndDecode) {
  E2E_RNG(rng);
  for (const Fnuz* f : {&kE4b8, &kE5b16}) {
    SCOPED_TRACE(f->name);
    auto xs = fp8Inputs(*f, rng);
    std::vector<uint8_t> want;
    for (float x : xs) want.push_back(f->encode(x));
    expectEqual(encodeOnDevice(*f, xs), want, std::string(f->name) + " encoding of fp32");
    std::vector<float> w32(256);
    for (int c = 0; c < 256; ++c) w32[c] = static_cast<float>(f->decode(static_cast<uint8_t>(c)));
    auto [d32, d16] = decodeOnDevice(*f);
    expectSameBits(d32, w32, std::string(f->name) + " -> fp32");
    expectSameBits(d16, w32, std::string(f->name) + " -> fp16 (all values fit exactly)");
  }
}

TEST(CoverageGapsData, Fp8e4b15WhereAllDefinitionsAgree) {
  // Triton's own fp8e4b15 conversions (bit shifts through fp16) differ from
  // the FNUZ reading of the format at the edges: 0x80 decodes to -0 there,
  // encoding saturates at 1.75 and rounds ties away from zero. Only what
  // both readings agree on is checked here: the non-zero codes other than
  // 0x80, and values within +-1.75 that are not near a tie.
  E2E_RNG(rng);
  const Fnuz& f = kE4b15;
  std::vector<float> xs;
  for (float x : fp8Inputs(f, rng)) {
    if (std::isnan(x) || x == 0 || std::fabs(x) > 1.75f) continue;
    uint8_t c = f.encode(x);
    double v = f.decode(c);
    double up = f.decode(static_cast<uint8_t>(c + 1)), down = (c & 0x7f) ? f.decode(static_cast<uint8_t>(c - 1)) : 0.0;
    double gap = std::min(std::fabs(up - v), std::fabs(v - down));
    if (std::fabs(std::fabs(x - v) - gap / 2) < gap / 64) continue;  // near a tie
    xs.push_back(x);
  }
  ASSERT_GT(xs.size(), 200u);
  std::vector<uint8_t> want;
  for (float x : xs) want.push_back(f.encode(x));
  expectEqual(encodeOnDevice(f, xs), want, "fp8e4b15 encoding of fp32");
  auto [d32, d16] = decodeOnDevice(f);
  for (int c = 0; c < 256; ++c) {
    if (c == 0x80) continue;
    double want = f.decode(static_cast<uint8_t>(c));
    EXPECT_EQ(d32[c], want) << "fp8e4b15 code " << c << " -> fp32";
    EXPECT_EQ(d16[c], want) << "fp8e4b15 code " << c << " -> fp16";
  }
}

//===----------------------------------------------------------------------===//
// fp64, int16, uint16, uint64 data
//===----------------------------------------------------------------------===//

TEST(CoverageGapsData, Fp64MathEndToEnd) {
  E2E_RNG(rng);
  const int64_t n = 1000;
  auto x = rng.doubles(n, -3.0, 3.0), y = rng.doubles(n, 0.1, 10.0);
  auto tx = dev().upload(x, {n}), ty = dev().upload(y, {n});
  auto out = dev().zeros(DType::fp64, {6 * n});
  kernel(kFile, "fp64_math").launch(dev(), {cdiv(n, 256)}, {tx, ty, out, n}, {{"BLOCK", int64_t(256)}});
  auto got = out.download<double>();
  std::vector<double> w[6];
  for (int64_t i = 0; i < n; ++i) {
    w[0].push_back(std::exp(x[i]));
    w[1].push_back(std::log(y[i]));
    w[2].push_back(std::sqrt(y[i]));
    w[3].push_back(std::sin(x[i]));
    w[4].push_back(x[i] * y[i] + x[i] / y[i]);
    w[5].push_back(std::fma(x[i], y[i], 0.1));
  }
  // fp64 results must be fp64-accurate: far below fp32's 6e-8.
  expectClose(part(got, 0, n), w[0], 1e-15, 0, "exp fp64");
  expectClose(part(got, 1, n), w[1], 1e-15, 1e-16, "log fp64");
  expectEqual(part(got, 2, n), w[2], "sqrt fp64 (correctly rounded)");
  expectClose(part(got, 3, n), w[3], 1e-15, 1e-16, "sin fp64");
  expectClose(part(got, 4, n), w[4], 1e-15, 1e-16, "x * y + x / y fp64");
  expectEqual(part(got, 5, n), w[5], "fma fp64 (single rounding)");
}

TEST(CoverageGapsData, Fp64Dot) {
  E2E_RNG(rng);
  const int64_t M = 37, N = 29, K = 45;
  auto a = rng.doubles(M * K, -1.0, 1.0), b = rng.doubles(K * N, -1.0, 1.0);
  auto ta = dev().upload(a, {M, K}), tb = dev().upload(b, {K, N});
  auto c = dev().zeros(DType::fp64, {M, N});
  kernel(kFile, "fp64_dot").launch(dev(), {1}, {ta, tb, c, M, N, K}, {{"BM", int64_t(64)}, {"BN", int64_t(32)}, {"BK", int64_t(16)}});
  std::vector<double> want(M * N, 0.0);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j)
      for (int64_t k = 0; k < K; ++k) want[i * N + j] += a[i * K + k] * b[k * N + j];
  // fp32 accumulation would be off by ~1e-6.
  expectClose(c.download<double>(), want, 1e-13, 1e-13, "fp64 dot");
}

TEST(CoverageGapsData, Int16Arithmetic) {
  E2E_RNG(rng);
  const int64_t n = 1000;
  auto a = rng.ints<int16_t>(n, -30000, 30000);
  std::vector<int16_t> b(n);
  for (auto& v : b) v = static_cast<int16_t>(rng.integer(1, 300) * (rng.integer(0, 1) ? 1 : -1));
  auto ta = dev().upload(a, {n}), tb = dev().upload(b, {n});
  auto out = dev().zeros(DType::i16, {6 * n});
  kernel(kFile, "int16_ops").launch(dev(), {cdiv(n, 256)}, {ta, tb, out, n}, {{"BLOCK", int64_t(256)}});
  auto got = out.download<int16_t>();
  std::vector<int16_t> w[6];
  for (int64_t i = 0; i < n; ++i) {
    int32_t x = a[i], y = b[i];
    w[0].push_back(static_cast<int16_t>(static_cast<uint16_t>(x + y)));  // wraps
    w[1].push_back(static_cast<int16_t>(static_cast<uint16_t>(x * y)));
    w[2].push_back(static_cast<int16_t>(x / y));  // C division truncates
    w[3].push_back(static_cast<int16_t>(x % y));
    w[4].push_back(static_cast<int16_t>(x >> 3));  // arithmetic shift
    w[5].push_back(static_cast<int16_t>(std::max(x, y) - 7));
  }
  const char* names[] = {"a + b", "a * b", "a // b", "a % b", "a >> 3", "maximum - 7"};
  for (int k = 0; k < 6; ++k) expectEqual(part(got, k, n), w[k], std::string("int16 ") + names[k]);
}

TEST(CoverageGapsData, Uint16Arithmetic) {
  E2E_RNG(rng);
  const int64_t n = 1000;
  auto a = rng.ints<uint16_t>(n, 0, 65535), b = rng.ints<uint16_t>(n, 1, 65535);
  auto ta = dev().upload(a, {n}), tb = dev().upload(b, {n});
  auto out = dev().zeros(DType::u16, {6 * n});
  auto sum = dev().zeros(DType::u32, {1});
  kernel(kFile, "uint16_ops").launch(dev(), {1}, {ta, tb, out, sum, n}, {{"BLOCK", int64_t(1024)}});
  auto got = out.download<uint16_t>();
  std::vector<uint16_t> w[6];
  uint32_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    uint32_t x = a[i], y = b[i];
    w[0].push_back(static_cast<uint16_t>(x + y));
    w[1].push_back(static_cast<uint16_t>(x * y));
    w[2].push_back(static_cast<uint16_t>(x / y));
    w[3].push_back(static_cast<uint16_t>(x >> 3));  // logical shift
    w[4].push_back(x > y ? 1 : 0);                   // unsigned comparison
    w[5].push_back(static_cast<uint16_t>(x - y));
    total += x;
  }
  const char* names[] = {"a + b", "a * b", "a // b", "a >> 3", "a > b", "a - b"};
  for (int k = 0; k < 6; ++k) expectEqual(part(got, k, n), w[k], std::string("uint16 ") + names[k]);
  EXPECT_EQ(sum.download<uint32_t>()[0], total) << "uint16 sum accumulates in uint32";
}

TEST(CoverageGapsData, Uint64Arithmetic) {
  E2E_RNG(rng);
  const int64_t n = 300;
  std::vector<uint64_t> a(n), b(n);
  for (int64_t i = 0; i < n; ++i) {
    a[i] = rng.engine()();
    b[i] = i % 2 ? rng.engine()() | 1 : static_cast<uint64_t>(rng.integer(1, 1 << 20));
  }
  a[0] = ~0ull;
  auto ta = dev().upload(a, {n}), tb = dev().upload(b, {n});
  auto out = dev().zeros(DType::u64, {6 * n});
  auto mx = dev().zeros(DType::u64, {1});
  kernel(kFile, "uint64_ops").launch(dev(), {1}, {ta, tb, out, mx, n}, {{"BLOCK", int64_t(512)}});
  auto got = out.download<uint64_t>();
  std::vector<uint64_t> w[6];
  for (int64_t i = 0; i < n; ++i) {
    w[0].push_back(a[i] + b[i]);
    w[1].push_back(a[i] * b[i]);
    w[2].push_back(a[i] / b[i]);
    w[3].push_back(a[i] % b[i]);
    w[4].push_back(a[i] >> 7);
    w[5].push_back(a[i] < b[i] ? 1 : 0);
  }
  const char* names[] = {"a + b", "a * b", "a // b", "a % b", "a >> 7", "a < b"};
  for (int k = 0; k < 6; ++k) expectEqual(part(got, k, n), w[k], std::string("uint64 ") + names[k]);
  EXPECT_EQ(mx.download<uint64_t>()[0], *std::max_element(a.begin(), a.end())) << "uint64 max is unsigned";
}

TEST(CoverageGapsData, WideAndShortIntegersToFloat) {
  E2E_RNG(rng);
  const int64_t n = 400;
  std::vector<uint64_t> a(n);
  for (auto& v : a) v = rng.engine()() >> rng.integer(0, 40);
  a[0] = ~0ull;
  a[1] = 0x8000000000000001ull;
  auto b = rng.ints<int16_t>(n, -32768, 32767);
  auto c = rng.ints<uint16_t>(n, 0, 65535);
  c[0] = 65535;  // rounds to +inf in fp16
  c[1] = 65519;  // rounds down to 65504
  auto ta = dev().upload(a, {n}), tb = dev().upload(b, {n}), tc = dev().upload(c, {n});
  auto f32 = dev().zeros(DType::fp32, {2 * n}), f64 = dev().zeros(DType::fp64, {n}), h = dev().zeros(DType::fp16, {2 * n});
  kernel(kFile, "wide_int_to_float").launch(dev(), {1}, {ta, tb, tc, f32, f64, h, n}, {{"BLOCK", int64_t(512)}});
  std::vector<float> w32(2 * n);
  std::vector<double> w64(n);
  std::vector<uint16_t> wh(2 * n);
  for (int64_t i = 0; i < n; ++i) {
    w32[i] = static_cast<float>(a[i]);  // unsigned, correctly rounded
    w64[i] = static_cast<double>(a[i]);
    w32[n + i] = static_cast<float>(b[i]);
    wh[i] = floatToHalf(static_cast<float>(c[i]));  // exact in fp32, one rounding to fp16
    wh[n + i] = floatToHalf(static_cast<float>(b[i]));
  }
  expectSameBits(part(f32.download<float>(), 0, n), part(w32, 0, n), "uint64 -> fp32");
  expectEqual(f64.download<double>(), w64, "uint64 -> fp64");
  expectSameBits(part(f32.download<float>(), 1, n), part(w32, 1, n), "int16 -> fp32");
  expectEqual(part(h.download<uint16_t>(), 0, n), part(wh, 0, n), "uint16 -> fp16");
  expectEqual(part(h.download<uint16_t>(), 1, n), part(wh, 1, n), "int16 -> fp16");
}

/// Rounds `x` to the nearest value of a 16-bit format given by its decoder,
/// ties to the even code, starting from a guess within one code.
template <class Dec> uint16_t roundOnce16(double x, uint16_t guess, Dec dec) {
  uint16_t best = guess;
  for (int d : {-1, 1}) {
    uint16_t c = static_cast<uint16_t>(guess + d);
    if ((c & 0x7fff) == 0x7fff || ((guess & 0x7fff) == 0 && d < 0)) continue;
    double e = std::fabs(dec(c) - x), eb = std::fabs(dec(best) - x);
    if (e < eb || (e == eb && (c & 1) == 0)) best = c;
  }
  return best;
}

TEST(CoverageGapsData, Fp64NarrowsWithOneRounding) {
  E2E_RNG(rng);
  // Values just off the midpoint of two fp16 (or bf16) neighbours: through
  // fp32 they would first land on the midpoint and then round to even.
  std::vector<double> x;
  for (int k = 0; k < 200; ++k) {
    bool bf = k % 2;
    uint16_t lo = bf ? static_cast<uint16_t>(rng.integer(0x3000, 0x4700)) : static_cast<uint16_t>(rng.integer(0x0400, 0x7800));
    double a = bf ? bf16ToFloat(lo) : halfToFloat(lo), b = bf ? bf16ToFloat(lo + 1) : halfToFloat(lo + 1);
    double mid = (a + b) / 2, nudge = mid * std::ldexp(1.0, -40) * (rng.integer(0, 1) ? 1 : -1);
    x.push_back((k % 4 < 2 ? 1 : -1) * (mid + nudge));
  }
  auto more = rng.doubles(100, -1000.0, 1000.0);
  x.insert(x.end(), more.begin(), more.end());
  int64_t n = static_cast<int64_t>(x.size());
  auto tx = dev().upload(x, {n});
  auto h = dev().zeros(DType::fp16, {n}), bf = dev().zeros(DType::bf16, {n}), f = dev().zeros(DType::fp32, {n});
  kernel(kFile, "fp64_narrowing").launch(dev(), {1}, {tx, h, bf, f, n}, {{"BLOCK", int64_t(512)}});
  std::vector<uint16_t> wh(n), wb(n);
  std::vector<float> wf(n);
  for (int64_t i = 0; i < n; ++i) {
    wh[i] = roundOnce16(x[i], floatToHalf(static_cast<float>(x[i])), [](uint16_t c) { return double(halfToFloat(c)); });
    wb[i] = roundOnce16(x[i], floatToBf16(static_cast<float>(x[i])), [](uint16_t c) { return double(bf16ToFloat(c)); });
    wf[i] = static_cast<float>(x[i]);
  }
  expectEqual(h.download<uint16_t>(), wh, "fp64 -> fp16");
  expectEqual(bf.download<uint16_t>(), wb, "fp64 -> bf16");
  expectSameBits(f.download<float>(), wf, "fp64 -> fp32");
}

//===----------------------------------------------------------------------===//
// Math
//===----------------------------------------------------------------------===//

TEST(CoverageGapsData, TlMathSpellings) {
  E2E_RNG(rng);
  const int64_t n = 900;
  auto x = rng.floats(n, -2.0f, 2.0f), y = rng.floats(n, 0.1f, 8.0f);
  auto tx = dev().upload(x, {n}), ty = dev().upload(y, {n});
  auto out = dev().zeros(DType::fp32, {16 * n});
  kernel(kFile, "math_spellings").launch(dev(), {cdiv(n, 256)}, {tx, ty, out, n}, {{"BLOCK", int64_t(256)}});
  auto got = out.download<float>();
  auto approx = [&](int k, const char* name, double (*fn)(double, double), bool onX, double rtol, double atol) {
    std::vector<float> want(n);
    for (int64_t i = 0; i < n; ++i) want[i] = static_cast<float>(fn(onX ? x[i] : y[i], 0));
    expectClose(part(got, k, n), want, rtol, atol, std::string("tl.math.") + name);
  };
  approx(0, "exp", [](double v, double) { return std::exp(v); }, true, 2e-6, 0);
  approx(1, "exp2", [](double v, double) { return std::exp2(v); }, true, 2e-6, 0);
  approx(2, "log", [](double v, double) { return std::log(v); }, false, 2e-6, 1e-6);
  approx(3, "log2", [](double v, double) { return std::log2(v); }, false, 2e-6, 1e-6);
  approx(4, "sin", [](double v, double) { return std::sin(v); }, true, 2e-6, 1e-6);
  approx(5, "cos", [](double v, double) { return std::cos(v); }, true, 2e-6, 1e-6);
  approx(6, "sqrt", [](double v, double) { return std::sqrt(v); }, false, 1e-6, 0);
  approx(8, "rsqrt", [](double v, double) { return 1 / std::sqrt(v); }, false, 2e-6, 0);
  approx(9, "erf", [](double v, double) { return std::erf(v); }, true, 2e-6, 1e-6);
  std::vector<float> sq(n), fl(n), ce(n), ab(n), fm(n), dv(n);
  for (int64_t i = 0; i < n; ++i) {
    sq[i] = std::sqrt(y[i]);
    fl[i] = std::floor(x[i] * 3.0f);
    ce[i] = std::ceil(x[i] * 3.0f);
    ab[i] = std::fabs(x[i]);
    fm[i] = std::fma(x[i], y[i], std::fabs(x[i]));
    dv[i] = x[i] / y[i];
  }
  expectSameBits(part(got, 7, n), sq, "tl.math.sqrt_rn");
  expectSameBits(part(got, 10, n), fl, "tl.math.floor");
  expectSameBits(part(got, 11, n), ce, "tl.math.ceil");
  expectSameBits(part(got, 12, n), ab, "tl.math.abs");
  expectSameBits(part(got, 13, n), fm, "tl.math.fma");
  expectSameBits(part(got, 14, n), dv, "tl.math.div_rn");
  expectClose(part(got, 15, n), dv, 1e-6, 0, "tl.math.fdiv");
}

/// The high half of the unsigned product of the bit patterns (what Triton's
/// umulhi computes for every integer type, signed ones included).
template <class T> T mulHiRef(T a, T b) {
  using U = std::make_unsigned_t<T>;
  constexpr int bits = sizeof(T) * 8;
  unsigned __int128 p = static_cast<unsigned __int128>(static_cast<U>(a)) * static_cast<U>(b);
  return static_cast<T>(static_cast<U>(p >> bits));
}

template <class T> void checkUmulhi(Rng& rng, const char* what) {
  SCOPED_TRACE(what);
  const int64_t n = 300;
  std::vector<T> a(n), b(n);
  for (int64_t i = 0; i < n; ++i) {
    a[i] = static_cast<T>(rng.engine()());
    b[i] = static_cast<T>(rng.engine()());
  }
  a[0] = static_cast<T>(-1);  // all ones
  b[0] = static_cast<T>(2);
  auto ta = dev().upload(a, {n}), tb = dev().upload(b, {n});
  auto out = dev().zeros(tessera::dtype_of<T>(), {n});
  kernel(kFile, "math_umulhi").launch(dev(), {1}, {ta, tb, out, n}, {{"BLOCK", int64_t(512)}});
  std::vector<T> want(n);
  for (int64_t i = 0; i < n; ++i) want[i] = mulHiRef(a[i], b[i]);
  expectEqual(out.template download<T>(), want, std::string("umulhi ") + what);
}

TEST(CoverageGapsData, UmulhiOnAllIntegerTypes) {
  E2E_RNG(rng);
  checkUmulhi<int32_t>(rng, "int32");
  checkUmulhi<uint32_t>(rng, "uint32");
  checkUmulhi<int64_t>(rng, "int64");
  checkUmulhi<uint64_t>(rng, "uint64");
}

TEST(CoverageGapsData, ClampPropagateNan) {
  E2E_RNG(rng);
  const int64_t n = 300;
  auto x = rng.floats(n, -10.0f, 10.0f);
  for (int64_t i = 0; i < n; i += 7) x[i] = std::numeric_limits<float>::quiet_NaN();
  float lo = rng.uniform(-5.0f, -1.0f), hi = rng.uniform(1.0f, 5.0f);
  auto tx = dev().upload(x, {n});
  auto all = dev().zeros(DType::fp32, {n}), none = dev().zeros(DType::fp32, {n});
  kernel(kFile, "clamp_nan").launch(dev(), {1}, {tx, all, none, lo, hi, n}, {{"BLOCK", int64_t(512)}});
  std::vector<float> wall(n), wnone(n);
  for (int64_t i = 0; i < n; ++i) {
    bool nan = std::isnan(x[i]);
    float c = nan ? lo : std::min(std::max(x[i], lo), hi);  // NONE: max/min ignore the NaN
    wall[i] = nan ? x[i] : c;
    wnone[i] = c;
  }
  expectClose(all.download<float>(), wall, 0, 0, "clamp(propagate_nan=ALL)");
  expectSameBits(none.download<float>(), wnone, "clamp(propagate_nan=NONE)");
}

TEST(CoverageGapsData, SoftmaxDimAndIeeeRounding) {
  E2E_RNG(rng);
  const int64_t M = 13, N = 37;
  auto x = rng.floats(M * N, -6.0f, 6.0f);
  auto tx = dev().upload(x, {M, N});
  auto rows = dev().zeros(DType::fp32, {M, N}), cols = dev().zeros(DType::fp32, {M, N});
  kernel(kFile, "softmax_forms").launch(dev(), {1}, {tx, rows, cols, M, N}, {{"BLOCK_M", int64_t(16)}, {"BLOCK_N", int64_t(64)}});
  std::vector<float> wr(M * N), wc(M * N);
  for (int64_t i = 0; i < M; ++i) {
    double mx = -INFINITY, s = 0;
    for (int64_t j = 0; j < N; ++j) mx = std::max(mx, double(x[i * N + j]));
    for (int64_t j = 0; j < N; ++j) s += std::exp(x[i * N + j] - mx);
    for (int64_t j = 0; j < N; ++j) wr[i * N + j] = static_cast<float>(std::exp(x[i * N + j] - mx) / s);
  }
  for (int64_t j = 0; j < N; ++j) {
    double mx = -INFINITY, s = 0;
    for (int64_t i = 0; i < M; ++i) mx = std::max(mx, double(x[i * N + j]));
    for (int64_t i = 0; i < M; ++i) s += std::exp(x[i * N + j] - mx);
    for (int64_t i = 0; i < M; ++i) wc[i * N + j] = static_cast<float>(std::exp(x[i * N + j] - mx) / s);
  }
  expectClose(rows.download<float>(), wr, 1e-5, 1e-7, "softmax(dim=1, keep_dims=True, ieee_rounding=True)");
  expectClose(cols.download<float>(), wc, 1e-5, 1e-7, "softmax(dim=None) along axis 0");
}

TEST(CoverageGapsData, Softmax1dDefaultDim) {
  E2E_RNG(rng);
  const int64_t n = 300;
  auto x = rng.floats(n, -8.0f, 8.0f);
  auto tx = dev().upload(x, {n});
  auto out = dev().zeros(DType::fp32, {n});
  kernel(kFile, "softmax_1d").launch(dev(), {1}, {tx, out, n}, {{"BLOCK", int64_t(512)}});
  double mx = *std::max_element(x.begin(), x.end()), s = 0;
  for (float v : x) s += std::exp(v - mx);
  std::vector<float> want(n);
  for (int64_t i = 0; i < n; ++i) want[i] = static_cast<float>(std::exp(x[i] - mx) / s);
  expectClose(out.download<float>(), want, 1e-5, 1e-8, "softmax of a 1-D block");
}

TEST(CoverageGapsData, FullOfBf16) {
  E2E_RNG(rng);
  const int64_t B = 32;
  float v = rng.uniform(-100.0f, 100.0f);
  auto out = dev().zeros(DType::bf16, {3 * B});
  kernel(kFile, "full_bf16").launch(dev(), {1}, {v, out}, {{"BLOCK", B}});
  std::vector<uint16_t> want(3 * B);
  for (int64_t i = 0; i < B; ++i) {
    want[i] = floatToBf16(0.1f);
    want[B + i] = floatToBf16(v);
    want[2 * B + i] = floatToBf16(static_cast<float>(i - 3));
  }
  expectEqual(out.download<uint16_t>(), want, "tl.full(..., bf16) bit patterns");
}

//===----------------------------------------------------------------------===//
// Atomics
//===----------------------------------------------------------------------===//

TEST(CoverageGapsData, FloatAtomicAddFp16Bf16Fp64) {
  E2E_RNG(rng);
  const int64_t n = 1000, NBINS = 8;
  // Small integers: every partial sum is exact in fp16 and bf16, so the
  // result does not depend on the order of the additions.
  for (DType dt : {DType::fp16, DType::bf16}) {
    SCOPED_TRACE(tessera::dtype_name(dt));
    std::vector<float> x(n);
    for (auto& v : x) v = static_cast<float>(rng.integer(-1, 1));
    auto tx = uploadAs(dt, x, {n});
    auto bins = dev().zeros(dt, {NBINS});
    kernel(kFile, "atomic_add_float").launch(dev(), {cdiv(n, 128)}, {tx, bins, n}, {{"NBINS", NBINS}, {"BLOCK", int64_t(128)}});
    std::vector<float> want(NBINS, 0.0f);
    for (int64_t i = 0; i < n; ++i) want[i % NBINS] += x[i];
    expectSameBits(downloadFloats(bins), want, "atomic_add bins");
  }
  std::vector<double> xd(n);
  for (auto& v : xd) v = static_cast<double>(rng.integer(-8192, 8192)) / 1024.0;  // exact sums
  auto td = dev().upload(xd, {n});
  auto bd = dev().zeros(DType::fp64, {NBINS});
  kernel(kFile, "atomic_add_float").launch(dev(), {cdiv(n, 128)}, {td, bd, n}, {{"NBINS", NBINS}, {"BLOCK", int64_t(128)}});
  std::vector<double> wd(NBINS, 0.0);
  for (int64_t i = 0; i < n; ++i) wd[i % NBINS] += xd[i];
  expectEqual(bd.download<double>(), wd, "fp64 atomic_add bins");
}

TEST(CoverageGapsData, Fp32AtomicCasOneWinnerPerSlot) {
  const int64_t programs = 40, slots = 8;
  auto ts = dev().upload(std::vector<float>(slots, -1.0f), {slots});
  auto won = dev().zeros(DType::i32, {programs});
  auto old = dev().zeros(DType::fp32, {programs});
  kernel(kFile, "atomic_cas_float").launch(dev(), {programs}, {ts, won, old}, {{"NSLOTS", slots}});
  auto s = ts.download<float>();
  auto w = won.download<int32_t>();
  auto o = old.download<float>();
  for (int64_t slot = 0; slot < slots; ++slot) {
    int winners = 0;
    for (int64_t p = slot; p < programs; p += slots) {
      if (w[p]) {
        ++winners;
        EXPECT_EQ(s[slot], p * 0.5f + 0.25f) << "slot " << slot << " holds the winner's value";
        EXPECT_EQ(o[p], -1.0f) << "the winner saw the initial value";
      } else {
        EXPECT_EQ(o[p], s[slot]) << "program " << p << " saw the winner's value";
      }
    }
    EXPECT_EQ(winners, 1) << "slot " << slot;
  }
}

TEST(CoverageGapsData, AtomicsWithSemAndScope) {
  E2E_RNG(rng);
  const int64_t n = 300, B = 128, programs = cdiv(n, B);
  auto x = rng.ints<int32_t>(n, -1000000, 1000000);
  std::vector<int32_t> init(6 + n + programs, 0);
  init[1] = std::numeric_limits<int32_t>::min();
  init[2] = std::numeric_limits<int32_t>::max();
  init[5] = -1;
  auto tx = dev().upload(x, {n});
  auto acc = dev().upload(init, {static_cast<int64_t>(init.size())});
  kernel(kFile, "atomics_with_sem_scope").launch(dev(), {programs}, {acc, tx, n}, {{"BLOCK", B}});
  std::vector<int32_t> want(init);
  for (int64_t i = 0; i < n; ++i) {
    want[0] += x[i];
    want[1] = std::max(want[1], x[i]);
    want[2] = std::min(want[2], x[i]);
    want[3] |= x[i] & 0xFF0;
    want[4] ^= x[i];
    want[5] &= x[i] | 0x7FFF0000;
    want[6 + i] = x[i];
  }
  for (int64_t p = 0; p < programs; ++p) want[6 + n + p] = static_cast<int32_t>(p + 1);
  expectEqual(acc.download<int32_t>(), want, "add, max, min, or, xor, and, xchg, cas with sem/scope");
}

TEST(CoverageGapsData, Fp16AtomicAddReturnsEachPartialSumOnce) {
  const int64_t B = 64;
  auto acc = dev().zeros(DType::fp16, {1});
  auto old = dev().zeros(DType::fp16, {B});
  kernel(kFile, "atomic_tickets_fp16").launch(dev(), {1}, {acc, old}, {{"BLOCK", B}});
  auto got = downloadFloats(old);
  std::sort(got.begin(), got.end());
  std::vector<float> want(B);
  for (int64_t i = 0; i < B; ++i) want[i] = static_cast<float>(i);
  expectSameBits(got, want, "old values of 64 fp16 atomic adds of 1");
  EXPECT_EQ(downloadFloats(acc)[0], 64.0f);
}

TEST(CoverageGapsData, Fp64AtomicMaxMin) {
  E2E_RNG(rng);
  const int64_t n = 500;
  auto x = rng.doubles(n, -1e10, 1e10);
  auto tx = dev().upload(x, {n});
  auto acc = dev().upload(std::vector<double>{-INFINITY, INFINITY}, {2});
  kernel(kFile, "atomic_minmax_fp64").launch(dev(), {cdiv(n, 128)}, {tx, acc, n}, {{"BLOCK", int64_t(128)}});
  auto got = acc.download<double>();
  EXPECT_EQ(got[0], *std::max_element(x.begin(), x.end()));
  EXPECT_EQ(got[1], *std::min_element(x.begin(), x.end()));
}

//===----------------------------------------------------------------------===//
// Debugging
//===----------------------------------------------------------------------===//

TEST(CoverageGapsData, DevicePrintHex) {
  E2E_RNG(rng);
  const int64_t B = 8;
  auto x = rng.ints<int32_t>(B, INT32_MIN, INT32_MAX);
  std::vector<int64_t> y(B);
  for (auto& v : y) v = static_cast<int64_t>(rng.engine()());
  x[0] = 255;
  x[1] = -1;
  auto tx = dev().upload(x, {B}), ty = dev().upload(y, {B});
  std::string printed = captureStdout([&] { kernel(kFile, "print_hex").launch(dev(), {1}, {tx, ty}, {{"BLOCK", B}}); });
  auto collect = [&](const std::string& key) {
    std::vector<std::string> vals;
    std::istringstream in(printed);
    std::string line;
    while (std::getline(in, line))
      if (auto at = line.find(key); at != std::string::npos) vals.push_back(line.substr(at + key.size()));
    std::sort(vals.begin(), vals.end());
    return vals;
  };
  std::vector<std::string> wx, wy;
  char buf[40];
  for (int32_t v : x) {
    std::snprintf(buf, sizeof buf, "0x%08x", static_cast<uint32_t>(v));
    wx.push_back(buf);
  }
  for (int64_t v : y) {
    std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
    wy.push_back(buf);
  }
  std::sort(wx.begin(), wx.end());
  std::sort(wy.begin(), wy.end());
  EXPECT_EQ(collect("hx: "), wx) << "stdout was:\n" << printed;
  EXPECT_EQ(collect("hy: "), wy) << "stdout was:\n" << printed;
}

TEST(CoverageGapsData, DeviceAssertMaskInDebugMode) {
  E2E_RNG(rng);
  const int64_t n = 100, B = 64;
  auto x = rng.ints<int32_t>(n, 1, 1000);
  auto tx = dev().upload(x, {n});
  auto out = dev().zeros(DType::i32, {n});
  // The masked-off lanes of the tail read -5; the mask must keep them quiet.
  kernel(kFile, "masked_assert").launch(dev(), {cdiv(n, B)}, {tx, out, n}, {{"BLOCK", B}});
  std::vector<int32_t> want(x);
  for (auto& v : want) v += 1;
  expectEqual(out.download<int32_t>(), want, "x + 1");

  x[rng.integer(0, n - 1)] = -3;  // a live lane fails
  auto bad = dev().upload(x, {n});
  expectDeviceAssertFailure(
      [&] { kernel(kFile, "masked_assert").launch(dev(), {cdiv(n, B)}, {bad, out, n}, {{"BLOCK", B}}); },
      {"x must be positive"});
}

}  // namespace
