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
#include <system_error>
#include <thread>
#include <vector>

#include "tessera/support/Env.h"

namespace tessera {

namespace {

/// ceil(quota / period) of the tightest CPU quota on the way from this
/// process's cgroup (/proc/self/cgroup) up to the root, or 0 when there is
/// none: a quota on any ancestor (a systemd slice, a container) limits it.
unsigned cgroupCpuQuota() {
  unsigned best = 0;
  auto take = [&](long long quota, long long period) {
    if (quota <= 0 || period <= 0) return;
    unsigned cpus = static_cast<unsigned>((quota + period - 1) / period);
    best = best ? std::min(best, cpus) : cpus;
  };
  auto readV2 = [&](const std::string& dir) {  // "max 100000" or "200000 100000"
    std::ifstream in(dir + "/cpu.max");
    std::string quota;
    long long period = 0;
    if (in >> quota >> period && quota != "max") take(std::atoll(quota.c_str()), period);
  };
  auto readV1 = [&](const std::string& dir) {
    long long quota = -1, period = 0;
    std::ifstream(dir + "/cpu.cfs_quota_us") >> quota;
    std::ifstream(dir + "/cpu.cfs_period_us") >> period;
    take(quota, period);
  };
  std::ifstream cgroups("/proc/self/cgroup");
  for (std::string line; std::getline(cgroups, line);) {
    // "0::/user.slice/x.scope" (v2) or "4:cpu,cpuacct:/docker/abc" (v1).
    size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    std::string controllers = "," + line.substr(a + 1, b - a - 1) + ",", path = line.substr(b + 1);
    bool v2 = controllers == ",,";
    if (!v2 && controllers.find(",cpu,") == std::string::npos) continue;
    for (std::string p = path;;) {
      if (v2) {
        readV2("/sys/fs/cgroup" + p);
      } else {
        readV1("/sys/fs/cgroup/cpu" + p);
        readV1("/sys/fs/cgroup/cpu,cpuacct" + p);
      }
      if (p.empty() || p == "/") break;
      size_t slash = p.find_last_of('/');
      p = slash == 0 || slash == std::string::npos ? "/" : p.substr(0, slash);
    }
  }
  return best;
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
  bool startFailed = false;  ///< the system refused a thread: use those there are
  std::vector<std::thread> threads;
};

/// A helper thread: takes jobs until the pool stops.
void ThreadPool::helperLoop(std::shared_ptr<State> state) {
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
}

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
      // Threads start on first use, all of them at once; where the system
      // refuses one, the pool works with those it has.
      while (s.threads.size() < helpers_ && !s.startFailed) {
        try {
          s.threads.emplace_back(helperLoop, state_);
        } catch (const std::system_error&) {
          s.startFailed = true;
        }
      }
      want = std::min<unsigned>(want, static_cast<unsigned>(s.threads.size()) + 1);
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
