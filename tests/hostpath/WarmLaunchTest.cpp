//===- WarmLaunchTest.cpp - The host work of a warm GPU launch ------------===//
//
// Runs against the fake libcuda.so.1 of FakeDriver.cpp (ctest puts it on
// LD_LIBRARY_PATH): a real GPU device as far as Tessera can tell, whose
// launches run nothing but record what they were given. Checks what a
// launch hands the driver (function, grid, block, every parameter's bytes,
// attributes) on the cold path and on the warm one (LaunchMemo.cpp), that
// a changed specialization never reuses another's kernel or packing, and
// that a warm launch through the public API performs no heap allocation.
// It also prints the host time of a warm launch next to the fake
// cuLaunchKernel alone (informational; speed is checked by benchmarks).
//
//===----------------------------------------------------------------------===//

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <new>
#include <string>
#include <vector>

#include "FakeDriver.h"
#include "tessera/runtime/Assembler.h"
#include "tessera/tessera.h"

// Every C++ allocation of the calling thread is counted while `counting`
// is set (other threads, a profiler's or a pool's, are not the launch's).
namespace {
thread_local bool counting = false;
std::atomic<long> allocations{0};
void* counted(size_t n) {
  if (counting) allocations.fetch_add(1, std::memory_order_relaxed);
  void* p = std::malloc(n ? n : 1);
  if (!p) throw std::bad_alloc();
  return p;
}
void* countedAligned(size_t n, std::align_val_t a) {
  if (counting) allocations.fetch_add(1, std::memory_order_relaxed);
  size_t align = static_cast<size_t>(a);
  void* p = std::aligned_alloc(align, (n + align - 1) / align * align);
  if (!p) throw std::bad_alloc();
  return p;
}
}  // namespace
void* operator new(size_t n) { return counted(n); }
void* operator new[](size_t n) { return counted(n); }
void* operator new(size_t n, const std::nothrow_t&) noexcept { return std::malloc(n ? n : 1); }
void* operator new[](size_t n, const std::nothrow_t&) noexcept { return std::malloc(n ? n : 1); }
void* operator new(size_t n, std::align_val_t a) { return countedAligned(n, a); }
void* operator new[](size_t n, std::align_val_t a) { return countedAligned(n, a); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { std::free(p); }

namespace {

using namespace tessera;
using Clock = std::chrono::steady_clock;

const char* kSource = R"(
import triton
import triton.language as tl

@triton.jit
def scaled_add(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = offs < n
    x = tl.load(x_ptr + offs, mask=keep)
    y = tl.load(y_ptr + offs, mask=keep)
    tl.store(out_ptr + offs, x * alpha + y, mask=keep)
)";

struct Fake {
  unsigned long long (*launches)() = nullptr;
  const FakeCudaLaunch* (*last)() = nullptr;
  void (*expect)(int, const int*) = nullptr;
  void (*touch)(size_t) = nullptr;
  void (*stamp)(int) = nullptr;
  long long (*entryNs)() = nullptr;
};

/// The fake driver's introspection, once the runtime has loaded it.
const Fake& fake() {
  static Fake f = [] {
    Fake r;
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!lib) return r;
    r.launches = reinterpret_cast<unsigned long long (*)()>(dlsym(lib, "fakecudaLaunches"));
    r.last = reinterpret_cast<const FakeCudaLaunch* (*)()>(dlsym(lib, "fakecudaLastLaunch"));
    r.expect = reinterpret_cast<void (*)(int, const int*)>(dlsym(lib, "fakecudaExpectParams"));
    r.touch = reinterpret_cast<void (*)(size_t)>(dlsym(lib, "fakecudaTouch"));
    r.stamp = reinterpret_cast<void (*)(int)>(dlsym(lib, "fakecudaStampEntries"));
    r.entryNs = reinterpret_cast<long long (*)()>(dlsym(lib, "fakecudaLastEntryNs"));
    return r;
  }();
  return f;
}

class HostPath : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!runtime::toolkitAvailable(&why)) GTEST_SKIP() << "no CUDA toolkit to assemble the kernels: " << why;
    try {
      dev = Device::cuda(0);  // loads libcuda.so.1: the fake
    } catch (const Error& e) {
      GTEST_SKIP() << "no CUDA driver, not even the fake one (run through ctest): " << e.what();
    }
    if (!fake().launches) GTEST_SKIP() << "libcuda.so.1 is not the fake driver (run through ctest)";
    // x, y, out: pointers; n: i32; alpha: f32 (n == 1 would be a constexpr).
    const int bytes[] = {8, 8, 8, 4, 4};
    fake().expect(5, bytes);
  }
  Device dev = Device::interpreter();
};

float asFloat(uint64_t bits) {
  float f;
  uint32_t b = static_cast<uint32_t>(bits);
  std::memcpy(&f, &b, 4);
  return f;
}

void expectLaunch(const Tensor& x, const Tensor& y, const Tensor& out, int64_t n, float alpha, int64_t programs) {
  const FakeCudaLaunch& l = *fake().last();
  ASSERT_EQ(l.numParams, 5);
  EXPECT_EQ(l.params[0], x.data_ptr());
  EXPECT_EQ(l.params[1], y.data_ptr());
  EXPECT_EQ(l.params[2], out.data_ptr());
  EXPECT_EQ(static_cast<int64_t>(static_cast<int32_t>(l.params[3])), n);
  EXPECT_EQ(asFloat(l.params[4]), alpha);
  EXPECT_EQ(l.grid[0], static_cast<unsigned>(programs));
  EXPECT_EQ(l.grid[1], 1u);
  EXPECT_EQ(l.grid[2], 1u);
  EXPECT_EQ(l.blockThreads, 128u);  // num_warps 4
}

TEST_F(HostPath, WarmLaunchesPassTheRightParametersAndAllocateNothing) {
  Program p = Program::from_source(kSource, "hostpath.py");
  Kernel k = p.kernel("scaled_add");
  const int64_t n = 1000 + std::rand() % 24;  // odd sizes: not a multiple of 16 (but 1008)
  Tensor x = dev.zeros(DType::fp32, {n}), y = dev.zeros(DType::fp32, {n}), out = dev.zeros(DType::fp32, {n});
  const int64_t block = 256;
  Grid grid{cdiv(n, block)};
  Meta meta{{"BLOCK", Value(block)}};
  LaunchOptions options;
  Arg args[] = {x, y, out, n, 0.5};
  unsigned long long before = fake().launches();
  k.launch(dev, grid, args, 5, meta, options);  // cold: compiles, assembles, loads, remembers
  ASSERT_EQ(fake().launches(), before + 1);
  expectLaunch(x, y, out, n, 0.5f, cdiv(n, block));
  void* function = fake().last()->function;

  // Warm: the same shape with other values; no allocation at all.
  Tensor x2 = dev.zeros(DType::fp32, {n});
  Arg warm[] = {x2, y, out, n, 0.25};
  constexpr int kLaunches = 2000;
  allocations = 0;
  counting = true;
  for (int i = 0; i < kLaunches; ++i) k.launch(dev, grid, warm, 5, meta, options);
  counting = false;
  EXPECT_EQ(allocations.load(), 0) << "heap allocations in " << kLaunches << " warm launches";
  EXPECT_EQ(fake().launches(), before + 1 + kLaunches);
  expectLaunch(x2, y, out, n, 0.25f, cdiv(n, block));
  // The braced form keeps its grid and arguments on the stack too.
  allocations = 0;
  counting = true;
  for (int i = 0; i < kLaunches; ++i) k.launch(dev, {cdiv(n, block)}, {x, y, out, n, 0.75}, meta, options);
  counting = false;
  EXPECT_EQ(allocations.load(), 0) << "heap allocations in " << kLaunches << " warm launches with braced arguments";
  expectLaunch(x, y, out, n, 0.75f, cdiv(n, block));
  EXPECT_EQ(fake().last()->function, function);
  // Braced constexprs too (NamedValue): the whole call allocates nothing.
  allocations = 0;
  counting = true;
  for (int i = 0; i < kLaunches; ++i) k.launch(dev, {cdiv(n, block)}, {x2, y, out, n, 1.5}, {{"BLOCK", block}}, options);
  counting = false;
  EXPECT_EQ(allocations.load(), 0) << "heap allocations in " << kLaunches << " warm launches, all braced";
  expectLaunch(x2, y, out, n, 1.5f, cdiv(n, block));
  EXPECT_EQ(fake().last()->function, function);
  // Another BLOCK is another specialization, never the memo's; a repeated
  // name keeps its first value, as a braced Meta does.
  k.launch(dev, {cdiv(n, 128)}, {x, y, out, n, 2.0}, {{"BLOCK", int64_t(128)}}, options);
  expectLaunch(x, y, out, n, 2.0f, cdiv(n, 128));
  void* function128 = fake().last()->function;
  EXPECT_NE(function128, function);
  k.launch(dev, {cdiv(n, block)}, {x, y, out, n, 3.0}, {{"BLOCK", block}, {"BLOCK", int64_t(128)}}, options);
  expectLaunch(x, y, out, n, 3.0f, cdiv(n, block));
  EXPECT_EQ(fake().last()->function, function);
  k.launch(dev, {cdiv(n, 128)}, {x, y, out, n, 4.0}, {{"BLOCK", int64_t(128)}, {"BLOCK", block}}, options);
  EXPECT_EQ(fake().last()->function, function128);
}

// A braced list binds ArgRefs, which read each value where it stands (a
// tensor by address, an Arg given whole by address, scalars by value): an
// Arg, a temporary Arg, unsigned and narrower scalars pass the same
// parameters on the cold path (which copies them into Args) and on the
// warm one (which reads them in place and allocates nothing), with a
// NamedValue list and with a Meta.
TEST_F(HostPath, BracedArgumentsOfEveryFormPassTheirValues) {
  Program p = Program::from_source(kSource, "hostpath.py");
  Kernel k = p.kernel("scaled_add");
  const int64_t n = 700 + std::rand() % 50;
  Tensor x = dev.zeros(DType::fp32, {n}), y = dev.zeros(DType::fp32, {n}), out = dev.zeros(DType::fp32, {n});
  Arg whole(y);
  for (int round = 0; round < 2; ++round) {  // cold, then warm
    SCOPED_TRACE(round == 0 ? "cold" : "warm");
    unsigned long long before = fake().launches();
    allocations = 0;
    counting = round == 1;
    k.launch(dev, {cdiv(n, 128)}, {x, whole, Arg(out), uint32_t(n), 0.5f}, {{"BLOCK", int64_t(128)}});
    counting = false;
    ASSERT_EQ(fake().launches(), before + 1);
    expectLaunch(x, y, out, n, 0.5f, cdiv(n, 128));
    if (round == 1) EXPECT_EQ(allocations.load(), 0) << "the warm path allocates nothing";
    Meta meta{{"BLOCK", Value(int64_t(64))}};
    allocations = 0;
    counting = round == 1;
    k.launch(dev, {cdiv(n, 64)}, {Arg(x), out, whole, uint64_t(n), 1.25}, meta);
    counting = false;
    expectLaunch(x, out, y, n, 1.25f, cdiv(n, 64));
    if (round == 1) EXPECT_EQ(allocations.load(), 0) << "the warm path allocates nothing (a Meta)";
  }
}

TEST_F(HostPath, ASpecializationChangeNeverReusesAnotherShapesPacking) {
  Program p = Program::from_source(kSource, "hostpath.py");
  Kernel k = p.kernel("scaled_add");
  Tensor x = dev.zeros(DType::fp32, {2048}), y = dev.zeros(DType::fp32, {2048}), out = dev.zeros(DType::fp32, {2048});
  Meta meta{{"BLOCK", Value(int64_t(128))}};
  // n % 16 == 0, n % 16 != 0, n == 1 (a constexpr: 4 parameters), and again.
  for (int round = 0; round < 2; ++round) {
    for (int64_t n : {int64_t(2048), int64_t(999), int64_t(1)}) {
      const int withN[] = {8, 8, 8, 4, 4}, withoutN[] = {8, 8, 8, 4};
      n == 1 ? fake().expect(4, withoutN) : fake().expect(5, withN);
      k.launch(dev, {cdiv(n, 128)}, {x, y, out, n, 2.0}, meta);
      const FakeCudaLaunch& l = *fake().last();
      EXPECT_EQ(l.params[0], x.data_ptr());
      if (n == 1) {
        EXPECT_EQ(asFloat(l.params[3]), 2.0f) << "n == 1 is specialized away: alpha comes fourth";
      } else {
        EXPECT_EQ(static_cast<int32_t>(l.params[3]), n) << "round " << round;
        EXPECT_EQ(asFloat(l.params[4]), 2.0f);
      }
      EXPECT_EQ(l.grid[0], static_cast<unsigned>(cdiv(n, 128)));
    }
  }
  // A tensor offset by 4 bytes (not 16-aligned) is another specialization too.
  fake().expect(5, std::array<int, 5>{8, 8, 8, 4, 4}.data());
  Tensor shifted = x.slice(0, 1, 2048);
  k.launch(dev, {8}, {shifted, y, out, int64_t(1000), 1.0}, meta);
  EXPECT_EQ(fake().last()->params[0], x.data_ptr() + 4);
}

TEST_F(HostPath, LaunchAttributesOnTheWarmPath) {
  Program p = Program::from_source(kSource, "hostpath.py");
  Kernel k = p.kernel("scaled_add");
  Tensor x = dev.zeros(DType::fp32, {512});
  Arg args[] = {x, x, x, int64_t(512), 1.5};
  Meta meta{{"BLOCK", Value(int64_t(128))}};
  Grid grid{4};
  LaunchOptions pdl;
  pdl.launch_pdl = true;
  pdl.num_ctas = 2;
  for (int i = 0; i < 3; ++i) {
    allocations = 0;
    counting = i > 0;
    k.launch(dev, grid, args, 5, meta, pdl);
    counting = false;
    if (i > 0) {
      EXPECT_EQ(allocations.load(), 0);
    }
    EXPECT_EQ(fake().last()->programmaticSerialization, 1);
    EXPECT_EQ(fake().last()->clusterSize, 2u);
  }
  LaunchOptions plain;
  k.launch(dev, grid, args, 5, meta, plain);
  EXPECT_EQ(fake().last()->programmaticSerialization, 0);
  EXPECT_EQ(fake().last()->clusterSize, 1u);
}

TEST_F(HostPath, GraphsRecordOnceAndReplayTheLaunchesInOrder) {
  Program p = Program::from_source(kSource, "hostpath.py");
  Kernel k = p.kernel("scaled_add");
  Tensor x = dev.zeros(DType::fp32, {300}), y = dev.zeros(DType::fp32, {300}), out = dev.zeros(DType::fp32, {300});
  Meta meta{{"BLOCK", Value(int64_t(128))}};
  k.launch(dev, {3}, {x, y, out, int64_t(300), 1.0}, meta);  // compiled outside the capture
  unsigned long long before = fake().launches();
  Graph g = Graph::capture(dev, [&](void* stream) {
    LaunchOptions on;
    on.stream = stream;
    k.launch(dev, {3}, {x, y, out, int64_t(300), 2.0}, meta, on);
    k.launch(dev, {2}, {y, x, out, int64_t(250), 3.0}, meta, on);
  });
  EXPECT_EQ(fake().launches(), before) << "a capture records, it runs nothing";
  for (int replay = 1; replay <= 3; ++replay) {
    g.replay();
    EXPECT_EQ(fake().launches(), before + 2 * replay);
    expectLaunch(y, x, out, 250, 3.0f, 2);  // the last recorded launch, as recorded
  }
  // A failing record discards the capture: later launches run as usual.
  EXPECT_THROW(Graph::capture(dev, [&](void* stream) {
                 LaunchOptions on;
                 on.stream = stream;
                 k.launch(dev, {3}, {x, y, out, int64_t(300), 2.0}, meta, on);
                 throw Error("stop");
               }),
               Error);
  unsigned long long after = fake().launches();
  k.launch(dev, {3}, {x, y, out, int64_t(300), 5.0}, meta);
  EXPECT_EQ(fake().launches(), after + 1);
  expectLaunch(x, y, out, 300, 5.0f, 3);
}

/// One warm kernel and the ways to launch it again, for the timings below.
struct WarmLaunches {
  explicit WarmLaunches(Device& d) : dev(d) {}
  struct Path {
    const char* name;
    std::function<void()> run;
    int launchesPerCall = 1;  ///< a graph's replay is 10 (a batch is 100 launches)
    std::vector<double> ns;
  };
  /// PreparedLaunch and Kernel::launch with an Arg array, braced, braced with a Meta.
  std::vector<Path> paths() {
    return {{"PreparedLaunch", [this] { prepared.launch(); }},
            {"Kernel::launch (Arg array)", [this] { k.launch(dev, grid, args, 5, meta, options); }},
            {"Kernel::launch (all braced)",
             [this] { k.launch(dev, {4}, {x, x, x, int64_t(4096), 1.0}, {{"BLOCK", int64_t(1024)}}); }},
            {"Kernel::launch (braced, a Meta map)",
             [this] { k.launch(dev, {4}, {x, x, x, int64_t(4096), 1.0}, Meta{{"BLOCK", int64_t(1024)}}); }}};
  }
  Device& dev;
  Program p = Program::from_source(kSource, "hostpath.py");
  Kernel k = p.kernel("scaled_add");
  Tensor x = dev.zeros(DType::fp32, {4096});
  Meta meta{{"BLOCK", Value(int64_t(1024))}};
  LaunchOptions options;
  Arg args[5] = {x, x, x, int64_t(4096), 1.0};
  Grid grid{4};
  PreparedLaunch prepared = warmUp();

 private:
  PreparedLaunch warmUp() {  // the first launch compiles and is remembered
    k.launch(dev, grid, args, 5, meta, options);
    return k.prepare(dev, grid, {x, x, x, int64_t(4096), 1.0}, meta);
  }
};

/// The host work of a warm launch up to the driver's entry, with warm
/// caches and with cold ones (the fake writes 4 MiB after every launch, as
/// a real driver's launch evicts the caller's data from L1 and L2): then
/// every dependent pointer hop on the path costs a miss, which a hot loop
/// does not show. Printed, not asserted (speed is checked by benchmarks).
/// HOSTPATH_COLD_KB=65536 evicts the last-level cache as well.
TEST_F(HostPath, HostWorkBeforeTheDriverWithWarmAndColdCaches) {
  if (!fake().touch || !fake().stamp || !fake().entryNs) GTEST_SKIP() << "the fake driver lacks fakecudaTouch";
  WarmLaunches w(dev);
  fake().stamp(1);
  std::vector<WarmLaunches::Path> paths = w.paths();
  const char* coldKb = std::getenv("HOSTPATH_COLD_KB");  // how much a launch evicts (default 4 MiB)
  for (size_t kb : {size_t(0), coldKb ? std::strtoul(coldKb, nullptr, 10) : size_t(4096)}) {
    fake().touch(kb);
    std::vector<std::vector<double>> ns(paths.size());
    for (int round = 0; round < 400; ++round)  // the paths interleaved, one launch each
      for (size_t i = 0; i < paths.size(); ++i) {
        auto t0 = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
        paths[i].run();
        ns[i].push_back(static_cast<double>(fake().entryNs() - t0));
      }
    for (size_t i = 0; i < paths.size(); ++i) {
      std::sort(ns[i].begin(), ns[i].end());
      std::printf("host work before the driver (%s caches), ns, 400 launches: %-36s median %6.0f, p90 %6.0f\n",
                  kb ? "cold" : "warm", paths[i].name, ns[i][ns[i].size() / 2], ns[i][ns[i].size() * 9 / 10]);
    }
  }
  fake().touch(0);
  fake().stamp(0);
  expectLaunch(w.x, w.x, w.x, 4096, 1.0f, 4);
}

/// Host time of one warm launch next to a PreparedLaunch and the driver's
/// own call (printed, not asserted). Without the fake on LD_LIBRARY_PATH it
/// measures the real driver: the device run uses it that way.
TEST(HostPathTiming, WarmLaunchHostTime) {
  Device dev = Device::default_device();
  if (dev.is_interpreter()) GTEST_SKIP() << "no CUDA driver";
  std::string why;
  if (!runtime::toolkitAvailable(&why)) GTEST_SKIP() << "no CUDA toolkit to assemble the kernels: " << why;
  WarmLaunches w(dev);
  auto batch = [&](const std::function<void()>& f, int calls) {  // ns per call
    auto t0 = Clock::now();
    for (int i = 0; i < calls; ++i) f();
    return std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / calls;
  };
  using LaunchFn = int (*)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*, void**,
                           void**);
  auto raw = reinterpret_cast<LaunchFn>(dlsym(dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD), "cuLaunchKernel"));
  ASSERT_NE(raw, nullptr);
  // One graph of 10 launches: its replay's cost per kernel.
  Graph ten = Graph::capture(dev, [&](void* stream) {
    LaunchOptions on = w.options;
    on.stream = stream;
    for (int i = 0; i < 10; ++i) w.k.launch(dev, w.grid, w.args, 5, w.meta, on);
  });
  using Path = WarmLaunches::Path;
  const PreparedLaunch& prepared = w.prepared;
  std::vector<Path> paths = w.paths();
  paths.insert(paths.begin(), Path{"cuLaunchKernel alone", [&] {
                                     raw(prepared.cu_function(), 4, 1, 1, unsigned(prepared.block_threads()), 1, 1,
                                         unsigned(prepared.shared_bytes()), nullptr, prepared.cu_params(), nullptr);
                                   }});
  paths.push_back(Path{"graph of 10, per launch", [&] { ten.replay(); }, 10});
  // Batches of every path interleaved, the order rotating, so that drift
  // in the driver's and the machine's speed reaches all paths alike; each
  // path is reported as its median and best batch and as the median of its
  // batch minus the raw call's batch of the same round.
  // HOSTPATH_ROUNDS: more rounds for a profile of the path (perf record on this test).
  const int kRounds = std::getenv("HOSTPATH_ROUNDS") ? std::max(1, std::atoi(std::getenv("HOSTPATH_ROUNDS"))) : 60;
  for (int r = 0; r < kRounds; ++r)
    for (size_t i = 0; i < paths.size(); ++i) {
      Path& path = paths[(i + r) % paths.size()];
      dev.synchronize();  // an empty queue: the batch measures the host, not a full launch queue
      path.ns.push_back(batch(path.run, 100 / path.launchesPerCall) / path.launchesPerCall);
    }
  dev.synchronize();
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const std::vector<double>& floorNs = paths[0].ns;
  for (const Path& path : paths) {
    std::vector<double> over;
    for (int r = 0; r < kRounds; ++r) over.push_back(path.ns[r] - floorNs[r]);
    std::printf("warm launch host time (%s), ns per call, %d interleaved batches of 100 launches: %-36s median %6.0f, best "
                "%6.0f, over cuLaunchKernel (median of paired batches) %+6.0f\n",
                dev.name().c_str(), kRounds, path.name, median(path.ns),
                *std::min_element(path.ns.begin(), path.ns.end()), median(over));
  }
  SUCCEED();
}

}  // namespace
