//===- ApiTest.cpp - The public C++ API -----------------------------------===//
//
// Tensors, grids, argument binding, AOT signatures and the compile cache,
// through tessera.h only.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include <cstdlib>
#include <thread>

#include "tessera/dlpack.h"
#include "tessera/runtime/Assembler.h"
#include "tessera/tessera.h"

namespace {

const char* kSource = R"(
import triton
import triton.language as tl

@triton.jit
def scale(x_ptr, y_ptr, n, factor, BLOCK: tl.constexpr = 64):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=keep) * factor, mask=keep)

@triton.jit
def fill(out_ptr, value: tl.int32, BLOCK: tl.constexpr):
    tl.store(out_ptr + tl.arange(0, BLOCK), tl.full((BLOCK,), value, tl.int32))
)";

std::string errorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const tessera::Error& e) {
    return e.what();
  }
  return "";
}

TEST(Tensor, ShapeStridesAndRoundTrip) {
  tessera::Device dev = tessera::Device::interpreter();
  std::vector<int32_t> host(3 * 5 * 7);
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<int32_t>(i * 7919 % 1013) - 500;
  tessera::Tensor t = dev.upload(host, {3, 5, 7});
  EXPECT_EQ(t.dtype(), tessera::DType::i32);
  EXPECT_EQ(t.numel(), 105);
  EXPECT_EQ(t.stride(0), 35);
  EXPECT_EQ(t.stride(1), 7);
  EXPECT_EQ(t.stride(-1), 1);
  EXPECT_EQ(t.nbytes(), 420u);
  EXPECT_EQ(t.data_ptr() % 16, 0u);
  EXPECT_EQ(t.download<int32_t>(), host);
  EXPECT_NE(errorOf([&] { t.stride(3); }).find("out of range"), std::string::npos);
  EXPECT_NE(errorOf([&] { t.download<double>(); }).find("does not match"), std::string::npos);
}

TEST(Tensor, ZerosAndBoolUpload) {
  tessera::Device dev = tessera::Device::interpreter();
  auto z = dev.zeros(tessera::DType::fp16, {9});
  for (std::byte b : z.download_bytes()) EXPECT_EQ(b, std::byte{0});
  auto b = dev.upload(std::vector<bool>{true, false, true}, {3});
  EXPECT_EQ(b.dtype(), tessera::DType::i1);
  EXPECT_EQ(b.download<uint8_t>(), (std::vector<uint8_t>{1, 0, 1}));
}

TEST(Grid, ResolvesFixedAndCallableGrids) {
  EXPECT_EQ(tessera::Grid({4}).resolve({}), (std::vector<int64_t>{4, 1, 1}));
  tessera::Grid g([](const tessera::Meta& m) {
    return std::vector<int64_t>{(1000 + std::get<int64_t>(m.at("BLOCK")) - 1) / std::get<int64_t>(m.at("BLOCK")), 3};
  });
  EXPECT_EQ(g.resolve({{"BLOCK", int64_t(128)}}), (std::vector<int64_t>{8, 3, 1}));
  EXPECT_NE(errorOf([] { tessera::Grid({1, 2, 3, 4}).resolve({}); }).find("1 to 3"), std::string::npos);
}

TEST(Kernel, LaunchUsesDefaultsAndGridCallables) {
  auto program = tessera::Program::from_source(kSource, "api.py");
  auto dev = tessera::Device::interpreter();
  int64_t n = 301;
  std::vector<float> x(n);
  for (int64_t i = 0; i < n; ++i) x[i] = 0.25f * static_cast<float>(i) - 30.f;
  auto xt = dev.upload(x, {n});
  auto yt = dev.empty(tessera::DType::fp32, {n});
  tessera::Grid grid([n](const tessera::Meta& m) {
    int64_t block = std::get<int64_t>(m.at("BLOCK"));  // the default, 64
    return std::vector<int64_t>{(n + block - 1) / block};
  });
  program.kernel("scale").launch(dev, grid, {xt, yt, n, 1.5f});
  std::vector<float> y = yt.download<float>();
  for (int64_t i = 0; i < n; ++i) EXPECT_FLOAT_EQ(y[i], x[i] * 1.5f) << i;
}

TEST(Kernel, HandlesOfOneProgramShareTheCompileCache) {
  auto program = tessera::Program::from_source(kSource, "api.py");
  auto a = program.kernel("scale").compile("*fp32:16, *fp32:16, i32, fp32");
  auto b = program.kernel("scale").compile("*fp32:16, *fp32:16, i32, fp32");
  EXPECT_EQ(a.impl(), b.impl());
  auto c = program.kernel("scale").compile("*fp32, *fp32:16, i32, fp32");
  EXPECT_NE(a.impl(), c.impl());
  EXPECT_NE(a.asm_text("ttir").find("tt.func @scale"), std::string::npos);
}

// A name bound at the top level to something else, or to a statement that
// raised on the host: the error says what it is, or what it raised, where.
TEST(Kernel, ANameThatIsNoKernelSaysWhy) {
  const char* src = R"(
import triton
import triton.language as tl

@triton.jit
def k(X, BLOCK: tl.constexpr):
    tl.store(X + tl.arange(0, BLOCK), 1.0)

SIZE = 4
wrapped = undefined_helper(k)
)";
  auto program = tessera::Program::from_source(src, "why.py");
  std::string raised = errorOf([&] { program.kernel("wrapped"); });
  EXPECT_NE(raised.find("'wrapped' could not be evaluated on the host"), std::string::npos) << raised;
  EXPECT_NE(raised.find("undefined_helper"), std::string::npos) << raised;
  EXPECT_NE(raised.find("why.py:10"), std::string::npos) << raised;
  std::string other = errorOf([&] { program.kernel("SIZE"); });
  EXPECT_NE(other.find("'SIZE' is int, not a @triton.jit function"), std::string::npos) << other;
  EXPECT_NE(errorOf([&] { program.kernel("absent"); }).find("no @triton.jit function named 'absent' in why.py (it has: k)"),
            std::string::npos);
}

// The PTX of a kernel calling libdevice (tl.erf) is self-contained where
// the toolkit is: the wrappers the assembler links are defined in the text,
// none left as .extern (ptxas assembles it alone, as Triton's PTX).
TEST(Kernel, PtxWithLibdeviceCallsIsSelfContained) {
  std::string why;
  if (!tessera::runtime::toolkitAvailable(&why)) GTEST_SKIP() << why;
  const char* src = R"(
import triton
import triton.language as tl

@triton.jit
def gelu(X, Y, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    tl.store(Y + tl.arange(0, BLOCK), 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476)))
)";
  auto k = tessera::Program::from_source(src, "gelu.py").kernel("gelu").compile("*fp32:16, *fp32:16", {{"BLOCK", int64_t(128)}});
  std::string ptx = k.asm_text("ptx");
  EXPECT_EQ(ptx.find(".extern .func"), std::string::npos) << ptx;
  size_t def = ptx.find("__tessera__nv_erff(");  // the definition's line (NVRTC's spacing aside)
  ASSERT_NE(def, std::string::npos) << ptx;
  size_t lineStart = ptx.rfind('\n', def) + 1;
  EXPECT_NE(ptx.substr(lineStart, def - lineStart).find(".func"), std::string::npos) << ptx.substr(lineStart, 120);
  EXPECT_NE(ptx.find("call.uni"), std::string::npos);
}

TEST(Kernel, SignatureForms) {
  auto program = tessera::Program::from_source(kSource, "api.py");
  auto k = program.kernel("fill");
  // Non-constexpr parameters only, constexprs by name...
  EXPECT_NE(k.compile("*i32:16, i32", {{"BLOCK", int64_t(32)}}).asm_text("ttir").find("tensor<32xi32>"),
            std::string::npos);
  // ...or Triton's form with the constexpr inline.
  EXPECT_NE(k.compile("*i32:16, i32, 16").asm_text("ttir").find("tensor<16xi32>"), std::string::npos);
  EXPECT_NE(errorOf([&] { k.compile("*i32"); }).find("has 1 entries"), std::string::npos);
  EXPECT_NE(errorOf([&] { k.compile("*i33, i32", {{"BLOCK", int64_t(32)}}); }).find("unknown pointer element type"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { k.compile("*i32, i32"); }).find("missing value for constexpr parameter 'BLOCK'"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { k.compile("*i32, i32", {{"BLOCK", int64_t(32)}, {"OTHER", int64_t(1)}}); })
                .find("no parameter named 'OTHER'"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { k.compile("*i32, i32", {{"BLOCK", int64_t(32)}}).asm_text("llir"); }).find("unknown stage 'llir'"),
            std::string::npos);
  // A value given by name for a non-constexpr parameter specializes it (as
  // `7` in the signature would) and leaves the signature; not both.
  EXPECT_NE(k.compile("*i32:16", {{"BLOCK", int64_t(32)}, {"value", int64_t(7)}}).asm_text("ttir").find("value = 7"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { k.compile("*i32:16, i32", {{"BLOCK", int64_t(32)}, {"value", int64_t(7)}}); })
                .find("parameter 'value' given both in the signature and by -D"),
            std::string::npos);
}

// Tuple parameters in signatures: `(...)`, nested, and namedtuples
// `Name(field=TYPE, ...)`, whose fields the kernel reads by name.
TEST(Kernel, TupleSignatures) {
  const char* src = R"(
import triton
import triton.language as tl

@triton.jit
def pair_sum(ptrs, sizes, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < sizes.n
    src, (dst,) = ptrs
    tl.store(dst + offs, tl.load(src + offs, mask=m) * sizes.k, mask=m)

@triton.heuristics({"FIRST": lambda args: args["sizes"][0] * 10})
@triton.jit
def tuple_heuristic(x_ptr, sizes, FIRST: tl.constexpr):
    tl.store(x_ptr, tl.load(x_ptr) * 0 + FIRST + sizes[1])

@triton.jit(do_not_specialize=["sizes"])
def unspecialized(x_ptr, sizes, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) * sizes[0])

@triton.jit
def after_constexpr(x_ptr, BLOCK: tl.constexpr, sizes):
    offs = tl.arange(0, BLOCK)
    m = offs < sizes.n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=m) * sizes.k, mask=m)
)";
  auto k = tessera::Program::from_source(src, "tuples.py").kernel("pair_sum");
  std::string ttir = k.compile("(*fp32:16, (*fp32:16,)), Sizes(n=i32, k=fp32)", {{"BLOCK", int64_t(64)}}).asm_text("ttir");
  EXPECT_NE(ttir.find("tt.func @pair_sum(%arg0: !tt.ptr<f32>"), std::string::npos) << ttir;
  EXPECT_NE(ttir.find("%arg3: f32"), std::string::npos) << "four arguments: the tuples' leaves\n" << ttir;
  EXPECT_NE(errorOf([&] { k.compile("(*fp32, (*fp32,)), (i32, fp32)", {{"BLOCK", int64_t(64)}}); })
                .find("has no attribute 'n'"),
            std::string::npos)
      << "a plain tuple has no fields";
  EXPECT_NE(errorOf([&] { k.compile("(*fp32, (*fp32,)), Sizes(i32, fp32)", {{"BLOCK", int64_t(64)}}); })
                .find("needs its field names"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { k.compile("(*fp32, (*fp32,)), (n=i32, fp32)", {{"BLOCK", int64_t(64)}}); })
                .find("either every element has a field name"),
            std::string::npos);
  // A tuple after a constexpr given by name (the C++ API's positional list
  // skips named parameters): it stays an argument.
  auto dev = tessera::Device::interpreter();
  std::vector<float> x(40);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(i) - 7.5f;
  auto t = dev.upload(x, {40});
  tessera::Program::from_source(src, "tuples.py")
      .kernel("after_constexpr")
      .launch(dev, {1}, {t, tessera::Arg::tuple({int64_t(33), 2.0f}, {"n", "k"}, "Sizes")}, {{"BLOCK", int64_t(64)}});
  std::vector<float> got = t.download<float>();
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(got[i], i < 33 ? x[i] * 2.0f : x[i]) << i;
  // do_not_specialize on a tuple parameter reaches its elements: a 1 in it
  // stays a runtime i32 (the recorded signature says so).
  std::string record = ::testing::TempDir() + "tuple_launches.tsv";
  std::remove(record.c_str());
  setenv("TESSERA_RECORD_LAUNCHES", record.c_str(), 1);
  tessera::Program::from_source(src, "tuples.py")
      .kernel("unspecialized")
      .launch(dev, {1}, {t, tessera::Arg::tuple({int64_t(1), int64_t(16)})}, {{"BLOCK", int64_t(32)}});
  unsetenv("TESSERA_RECORD_LAUNCHES");
  std::ifstream in(record);
  std::string line;
  std::getline(in, line);
  EXPECT_NE(line.find("*fp32:16, (i32, i32)"), std::string::npos) << line;
  // Heuristics see a tuple argument as a tuple.
  tessera::Program::from_source(src, "tuples.py")
      .kernel("tuple_heuristic")
      .launch(dev, {1}, {t, tessera::Arg::tuple({int64_t(4), int64_t(5)})});
  EXPECT_EQ(t.download<float>()[0], 45.0f);
}

TEST(Kernel, BindingErrorsNameKernelAndArgument) {
  auto program = tessera::Program::from_source(kSource, "api.py");
  auto dev = tessera::Device::interpreter();
  auto out = dev.empty(tessera::DType::i32, {32});
  auto k = program.kernel("fill");
  EXPECT_NE(errorOf([&] { k.launch(dev, {1}, {out}, {{"BLOCK", int64_t(32)}}); }).find("missing argument 'value'"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { k.launch(dev, {1}, {out, 3, 32}, {{"BLOCK", int64_t(32)}}); }).find("more than once"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { k.launch(dev, {1}, {out, out}, {{"BLOCK", int64_t(32)}}); }).find("annotated"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { k.launch(dev, {1}, {out, 3, out}); }).find("tl.constexpr parameter"), std::string::npos);
  EXPECT_NE(errorOf([&] { k.launch(dev, {1}, {out, 3}, {{"BLOCK", int64_t(32)}}, {.num_warps = 3}); })
                .find("num_warps"),
            std::string::npos);
  k.launch(dev, {1}, {out, -17}, {{"BLOCK", int64_t(32)}});
  for (int32_t v : out.download<int32_t>()) EXPECT_EQ(v, -17);
}

TEST(Program, UnknownKernelListsKernels) {
  auto program = tessera::Program::from_source(kSource, "api.py");
  EXPECT_EQ(program.kernel_names(), (std::vector<std::string>{"scale", "fill"}));
  std::string msg = errorOf([&] { program.kernel("nope"); });
  EXPECT_NE(msg.find("scale, fill"), std::string::npos) << msg;
  EXPECT_NE(errorOf([] { tessera::Program::from_file("/nonexistent/k.py"); }).find("cannot open"),
            std::string::npos);
}

TEST(Device, CudaWithoutGpuExplains) {
  EXPECT_FALSE(errorOf([] { tessera::Device::cuda(0); }).empty());
  EXPECT_TRUE(tessera::Device::interpreter().is_interpreter());
}

}  // namespace

namespace {

// The autotuner compiles every config at once, one thread each: compiling
// specializations of one kernel (and of one Program) concurrently must give
// exactly what compiling them one by one gives, down to the PTX text.
TEST(Kernel, ConcurrentCompilesMatchSequentialOnes) {
  struct Spec {
    int64_t block;
    int warps;
  };
  const std::vector<Spec> specs = {{64, 1}, {128, 2}, {256, 4}, {512, 4}, {1024, 8}, {2048, 8}, {4096, 16}, {256, 32}};
  auto ptxOf = [&](tessera::Kernel& k, const Spec& s) {
    tessera::LaunchOptions o;
    o.num_warps = s.warps;
    return k.compile("*fp32:16, *fp32:16, i32, fp32", {{"BLOCK", s.block}}, o, "sm_90a").asm_text("ptx");
  };
  std::vector<std::string> sequential;
  {
    auto program = tessera::Program::from_source(kSource, "api.py");
    auto k = program.kernel("scale");
    for (const Spec& s : specs) sequential.push_back(ptxOf(k, s));
  }
  auto program = tessera::Program::from_source(kSource, "api.py");
  auto k = program.kernel("scale");
  std::vector<std::string> concurrent(specs.size());
  std::vector<std::string> errors(specs.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < specs.size(); ++i)
    threads.emplace_back([&, i] {
      try {
        concurrent[i] = ptxOf(k, specs[i]);
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    });
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < specs.size(); ++i) {
    EXPECT_EQ(errors[i], "") << "BLOCK " << specs[i].block;
    EXPECT_FALSE(concurrent[i].empty());
    EXPECT_EQ(concurrent[i], sequential[i]) << "BLOCK " << specs[i].block << ", num_warps " << specs[i].warps;
  }
}

// LaunchOptions::maxnreg caps the registers: `.maxnreg N` in the PTX, a
// specialization of its own; outside [16, 255] it is refused by name.
TEST(Kernel, MaxnregCapsRegisters) {
  auto program = tessera::Program::from_source(kSource, "api.py");
  auto k = program.kernel("scale");
  tessera::LaunchOptions capped;
  capped.maxnreg = 40;
  std::string with = k.compile("*fp32:16, *fp32:16, i32, fp32", {{"BLOCK", int64_t(256)}}, capped, "sm_90a").asm_text("ptx");
  std::string without = k.compile("*fp32:16, *fp32:16, i32, fp32", {{"BLOCK", int64_t(256)}}, {}, "sm_90a").asm_text("ptx");
  EXPECT_NE(with.find(".maxnreg 40"), std::string::npos) << with.substr(0, 600);
  EXPECT_EQ(without.find(".maxnreg"), std::string::npos);
  capped.maxnreg = 300;
  std::string msg = errorOf([&] { k.compile("*fp32:16, *fp32:16, i32, fp32", {{"BLOCK", int64_t(256)}}, capped, "sm_90a"); });
  EXPECT_NE(msg.find("'scale'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("maxnreg must be between 16 and 255"), std::string::npos) << msg;
}

// The first compiles of a process may run at once (the autotuner's first
// sweep does exactly that): the shared Triton-language prelude (tl.max,
// tl.sum, ... written in Triton) is loaded by one of them while the others
// wait. ctest runs every test in its own process, so this one starts with
// no prelude loaded; a global "loading" flag once made the other threads
// report "tl.max is not a Triton language function".
TEST(Kernel, FirstCompilesOfAProcessRunConcurrently) {
  const char* source = R"(
import triton
import triton.language as tl

@triton.jit
def row_stats(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr, tl.max(x, axis=0) + tl.sum(x, axis=0) + tl.min(x, axis=0))
)";
  const int threads = 8;
  std::vector<std::string> ptx(threads), errors(threads);
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i)
    pool.emplace_back([&, i] {
      try {
        auto program = tessera::Program::from_source(source, "stats.py");
        ptx[i] = program.kernel("row_stats")
                     .compile("*fp32:16, *fp32:16, i32", {{"BLOCK", int64_t(64) << (i % 4)}}, {}, "sm_90a")
                     .asm_text("ptx");
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    });
  for (auto& t : pool) t.join();
  for (int i = 0; i < threads; ++i) {
    EXPECT_EQ(errors[i], "") << "thread " << i;
    EXPECT_NE(ptx[i].find(".entry row_stats"), std::string::npos) << "thread " << i;
  }
}

}  // namespace

namespace {

// TESSERA_PRINT_RECOMPILES=1 names what made a launch compile again: the
// parameters and options that differ from the closest earlier
// specialization.
TEST(Kernel, PrintRecompilesNamesTheChangedProperty) {
  setenv("TESSERA_PRINT_RECOMPILES", "1", 1);
  auto program = tessera::Program::from_source(kSource, "api.py");
  auto dev = tessera::Device::interpreter();
  auto x = dev.zeros(tessera::DType::fp32, {512}), y = dev.zeros(tessera::DType::fp32, {512});
  auto k = program.kernel("scale");
  auto launch = [&](int64_t n, int64_t block, int warps) {
    tessera::LaunchOptions o;
    o.num_warps = warps;
    testing::internal::CaptureStderr();
    k.launch(dev, {1}, {x, y, n, 2.0f}, {{"BLOCK", block}}, o);
    return testing::internal::GetCapturedStderr();
  };
  std::string first = launch(301, 64, 4);
  std::string same = launch(299, 64, 4);      // same specialization: no compile
  std::string divisible = launch(320, 64, 4);  // n % 16 == 0 now
  std::string block = launch(301, 128, 4);
  std::string warps = launch(301, 64, 8);
  unsetenv("TESSERA_PRINT_RECOMPILES");
  EXPECT_NE(first.find("compiling kernel 'scale': its first specialization"), std::string::npos) << first;
  EXPECT_EQ(same, "");
  EXPECT_NE(divisible.find("'n' i32:16 (was i32)"), std::string::npos) << divisible;
  EXPECT_NE(block.find("'BLOCK' = 128 (was = 64)"), std::string::npos) << block;
  EXPECT_EQ(block.find("'n'"), std::string::npos) << block;
  EXPECT_NE(warps.find("num_warps 8 (was 4)"), std::string::npos) << warps;
}

}  // namespace

namespace {

// DLPack without copies, on the interpreter's (host) memory: an imported
// tensor is the producer's memory, a kernel reads it, the producer's deleter
// runs once when the last Tensor is gone (also when the import fails); an
// exported tensor describes the tensor's memory and keeps it alive.
TEST(DLPack, ImportRunExportOnTheInterpreter) {
  struct Producer {
    std::vector<float> data;
    std::vector<int64_t> shape, strides;
    tessera::dlpack::ManagedTensor managed{};
    int deleted = 0;
  };
  auto make = [](Producer& p, int64_t rows, int64_t cols) {
    p.data.resize(rows * cols);
    for (size_t i = 0; i < p.data.size(); ++i) p.data[i] = 0.5f * float(i) - 7.f;
    p.shape = {rows, cols};
    p.strides = {cols, 1};
    p.managed.dl_tensor = {p.data.data(), {1, 0}, 2, {2, 32, 1}, p.shape.data(), p.strides.data(), 0};
    p.managed.manager_ctx = &p;
    p.managed.deleter = [](tessera::dlpack::ManagedTensor* self) { ++static_cast<Producer*>(self->manager_ctx)->deleted; };
  };
  Producer p;
  make(p, 3, 37);
  auto dev = tessera::Device::interpreter();
  auto program = tessera::Program::from_source(kSource, "api.py");
  auto y = dev.zeros(tessera::DType::fp32, {3, 37});
  {
    tessera::Tensor x = tessera::from_dlpack(&p.managed);
    EXPECT_EQ(x.data_ptr(), reinterpret_cast<uint64_t>(p.data.data()));
    EXPECT_EQ(x.shape(), (std::vector<int64_t>{3, 37}));
    program.kernel("scale").launch(dev, {2}, {x, y, int64_t(111), 2.0f}, {{"BLOCK", int64_t(64)}});
    EXPECT_EQ(p.deleted, 0);
  }
  EXPECT_EQ(p.deleted, 1);
  std::vector<float> got = y.download<float>();
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], 2.0f * p.data[i]) << i;

  // Export: the same memory, dtype and shape; alive until the deleter.
  auto* out = static_cast<tessera::dlpack::ManagedTensor*>(tessera::to_dlpack(y));
  EXPECT_EQ(reinterpret_cast<uint64_t>(out->dl_tensor.data), y.data_ptr());
  EXPECT_EQ(out->dl_tensor.device.device_type, 1);
  EXPECT_EQ(out->dl_tensor.ndim, 2);
  EXPECT_EQ(out->dl_tensor.dtype.code, 2);
  EXPECT_EQ(out->dl_tensor.dtype.bits, 32);
  EXPECT_EQ(out->dl_tensor.shape[1], 37);
  EXPECT_EQ(out->dl_tensor.strides[0], 37);
  // The same memory imported while `y` lives, then dropped: `y` stays known
  // to the interpreter's bounds checker (registrations are counted).
  {
    tessera::Tensor again = tessera::from_dlpack(tessera::to_dlpack(y));
    EXPECT_EQ(again.data_ptr(), y.data_ptr());
  }
  auto z = dev.zeros(tessera::DType::fp32, {3, 37});
  program.kernel("scale").launch(dev, {2}, {y, z, int64_t(111), 1.0f}, {{"BLOCK", int64_t(64)}});
  EXPECT_EQ(z.download<float>(), y.download<float>());
  float first = static_cast<float*>(out->dl_tensor.data)[5];
  y = tessera::Tensor();  // the export keeps the memory alive
  EXPECT_EQ(static_cast<float*>(out->dl_tensor.data)[5], first);
  out->deleter(out);

  // Refused imports still hand the memory back (strided ones are views:
  // TensorViewsTest.cpp).
  Producer complex;
  make(complex, 2, 2);
  complex.managed.dl_tensor.dtype = {5, 64, 1};
  std::string msg = errorOf([&] { tessera::from_dlpack(&complex.managed); });
  EXPECT_NE(msg.find("dtype"), std::string::npos) << msg;
  EXPECT_EQ(complex.deleted, 1);
}

}  // namespace

// tessera::system_info(): what `tessera info` prints. Without a driver the
// GPU problem says why and no GPU is listed; with one, every GPU has the
// driver's name, an sm_ architecture and its multiprocessors (or a problem).
TEST(SystemInfo, DescribesCpusToolkitAndGpus) {
  tessera::SystemInfo info = tessera::system_info();
  EXPECT_GE(info.usable_cpus, 1u);
  EXPECT_EQ(info.toolkit, info.toolkit_problem.empty()) << info.toolkit_problem;
  if (!info.gpu_problem.empty()) {
    EXPECT_TRUE(info.gpus.empty());
    EXPECT_NE(info.gpu_problem.find("CUDA"), std::string::npos) << info.gpu_problem;
    return;
  }
  ASSERT_FALSE(info.gpus.empty());
  for (size_t i = 0; i < info.gpus.size(); ++i) {
    const tessera::SystemInfo::Gpu& g = info.gpus[i];
    if (!g.problem.empty()) continue;
    EXPECT_FALSE(g.name.empty()) << i;
    EXPECT_EQ(g.arch.rfind("sm_", 0), 0u) << g.arch;
    EXPECT_GT(g.multiprocessors, 0) << i;
    EXPECT_EQ(tessera::Device::cuda(static_cast<int>(i)).arch(), g.arch);
  }
}
