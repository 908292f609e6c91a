//===- TensorDescTypeTest.cpp - "tensordesc<fp16[64, 64]>" parameter types ---===//
//
// TensorDescType (Frontend.h): the signature type of a host tensor
// descriptor parameter, parsed and printed back.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include "tessera/frontend/Frontend.h"

namespace tessera::frontend {
namespace {

TEST(TensorDescType, ParsesDtypeBlockAndPadding) {
  auto t = TensorDescType::parse("tensordesc<fp16[64, 32]>");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->dtype, "fp16");
  EXPECT_EQ(t->block, (std::vector<int64_t>{64, 32}));
  EXPECT_EQ(t->padding, "zero");
  auto n = TensorDescType::parse("  tensordesc<fp32[2,4,16], nan> ");
  ASSERT_TRUE(n);
  EXPECT_EQ(n->block, (std::vector<int64_t>{2, 4, 16}));
  EXPECT_EQ(n->padding, "nan");
}

TEST(TensorDescType, PrintsWhatItParses) {
  for (const char* text : {"tensordesc<bf16[128]>", "tensordesc<fp32[16, 32], nan>", "tensordesc<i8[1, 2, 4, 8, 16]>"}) {
    auto t = TensorDescType::parse(text);
    ASSERT_TRUE(t) << text;
    EXPECT_EQ(t->str(), text);
  }
}

TEST(TensorDescType, RejectsOtherTypes) {
  for (const char* text : {"*fp16", "i32", "tensordesc<fp16>", "tensordesc<[64]>", "tensordesc<fp16[64,]>",
                           "tensordesc<fp16[64, x]>", "tensordesc<fp16[64], ones>", "tensordesc<fp16[64]",
                           "tensordesc<fp16[-4]>"})
    EXPECT_FALSE(TensorDescType::parse(text)) << text;
}

}  // namespace
}  // namespace tessera::frontend
