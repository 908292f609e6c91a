//===- TypesTest.cpp - Type interning and the type text form --------------===//

#include <gtest/gtest.h>

#include <thread>

#include "tessera/ir/Types.h"

using namespace tessera::ir;

namespace {

TEST(Types, ScalarsAreInterned) {
  EXPECT_EQ(Type::i32(), Type::integer(32));
  EXPECT_EQ(Type::f16(), Type::scalar(TypeKind::F16));
  EXPECT_NE(Type::f16(), Type::bf16());
  EXPECT_TRUE(Type::i1().isInteger(1));
  EXPECT_FALSE(Type::f32().isInteger());
  EXPECT_TRUE(Type::scalar(TypeKind::F8E5M2).isFP8());
  EXPECT_FALSE(Type::f16().isFP8());
}

TEST(Types, CompositeTypesAreInterned) {
  Type p = Type::pointer(Type::f32());
  EXPECT_EQ(p, Type::pointer(Type::f32(), 1));
  EXPECT_NE(p, Type::pointer(Type::f32(), 3));
  Type t = Type::tensor({64, 128}, Type::f32());
  EXPECT_EQ(t, Type::tensor({64, 128}, Type::f32()));
  EXPECT_NE(t, Type::tensor({128, 64}, Type::f32()));
  EXPECT_NE(t, Type::tensor({64, 128}, Type::f16()));
  EXPECT_EQ(t.withElementType(Type::f16()), Type::tensor({64, 128}, Type::f16()));
  EXPECT_EQ(Type::i32().withElementType(Type::f16()), Type::f16());
}

TEST(Types, Accessors) {
  Type t = Type::tensor({4, 8}, Type::pointer(Type::f16()));
  EXPECT_EQ(t.rank(), 2);
  EXPECT_EQ(t.numElements(), 32);
  EXPECT_TRUE(t.elementType().isPointer());
  EXPECT_EQ(t.elementType().pointeeType(), Type::f16());
  EXPECT_EQ(Type::f32().numElements(), 1);
  EXPECT_EQ(Type::f32().rank(), 0);
  EXPECT_EQ(Type::bf16().mantissaBits(), 7u);
  EXPECT_EQ(Type::bf16().exponentBits(), 8u);
  EXPECT_EQ(Type::scalar(TypeKind::F8E4M3FN).mantissaBits(), 3u);
  EXPECT_EQ(Type::i1().byteWidth(), 1u);
  EXPECT_EQ(Type::pointer(Type::i8()).byteWidth(), 8u);
  EXPECT_EQ(Type::pointer(Type::i8()).bitWidth(), 64u);
  Type bp = Type::pointer(Type::tensor({64, 64}, Type::f16()));
  EXPECT_TRUE(bp.isBlockPointer());
  EXPECT_FALSE(Type::pointer(Type::f16()).isBlockPointer());
  EXPECT_TRUE(bp.isScalar());
}

TEST(Types, PrintAndParse) {
  struct Case {
    Type type;
    const char* text;
  };
  Case cases[] = {
      {Type::i1(), "i1"},
      {Type::scalar(TypeKind::F8E4M3B11FNUZ), "f8E4M3B11FNUZ"},
      {Type::scalar(TypeKind::F8E4M3FN), "f8E4M3FN"},
      {Type::pointer(Type::f32()), "!tt.ptr<f32>"},
      {Type::pointer(Type::f32(), 3), "!tt.ptr<f32, 3>"},
      {Type::tensor({64, 128}, Type::f32()), "tensor<64x128xf32>"},
      {Type::tensor({128}, Type::pointer(Type::f16())), "tensor<128x!tt.ptr<f16>>"},
      {Type::pointer(Type::tensor({64, 64}, Type::f16())), "!tt.ptr<tensor<64x64xf16>>"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(c.type.str(), c.text);
    EXPECT_EQ(Type::parse(c.text), c.type) << c.text;
  }
}

TEST(Types, ParseRejectsMalformed) {
  for (const char* bad : {"", "i33", "f32x", "tensor<f32>", "tensor<4x>", "tensor<4xf32",
                          "!tt.ptr<>", "tensor<2xtensor<2xf32>>", "i32 i32", "!tt.ptr<f32, x>"})
    EXPECT_FALSE(Type::parse(bad)) << bad;
  EXPECT_EQ(Type::parse(" i32 "), Type::i32());
}

TEST(Types, InterningIsThreadSafe) {
  std::vector<Type> seen(8);
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&seen, i] {
      Type t;
      for (int64_t n = 1; n <= 200; ++n) t = Type::tensor({n, 7}, Type::pointer(Type::i8()));
      seen[i] = t;
    });
  for (auto& t : threads) t.join();
  for (Type t : seen) EXPECT_EQ(t, seen[0]);
}

}  // namespace
