//===- StreamsTest.cpp - Launches on the caller's stream, and in CUDA graphs -===//
//
// GPU only (skipped elsewhere). LaunchOptions::stream is honoured on every
// path: an autotuning sweep runs on the launch's stream and waits for
// nothing else (a kernel spinning on another stream is still running when
// a tuned launch whose modules are loaded returns, and the tuned tensor was
// restored before the winner ran once); launches made while a stream is captured into a CUDA
// graph (global capture mode, as torch.cuda.graph uses) record into the
// graph, warm or cold (a module load inside a capture), and replay; an
// autotuned launch with no choice yet is refused during a capture with a
// message, leaving the capture usable.
//
// The streams and graphs come from the driver, opened here as the runtime
// opens it (libcuda.so.1 by dlopen).
//
//===----------------------------------------------------------------------===//

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <chrono>
#include <random>

#include "TestUtil.h"
#include "tessera/runtime/Driver.h"
#include "tessera/tessera.h"

namespace {

using namespace tessera;

const char* kSource = R"(
import triton
import triton.language as tl

@triton.autotune(configs=[triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 512}, num_warps=8)], key=["n"])
@triton.jit
def tuned_add(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(y_ptr + offs, mask=m) + tl.load(x_ptr + offs, mask=m), mask=m)

@triton.jit
def axpb(y_ptr, x_ptr, n, a, b, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) * a + b, mask=m)
)";

// A kernel that spins on the global timer for `ns` nanoseconds.
constexpr char kSpinPtx[] = R"(.version 7.0
.target sm_80
.address_size 64
.visible .entry tessera_test_spin(.param .u64 ns)
{
  .reg .pred %p;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [ns];
  mov.u64 %rd2, %globaltimer;
  add.u64 %rd3, %rd2, %rd1;
WAIT:
  mov.u64 %rd4, %globaltimer;
  setp.lt.u64 %p, %rd4, %rd3;
  @%p bra WAIT;
  ret;
}
)";

/// The driver entry points the test needs beyond the runtime's.
struct Driver {
  using R = int;
  R (*streamCreate)(void**, unsigned) = nullptr;
  R (*streamDestroy)(void*) = nullptr;
  R (*streamQuery)(void*) = nullptr;
  R (*streamSynchronize)(void*) = nullptr;
  R (*beginCapture)(void*, int) = nullptr;
  R (*endCapture)(void*, void**) = nullptr;
  R (*graphInstantiate)(void**, void*, unsigned long long) = nullptr;
  R (*graphLaunch)(void*, void*) = nullptr;
  R (*graphExecDestroy)(void*) = nullptr;
  R (*graphDestroy)(void*) = nullptr;
  bool ok = false;

  static const Driver& get() {
    static Driver d = [] {
      Driver d;
      void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
      if (!lib) return d;
      auto sym = [&](auto& fn, const char* name) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
        return fn != nullptr;
      };
      d.ok = sym(d.streamCreate, "cuStreamCreate") && sym(d.streamDestroy, "cuStreamDestroy_v2") &&
             sym(d.streamQuery, "cuStreamQuery") && sym(d.streamSynchronize, "cuStreamSynchronize") &&
             sym(d.beginCapture, "cuStreamBeginCapture_v2") && sym(d.endCapture, "cuStreamEndCapture") &&
             sym(d.graphInstantiate, "cuGraphInstantiateWithFlags") && sym(d.graphLaunch, "cuGraphLaunch") &&
             sym(d.graphExecDestroy, "cuGraphExecDestroy") && sym(d.graphDestroy, "cuGraphDestroy");
      return d;
    }();
    return d;
  }
};

constexpr int kNotReady = 600;         // CUDA_ERROR_NOT_READY
constexpr unsigned kNonBlocking = 1;   // CU_STREAM_NON_BLOCKING
constexpr int kCaptureGlobal = 0;      // CU_STREAM_CAPTURE_MODE_GLOBAL

/// A non-blocking stream of the current context, finished and destroyed at
/// scope exit.
struct Stream {
  void* s = nullptr;
  Stream() { EXPECT_EQ(Driver::get().streamCreate(&s, kNonBlocking), 0); }
  ~Stream() {
    if (!s) return;
    Driver::get().streamSynchronize(s);
    Driver::get().streamDestroy(s);
  }
};

/// An empty compile cache for the test (no autotuning choice on disk).
struct FreshCache {
  testutil::TempDir dir;
  testutil::ScopedEnv env{"TESSERA_CACHE_DIR", dir.path};
};

#define REQUIRE_GPU()                                                            \
  do {                                                                           \
    std::string why;                                                             \
    if (!runtime::cudaAvailable(&why)) GTEST_SKIP() << "no GPU: " << why;        \
    if (!Driver::get().ok) GTEST_SKIP() << "the driver lacks the graph API";     \
  } while (0)

std::vector<float> randomFloats(int64_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> v(-1000, 1000);
  std::vector<float> out(n);
  for (float& x : out) x = static_cast<float>(v(rng)) / 8;  // exact in fp32 sums
  return out;
}

Grid tunedGrid(int64_t n) {
  return Grid([n](const Meta& m) { return std::vector<int64_t>{cdiv(n, meta_int(m, "BLOCK"))}; });
}

TEST(Streams, AutotuneSweepRunsOnTheLaunchStreamAndWaitsForNothingElse) {
  REQUIRE_GPU();
  Device dev = Device::cuda();
  dev.synchronize();  // the device's context is current on this thread
  FreshCache cache;
  runtime::CudaDevice& cuda = runtime::CudaDevice::get(dev.ordinal());
  runtime::LoadedKernel spin;  // (declared before the streams: unloaded after the spinner finished)
  cuda.loadKernel(spin, std::vector<char>(kSpinPtx, kSpinPtx + sizeof kSpinPtx), "tessera_test_spin", 0, 0);

  const int64_t n = 100003;
  std::vector<float> x = randomFloats(n, 1), y0 = randomFloats(n, 2);
  Tensor tx = dev.upload(x, {n}), ty = dev.upload(y0, {n});
  dev.synchronize();
  Kernel k = Program::from_source(kSource, "streams.py").kernel("tuned_add");

  Stream busy, mine;
  LaunchOptions on;
  on.stream = mine.s;
  // A first sweep (another key, the same specializations) loads the
  // configs' modules and the L2-flush kernel: loading a module may wait for
  // the whole device (the driver's doing, see CUDA's lazy-loading notes), so
  // it happens before the spinner starts.
  const int64_t n0 = n - 16;
  k.launch(dev, tunedGrid(n0), {ty, tx, n0}, {}, on);
  ASSERT_EQ(Driver::get().streamSynchronize(mine.s), 0);

  uint64_t ns = 2'000'000'000ull;  // 2 s: far longer than timing two configs
  const int64_t one[3] = {1, 1, 1};
  void* params[] = {&ns};
  cuda.launch(spin, one, 1, 0, busy.s, params);
  auto start = std::chrono::steady_clock::now();
  k.launch(dev, tunedGrid(n), {ty, tx, n}, {}, on);  // times both configs, restores y, runs the winner
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(Driver::get().streamQuery(busy.s), kNotReady)
      << "the sweep waited for another stream's kernel (" << seconds << " s)";
  ASSERT_EQ(Driver::get().streamSynchronize(mine.s), 0);
  ASSERT_TRUE(k.best_config().has_value());
  std::vector<float> y = ty.download<float>();  // (downloading waits for the device, the spinner included)
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(y[i], y0[i] + (i < n0 ? 2 : 1) * x[i])
        << "element " << i << " (the sweeps' runs were not undone, or ran after)";
}

TEST(Streams, WarmAndColdLaunchesRecordIntoAGraphCapturedInGlobalMode) {
  REQUIRE_GPU();
  Device dev = Device::cuda();
  dev.synchronize();  // the device's context is current on this thread
  FreshCache cache;
  const Driver& d = Driver::get();
  Program p = Program::from_source(kSource, "streams_graph.py");
  Kernel tuned = p.kernel("tuned_add"), axpb = p.kernel("axpb");
  const int64_t n = 77777;
  std::vector<float> x = randomFloats(n, 3), y0 = randomFloats(n, 4);
  Tensor tx = dev.upload(x, {n}), ty = dev.upload(y0, {n}), tz = dev.empty(DType::fp32, {n}),
         tw = dev.empty(DType::fp32, {n});
  Stream s;
  LaunchOptions on;
  on.stream = s.s;
  // Warm: tuned (the sweep happens here) and axpb with BLOCK=256 launched once.
  tuned.launch(dev, tunedGrid(n), {ty, tx, n}, {}, on);
  axpb.launch(dev, {cdiv(n, 256)}, {tz, tx, n, 2.0f, 1.0f}, {{"BLOCK", int64_t(256)}}, on);
  PreparedLaunch prepared = axpb.prepare(dev, {cdiv(n, 256)}, {tz, tx, n, 3.0f, -1.0f}, {{"BLOCK", int64_t(256)}}, on);
  ASSERT_EQ(d.streamSynchronize(s.s), 0);
  std::vector<float> y1 = ty.download<float>();

  ASSERT_EQ(d.beginCapture(s.s, kCaptureGlobal), 0);
  std::string error;
  try {
    tuned.launch(dev, tunedGrid(n), {ty, tx, n}, {}, on);                                        // warm
    prepared.launch();                                                                          // z = 3x - 1
    axpb.launch(dev, {cdiv(n, 128)}, {tw, tx, n, -1.0f, 0.5f}, {{"BLOCK", int64_t(128)}}, on);  // cold: compiled here
  } catch (const Error& e) {
    error = e.what();
  }
  void* graph = nullptr;
  int ended = d.endCapture(s.s, &graph);
  ASSERT_EQ(error, "");
  ASSERT_EQ(ended, 0) << "the capture was invalidated by something a launch did";
  void* exec = nullptr;
  ASSERT_EQ(d.graphInstantiate(&exec, graph, 0), 0);
  for (int replay = 0; replay < 2; ++replay) ASSERT_EQ(d.graphLaunch(exec, s.s), 0);
  ASSERT_EQ(d.streamSynchronize(s.s), 0);
  d.graphExecDestroy(exec);
  d.graphDestroy(graph);

  std::vector<float> y = ty.download<float>(), z = tz.download<float>(), w = tw.download<float>();
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(y1[i], y0[i] + x[i]) << i;
    ASSERT_EQ(y[i], y1[i] + 2 * x[i]) << "tuned_add, two replays, element " << i;
    ASSERT_EQ(z[i], x[i] * 3.0f - 1.0f) << "prepared axpb, element " << i;
    ASSERT_EQ(w[i], x[i] * -1.0f + 0.5f) << "cold axpb, element " << i;
  }
}

TEST(Streams, AnUntunedLaunchInsideACaptureIsRefusedAndTheCaptureSurvives) {
  REQUIRE_GPU();
  Device dev = Device::cuda();
  dev.synchronize();  // the device's context is current on this thread
  FreshCache cache;
  const Driver& d = Driver::get();
  Kernel tuned = Program::from_source(kSource, "streams_refused.py").kernel("tuned_add");
  const int64_t n = 4099;
  Tensor tx = dev.zeros(DType::fp32, {n}), ty = dev.zeros(DType::fp32, {n});
  dev.synchronize();
  Stream s;
  LaunchOptions on;
  on.stream = s.s;
  ASSERT_EQ(d.beginCapture(s.s, kCaptureGlobal), 0);
  std::string error;
  try {
    tuned.launch(dev, tunedGrid(n), {ty, tx, n}, {}, on);
  } catch (const Error& e) {
    error = e.what();
  }
  void* graph = nullptr;
  EXPECT_EQ(d.endCapture(s.s, &graph), 0);
  if (graph) d.graphDestroy(graph);
  EXPECT_NE(error.find("kernel 'tuned_add'"), std::string::npos) << error;
  EXPECT_NE(error.find("being captured into a CUDA graph"), std::string::npos) << error;
  EXPECT_NE(error.find("launch it once"), std::string::npos) << error;
  // Outside the capture the same launch tunes and runs.
  tuned.launch(dev, tunedGrid(n), {ty, tx, n}, {}, on);
  EXPECT_EQ(d.streamSynchronize(s.s), 0);
  EXPECT_TRUE(tuned.best_config().has_value());
}

}  // namespace
