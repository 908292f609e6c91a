//===- interpreter/Interpreter.cpp - Launching kernels on the CPU ---------===//
//
// run(): compiles the kernel into a plan, snapshots the allocation registry,
// then hands programs (grid order x fastest) to a pool of threads through an
// atomic counter. Each thread owns its Frame and scratch buffers, reused
// across programs. The first Error stops every thread and is rethrown.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "interpreter/FloatFormats.h"
#include "interpreter/Runtime.h"
#include "tessera/support/Diagnostics.h"
#include "tessera/support/ThreadPool.h"

namespace tessera::interp {

/// Thrown inside a program that must stop because a lower program failed.
struct AbortLaunch {};

//===----------------------------------------------------------------------===//
// Allocation registry
//===----------------------------------------------------------------------===//

namespace {
struct Registry {
  std::mutex mutex;
  std::map<uint64_t, AllocationInfo> allocations;
  /// Registrations per base: the same memory can be registered twice (a
  /// tensor imported through DLPack twice) and stays known until both go.
  std::map<uint64_t, int> references;
};
Registry& registry() {
  static Registry r;
  return r;
}
}  // namespace

void registerAllocation(const void* base, size_t bytes, std::string name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  uint64_t b = reinterpret_cast<uint64_t>(base);
  auto it = r.allocations.find(b);
  if (it == r.allocations.end() || it->second.end < b + bytes) r.allocations[b] = AllocationInfo{b, b + bytes, std::move(name)};
  ++r.references[b];
}

void unregisterAllocation(const void* base) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  uint64_t b = reinterpret_cast<uint64_t>(base);
  auto ref = r.references.find(b);
  if (ref != r.references.end() && --ref->second > 0) return;
  if (ref != r.references.end()) r.references.erase(ref);
  r.allocations.erase(b);
}

bool findAllocation(ThreadContext& ctx, uint64_t addr, uint64_t bytes) {
  const auto& allocs = ctx.launch->allocations;
  auto it = std::upper_bound(allocs.begin(), allocs.end(), addr,
                             [](uint64_t a, const AllocationInfo& info) { return a < info.base; });
  if (addr + bytes < addr) return false;
  // The nearest base at or below `addr` may be a window into a larger
  // allocation that also holds the access (a view and its base tensor both
  // registered): look further down for one that contains it.
  while (it != allocs.begin()) {
    --it;
    if (addr + bytes <= it->end) {
      ctx.cacheBase = it->base;
      ctx.cacheEnd = it->end;
      return true;
    }
  }
  return false;
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

namespace {
/// Source files read from disk for carets, by name (null text when unreadable).
const SourceFile* sourceFileFor(const std::string& name) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<SourceFile>> files;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = files.find(name);
  if (it != files.end()) return it->second.get();
  std::string text;
  std::ifstream in(name, std::ios::binary);
  if (in) {
    std::stringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }
  auto file = std::make_unique<SourceFile>(name, std::move(text));
  const SourceFile* raw = file.get();
  files.emplace(name, std::move(file));
  return raw;
}

SourceLoc sourceLocOf(const ir::Operation* op) {
  SourceLoc loc;
  if (!op || !op->loc().known()) return loc;
  loc.file = sourceFileFor(*op->loc().file);
  loc.line = op->loc().line;
  loc.col = op->loc().col;
  return loc;
}
}  // namespace

std::string locationString(const ir::Operation* op) {
  if (!op || !op->loc().known()) return "<unknown location>";
  const ir::Location& l = op->loc();
  return *l.file + ":" + std::to_string(l.line) + ":" + std::to_string(l.col);
}

void runtimeError(const Instr& instr, Frame& frame, const std::string& what, const std::string& detail) {
  const ThreadContext& ctx = *frame.ctx;
  std::string message = ctx.launch->kernelName + ": " + what + " at " + locationString(instr.op) +
                        " in program (" + std::to_string(ctx.pid[0]) + ", " + std::to_string(ctx.pid[1]) +
                        ", " + std::to_string(ctx.pid[2]) + ")" + detail;
  SourceLoc loc = sourceLocOf(instr.op);
  if (!loc.file) throw Error("error: " + message);
  throw Error(formatDiagnostic(loc, message));
}

void runtimeWarningOnce(const Instr& instr, Frame& frame, const std::string& what, const std::string& detail) {
  static std::mutex mutex;
  static std::set<std::string> warned;  // kernel, location and op (ops come and go with their modules)
  const ThreadContext& ctx = *frame.ctx;
  {
    std::lock_guard<std::mutex> lock(mutex);
    std::string key = ctx.launch->kernelName + "@" + locationString(instr.op) + " " + std::string(instr.op->name());
    if (!warned.insert(key + ": " + what).second) return;
  }
  std::string message = ctx.launch->kernelName + ": " + what + " in program (" + std::to_string(ctx.pid[0]) + ", " +
                        std::to_string(ctx.pid[1]) + ", " + std::to_string(ctx.pid[2]) + ")" + detail;
  SourceLoc loc = sourceLocOf(instr.op);
  std::string text = loc.file ? formatDiagnostic(loc, message, "warning") : "warning: " + message;
  std::fprintf(stderr, "%s\n", text.c_str());
}

void planError(const ir::Operation* op, const std::string& message) {
  SourceLoc loc = sourceLocOf(op);
  std::string text = "interpreter: " + message;
  if (!loc.file) throw Error("error: " + text);
  throw Error(formatDiagnostic(loc, text));
}

void accessError(const Instr& instr, Frame& frame, const char* kind, uint64_t addr, uint64_t bytes,
                 int64_t lane) {
  const auto& allocs = frame.ctx->launch->allocations;
  char hex[32];
  std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(addr));
  std::string detail = ": address " + std::string(hex);
  // The allocation that starts at or below the address (the closest one).
  auto it = std::upper_bound(allocs.begin(), allocs.end(), addr,
                             [](uint64_t a, const AllocationInfo& info) { return a < info.base; });
  // Close behind an allocation (within its own size) reads as an overrun of it.
  if (it != allocs.begin() && addr >= std::prev(it)->base &&
      addr - std::prev(it)->end < std::max<uint64_t>(std::prev(it)->end - std::prev(it)->base, 64)) {
    const AllocationInfo& a = *std::prev(it);
    uint64_t past = addr + bytes - a.end;
    detail += " is " + std::to_string(past) + " bytes past the end of allocation '" + a.name +
              "' (size " + std::to_string(a.end - a.base) + " bytes)";
  } else {
    detail += " is not inside any allocation";
  }
  std::string what = std::string("out-of-bounds ") + kind;
  if (instr.count > 1 && lane >= 0) detail += " (lane " + std::to_string(lane) + ")";
  runtimeError(instr, frame, what, detail);
}

namespace {
std::atomic<uint64_t> interrupts{0};  // lock-free: a signal handler increments it
static_assert(std::atomic<uint64_t>::is_always_lock_free);
}  // namespace

void interrupt() { interrupts.fetch_add(1, std::memory_order_relaxed); }
uint64_t interruptCount() { return interrupts.load(std::memory_order_relaxed); }

void countLoopIteration(const Instr& instr, Frame& frame) {
  ThreadContext& ctx = *frame.ctx;
  ++ctx.loopIterations;
  if ((ctx.loopIterations & 1023) == 0) {
    if (ctx.program > ctx.launch->abortAt.load(std::memory_order_relaxed)) throw AbortLaunch{};
    if (interruptCount() != ctx.launch->interruptsAtStart) runtimeError(instr, frame, "interrupted", "");
  }
  uint64_t limit = ctx.launch->loopLimit;
  if (limit != 0 && ctx.loopIterations > limit)
    runtimeError(instr, frame, "loop iteration limit exceeded",
                 " (more than " + std::to_string(limit) + " iterations)");
}

int64_t readInt(Frame& frame, int slot, ir::Type type, int64_t index) {
  const Slot& s = frame.slots[slot];
  ir::Type t = type.elementType();
  if (t.isPointer()) return reinterpret_cast<const int64_t*>(s.data)[index];
  switch (t.bitWidth()) {
  case 1: return reinterpret_cast<const uint8_t*>(s.data)[index] & 1;
  case 8: return reinterpret_cast<const int8_t*>(s.data)[index];
  case 16: return reinterpret_cast<const int16_t*>(s.data)[index];
  case 32: return reinterpret_cast<const int32_t*>(s.data)[index];
  default: return reinterpret_cast<const int64_t*>(s.data)[index];
  }
}

//===----------------------------------------------------------------------===//
// Frames
//===----------------------------------------------------------------------===//

void Slot::grow(size_t bytes) {
  size_t newCap = std::max<size_t>(bytes, 64);
  std::free(data);
  data = static_cast<uint8_t*>(std::aligned_alloc(64, (newCap + 63) / 64 * 64));
  if (!data) throw std::bad_alloc();
  cap = newCap;
}

void initFrame(Frame& frame, const FunctionPlan& plan, ThreadContext* ctx) {
  frame.slots.clear();
  frame.slots.resize(plan.numSlots);
  frame.lanes = 1;
  frame.ctx = ctx;
}

Frame& acquireCallFrame(ThreadContext& ctx, const FunctionPlan& plan) {
  if (ctx.callDepth >= 64) throw Error("interpreter: call depth exceeds 64 (recursive tt.call?)");
  auto it = std::find_if(ctx.callFrames.begin(), ctx.callFrames.end(),
                         [&](const auto& e) { return e.first == &plan; });
  if (it == ctx.callFrames.end()) {
    ctx.callFrames.emplace_back(&plan, std::vector<std::unique_ptr<Frame>>{});
    it = std::prev(ctx.callFrames.end());
  }
  auto& stack = it->second;
  size_t depth = static_cast<size_t>(ctx.callDepth);
  while (stack.size() <= depth) {
    auto f = std::make_unique<Frame>();
    initFrame(*f, plan, &ctx);
    stack.push_back(std::move(f));
  }
  ++ctx.callDepth;
  Frame& frame = *stack[depth];
  frame.lanes = 1;
  return frame;
}

void releaseCallFrame(ThreadContext& ctx) { --ctx.callDepth; }

//===----------------------------------------------------------------------===//
// Launch
//===----------------------------------------------------------------------===//

namespace {
void bindArguments(Frame& frame, const FunctionPlan& plan, const std::vector<RuntimeArg>& args) {
  ir::Block& body = ir::funcBody(plan.func);
  for (unsigned i = 0; i < body.numArguments(); ++i) {
    ir::Type t = body.argument(i).type();
    Slot& s = frame.slots[plan.body.args[i]];
    s.ensure(16);
    s.n = 1;
    const RuntimeArg& a = args[i];
    if (t.isPointer()) {
      *s.as<uint64_t>() = a.bits;
    } else if (t.isFloat()) {
      switch (t.kind()) {
      case ir::TypeKind::F64: *s.as<double>() = a.f; break;
      case ir::TypeKind::F32: *s.as<float>() = static_cast<float>(a.f); break;
      case ir::TypeKind::F16: *s.as<uint16_t>() = static_cast<uint16_t>(encodeFloat(a.f, floatFormat(ir::TypeKind::F16))); break;
      case ir::TypeKind::BF16: *s.as<uint16_t>() = static_cast<uint16_t>(encodeFloat(a.f, floatFormat(ir::TypeKind::BF16))); break;
      default: throw Error("interpreter: unsupported scalar argument type " + t.str());
      }
    } else {
      uint64_t v = a.bits;
      switch (t.bitWidth()) {
      case 1: *s.as<uint8_t>() = v & 1; break;
      case 8: *s.as<uint8_t>() = static_cast<uint8_t>(v); break;
      case 16: *s.as<uint16_t>() = static_cast<uint16_t>(v); break;
      case 32: *s.as<uint32_t>() = static_cast<uint32_t>(v); break;
      default: *s.as<uint64_t>() = v; break;
      }
    }
  }
}

void recordError(LaunchState& launch, int64_t program, const std::string& what) {
  std::lock_guard<std::mutex> lock(launch.errorMutex);
  if (!launch.hasError || program < launch.abortAt.load()) {
    launch.hasError = true;
    launch.error = what;
    launch.abortAt.store(program);
  }
}

void worker(LaunchState& launch, const FunctionPlan& plan, const std::vector<RuntimeArg>& args,
            std::atomic<int64_t>& next, int64_t total) {
  ThreadContext ctx;
  ctx.launch = &launch;
  Frame frame;
  initFrame(frame, plan, &ctx);
  for (;;) {
    int64_t p = next.fetch_add(1, std::memory_order_relaxed);
    if (p >= total || p > launch.abortAt.load(std::memory_order_relaxed)) break;
    ctx.program = p;
    ctx.pid[0] = p % launch.grid[0];
    ctx.pid[1] = (p / launch.grid[0]) % launch.grid[1];
    ctx.pid[2] = p / (launch.grid[0] * launch.grid[1]);
    ctx.loopIterations = 0;
    ctx.callDepth = 0;
    frame.lanes = 1;
    try {
      bindArguments(frame, plan, args);
      runBlock(plan.body, frame);
    } catch (const AbortLaunch&) {
      break;
    } catch (const Error& e) {
      recordError(launch, p, e.what());
      break;
    } catch (const std::bad_alloc&) {
      recordError(launch, p, "error: " + launch.kernelName + ": interpreter ran out of memory");
      break;
    } catch (const std::exception& e) {
      recordError(launch, p, "error: " + launch.kernelName + ": internal interpreter error: " + e.what());
      break;
    }
  }
}
}  // namespace

void run(const ir::Module& module, std::string_view kernel, const std::vector<RuntimeArg>& args,
         const LaunchConfig& config) {
  PlanCache cache(module);
  const FunctionPlan& plan = cache.get(kernel);
  unsigned numParams = ir::funcBody(plan.func).numArguments();
  if (args.size() != numParams)
    throw Error("interpreter: kernel '" + std::string(kernel) + "' takes " + std::to_string(numParams) +
                " arguments, got " + std::to_string(args.size()));
  LaunchState launch;
  launch.kernelName = std::string(kernel);
  launch.loopLimit = config.loopIterationLimit;
  launch.interruptsAtStart = interruptCount();
  int64_t total = 1;
  for (int i = 0; i < 3; ++i) {
    if (config.grid[i] < 0) throw Error("interpreter: negative grid dimension");
    launch.grid[i] = config.grid[i];
    total *= config.grid[i];
  }
  if (total == 0) return;
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    for (const auto& [base, info] : r.allocations) launch.allocations.push_back(info);
  }
  // One worker loop per thread of the shared pool (TESSERA_NUM_THREADS, or
  // the CPUs this process may use); each claims programs until none is left.
  ThreadPool& pool = ThreadPool::shared();
  int64_t threads = config.numThreads > 0 ? std::min<int64_t>(config.numThreads, pool.size()) : pool.size();
  threads = std::min(threads, total);
  std::atomic<int64_t> next{0};
  pool.parallelFor(static_cast<size_t>(threads), [&](size_t) { worker(launch, plan, args, next, total); });
  std::fflush(stdout);
  if (launch.hasError) throw Error(launch.error);
}

}  // namespace tessera::interp
