//===- Atomics16Test.cpp - 16-bit atomics under contention ----------------===//
//
// 16-bit atomics have fewer instructions on the GPU than 32-bit ones: bf16
// add exists from sm_90 on (a compare-and-swap loop on atom.cas.b16 before),
// CAS of 16-bit values is atom.cas.b16. These tests make many lanes hit one
// address so a lost update or a CAS loop that gives up shows: every add
// counts (the sums are exact in bf16/fp16), and exactly one program wins
// each CAS slot.
//
//===----------------------------------------------------------------------===//

#include "e2e/Harness.h"

using namespace e2e;
using tessera::DType;

namespace {

TEST(Atomics16, EveryAddToOneAddressCounts) {
  // 250 lanes of 4 programs add +1 (or -1) to one element: all partial
  // sums are small integers, exact in fp16 and bf16.
  const int64_t n = 250;
  for (DType dt : {DType::bf16, DType::fp16}) {
    SCOPED_TRACE(tessera::dtype_name(dt));
    std::vector<float> x(n, 1.0f);
    for (int64_t i = 0; i < n; i += 5) x[i] = -1.0f;
    float want = 0;
    for (float v : x) want += v;
    auto tx = uploadAs(dt, x, {n});
    auto acc = dev().zeros(dt, {1});
    kernel("coverage_gaps.py", "atomic_add_float")
        .launch(dev(), {cdiv(n, 64)}, {tx, acc, n}, {{"NBINS", int64_t(1)}, {"BLOCK", int64_t(64)}});
    EXPECT_EQ(downloadFloats(acc)[0], want);
  }
}

TEST(Atomics16, CompareAndSwapHasOneWinnerPerSlot) {
  const int64_t programs = 48, slots = 8;
  for (DType dt : {DType::i16, DType::fp16, DType::bf16}) {
    SCOPED_TRACE(tessera::dtype_name(dt));
    auto ts = dev().zeros(dt, {slots});
    auto won = dev().zeros(DType::i32, {programs});
    kernel("atomics.py", "atomic_cas_claim").launch(dev(), {programs}, {ts, won}, {{"NSLOTS", slots}});
    std::vector<float> s;
    if (dt == DType::i16) {
      for (int16_t v : ts.download<int16_t>()) s.push_back(v);
    } else {
      s = downloadFloats(ts);
    }
    auto w = won.download<int32_t>();
    for (int64_t slot = 0; slot < slots; ++slot) {
      int winners = 0;
      for (int64_t p = slot; p < programs; p += slots) {
        if (!w[p]) continue;
        ++winners;
        EXPECT_EQ(s[slot], static_cast<float>(p + 1)) << "slot " << slot << " holds the winner's id";
      }
      EXPECT_EQ(winners, 1) << "slot " << slot;
    }
  }
}

}  // namespace
