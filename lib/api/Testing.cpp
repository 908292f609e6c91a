//===- Testing.cpp - do_bench, as triton.testing.do_bench -----------------===//
//
// The timing loop of triton.testing.do_bench (Triton 3.x), on the driver
// layer: estimate one run from five (each after an L2 flush), derive the
// warm-up and repetition counts from warmup_ms / rep_ms, then time each
// repetition with its own pair of CUDA events, clearing a 256 MiB buffer
// before each so every run starts with a cold L2. Statistics follow torch:
// the median of an even count is the lower middle value, quantiles
// interpolate linearly.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <memory>
#include <numeric>

#include "Internal.h"
#include "tessera/testing.h"

namespace tessera {

namespace detail {

testing::BenchResult summarizeTimes(std::vector<double> times, const std::vector<double>& quantiles) {
  testing::BenchResult r;
  r.runs = static_cast<int>(times.size());
  if (times.empty()) return r;
  std::sort(times.begin(), times.end());
  r.min_ms = times.front();
  r.max_ms = times.back();
  r.mean_ms = std::accumulate(times.begin(), times.end(), 0.0) / static_cast<double>(times.size());
  r.median_ms = times[(times.size() - 1) / 2];
  for (double q : quantiles) {
    if (!(q >= 0 && q <= 1)) throw Error("do_bench: quantile " + std::to_string(q) + " is outside [0, 1]");
    double pos = q * static_cast<double>(times.size() - 1);
    size_t lo = static_cast<size_t>(std::floor(pos));
    size_t hi = std::min(lo + 1, times.size() - 1);
    r.quantiles_ms.push_back(times[lo] + (pos - static_cast<double>(lo)) * (times[hi] - times[lo]));
  }
  return r;
}

}  // namespace detail

namespace testing {

namespace {

constexpr size_t kL2FlushBytes = size_t(256) << 20;

/// The flush buffer of a device: allocated once, kept for the process.
runtime::DevicePtr flushBuffer(runtime::CudaDevice& device, void* stream) {
  static std::mutex mutex;
  static std::map<int, runtime::DevicePtr> buffers;
  std::lock_guard<std::mutex> lock(mutex);
  runtime::DevicePtr& p = buffers[device.ordinal()];
  if (!p) {
    // Allocated on the stream of the first benchmark, then usable on any
    // (waiting for that stream alone: other streams may be busy).
    p = device.allocate(kL2FlushBytes, stream);
    device.synchronize(stream);
  }
  return p;
}

/// Clears the flush buffer the way Triton's do_bench does (torch's zero_():
/// a kernel of 16-byte stores), so both leave the L2 in the same state: full
/// of dirty lines of the buffer that the timed kernel must write back. PTX
/// for the driver's JIT, so no toolkit is needed.
constexpr char kFlushPtx[] = R"(.version 7.0
.target sm_80
.address_size 64
.visible .entry tessera_l2_flush(.param .u64 buf, .param .u64 chunks)
{
  .reg .pred %p;
  .reg .b32 %r<5>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [buf];
  ld.param.u64 %rd2, [chunks];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mov.u32 %r4, %nctaid.x;
  mul.wide.u32 %rd3, %r1, %r2;
  cvt.u64.u32 %rd4, %r3;
  add.u64 %rd3, %rd3, %rd4;
  mul.wide.u32 %rd5, %r4, %r2;
  mov.u32 %r1, 0;
LOOP:
  setp.ge.u64 %p, %rd3, %rd2;
  @%p bra DONE;
  shl.b64 %rd6, %rd3, 4;
  add.u64 %rd7, %rd1, %rd6;
  st.global.v4.u32 [%rd7], {%r1, %r1, %r1, %r1};
  add.u64 %rd3, %rd3, %rd5;
  bra LOOP;
DONE:
  ret;
}
)";

/// Clears `bytes` (a multiple of 16) at `buffer` on `stream`.
void clearWithKernel(runtime::CudaDevice& device, runtime::DevicePtr buffer, size_t bytes, void* stream) {
  static std::mutex mutex;
  static std::map<int, runtime::LoadedKernel*> kernels;  // kept for the process
  runtime::LoadedKernel* kernel;
  {
    std::lock_guard<std::mutex> lock(mutex);
    runtime::LoadedKernel*& k = kernels[device.ordinal()];
    if (!k) {
      auto fresh = std::make_unique<runtime::LoadedKernel>();
      device.loadKernel(*fresh, std::vector<char>(kFlushPtx, kFlushPtx + sizeof kFlushPtx), "tessera_l2_flush", 0, 0);
      k = fresh.release();
    }
    kernel = k;
  }
  constexpr int kThreads = 256;
  uint64_t chunks = bytes / 16;
  const int64_t grid[3] = {static_cast<int64_t>((chunks + kThreads - 1) / kThreads), 1, 1};
  void* params[] = {&buffer, &chunks};
  device.launch(*kernel, grid, kThreads, 0, stream, params);
}

/// CUDA events that are destroyed however the benchmark ends.
struct Events {
  runtime::CudaDevice& device;
  std::vector<void*> events;
  void* make() {
    events.push_back(device.createEvent());
    return events.back();
  }
  ~Events() {
    for (void* e : events) device.destroyEvent(e);
  }
};

}  // namespace

BenchResult do_bench(Device& device, const std::function<void()>& fn, const BenchOptions& options) {
  if (device.is_interpreter())
    throw Error("do_bench needs a CUDA device; the interpreter has no timing model (use Device::cuda())");
  if (options.warmup_ms < 0 || options.rep_ms <= 0)
    throw Error("do_bench: warmup_ms must be >= 0 and rep_ms > 0");
  runtime::CudaDevice& cuda = *device.impl()->cuda;
  void* stream = options.stream;
  if (cuda.capturing(stream))
    throw Error("do_bench: the stream is being captured into a CUDA graph, where nothing can be timed");
  runtime::DevicePtr cache = options.flush_l2 ? flushBuffer(cuda, stream) : 0;
  auto flush = [&] {
    if (!cache) return;
    if (options.flush_with_kernel)
      clearWithKernel(cuda, cache, kL2FlushBytes, stream);
    else
      cuda.memset8Async(cache, 0, kL2FlushBytes, stream);
  };
  Events events{cuda, {}};
  cuda.synchronize(stream);

  // Phase 1 of 3: estimate one run (with its flush, as Triton does).
  void* start = events.make();
  void* end = events.make();
  cuda.recordEvent(start, stream);
  for (int i = 0; i < 5; ++i) {
    flush();
    fn();
  }
  cuda.recordEvent(end, stream);
  cuda.synchronize(stream);
  double estimate = std::max(1e-6, static_cast<double>(cuda.elapsedMs(start, end)) / 5);
  int warmups = std::max(1, static_cast<int>(options.warmup_ms / estimate));
  int reps = std::max(1, static_cast<int>(options.rep_ms / estimate));

  // Phase 2 of 3: warm up.
  for (int i = 0; i < warmups; ++i) fn();

  // Phase 3 of 3: time each repetition after a flush.
  std::vector<std::pair<void*, void*>> pairs;
  pairs.reserve(reps);
  for (int i = 0; i < reps; ++i) pairs.emplace_back(events.make(), events.make());
  for (auto& [s, e] : pairs) {
    flush();
    cuda.recordEvent(s, stream);
    fn();
    cuda.recordEvent(e, stream);
  }
  cuda.synchronize(stream);
  std::vector<double> times;
  times.reserve(reps);
  for (auto& [s, e] : pairs) times.push_back(cuda.elapsedMs(s, e));
  return detail::summarizeTimes(std::move(times), options.quantiles);
}

}  // namespace testing
}  // namespace tessera
