//===- tests/unit/interpreter/FloatTest.cpp - Exact small-float formats ---===//
//
// fp16/bf16/fp8 conversions checked exhaustively against references written
// here from the format definitions: decoding every bit pattern, round trips,
// and round-to-nearest-even / toward-zero at every midpoint between
// neighbouring representable values. Plus fp8 saturation and casts to ints.
//
//===----------------------------------------------------------------------===//

#include <cmath>
#include <cstring>

#include "TestUtil.h"

namespace tessera::interp::test {
namespace {

/// A kernel converting N elements: out[i] = OP(in[i]) from `src` to `dst`.
std::string convKernel(const std::string& src, const std::string& dst, const std::string& op,
                       const std::string& attrs = "", int n = 1024) {
  std::string N = std::to_string(n);
  return "tt.func @conv(%a: !tt.ptr<" + src + ">, %o: !tt.ptr<" + dst + ">) attributes {kernel = true} {\n"
         "  %pid = tt.get_program_id {axis = 0} : i32\n"
         "  %cn = arith.constant {value = " + N + "} : i32\n"
         "  %base = arith.muli %pid, %cn : i32\n"
         "  %r = tt.make_range {end = " + N + ", start = 0} : tensor<" + N + "xi32>\n"
         "  %bs = tt.splat %base : tensor<" + N + "xi32>\n"
         "  %offs = arith.addi %bs, %r : tensor<" + N + "xi32>\n"
         "  %ap = tt.splat %a : tensor<" + N + "x!tt.ptr<" + src + ">>\n"
         "  %aq = tt.addptr %ap, %offs : tensor<" + N + "x!tt.ptr<" + src + ">>\n"
         "  %x = tt.load %aq : tensor<" + N + "x" + src + ">\n"
         "  %y = " + op + " %x " + attrs + " : tensor<" + N + "x" + dst + ">\n"
         "  %op = tt.splat %o : tensor<" + N + "x!tt.ptr<" + dst + ">>\n"
         "  %oq = tt.addptr %op, %offs : tensor<" + N + "x!tt.ptr<" + dst + ">>\n"
         "  tt.store %oq, %y\n"
         "  tt.return\n}\n";
}

/// Reference decoder of an IEEE-like format (optionally without inf: e4m3fn style).
double refDecode(uint32_t bits, int expBits, int manBits, int bias, bool ieee) {
  int total = 1 + expBits + manBits;
  bool neg = (bits >> (total - 1)) & 1;
  uint32_t e = (bits >> manBits) & ((1u << expBits) - 1);
  uint32_t m = bits & ((1u << manBits) - 1);
  uint32_t eAll = (1u << expBits) - 1;
  double v;
  if (ieee && e == eAll) v = m ? NAN : INFINITY;
  else if (!ieee && e == eAll && m == (1u << manBits) - 1) v = NAN;
  else if (e == 0) v = m * std::pow(2.0, 1 - bias - manBits);
  else v = (1.0 + m / std::pow(2.0, manBits)) * std::pow(2.0, int(e) - bias);
  return neg ? -v : v;
}

float asFloat(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

/// Decodes every pattern through the interpreter (extf to f32) and compares.
template <class S>
void checkDecodeAll(const std::string& type, int expBits, int manBits, int bias, bool ieee) {
  size_t count = size_t(1) << (sizeof(S) * 8);
  Buffer<S> in(count);
  Buffer<float> out(count);
  for (size_t i = 0; i < count; ++i) in[i] = S(i);
  launch(convKernel(type, "f32", "arith.extf"), "conv", {in.arg(), out.arg()}, {int64_t(count / 1024)});
  for (size_t i = 0; i < count; ++i) {
    double ref = refDecode(uint32_t(i), expBits, manBits, bias, ieee);
    if (std::isnan(ref)) ASSERT_TRUE(std::isnan(out[i])) << type << " bits " << i;
    else ASSERT_EQ(double(out[i]), ref) << type << " bits " << i;
  }
}

TEST(InterpreterFloat, DecodeEveryPattern) {
  checkDecodeAll<uint16_t>("f16", 5, 10, 15, true);
  checkDecodeAll<uint16_t>("bf16", 8, 7, 127, true);
}

/// Encodes, for every pair of neighbouring finite non-negative values (a, b)
/// of the format, a, b, the midpoint and points just around it, and checks
/// round-to-nearest-even (or toward zero). Values are given as f32 inputs.
template <class S>
void checkEncodeMidpoints(const std::string& type, int expBits, int manBits, int bias, bool ieee,
                          const std::string& attrs, bool rtz, int n = 1024) {
  std::vector<uint32_t> finite;  // non-negative finite patterns in increasing order
  uint32_t total = 1u << (expBits + manBits);
  for (uint32_t b = 0; b < total; ++b)
    if (std::isfinite(refDecode(b, expBits, manBits, bias, ieee))) finite.push_back(b);
  std::vector<float> inputs;
  std::vector<uint32_t> expected;
  auto add = [&](float x, uint32_t bits) { inputs.push_back(x); expected.push_back(bits); };
  for (size_t k = 0; k + 1 < finite.size(); ++k) {
    uint32_t a = finite[k], b = finite[k + 1];
    float fa = float(refDecode(a, expBits, manBits, bias, ieee));
    float fb = float(refDecode(b, expBits, manBits, bias, ieee));
    float mid = float((double(fa) + double(fb)) / 2);  // exact in f32 for these formats
    uint32_t even = (a & 1) ? b : a;
    add(fa, a);
    add(std::nextafter(mid, 0.0f), a);
    add(mid, rtz ? a : even);
    add(std::nextafter(mid, INFINITY), rtz ? a : b);
    add(-std::nextafter(mid, INFINITY), (rtz ? a : b) | (1u << (expBits + manBits)));
  }
  while (inputs.size() % n) add(0.0f, 0);
  Buffer<float> in(inputs);
  Buffer<S> out(inputs.size());
  launch(convKernel("f32", type, "arith.truncf", attrs, n), "conv", {in.arg(), out.arg()},
         {int64_t(inputs.size() / n)});
  for (size_t i = 0; i < inputs.size(); ++i)
    ASSERT_EQ(uint32_t(out[i]), expected[i]) << type << " input " << inputs[i] << " (" << attrs << ")";
}

TEST(InterpreterFloat, F16RoundToNearestEvenAtEveryMidpoint) {
  checkEncodeMidpoints<uint16_t>("f16", 5, 10, 15, true, "", false);
}
TEST(InterpreterFloat, F16RoundTowardZero) {
  checkEncodeMidpoints<uint16_t>("f16", 5, 10, 15, true, "{rounding = \"rtz\"}", true);
}
TEST(InterpreterFloat, BF16RoundToNearestEvenAtEveryMidpoint) {
  checkEncodeMidpoints<uint16_t>("bf16", 8, 7, 127, true, "", false);
}
TEST(InterpreterFloat, FP8RoundToNearestEven) {
  checkEncodeMidpoints<uint8_t>("f8E4M3FN", 4, 3, 7, false, "", false);
  checkEncodeMidpoints<uint8_t>("f8E5M2", 5, 2, 15, true, "", false);
}

TEST(InterpreterFloat, FP8DecodeAndSaturation) {
  {
    Buffer<uint8_t> in(1024);
    Buffer<float> out(1024);
    for (int i = 0; i < 1024; ++i) in[i] = uint8_t(i);
    launch(convKernel("f8E4M3FN", "f32", "arith.extf"), "conv", {in.arg(), out.arg()}, {1});
    for (int i = 0; i < 256; ++i) {
      double ref = refDecode(i, 4, 3, 7, false);
      if (std::isnan(ref)) EXPECT_TRUE(std::isnan(out[i])) << i;
      else EXPECT_EQ(out[i], ref) << i;
    }
    EXPECT_EQ(out[0x7e], 448.0f);
  }
  std::vector<float> values = {1000.0f, -1e9f, 448.0f, 464.0f, INFINITY, -INFINITY, 60000.0f, 1e-9f, -0.0f};
  std::vector<float> padded = values;
  padded.resize(1024, 0.0f);
  Buffer<float> in(padded);
  Buffer<uint8_t> e4(1024), e5(1024);
  launch(convKernel("f32", "f8E4M3FN", "arith.truncf"), "conv", {in.arg(), e4.arg()}, {1});
  launch(convKernel("f32", "f8E5M2", "arith.truncf"), "conv", {in.arg(), e5.arg()}, {1});
  // E4M3FN: finite overflow and inf saturate to +-448 (0x7e / 0xfe).
  EXPECT_EQ(e4[0], 0x7e);
  EXPECT_EQ(e4[1], 0xfe);
  EXPECT_EQ(e4[2], 0x7e);
  EXPECT_EQ(e4[3], 0x7e);
  EXPECT_EQ(e4[4], 0x7e);
  EXPECT_EQ(e4[5], 0xfe);
  // E5M2: finite overflow saturates to 57344 (0x7b), inf stays inf.
  EXPECT_EQ(e5[6], 0x7b);
  EXPECT_EQ(e5[4], 0x7c);
  EXPECT_EQ(e5[5], 0xfc);
  EXPECT_EQ(e5[7], 0x00);  // underflows to +0
  EXPECT_EQ(e5[8], 0x80);  // -0 keeps its sign
}

TEST(InterpreterFloat, F64ToF16RoundsOnce) {
  // 1 + 2^-11 + 2^-40 is just above an f16 tie; rounding through f32 would
  // drop 2^-40 and round the tie to even (1.0).
  std::vector<double> v(1024, 0.0);
  v[0] = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  v[1] = 65519.99;   // below the overflow threshold
  v[2] = 65520.0;    // rounds to inf
  v[3] = std::ldexp(1.0, -25) + std::ldexp(1.0, -60);  // just above half the smallest subnormal
  Buffer<double> in(v);
  Buffer<uint16_t> out(1024);
  launch(convKernel("f64", "f16", "arith.truncf"), "conv", {in.arg(), out.arg()}, {1});
  EXPECT_EQ(out[0], 0x3c01);
  EXPECT_EQ(out[1], 0x7bff);
  EXPECT_EQ(out[2], 0x7c00);
  EXPECT_EQ(out[3], 0x0001);
}

TEST(InterpreterFloat, FloatToIntTruncatesAndSaturates) {
  std::vector<float> v(1024, 0.0f);
  std::vector<float> head = {-7.9f, 7.9f, NAN, 3e9f, -3e9f, 2147483520.0f, -0.5f, 1e30f};
  std::copy(head.begin(), head.end(), v.begin());
  Buffer<float> in(v);
  Buffer<int32_t> si(1024), ui(1024);
  launch(convKernel("f32", "i32", "arith.fptosi"), "conv", {in.arg(), si.arg()}, {1});
  launch(convKernel("f32", "i32", "arith.fptoui"), "conv", {in.arg(), ui.arg()}, {1});
  std::vector<int32_t> refS = {-7, 7, 0, INT32_MAX, INT32_MIN, 2147483520, 0, INT32_MAX};
  std::vector<uint32_t> refU = {0, 7, 0, 3000000000u, 0, 2147483520u, 0, UINT32_MAX};
  for (size_t i = 0; i < head.size(); ++i) {
    EXPECT_EQ(si[i], refS[i]) << head[i];
    EXPECT_EQ(uint32_t(ui[i]), refU[i]) << head[i];
  }
}

TEST(InterpreterFloat, Int64ToBF16RoundsOnce) {
  // 2^30 + 2^22 + 1: rounding through f32 would make an exact bf16 tie.
  std::vector<int64_t> v(1024, 0);
  v[0] = (1ll << 30) + (1ll << 22) + 1;
  v[1] = -((1ll << 62) + (1ll << 54) + 1);
  Buffer<int64_t> in(v);
  Buffer<uint16_t> out(1024);
  launch(convKernel("i64", "bf16", "arith.sitofp"), "conv", {in.arg(), out.arg()}, {1});
  // 2^30 * (1 + 2^-7) rounds up to 2^30 * (1 + 2^-6) = bits 0x4e81.
  EXPECT_EQ(out[0], 0x4e81);
  EXPECT_EQ(out[1], 0xde81);
}

TEST(InterpreterFloat, HalfArithmeticRoundsOnce) {
  // fp16 a/b computed exactly and rounded once, checked against f64 division
  // rounded by the reference midpoint rule (RNE via nearbyint on the scaled value).
  const char* text = R"(
tt.func @k(%a: !tt.ptr<f16>, %b: !tt.ptr<f16>, %o: !tt.ptr<f16>) attributes {kernel = true} {
  %r = tt.make_range {end = 1024, start = 0} : tensor<1024xi32>
  %ap = tt.splat %a : tensor<1024x!tt.ptr<f16>>
  %aq = tt.addptr %ap, %r : tensor<1024x!tt.ptr<f16>>
  %bp = tt.splat %b : tensor<1024x!tt.ptr<f16>>
  %bq = tt.addptr %bp, %r : tensor<1024x!tt.ptr<f16>>
  %x = tt.load %aq : tensor<1024xf16>
  %y = tt.load %bq : tensor<1024xf16>
  %z = arith.divf %x, %y : tensor<1024xf16>
  %op = tt.splat %o : tensor<1024x!tt.ptr<f16>>
  %oq = tt.addptr %op, %r : tensor<1024x!tt.ptr<f16>>
  tt.store %oq, %z
  tt.return
}
)";
  std::uniform_int_distribution<int> bits(0x0400, 0x7bff);  // positive normals
  Buffer<uint16_t> a(1024), b(1024), o(1024);
  for (int i = 0; i < 1024; ++i) a[i] = uint16_t(bits(rng())), b[i] = uint16_t(bits(rng()));
  launch(text, "k", {a.arg(), b.arg(), o.arg()}, {1});
  for (int i = 0; i < 1024; ++i) {
    double q = refDecode(a[i], 5, 10, 15, true) / refDecode(b[i], 5, 10, 15, true);
    // Reference rounding of q to f16 (normal/subnormal range, RNE).
    double ref;
    if (q >= 65520.0) ref = INFINITY;
    else {
      int e = std::max(std::ilogb(q), -14);
      double ulp = std::ldexp(1.0, e - 10);
      ref = std::nearbyint(q / ulp) * ulp;
      if (ref >= 65520.0) ref = INFINITY;
    }
    ASSERT_EQ(refDecode(o[i], 5, 10, 15, true), ref) << a[i] << " / " << b[i];
  }
}

}  // namespace
}  // namespace tessera::interp::test
