//===- tessera/support/ThreadPool.h - One pool of worker threads -*- C++ -*-===//
//
// The interpreter's programs and the autotuner's parallel compiles run on
// one process-wide pool, sized to the CPUs this process may actually use:
// its affinity mask (taskset, cpusets) and its cgroup's CPU quota (a
// container limited to 2 CPUs on a 64-core host gets 2), or
// TESSERA_NUM_THREADS. Threads start once, on first use, and are reused by
// every launch.
//
//   ThreadPool::shared().parallelFor(n, [&](size_t i) { work(i); });
//
// parallelFor's caller works too, so a call always makes progress: when the
// pool's threads are busy (another launch, or a parallelFor nested in one)
// the caller simply does more of the work itself. No deadlock, no
// oversubscription.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

namespace tessera {

/// The CPUs this process may use: the affinity mask's count, capped by the
/// cgroup CPU quota (v2 cpu.max or v1 cfs_quota_us / cfs_period_us, rounded
/// up), at least 1.
unsigned usableCpus();

class ThreadPool {
 public:
  /// The process's pool: TESSERA_NUM_THREADS threads in all (the caller
  /// counts as one), else usableCpus().
  static ThreadPool& shared();

  explicit ThreadPool(unsigned threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  /// Threads that work on a parallelFor, the caller included.
  unsigned size() const { return helpers_ + 1; }

  /// Calls fn(0) ... fn(n - 1), at most `maxThreads` at once (0: size()),
  /// on the caller and idle pool threads; returns when all have returned.
  /// The first exception thrown is rethrown here (the remaining indices
  /// still run).
  void parallelFor(size_t n, const std::function<void(size_t)>& fn, unsigned maxThreads = 0);

 private:
  struct State;
  static void helperLoop(std::shared_ptr<State> state);
  unsigned helpers_;
  std::shared_ptr<State> state_;
};

}  // namespace tessera
