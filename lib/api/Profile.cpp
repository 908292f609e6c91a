//===- Profile.cpp - TESSERA_PROFILE: a Chrome/Perfetto timeline ----------===//
//
// With TESSERA_PROFILE=FILE, the runtime records what it spends time on and
// writes FILE as a Chrome trace (chrome://tracing, ui.perfetto.dev) at exit
// or at tessera::profile_flush():
//
//   compile    the Tile IR stage of a specialization, its PTX, its cubin
//              (assembling), its module load; the kernel and target named
//   autotune   each sweep, with the chosen config
//   launch     each launch call on the CPU thread (kernel, grid, warps)
//   gpu        each GPU launch's execution, from a pair of CUDA events
//              around it, on a track of its own (an autotuning sweep's
//              timed runs carry "autotune": true); interpreter launches
//              are timed on the CPU (they run there)
//
// Off (the variable unset), every hook is one load of a cached flag.
//
//===----------------------------------------------------------------------===//

#include <atomic>
#include <cerrno>
#include <cstring>
#include <optional>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "Internal.h"
#include "tessera/support/Hot.h"
#include "tessera/support/Env.h"

namespace tessera {

namespace detail::profile {

namespace {

using Clock = std::chrono::steady_clock;

struct Event {
  std::string name, category, args;  ///< args: a JSON object's members, or ""
  double startUs = 0, durationUs = 0;
  uint64_t thread = 0;
};

struct GpuLaunch {
  std::string name, args;
  runtime::CudaDevice* device = nullptr;
  void* start = nullptr;
  void* end = nullptr;
};

struct State {
  std::mutex mutex;
  std::string path;
  Clock::time_point origin = Clock::now();
  std::vector<Event> events;
  std::vector<GpuLaunch> gpu;
  // GPU times are placed on the CPU timeline through one reference event
  // recorded at a known CPU time per device.
  std::map<runtime::CudaDevice*, std::pair<void*, double>> reference;
};

State& state() {
  static State* s = new State();  // lives until exit (flushed by an atexit handler)
  return *s;
}

std::string jsonEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
      continue;
    }
    out += c;
  }
  return out;
}

uint64_t threadNumber() {
  static std::atomic<uint64_t> next{1};
  thread_local uint64_t mine = next++;
  return mine;
}

double sinceOrigin(Clock::time_point t) {
  return std::chrono::duration<double, std::micro>(t - state().origin).count();
}

}  // namespace

namespace {
/// Whether TESSERA_PROFILE is on: -1 until the first enabled() has read it.
/// One byte on the launch path (a function-local static costs a guard
/// variable on another cache line as well).
std::atomic<signed char> profiling{-1};
}  // namespace

TESSERA_HOT bool enabled() {
  signed char on = profiling.load(std::memory_order_acquire);
  if (on >= 0) return on != 0;
  static const bool first = [] {
    std::optional<std::string> path = env::text("TESSERA_PROFILE");
    if (!path) return false;
    // Said now, not at exit: a trace that cannot be written is otherwise
    // lost without a word after the whole run.
    if (!std::ofstream(*path, std::ios::app)) {
      env::warnOnce("TESSERA_PROFILE", "TESSERA_PROFILE: cannot write '" + *path + "' (" + std::strerror(errno) +
                                           "): no trace will be written");
      return false;
    }
    state().path = *path;
    std::atexit([] { profile_flush(); });
    return true;
  }();
  profiling.store(first ? 1 : 0, std::memory_order_release);
  return first;
}

TESSERA_HOT Span::Span(const char* category, const std::string* name) : active_(enabled()) {
  if (!active_) return;
  category_ = category;
  name_ = *name;
  start_ = Clock::now();
}

TESSERA_HOT Span::Span(const char* category, std::string_view prefix, std::string_view name) : active_(enabled()) {
  if (!active_) return;
  category_ = category;
  name_.reserve(prefix.size() + name.size());
  name_.append(prefix).append(name);
  start_ = Clock::now();
}

TESSERA_HOT Span::~Span() {
  if (!active_) return;
  auto end = Clock::now();
  Event e{name_, category_, args_, sinceOrigin(start_), std::chrono::duration<double, std::micro>(end - start_).count(),
          threadNumber()};
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.events.push_back(std::move(e));
}

void Span::arg(const std::string& key, const std::string& value) {
  if (!active_) return;
  args_ += (args_.empty() ? "" : ", ") + std::string("\"") + jsonEscape(key) + "\": \"" + jsonEscape(value) + "\"";
}

std::string launchArgs(const std::string& kernel, const int64_t grid[3], int threads) {
  return "\"kernel\": \"" + jsonEscape(kernel) + "\", \"grid\": [" + std::to_string(grid[0]) + ", " +
         std::to_string(grid[1]) + ", " + std::to_string(grid[2]) + "], \"threads\": " + std::to_string(threads);
}

TESSERA_HOT GpuMark beginGpu(runtime::CudaDevice& device, void* stream) {
  GpuMark m;
  if (!enabled()) return m;
  State& s = state();
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (!s.reference.count(&device)) {
      // Flush at exit again, from a handler registered after the driver's
      // own (atexit runs them in reverse): the GPU events are still readable.
      static std::once_flag once;
      std::call_once(once, [] { std::atexit([] { profile_flush(); }); });
      void* ref = device.createEvent();
      device.recordEvent(ref, stream);
      device.synchronize();  // the reference event's GPU time is now ~ this CPU time
      s.reference[&device] = {ref, sinceOrigin(Clock::now())};
    }
  }
  m.device = &device;
  m.start = device.createEvent();
  m.end = device.createEvent();
  device.recordEvent(m.start, stream);
  return m;
}

namespace {
thread_local int sweepDepth = 0;
}  // namespace

SweepScope::SweepScope() { ++sweepDepth; }
SweepScope::~SweepScope() { --sweepDepth; }

void endGpu(const GpuMark& m, void* stream, const std::string& name, const std::string& args) {
  if (!m.device) return;
  m.device->recordEvent(m.end, stream);
  std::string marked = sweepDepth ? args + (args.empty() ? "" : ", ") + "\"autotune\": true" : args;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.gpu.push_back({name, std::move(marked), m.device, m.start, m.end});
}

}  // namespace detail::profile

void profile_flush() {
  using namespace detail::profile;
  if (!enabled()) return;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  // GPU launches recorded so far become events (their CUDA events are read
  // and destroyed; this waits for them).
  for (const GpuLaunch& g : s.gpu) {
    try {
      auto ref = s.reference.at(g.device);
      double start = ref.second + 1e3 * g.device->elapsedMs(ref.first, g.start);
      double duration = 1e3 * g.device->elapsedMs(g.start, g.end);
      s.events.push_back({g.name, "gpu", g.args, start, duration, 0});
    } catch (const std::exception&) {
      // A faulted context: the launch's time is unknown; leave it out.
    }
    g.device->destroyEvent(g.start);
    g.device->destroyEvent(g.end);
  }
  s.gpu.clear();
  std::ofstream out(s.path, std::ios::trunc);
  if (!out) {
    env::warnOnce("TESSERA_PROFILE", "TESSERA_PROFILE: cannot write '" + s.path + "' (" + std::strerror(errno) +
                                         "): the trace is lost");
    return;
  }
  out << "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n";
  out << "  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 0, \"args\": {\"name\": \"GPU\"}}";
  for (const Event& e : s.events) {
    char times[96];
    std::snprintf(times, sizeof times, "\"ts\": %.3f, \"dur\": %.3f", e.startUs, e.durationUs);
    out << ",\n  {\"name\": \"" << jsonEscape(e.name) << "\", \"cat\": \"" << e.category << "\", \"ph\": \"X\", "
        << times << ", \"pid\": 1, \"tid\": " << e.thread << ", \"args\": {" << e.args << "}}";
  }
  out << "\n]}\n";
}

}  // namespace tessera
