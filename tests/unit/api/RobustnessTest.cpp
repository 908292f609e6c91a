//===- RobustnessTest.cpp - Misuses of the public API are errors ----------===//
//
// Each case is a misuse that once crashed, read out of bounds or silently
// did nothing (issue 23); now each throws a tessera::Error that names what
// was wrong. docs/robustness.md lists the promises these tests keep.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "tessera/dlpack.h"
#include "tessera/tessera.h"

namespace {

std::string errorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const tessera::Error& e) {
    return e.what();
  }
  return "<no error>";
}

const char* kFill = R"(
import triton
import triton.language as tl

@triton.jit
def fill(out_ptr, value: tl.int32, BLOCK: tl.constexpr):
    tl.store(out_ptr + tl.arange(0, BLOCK), tl.full((BLOCK,), value, tl.int32))
)";

TEST(Robustness, UploadChecksTheHostSizeAgainstTheShape) {
  tessera::Device dev = tessera::Device::interpreter();
  // Once a segfault (10 floats read as a million) and a heap overflow.
  std::string big = errorOf([&] { dev.upload(std::vector<float>(10), {1000000}); });
  EXPECT_NE(big.find("10 elements"), std::string::npos) << big;
  EXPECT_NE(big.find("1000000"), std::string::npos) << big;
  std::string small = errorOf([&] { dev.upload(std::vector<float>(4), {64}); });
  EXPECT_NE(small.find("4 elements"), std::string::npos) << small;
  EXPECT_NE(small.find("[64]"), std::string::npos) << small;
  // Too many elements is as wrong as too few.
  EXPECT_NE(errorOf([&] { dev.upload(std::vector<int32_t>(7), {2, 3}); }).find("has 6"), std::string::npos);
  std::vector<bool> flags(5, true);
  EXPECT_NE(errorOf([&] { dev.upload(flags, {6}); }).find("5 elements"), std::string::npos);
  // The right count still works, bool included.
  EXPECT_EQ(dev.upload(std::vector<int32_t>(6, 3), {2, 3}).download<int32_t>(), std::vector<int32_t>(6, 3));
  EXPECT_EQ(dev.upload(flags, {5}).numel(), 5);
}

TEST(Robustness, OverflowingShapesThrow) {
  tessera::Device dev = tessera::Device::interpreter();
  // numel and nbytes were 0: (2^32)^2 wraps to 0 in int64.
  std::string e = errorOf([&] { dev.zeros(tessera::DType::fp32, {1LL << 32, 1LL << 32}); });
  EXPECT_NE(e.find("more than 2^63 elements"), std::string::npos) << e;
  EXPECT_NE(e.find("[4294967296, 4294967296]"), std::string::npos) << e;
  // Elements fit, bytes do not.
  e = errorOf([&] { dev.empty(tessera::DType::fp64, {1LL << 61}); });
  EXPECT_NE(e.find("bytes"), std::string::npos) << e;
  e = errorOf([&] { dev.empty(tessera::DType::fp32, {3, -1}); });
  EXPECT_NE(e.find("negative dimension (-1)"), std::string::npos) << e;
  // A zero dimension is a legal empty tensor however large the others, and
  // wherever it is (the product of the others may overflow first).
  EXPECT_EQ(dev.empty(tessera::DType::fp32, {0, 1LL << 62}).numel(), 0);
  EXPECT_EQ(dev.empty(tessera::DType::fp32, {1LL << 40, 1LL << 40, 0}).numel(), 0);
}

TEST(Robustness, DLPackTensorsWithoutAShapeOrOverflowingAreErrors) {
  int deleted = 0;
  tessera::dlpack::ManagedTensor m{};
  float data[4] = {};
  m.dl_tensor = {data, {1, 0}, 2, {2, 32, 1}, nullptr, nullptr, 0};  // rank 2, no shape array
  m.manager_ctx = &deleted;
  m.deleter = [](tessera::dlpack::ManagedTensor* self) { ++*static_cast<int*>(self->manager_ctx); };
  EXPECT_NE(errorOf([&] { tessera::from_dlpack(&m); }).find("no shape array"), std::string::npos);
  EXPECT_EQ(deleted, 1);  // the producer's memory is released all the same
  int64_t huge[2] = {1LL << 40, 1LL << 40};
  m.dl_tensor.shape = huge;
  EXPECT_NE(errorOf([&] { tessera::from_dlpack(&m); }).find("from_dlpack: tensor shape [1099511627776, "),
            std::string::npos);
  EXPECT_EQ(deleted, 2);
}

TEST(Robustness, StrideNamesTheDimensionAsGiven) {
  tessera::Device dev = tessera::Device::interpreter();
  tessera::Tensor t = dev.zeros(tessera::DType::fp32, {4});
  std::string e = errorOf([&] { t.stride(-2); });
  EXPECT_NE(e.find("dimension -2 out of range for a tensor of rank 1"), std::string::npos) << e;
  EXPECT_NE(e.find("expected -1 to 0"), std::string::npos) << e;
}

TEST(Robustness, GridsBeyondCudaLimitsAreErrors) {
  tessera::Device dev = tessera::Device::interpreter();
  tessera::Kernel k = tessera::Program::from_source(kFill).kernel("fill");
  tessera::Tensor out = dev.zeros(tessera::DType::i32, {16});
  tessera::Meta meta{{"BLOCK", int64_t(16)}};
  // The product of the dims overflowed int64 and the launch silently ran nothing.
  std::string e = errorOf([&] { k.launch(dev, {1LL << 32, 1LL << 32, 1LL << 32}, {out, 1}, meta); });
  EXPECT_NE(e.find("dimension x = 4294967296 exceeds CUDA's limit of 2147483647"), std::string::npos) << e;
  e = errorOf([&] { k.launch(dev, {1LL << 62, 4, 1}, {out, 1}, meta); });
  EXPECT_NE(e.find("[4611686018427387904, 4, 1]"), std::string::npos) << e;
  e = errorOf([&] { k.launch(dev, {1, 65536}, {out, 1}, meta); });
  EXPECT_NE(e.find("dimension y = 65536 exceeds CUDA's limit of 65535"), std::string::npos) << e;
  e = errorOf([&] { k.launch(dev, {1, 1, 70000}, {out, 1}, meta); });
  EXPECT_NE(e.find("dimension z = 70000"), std::string::npos) << e;
  // A grid callable is checked the same way.
  tessera::Grid computed([](const tessera::Meta&) { return std::vector<int64_t>{1, 1LL << 40}; });
  e = errorOf([&] { k.launch(dev, computed, {out, 1}, meta); });
  EXPECT_NE(e.find("dimension y"), std::string::npos) << e;
  // Nothing ran.
  EXPECT_EQ(out.download<int32_t>(), std::vector<int32_t>(16, 0));
  // At the limits (one program does the work; the others write the same row).
  k.launch(dev, {1, 1, 1}, {out, 7}, meta);
  EXPECT_EQ(out.download<int32_t>(), std::vector<int32_t>(16, 7));
  // Zero programs is a legal empty launch.
  k.launch(dev, {0, 65535}, {out, 9}, meta);
  EXPECT_EQ(out.download<int32_t>(), std::vector<int32_t>(16, 7));
}

/// Helpers f0..f{depth}, each calling the one below twice: a kernel of
/// 2^depth copies once inlined.
std::string doublingChain(int depth) {
  std::string src = "import triton\nimport triton.language as tl\n\n@triton.jit\ndef f0(x):\n    return x + 1\n";
  for (int i = 1; i <= depth; ++i)
    src += "\n@triton.jit\ndef f" + std::to_string(i) + "(x):\n    return f" + std::to_string(i - 1) + "(x) + f" +
           std::to_string(i - 1) + "(x)\n";
  src += "\n@triton.jit\ndef k(out_ptr, BLOCK: tl.constexpr):\n    x = tl.arange(0, BLOCK)\n"
         "    tl.store(out_ptr + x, f" + std::to_string(depth) + "(x))\n";
  return src;
}

TEST(Robustness, InliningHasATotalBudget) {
  tessera::Device dev = tessera::Device::interpreter();
  tessera::Tensor out = dev.zeros(tessera::DType::i32, {8});
  // Depth 40 never finished (2^40 copies); depth 18 took 40 s and 475 MB.
  for (int depth : {18, 40}) {
    tessera::Kernel k = tessera::Program::from_source(doublingChain(depth), "chain.py").kernel("k");
    std::string e = errorOf([&] { k.launch(dev, {1}, {out}, {{"BLOCK", int64_t(8)}}); });
    EXPECT_NE(e.find("chain.py:"), std::string::npos) << e;
    EXPECT_NE(e.find("the inline budget"), std::string::npos) << e;
    EXPECT_NE(e.find("call chain k -> f" + std::to_string(depth) + " -> "), std::string::npos) << e;
    EXPECT_NE(e.find("-> f0 (5 ops)"), std::string::npos) << e;
  }
  // Within the budget the chain compiles and computes (x + 1) * 2^depth.
  tessera::Program::from_source(doublingChain(10), "chain.py").kernel("k").launch(dev, {1}, {out},
                                                                                {{"BLOCK", int64_t(8)}});
  std::vector<int32_t> expect(8);
  for (int i = 0; i < 8; ++i) expect[i] = (i + 1) << 10;
  EXPECT_EQ(out.download<int32_t>(), expect);
}

TEST(Robustness, MetaTyposInGridCallablesNameTheKeys) {
  tessera::Device dev = tessera::Device::interpreter();
  tessera::Kernel k = tessera::Program::from_source(kFill).kernel("fill");
  tessera::Tensor out = dev.zeros(tessera::DType::i32, {16});
  tessera::Meta meta{{"BLOCK", int64_t(16)}};
  // m.at() threw std::out_of_range ("map::at"), which escaped the API.
  tessera::Grid typo([](const tessera::Meta& m) { return std::vector<int64_t>{std::get<int64_t>(m.at("BLOKC"))}; });
  std::string e = errorOf([&] { k.launch(dev, typo, {out, 1}, meta); });
  EXPECT_NE(e.find("the meta-parameters are: BLOCK"), std::string::npos) << e;
  EXPECT_NE(e.find("meta_int"), std::string::npos) << e;
  tessera::Grid accessor([](const tessera::Meta& m) { return std::vector<int64_t>{tessera::meta_int(m, "BLOKC")}; });
  e = errorOf([&] { k.launch(dev, accessor, {out, 1}, meta); });
  EXPECT_NE(e.find("no meta-parameter named 'BLOKC' (the meta-parameters are: BLOCK, value)"), std::string::npos) << e;
  tessera::Grid right([](const tessera::Meta& m) { return std::vector<int64_t>{16 / tessera::meta_int(m, "BLOCK")}; });
  k.launch(dev, right, {out, 5}, meta);
  EXPECT_EQ(out.download<int32_t>(), std::vector<int32_t>(16, 5));
  EXPECT_EQ(tessera::meta_float({{"x", int64_t(3)}}, "x"), 3.0);
  EXPECT_EQ(tessera::meta_int({{"flag", true}}, "flag"), 1);
  EXPECT_NE(errorOf([] { tessera::meta_int({{"s", std::string("a")}}, "s"); }).find("not an integer"),
            std::string::npos);
}

TEST(Robustness, SourceFilesAreReadAsPythonReadsThem) {
  // CR-only line endings are newlines; invalid UTF-8 is a located error.
  tessera::Program cr = tessera::Program::from_source(
      "import triton\rimport triton.language as tl\r@triton.jit\rdef one(x_ptr):\r    tl.store(x_ptr, 1)\r", "cr.py");
  EXPECT_EQ(cr.kernel_names(), std::vector<std::string>{"one"});
  std::string e = errorOf([] { tessera::Program::from_source("x = 1\ny = '\xff'\n", "bad.py"); });
  EXPECT_NE(e.find("bad.py:2:6: error: the file is not valid UTF-8 (byte 0xff)"), std::string::npos) << e;
  // Overlong forms and surrogates are not UTF-8 either; real UTF-8 is fine.
  EXPECT_NE(errorOf([] { tessera::Program::from_source("# \xc0\xaf\n"); }).find("0xc0"), std::string::npos);
  EXPECT_NE(errorOf([] { tessera::Program::from_source("# \xed\xa0\x80\n"); }).find("0xed"), std::string::npos);
  EXPECT_NO_THROW(tessera::Program::from_source("# caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\n"));
  // A directory is said to be one.
  e = errorOf([] { tessera::Program::from_file(TESSERA_SOURCE_DIR); });
  EXPECT_NE(e.find("is a directory"), std::string::npos) << e;
}

int threadsOfThisProcess() {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/task")) n += e.is_directory() ? 1 : 0;
  return n;
}

TEST(Robustness, InterpreterLaunchesReuseOnePool) {
  // Each launch started hardware_concurrency() threads of its own.
  tessera::Device dev = tessera::Device::interpreter();
  // One element per program (programs that all wrote one element would race).
  tessera::Kernel k = tessera::Program::from_source(R"(
import triton
import triton.language as tl

@triton.jit
def fill_rows(out_ptr, value: tl.int32, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.full((BLOCK,), value, tl.int32))
)").kernel("fill_rows");
  tessera::Tensor out = dev.zeros(tessera::DType::i32, {64});
  k.launch(dev, {64}, {out, 1}, {{"BLOCK", int64_t(1)}});
  int after = threadsOfThisProcess();
  for (int i = 0; i < 20; ++i) k.launch(dev, {64}, {out, i}, {{"BLOCK", int64_t(1)}});
  EXPECT_EQ(threadsOfThisProcess(), after);
  EXPECT_LE(after, dev.multiprocessor_count() + 1);  // the pool's helpers and this thread
  // The helpers outlive the launch (each launch started and joined its own).
  if (dev.multiprocessor_count() > 1) EXPECT_GE(after, dev.multiprocessor_count());
  EXPECT_EQ(out.download<int32_t>(), std::vector<int32_t>(64, 19));
}

struct SetEnv {
  std::string name;
  SetEnv(const std::string& n, const std::string& v) : name(n) { setenv(n.c_str(), v.c_str(), 1); }
  ~SetEnv() { unsetenv(name.c_str()); }
};

TEST(Robustness, DefaultDeviceSaysWhyItFallsBack) {
  std::string why;
  try {
    tessera::Device::cuda(0);
    GTEST_SKIP() << "a GPU is usable here";
  } catch (const tessera::Error& e) {
    why = e.what();
  }
  testing::internal::CaptureStderr();
  EXPECT_TRUE(tessera::Device::default_device().is_interpreter());
  EXPECT_TRUE(tessera::Device::default_device().is_interpreter());
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("tessera: warning: no usable GPU, kernels run on the CPU interpreter (" + why + ")"),
            std::string::npos)
      << err;
  EXPECT_EQ(err.find("no usable GPU"), err.rfind("no usable GPU")) << "said twice: " << err;
  {
    SetEnv device("TESSERA_DEVICE", "cuda");  // no fallback
    EXPECT_EQ(errorOf([] { tessera::Device::default_device(); }), why);
  }
  {
    SetEnv device("TESSERA_DEVICE", "gpu");
    EXPECT_NE(errorOf([] { tessera::Device::default_device(); }).find("expected one of auto, cuda, interpreter"),
              std::string::npos);
  }
  SetEnv device("TESSERA_DEVICE", "interpreter");
  EXPECT_TRUE(tessera::Device::default_device().is_interpreter());
}

TEST(Robustness, BadKnobValuesStopTheLaunch) {
  tessera::Device dev = tessera::Device::interpreter();
  tessera::Kernel k = tessera::Program::from_source(kFill).kernel("fill");
  tessera::Tensor out = dev.zeros(tessera::DType::i32, {16});
  for (const char* bad : {"abc", "-1"}) {
    SetEnv limit("TESSERA_INTERPRETER_LOOP_LIMIT", bad);
    std::string e = errorOf([&] { k.launch(dev, {1}, {out, 3}, {{"BLOCK", int64_t(16)}}); });
    EXPECT_NE(e.find("TESSERA_INTERPRETER_LOOP_LIMIT='" + std::string(bad) + "' is not valid"), std::string::npos)
        << e;
  }
  SetEnv cap("TESSERA_MAXNREG", "1");
  std::string e = errorOf([&] { k.compile("*i32, i32", {{"BLOCK", int64_t(16)}}, {}, "sm_90a"); });
  EXPECT_NE(e.find("TESSERA_MAXNREG='1' is not valid: expected an integer from 16 to 255"), std::string::npos) << e;
}

TEST(Robustness, UnwritableTracePathsAreSaidOnce) {
  // (TESSERA_PROFILE, read once per process: tests/cli/profile_trace.sh.)
  SetEnv record("TESSERA_RECORD_LAUNCHES", "/nonexistent-dir/launches.tsv");
  tessera::Device dev = tessera::Device::interpreter();
  tessera::Tensor out = dev.zeros(tessera::DType::i32, {16});
  testing::internal::CaptureStderr();
  for (int block : {16, 8})  // two specializations, two records
    tessera::Program::from_source(kFill).kernel("fill").launch(dev, {1}, {out, 3}, {{"BLOCK", int64_t(block)}});
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("TESSERA_RECORD_LAUNCHES: cannot write '/nonexistent-dir/launches.tsv' (No such file or "
                     "directory): launches are not recorded"),
            std::string::npos)
      << err;
  EXPECT_EQ(err.find("cannot write"), err.rfind("cannot write")) << err;
}

}  // namespace

namespace tessera {
namespace {

// A kernel that loops forever on the interpreter stops when asked
// (interrupt_interpreter, what the Python package's SIGINT handler calls),
// with an Error naming the kernel and the loop's place; the next launch
// runs to its end.
TEST(Robustness, InterruptStopsAnEndlessInterpreterLaunch) {
  const char* src = R"(import triton
import triton.language as tl

@triton.jit
def spin(out_ptr, n):
    i = 0
    while i != n:
        i += 1
    tl.store(out_ptr, i)
)";
  Device dev = Device::interpreter();
  Kernel k = Program::from_source(src, "spin.py").kernel("spin");
  Tensor out = dev.zeros(DType::i32, {1});
  k.launch(dev, {1}, {out, int64_t(5)});  // compiled before the interrupt thread starts
  std::thread stopper([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    interrupt_interpreter();
  });
  std::string message;
  try {
    k.launch(dev, {1}, {out, int64_t(-1)});  // 2^32 iterations
  } catch (const Error& e) {
    message = e.what();
  }
  stopper.join();
  EXPECT_NE(message.find("spin: interrupted at spin.py:"), std::string::npos) << message;
  k.launch(dev, {1}, {out, int64_t(9)});
  EXPECT_EQ(out.download<int32_t>()[0], 9);
}

}  // namespace
}  // namespace tessera
