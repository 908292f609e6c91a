//===- DotScaledTest.cpp - tl.dot_scaled ------------------------------------===//
//
// kernels/dot_scaled.py against a reference computed here from the formats'
// definitions: e2m1 codes (low nibble first, packed along K or along M/N),
// e4m3 / e5m2 bytes (as fp8 or uint8 tensors), bf16 / fp16; each value times
// 2^(scale - 127) per group of 16 or 32 along K (scale 0 = 2^-127, 255 =
// NaN), rounded to the compute type (bf16, fp16 when a format is fp16) as
// Triton's decomposition does, then summed in double; the kernel's fp32
// accumulation is held to 3e-5 of the sum of |terms|. 2-D with and without
// acc, every format, batched 3-D, and a K loop over masked tiles (odd M,
// partial N blocks) at a wgmma tile.
//
//===----------------------------------------------------------------------===//

#include <cmath>

#include "e2e/Harness.h"

using namespace e2e;
using tessera::DType;

namespace {

const char* kFile = "dot_scaled.py";

float e2m1(int code) {
  static const float mag[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  return (code & 8) ? -mag[code & 7] : mag[code & 7];
}

/// An operand: its stored elements and its logical [rows, cols] values.
struct Operand {
  std::string fmt;
  std::vector<uint8_t> bytes;    ///< 8-bit formats
  std::vector<uint16_t> halves;  ///< bf16 / fp16 bits
  int64_t storedRows = 0, storedCols = 0;
  std::vector<float> values;     ///< logical, row-major
};

/// `packAxis`: for e2m1, the logical axis the byte pairs run along (0: rows, 1: cols).
Operand makeOperand(Rng& rng, const std::string& fmt, int64_t rows, int64_t cols, int packAxis) {
  Operand o;
  o.fmt = fmt;
  o.values.assign(rows * cols, 0.0f);
  if (fmt == "e2m1") {
    o.storedRows = packAxis == 0 ? rows / 2 : rows;
    o.storedCols = packAxis == 1 ? cols / 2 : cols;
    o.bytes = rng.ints<uint8_t>(o.storedRows * o.storedCols, 0, 255);
    for (int64_t r = 0; r < o.storedRows; ++r)
      for (int64_t c = 0; c < o.storedCols; ++c) {
        uint8_t b = o.bytes[r * o.storedCols + c];
        int64_t r0 = packAxis == 0 ? 2 * r : r, c0 = packAxis == 1 ? 2 * c : c;
        int64_t r1 = packAxis == 0 ? r0 + 1 : r0, c1 = packAxis == 1 ? c0 + 1 : c0;
        o.values[r0 * cols + c0] = e2m1(b & 15);
        o.values[r1 * cols + c1] = e2m1(b >> 4);
      }
    return o;
  }
  o.storedRows = rows;
  o.storedCols = cols;
  if (fmt == "e4m3" || fmt == "e5m2") {
    o.bytes = rng.ints<uint8_t>(rows * cols, 0, 255);
    for (size_t i = 0; i < o.bytes.size(); ++i) {
      uint8_t& b = o.bytes[i];
      if (fmt == "e4m3" && (b & 0x7f) == 0x7f) b ^= 1;            // not NaN
      if (fmt == "e5m2" && (b & 0x7c) == 0x7c) b &= 0xf3;         // not inf / NaN
      o.values[i] = fmt == "e4m3" ? fp8e4nvToFloat(b) : fp8e5ToFloat(b);
    }
    return o;
  }
  auto f = rng.floats(rows * cols, -3.0f, 3.0f);
  o.halves.resize(f.size());
  for (size_t i = 0; i < f.size(); ++i) {
    o.halves[i] = fmt == "bf16" ? floatToBf16(f[i]) : floatToHalf(f[i]);
    o.values[i] = fmt == "bf16" ? bf16ToFloat(o.halves[i]) : halfToFloat(o.halves[i]);
  }
  return o;
}

tessera::Tensor upload(const Operand& o, bool fp8Storage) {
  std::vector<int64_t> shape = {o.storedRows, o.storedCols};
  if (!o.halves.empty()) return dev().upload(o.halves.data(), o.fmt == "bf16" ? DType::bf16 : DType::fp16, shape);
  DType t = !fp8Storage || o.fmt == "e2m1" ? DType::u8 : o.fmt == "e4m3" ? DType::fp8e4nv : DType::fp8e5;
  return dev().upload(o.bytes.data(), t, shape);
}

float toCompute(float x, bool fp16) { return fp16 ? roundHalf(x) : roundBf16(x); }

/// The operand's values in the compute type, each group of G along K scaled.
/// `kAxis`: 1 for lhs ([M, K], scales [M, K/G]), 0 for rhs ([K, N], scales [N, K/G]).
std::vector<float> scaled(const Operand& o, int64_t rows, int64_t cols, const std::vector<uint8_t>* scale, int64_t G,
                          int kAxis, bool fp16) {
  std::vector<float> out(rows * cols);
  int64_t K = kAxis == 1 ? cols : rows;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      float v = toCompute(o.values[r * cols + c], fp16);
      if (scale) {
        int64_t k = kAxis == 1 ? c : r, other = kAxis == 1 ? r : c;
        uint8_t s = (*scale)[other * (K / G) + k / G];
        float f = toCompute(s == 0 ? std::ldexp(1.0f, -127) : std::ldexp(1.0f, s - 127), fp16);
        v = s == 255 ? NAN : toCompute(v * f, fp16);
      }
      out[r * cols + c] = v;
    }
  return out;
}

/// want[m, n] = acc[m, n] + sum over k of a[m, k] b[k, n] in double, and
/// the tolerance of an fp32 accumulation: 3e-5 of the sum of |terms|.
void referenceProduct(const std::vector<float>& av, const std::vector<float>& bv, int64_t M, int64_t N, int64_t K,
                      float* want, double* tol, const float* acc = nullptr) {
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double sum = acc ? acc[m * N + n] : 0.0, mag = std::fabs(sum);
      for (int64_t k = 0; k < K; ++k) {
        double t = static_cast<double>(av[m * K + k]) * bv[k * N + n];
        sum += t;
        mag += std::fabs(t);
      }
      want[m * N + n] = static_cast<float>(sum);
      tol[m * N + n] = 3e-5 * mag + 1e-30;
    }
}

struct Case {
  std::string af, bf;
  bool aScaled, bScaled, aKpack = true, bKpack = true, fp8Storage = false, withAcc = false;
  int64_t G = 32;
  bool nanScale = false;
};

void runCase(Rng& rng, const Case& cs) {
  const int64_t M = 32, N = 32, K = 64;
  SCOPED_TRACE(cs.af + " x " + cs.bf + " G=" + std::to_string(cs.G));
  Operand a = makeOperand(rng, cs.af, M, K, cs.aKpack ? 1 : 0);
  Operand b = makeOperand(rng, cs.bf, K, N, cs.bKpack ? 0 : 1);
  auto as = rng.ints<uint8_t>(M * (K / cs.G), 118, 136), bs = rng.ints<uint8_t>(N * (K / cs.G), 118, 136);
  as[3] = 0;  // 2^-127
  if (cs.nanScale) as[K / cs.G + 1] = 255;  // row 1, group 1: NaN
  bool fp16 = cs.af == "fp16" || cs.bf == "fp16";
  auto av = scaled(a, M, K, cs.aScaled ? &as : nullptr, cs.G, 1, fp16);
  auto bv = scaled(b, K, N, cs.bScaled ? &bs : nullptr, cs.G, 0, fp16);
  auto acc = rng.floats(M * N, -4.0f, 4.0f);
  std::vector<float> want(M * N);
  std::vector<double> tol(M * N);
  referenceProduct(av, bv, M, N, K, want.data(), tol.data(), cs.withAcc ? acc.data() : nullptr);
  auto c = cs.withAcc ? dev().upload(acc, {M, N}) : dev().zeros(DType::fp32, {M, N});
  auto scaleA = dev().upload(as, {M, K / cs.G}), scaleB = dev().upload(bs, {N, K / cs.G});
  kernel(kFile, "dot_scaled_2d")
      .launch(dev(), {1}, {upload(a, cs.fp8Storage), scaleA, upload(b, cs.fp8Storage), scaleB, c},
              {{"M", M}, {"N", N}, {"K", K}, {"AF", cs.af}, {"BF", cs.bf}, {"AR", a.storedRows}, {"AC", a.storedCols},
               {"BR", b.storedRows}, {"BC", b.storedCols}, {"G", cs.G}, {"A_SCALED", int64_t(cs.aScaled)},
               {"B_SCALED", int64_t(cs.bScaled)}, {"A_KPACK", int64_t(cs.aKpack)}, {"B_KPACK", int64_t(cs.bKpack)},
               {"FAST", int64_t(0)}, {"WITH_ACC", int64_t(cs.withAcc)}});
  expectWithin(c.download<float>(), want, tol);
}

TEST(DotScaled, FormatsScalesAndPacking) {
  E2E_RNG(rng);
  std::vector<Case> cases;
  cases.push_back({"e2m1", "e4m3", true, true, true, true, false, true});  // acc, uint8 e4m3
  Case fp8;  // float8 tensors, lhs scaled only, groups of 16
  fp8.af = "e4m3", fp8.bf = "e5m2", fp8.aScaled = true, fp8.bScaled = false, fp8.fp8Storage = true, fp8.G = 16;
  cases.push_back(fp8);
  cases.push_back({"e2m1", "bf16", true, false, false, true});   // lhs packed along M, bf16 unscaled
  cases.push_back({"bf16", "e2m1", false, true, true, false});   // rhs packed along N, rhs scaled
  cases.push_back({"fp16", "e4m3", false, true});                // computed in fp16
  Case nan;
  nan.af = "e4m3", nan.bf = "e4m3", nan.aScaled = true, nan.bScaled = true, nan.nanScale = true;
  cases.push_back(nan);
  for (const Case& cs : cases) runCase(rng, cs);
}

TEST(DotScaled, Batched3D) {
  E2E_RNG(rng);
  const int64_t B = 2, M = 16, N = 16, K = 64, G = 32;
  std::vector<uint8_t> aBytes, bBytes, as, bs;
  std::vector<float> want(B * M * N);
  std::vector<double> tol(B * M * N);
  for (int64_t z = 0; z < B; ++z) {
    Operand a = makeOperand(rng, "e4m3", M, K, -1), b = makeOperand(rng, "e2m1", K, N, 0);
    auto sa = rng.ints<uint8_t>(M * (K / G), 120, 134), sb = rng.ints<uint8_t>(N * (K / G), 120, 134);
    auto av = scaled(a, M, K, &sa, G, 1, false), bv = scaled(b, K, N, &sb, G, 0, false);
    aBytes.insert(aBytes.end(), a.bytes.begin(), a.bytes.end());
    bBytes.insert(bBytes.end(), b.bytes.begin(), b.bytes.end());
    as.insert(as.end(), sa.begin(), sa.end());
    bs.insert(bs.end(), sb.begin(), sb.end());
    referenceProduct(av, bv, M, N, K, &want[z * M * N], &tol[z * M * N]);
  }
  auto c = dev().zeros(DType::fp32, {B, M, N});
  kernel(kFile, "dot_scaled_3d")
      .launch(dev(), {1},
              {dev().upload(aBytes.data(), DType::fp8e4nv, {B, M, K}), dev().upload(as, {B, M, K / G}),
               dev().upload(bBytes, {B, K / 2, N}), dev().upload(bs, {B, N, K / G}), c},
              {{"BATCH", B}, {"M", M}, {"N", N}, {"K", K}, {"G", G}});
  expectWithin(c.download<float>(), want, tol);
}

TEST(DotScaled, PipelinedLoopOverMaskedTiles) {
  E2E_RNG(rng);
  const int64_t M = 100, N = 80, K = 256, BM = 64, BN = 64, BK = 64, G = 32;
  for (auto [af, bf] : {std::pair<std::string, std::string>{"e4m3", "e2m1"}, {"e2m1", "e4m3"}}) {
    SCOPED_TRACE(af + " x " + bf);
    Operand a = makeOperand(rng, af, M, K, 1), b = makeOperand(rng, bf, K, N, 0);
    auto as = rng.ints<uint8_t>(M * (K / G), 120, 134), bs = rng.ints<uint8_t>(N * (K / G), 120, 134);
    auto av = scaled(a, M, K, &as, G, 1, false), bv = scaled(b, K, N, &bs, G, 0, false);
    std::vector<float> want(M * N);
    std::vector<double> tol(M * N);
    referenceProduct(av, bv, M, N, K, want.data(), tol.data());
    auto c = dev().zeros(DType::fp32, {M, N});
    tessera::LaunchOptions o;
    o.num_warps = 4;
    o.num_stages = 3;
    kernel(kFile, "dot_scaled_loop")
        .launch(dev(), {cdiv(M, BM), cdiv(N, BN)},
                {upload(a, false), dev().upload(as, {M, K / G}), upload(b, false), dev().upload(bs, {N, K / G}), c, M, N,
                 K},
                {{"AF", af}, {"BF", bf}, {"BM", BM}, {"BN", BN}, {"BK", BK}}, o);
    expectWithin(c.download<float>(), want, tol);
  }
}

}  // namespace
