//===- ThreadPool.cpp - One pool of worker threads ------------------------===//
//
// See tessera/support/ThreadPool.h. A parallelFor is a Job: an index
// counter that the caller and any helper claim from. Helpers take jobs from
// a queue; a helper that arrives after every index is claimed just leaves.
// The caller, once it claims past the end, waits only for the helpers that
// are inside the job (`active`), each of which entered before claiming, so
// no index is still running when parallelFor returns.
//
//===----------------------------------------------------------------------===//

#include "tessera/support/ThreadPool.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <exception>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tessera/support/Env.h"

namespace tessera {

namespace {

/// ceil(quota / period) from the cgroup, or 0 when there is no quota.
unsigned cgroupCpuQuota() {
  // cgroup v2: "max 100000" or "200000 100000".
  if (std::ifstream in("/sys/fs/cgroup/cpu.max"); in) {
    std::string quota;
    long long period = 0;
    if (in >> quota >> period && quota != "max" && period > 0) {
      long long q = std::atoll(quota.c_str());
      if (q > 0) return static_cast<unsigned>((q + period - 1) / period);
    }
    return 0;
  }
  // cgroup v1.
  long long quota = -1, period = 0;
  std::ifstream("/sys/fs/cgroup/cpu/cpu.cfs_quota_us") >> quota;
  std::ifstream("/sys/fs/cgroup/cpu/cpu.cfs_period_us") >> period;
  if (quota > 0 && period > 0) return static_cast<unsigned>((quota + period - 1) / period);
  return 0;
}

struct Job {
  size_t n;
  const std::function<void(size_t)>* fn;
  std::atomic<size_t> next{0};
  std::atomic<unsigned> active{0};
  std::mutex mutex;
  std::condition_variable idle;
  std::exception_ptr error;

  void work() {
    for (size_t i = next++; i < n; i = next++) {
      try {
        (*fn)(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!error) error = std::current_exception();
      }
    }
  }
};

}  // namespace

unsigned usableCpus() {
  unsigned cpus = 0;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) cpus = static_cast<unsigned>(CPU_COUNT(&set));
  if (cpus == 0) cpus = std::max(1u, std::thread::hardware_concurrency());
  if (unsigned quota = cgroupCpuQuota(); quota > 0) cpus = std::min(cpus, quota);
  return std::max(1u, cpus);
}

struct ThreadPool::State {
  std::mutex mutex;
  std::condition_variable wake;
  std::deque<std::shared_ptr<Job>> queue;  ///< one entry per helper a job asked for
  bool stopping = false;
  std::vector<std::thread> threads;
};

ThreadPool& ThreadPool::shared() {
  // Never destroyed: threads outlive static destructors that may still
  // launch kernels.
  static ThreadPool* pool = new ThreadPool(
      static_cast<unsigned>(env::integer("TESSERA_NUM_THREADS").value_or(usableCpus())));
  return *pool;
}

ThreadPool::ThreadPool(unsigned threads) : helpers_(threads > 1 ? threads - 1 : 0), state_(std::make_shared<State>()) {}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->stopping = true;
  }
  state_->wake.notify_all();
  for (std::thread& t : state_->threads) t.join();
}

void ThreadPool::parallelFor(size_t n, const std::function<void(size_t)>& fn, unsigned maxThreads) {
  if (n == 0) return;
  unsigned want = std::min<size_t>({n, static_cast<size_t>(maxThreads ? maxThreads : size()), size_t{size()}});
  auto job = std::make_shared<Job>();
  job->n = n;
  job->fn = &fn;
  if (want > 1) {
    State& s = *state_;
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      // Threads start on first use, all of them at once.
      while (s.threads.size() < helpers_)
        s.threads.emplace_back([state = state_] {
          while (true) {
            std::shared_ptr<Job> j;
            {
              std::unique_lock<std::mutex> lock(state->mutex);
              state->wake.wait(lock, [&] { return state->stopping || !state->queue.empty(); });
              if (state->stopping) return;
              j = std::move(state->queue.front());
              state->queue.pop_front();
            }
            ++j->active;  // before claiming: the caller waits for us
            j->work();
            if (--j->active == 0) {
              std::lock_guard<std::mutex> lock(j->mutex);
              j->idle.notify_all();
            }
          }
        });
      for (unsigned h = 1; h < want; ++h) s.queue.push_back(job);
    }
    s.wake.notify_all();
  }
  job->work();
  {
    std::unique_lock<std::mutex> lock(job->mutex);
    job->idle.wait(lock, [&] { return job->active == 0; });
  }
  if (job->error) std::rethrow_exception(job->error);
}

}  // namespace tessera
