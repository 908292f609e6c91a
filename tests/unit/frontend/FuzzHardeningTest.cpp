//===- FuzzHardeningTest.cpp - Inputs the fuzzer found, per frontend rule -===//
//
// Each case once reached undefined behaviour or a crash in the code generator
// (tests/fuzz/regressions/ keeps the raw inputs); here the diagnostic and its
// position are checked. The kernel body starts on line 5.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

namespace tessera::frontend::test {
namespace {

std::string kernel(const std::string& body) {
  return "import triton.language as tl\nimport triton\n@triton.jit\ndef k(P):\n" + body;
}

// Shape products overflowed int64 before the element limit was checked.
TEST(FuzzHardening, ReshapeToHugeNegativeDims) {
  std::string err = compileError(kernel("    x = tl.reshape(tl.zeros((16,), tl.int8), (-(1 << 62), -4))\n"), "k",
                                 "*fp32");
  EXPECT_NE(err.find("k.py:5:9: error: reshape: shape [-4611686018427387904, -4] has a dimension that is not a power"),
            std::string::npos)
      << err;
}

TEST(FuzzHardening, ShapeProductPastInt64) {
  std::string err = compileError(kernel("    x = tl.zeros((2, 1 << 62), tl.int8)\n"), "k", "*fp32");
  EXPECT_NE(err.find("k.py:5:9: error: tl.full: shape [2, 4611686018427387904] has more than 1048576 elements"),
            std::string::npos)
      << err;
  err = compileError(kernel("    x = tl.reshape(tl.zeros((16,), tl.int8), (1 << 62, 1 << 62))\n"), "k", "*fp32");
  EXPECT_NE(err.find("k.py:5:9: error: reshape: shape [4611686018427387904, 4611686018427387904] has more than"),
            std::string::npos)
      << err;
}

// Results larger than their operands: [2^20, 1] + [1, 2^20] had 2^40 elements
// and the interpreter tried to allocate them; so had a [2^16, 16] x [16, 2^16]
// dot.
TEST(FuzzHardening, BroadcastResultOverElementLimit) {
  std::string err =
      compileError(kernel("    x = tl.zeros((1 << 20, 1), tl.int8) + tl.zeros((1, 1 << 20), tl.int8)\n"), "k", "*fp32");
  EXPECT_NE(err.find("k.py:5:9: error: broadcast: shape [1048576, 1048576] has more than 1048576 elements"),
            std::string::npos)
      << err;
  err = compileError(
      kernel("    x = tl.where(tl.zeros((1024, 1), tl.int1), tl.zeros((1, 2048), tl.int8), 0)\n"), "k", "*fp32");
  EXPECT_NE(err.find("k.py:5:9: error: broadcast: shape [1024, 2048] has more than"), std::string::npos) << err;
}

TEST(FuzzHardening, DotResultOverElementLimit) {
  std::string err = compileError(
      kernel("    x = tl.dot(tl.zeros((65536, 16), tl.float16), tl.zeros((16, 65536), tl.float16))\n"), "k", "*fp32");
  EXPECT_NE(err.find("k.py:5:9: error: tl.dot: shape [65536, 65536] has more than 1048576 elements"),
            std::string::npos)
      << err;
  // The limit itself is fine.
  EXPECT_EQ(compileError(kernel("    x = tl.dot(tl.zeros((1024, 16), tl.float16), tl.zeros((16, 1024), tl.float16))\n"),
                         "k", "*fp32"),
            "");
}

// The interpreter printed a block pointer by copying its zero-byte storage
// from a null pointer.
TEST(FuzzHardening, DevicePrintOfBlockPointer) {
  std::string err = compileError(
      kernel("    b = tl.make_block_ptr(P, (16,), (1,), (0,), (16,), (0,))\n    tl.device_print(\"b\", b)\n"), "k", "*fp32");
  EXPECT_NE(err.find("k.py:6:5: error: tl.device_print: cannot print a block pointer"), std::string::npos) << err;
  err = compileError(kernel("    b = tl.make_block_ptr(P, (16,), (1,), (0,), (16,), (0,))\n    print(\"b\", b)\n"), "k",
                     "*fp32");
  EXPECT_NE(err.find("k.py:6:5: error: tl.device_print: cannot print a block pointer"), std::string::npos) << err;
}

// BigInt overflows escaped as an uncaught BigIntError (std::terminate): a
// 2000-digit literal, and ~x where x has all 4096 bits set.
TEST(FuzzHardening, ConstexprIntegerTooLarge) {
  std::string err = compileError(kernel("    tl.static_print(" + std::string(2000, '9') + ")\n"), "k", "*fp32");
  EXPECT_NE(err.find("k.py:5:21: error: integer literal too large"), std::string::npos) << err;
  err = compileError(kernel("    x = ~((1 << 4095) + ((1 << 4095) - 1))\n"), "k", "*fp32");
  EXPECT_NE(err.find("k.py:5:9: error: integer too large (more than 4096 bits)"), std::string::npos) << err;
  err = compileError(kernel("    x = int(\"" + std::string(1300, '7') + "\")\n"), "k", "*fp32");
  EXPECT_NE(err.find("k.py:5:9: error: int(): integer too large"), std::string::npos) << err;
  // Values up to 4096 bits still work (-(2^4096) itself does not fit).
  EXPECT_EQ(compileError(kernel("    tl.static_assert(~((1 << 4095) - 2 + (1 << 4095)) < 0)\n"), "k", "*fp32"), "");
}

// The iteration count of static_range(INT64_MIN, INT64_MAX) overflowed int64.
TEST(FuzzHardening, StaticRangeExtremeBounds) {
  std::string err = compileError(
      kernel("    for i in tl.static_range(-9223372036854775808, 9223372036854775807):\n        pass\n"), "k", "*fp32");
  EXPECT_NE(err.find("k.py:5:5: error: tl.static_range would unroll 18446744073709551615 iterations"),
            std::string::npos)
      << err;
  // Three iterations: INT64_MIN, -1, INT64_MAX - 1; and two with step INT64_MIN.
  std::string ok = compileIR(kernel("    for i in tl.static_range(-9223372036854775808, 9223372036854775807, "
                                    "9223372036854775807):\n        tl.store(P + (i % 7), 1.0)\n"
                                    "    for j in tl.static_range(9223372036854775807, -9223372036854775808, "
                                    "-9223372036854775808):\n        tl.store(P + (j % 5), 2.0)\n"),
                             "k", "*fp32");
  EXPECT_EQ(count(ok, "tt.store"), 5) << ok;
}

// A 1000-term sum, 1000 unary minuses or a 500-branch elif chain overflowed
// the C++ stack in the code generator (under ASan, ~9 KB per level).
TEST(FuzzHardening, NestingTooDeep) {
  std::string sum = "    x = P";
  for (int i = 0; i < 1000; ++i) sum += " + 1";
  std::string err = compileError(kernel(sum + "\n"), "k", "*fp32");
  EXPECT_NE(err.find("k.py:5:9: error: code is nested too deeply (more than 400 levels"), std::string::npos) << err;
  std::string neg = "    x = " + std::string(2 * 1000, ' ');
  for (int i = 0; i < 1000; ++i) neg[8 + 2 * i] = '-';
  err = compileError(kernel(neg + "1\n"), "k", "*fp32");
  EXPECT_NE(err.find("error: code is nested too deeply"), std::string::npos) << err;
  std::string chain = "    if P == 0:\n        x = 0\n";
  for (int i = 1; i < 500; ++i) chain += "    elif P == " + std::to_string(i) + ":\n        x = 0\n";
  err = compileError(kernel(chain), "k", "i32");
  EXPECT_NE(err.find("error: code is nested too deeply"), std::string::npos) << err;
  // 300 levels are fine.
  std::string ok = "    x = P";
  for (int i = 0; i < 300; ++i) ok += " + 1";
  EXPECT_EQ(compileError(kernel(ok + "\n"), "k", "i32"), "");
}

}  // namespace
}  // namespace tessera::frontend::test
