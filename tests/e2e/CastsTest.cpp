//===- CastsTest.cpp - Casts, narrow floats, promotion, integer division --===//
//
// kernels/casts.py: fp32 -> fp16/bf16 with both roundings (bit-exact against
// the harness's own encoders), fp8 e4m3/e5m2 in both directions, bitcasts,
// integer truncation/extension, float<->int, the result dtypes of mixed
// arithmetic (observed through wrap-around and rounding), and C-style
// truncating `//` and `%` with negative operands.
//
//===----------------------------------------------------------------------===//

#include "e2e/Harness.h"

using namespace e2e;
using tessera::DType;

namespace {

const char* kFile = "casts.py";


TEST(Casts, Fp32ToFp16AndBf16BothRoundings) {
  E2E_RNG(rng);
  int64_t n = 2500;
  // Magnitudes from fp16 subnormals to beyond fp16's range.
  auto x = rng.wideFloats(n, -26, 18);
  x[0] = 65520.0f;  // rounds to inf (rtne) / 65504 (rtz)
  x[1] = -0.0f;
  auto tx = dev().upload(x, {n});
  auto hRn = dev().zeros(DType::fp16, {n}), hRz = dev().zeros(DType::fp16, {n});
  auto bRn = dev().zeros(DType::bf16, {n}), bRz = dev().zeros(DType::bf16, {n});
  auto back = dev().zeros(DType::fp32, {n});
  kernel(kFile, "narrow_floats").launch(dev(), {cdiv(n, 512)}, {tx, hRn, hRz, bRn, bRz, back, n},
                                        {{"BLOCK", int64_t(512)}});
  std::vector<uint16_t> whRn(n), whRz(n), wbRn(n), wbRz(n);
  std::vector<float> wBack(n);
  for (int64_t i = 0; i < n; ++i) {
    whRn[i] = floatToHalf(x[i]);
    whRz[i] = floatToHalf(x[i], true);
    wbRn[i] = floatToBf16(x[i]);
    wbRz[i] = floatToBf16(x[i], true);
    wBack[i] = halfToFloat(whRn[i]) * 2.0f;
  }
  expectEqual(hRn.download<uint16_t>(), whRn, "fp16 rtne bits");
  expectEqual(hRz.download<uint16_t>(), whRz, "fp16 rtz bits");
  expectEqual(bRn.download<uint16_t>(), wbRn, "bf16 rtne bits");
  expectEqual(bRz.download<uint16_t>(), wbRz, "bf16 rtz bits");
  expectSameBits(back.download<float>(), wBack, "fp16 -> fp32");
}

TEST(Casts, Fp8E4nvAndE5BothDirections) {
  E2E_RNG(rng);
  int64_t n = 777;
  // Inside both formats' finite ranges (no saturation questions), down to
  // their subnormals.
  auto x = rng.wideFloats(n, -12, 8);
  for (auto& v : x) v = std::max(-440.0f, std::min(440.0f, v));
  std::vector<uint8_t> e4Bits(n), e5Bits(n);
  for (int64_t i = 0; i < n; ++i) {
    e4Bits[i] = static_cast<uint8_t>(rng.integer(0, 255));
    if ((e4Bits[i] & 0x7f) == 0x7f) e4Bits[i] = 0x3c;  // skip NaN encodings
    e5Bits[i] = static_cast<uint8_t>(rng.integer(0, 255));
    if ((e5Bits[i] & 0x7c) == 0x7c) e5Bits[i] = 0x41;  // skip inf/NaN
  }
  auto tx = dev().upload(x, {n});
  auto e4Out = dev().zeros(DType::fp8e4nv, {n}), e5Out = dev().zeros(DType::fp8e5, {n});
  auto e4In = dev().upload(e4Bits.data(), DType::fp8e4nv, {n});
  auto e5In = dev().upload(e5Bits.data(), DType::fp8e5, {n});
  auto e4Up = dev().zeros(DType::fp32, {n}), e5Up = dev().zeros(DType::fp32, {n});
  kernel(kFile, "fp8_conversions")
      .launch(dev(), {cdiv(n, 128)}, {tx, e4Out, e5Out, e4In, e5In, e4Up, e5Up, n}, {{"BLOCK", int64_t(128)}});
  std::vector<uint8_t> we4(n), we5(n);
  std::vector<float> wUp4(n), wUp5(n);
  for (int64_t i = 0; i < n; ++i) {
    we4[i] = floatToFp8e4nv(x[i]);
    we5[i] = floatToFp8e5(x[i]);
    wUp4[i] = fp8e4nvToFloat(e4Bits[i]);
    wUp5[i] = fp8e5ToFloat(e5Bits[i]);
  }
  expectEqual(e4Out.download<uint8_t>(), we4, "fp32 -> fp8e4nv");
  expectEqual(e5Out.download<uint8_t>(), we5, "fp32 -> fp8e5");
  expectSameBits(e4Up.download<float>(), wUp4, "fp8e4nv -> fp32");
  expectSameBits(e5Up.download<float>(), wUp5, "fp8e5 -> fp32");
}

TEST(Casts, Bitcast) {
  E2E_RNG(rng);
  int64_t n = 333;
  auto x = rng.wideFloats(n, -40, 40);
  auto tx = dev().upload(x, {n});
  auto bits = dev().zeros(DType::i32, {n});
  auto neg = dev().zeros(DType::fp32, {n});
  kernel(kFile, "reinterpret_bits").launch(dev(), {cdiv(n, 64)}, {tx, bits, neg, n}, {{"BLOCK", int64_t(64)}});
  std::vector<int32_t> wBits(n);
  std::vector<float> wNeg(n);
  for (int64_t i = 0; i < n; ++i) {
    wBits[i] = static_cast<int32_t>(floatBits(x[i]));
    wNeg[i] = -x[i];
  }
  expectEqual(bits.download<int32_t>(), wBits, "fp32 bits as int32");
  expectSameBits(neg.download<float>(), wNeg, "sign bit flipped through uint32");
}

TEST(Casts, IntegerAndFloatIntegerCasts) {
  E2E_RNG(rng);
  int64_t n = 1100;
  auto v = rng.ints<int32_t>(n, -3000000, 3000000);
  auto f = rng.floats(n, -1000, 1000);
  for (int64_t i = 0; i < n; i += 7) f[i] = 0.0f;
  auto tv = dev().upload(v, {n});
  auto tf = dev().upload(f, {n});
  auto i8 = dev().zeros(DType::i8, {n}), u8e = dev().zeros(DType::i32, {n}), s8e = dev().zeros(DType::i32, {n});
  auto i2f = dev().zeros(DType::fp32, {n}), f2i = dev().zeros(DType::i32, {n}), f2b = dev().zeros(DType::i32, {n});
  kernel(kFile, "integer_casts")
      .launch(dev(), {cdiv(n, 256)}, {tv, tf, i8, u8e, s8e, i2f, f2i, f2b, n}, {{"BLOCK", int64_t(256)}});
  std::vector<int8_t> wi8(n);
  std::vector<int32_t> wu8(n), ws8(n), wf2i(n), wf2b(n);
  std::vector<float> wi2f(n);
  for (int64_t i = 0; i < n; ++i) {
    wi8[i] = static_cast<int8_t>(v[i]);
    wu8[i] = static_cast<uint8_t>(v[i]);
    ws8[i] = static_cast<int8_t>(v[i]);
    wi2f[i] = static_cast<float>(v[i]);
    wf2i[i] = static_cast<int32_t>(f[i]);  // truncation toward zero
    wf2b[i] = f[i] != 0.0f;
  }
  expectEqual(i8.download<int8_t>(), wi8, "int32 -> int8");
  expectEqual(u8e.download<int32_t>(), wu8, "-> uint8 -> int32 (zero-extend)");
  expectEqual(s8e.download<int32_t>(), ws8, "-> int8 -> int32 (sign-extend)");
  expectSameBits(i2f.download<float>(), wi2f, "int32 -> fp32");
  expectEqual(f2i.download<int32_t>(), wf2i, "fp32 -> int32");
  expectEqual(f2b.download<int32_t>(), wf2b, "fp32 -> int1");
}

TEST(Casts, PromotionResultTypesShowInValues) {
  E2E_RNG(rng);
  const int64_t B = 64;
  auto a = rng.ints<int8_t>(B, -128, 127);
  auto u = rng.ints<uint8_t>(B, 0, 255);
  auto w = rng.ints<int32_t>(B, -100000, 100000);
  a[0] = 127;  // 127 + 1 wraps in int8
  std::vector<float> h(B), bf(B);
  for (int64_t i = 0; i < B; ++i) {
    // Even integers in [1024, 60000]: h + 1 is a tie in fp16 and h * 2 may overflow.
    h[i] = roundHalf(static_cast<float>(2 * rng.integer(512, 30000)));
    bf[i] = 256.0f * static_cast<float>(rng.integer(1, 8));
  }
  auto ta = dev().upload(a, {B}), tu = dev().upload(u, {B}), tw = dev().upload(w, {B});
  auto th = uploadAs(DType::fp16, h, {B}), tbf = uploadAs(DType::bf16, bf, {B});
  auto outI = dev().zeros(DType::i32, {6 * B}), outF = dev().zeros(DType::fp32, {5 * B});
  kernel(kFile, "promotion_rules").launch(dev(), {1}, {ta, tu, th, tbf, tw, outI, outF}, {{"BLOCK", B}});
  std::vector<int32_t> wantI(6 * B);
  std::vector<float> wantF(5 * B);
  for (int64_t i = 0; i < B; ++i) {
    wantI[0 * B + i] = static_cast<int8_t>(a[i] + 1);
    wantI[1 * B + i] = static_cast<int8_t>(a[i] * 3);
    wantI[2 * B + i] = a[i] * w[i];
    wantI[3 * B + i] = static_cast<uint8_t>(u[i] + a[i]);
    wantI[4 * B + i] = u[i] >> 1;
    wantI[5 * B + i] = a[i] >> 1;
    wantF[0 * B + i] = roundHalf(h[i] + 1.0f);
    wantF[1 * B + i] = roundHalf(h[i] * 2.0f);
    wantF[2 * B + i] = h[i] / 3.0f;
    wantF[3 * B + i] = static_cast<float>(w[i]) / 3.0f;
    wantF[4 * B + i] = bf[i] + static_cast<float>(w[i]);
  }
  expectEqual(outI.download<int32_t>(), wantI, "integer promotion");
  auto gotF = outF.download<float>();
  // Exact parts (fp16 arithmetic, bf16 + int32 in fp32), then the divisions.
  std::vector<float> exactGot(gotF.begin(), gotF.begin() + 2 * B), exactWant(wantF.begin(), wantF.begin() + 2 * B);
  expectSameBits(exactGot, exactWant, "fp16 op literal stays fp16");
  std::vector<float> divGot(gotF.begin() + 2 * B, gotF.begin() + 4 * B),
      divWant(wantF.begin() + 2 * B, wantF.begin() + 4 * B);
  expectClose(divGot, divWant, 3e-7, 0, "fp16 / int and int / int are fp32 divisions");
  std::vector<float> bfGot(gotF.begin() + 4 * B, gotF.end()), bfWant(wantF.begin() + 4 * B, wantF.end());
  expectSameBits(bfGot, bfWant, "bf16 + int32 is fp32");
}

TEST(Casts, IntegerDivisionTruncatesTowardZero) {
  E2E_RNG(rng);
  int64_t n = 999;
  auto a = rng.ints<int32_t>(n, -5000, 5000);
  auto b = rng.ints<int32_t>(n, -60, 60);
  for (auto& v : b)
    if (v == 0) v = -3;
  a[0] = -7, b[0] = 2;
  a[1] = 7, b[1] = -2;
  auto ta = dev().upload(a, {n}), tb = dev().upload(b, {n});
  std::vector<tessera::Tensor> outs;
  for (int i = 0; i < 4; ++i) outs.push_back(dev().zeros(DType::i32, {n}));
  auto fm = dev().zeros(DType::fp32, {n});
  kernel(kFile, "int_div_mod")
      .launch(dev(), {cdiv(n, 128)}, {ta, tb, outs[0], outs[1], outs[2], outs[3], fm, n}, {{"BLOCK", int64_t(128)}});
  std::vector<int32_t> q(n), r(n), qc(n), rc(n);
  std::vector<float> wf(n);
  for (int64_t i = 0; i < n; ++i) {
    q[i] = a[i] / b[i];
    r[i] = a[i] % b[i];
    qc[i] = a[i] / -7;
    rc[i] = a[i] % -7;
    wf[i] = std::fmod(static_cast<float>(a[i]), static_cast<float>(b[i]));
  }
  EXPECT_EQ(outs[0].download<int32_t>()[0], -3) << "-7 // 2";
  EXPECT_EQ(outs[1].download<int32_t>()[0], -1) << "-7 % 2";
  expectEqual(outs[0].download<int32_t>(), q, "a // b");
  expectEqual(outs[1].download<int32_t>(), r, "a % b");
  expectEqual(outs[2].download<int32_t>(), qc, "a // -7");
  expectEqual(outs[3].download<int32_t>(), rc, "a % -7");
  expectSameBits(fm.download<float>(), wf, "float % is fmod");
}

TEST(Casts, Int64Arithmetic) {
  E2E_RNG(rng);
  const int64_t B = 32;
  auto a = rng.ints<int64_t>(B, -(int64_t(1) << 40), int64_t(1) << 40);
  int64_t shift = rng.integer(int64_t(1) << 33, int64_t(1) << 34);
  auto ta = dev().upload(a, {B});
  auto out = dev().zeros(DType::i64, {B});
  kernel(kFile, "int64_math").launch(dev(), {1}, {ta, out, shift}, {{"BLOCK", B}});
  std::vector<int64_t> want(B);
  for (int64_t i = 0; i < B; ++i) {
    int64_t big = a[i] * 1000003 + shift;
    want[i] = big / 97 - big % 97;
  }
  expectEqual(out.download<int64_t>(), want, "int64");
}

}  // namespace
