//===- tests/unit/interpreter/PerfTest.cpp - Throughput sanity checks -----===//
//
// The interpreter must be fast enough to run real kernels in tests: a 2^22
// element vector add and a 1024x1024 row softmax finish well under a second.
// Both print their throughput and check results.
//
//===----------------------------------------------------------------------===//

#include <chrono>
#include <cmath>

#include "TestUtil.h"

namespace tessera::interp::test {
namespace {

double seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(InterpreterPerf, VectorAdd4M) {
  const char* text = R"(
tt.func @add(%x: !tt.ptr<f32>, %y: !tt.ptr<f32>, %out: !tt.ptr<f32>, %n: i32) attributes {kernel = true} {
  %pid = tt.get_program_id {axis = 0} : i32
  %cb = arith.constant {value = 1024} : i32
  %start = arith.muli %pid, %cb : i32
  %r = tt.make_range {end = 1024, start = 0} : tensor<1024xi32>
  %s = tt.splat %start : tensor<1024xi32>
  %offs = arith.addi %s, %r : tensor<1024xi32>
  %ns = tt.splat %n : tensor<1024xi32>
  %mask = arith.cmpi %offs, %ns {predicate = "slt"} : tensor<1024xi1>
  %xp = tt.splat %x : tensor<1024x!tt.ptr<f32>>
  %xq = tt.addptr %xp, %offs : tensor<1024x!tt.ptr<f32>>
  %yp = tt.splat %y : tensor<1024x!tt.ptr<f32>>
  %yq = tt.addptr %yp, %offs : tensor<1024x!tt.ptr<f32>>
  %a = tt.load %xq, %mask : tensor<1024xf32>
  %b = tt.load %yq, %mask : tensor<1024xf32>
  %sum = arith.addf %a, %b : tensor<1024xf32>
  %op = tt.splat %out : tensor<1024x!tt.ptr<f32>>
  %oq = tt.addptr %op, %offs : tensor<1024x!tt.ptr<f32>>
  tt.store %oq, %sum, %mask
  tt.return
}
)";
  const int n = 1 << 22;
  Buffer<float> x(n), y(n), out(n);
  for (int i = 0; i < n; ++i) x[i] = float(i), y[i] = float(i % 1000) * 0.5f;
  auto module = parseKernel(text);
  LaunchConfig config;
  config.grid[0] = n / 1024;
  std::vector<RuntimeArg> args = {x.arg(), y.arg(), out.arg(), RuntimeArg::integer(n)};
  run(*module, "add", args, config);  // warm-up
  auto start = std::chrono::steady_clock::now();
  run(*module, "add", args, config);
  double t = seconds(start);
  std::printf("vector add 2^22 fp32: %.2f ms, %.2f GB/s\n", t * 1e3, 3.0 * 4 * n / t / 1e9);
  for (int i = 0; i < n; i += 4097) ASSERT_EQ(out[i], x[i] + y[i]);
  EXPECT_LT(t, 0.5);
}

TEST(InterpreterPerf, RowSoftmax1024) {
  const char* text = R"(
tt.func @softmax(%in: !tt.ptr<f32>, %out: !tt.ptr<f32>, %n: i32) attributes {kernel = true} {
  %row = tt.get_program_id {axis = 0} : i32
  %start = arith.muli %row, %n : i32
  %r = tt.make_range {end = 1024, start = 0} : tensor<1024xi32>
  %ns = tt.splat %n : tensor<1024xi32>
  %mask = arith.cmpi %r, %ns {predicate = "slt"} : tensor<1024xi1>
  %s = tt.splat %start : tensor<1024xi32>
  %offs = arith.addi %s, %r : tensor<1024xi32>
  %ip = tt.splat %in : tensor<1024x!tt.ptr<f32>>
  %iq = tt.addptr %ip, %offs : tensor<1024x!tt.ptr<f32>>
  %ninf = arith.constant {value = -inf} : tensor<1024xf32>
  %x = tt.load %iq, %mask, %ninf : tensor<1024xf32>
  %m = tt.reduce %x {axis = 0} : f32 {
  ^bb0(%a: f32, %b: f32):
    %t = arith.maxnumf %a, %b : f32
    tt.reduce.return %t
  }
  %ms = tt.splat %m : tensor<1024xf32>
  %d = arith.subf %x, %ms : tensor<1024xf32>
  %e = math.exp %d : tensor<1024xf32>
  %sum = tt.reduce %e {axis = 0} : f32 {
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    tt.reduce.return %t
  }
  %ss = tt.splat %sum : tensor<1024xf32>
  %y = arith.divf %e, %ss : tensor<1024xf32>
  %op = tt.splat %out : tensor<1024x!tt.ptr<f32>>
  %oq = tt.addptr %op, %offs : tensor<1024x!tt.ptr<f32>>
  tt.store %oq, %y, %mask
  tt.return
}
)";
  const int rows = 1024, cols = 1024;
  Buffer<float> in(rows * cols), out(rows * cols);
  std::uniform_real_distribution<float> dist(-5, 5);
  for (auto& v : in.vec()) v = dist(rng());
  auto module = parseKernel(text);
  LaunchConfig config;
  config.grid[0] = rows;
  std::vector<RuntimeArg> args = {in.arg(), out.arg(), RuntimeArg::integer(cols)};
  run(*module, "softmax", args, config);
  auto start = std::chrono::steady_clock::now();
  run(*module, "softmax", args, config);
  double t = seconds(start);
  std::printf("softmax 1024x1024 fp32: %.2f ms, %.2f GB/s\n", t * 1e3, 2.0 * 4 * rows * cols / t / 1e9);
  for (int r = 0; r < rows; r += 97) {
    double m = -INFINITY, s = 0;
    for (int c = 0; c < cols; ++c) m = std::max(m, double(in[r * cols + c]));
    for (int c = 0; c < cols; ++c) s += std::exp(double(in[r * cols + c]) - m);
    for (int c = 0; c < cols; c += 13)
      ASSERT_NEAR(out[r * cols + c], std::exp(double(in[r * cols + c]) - m) / s, 1e-6);
  }
  EXPECT_LT(t, 0.5);
}

}  // namespace
}  // namespace tessera::interp::test
