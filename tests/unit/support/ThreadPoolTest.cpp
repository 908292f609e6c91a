//===- ThreadPoolTest.cpp - The shared pool of worker threads -------------===//

#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "tessera/support/ThreadPool.h"

namespace {

using tessera::ThreadPool;

TEST(ThreadPool, EveryIndexRunsOnce) {
  ThreadPool pool(4);
  for (size_t n : {size_t{1}, size_t{3}, size_t{4}, size_t{97}, size_t{1000}}) {
    std::vector<std::atomic<int>> hits(n);
    pool.parallelFor(n, [&](size_t i) { ++hits[i]; });
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << "n " << n << " index " << i;
  }
  pool.parallelFor(0, [](size_t) { FAIL(); });
}

TEST(ThreadPool, AtMostMaxThreadsAtOnce) {
  ThreadPool pool(8);
  std::atomic<int> running{0}, most{0};
  pool.parallelFor(
      64,
      [&](size_t) {
        int now = ++running;
        for (int m = most; now > m && !most.compare_exchange_weak(m, now);) {}
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        --running;
      },
      2);
  EXPECT_LE(most.load(), 2);
  EXPECT_GE(most.load(), 1);
}

TEST(ThreadPool, ConcurrentAndNestedCallersAllFinish) {
  // Callers from several threads at once, each nesting a parallelFor in
  // its work: the pool's threads are busy, so callers do the work
  // themselves; nothing waits for a thread that never comes.
  ThreadPool pool(3);
  std::atomic<long> sum{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 6; ++c)
    callers.emplace_back([&] {
      pool.parallelFor(20, [&](size_t i) { pool.parallelFor(10, [&](size_t j) { sum += long(i * 10 + j); }); });
    });
  for (auto& t : callers) t.join();
  EXPECT_EQ(sum.load(), 6L * (199 * 200 / 2));
}

TEST(ThreadPool, TheFirstExceptionReachesTheCaller) {
  ThreadPool pool(4);
  std::atomic<int> ran{0};
  EXPECT_THROW(pool.parallelFor(50,
                                [&](size_t i) {
                                  ++ran;
                                  if (i == 7) throw std::runtime_error("seven");
                                }),
               std::runtime_error);
  EXPECT_EQ(ran.load(), 50);  // the other indices still ran
  pool.parallelFor(5, [&](size_t) { ++ran; });  // and the pool still works
  EXPECT_EQ(ran.load(), 55);
}

TEST(ThreadPool, SizedByTheAffinityMask) {
  cpu_set_t set;
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  unsigned affinity = static_cast<unsigned>(CPU_COUNT(&set));
  EXPECT_GE(tessera::usableCpus(), 1u);
  EXPECT_LE(tessera::usableCpus(), affinity);
  EXPECT_EQ(ThreadPool(1).size(), 1u);
  EXPECT_EQ(ThreadPool(5).size(), 5u);
}

}  // namespace
