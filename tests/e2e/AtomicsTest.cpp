//===- AtomicsTest.cpp - Atomics from many programs -----------------------===//
//
// kernels/atomics.py: many programs hitting the same addresses with
// atomic_add (int and float, masked), max/min (int and float, signs mixed),
// and/or/xor, xchg (the returned old values form one chain), add's returned
// tickets, cas claims (one winner per slot) and a cas/xchg spin lock that
// guards a plain load/store counter.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <set>

#include "e2e/Harness.h"

using namespace e2e;
using tessera::DType;

namespace {

const char* kFile = "atomics.py";

TEST(Atomics, AddIntoFewBins) {
  E2E_RNG(rng);
  int64_t n = 3000;
  const int64_t nbins = 7;
  auto v = rng.ints<int32_t>(n, -500, 500);
  auto tv = dev().upload(v, {n});
  auto bi = dev().zeros(DType::i32, {nbins}), bf = dev().zeros(DType::fp32, {nbins});
  kernel(kFile, "atomic_bins").launch(dev(), {cdiv(n, 128)}, {tv, bi, bf, n}, {{"NBINS", nbins}, {"BLOCK", int64_t(128)}});
  std::vector<int32_t> wi(nbins, 0);
  std::vector<float> wf(nbins, 0);
  for (int64_t i = 0; i < n; ++i) wi[i % nbins] += v[i];
  for (int64_t b = 0; b < nbins; ++b) wf[b] = 0.5f * static_cast<float>(wi[b]);  // exact in fp32
  expectEqual(bi.download<int32_t>(), wi, "int atomic_add");
  expectSameBits(bf.download<float>(), wf, "float atomic_add");
}

TEST(Atomics, MaxMinAndOrXorOnOneAddress) {
  E2E_RNG(rng);
  int64_t n = 2000;
  auto v = rng.ints<int32_t>(n, INT32_MIN / 2, INT32_MAX / 2);
  auto f = rng.floats(n, -1000, 1000);
  auto tv = dev().upload(v, {n}), tf = dev().upload(f, {n});
  auto out = dev().upload(std::vector<int32_t>{INT32_MIN, INT32_MAX, -1, 0, 0}, {5});
  auto fout = dev().upload(std::vector<float>{-INFINITY, INFINITY}, {2});
  kernel(kFile, "atomic_reducers").launch(dev(), {cdiv(n, 128)}, {tv, tf, out, fout, n}, {{"BLOCK", int64_t(128)}});
  int32_t mx = INT32_MIN, mn = INT32_MAX, a = -1, o = 0, x = 0;
  float fmx = -INFINITY, fmn = INFINITY;
  for (int64_t i = 0; i < n; ++i) {
    mx = std::max(mx, v[i]);
    mn = std::min(mn, v[i]);
    a &= v[i];
    o |= v[i];
    x ^= v[i];
    fmx = std::max(fmx, f[i]);
    fmn = std::min(fmn, f[i]);
  }
  expectEqual(out.download<int32_t>(), std::vector<int32_t>{mx, mn, a, o, x}, "max, min, and, or, xor");
  expectSameBits(fout.download<float>(), std::vector<float>{fmx, fmn}, "float max, min");
}

TEST(Atomics, XchgFormsOneChain) {
  const int64_t programs = 64;
  auto slot = dev().zeros(DType::i32, {1});
  auto olds = dev().zeros(DType::i32, {programs});
  kernel(kFile, "atomic_xchg_chain").launch(dev(), {programs}, {slot, olds});
  // Every value written is read back exactly once, by the next writer or as
  // the final value; the initial 0 is read by the first writer.
  auto seen = olds.download<int32_t>();
  seen.push_back(slot.download<int32_t>()[0]);
  std::sort(seen.begin(), seen.end());
  std::vector<int32_t> want(programs + 1);
  for (int64_t i = 0; i <= programs; ++i) want[i] = static_cast<int32_t>(i);
  expectEqual(seen, want, "old values + final value");
}

TEST(Atomics, MaskedXchgOnABlock) {
  E2E_RNG(rng);
  const int64_t block = 64;
  int64_t n = rng.integer(1, block - 1);
  auto init = rng.ints<int32_t>(block, -1000, 1000);
  auto buf = dev().upload(init, {block});
  auto olds = dev().upload(std::vector<int32_t>(block, 7777), {block});
  kernel(kFile, "atomic_xchg_masked").launch(dev(), {1}, {buf, olds, n}, {{"BLOCK", block}});
  std::vector<int32_t> wantBuf = init, wantOld(block, 7777);
  for (int64_t i = 0; i < n; ++i) {
    wantBuf[i] = static_cast<int32_t>(10 * i);
    wantOld[i] = init[i];
  }
  expectEqual(buf.download<int32_t>(), wantBuf, "buffer after masked xchg");
  expectEqual(olds.download<int32_t>(), wantOld, "old values");
}

TEST(Atomics, AddReturnsDistinctTickets) {
  const int64_t programs = 24, block = 32;
  auto counter = dev().zeros(DType::i32, {1});
  auto tickets = dev().zeros(DType::i32, {programs * block});
  kernel(kFile, "atomic_add_returns").launch(dev(), {programs}, {counter, tickets}, {{"BLOCK", block}});
  auto got = tickets.download<int32_t>();
  std::sort(got.begin(), got.end());
  std::vector<int32_t> want(programs * block);
  for (int64_t i = 0; i < programs * block; ++i) want[i] = static_cast<int32_t>(i);
  expectEqual(got, want, "tickets");
  EXPECT_EQ(counter.download<int32_t>()[0], programs * block);
}

TEST(Atomics, CasHasOneWinnerPerSlot) {
  const int64_t programs = 50, slots = 8;
  auto ts = dev().zeros(DType::i32, {slots});
  auto won = dev().zeros(DType::i32, {programs});
  kernel(kFile, "atomic_cas_claim").launch(dev(), {programs}, {ts, won}, {{"NSLOTS", slots}});
  auto s = ts.download<int32_t>();
  auto w = won.download<int32_t>();
  for (int64_t slot = 0; slot < slots; ++slot) {
    int winners = 0;
    for (int64_t p = slot; p < programs; p += slots)
      if (w[p]) {
        ++winners;
        EXPECT_EQ(s[slot], p + 1) << "slot " << slot << " holds the winner's id";
      }
    EXPECT_EQ(winners, 1) << "slot " << slot;
  }
}

TEST(Atomics, SpinLockSerializesCriticalSections) {
  const int64_t programs = 16, rounds = 8;
  auto lock = dev().zeros(DType::i32, {1});
  auto counter = dev().zeros(DType::i32, {1});
  auto order = dev().upload(std::vector<int32_t>(programs * rounds, -1), {programs * rounds});
  kernel(kFile, "locked_increment").launch(dev(), {programs}, {lock, counter, order}, {{"ROUNDS", rounds}});
  EXPECT_EQ(counter.download<int32_t>()[0], programs * rounds);
  EXPECT_EQ(lock.download<int32_t>()[0], 0);
  // Each slot of `order` was written once; each program appears `rounds` times.
  std::vector<int> perProgram(programs, 0);
  for (int32_t p : order.download<int32_t>()) {
    ASSERT_GE(p, 0);
    ASSERT_LT(p, programs);
    ++perProgram[p];
  }
  for (int64_t p = 0; p < programs; ++p) EXPECT_EQ(perProgram[p], rounds) << "program " << p;
}

// Tiles of float adds from many programs onto the same rows (a fused
// attention backward's dQ): contiguous rows, so sm_90 uses the vector
// atomics (red.v4.f32 / atom.v8.bf16 ...). Small integers keep every sum
// exact whatever the order. With the old values read back, each element
// starts at its own value (8 * (i % 8)) and gets adds of 1, so the values
// it returned are its start + 0 .. programs-1 in some order: a group's old
// values in the wrong order or from another register show; rows past the
// end (37 rows: a masked last block) read 0, as on the interpreter.
TEST(Atomics, FloatAddsOfTilesSumAndReturnOldValues) {
  E2E_RNG(rng);
  const int64_t programs = 6, cols = 64, blockR = 16, rows = 37;
  const int64_t blocks = cdiv(rows, blockR), n = rows * cols, padded = blocks * blockR * cols;
  for (DType dt : {DType::fp32, DType::fp16, DType::bf16}) {
    for (bool returnOld : {false, true}) {
      std::vector<float> vals(programs * n, 1.0f), start(n, 0.0f);
      if (!returnOld)
        for (auto& v : vals) v = static_cast<float>(rng.ints<int32_t>(1, -8, 8)[0]);
      else
        for (int64_t i = 0; i < n; ++i) start[i] = static_cast<float>(8 * (i % 8));
      auto up = [&](const std::vector<float>& v) {
        int64_t size = static_cast<int64_t>(v.size());
        return dt == DType::fp32 ? dev().upload(v, {size}) : uploadAs(dt, v, {size});
      };
      auto acc = up(start), tv = up(vals), olds = up(std::vector<float>(programs * padded, -1.0f));
      kernel(kFile, "atomic_add_tile")
          .launch(dev(), {programs, blocks}, {acc, tv, olds, rows},
                  {{"COLS", cols}, {"BLOCK_R", blockR}, {"RETURN_OLD", returnOld}});
      std::string what = std::string(tessera::dtype_name(dt)) + (returnOld ? ", old values read" : ", relaxed");
      std::vector<float> want = start;
      for (int64_t p = 0; p < programs; ++p)
        for (int64_t i = 0; i < n; ++i) want[i] += vals[p * n + i];
      expectEqual(downloadFloats(acc), want, "sums, " + what);
      if (!returnOld) continue;
      auto got = downloadFloats(olds);
      for (int64_t i = 0; i < padded; ++i) {
        std::vector<float> seen;
        for (int64_t p = 0; p < programs; ++p) seen.push_back(got[p * padded + i]);
        std::sort(seen.begin(), seen.end());
        std::vector<float> expect(programs, 0.0f);
        if (i < n)
          for (int64_t p = 0; p < programs; ++p) expect[p] = start[i] + static_cast<float>(p);
        ASSERT_EQ(seen, expect) << what << ": old values of element " << i << (i < n ? "" : " (a masked row)");
      }
    }
  }
}

// Atomics whose old values are read by a layout change (repeated along a
// new dim): a 1 x 16 tile on 4 warps, where most threads hold copies of an
// element and only its owner runs the atomic, and a 4 x 64 tile of two
// elements per thread (a vector atomic for the floats on sm_90). Every
// copy must get the owner's old value; each element is added to once.
TEST(Atomics, OldValuesReachEveryCopyOfAnElement) {
  const int64_t rep = 8;
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{1, 16}, {4, 64}}) {
    SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols));
    const int64_t n = rows * cols;
    std::vector<float> fstart(n), wantF(n * rep), nextF(n);
    std::vector<int32_t> istart(n), wantI(n * rep), nextI(n);
    for (int64_t i = 0; i < n; ++i) {
      fstart[i] = 3.0f * static_cast<float>(i) + 1.0f;
      istart[i] = static_cast<int32_t>(5 * i - 7);
      for (int64_t r = 0; r < rep; ++r) {
        wantF[i * rep + r] = fstart[i];
        wantI[i * rep + r] = istart[i];
      }
      nextF[i] = fstart[i] + 1.0f;
      nextI[i] = istart[i] + 1;
    }
    auto facc = dev().upload(fstart, {n});
    auto iacc = dev().upload(istart, {n});
    auto fout = dev().zeros(DType::fp32, {n * rep}), iout = dev().zeros(DType::i32, {n * rep});
    kernel(kFile, "atomic_old_to_copies")
        .launch(dev(), {1}, {facc, iacc, fout, iout}, {{"ROWS", rows}, {"COLS", cols}, {"REP", rep}});
    expectEqual(fout.download<float>(), wantF, "float old values in every copy");
    expectEqual(iout.download<int32_t>(), wantI, "int old values in every copy");
    expectEqual(facc.download<float>(), nextF, "float adds, once per element");
    expectEqual(iacc.download<int32_t>(), nextI, "int adds, once per element");
  }
}

}  // namespace
