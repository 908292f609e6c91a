//===- DebugTest.cpp - static_print/assert, device_print/assert, asm ------===//
//
// kernels/debugging.py: static_assert passing and static_print writing at
// compile time, device_print lines (one per element, plus the scalar once
// per program), device_assert raising tessera::Error only in debug mode,
// inline_asm_elementwise refused clearly by the interpreter and run on the
// GPU (one result, pack=4, two results).
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
  // One negative element: the launch fails with the assertion's message and
  // place (on a GPU, in a child process: the trap poisons the context).
  x[77] = -3;
  auto bad = dev().upload(x, {n});
  expectDeviceAssertFailure(
      [&] { kernel(kFile, "checked_positive").launch(dev(), {cdiv(n, 32)}, {bad, out, n}, {{"BLOCK", int64_t(32)}}); },
      {"x must be positive", "debugging.py:27", "checked_positive"});
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
  if (onGpu()) GTEST_SKIP() << "checks the interpreter's refusal (Debug.InlineAsmOnTheGpu runs it)";
  const int64_t B = 16;
  auto x = dev().zeros(DType::i32, {B}), y = dev().zeros(DType::i32, {B});
  std::string msg = errorOf([&] { kernel(kFile, "uses_inline_asm").launch(dev(), {1}, {x, y}, {{"BLOCK", B}}); });
  EXPECT_NE(msg.find("inline_asm_elementwise"), std::string::npos) << msg;
  EXPECT_NE(msg.find("not supported"), std::string::npos) << msg;
  EXPECT_NE(msg.find("interpreter"), std::string::npos) << msg;
}

// inline_asm_elementwise on the GPU: one result per element (a funnel-shift
// rotate), pack=4 (four int8 lanes per 32-bit operand, also with fewer than
// four elements per thread, which pads), two results (mul.lo/mul.hi), and
// pack=4 across widths (uint8 -> uint16 in two output registers, int32 ->
// int8 from four input registers), against C++ references on random inputs.
TEST(Debug, InlineAsmOnTheGpu) {
  if (!onGpu()) GTEST_SKIP() << "the interpreter refuses inline asm (Debug.InlineAsmIsRefusedByTheInterpreter)";
  E2E_RNG(rng);
  for (int64_t B : {int64_t(64), int64_t(1024)}) {
    auto x = rng.ints<int32_t>(B, INT32_MIN, INT32_MAX);
    auto tx = dev().upload(x, {B});
    auto ty = dev().zeros(DType::i32, {B});
    kernel(kFile, "uses_inline_asm").launch(dev(), {1}, {tx, ty}, {{"BLOCK", B}});
    std::vector<int32_t> rot(B);
    for (int64_t i = 0; i < B; ++i) {
      uint32_t u = static_cast<uint32_t>(x[i]);
      rot[i] = static_cast<int32_t>((u << 3) | (u >> 29));
    }
    expectEqual(ty.download<int32_t>(), rot, "rotl(x, 3), BLOCK " + std::to_string(B));

    auto a = rng.ints<int8_t>(B, -128, 127), b = rng.ints<int8_t>(B, -128, 127);
    auto ta = dev().upload(a, {B}), tb = dev().upload(b, {B});
    auto tz = dev().zeros(DType::i8, {B});
    kernel(kFile, "inline_asm_packed_xor").launch(dev(), {1}, {ta, tb, tz}, {{"BLOCK", B}});
    std::vector<int8_t> xr(B);
    for (int64_t i = 0; i < B; ++i) xr[i] = static_cast<int8_t>(a[i] ^ b[i]);
    expectEqual(tz.download<int8_t>(), xr, "packed int8 xor, BLOCK " + std::to_string(B));

    auto p = rng.ints<uint32_t>(B, 0, UINT32_MAX), q = rng.ints<uint32_t>(B, 0, UINT32_MAX);
    auto tp = dev().upload(p, {B}), tq = dev().upload(q, {B});
    auto tlo = dev().zeros(DType::u32, {B}), thi = dev().zeros(DType::u32, {B});
    kernel(kFile, "inline_asm_two_results").launch(dev(), {1}, {tp, tq, tlo, thi}, {{"BLOCK", B}});
    std::vector<uint32_t> lo(B), hi(B);
    for (int64_t i = 0; i < B; ++i) {
      uint64_t prod = uint64_t{p[i]} * q[i];
      lo[i] = static_cast<uint32_t>(prod);
      hi[i] = static_cast<uint32_t>(prod >> 32);
    }
    expectEqual(tlo.download<uint32_t>(), lo, "mul.lo, BLOCK " + std::to_string(B));
    expectEqual(thi.download<uint32_t>(), hi, "mul.hi, BLOCK " + std::to_string(B));

    // pack=4 across widths: four uint8 in one register widen into two of
    // four uint16; four int32 narrow into one register of four int8.
    auto u = rng.ints<uint8_t>(B, 0, 255);
    auto tw = dev().zeros(DType::u16, {B});
    kernel(kFile, "inline_asm_widening").launch(dev(), {1}, {dev().upload(u, {B}), tw}, {{"BLOCK", B}});
    expectEqual(tw.download<uint16_t>(), std::vector<uint16_t>(u.begin(), u.end()), "widening, BLOCK " + std::to_string(B));
    auto tn = dev().zeros(DType::i8, {B});
    kernel(kFile, "inline_asm_narrowing").launch(dev(), {1}, {tx, tn}, {{"BLOCK", B}});
    std::vector<int8_t> low(B);
    for (int64_t i = 0; i < B; ++i) low[i] = static_cast<int8_t>(x[i] & 0xFF);
    expectEqual(tn.download<int8_t>(), low, "narrowing, BLOCK " + std::to_string(B));

    // "n" operands are immediates in the text: lop3 with its LUT.
    auto ti = dev().zeros(DType::i32, {B});
    kernel(kFile, "inline_asm_immediates").launch(dev(), {1}, {tx, ti}, {{"BLOCK", B}});
    std::vector<int32_t> lopped(B);
    for (int64_t i = 0; i < B; ++i)
      lopped[i] = static_cast<int32_t>((static_cast<uint32_t>(x[i]) & 0x000F000Fu) | 0x64006400u);
    expectEqual(ti.download<int32_t>(), lopped, "lop3 with immediates, BLOCK " + std::to_string(B));
  }
}

// inline_asm_elementwise (pack = 2) on a masked dot's result, which keeps
// the tensor cores' layout through the asm: y = s / 2 + 1 with s = a b on
// small integers (exact in fp32), at 4 and 8 warps.
TEST(Debug, InlineAsmOnDotResults) {
  if (!onGpu()) GTEST_SKIP() << "the interpreter refuses inline asm (Debug.InlineAsmIsRefusedByTheInterpreter)";
  E2E_RNG(rng);
  struct Case {
    int64_t M, N, K, warps;
  } cases[] = {{64, 64, 32, 4}, {128, 64, 16, 8}, {64, 128, 64, 4}};
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.M) + "x" + std::to_string(c.N) + "x" + std::to_string(c.K) + ", " +
                 std::to_string(c.warps) + " warps");
    auto ai = rng.ints<int>(c.M * c.K, -4, 4), bi = rng.ints<int>(c.K * c.N, -4, 4);
    std::vector<float> a(ai.begin(), ai.end()), b(bi.begin(), bi.end());
    auto out = dev().zeros(DType::fp32, {c.M, c.N});
    tessera::LaunchOptions options;
    options.num_warps = c.warps;
    kernel(kFile, "inline_asm_on_dot")
        .launch(dev(), {1}, {uploadAs(DType::fp16, a, {c.M, c.K}), uploadAs(DType::fp16, b, {c.K, c.N}), out},
                {{"M", c.M}, {"N", c.N}, {"K", c.K}}, options);
    std::vector<float> want(c.M * c.N);
    for (int64_t i = 0; i < c.M; ++i)
      for (int64_t j = 0; j < c.N; ++j) {
        float s = -1.0f;
        if (j < c.N - 3) {
          s = 0.0f;
          for (int64_t k = 0; k < c.K; ++k) s += a[i * c.K + k] * b[k * c.N + j];
        }
        want[i * c.N + j] = s * 0.5f + 1.0f;
      }
    expectEqual(out.download<float>(), want, "s / 2 + 1");
  }
}

}  // namespace
