//===- tests/unit/interpreter/MemoryTest.cpp - Atomics, block pointers, ...-===//
//
// Atomics from many programs on all threads, block pointers with boundary
// checks and padding, shape ops (trans, join/split, cat, flip, sort, gather,
// histogram), tt.call of a noinline function and libdevice functions.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cmath>

#include "TestUtil.h"

namespace tessera::interp::test {
namespace {

TEST(InterpreterMemory, AtomicCounterFromManyPrograms) {
  const char* text = R"(
tt.func @k(%counter: !tt.ptr<i32>, %sum: !tt.ptr<f32>, %mx: !tt.ptr<i32>, %old: !tt.ptr<i32>) attributes {kernel = true} {
  %one = arith.constant {value = 1} : i32
  %pid = tt.get_program_id {axis = 0} : i32
  %prev = tt.atomic_rmw %counter, %one {kind = "add", scope = "gpu", sem = "acq_rel"} : i32
  %pf = arith.sitofp %pid : f32
  %s = tt.atomic_rmw %sum, %pf {kind = "fadd", scope = "gpu", sem = "acq_rel"} : f32
  %m = tt.atomic_rmw %mx, %pid {kind = "max", scope = "gpu", sem = "acq_rel"} : i32
  %q = tt.addptr %old, %prev : !tt.ptr<i32>
  tt.store %q, %pid
  tt.return
}
)";
  const int programs = 3000;
  Buffer<int32_t> counter(1), mx(1), old(programs);
  Buffer<float> sum(1);
  counter[0] = 0, mx[0] = -5, sum[0] = 0;
  launch(text, "k", {counter.arg(), sum.arg(), mx.arg(), old.arg()}, {programs});
  EXPECT_EQ(counter[0], programs);
  EXPECT_EQ(sum[0], float(programs) * (programs - 1) / 2);  // integers < 2^24: exact in any order
  EXPECT_EQ(mx[0], programs - 1);
  // The old values are a permutation of 0..programs-1: every program saw a distinct count.
  std::vector<int32_t> seen = old.vec();
  std::sort(seen.begin(), seen.end());
  for (int i = 0; i < programs; ++i) ASSERT_EQ(seen[i], i);
}

TEST(InterpreterMemory, MaskedAtomicsAndCas) {
  const char* text = R"(
tt.func @k(%p: !tt.ptr<i32>, %o: !tt.ptr<i32>, %f: !tt.ptr<f32>) attributes {kernel = true} {
  %r = tt.make_range {end = 8, start = 0} : tensor<8xi32>
  %ps = tt.splat %p : tensor<8x!tt.ptr<i32>>
  %pq = tt.addptr %ps, %r : tensor<8x!tt.ptr<i32>>
  %c4 = arith.constant {value = 4} : tensor<8xi32>
  %mask = arith.cmpi %r, %c4 {predicate = "slt"} : tensor<8xi1>
  %old = tt.atomic_rmw %pq, %r, %mask {kind = "xchg", scope = "gpu", sem = "acq_rel"} : tensor<8xi32>
  %os = tt.splat %o : tensor<8x!tt.ptr<i32>>
  %oq = tt.addptr %os, %r : tensor<8x!tt.ptr<i32>>
  tt.store %oq, %old
  %c2 = arith.constant {value = 2} : tensor<8xi32>
  %c9 = arith.constant {value = 9} : tensor<8xi32>
  %cas = tt.atomic_cas %pq, %c2, %c9 {scope = "gpu", sem = "acq_rel"} : tensor<8xi32>
  %fs = tt.splat %f : tensor<8x!tt.ptr<f32>>
  %fq = tt.addptr %fs, %r : tensor<8x!tt.ptr<f32>>
  %neg = arith.constant {value = -2.5} : tensor<8xf32>
  %fm = tt.atomic_rmw %fq, %neg {kind = "fmax", scope = "gpu", sem = "acq_rel"} : tensor<8xf32>
  tt.return
}
)";
  Buffer<int32_t> p({10, 11, 12, 13, 14, 15, 16, 17}), o(8);
  Buffer<float> f({-3.0f, -1.0f, 0.0f, -0.0f, 5.0f, -2.5f, -100.0f, 1.0f});
  launch(text, "k", {p.arg(), o.arg(), f.arg()}, {1});
  std::vector<int32_t> refOld = {10, 11, 12, 13, 0, 0, 0, 0};  // masked lanes return 0
  std::vector<int32_t> refP = {0, 1, 9, 3, 14, 15, 16, 17};    // xchg then cas(2 -> 9)
  EXPECT_EQ(o.vec(), refOld);
  EXPECT_EQ(p.vec(), refP);
  std::vector<float> refF = {-2.5f, -1.0f, 0.0f, -0.0f, 5.0f, -2.5f, -2.5f, 1.0f};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(f[i], refF[i]) << i;
  EXPECT_TRUE(std::signbit(f[3]));
}

TEST(InterpreterMemory, BlockPointerBoundaryCheckAndPadding) {
  // A 6x5 f32 matrix, an 4x4 block at offsets (4, 3) that hangs over both edges.
  const char* text = R"(
tt.func @k(%a: !tt.ptr<f32>, %o: !tt.ptr<f32>, %o2: !tt.ptr<f32>) attributes {kernel = true} {
  %m = arith.constant {value = 6} : i64
  %n = arith.constant {value = 5} : i64
  %s0 = arith.constant {value = 5} : i64
  %s1 = arith.constant {value = 1} : i64
  %z = arith.constant {value = 0} : i32
  %r0 = arith.constant {value = 2} : i32
  %c3 = arith.constant {value = 3} : i32
  %bp = tt.make_tensor_ptr %a, %m, %n, %s0, %s1, %z, %z {order = [1, 0]} : !tt.ptr<tensor<4x4xf32>>
  %bq = tt.advance %bp, %r0, %c3 : !tt.ptr<tensor<4x4xf32>>
  %x = tt.load %bq {boundary_check = [0, 1], padding = "nan"} : tensor<4x4xf32>
  %ob = tt.make_tensor_ptr %o, %m, %n, %s0, %s1, %z, %z {order = [1, 0]} : !tt.ptr<tensor<4x4xf32>>
  %oc = tt.advance %ob, %r0, %c3 : !tt.ptr<tensor<4x4xf32>>
  tt.store %oc, %x {boundary_check = [0, 1]}
  %y = tt.load %bq {boundary_check = [1], padding = "zero"} : tensor<4x4xf32>
  %sb = tt.make_tensor_ptr %o2, %m, %n, %s0, %s1, %z, %z {order = [1, 0]} : !tt.ptr<tensor<4x4xf32>>
  tt.store %sb, %y
  tt.return
}
)";
  Buffer<float> a(30), o(30), o2(30);
  for (int i = 0; i < 30; ++i) a[i] = float(i), o[i] = -1.0f, o2[i] = -1.0f;
  launch(text, "k", {a.arg(), o.arg(), o2.arg()}, {1});
  for (int r = 0; r < 6; ++r)
    for (int c = 0; c < 5; ++c) {
      bool inBlock = r >= 2 && c >= 3;
      EXPECT_EQ(o[r * 5 + c], inBlock ? a[r * 5 + c] : -1.0f) << r << "," << c;
    }
  // Rows 2..5 are in bounds; columns 3, 4 real, columns 5, 6 zero-padded.
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      EXPECT_EQ(o2[i * 5 + j], j < 2 ? a[(2 + i) * 5 + 3 + j] : 0.0f) << i << "," << j;
  // Without a check on dim 0, a block past the last row is an out-of-bounds load.
  const char* bad = R"(
tt.func @k(%a: !tt.ptr<f32>) attributes {kernel = true} {
  %m = arith.constant {value = 6} : i64
  %s1 = arith.constant {value = 1} : i64
  %off = arith.constant {value = 4} : i32
  %z = arith.constant {value = 0} : i32
  %bp = tt.make_tensor_ptr %a, %m, %m, %m, %s1, %off, %z {order = [1, 0]} : !tt.ptr<tensor<4x4xf32>>
  %x = tt.load %bp {boundary_check = [1], padding = "zero"} : tensor<4x4xf32>
  tt.return
}
)";
  Buffer<float> small(36, "small");
  std::string msg = errorOf([&] { launch(bad, "k", {small.arg()}, {1}); });
  EXPECT_NE(msg.find("out-of-bounds load"), std::string::npos) << msg;
  EXPECT_NE(msg.find("allocation 'small' (size 144 bytes)"), std::string::npos) << msg;
}

TEST(InterpreterMemory, ShapeOps) {
  const char* text = R"(
tt.func @k(%a: !tt.ptr<i32>, %o: !tt.ptr<i32>) attributes {kernel = true} {
  %r = tt.make_range {end = 8, start = 0} : tensor<8xi32>
  %ap = tt.splat %a : tensor<8x!tt.ptr<i32>>
  %aq = tt.addptr %ap, %r : tensor<8x!tt.ptr<i32>>
  %x = tt.load %aq : tensor<8xi32>
  %m = tt.reshape %x {allow_reorder = false} : tensor<2x4xi32>
  %t = tt.trans %m {order = [1, 0]} : tensor<4x2xi32>
  %tf = tt.reshape %t {allow_reorder = false} : tensor<8xi32>
  %j = tt.join %x, %r : tensor<8x2xi32>
  %s:2 = tt.split %j : tensor<8xi32>, tensor<8xi32>
  %c = tt.cat %tf, %s#1 : tensor<16xi32>
  %f = tt.flip %x {dim = 0} : tensor<8xi32>
  %so = tt.sort %x {descending = true} : tensor<8xi32>
  %c7 = arith.constant {value = 7} : tensor<8xi32>
  %rev = arith.subi %c7, %r : tensor<8xi32>
  %g = tt.gather %x, %rev {axis = 0} : tensor<8xi32>
  %c3 = arith.constant {value = 3} : tensor<8xi32>
  %low = arith.andi %x, %c3 : tensor<8xi32>
  %h = tt.histogram %low : tensor<4xi32>
  %r16 = tt.make_range {end = 16, start = 0} : tensor<16xi32>
  %op = tt.splat %o : tensor<16x!tt.ptr<i32>>
  %oq = tt.addptr %op, %r16 : tensor<16x!tt.ptr<i32>>
  tt.store %oq, %c
  %c16 = arith.constant {value = 16} : i32
  %o1 = tt.addptr %o, %c16 : !tt.ptr<i32>
  %o1s = tt.splat %o1 : tensor<8x!tt.ptr<i32>>
  %o1q = tt.addptr %o1s, %r : tensor<8x!tt.ptr<i32>>
  tt.store %o1q, %f
  %c24 = arith.constant {value = 24} : i32
  %o2 = tt.addptr %o, %c24 : !tt.ptr<i32>
  %o2s = tt.splat %o2 : tensor<8x!tt.ptr<i32>>
  %o2q = tt.addptr %o2s, %r : tensor<8x!tt.ptr<i32>>
  tt.store %o2q, %so
  %c32 = arith.constant {value = 32} : i32
  %o3 = tt.addptr %o, %c32 : !tt.ptr<i32>
  %o3s = tt.splat %o3 : tensor<8x!tt.ptr<i32>>
  %o3q = tt.addptr %o3s, %r : tensor<8x!tt.ptr<i32>>
  tt.store %o3q, %g
  %c40 = arith.constant {value = 40} : i32
  %o4 = tt.addptr %o, %c40 : !tt.ptr<i32>
  %r4 = tt.make_range {end = 4, start = 0} : tensor<4xi32>
  %o4s = tt.splat %o4 : tensor<4x!tt.ptr<i32>>
  %o4q = tt.addptr %o4s, %r4 : tensor<4x!tt.ptr<i32>>
  tt.store %o4q, %h
  tt.return
}
)";
  std::vector<int32_t> x = {5, -3, 9, 0, 2, 7, 7, 1};
  Buffer<int32_t> a(x), o(44);
  launch(text, "k", {a.arg(), o.arg()}, {1});
  std::vector<int32_t> trans = {5, 2, -3, 7, 9, 7, 0, 1};
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(o[i], trans[i]) << i;
    EXPECT_EQ(o[8 + i], i);             // split's second half is the range
    EXPECT_EQ(o[16 + i], x[7 - i]);     // flip
    EXPECT_EQ(o[32 + i], x[7 - i]);     // gather with reversed indices
  }
  std::vector<int32_t> sorted = x;
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  for (int i = 0; i < 8; ++i) EXPECT_EQ(o[24 + i], sorted[i]);
  std::vector<int32_t> hist(4, 0);
  for (int v : x) ++hist[v & 3];
  for (int i = 0; i < 4; ++i) EXPECT_EQ(o[40 + i], hist[i]);
}

TEST(InterpreterMemory, CallOfNoinlineFunctionAndLibdevice) {
  const char* text = R"(
tt.func @scale(%x: tensor<16xf32>, %s: f32) -> (tensor<16xf32>) attributes {noinline = true} {
  %ss = tt.splat %s : tensor<16xf32>
  %y = arith.mulf %x, %ss : tensor<16xf32>
  tt.return %y
}
tt.func @k(%a: !tt.ptr<f32>, %o: !tt.ptr<f32>, %s: f32) attributes {kernel = true} {
  %r = tt.make_range {end = 16, start = 0} : tensor<16xi32>
  %ap = tt.splat %a : tensor<16x!tt.ptr<f32>>
  %aq = tt.addptr %ap, %r : tensor<16x!tt.ptr<f32>>
  %x = tt.load %aq : tensor<16xf32>
  %y = tt.call %x, %s {callee = "scale"} : tensor<16xf32>
  %t = tt.extern_elementwise %y {pure = true, symbol = "__nv_tanhf"} : tensor<16xf32>
  %e = tt.extern_elementwise %t {pure = true, symbol = "__nv_erfinvf"} : tensor<16xf32>
  %op = tt.splat %o : tensor<16x!tt.ptr<f32>>
  %oq = tt.addptr %op, %r : tensor<16x!tt.ptr<f32>>
  tt.store %oq, %e
  tt.return
}
)";
  Buffer<float> a(16), o(16);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (auto& v : a.vec()) v = dist(rng());
  std::string ir = text;
  launch(ir, "k", {a.arg(), o.arg(), RuntimeArg::floating(0.75)}, {1});
  for (int i = 0; i < 16; ++i) {
    double t = std::tanh(double(a[i] * 0.75f));
    EXPECT_NEAR(std::erf(double(o[i])), t, 1e-6) << i;
  }
  std::string unknown = R"(
tt.func @k(%x: f32) attributes {kernel = true} {
  %y = tt.extern_elementwise %x {pure = true, symbol = "__nv_frobnicatef"} : f32
  tt.return
}
)";
  std::string msg = errorOf([&] { launch(unknown, "k", {RuntimeArg::floating(1)}, {1}); });
  EXPECT_NE(msg.find("__nv_frobnicatef"), std::string::npos) << msg;
}

}  // namespace
}  // namespace tessera::interp::test
