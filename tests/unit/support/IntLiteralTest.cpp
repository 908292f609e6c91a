//===- IntLiteralTest.cpp - Integers as Python writes them ----------------===//
//
// -D values and signature constexprs. Once, strtoll(..., 0) read "010" as
// octal 8 (Python 3 rejects it) and clamped values beyond int64 silently.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "tessera/support/IntLiteral.h"

namespace {

using tessera::IntLiteralStatus;

IntLiteralStatus parse(const char* text, int64_t* out = nullptr) {
  int64_t v = -12345;
  IntLiteralStatus s = tessera::parseIntLiteral(text, v);
  if (out) *out = v;
  return s;
}

int64_t value(const char* text) {
  int64_t v = 0;
  EXPECT_EQ(parse(text, &v), IntLiteralStatus::Ok) << text;
  return v;
}

TEST(IntLiteral, PythonSpellings) {
  EXPECT_EQ(value("0"), 0);
  EXPECT_EQ(value("00"), 0);
  EXPECT_EQ(value("0_0"), 0);
  EXPECT_EQ(value("1024"), 1024);
  EXPECT_EQ(value("-7"), -7);
  EXPECT_EQ(value("+7"), 7);
  EXPECT_EQ(value("1_000_000"), 1000000);
  EXPECT_EQ(value("0x400"), 1024);
  EXPECT_EQ(value("0XfF"), 255);
  EXPECT_EQ(value("0x_1f"), 31);
  EXPECT_EQ(value("0o10"), 8);
  EXPECT_EQ(value("0b_1_0"), 2);
  EXPECT_EQ(value("9223372036854775807"), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(value("-9223372036854775808"), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(value("-0x8000000000000000"), std::numeric_limits<int64_t>::min());
}

TEST(IntLiteral, ErrorsAndNonIntegers) {
  EXPECT_EQ(parse("010"), IntLiteralStatus::LeadingZero);
  EXPECT_EQ(parse("0_1"), IntLiteralStatus::LeadingZero);
  EXPECT_EQ(parse("9223372036854775808"), IntLiteralStatus::OutOfRange);
  EXPECT_EQ(parse("-9223372036854775809"), IntLiteralStatus::OutOfRange);
  EXPECT_EQ(parse("99999999999999999999999"), IntLiteralStatus::OutOfRange);
  EXPECT_EQ(parse("0x10000000000000000"), IntLiteralStatus::OutOfRange);
  for (const char* text : {"", "-", "_1", "1_", "1__0", "0x", "0x_", "0b2", "0o8", "1.5", "1e3", "abc", " 1", "0x__1"})
    EXPECT_EQ(parse(text), IntLiteralStatus::NotAnInteger) << "'" << text << "'";
  EXPECT_EQ(tessera::intLiteralError("010", IntLiteralStatus::LeadingZero),
            "'010': leading zeros are not allowed in Python integers (write 0o10 for an octal number)");
}

}  // namespace
