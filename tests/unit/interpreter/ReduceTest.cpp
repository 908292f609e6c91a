//===- tests/unit/interpreter/ReduceTest.cpp - Reductions, scans, dot -----===//
//
// tt.reduce / tt.scan with arbitrary combine regions (vectorised tree and
// the sequential fallback), argmax-style tuple reductions with tie-breaking,
// and tt.dot for fp16 and int8 inputs.
//
//===----------------------------------------------------------------------===//

#include <cmath>

#include "TestUtil.h"

namespace tessera::interp::test {
namespace {

/// Kernel prologue: %x = the R x C tile of `elem` at %a (row-major), %offs its offsets.
std::string tileLoad(int R, int C, const std::string& elem) {
  std::string r = std::to_string(R), c = std::to_string(C);
  std::string t = "tensor<" + r + "x" + c;
  std::string col = "tensor<" + r + "x1xi32>";
  return "  %rows = tt.make_range {end = " + r + ", start = 0} : tensor<" + r + "xi32>\n"
         "  %cols = tt.make_range {end = " + c + ", start = 0} : tensor<" + c + "xi32>\n"
         "  %re = tt.expand_dims %rows {axis = 1} : tensor<" + r + "x1xi32>\n"
         "  %ce = tt.expand_dims %cols {axis = 0} : tensor<1x" + c + "xi32>\n"
         "  %cc = arith.constant {value = " + c + "} : " + col + "\n"
         "  %rs = arith.muli %re, %cc : " + col + "\n"
         "  %rb = tt.broadcast %rs : " + t + "xi32>\n"
         "  %cb = tt.broadcast %ce : " + t + "xi32>\n"
         "  %offs = arith.addi %rb, %cb : " + t + "xi32>\n"
         "  %ap = tt.splat %a : " + t + "x!tt.ptr<" + elem + ">>\n"
         "  %aq = tt.addptr %ap, %offs : " + t + "x!tt.ptr<" + elem + ">>\n"
         "  %x = tt.load %aq : " + t + "x" + elem + ">\n";
}

/// Stores %v (a 1-D tensor of n `elem`) to %o.
std::string storeVector(const std::string& v, int n, const std::string& elem, const std::string& suffix = "") {
  std::string N = std::to_string(n);
  return "  %sr" + suffix + " = tt.make_range {end = " + N + ", start = 0} : tensor<" + N + "xi32>\n"
         "  %sp" + suffix + " = tt.splat %o" + suffix + " : tensor<" + N + "x!tt.ptr<" + elem + ">>\n"
         "  %sq" + suffix + " = tt.addptr %sp" + suffix + ", %sr" + suffix + " : tensor<" + N + "x!tt.ptr<" + elem + ">>\n"
         "  tt.store %sq" + suffix + ", " + v + "\n";
}

TEST(InterpreterReduce, IntegerSumAlongEachAxis) {
  const int R = 16, C = 33;
  for (int axis : {0, 1}) {
    int outN = axis == 0 ? C : R;
    std::string text = "tt.func @k(%a: !tt.ptr<i32>, %o: !tt.ptr<i32>) attributes {kernel = true} {\n" +
                       tileLoad(R, C, "i32") + "  %s = tt.reduce %x {axis = " + std::to_string(axis) +
                       "} : tensor<" + std::to_string(outN) +
                       "xi32> {\n  ^bb0(%p: i32, %q: i32):\n    %t = arith.addi %p, %q : i32\n"
                       "    tt.reduce.return %t\n  }\n" + storeVector("%s", outN, "i32") + "  tt.return\n}\n";
    std::uniform_int_distribution<int32_t> dist(-1000000, 1000000);
    Buffer<int32_t> a(R * C), o(outN);
    for (auto& v : a.vec()) v = dist(rng());
    launch(text, "k", {a.arg(), o.arg()}, {1});
    for (int i = 0; i < outN; ++i) {
      int32_t ref = 0;
      for (int j = 0; j < (axis == 0 ? R : C); ++j) ref += axis == 0 ? a[j * C + i] : a[i * C + j];
      ASSERT_EQ(o[i], ref) << "axis " << axis << " i " << i;
    }
  }
}

// Argmax over rows of a tile with many ties: the combine keeps the larger
// value and, on equal values, the smaller index (Triton's tie-breaking).
const char* kArgmaxCombine = R"(
  ^bb0(%v0: f32, %i0: i32, %v1: f32, %i1: i32):
    %gt = arith.cmpf %v0, %v1 {predicate = "ogt"} : i1
    %eq = arith.cmpf %v0, %v1 {predicate = "oeq"} : i1
    %lt = arith.cmpi %i0, %i1 {predicate = "slt"} : i1
    %tie = arith.andi %eq, %lt : i1
    %take = arith.ori %gt, %tie : i1
    %mv = arith.select %take, %v0, %v1 : f32
    %mi = arith.select %take, %i0, %i1 : i32
    tt.reduce.return %mv, %mi
)";

void checkArgmax(bool withControlFlow) {
  const int R = 8, C = 37;
  std::string combine = kArgmaxCombine;
  if (withControlFlow) {
    // Same combine through scf.if: not lane-safe, runs the sequential path.
    combine = R"(
  ^bb0(%v0: f32, %i0: i32, %v1: f32, %i1: i32):
    %gt = arith.cmpf %v0, %v1 {predicate = "ogt"} : i1
    %eq = arith.cmpf %v0, %v1 {predicate = "oeq"} : i1
    %lt = arith.cmpi %i0, %i1 {predicate = "slt"} : i1
    %tie = arith.andi %eq, %lt : i1
    %take = arith.ori %gt, %tie : i1
    %mv, %mi = scf.if %take : f32, i32 {
      scf.yield %v0, %i0
    } {
      scf.yield %v1, %i1
    }
    tt.reduce.return %mv, %mi
)";
  }
  std::string text = "tt.func @k(%a: !tt.ptr<f32>, %o: !tt.ptr<i32>, %o2: !tt.ptr<f32>) attributes {kernel = true} {\n" +
                     tileLoad(R, C, "f32") + "  %idx = tt.broadcast %ce : tensor<8x37xi32>\n"
                     "  %m:2 = tt.reduce %x, %idx {axis = 1} : tensor<8xf32>, tensor<8xi32> {\n" + combine +
                     "  }\n" + storeVector("%m#1", R, "i32") + storeVector("%m#0", R, "f32", "2") + "  tt.return\n}\n";
  std::uniform_int_distribution<int> dist(0, 5);  // many ties
  Buffer<float> a(R * C), o2(R);
  Buffer<int32_t> o(R);
  for (auto& v : a.vec()) v = float(dist(rng()));
  launch(text, "k", {a.arg(), o.arg(), o2.arg()}, {1});
  for (int r = 0; r < R; ++r) {
    int best = 0;
    for (int c = 1; c < C; ++c)
      if (a[r * C + c] > a[r * C + best]) best = c;
    EXPECT_EQ(o[r], best) << "row " << r;
    EXPECT_EQ(o2[r], a[r * C + best]);
  }
}

TEST(InterpreterReduce, ArgmaxTupleReduceBreaksTiesTowardSmallerIndex) { checkArgmax(false); }
TEST(InterpreterReduce, ArgmaxWithControlFlowInCombine) { checkArgmax(true); }

TEST(InterpreterReduce, FloatSumOfRowsMatchesReference) {
  const int R = 4, C = 1024;
  std::string text = "tt.func @k(%a: !tt.ptr<f32>, %o: !tt.ptr<f32>) attributes {kernel = true} {\n" +
                     tileLoad(R, C, "f32") +
                     "  %s = tt.reduce %x {axis = 1} : tensor<4xf32> {\n  ^bb0(%p: f32, %q: f32):\n"
                     "    %t = arith.addf %p, %q : f32\n    tt.reduce.return %t\n  }\n" +
                     storeVector("%s", R, "f32") + "  tt.return\n}\n";
  std::uniform_real_distribution<float> dist(-1, 1);
  Buffer<float> a(R * C), o(R);
  for (auto& v : a.vec()) v = dist(rng());
  launch(text, "k", {a.arg(), o.arg()}, {1});
  for (int r = 0; r < R; ++r) {
    double ref = 0;
    for (int c = 0; c < C; ++c) ref += a[r * C + c];
    EXPECT_NEAR(o[r], ref, 1e-4);
  }
}

TEST(InterpreterReduce, InclusiveScanForwardAndReverse) {
  const int R = 5, C = 19;
  for (bool reverse : {false, true}) {
    for (int axis : {0, 1}) {
      std::string text = "tt.func @k(%a: !tt.ptr<i32>, %o: !tt.ptr<i32>) attributes {kernel = true} {\n" +
                         tileLoad(R, C, "i32") + "  %s = tt.scan %x {axis = " + std::to_string(axis) +
                         ", reverse = " + (reverse ? "true" : "false") +
                         "} : tensor<5x19xi32> {\n  ^bb0(%p: i32, %q: i32):\n    %t = arith.addi %p, %q : i32\n"
                         "    tt.scan.return %t\n  }\n"
                         "  %op = tt.splat %o : tensor<5x19x!tt.ptr<i32>>\n"
                         "  %oq = tt.addptr %op, %offs : tensor<5x19x!tt.ptr<i32>>\n"
                         "  tt.store %oq, %s\n  tt.return\n}\n";
      std::uniform_int_distribution<int32_t> dist(-100, 100);
      Buffer<int32_t> a(R * C), o(R * C);
      for (auto& v : a.vec()) v = dist(rng());
      launch(text, "k", {a.arg(), o.arg()}, {1});
      for (int r = 0; r < R; ++r)
        for (int c = 0; c < C; ++c) {
          int32_t ref = 0;
          int n = axis == 1 ? C : R, pos = axis == 1 ? c : r;
          for (int k = 0; k < n; ++k) {
            bool inside = reverse ? k >= pos : k <= pos;
            if (inside) ref += axis == 1 ? a[r * C + k] : a[k * C + c];
          }
          ASSERT_EQ(o[r * C + c], ref) << "axis " << axis << " reverse " << reverse << " at " << r << "," << c;
        }
    }
  }
}

float halfToFloatRef(uint16_t h) {
  int e = (h >> 10) & 31, m = h & 1023;
  double v = e == 0 ? m * std::ldexp(1.0, -24) : (1 + m / 1024.0) * std::ldexp(1.0, e - 15);
  return float((h & 0x8000) ? -v : v);
}

TEST(InterpreterReduce, DotF16AccumulatesInF32) {
  const char* text = R"(
tt.func @k(%a: !tt.ptr<f16>, %b: !tt.ptr<f16>, %c: !tt.ptr<f32>, %o: !tt.ptr<f32>) attributes {kernel = true} {
  %m = tt.make_range {end = 16, start = 0} : tensor<16xi32>
  %k = tt.make_range {end = 32, start = 0} : tensor<32xi32>
  %n = tt.make_range {end = 8, start = 0} : tensor<8xi32>
  %me = tt.expand_dims %m {axis = 1} : tensor<16x1xi32>
  %ke0 = tt.expand_dims %k {axis = 0} : tensor<1x32xi32>
  %ke1 = tt.expand_dims %k {axis = 1} : tensor<32x1xi32>
  %ne = tt.expand_dims %n {axis = 0} : tensor<1x8xi32>
  %c32 = arith.constant {value = 32} : tensor<16x1xi32>
  %c8 = arith.constant {value = 8} : tensor<32x1xi32>
  %c8m = arith.constant {value = 8} : tensor<16x1xi32>
  %am = arith.muli %me, %c32 : tensor<16x1xi32>
  %amb = tt.broadcast %am : tensor<16x32xi32>
  %akb = tt.broadcast %ke0 : tensor<16x32xi32>
  %aoff = arith.addi %amb, %akb : tensor<16x32xi32>
  %bk = arith.muli %ke1, %c8 : tensor<32x1xi32>
  %bkb = tt.broadcast %bk : tensor<32x8xi32>
  %bnb = tt.broadcast %ne : tensor<32x8xi32>
  %boff = arith.addi %bkb, %bnb : tensor<32x8xi32>
  %cm = arith.muli %me, %c8m : tensor<16x1xi32>
  %cmb = tt.broadcast %cm : tensor<16x8xi32>
  %cnb = tt.broadcast %ne : tensor<16x8xi32>
  %coff = arith.addi %cmb, %cnb : tensor<16x8xi32>
  %ap = tt.splat %a : tensor<16x32x!tt.ptr<f16>>
  %aq = tt.addptr %ap, %aoff : tensor<16x32x!tt.ptr<f16>>
  %bp = tt.splat %b : tensor<32x8x!tt.ptr<f16>>
  %bq = tt.addptr %bp, %boff : tensor<32x8x!tt.ptr<f16>>
  %cp = tt.splat %c : tensor<16x8x!tt.ptr<f32>>
  %cq = tt.addptr %cp, %coff : tensor<16x8x!tt.ptr<f32>>
  %op = tt.splat %o : tensor<16x8x!tt.ptr<f32>>
  %oq = tt.addptr %op, %coff : tensor<16x8x!tt.ptr<f32>>
  %av = tt.load %aq : tensor<16x32xf16>
  %bv = tt.load %bq : tensor<32x8xf16>
  %cv = tt.load %cq : tensor<16x8xf32>
  %d = tt.dot %av, %bv, %cv {input_precision = "ieee", max_num_imprecise_acc = 0} : tensor<16x8xf32>
  tt.store %oq, %d
  tt.return
}
)";
  std::uniform_int_distribution<int> bits(0x3000, 0x4400);  // ~[0.125, 4]
  Buffer<uint16_t> a(16 * 32), b(32 * 8);
  Buffer<float> c(16 * 8), o(16 * 8);
  for (auto& v : a.vec()) v = uint16_t(bits(rng()) | (rng()() & 0x8000));
  for (auto& v : b.vec()) v = uint16_t(bits(rng()));
  std::uniform_real_distribution<float> dist(-1, 1);
  for (auto& v : c.vec()) v = dist(rng());
  launch(text, "k", {a.arg(), b.arg(), c.arg(), o.arg()}, {1});
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) {
      double ref = c[i * 8 + j];
      for (int k = 0; k < 32; ++k) ref += double(halfToFloatRef(a[i * 32 + k])) * halfToFloatRef(b[k * 8 + j]);
      EXPECT_NEAR(o[i * 8 + j], ref, 1e-3 * (1 + std::fabs(ref)));
    }
}

}  // namespace
}  // namespace tessera::interp::test
