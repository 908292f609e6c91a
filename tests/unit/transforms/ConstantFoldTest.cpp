//===- ConstantFoldTest.cpp - Folding tables, built with OpBuilder --------===//
//
// Each case builds `f() -> T { %a = const; %b = const; %r = op %a, %b; return %r }`,
// runs canonicalize and reads the constant that reaches tt.return. Expected
// values are derived by hand in the comments (two's complement at the type
// width, IEEE rounding to the type), not computed by the code under test.
//
//===----------------------------------------------------------------------===//

#include <cmath>
#include <limits>

#include "PassTestUtil.h"

using namespace tessera::ir;
using namespace tessera::transforms;
using namespace tessera::transforms::testing;

namespace {

using Payload = std::variant<int64_t, double>;

Value makeConst(OpBuilder& b, Type t, Payload p) {
  if (std::holds_alternative<int64_t>(p)) return b.constantInt(t, std::get<int64_t>(p));
  return b.constantFloat(t, std::get<double>(p));
}

/// Folds `code` on constant operands; nullopt if the op did not fold.
std::optional<Payload> fold(OpCode code, Type resultType, const std::vector<std::pair<Type, Payload>>& operands,
                            AttrMap attrs = {}) {
  Module module;
  Operation* func = makeFunc("f", {}, {resultType});
  module.addFunction(func);
  OpBuilder b(&funcBody(func));
  std::vector<Value> values;
  for (const auto& [t, p] : operands) values.push_back(makeConst(b, t, p));
  Operation* op = b.create(code, {resultType}, values, std::move(attrs));
  b.create(OpCode::Return, {}, {op->result()});
  runPass(module, "canonicalize");
  Operation* def = funcBody(func).back()->operand(0).definingOp();
  if (!def || !def->is(OpCode::Constant)) return std::nullopt;
  EXPECT_EQ(funcBody(func).size(), 2u) << "operands of the folded op should be erased";
  const Attribute* v = def->attr("value");
  if (auto* i = std::get_if<int64_t>(v)) return Payload(*i);
  return Payload(std::get<double>(*v));
}

std::optional<Payload> foldInt(OpCode code, Type t, int64_t a, int64_t b, AttrMap attrs = {}) {
  return fold(code, t, {{t, a}, {t, b}}, std::move(attrs));
}
std::optional<Payload> foldFloat(OpCode code, Type t, double a, double b) {
  return fold(code, t, {{t, a}, {t, b}});
}
std::optional<Payload> cast(OpCode code, Type from, Type to, Payload in, AttrMap attrs = {}) {
  return fold(code, to, {{from, in}}, std::move(attrs));
}

Payload I(int64_t v) { return Payload(v); }
Payload F(double v) { return Payload(v); }

/// Bitwise double comparison (tells -0.0 from 0.0).
bool sameBits(std::optional<Payload> got, double want) {
  if (!got || !std::holds_alternative<double>(*got)) return false;
  double g = std::get<double>(*got);
  if (std::isnan(want)) return std::isnan(g);
  return g == want && std::signbit(g) == std::signbit(want);
}

const int64_t kI32Min = std::numeric_limits<int32_t>::min();
const int64_t kI32Max = std::numeric_limits<int32_t>::max();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(ConstantFold, IntegerArithmeticWrapsAtTheTypeWidth) {
  EXPECT_EQ(foldInt(OpCode::AddI, Type::i8(), 100, 100), I(-56));        // 200 - 256
  EXPECT_EQ(foldInt(OpCode::AddI, Type::i32(), kI32Max, 1), I(kI32Min));
  EXPECT_EQ(foldInt(OpCode::SubI, Type::i16(), -32768, 1), I(32767));
  EXPECT_EQ(foldInt(OpCode::MulI, Type::i32(), 65536, 65536), I(0));     // 2^32 wraps to 0
  EXPECT_EQ(foldInt(OpCode::MulI, Type::i64(), int64_t(1) << 62, 4), I(0));
  EXPECT_EQ(foldInt(OpCode::AddI, Type::i1(), 1, 1), I(0));              // i1: 1 + 1 = 0
  EXPECT_EQ(foldInt(OpCode::MulI, Type::i1(), 1, 1), I(1));              // i1 payload is 0/1
}

TEST(ConstantFold, DivisionTruncatesAndRefusesUndefinedCases) {
  EXPECT_EQ(foldInt(OpCode::DivSI, Type::i32(), -7, 2), I(-3));
  EXPECT_EQ(foldInt(OpCode::RemSI, Type::i32(), -7, 2), I(-1));
  EXPECT_EQ(foldInt(OpCode::DivUI, Type::i8(), -1, 2), I(127));          // 255 / 2
  EXPECT_EQ(foldInt(OpCode::RemUI, Type::i8(), -1, 10), I(5));           // 255 % 10
  EXPECT_EQ(foldInt(OpCode::DivSI, Type::i32(), 7, 0), std::nullopt);
  EXPECT_EQ(foldInt(OpCode::DivUI, Type::i32(), 7, 0), std::nullopt);
  EXPECT_EQ(foldInt(OpCode::RemSI, Type::i32(), 7, 0), std::nullopt);
  EXPECT_EQ(foldInt(OpCode::RemUI, Type::i32(), 7, 0), std::nullopt);
  EXPECT_EQ(foldInt(OpCode::DivSI, Type::i32(), kI32Min, -1), std::nullopt);  // overflows
  EXPECT_EQ(foldInt(OpCode::RemSI, Type::i32(), kI32Min, -1), I(0));
}

TEST(ConstantFold, ShiftsSaturateAtTheWidth) {
  EXPECT_EQ(foldInt(OpCode::ShLI, Type::i32(), 1, 31), I(kI32Min));
  EXPECT_EQ(foldInt(OpCode::ShLI, Type::i32(), 1, 32), I(0));            // amount >= width -> 0
  EXPECT_EQ(foldInt(OpCode::ShRSI, Type::i32(), -8, 1), I(-4));
  EXPECT_EQ(foldInt(OpCode::ShRSI, Type::i32(), -8, 40), I(-1));         // sign fill
  EXPECT_EQ(foldInt(OpCode::ShRUI, Type::i8(), -128, 7), I(1));          // 0x80 >> 7
  EXPECT_EQ(foldInt(OpCode::ShRUI, Type::i8(), -128, 8), I(0));
  EXPECT_EQ(foldInt(OpCode::ShLI, Type::i8(), 1, -1), I(0));             // amount 255 unsigned
}

TEST(ConstantFold, BitwiseMinMaxAndMulHi) {
  EXPECT_EQ(foldInt(OpCode::AndI, Type::i16(), 0x0F0F, 0x00FF), I(0x000F));
  EXPECT_EQ(foldInt(OpCode::OrI, Type::i16(), 0x0F0F, 0x00FF), I(0x0FFF));
  EXPECT_EQ(foldInt(OpCode::XOrI, Type::i16(), 0x0F0F, 0x00FF), I(0x0FF0));
  EXPECT_EQ(foldInt(OpCode::MaxUI, Type::i8(), -1, 1), I(-1));           // 255 > 1
  EXPECT_EQ(foldInt(OpCode::MaxSI, Type::i8(), -1, 1), I(1));
  EXPECT_EQ(foldInt(OpCode::MinUI, Type::i8(), -1, 1), I(1));
  EXPECT_EQ(foldInt(OpCode::MinSI, Type::i8(), -1, 1), I(-1));
  // 0x80000000 * 4 = 2^33: high word 2 (unsigned); -2^31 * 4 = -2^33: high word -2.
  EXPECT_EQ(foldInt(OpCode::MulHiI, Type::i32(), kI32Min, 4), I(2));
  EXPECT_EQ(foldInt(OpCode::MulHiI, Type::i32(), kI32Min, 4, {{"signed", true}}), I(-2));
  // (2^32-1)^2 = 2^64 - 2^33 + 1: high word 2^32 - 2 = 0xFFFFFFFE -> -2 as i32.
  EXPECT_EQ(foldInt(OpCode::MulHiI, Type::i32(), -1, -1), I(-2));
  // (2^64-1)^2 high word = 2^64 - 2 -> -2 as i64.
  EXPECT_EQ(foldInt(OpCode::MulHiI, Type::i64(), -1, -1), I(-2));
  EXPECT_EQ(fold(OpCode::AbsI, Type::i32(), {{Type::i32(), I(-5)}}), I(5));
  EXPECT_EQ(fold(OpCode::AbsI, Type::i32(), {{Type::i32(), I(kI32Min)}}), I(kI32Min));
}

TEST(ConstantFold, IntegerComparisonsAreSignedOrUnsignedPerPredicate) {
  auto cmp = [](const char* pred, int64_t a, int64_t b) {
    return fold(OpCode::CmpI, Type::i1(), {{Type::i32(), I(a)}, {Type::i32(), I(b)}}, {{"predicate", std::string(pred)}});
  };
  EXPECT_EQ(cmp("slt", -1, 1), I(1));
  EXPECT_EQ(cmp("ult", -1, 1), I(0));  // 0xFFFFFFFF > 1
  EXPECT_EQ(cmp("uge", -1, 1), I(1));
  EXPECT_EQ(cmp("eq", 5, 5), I(1));
  EXPECT_EQ(cmp("ne", 5, 5), I(0));
  EXPECT_EQ(cmp("sge", kI32Min, kI32Max), I(0));
}

TEST(ConstantFold, IntegerCasts) {
  EXPECT_EQ(cast(OpCode::ExtSI, Type::i8(), Type::i32(), I(-1)), I(-1));
  EXPECT_EQ(cast(OpCode::ExtUI, Type::i8(), Type::i32(), I(-1)), I(255));
  EXPECT_EQ(cast(OpCode::ExtSI, Type::i1(), Type::i32(), I(1)), I(-1));  // true sign-extends
  EXPECT_EQ(cast(OpCode::ExtUI, Type::i1(), Type::i32(), I(1)), I(1));
  EXPECT_EQ(cast(OpCode::TruncI, Type::i32(), Type::i8(), I(300)), I(44));   // 300 - 256
  EXPECT_EQ(cast(OpCode::TruncI, Type::i32(), Type::i1(), I(3)), I(1));
}

TEST(ConstantFold, IntFloatConversionsRoundToTheType) {
  // 2^24 + 1 is a tie between 2^24 and 2^24 + 2 in f32: even mantissa wins.
  EXPECT_TRUE(sameBits(cast(OpCode::SIToFP, Type::i32(), Type::f32(), I(16777217)), 16777216.0));
  EXPECT_TRUE(sameBits(cast(OpCode::UIToFP, Type::i32(), Type::f32(), I(-1)), 4294967296.0));
  EXPECT_TRUE(sameBits(cast(OpCode::SIToFP, Type::i32(), Type::f32(), I(-1)), -1.0));
  // f16 spacing at 2048 is 2: 2049 ties to 2048; 65520 ties past the largest
  // finite value (65504) and becomes inf.
  EXPECT_TRUE(sameBits(cast(OpCode::SIToFP, Type::i32(), Type::f16(), I(2049)), 2048.0));
  EXPECT_TRUE(sameBits(cast(OpCode::SIToFP, Type::i32(), Type::f16(), I(65520)), HUGE_VAL));
  EXPECT_EQ(cast(OpCode::FPToSI, Type::f32(), Type::i32(), F(-3.75)), I(-3));  // toward zero
  EXPECT_EQ(cast(OpCode::FPToSI, Type::f32(), Type::i32(), F(2147483520.0)), I(2147483520));
  EXPECT_EQ(cast(OpCode::FPToUI, Type::f32(), Type::i8(), F(255.5)), I(-1));  // 255
  EXPECT_EQ(cast(OpCode::FPToSI, Type::f32(), Type::i32(), F(3e9)), std::nullopt);
  EXPECT_EQ(cast(OpCode::FPToUI, Type::f32(), Type::i32(), F(-1.0)), std::nullopt);
  EXPECT_EQ(cast(OpCode::FPToSI, Type::f32(), Type::i32(), F(kNaN)), std::nullopt);
}

TEST(ConstantFold, FloatTruncationRounding) {
  Type f8e4 = Type::scalar(TypeKind::F8E4M3FN);
  Type f8e5 = Type::scalar(TypeKind::F8E5M2);
  // bf16 keeps 7 mantissa bits: 1 + 2^-8 ties to 1; 1 + 3*2^-8 ties to 1 + 2^-6.
  EXPECT_TRUE(sameBits(cast(OpCode::TruncF, Type::f32(), Type::bf16(), F(1.00390625)), 1.0));
  EXPECT_TRUE(sameBits(cast(OpCode::TruncF, Type::f32(), Type::bf16(), F(1.01171875)), 1.015625));
  EXPECT_TRUE(sameBits(cast(OpCode::TruncF, Type::f32(), Type::bf16(), F(1.01171875), {{"rounding", std::string("rtz")}}),
                       1.0078125));
  EXPECT_TRUE(sameBits(cast(OpCode::TruncF, Type::f32(), Type::f16(), F(1e5)), HUGE_VAL));
  EXPECT_TRUE(sameBits(cast(OpCode::TruncF, Type::f32(), Type::f16(), F(1e5), {{"rounding", std::string("rtz")}}), 65504.0));
  EXPECT_TRUE(sameBits(cast(OpCode::TruncF, Type::f32(), Type::f16(), F(-0.0)), -0.0));
  // f16 subnormals are multiples of 2^-24: 3 * 2^-26 = 0.75 * 2^-24 -> 2^-24.
  EXPECT_TRUE(sameBits(cast(OpCode::TruncF, Type::f32(), Type::f16(), F(std::ldexp(3.0, -26))), std::ldexp(1.0, -24)));
  // e4m3fn: 3 mantissa bits; 1.0625 ties to 1.0, 1.1875 ties to 1.25.
  EXPECT_TRUE(sameBits(cast(OpCode::TruncF, Type::f32(), f8e4, F(1.0625)), 1.0));
  EXPECT_TRUE(sameBits(cast(OpCode::TruncF, Type::f32(), f8e4, F(1.1875)), 1.25));
  EXPECT_TRUE(sameBits(cast(OpCode::TruncF, Type::f16(), f8e5, F(3.0)), 3.0));
  // Out of range for e4m3fn (max 448): saturation is the target's business.
  EXPECT_EQ(cast(OpCode::TruncF, Type::f32(), f8e4, F(1000.0)), std::nullopt);
  EXPECT_TRUE(sameBits(cast(OpCode::ExtF, Type::f16(), Type::f32(), F(65504.0)), 65504.0));
}

TEST(ConstantFold, Bitcasts) {
  EXPECT_EQ(cast(OpCode::Bitcast, Type::f32(), Type::i32(), F(1.0)), I(0x3F800000));
  EXPECT_EQ(cast(OpCode::Bitcast, Type::f32(), Type::i32(), F(-0.0)), I(kI32Min));
  EXPECT_TRUE(sameBits(cast(OpCode::Bitcast, Type::i16(), Type::f16(), I(0x3C00)), 1.0));
  EXPECT_TRUE(sameBits(cast(OpCode::Bitcast, Type::i16(), Type::f16(), I(1)), std::ldexp(1.0, -24)));
  EXPECT_EQ(cast(OpCode::Bitcast, Type::bf16(), Type::i16(), F(-2.0)), I(-16384));  // 0xC000
  EXPECT_EQ(cast(OpCode::Bitcast, Type::f16(), Type::i16(), F(65504.0)), I(0x7BFF));
  EXPECT_TRUE(sameBits(cast(OpCode::Bitcast, Type::i64(), Type::f64(), I(0x3FF0000000000000)), 1.0));
  EXPECT_EQ(cast(OpCode::Bitcast, Type::i32(), Type::f32(), I(0x7FC00000)), std::nullopt);  // NaN
}

TEST(ConstantFold, FloatArithmeticRoundsOnceToTheType) {
  EXPECT_TRUE(sameBits(foldFloat(OpCode::AddF, Type::f32(), 16777216.0, 1.0), 16777216.0));
  EXPECT_TRUE(sameBits(foldFloat(OpCode::AddF, Type::f64(), 9007199254740992.0, 1.0), 9007199254740992.0));
  EXPECT_TRUE(sameBits(foldFloat(OpCode::AddF, Type::f64(), 9007199254740992.0, 2.0), 9007199254740994.0));
  EXPECT_TRUE(sameBits(foldFloat(OpCode::AddF, Type::f16(), 2048.0, 1.0), 2048.0));  // tie to even
  EXPECT_TRUE(sameBits(foldFloat(OpCode::AddF, Type::f16(), 2048.0, 3.0), 2052.0));  // tie to even
  // bf16: 1.0078125^2 = 1.01568603515625, nearest multiple of 2^-7 is 1.015625.
  EXPECT_TRUE(sameBits(foldFloat(OpCode::MulF, Type::bf16(), 1.0078125, 1.0078125), 1.015625));
  EXPECT_TRUE(sameBits(foldFloat(OpCode::DivF, Type::f32(), 1.0, 3.0), 0.3333333432674407958984375));
  EXPECT_TRUE(sameBits(foldFloat(OpCode::SubF, Type::f32(), 1.0, 1.0), 0.0));
  EXPECT_TRUE(sameBits(foldFloat(OpCode::RemF, Type::f32(), -7.5, 2.0), -1.5));     // sign of dividend
  EXPECT_EQ(foldFloat(OpCode::DivF, Type::f32(), 1.0, 0.0), std::nullopt);
  EXPECT_EQ(foldFloat(OpCode::RemF, Type::f32(), 1.0, 0.0), std::nullopt);
  EXPECT_TRUE(sameBits(foldFloat(OpCode::MulF, Type::f16(), 300.0, 300.0), HUGE_VAL));  // > 65504
}

TEST(ConstantFold, MinMaxNaNAndSignedZeros) {
  EXPECT_TRUE(sameBits(foldFloat(OpCode::MaxNumF, Type::f32(), kNaN, 1.0), 1.0));    // ignores NaN
  EXPECT_TRUE(sameBits(foldFloat(OpCode::MinNumF, Type::f32(), 2.0, kNaN), 2.0));
  EXPECT_TRUE(sameBits(foldFloat(OpCode::MaximumF, Type::f32(), kNaN, 1.0), kNaN));  // propagates
  EXPECT_TRUE(sameBits(foldFloat(OpCode::MinimumF, Type::f32(), 0.0, -0.0), -0.0));
  EXPECT_TRUE(sameBits(foldFloat(OpCode::MaximumF, Type::f32(), -0.0, 0.0), 0.0));
  EXPECT_TRUE(sameBits(foldFloat(OpCode::MaximumF, Type::f32(), -3.0, 2.0), 2.0));
  EXPECT_EQ(foldFloat(OpCode::MaxNumF, Type::f32(), -0.0, 0.0), std::nullopt);  // unspecified
}

TEST(ConstantFold, FloatComparisonsOrderedAndUnordered) {
  auto cmp = [](const char* pred, double a, double b) {
    return fold(OpCode::CmpF, Type::i1(), {{Type::f32(), F(a)}, {Type::f32(), F(b)}}, {{"predicate", std::string(pred)}});
  };
  EXPECT_EQ(cmp("olt", kNaN, 1.0), I(0));
  EXPECT_EQ(cmp("ult", kNaN, 1.0), I(1));
  EXPECT_EQ(cmp("olt", 0.5, 1.0), I(1));
  EXPECT_EQ(cmp("one", 1.0, 1.0), I(0));
  EXPECT_EQ(cmp("une", kNaN, kNaN), I(1));
  EXPECT_EQ(cmp("oeq", -0.0, 0.0), I(1));
  EXPECT_EQ(cmp("ord", 1.0, kNaN), I(0));
  EXPECT_EQ(cmp("uno", 1.0, kNaN), I(1));
}

TEST(ConstantFold, MathFunctions) {
  auto unary = [](OpCode code, Type t, double x) { return fold(code, t, {{t, F(x)}}); };
  EXPECT_TRUE(sameBits(unary(OpCode::Exp, Type::f32(), 1.0), 2.71828174591064453125));  // e in f32
  EXPECT_TRUE(sameBits(unary(OpCode::Exp2, Type::f32(), 10.0), 1024.0));
  EXPECT_TRUE(sameBits(unary(OpCode::Log2, Type::f64(), 0.125), -3.0));
  EXPECT_TRUE(sameBits(unary(OpCode::Sqrt, Type::f16(), 2.0), 1.4140625));  // 1448 * 2^-10
  EXPECT_TRUE(sameBits(unary(OpCode::Rsqrt, Type::f32(), 4.0), 0.5));
  EXPECT_TRUE(sameBits(unary(OpCode::NegF, Type::f32(), 0.0), -0.0));
  EXPECT_TRUE(sameBits(unary(OpCode::AbsF, Type::f32(), -2.5), 2.5));
  EXPECT_TRUE(sameBits(unary(OpCode::Floor, Type::f32(), -2.5), -3.0));
  EXPECT_TRUE(sameBits(unary(OpCode::Ceil, Type::f32(), -2.5), -2.0));
  EXPECT_TRUE(sameBits(unary(OpCode::Log, Type::f16(), 0.0), -HUGE_VAL));
  // fma rounds once: (1 + 2^-52)(1 - 2^-52) - 1 = -2^-104 exactly.
  Type f64 = Type::f64();
  EXPECT_TRUE(sameBits(fold(OpCode::Fma, f64, {{f64, F(1 + std::ldexp(1.0, -52))}, {f64, F(1 - std::ldexp(1.0, -52))},
                                               {f64, F(-1.0)}}),
                       -std::ldexp(1.0, -104)));
  EXPECT_TRUE(sameBits(fold(OpCode::ClampF, Type::f32(), {{Type::f32(), F(5.0)}, {Type::f32(), F(-1.0)},
                                                          {Type::f32(), F(2.0)}}),
                       2.0));
}

TEST(ConstantFold, SelectAndSplatsOfTensors) {
  Type t = Type::tensor({4, 8}, Type::f32());
  // Tensors of constants are splats: the folded result is a constant tensor.
  EXPECT_TRUE(sameBits(fold(OpCode::AddF, t, {{t, F(1.5)}, {t, F(2.0)}}), 3.5));
  EXPECT_TRUE(sameBits(fold(OpCode::Select, Type::f32(), {{Type::i1(), I(1)}, {Type::f32(), F(1.0)}, {Type::f32(), F(2.0)}}), 1.0));
  EXPECT_TRUE(sameBits(fold(OpCode::Select, Type::f32(), {{Type::i1(), I(0)}, {Type::f32(), F(1.0)}, {Type::f32(), F(2.0)}}), 2.0));
}

}  // namespace
