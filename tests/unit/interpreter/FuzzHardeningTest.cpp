//===- FuzzHardeningTest.cpp - Interpreter inputs the fuzzer broke on -----===//
//
// Each case once hit undefined behaviour in the interpreter under UBSan
// (tests/fuzz/regressions/ keeps the kernel sources that reached it).
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <string>

#include "TestUtil.h"

namespace tessera::interp::test {
namespace {

// Block-pointer addresses are 64-bit wrapping arithmetic like the GPU's:
// stride INT64_MAX times row 1 (times 4 bytes) overflowed int64 (UB). Rows past
// the checked boundary are padded; an unchecked wild address is reported.
TEST(InterpreterFuzzHardening, BlockPointerHugeStride) {
  const char* text = R"(
tt.func @k(%a: !tt.ptr<f32>, %o: !tt.ptr<f32>) attributes {kernel = true} {
  %one = arith.constant {value = 1} : i64
  %n = arith.constant {value = 4} : i64
  %big = arith.constant {value = 9223372036854775807} : i64
  %z = arith.constant {value = 0} : i32
  %bp = tt.make_tensor_ptr %a, %one, %n, %big, %one, %z, %z {order = [1, 0]} : !tt.ptr<tensor<4x4xf32>>
  %x = tt.load %bp {boundary_check = [0, 1], padding = "zero"} : tensor<4x4xf32>
  %ob = tt.make_tensor_ptr %o, %n, %n, %n, %one, %z, %z {order = [1, 0]} : !tt.ptr<tensor<4x4xf32>>
  tt.store %ob, %x {boundary_check = [0, 1]}
  tt.return
}
)";
  Buffer<float> a(16), o(16);
  for (int i = 0; i < 16; ++i) a[i] = float(i + 1), o[i] = -1.0f;
  launch(text, "k", {a.arg(), o.arg()}, {1});
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(o[i * 4 + j], i == 0 ? a[j] : 0.0f) << i << "," << j;

  const char* wild = R"(
tt.func @k(%a: !tt.ptr<f32>) attributes {kernel = true} {
  %one = arith.constant {value = 1} : i64
  %n = arith.constant {value = 1024} : i64
  %big = arith.constant {value = 9223372036854775807} : i64
  %z = arith.constant {value = 0} : i32
  %bp = tt.make_tensor_ptr %a, %n, %n, %big, %one, %z, %z {order = [1, 0]} : !tt.ptr<tensor<4x4xf32>>
  %x = tt.load %bp {boundary_check = [0, 1], padding = "zero"} : tensor<4x4xf32>
  tt.return
}
)";
  std::string msg = errorOf([&] { launch(wild, "k", {a.arg()}, {1}); });
  EXPECT_NE(msg.find("out-of-bounds load"), std::string::npos) << msg;
}

}  // namespace
}  // namespace tessera::interp::test
