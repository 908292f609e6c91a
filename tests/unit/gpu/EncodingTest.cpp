//===- EncodingTest.cpp - Encodings on tensor types: text form, uniquing --===//
//
// Every encoding family prints back exactly as parsed inside a tensor type,
// and interning makes equal parameters the same handle (so tensor types with
// different encodings are different types).
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include "tessera/ir/Types.h"

using namespace tessera::ir;

namespace {

/// Parses `text` as a type and prints it again.
std::string roundTrip(const std::string& text) {
  Type t = Type::parse(text);
  EXPECT_TRUE(t) << "failed to parse " << text;
  return t ? t.str() : "";
}

TEST(Encoding, BlockedRoundTrips) {
  std::string text =
      "tensor<64x128xf32, #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], "
      "order = [1, 0]}>>";
  EXPECT_EQ(roundTrip(text), text);
  Type t = Type::parse(text);
  ASSERT_TRUE(t);
  Encoding e = t.encoding();
  ASSERT_TRUE(e.isBlocked());
  EXPECT_EQ(e.sizePerThread(), (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(e.threadsPerWarp(), (std::vector<int64_t>{8, 4}));
  EXPECT_EQ(e.warpsPerCTA(), (std::vector<int64_t>{4, 1}));
  EXPECT_EQ(e.order(), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(e.rank(), 2);
  EXPECT_EQ(t.shape(), (std::vector<int64_t>{64, 128}));
}

TEST(Encoding, SliceRoundTrips) {
  std::string text =
      "tensor<64xf32, #ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], "
      "warpsPerCTA = [4, 1], order = [1, 0]}>}>>";
  EXPECT_EQ(roundTrip(text), text);
  Encoding e = Type::parse(text).encoding();
  ASSERT_TRUE(e.isSlice());
  EXPECT_EQ(e.sliceDim(), 1);
  EXPECT_TRUE(e.parent().isBlocked());
  EXPECT_EQ(e.rank(), 1);
  // A slice of a slice.
  std::string nested =
      "tensor<8xi32, #ttg.slice<{dim = 0, parent = #ttg.slice<{dim = 2, parent = #ttg.blocked<{sizePerThread = "
      "[1, 1, 1], threadsPerWarp = [2, 4, 4], warpsPerCTA = [1, 2, 2], order = [2, 1, 0]}>}>}>>";
  EXPECT_EQ(roundTrip(nested), nested);
  EXPECT_EQ(Type::parse(nested).encoding().rank(), 1);
}

TEST(Encoding, SwizzledSharedRoundTrips) {
  std::string text = "tensor<64x128xf16, #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>>";
  EXPECT_EQ(roundTrip(text), text);
  Encoding e = Type::parse(text).encoding();
  ASSERT_TRUE(e.isShared());
  EXPECT_EQ(e.vec(), 8);
  EXPECT_EQ(e.perPhase(), 1);
  EXPECT_EQ(e.maxPhase(), 8);
  EXPECT_EQ(e.order(), (std::vector<int64_t>{1, 0}));
}

TEST(Encoding, NvmmaSharedRoundTrips) {
  std::string text = "tensor<64x64xf16, #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>>";
  EXPECT_EQ(roundTrip(text), text);
  Encoding e = Type::parse(text).encoding();
  ASSERT_TRUE(e.isShared());
  ASSERT_TRUE(e.isNvmmaShared());
  EXPECT_EQ(e.swizzlingByteWidth(), 128);
  EXPECT_FALSE(e.transposed());
  EXPECT_EQ(e.elementBitWidth(), 16);
  EXPECT_EQ(e.rank(), 2);
  EXPECT_FALSE(Type::parse("tensor<64x64xf16, #ttg.nvmma_shared<{swizzlingByteWidth = 96, transposed = false, "
                           "elementBitWidth = 16}>>"));
}

TEST(Encoding, LinearRoundTrips) {
  std::string text =
      "tensor<8x32xf32, #ttg.linear<{register = [[0, 1], [0, 2]], lane = [[0, 4], [0, 8], [0, 16], [1, 0], [2, 0]], "
      "warp = [[4, 0]], block = []}>>";
  EXPECT_EQ(roundTrip(text), text);
  Encoding e = Type::parse(text).encoding();
  ASSERT_TRUE(e.isLinear());
  ASSERT_EQ(e.bases().size(), 4u);
  EXPECT_EQ(e.bases()[0], (std::vector<std::vector<int64_t>>{{0, 1}, {0, 2}}));
  EXPECT_EQ(e.bases()[2], (std::vector<std::vector<int64_t>>{{4, 0}}));
  EXPECT_TRUE(e.bases()[3].empty());
  EXPECT_EQ(e.rank(), 2);
}

TEST(Encoding, EqualParametersGiveTheSameHandle) {
  Encoding a = Encoding::blocked({1, 4}, {8, 4}, {4, 1}, {1, 0});
  Encoding b = Encoding::blocked({1, 4}, {8, 4}, {4, 1}, {1, 0});
  Encoding c = Encoding::blocked({1, 4}, {8, 4}, {4, 1}, {0, 1});
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.impl(), b.impl());
  EXPECT_NE(a, c);
  EXPECT_EQ(Encoding::slice(1, a), Encoding::slice(1, b));
  EXPECT_NE(Encoding::slice(1, a), Encoding::slice(0, a));
  EXPECT_NE(Encoding::slice(1, a), Encoding::slice(1, c));
  EXPECT_EQ(Encoding::swizzledShared(8, 1, 8, {1, 0}), Encoding::swizzledShared(8, 1, 8, {1, 0}));
  EXPECT_NE(Encoding::swizzledShared(8, 1, 8, {1, 0}), Encoding::swizzledShared(8, 2, 4, {1, 0}));
  LinearBases lb = {{{0, 1}}, {{1, 0}}, {}, {}};
  LinearBases lb2 = {{{0, 1}}, {}, {{1, 0}}, {}};
  EXPECT_EQ(Encoding::linear(lb), Encoding::linear(lb));
  EXPECT_NE(Encoding::linear(lb), Encoding::linear(lb2));
  // The parsed form is the same handle as the built one.
  EXPECT_EQ(Type::parse("tensor<64x128xf32, " + a.str() + ">").encoding(), a);
}

TEST(Encoding, TensorTypesWithDifferentEncodingsDiffer) {
  Encoding a = Encoding::blocked({1, 4}, {8, 4}, {4, 1}, {1, 0});
  Encoding c = Encoding::blocked({4, 1}, {4, 8}, {1, 4}, {0, 1});
  Type plain = Type::tensor({64, 128}, Type::f32());
  Type ta = Type::tensor({64, 128}, Type::f32(), a);
  Type ta2 = Type::tensor({64, 128}, Type::f32(), a);
  Type tc = Type::tensor({64, 128}, Type::f32(), c);
  EXPECT_EQ(ta, ta2);
  EXPECT_NE(ta, tc);
  EXPECT_NE(ta, plain);
  EXPECT_EQ(ta.withEncoding({}), plain);
  EXPECT_EQ(plain.withEncoding(c), tc);
  EXPECT_EQ(ta.encoding(), a);
  EXPECT_FALSE(plain.encoding());
  EXPECT_EQ(Type::parse(ta.str()), ta);
  EXPECT_EQ(Type::parse(tc.str()), tc);
}

TEST(Encoding, MalformedEncodingsDoNotParse) {
  EXPECT_FALSE(Type::parse("tensor<64xf32, #ttg.blocked<{sizePerThread = [1]}>>"));
  EXPECT_FALSE(Type::parse("tensor<64xf32, #ttg.nonsense<{}>>"));
  EXPECT_FALSE(Type::parse("tensor<64xf32, #ttg.slice<{dim = 0}>>"));
}

}  // namespace
