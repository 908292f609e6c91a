//===- Ops39Test.cpp - Ops of Triton 3.7-3.9 ---------------------------------===//
//
// kernels/ops_39.py against references computed here: tl.topk (both
// orders, 1-D rows and a 2-D tile, k = 1 to n) against std::sort,
// tl.bitonic_merge against std::sort on bitonic rows and against the
// network run here on any rows, a release/acquire hand-off between two
// programs (atomic_store, atomic_poll), atomic_poll's timeout and forms,
// tl.fdiv(approx=True) within 2 ulp of the quotient, `while
// tl.condition(...)`, inexact fp8 constants rounded to nearest, and
// tl.map_elementwise over a function with per-element branches (nested
// ifs, returns on both sides, a conditional expression, a helper call,
// tuple results) against the same function run here element by element.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cmath>
#include <functional>

#include <cstring>

#include "e2e/Harness.h"

using namespace e2e;
using tessera::DType;

namespace {

const char* kFile = "ops_39.py";

std::vector<float> rowTopk(const std::vector<float>& x, int64_t rows, int64_t n, int64_t k, bool desc) {
  std::vector<float> out;
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<float> row(x.begin() + r * n, x.begin() + (r + 1) * n);
    if (desc) std::sort(row.begin(), row.end(), std::greater<float>());
    else std::sort(row.begin(), row.end());
    out.insert(out.end(), row.begin(), row.begin() + k);
  }
  return out;
}

/// Values with repeats (ties) in [-50, 50].
std::vector<float> tiedFloats(Rng& rng, int64_t n) {
  auto v = rng.ints<int32_t>(n, -200, 200);
  std::vector<float> x(n);
  for (int64_t i = 0; i < n; ++i) x[i] = static_cast<float>(v[i]) * 0.25f;
  return x;
}

TEST(Ops39, Topk) {
  E2E_RNG(rng);
  const int64_t rows = 7, N = 64;
  auto x = tiedFloats(rng, rows * N);
  auto tx = dev().upload(x, {rows, N});
  for (int64_t K : {int64_t(1), int64_t(4), int64_t(16), N}) {
    for (bool desc : {true, false}) {
      SCOPED_TRACE("K=" + std::to_string(K) + (desc ? " descending" : " ascending"));
      auto out = dev().zeros(DType::fp32, {rows, K});
      kernel(kFile, "topk_rows").launch(dev(), {rows}, {tx, out}, {{"N", N}, {"K", K}, {"DESC", int64_t(desc)}});
      expectEqual(out.download<float>(), rowTopk(x, rows, N, K, desc));
    }
  }
  const int64_t R = 8, N2 = 32, K2 = 8;
  auto y = tiedFloats(rng, R * N2);
  auto out = dev().zeros(DType::fp32, {R, K2});
  kernel(kFile, "topk_2d").launch(dev(), {1}, {dev().upload(y, {R, N2}), out}, {{"R", R}, {"N", N2}, {"K", K2}});
  expectEqual(out.download<float>(), rowTopk(y, R, N2, K2, true), "2-D tile");

  std::string msg = errorOf([&] {
    kernel(kFile, "topk_rows").launch(dev(), {1}, {tx, out}, {{"N", N}, {"K", int64_t(3)}, {"DESC", int64_t(1)}});
  });
  EXPECT_NE(msg.find("k must be a power of 2"), std::string::npos) << msg;
}

/// The bitonic merge network (halving distances) on one row.
void networkMerge(float* row, int64_t n, bool desc) {
  for (int64_t half = n / 2; half >= 1; half /= 2)
    for (int64_t base = 0; base < n; base += 2 * half)
      for (int64_t i = base; i < base + half; ++i) {
        float a = row[i], b = row[i + half];
        bool swap = desc ? a < b : a > b;
        if (swap) row[i] = b, row[i + half] = a;
      }
}

TEST(Ops39, BitonicMerge) {
  E2E_RNG(rng);
  const int64_t rows = 5, N = 128;
  for (bool desc : {false, true}) {
    SCOPED_TRACE(desc ? "descending" : "ascending");
    // Bitonic rows: an ascending run then a descending one, of random split.
    auto x = tiedFloats(rng, rows * N);
    auto split = rng.ints<int32_t>(rows, 0, N);
    std::vector<float> sorted = x;
    for (int64_t r = 0; r < rows; ++r) {
      float* row = x.data() + r * N;
      std::sort(row, row + split[r]);
      std::sort(row + split[r], row + N, std::greater<float>());
      std::vector<float> s(row, row + N);
      if (desc) std::sort(s.begin(), s.end(), std::greater<float>());
      else std::sort(s.begin(), s.end());
      std::copy(s.begin(), s.end(), sorted.begin() + r * N);
    }
    auto out = dev().zeros(DType::fp32, {rows, N});
    kernel(kFile, "bitonic_rows").launch(dev(), {rows}, {dev().upload(x, {rows, N}), out}, {{"N", N}, {"DESC", int64_t(desc)}});
    expectEqual(out.download<float>(), sorted, "bitonic rows come out sorted");

    // Any rows: the network's own result.
    auto y = tiedFloats(rng, rows * N);
    std::vector<float> want = y;
    for (int64_t r = 0; r < rows; ++r) networkMerge(want.data() + r * N, N, desc);
    kernel(kFile, "bitonic_rows").launch(dev(), {rows}, {dev().upload(y, {rows, N}), out}, {{"N", N}, {"DESC", int64_t(desc)}});
    expectEqual(out.download<float>(), want, "arbitrary rows: one merge network");
  }
}

TEST(Ops39, AtomicHandoff) {
  const int64_t n = 1000;
  auto data = dev().zeros(DType::i32, {n}), flag = dev().zeros(DType::i32, {1}), seen = dev().zeros(DType::i32, {n});
  kernel(kFile, "handoff").launch(dev(), {2}, {data, flag, seen, n}, {{"BLOCK", int64_t(1024)}});
  std::vector<int32_t> want(n);
  for (int64_t i = 0; i < n; ++i) want[i] = static_cast<int32_t>(i * 7 + 3);
  expectEqual(seen.download<int32_t>(), want, "what the poller sees after the flag");
  EXPECT_EQ(flag.download<int32_t>()[0], 1);
}

TEST(Ops39, AtomicPollForms) {
  const int64_t B = 16;
  std::vector<int32_t> flags(B);
  for (int64_t i = 0; i < B; ++i) flags[i] = i % 3 != 2 ? 1 : 0;
  auto out = dev().zeros(DType::i32, {2 * B});
  kernel(kFile, "poll_forms").launch(dev(), {1}, {dev().upload(flags, {B}), out}, {{"B", B}});
  std::vector<int32_t> want(2 * B);
  for (int64_t i = 0; i < B; ++i) {
    want[i] = flags[i] == 1;  // timed out where the flag never became 1
    want[B + i] = (i % 2 == 1 ? flags[i] : 5) * 10 + 1;
  }
  expectEqual(out.download<int32_t>(), want);
}

TEST(Ops39, ApproxDivision) {
  E2E_RNG(rng);
  const int64_t n = 1001, BLOCK = 256;
  auto x = rng.floats(n, -100.0f, 100.0f);
  auto y = rng.floats(n, 0.5f, 100.0f);
  auto sign = rng.ints<int32_t>(n, 0, 1);
  for (int64_t i = 0; i < n; ++i) if (sign[i]) y[i] = -y[i];
  auto out = dev().zeros(DType::fp32, {n});
  kernel(kFile, "approx_div").launch(dev(), {cdiv(n, BLOCK)}, {dev().upload(x, {n}), dev().upload(y, {n}), out, n},
                                      {{"BLOCK", BLOCK}});
  std::vector<float> want(n);
  for (int64_t i = 0; i < n; ++i) want[i] = x[i] / y[i];
  expectClose(out.download<float>(), want, 2.5e-7, 0.0, "div.approx.f32: at most 2 ulp");

  std::string msg = errorOf([&] {
    tessera::Program p = tessera::Program::from_source(
        "import triton\nimport triton.language as tl\n@triton.jit\ndef k(x_ptr):\n"
        "    x = tl.load(x_ptr)\n    tl.store(x_ptr, tl.fdiv(x, x, approx=True))\n");
    p.kernel("k").launch(dev(), {1}, {dev().zeros(DType::fp64, {1})}, {});
  });
  EXPECT_NE(msg.find("approx=True needs fp32"), std::string::npos) << msg;
}

TEST(Ops39, ConditionLoop) {
  for (bool licm : {false, true}) {
    auto out = dev().zeros(DType::i32, {1});
    kernel(kFile, "condition_loop").launch(dev(), {1}, {out, int64_t(37)}, {{"LICM", int64_t(licm)}});
    EXPECT_EQ(out.download<int32_t>()[0], 3 * 36 * 37 / 2);
  }
}

TEST(Ops39, Fp8Constants) {
  const int64_t B = 32;
  auto out = dev().zeros(DType::fp32, {B});
  kernel(kFile, "fp8_constants").launch(dev(), {1}, {out}, {{"B", B}});
  // 1.1 -> 1.125 (e4m3), -3.3 -> -3.5 (e5m2), 0.3 -> 0.3125 (e4m3).
  expectEqual(out.download<float>(), std::vector<float>(B, 1.125f - 35.0f + 31.25f));
}

TEST(Ops39, TensorDescriptorAtomics) {
  E2E_RNG(rng);
  const int64_t M = 37, N = 40, BM = 16, BN = 16;
  auto x = rng.ints<int32_t>(M * N, -1000, 1000);
  auto base = rng.ints<int32_t>(M * N, -1000, 1000);
  auto tx = dev().upload(x, {M, N});
  auto add = dev().upload(base, {M, N}), mx = dev().upload(base, {M, N}), xr = dev().upload(base, {M, N});
  for (int round = 0; round < 2; ++round)
    kernel(kFile, "desc_atomics").launch(dev(), {cdiv(M, BM), cdiv(N, BN)}, {tx, add, mx, xr, M, N},
                                          {{"BM", BM}, {"BN", BN}});
  std::vector<int32_t> wantAdd(M * N), wantMax(M * N), wantXor(M * N);
  for (int64_t i = 0; i < M * N; ++i) {
    wantAdd[i] = base[i] + 2 * x[i];
    wantMax[i] = std::max(base[i], x[i]);
    wantXor[i] = base[i];  // xor applied twice
  }
  expectEqual(add.download<int32_t>(), wantAdd, "atomic_add twice");
  expectEqual(mx.download<int32_t>(), wantMax, "atomic_max");
  expectEqual(xr.download<int32_t>(), wantXor, "atomic_xor twice");
}

TEST(Ops39, TensorDescriptorGatherScatter) {
  E2E_RNG(rng);
  const int64_t R = 50, C = 32, B = 8, BC = 16, yOff = 12;  // columns 12..27
  auto x = rng.ints<int32_t>(R * C, -1000, 1000);
  std::vector<int32_t> rows = {3, 49, 0, 17, 60, 8, 22, 41};  // 60 is beyond R
  auto out = dev().zeros(DType::i32, {B, BC});
  auto y = dev().zeros(DType::i32, {R, C});
  kernel(kFile, "desc_gather_scatter")
      .launch(dev(), {1}, {dev().upload(x, {R, C}), dev().upload(rows, {B}), out, y, R, C, yOff},
              {{"B", B}, {"BC", BC}});
  std::vector<int32_t> wantOut(B * BC, 0), wantY(R * C, 0);
  for (int64_t i = 0; i < B; ++i)
    for (int64_t j = 0; j < BC; ++j) {
      int64_t r = rows[i], c = yOff + j;
      if (r >= R || c >= C) continue;
      wantOut[i * BC + j] = x[r * C + c];
      wantY[r * C + c] = 2 * x[r * C + c];
    }
  expectEqual(out.download<int32_t>(), wantOut, "gathered rows");
  expectEqual(y.download<int32_t>(), wantY, "scattered rows");
}

// A NaN-padded descriptor's gather gives NaN outside the tensor, as its loads do.
TEST(Ops39, TensorDescriptorGatherNanPadding) {
  E2E_RNG(rng);
  const int64_t R = 30, C = 48, B = 8, BC = 16, yOff = 40;  // columns 40..55: the last 8 are beyond C
  auto x = rng.floats(R * C, -10, 10);
  std::vector<int32_t> rows = {29, 30, 0, 77, 5, 12, 3, 28};  // 30 and 77 are beyond R
  auto out = dev().zeros(DType::fp32, {B, BC});
  kernel(kFile, "desc_gather_rows")
      .launch(dev(), {1},
              {tessera::TensorDescriptor::from_tensor(dev().upload(x, {R, C}), {1, BC}, "nan"), dev().upload(rows, {B}),
               out, yOff},
              {{"B", B}, {"BC", BC}});
  auto got = out.download<float>();
  for (int64_t i = 0; i < B; ++i)
    for (int64_t j = 0; j < BC; ++j) {
      int64_t r = rows[i], c = yOff + j;
      float g = got[i * BC + j];
      if (r < R && c < C) EXPECT_EQ(g, x[r * C + c]) << "row " << r << " col " << c;
      else EXPECT_TRUE(std::isnan(g)) << "row " << r << " col " << c << " gave " << g;
    }
}

TEST(Ops39, TensorDescriptorsThroughFunctionsIfsAndLoops) {
  E2E_RNG(rng);
  const int64_t R = 45, C = 16, BR = 8, BC = 16;  // the last block is partial
  auto a = rng.ints<int32_t>(R * C, -1000, 1000), b = rng.ints<int32_t>(R * C, -1000, 1000);
  auto ta = dev().upload(a, {R, C}), tb = dev().upload(b, {R, C});
  for (int64_t pick : {int64_t(1), int64_t(0)}) {
    SCOPED_TRACE("PICK=" + std::to_string(pick));
    auto out = dev().zeros(DType::i32, {R, C});
    kernel(kFile, "desc_flow").launch(dev(), {1}, {ta, tb, out, R, C, pick}, {{"BR", BR}, {"BC", BC}});
    std::vector<int32_t> want(R * C);
    for (int64_t r = 0; r < R; ++r) {
      int64_t block = r / BR;
      bool fromA = (block % 2 == 0) == (pick > 0);
      for (int64_t c = 0; c < C; ++c)
        want[r * C + c] = (fromA ? a : b)[r * C + c] * 10 + static_cast<int32_t>(block);
    }
    expectEqual(out.download<int32_t>(), want);
  }
}

TEST(Ops39, MapElementwise) {
  E2E_RNG(rng);
  const int64_t n = 999, BLOCK = 128;
  auto x = rng.ints<int32_t>(n, -120, 200);
  auto y = rng.ints<int32_t>(n, -150, 150);
  auto out = dev().zeros(DType::i32, {n}), out2 = dev().zeros(DType::i32, {n});
  kernel(kFile, "map_elementwise_kernel")
      .launch(dev(), {cdiv(n, BLOCK)}, {dev().upload(x, {n}), dev().upload(y, {n}), out, out2, n}, {{"BLOCK", BLOCK}});
  auto helper = [](int32_t v) { return v % 2 == 0 ? v / 2 : v * 3 + 1; };  // C division, as Triton's // and %
  std::vector<int32_t> want(n), want2(n);
  for (int64_t i = 0; i < n; ++i) {
    int32_t r;
    if (x[i] < 0) {
      r = -x[i] * 2;
      if (y[i] > x[i]) r += y[i];
    } else {
      r = x[i] + 1;
    }
    int32_t a, b;
    if (r > 100) {
      a = r - 100;
      b = y[i];
    } else {
      a = r + (y[i] > 0 ? y[i] : 0);
      b = helper(y[i]);
    }
    want[i] = a;
    want2[i] = b * 1000 + helper(x[i]);
  }
  EXPECT_EQ(out.download<int32_t>(), want);
  EXPECT_EQ(out2.download<int32_t>(), want2);
}

// pack=2 (a divmod taking two elements of each argument), pack=4 on a 2-D
// tile (reversing each group of 4 consecutive elements: the grouping), and
// a per-element while loop (Collatz steps, a different trip count per
// element), one inside a per-element if (elements outside it must not keep
// the loop going) and a conditional expression guarding a zero divisor.
TEST(Ops39, MapElementwisePackAndLoops) {
  E2E_RNG(rng);
  const int64_t n = 1000, BLOCK = 256;  // n a multiple of 4: whole groups
  auto a = rng.ints<int32_t>(n, 1, 300);
  auto b = rng.ints<int32_t>(n, 1, 40);
  for (int64_t i = 0; i < n; i += 3) b[i] = -b[i];
  auto q = dev().zeros(DType::i32, {n}), r = dev().zeros(DType::i32, {n}), s = dev().zeros(DType::i32, {n}),
       w = dev().zeros(DType::i32, {n});
  kernel(kFile, "map_elementwise_pack_kernel")
      .launch(dev(), {cdiv(n, BLOCK)}, {dev().upload(a, {n}), dev().upload(b, {n}), q, r, s, w, n}, {{"BLOCK", BLOCK}});
  std::vector<int32_t> wantQ(n), wantR(n), wantS(n), wantW(n);
  for (int64_t i = 0; i < n; ++i) {
    wantQ[i] = a[i] / b[i];  // C division and remainder, as Triton's // and % on integers
    wantR[i] = a[i] % b[i];
    int32_t x = a[i], steps = 0;
    while (x > 1) {
      x = x % 2 == 0 ? x / 2 : 3 * x + 1;
      ++steps;
    }
    int32_t x2 = a[i] - 150, d = b[i] - 20;
    if (x2 > 0)
      while (x2 < 100) x2 *= 2;
    int32_t quo = d != 0 ? x2 / d : -1;
    wantS[i] = steps * 1000000 + x2 * 1000 + (quo & 511);
    wantW[i] = a[(i / 4) * 4 + 3 - i % 4];
  }
  EXPECT_EQ(q.download<int32_t>(), wantQ);
  EXPECT_EQ(r.download<int32_t>(), wantR);
  EXPECT_EQ(s.download<int32_t>(), wantS);
  EXPECT_EQ(w.download<int32_t>(), wantW);
}

// Range loops whose bounds differ per element (a power by repeated
// multiplication, a sum over [n, 2n) with an if inside), odd N.
TEST(Ops39, MapElementwisePerElementRangeLoops) {
  E2E_RNG(rng);
  const int64_t N = 301, BLOCK = 64;
  auto x = rng.ints<int32_t>(N, -4, 4);
  auto n = rng.ints<int32_t>(N, 0, 9);
  auto out = dev().zeros(DType::i32, {N}), out2 = dev().zeros(DType::i32, {N});
  kernel(kFile, "map_elementwise_for_kernel")
      .launch(dev(), {cdiv(N, BLOCK)}, {dev().upload(x, {N}), dev().upload(n, {N}), out, out2, N}, {{"BLOCK", BLOCK}});
  std::vector<int32_t> want(N), want2(N);
  for (int64_t i = 0; i < N; ++i) {
    int32_t r = 1, s = 0;
    for (int32_t k = 0; k < n[i]; ++k) r *= x[i];
    for (int32_t k = n[i]; k < 2 * n[i]; ++k)
      if (k % 2 == 1) s += k;
    want[i] = r;
    want2[i] = s;
  }
  EXPECT_EQ(out.download<int32_t>(), want);
  EXPECT_EQ(out2.download<int32_t>(), want2);
}

// Branches are predicated: a load through a pointer far out of bounds, a
// division by zero and a store, all in the branch an element does not take,
// have no effect (and no fault).
TEST(Ops39, MapElementwiseBranchesArePredicated) {
  E2E_RNG(rng);
  const int64_t n = 700, BLOCK = 128;
  auto x = rng.ints<int32_t>(n, -1000, 1000);
  auto b = rng.ints<int32_t>(n, -3, 3);
  auto out = dev().zeros(DType::i32, {n});
  auto flags = dev().zeros(DType::i32, {cdiv(n, BLOCK) * BLOCK});
  kernel(kFile, "map_elementwise_guarded_kernel")
      .launch(dev(), {cdiv(n, BLOCK)}, {dev().upload(x, {n}), dev().upload(b, {n}), out, flags, n}, {{"BLOCK", BLOCK}});
  std::vector<int32_t> want(n), wantFlags(cdiv(n, BLOCK) * BLOCK, 0);
  for (int64_t i = 0; i < n; ++i) {
    want[i] = b[i] != 0 ? x[i] / b[i] : -1;
    wantFlags[i] = b[i] != 0;
  }
  EXPECT_EQ(out.download<int32_t>(), want);
  EXPECT_EQ(flags.download<int32_t>(), wantFlags);
}

// A host descriptor made with round_f32_to_tf32: loads (and gathers) give
// each fp32 rounded to nearest even at 10 mantissa bits, Inf and NaN kept;
// edge cases (ties to even, ties up, a carry into the exponent, the largest
// finite value rounding to Inf) among random values.
TEST(Ops39, TensorDescriptorRoundsF32ToTf32) {
  E2E_RNG(rng);
  const int64_t M = 37, N = 64, BM = 16, BN = 64;
  auto x = rng.floats(M * N, -100, 100);
  auto bitsOf = [](float f) { uint32_t b; std::memcpy(&b, &f, 4); return b; };
  auto fromBits = [](uint32_t b) { float f; std::memcpy(&f, &b, 4); return f; };
  const uint32_t edges[] = {0x3F801000u, 0x3F803000u, 0x3F802FFFu, 0x3FFFF000u, 0x7F7FFFFFu, 0x7F800000u,
                            0xFF800000u, 0x7FC00001u, 0x00001000u, 0x80000000u, 0x3F800FFFu, 0xBF801001u};
  for (size_t k = 0; k < sizeof edges / sizeof edges[0]; ++k) x[k * 7] = fromBits(edges[k]);
  auto round = [&](float f) {
    uint32_t b = bitsOf(f);
    if ((b & 0x7F800000u) == 0x7F800000u) return b;
    return (b + 0xFFFu + ((b >> 13) & 1u)) & 0xFFFFE000u;
  };
  auto out = dev().zeros(DType::fp32, {2 * M * N});
  auto xt = dev().upload(x, {M, N});
  kernel(kFile, "tf32_descriptor_copy")
      .launch(dev(), {cdiv(M, BM), N / BN},
              {tessera::TensorDescriptor::from_tensor(xt, {BM, BN}, "zero", true),
               tessera::TensorDescriptor::from_tensor(xt, {1, BN}, "zero", true), out, M, N},
              {{"BLOCK_M", BM}, {"BLOCK_N", BN}});
  auto got = out.download<float>();
  int bad = 0;
  for (int64_t i = 0; i < M * N; ++i)
    for (int64_t copy : {int64_t(0), M * N})
      if (bitsOf(got[copy + i]) != round(x[i]) && bad++ < 8)
        ADD_FAILURE() << (copy ? "gather" : "load") << " of 0x" << std::hex << bitsOf(x[i]) << " gave 0x"
                      << bitsOf(got[copy + i]) << ", want 0x" << round(x[i]);
  EXPECT_EQ(bad, 0);
}

}  // namespace

TEST(Ops39, ExpectZeroAndToTensor) {
  E2E_RNG(rng);
  const int64_t n = 333, BLOCK = 128;
  // Even elements have their low 4 bits clear; odd ones anything.
  auto x = rng.ints<int32_t>(n, 0, 1 << 20);
  for (int64_t i = 0; i < n; i += 2) x[i] &= ~15;
  std::vector<int32_t> want(n);
  for (int64_t i = 0; i < n; ++i) want[i] = (x[i] & 15) * 100 + (x[i] >> 4);
  for (const char* name : {"expect_zero_checked", "expect_zero_unchecked"}) {
    auto out = dev().zeros(DType::i32, {n});
    kernel(kFile, name).launch(dev(), {cdiv(n, BLOCK)}, {dev().upload(x, {n}), out, n}, {{"BLOCK", BLOCK}});
    expectEqual(out.download<int32_t>(), want, name);
  }
  // An even element with low bits set: the debug kernel's check fires, the
  // other one passes the value through.
  x[120] |= 5;
  want[120] = (x[120] & 15) * 100 + (x[120] >> 4);
  auto bad = dev().upload(x, {n});
  auto out = dev().zeros(DType::i32, {n});
  const char* env = std::getenv("TESSERA_DEBUG");
  const char* tenv = std::getenv("TRITON_DEBUG");
  if (!(env && std::string(env) != "0") && !(tenv && std::string(tenv) != "0")) {
    kernel(kFile, "expect_zero_unchecked").launch(dev(), {cdiv(n, BLOCK)}, {bad, out, n}, {{"BLOCK", BLOCK}});
    expectEqual(out.download<int32_t>(), want, "expect_zero without debug");
  }
  expectDeviceAssertFailure(
      [&] { kernel(kFile, "expect_zero_checked").launch(dev(), {cdiv(n, BLOCK)}, {bad, out, n}, {{"BLOCK", BLOCK}}); },
      {"tl.expect_zero: a value expected to be zero is not zero"});

  auto t = dev().zeros(DType::fp64, {1});
  kernel(kFile, "to_tensor_types").launch(dev(), {1}, {t}, {});
  EXPECT_EQ(t.download<double>()[0], 7.0 - 3000000000.0 + 3000000000.0 + 1.0 + 1.5);
}
