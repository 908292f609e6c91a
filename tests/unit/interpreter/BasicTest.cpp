//===- tests/unit/interpreter/BasicTest.cpp - Core execution tests --------===//
//
// Vector add with masks, control flow, integer semantics, and the user
// errors the interpreter reports (out of bounds, asserts) and its warning on
// integer division by zero.
//
//===----------------------------------------------------------------------===//

#include <cmath>
#include <limits>

#include "TestUtil.h"

namespace tessera::interp::test {
namespace {

const char* kVectorAdd = R"(
tt.func @add(%x: !tt.ptr<f32>, %y: !tt.ptr<f32>, %out: !tt.ptr<f32>, %n: i32) attributes {kernel = true} {
  %pid = tt.get_program_id {axis = 0} : i32
  %c128 = arith.constant {value = 128} : i32
  %start = arith.muli %pid, %c128 : i32
  %r = tt.make_range {end = 128, start = 0} : tensor<128xi32>
  %s = tt.splat %start : tensor<128xi32>
  %offs = arith.addi %s, %r : tensor<128xi32>
  %ns = tt.splat %n : tensor<128xi32>
  %mask = arith.cmpi %offs, %ns {predicate = "slt"} : tensor<128xi1>
  %xp = tt.splat %x : tensor<128x!tt.ptr<f32>>
  %xq = tt.addptr %xp, %offs : tensor<128x!tt.ptr<f32>>
  %yp = tt.splat %y : tensor<128x!tt.ptr<f32>>
  %yq = tt.addptr %yp, %offs : tensor<128x!tt.ptr<f32>>
  %a = tt.load %xq, %mask : tensor<128xf32>
  %b = tt.load %yq, %mask : tensor<128xf32>
  %sum = arith.addf %a, %b : tensor<128xf32>
  %op = tt.splat %out : tensor<128x!tt.ptr<f32>>
  %oq = tt.addptr %op, %offs : tensor<128x!tt.ptr<f32>>
  tt.store %oq, %sum, %mask loc("add.py":17:5)
  tt.return
}
)";

TEST(InterpreterBasic, VectorAddWithMask) {
  std::uniform_real_distribution<float> dist(-100, 100);
  for (int n : {1, 127, 128, 1000, 4099}) {
    Buffer<float> x(n), y(n), out(n + 1);
    for (int i = 0; i < n; ++i) x[i] = dist(rng()), y[i] = dist(rng());
    out[n] = 42.0f;  // just past the end: must not be written
    int64_t programs = (n + 127) / 128;
    launch(kVectorAdd, "add", {x.arg(), y.arg(), out.arg(), RuntimeArg::integer(n)}, {programs});
    for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], x[i] + y[i]) << "n=" << n << " i=" << i;
    EXPECT_EQ(out[n], 42.0f);
  }
}

TEST(InterpreterBasic, OutOfBoundsStoreReportsKernelLineProgramAndAllocation) {
  Buffer<float> x(200, "x"), y(200, "y"), out(100, "out");
  std::string msg = errorOf([&] {
    launch(kVectorAdd, "add", {x.arg(), y.arg(), out.arg(), RuntimeArg::integer(200)}, {2});
  });
  EXPECT_NE(msg.find("add: out-of-bounds store at add.py:17:5 in program (0, 0, 0)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("bytes past the end of allocation 'out' (size 400 bytes)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("address 0x"), std::string::npos) << msg;
  // Lane 100 of program 0 is the first bad one: 4 bytes past the end.
  EXPECT_NE(msg.find("is 4 bytes past the end"), std::string::npos) << msg;
}

TEST(InterpreterBasic, AccessOutsideAnyAllocation) {
  Buffer<float> y(256), out(256);
  std::string msg = errorOf([&] {
    launch(kVectorAdd, "add",
           {RuntimeArg::ptr(reinterpret_cast<void*>(0x10000)), y.arg(), out.arg(), RuntimeArg::integer(256)}, {2});
  });
  EXPECT_NE(msg.find("out-of-bounds load"), std::string::npos) << msg;
  EXPECT_NE(msg.find("not inside any allocation"), std::string::npos) << msg;
}

// Loop with iteration arguments: sum_{i<n} i and a Fibonacci pair (swapped yields).
TEST(InterpreterBasic, ForLoopWithSwappedIterArgs) {
  const char* text = R"(
tt.func @k(%out: !tt.ptr<i64>, %n: i32) attributes {kernel = true} {
  %c0 = arith.constant {value = 0} : i32
  %c1 = arith.constant {value = 1} : i32
  %z = arith.constant {value = 0} : i64
  %o = arith.constant {value = 1} : i64
  %r:3 = scf.for %c0, %n, %c1, %z, %z, %o : i64, i64, i64 {
  ^bb0(%i: i32, %acc: i64, %a: i64, %b: i64):
    %ie = arith.extsi %i : i64
    %acc2 = arith.addi %acc, %ie : i64
    %ab = arith.addi %a, %b : i64
    scf.yield %acc2, %b, %ab
  }
  tt.store %out, %r#0
  %p1 = tt.addptr %out, %c1 : !tt.ptr<i64>
  tt.store %p1, %r#1
  tt.return
}
)";
  Buffer<int64_t> out(2);
  launch(text, "k", {out.arg(), RuntimeArg::integer(50)}, {1});
  EXPECT_EQ(out[0], 50 * 49 / 2);
  EXPECT_EQ(out[1], 12586269025ll);  // fib(50)
}

TEST(InterpreterBasic, WhileLoopCollatz) {
  const char* text = R"(
tt.func @k(%out: !tt.ptr<i32>, %start: i32) attributes {kernel = true} {
  %c0 = arith.constant {value = 0} : i32
  %c1 = arith.constant {value = 1} : i32
  %c2 = arith.constant {value = 2} : i32
  %c3 = arith.constant {value = 3} : i32
  %w:2 = scf.while %start, %c0 : i32, i32 {
  ^bb0(%x: i32, %steps: i32):
    %go = arith.cmpi %x, %c1 {predicate = "ne"} : i1
    scf.condition %go, %x, %steps
  } {
  ^bb0(%y: i32, %s: i32):
    %r = arith.remsi %y, %c2 : i32
    %odd = arith.cmpi %r, %c0 {predicate = "ne"} : i1
    %nx = scf.if %odd : i32 {
      %t = arith.muli %y, %c3 : i32
      %t1 = arith.addi %t, %c1 : i32
      scf.yield %t1
    } {
      %h = arith.divsi %y, %c2 : i32
      scf.yield %h
    }
    %s1 = arith.addi %s, %c1 : i32
    scf.yield %nx, %s1
  }
  tt.store %out, %w#1
  tt.return
}
)";
  Buffer<int32_t> out(1);
  launch(text, "k", {out.arg(), RuntimeArg::integer(27)}, {1});
  EXPECT_EQ(out[0], 111);
}

TEST(InterpreterBasic, LoopIterationLimit) {
  const char* text = R"(
tt.func @k(%n: i32) attributes {kernel = true} {
  %t = arith.constant {value = 1} : i1
  %w = scf.while %n : i32 {
  ^bb0(%x: i32):
    scf.condition %t, %x
  } {
  ^bb0(%y: i32):
    scf.yield %y
  }
  tt.return
}
)";
  auto module = parseKernel(text);
  LaunchConfig config;
  config.loopIterationLimit = 1000;
  std::string msg = errorOf([&] { run(*module, "k", {RuntimeArg::integer(1)}, config); });
  EXPECT_NE(msg.find("loop iteration limit"), std::string::npos) << msg;
}

// Binary integer op on i32 tensors: out[i] = a[i] OP b[i].
std::string intBinaryKernel(const std::string& op, const std::string& type = "i32", const std::string& attrs = "") {
  std::string t = "tensor<64x" + type + ">";
  return "tt.func @k(%a: !tt.ptr<" + type + ">, %b: !tt.ptr<" + type + ">, %o: !tt.ptr<" + type +
         ">) attributes {kernel = true} {\n"
         "  %r = tt.make_range {end = 64, start = 0} : tensor<64xi32>\n"
         "  %ap = tt.splat %a : tensor<64x!tt.ptr<" + type + ">>\n"
         "  %aq = tt.addptr %ap, %r : tensor<64x!tt.ptr<" + type + ">>\n"
         "  %bp = tt.splat %b : tensor<64x!tt.ptr<" + type + ">>\n"
         "  %bq = tt.addptr %bp, %r : tensor<64x!tt.ptr<" + type + ">>\n"
         "  %op = tt.splat %o : tensor<64x!tt.ptr<" + type + ">>\n"
         "  %oq = tt.addptr %op, %r : tensor<64x!tt.ptr<" + type + ">>\n"
         "  %x = tt.load %aq : " + t + "\n"
         "  %y = tt.load %bq : " + t + "\n"
         "  %z = " + op + " %x, %y " + attrs + " : " + t + " loc(\"int.py\":3:9)\n"
         "  tt.store %oq, %z\n"
         "  tt.return\n}\n";
}

template <class T, class Ref>
void checkIntOp(std::string op, const std::string& type, Ref ref, bool nonzeroB, bool smallB = false) {
  std::string attrs;
  if (auto space = op.find(' '); space != std::string::npos) attrs = op.substr(space + 1), op = op.substr(0, space);
  std::uniform_int_distribution<int64_t> dist(std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
  std::uniform_int_distribution<int64_t> small(-3, 80);
  std::vector<T> edge = {0, 1, T(-1), std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), 7, T(-7), 2};
  Buffer<T> a(64), b(64), o(64);
  for (int i = 0; i < 64; ++i) {
    a[i] = i < 8 ? edge[i] : T(dist(rng()));
    b[i] = i < 8 ? edge[(i * 3 + 1) % 8] : T(smallB ? small(rng()) : dist(rng()));
    if (nonzeroB && b[i] == 0) b[i] = 3;
  }
  launch(intBinaryKernel(op, type, attrs), "k", {a.arg(), b.arg(), o.arg()}, {1});
  for (int i = 0; i < 64; ++i)
    ASSERT_EQ(o[i], ref(a[i], b[i])) << op << " " << int64_t(a[i]) << ", " << int64_t(b[i]);
}

TEST(InterpreterBasic, IntegerSemantics) {
  using U = uint32_t;
  checkIntOp<int32_t>("arith.addi", "i32", [](int32_t a, int32_t b) { return int32_t(U(a) + U(b)); }, false);
  checkIntOp<int32_t>("arith.subi", "i32", [](int32_t a, int32_t b) { return int32_t(U(a) - U(b)); }, false);
  checkIntOp<int32_t>("arith.muli", "i32", [](int32_t a, int32_t b) { return int32_t(U(a) * U(b)); }, false);
  // Truncating division; INT_MIN / -1 wraps to INT_MIN, INT_MIN % -1 = 0.
  checkIntOp<int32_t>("arith.divsi", "i32", [](int32_t a, int32_t b) {
    return (a == INT32_MIN && b == -1) ? a : a / b; }, true);
  checkIntOp<int32_t>("arith.remsi", "i32", [](int32_t a, int32_t b) { return b == -1 ? 0 : a % b; }, true);
  checkIntOp<int32_t>("arith.divui", "i32", [](int32_t a, int32_t b) { return int32_t(U(a) / U(b)); }, true);
  checkIntOp<int32_t>("arith.remui", "i32", [](int32_t a, int32_t b) { return int32_t(U(a) % U(b)); }, true);
  // Shifts by >= the width give 0 or the sign fill; negative amounts are huge unsigned.
  checkIntOp<int32_t>("arith.shli", "i32", [](int32_t a, int32_t b) { return U(b) >= 32 ? 0 : int32_t(U(a) << b); }, false, true);
  checkIntOp<int32_t>("arith.shrui", "i32", [](int32_t a, int32_t b) { return U(b) >= 32 ? 0 : int32_t(U(a) >> b); }, false, true);
  checkIntOp<int32_t>("arith.shrsi", "i32", [](int32_t a, int32_t b) { return U(b) >= 32 ? (a < 0 ? -1 : 0) : a >> b; }, false, true);
  checkIntOp<int32_t>("arith.maxui", "i32", [](int32_t a, int32_t b) { return U(a) > U(b) ? a : b; }, false);
  checkIntOp<int32_t>("arith.minsi", "i32", [](int32_t a, int32_t b) { return a < b ? a : b; }, false);
  checkIntOp<int8_t>("arith.muli", "i8", [](int8_t a, int8_t b) { return int8_t(uint8_t(a) * uint8_t(b)); }, false);
  checkIntOp<int8_t>("arith.divsi", "i8", [](int8_t a, int8_t b) { return (a == -128 && b == -1) ? a : int8_t(a / b); }, true);
  checkIntOp<int16_t>("arith.shrsi", "i16", [](int16_t a, int16_t b) {
    return uint16_t(b) >= 16 ? int16_t(a < 0 ? -1 : 0) : int16_t(a >> b); }, false, true);
  checkIntOp<int64_t>("arith.muli", "i64", [](int64_t a, int64_t b) { return int64_t(uint64_t(a) * uint64_t(b)); }, false);
  checkIntOp<int64_t>("arith.remsi", "i64", [](int64_t a, int64_t b) { return b == -1 ? 0 : a % b; }, true);
  checkIntOp<int64_t>("math.mulhi {signed = true}", "i64", [](int64_t a, int64_t b) {
    return int64_t((__int128(a) * __int128(b)) >> 64); }, false);
  checkIntOp<int32_t>("math.mulhi", "i32", [](int32_t a, int32_t b) {
    return int32_t((uint64_t(uint32_t(a)) * uint32_t(b)) >> 32); }, false);
}

// Undefined in Triton; common in masked-off lanes of a load without
// `other` (which read 0). A warning naming the place, once per op, and 0.
TEST(InterpreterBasic, IntegerDivisionByZeroWarnsAndGivesZero) {
  for (const char* op : {"arith.divsi", "arith.remsi", "arith.divui", "arith.remui"}) {
    SCOPED_TRACE(op);
    Buffer<int32_t> a(64), b(64), o(64);
    for (int i = 0; i < 64; ++i) a[i] = 100 + 7 * i, b[i] = i == 5 || i == 9 ? 0 : 3;
    testing::internal::CaptureStderr();
    launch(intBinaryKernel(op), "k", {a.arg(), b.arg(), o.arg()}, {1});
    launch(intBinaryKernel(op), "k", {a.arg(), b.arg(), o.arg()}, {1});
    std::string err = testing::internal::GetCapturedStderr();
    bool rem = std::string(op).find("rem") != std::string::npos;
    for (int i = 0; i < 64; ++i) ASSERT_EQ(o[i], b[i] == 0 ? 0 : rem ? a[i] % 3 : a[i] / 3) << i;
    EXPECT_NE(err.find("int.py:3:9: warning: k: integer division by zero in program (0, 0, 0) (lane 5); the result "
                       "is 0 here, undefined on the GPU"),
              std::string::npos)
        << err;
    size_t first = err.find("warning:");
    EXPECT_EQ(err.find("warning:", first + 1), std::string::npos) << "warned twice: " << err;
  }
}

TEST(InterpreterBasic, DeviceAssert) {
  const char* text = R"(
tt.func @k(%n: i32) attributes {kernel = true} {
  %r = tt.make_range {end = 8, start = 0} : tensor<8xi32>
  %pid = tt.get_program_id {axis = 1} : i32
  %ps = tt.splat %pid : tensor<8xi32>
  %v = arith.addi %r, %ps : tensor<8xi32>
  %ns = tt.splat %n : tensor<8xi32>
  %ok = arith.cmpi %v, %ns {predicate = "slt"} : tensor<8xi1>
  tt.assert %ok {file = "a.py", func = "k", line = 4, message = "v < n"} loc("a.py":4:5)
  tt.return
}
)";
  EXPECT_EQ(errorOf([&] { launch(text, "k", {RuntimeArg::integer(100)}, {1, 3}); }), "");
  std::string msg = errorOf([&] { launch(text, "k", {RuntimeArg::integer(8)}, {1, 3}, 1); });
  // Program (0, 1, 0) is the first to fail: lane 7 has 7 + 1 = 8.
  EXPECT_NE(msg.find("k: device assertion failed at a.py:4:5 in program (0, 1, 0), index (7): v < n"),
            std::string::npos) << msg;
}

TEST(InterpreterBasic, DevicePrint) {
  const char* text = R"(
tt.func @k(%x: i32) attributes {kernel = true} {
  %r = tt.make_range {end = 12, start = 0} : tensor<12xi32>
  %pid = tt.get_program_id {axis = 0} : i32
  %ps = tt.splat %pid : tensor<12xi32>
  %v = arith.muli %r, %ps : tensor<12xi32>
  tt.print %v {hex = false, is_signed = [1], prefix = " v: "}
  tt.print %x {hex = true, is_signed = [1], prefix = " x: "}
  tt.return
}
)";
  testing::internal::CaptureStdout();
  launch(text, "k", {RuntimeArg::integer(255)}, {2});
  std::string out = testing::internal::GetCapturedStdout();
  EXPECT_NE(out.find("pid (1, 0, 0) idx ( 3) v: 3\n"), std::string::npos) << out;
  EXPECT_NE(out.find("pid (1, 0, 0) idx (11) v: 11\n"), std::string::npos) << out;
  EXPECT_NE(out.find("pid (0, 0, 0) idx ( 7) v: 0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("pid (0, 0, 0) x: 0x000000ff\n"), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 26);
}

TEST(InterpreterBasic, InlineAsmIsRejected) {
  const char* text = R"(
tt.func @k(%x: i32) attributes {kernel = true} {
  %y = tt.elementwise_inline_asm %x {asm = "mov.b32 $0, $1;", constraints = "=r,r", pack = 1, pure = true} : i32
  tt.return
}
)";
  std::string msg = errorOf([&] { launch(text, "k", {RuntimeArg::integer(1)}, {1}); });
  EXPECT_NE(msg.find("inline_asm_elementwise is not supported in the interpreter"), std::string::npos) << msg;
}

}  // namespace
}  // namespace tessera::interp::test
