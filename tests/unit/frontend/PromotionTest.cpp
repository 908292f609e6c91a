//===- PromotionTest.cpp - Type promotion, literals, casts, reductions ----===//
//
// Each case compiles a kernel whose body checks the result dtype with
// tl.static_assert, so a wrong promotion fails to compile with the message.
// Expectations come from LANGUAGE_CHECKLIST.md §2.3-2.6 and §1.8.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

namespace tessera::frontend::test {
namespace {

struct Case {
  const char* a;     // signature type of parameter a
  const char* b;     // signature type of parameter b
  const char* expr;  // expression over a and b
  const char* want;  // expected tl dtype name
};

std::string kernelFor(const Case& c) {
  return std::string("import triton\nimport triton.language as tl\n@triton.jit\ndef k(a, b):\n    r = ") + c.expr +
         "\n    tl.static_assert(r.dtype == tl." + c.want + ", 'got ' + r.dtype.name)\n";
}

class Promotion : public ::testing::TestWithParam<Case> {};

TEST_P(Promotion, ResultDtype) {
  const Case& c = GetParam();
  std::string err = compileError(kernelFor(c), "k", std::string(c.a) + ", " + c.b);
  EXPECT_EQ(err, "") << c.a << " " << c.expr << " " << c.b;
}

INSTANTIATE_TEST_SUITE_P(
    Matrix, Promotion,
    ::testing::Values(
        // weak Python literals adopt the tensor's type
        Case{"i8", "i8", "a + 1", "int8"}, Case{"fp16", "i8", "a + 1.5", "float16"},
        Case{"bf16", "i8", "a + 2", "bfloat16"}, Case{"i8", "i8", "a + 1.5", "float32"},
        Case{"i32", "i8", "a + 1e300", "float64"}, Case{"i1", "i8", "a + 1", "int32"},
        Case{"u8", "i8", "a * 3", "uint8"}, Case{"fp16", "i8", "a / 2", "float32"},
        Case{"bf16", "i8", "a % 2", "float32"}, Case{"fp16", "i8", "a - 2", "float16"},
        // floats
        Case{"fp16", "bf16", "a + b", "float16"}, Case{"bf16", "bf16", "a * b", "bfloat16"},
        Case{"bf16", "bf16", "a / b", "float32"}, Case{"bf16", "i32", "a + b", "float32"},
        Case{"fp16", "i32", "a + b", "float16"}, Case{"fp64", "fp32", "a + b", "float64"},
        Case{"fp32", "fp16", "a * b", "float32"}, Case{"fp8e4nv", "fp8e5", "a + b", "float16"},
        Case{"fp8e4nv", "fp8e4nv", "a + b", "float8e4nv"}, Case{"fp16", "fp8e5", "a + b", "float16"},
        // integers: C-style usual conversions
        Case{"i32", "u32", "a + b", "uint32"}, Case{"u8", "i16", "a + b", "int16"},
        Case{"u32", "i64", "a + b", "int64"}, Case{"i8", "i32", "a + b", "int32"},
        Case{"i8", "i8", "a + b", "int8"}, Case{"u16", "u64", "a & b", "uint64"},
        Case{"i8", "i32", "a << b", "int32"}, Case{"i1", "i1", "a & b", "int1"},
        // division
        Case{"i32", "i32", "a / b", "float32"}, Case{"i64", "i64", "a / b", "float32"},
        Case{"i8", "i8", "a // b", "int8"}, Case{"fp16", "fp16", "a / b", "float32"},
        Case{"fp64", "i32", "a / b", "float64"}, Case{"i32", "i32", "a % b", "int32"},
        // comparisons and misc
        Case{"u32", "i8", "a > -1", "int1"}, Case{"fp32", "fp32", "a == b", "int1"},
        Case{"bf16", "bf16", "tl.maximum(a, b)", "float32"}, Case{"fp16", "fp16", "tl.minimum(a, b)", "float16"},
        Case{"i8", "i8", "-a", "int8"}, Case{"u16", "i8", "~a", "uint16"},
        Case{"i32", "i8", "a.to(tl.float16)", "float16"}, Case{"fp32", "i8", "a.to(tl.int8, bitcast=False)", "int8"},
        Case{"fp32", "i8", "a.to(tl.int32, bitcast=True)", "int32"},
        Case{"i32", "fp32", "tl.where(a > 0, b, 1)", "float32"},
        Case{"i8", "fp16", "tl.where(a > 0, b, a)", "float16"},
        Case{"i8", "i8", "tl.arange(0, 16) + a", "int32"}));

class Reductions : public ::testing::TestWithParam<Case> {};

TEST_P(Reductions, ResultDtype) {
  const Case& c = GetParam();
  std::string src = std::string(
                        "import triton\nimport triton.language as tl\n@triton.jit\ndef k(P, b):\n"
                        "    x = tl.load(P + tl.arange(0, 64)[:, None] * 64 + tl.arange(0, 64)[None, :])\n    r = ") +
                    c.expr + "\n    tl.static_assert(r.dtype == tl." + c.want + ", 'got ' + r.dtype.name)\n";
  EXPECT_EQ(compileError(src, "k", std::string(c.a) + ", i32"), "") << c.a << " " << c.expr;
}

INSTANTIATE_TEST_SUITE_P(
    DtypeRules, Reductions,
    ::testing::Values(Case{"*i8", "", "tl.sum(x, axis=0)", "int32"}, Case{"*u8", "", "tl.sum(x)", "uint32"},
                      Case{"*i1", "", "tl.sum(x, 1)", "uint32"}, Case{"*fp16", "", "tl.sum(x, 0)", "float16"},
                      Case{"*bf16", "", "tl.sum(x, 0)", "bfloat16"}, Case{"*i64", "", "tl.sum(x, 0)", "int64"},
                      Case{"*fp16", "", "tl.sum(x, 0, dtype=tl.float32)", "float32"},
                      Case{"*i8", "", "tl.max(x, 0)", "int32"}, Case{"*u8", "", "tl.min(x, 1)", "int32"},
                      Case{"*bf16", "", "tl.max(x, 0)", "float32"}, Case{"*fp16", "", "tl.max(x, 0)", "float32"},
                      Case{"*fp32", "", "tl.argmax(x, 0)", "int32"}, Case{"*bf16", "", "tl.cumsum(x, 0)", "float32"},
                      Case{"*i16", "", "tl.cumsum(x, 1)", "int32"}, Case{"*fp32", "", "tl.cumprod(x, 1)", "float32"},
                      Case{"*i32", "", "tl.xor_sum(x, 0)", "int32"}, Case{"*fp32", "", "x.sum(axis=1)", "float32"},
                      Case{"*fp32", "", "tl.max(x, 1, return_indices=True)[1]", "int32"},
                      Case{"*i8", "", "tl.dot(x, x)", "int32"}, Case{"*fp16", "", "tl.dot(x, x)", "float32"},
                      Case{"*fp16", "", "tl.dot(x, x, out_dtype=tl.float16)", "float16"},
                      Case{"*bf16", "", "tl.dot(x, x)", "float32"}, Case{"*fp32", "", "tl.softmax(x)", "float32"},
                      Case{"*fp32", "", "tl.sigmoid(x)", "float32"}, Case{"*u32", "", "tl.umulhi(x, 7)", "uint32"},
                      Case{"*fp32", "", "tl.sort(x)", "float32"}, Case{"*i32", "", "tl.histogram(tl.ravel(x), 16)", "int32"}));

// Ops chosen by signedness and kind (IR is signless; the op says it).
TEST(PromotionOps, SignednessPicksOps) {
  std::string src = R"(
import triton
import triton.language as tl
@triton.jit
def k(a, b, u, v, O):
    tl.store(O, (u // v).to(tl.float32))
    tl.store(O + 1, (a // b).to(tl.float32))
    tl.store(O + 2, (u >> 3).to(tl.float32))
    tl.store(O + 3, (a >> 3).to(tl.float32))
    tl.store(O + 4, a / b)
    tl.store(O + 5, u.to(tl.float32))
    tl.store(O + 6, (u % v).to(tl.float32))
    tl.store(O + 7, (u < v).to(tl.float32))
)";
  std::string ir = compileIR(src, "k", "i32, i32, u32, u32, *fp32");
  EXPECT_NE(ir.find("arith.divui"), std::string::npos) << ir;
  EXPECT_NE(ir.find("arith.divsi"), std::string::npos);
  EXPECT_NE(ir.find("arith.shrui"), std::string::npos);
  EXPECT_NE(ir.find("arith.shrsi"), std::string::npos);
  EXPECT_NE(ir.find("arith.sitofp"), std::string::npos);
  EXPECT_NE(ir.find("arith.divf"), std::string::npos);
  EXPECT_NE(ir.find("arith.uitofp"), std::string::npos);
  EXPECT_NE(ir.find("arith.remui"), std::string::npos);
  EXPECT_NE(ir.find("\"ult\""), std::string::npos);
}

TEST(PromotionOps, WeakLiteralKeepsNarrowOps) {
  std::string src = R"(
import triton
import triton.language as tl
@triton.jit
def k(P):
    x = tl.load(P + tl.arange(0, 16))
    tl.store(P + tl.arange(0, 16), x + 1)
)";
  std::string ir = compileIR(src, "k", "*i8");
  EXPECT_NE(ir.find("arith.addi"), std::string::npos);
  EXPECT_NE(ir.find("arith.constant {value = 1} : tensor<16xi8>"), std::string::npos) << ir;
  EXPECT_EQ(ir.find("arith.extsi"), std::string::npos) << ir;
}

TEST(PromotionOps, Fp16PlusBf16IsF16) {
  std::string ir = compileIR("import triton\nimport triton.language as tl\n@triton.jit\ndef k(a, b, O):\n"
                             "    tl.store(O, a + b)\n",
                             "k", "fp16, bf16, *fp16");
  EXPECT_NE(ir.find("arith.addf %arg0"), std::string::npos) << ir;
  EXPECT_NE(ir.find(": f16"), std::string::npos);
}

TEST(PromotionOps, Fp16ToFp64GoesThroughFp32) {
  std::string ir = compileIR("import triton\nimport triton.language as tl\n@triton.jit\ndef k(a, O):\n"
                             "    tl.store(O, a.to(tl.float64))\n",
                             "k", "fp16, *fp64");
  EXPECT_EQ(count(ir, "arith.extf"), 2) << ir;
}

TEST(PromotionOps, DowncastRoundingAttr) {
  std::string ir = compileIR("import triton\nimport triton.language as tl\n@triton.jit\ndef k(a, O):\n"
                             "    tl.store(O, a.to(tl.float16, fp_downcast_rounding='rtz'))\n",
                             "k", "fp32, *fp16");
  EXPECT_NE(ir.find("rounding = \"rtz\""), std::string::npos) << ir;
}

TEST(PromotionOps, UnsignedPointerOffsetZeroExtends) {
  std::string ir = compileIR("import triton\nimport triton.language as tl\n@triton.jit\ndef k(P, o):\n"
                             "    tl.store(P + o, 1.0)\n",
                             "k", "*fp32, u32");
  EXPECT_NE(ir.find("arith.extui"), std::string::npos) << ir;
}

}  // namespace
}  // namespace tessera::frontend::test
