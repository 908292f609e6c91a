//===- TensorDescTypeTest.cpp - "tensordesc<fp16[64, 64]>" parameter types ---===//
//
// TensorDescType (Frontend.h): the signature type of a host tensor
// descriptor parameter, parsed and printed back.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include <sstream>

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
  EXPECT_FALSE(n->roundTf32);
  auto r = TensorDescType::parse("tensordesc<fp32[16, 16], tf32, nan>");  // options in either order
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->roundTf32);
  EXPECT_EQ(r->padding, "nan");
}

TEST(TensorDescType, PrintsWhatItParses) {
  for (const char* text : {"tensordesc<bf16[128]>", "tensordesc<fp32[16, 32], nan>", "tensordesc<i8[1, 2, 4, 8, 16]>",
                           "tensordesc<fp32[64, 32], tf32>", "tensordesc<fp32[8, 16], nan, tf32>"}) {
    auto t = TensorDescType::parse(text);
    ASSERT_TRUE(t) << text;
    EXPECT_EQ(t->str(), text);
  }
}

TEST(TensorDescType, RejectsOtherTypes) {
  for (const char* text : {"*fp16", "i32", "tensordesc<fp16>", "tensordesc<[64]>", "tensordesc<fp16[64,]>",
                           "tensordesc<fp16[64, x]>", "tensordesc<fp16[64], ones>", "tensordesc<fp16[64]", "tensordesc<fp32[64], tf32,>",
                           "tensordesc<fp16[-4]>"})
    EXPECT_FALSE(TensorDescType::parse(text)) << text;
}


// ArgType: the typed queries on a parameter's signature type.
TEST(ArgType, ClassifiesScalarsPointersAndDescriptors) {
  for (const char* f : {"fp8e4nv", "fp8e5", "fp16", "bf16", "fp32", "fp64"}) {
    EXPECT_TRUE(ArgType(f).isFloat()) << f;
    EXPECT_FALSE(ArgType(f).isPointer()) << f;
    EXPECT_FALSE(ArgType(std::string("*") + f).isFloat()) << "a pointer to " << f << " is not a float scalar";
  }
  for (const char* i : {"i1", "i8", "i32", "i64", "u8", "u32", "u64"}) EXPECT_FALSE(ArgType(i).isFloat()) << i;
  EXPECT_TRUE(ArgType("u16").isUnsigned());
  EXPECT_TRUE(ArgType("i1").isUnsigned());
  EXPECT_FALSE(ArgType("i16").isUnsigned());
  EXPECT_FALSE(ArgType("*u16").isUnsigned());
  EXPECT_TRUE(ArgType("*kfp16").isPointer());
  EXPECT_TRUE(ArgType("*kfp16").isConstPointer());
  EXPECT_FALSE(ArgType("*fp16").isConstPointer());
  EXPECT_EQ(ArgType("*kfp16").element(), "fp16");
  EXPECT_EQ(ArgType("*bf16").element(), "bf16");
  EXPECT_EQ(ArgType("i32").element(), "i32");
  ArgType desc("tensordesc<fp16[64, 64]>");
  EXPECT_TRUE(desc.isTensorDesc());
  EXPECT_FALSE(desc.isPointer());
  EXPECT_FALSE(desc.isFloat());
  EXPECT_EQ(desc.element(), "");
  EXPECT_EQ(desc, "tensordesc<fp16[64, 64]>");
  std::ostringstream os;
  os << ArgType("*fp32");
  EXPECT_EQ(os.str(), "*fp32");
}

}  // namespace
}  // namespace tessera::frontend
