//===- DebugTest.cpp - static_print/assert, device_print/assert, asm ------===//
//
// kernels/debugging.py: static_assert passing and static_print writing at
// compile time, device_print lines (one per element, plus the scalar once
// per program), device_assert raising tessera::Error only in debug mode,
// and inline_asm_elementwise refused clearly by the interpreter.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <sstream>

#include "e2e/Harness.h"

using namespace e2e;
using tessera::DType;

namespace {

const char* kFile = "debugging.py";

std::vector<std::string> linesWith(const std::string& text, const std::string& needle) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (line.find(needle) != std::string::npos) out.push_back(line);
  return out;
}

TEST(Debug, StaticAssertAndStaticPrint) {
  // A fresh Program so that this test really compiles the kernel.
  auto program = tessera::Program::from_file(kernelPath(kFile));
  auto k = program.kernel("static_checks");
  const int64_t B = 32;
  std::vector<int32_t> x(B);
  for (int64_t i = 0; i < B; ++i) x[i] = static_cast<int32_t>(i * 3 - 40);
  auto tx = dev().upload(x, {B});
  auto out = dev().zeros(DType::i32, {B});
  std::string printed = captureStdout([&] { k.launch(dev(), {1}, {tx, out}, {{"BLOCK", B}}); });
  auto lines = linesWith(printed, "static_checks compiled for BLOCK");
  ASSERT_EQ(lines.size(), 1u) << "stdout was:\n" << printed;
  EXPECT_NE(lines[0].find("32"), std::string::npos) << lines[0];
  std::vector<int32_t> want(B);
  for (int64_t i = 0; i < B; ++i) want[i] = 2 * x[i];
  expectEqual(out.download<int32_t>(), want, "x * 2");
}

TEST(Debug, DevicePrintLines) {
  const int64_t B = 8, programs = 2;
  std::vector<int32_t> x(B * programs);
  for (int64_t i = 0; i < B * programs; ++i) x[i] = static_cast<int32_t>(1000 + 37 * i);
  auto tx = dev().upload(x, {B * programs});
  std::string printed =
      captureStdout([&] { kernel(kFile, "print_values").launch(dev(), {programs}, {tx}, {{"BLOCK", B}}); });
  auto vals = linesWith(printed, "val: ");
  ASSERT_EQ(vals.size(), static_cast<size_t>(B * programs)) << "stdout was:\n" << printed;
  for (int64_t p = 0; p < programs; ++p) {
    std::string pid = "pid (" + std::to_string(p) + ", 0, 0)";
    std::vector<int64_t> seen;
    for (const auto& line : vals) {
      if (line.find(pid) == std::string::npos) continue;
      seen.push_back(std::stoll(line.substr(line.find("val: ") + 5)));
    }
    std::sort(seen.begin(), seen.end());
    std::vector<int64_t> want(x.begin() + p * B, x.begin() + (p + 1) * B);
    EXPECT_EQ(seen, want) << "values printed by " << pid << "; stdout was:\n" << printed;
    auto scalar = linesWith(printed, "program: ");
    int count = 0;
    for (const auto& line : scalar)
      if (line.find(pid) != std::string::npos) {
        ++count;
        EXPECT_EQ(std::stoll(line.substr(line.find("program: ") + 9)), p) << line;
      }
    EXPECT_GE(count, 1) << "scalar print of " << pid;
  }
}

TEST(Debug, DeviceAssertInDebugMode) {
  int64_t n = 100;
  std::vector<int32_t> x(n, 5);
  auto out = dev().zeros(DType::i32, {n});
  // All positive: runs normally.
  auto good = dev().upload(x, {n});
  kernel(kFile, "checked_positive").launch(dev(), {cdiv(n, 32)}, {good, out, n}, {{"BLOCK", int64_t(32)}});
  EXPECT_EQ(out.download<int32_t>(), std::vector<int32_t>(n, 50));
  // One negative element: the launch fails with the assertion's message.
  if (onGpu()) GTEST_SKIP() << "a failing device_assert traps on the GPU and leaves the CUDA context unusable";
  x[77] = -3;
  auto bad = dev().upload(x, {n});
  std::string msg = errorOf([&] {
    kernel(kFile, "checked_positive").launch(dev(), {cdiv(n, 32)}, {bad, out, n}, {{"BLOCK", int64_t(32)}});
  });
  EXPECT_NE(msg.find("x must be positive"), std::string::npos) << msg;
  EXPECT_NE(msg.find("debugging.py:27"), std::string::npos) << msg;
}

TEST(Debug, DeviceAssertIsANoOpWithoutDebug) {
  const char* env = std::getenv("TESSERA_DEBUG");
  const char* tenv = std::getenv("TRITON_DEBUG");
  if ((env && std::string(env) != "0") || (tenv && std::string(tenv) != "0")) GTEST_SKIP() << "debug mode forced";
  int64_t n = 40;
  std::vector<int32_t> x(n, 2);
  x[3] = -1;
  auto tx = dev().upload(x, {n});
  auto out = dev().zeros(DType::i32, {n});
  kernel(kFile, "unchecked_positive").launch(dev(), {cdiv(n, 32)}, {tx, out, n}, {{"BLOCK", int64_t(32)}});
  std::vector<int32_t> want(n, 20);
  want[3] = -10;
  expectEqual(out.download<int32_t>(), want, "no assert without debug");
}

TEST(Debug, InlineAsmIsRefusedByTheInterpreter) {
  if (onGpu()) GTEST_SKIP() << "checks the interpreter's refusal (inline asm runs on the GPU)";
  const int64_t B = 16;
  auto x = dev().zeros(DType::i32, {B}), y = dev().zeros(DType::i32, {B});
  std::string msg = errorOf([&] { kernel(kFile, "uses_inline_asm").launch(dev(), {1}, {x, y}, {{"BLOCK", B}}); });
  EXPECT_NE(msg.find("inline_asm_elementwise"), std::string::npos) << msg;
  EXPECT_NE(msg.find("not supported"), std::string::npos) << msg;
  EXPECT_NE(msg.find("interpreter"), std::string::npos) << msg;
}

}  // namespace
