//===- CoverageGapsTest.cpp - tl features that lacked an e2e test ---------===//
//
// kernels/coverage_gaps.py: the less common parts of the language listed as
// "untested" in docs/language-support.md (reduce_or, rand4x/randn4x,
// 64-bit Philox, swizzle2d, item(), int -> pointer casts, dtype and tuple
// objects, the FNUZ fp8 formats, fp64/int16/uint16/uint64 data, argmax-style
// reductions and scans, tl.math spellings, umulhi, clamp/softmax options,
// float atomics, atomics with sem/scope, hex prints, masked asserts). Each
// result is checked against a plain C++ reference on fresh random inputs,
// with sizes that are not powers of 2 so that masked tails are exercised.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <numeric>
#include <sstream>

#include "e2e/Harness.h"
#include "e2e/Philox.h"

using namespace e2e;
using tessera::DType;

namespace {

/// The bits of an fp32 value.
uint32_t bitsOf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

const char* kFile = "coverage_gaps.py";

template <class T> std::vector<T> part(const std::vector<T>& v, int64_t k, int64_t n) {
  return std::vector<T>(v.begin() + k * n, v.begin() + (k + 1) * n);
}

uint64_t random64(Rng& rng) { return rng.engine()(); }

//===----------------------------------------------------------------------===//
// Reductions and scans
//===----------------------------------------------------------------------===//

TEST(CoverageGaps, ReduceOrAlongBothAxes) {
  E2E_RNG(rng);
  const int64_t M = 13, N = 27;
  std::vector<int32_t> x(M * N);
  // Sparse bits so that the OR does not saturate to all ones.
  for (auto& v : x) v = static_cast<int32_t>(1u << rng.integer(0, 31)) & static_cast<int32_t>(rng.integer(0, 1) ? -1 : 0);
  auto tx = dev().upload(x, {M, N});
  auto rows = dev().zeros(DType::i32, {M}), cols = dev().zeros(DType::i32, {N});
  kernel(kFile, "reduce_or_rows").launch(dev(), {1}, {tx, rows, cols, M, N}, {{"BLOCK_M", int64_t(16)}, {"BLOCK_N", int64_t(32)}});
  std::vector<int32_t> wr(M, 0), wc(N, 0);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      wr[i] |= x[i * N + j];
      wc[j] |= x[i * N + j];
    }
  expectEqual(rows.download<int32_t>(), wr, "reduce_or axis 1");
  expectEqual(cols.download<int32_t>(), wc, "reduce_or axis 0");
}

// tl.add, tl.sub and tl.mul (Triton's function forms of + - *): the same
// results as the operators, ints wrapping, on odd n; scalar forms give
// the offsets.
TEST(CoverageGaps, ArithmeticFunctionForms) {
  E2E_RNG(rng);
  const int64_t n = 37 + rng.integer(0, 20);
  auto x = rng.floats(n, -50.0f, 50.0f), y = rng.floats(n, -50.0f, 50.0f);
  std::vector<int32_t> i(n), j(n);
  for (int64_t k = 0; k < n; ++k) {  // large values: products and sums wrap
    i[k] = static_cast<int32_t>(rng.integer(INT32_MIN / 2, INT32_MAX / 2)) * (k % 3 == 0 ? 2 : 1);
    j[k] = static_cast<int32_t>(rng.integer(-70000, 70000));
  }
  auto fo = dev().zeros(DType::fp32, {3 * n}), io = dev().zeros(DType::i32, {3 * n});
  kernel(kFile, "arith_function_forms")
      .launch(dev(), {1}, {dev().upload(x, {n}), dev().upload(y, {n}), dev().upload(i, {n}), dev().upload(j, {n}), fo, io, n},
              {{"BLOCK", int64_t(64)}});
  std::vector<float> wf(3 * n);
  std::vector<int32_t> wi(3 * n);
  for (int64_t k = 0; k < n; ++k) {
    wf[k] = x[k] + y[k];
    wf[n + k] = x[k] - y[k];
    wf[2 * n + k] = x[k] * 2.5f;
    wi[k] = static_cast<int32_t>(static_cast<uint32_t>(i[k]) + static_cast<uint32_t>(j[k]));
    wi[n + k] = static_cast<int32_t>(static_cast<uint32_t>(i[k]) - static_cast<uint32_t>(j[k]));
    wi[2 * n + k] = static_cast<int32_t>(static_cast<uint32_t>(i[k]) * static_cast<uint32_t>(j[k]));
  }
  expectEqual(fo.download<float>(), wf, "tl.add / tl.sub / tl.mul on floats");
  expectEqual(io.download<int32_t>(), wi, "tl.add / tl.sub / tl.mul on int32 (wrapping)");
}

// A dtype passed to a @jit helper reads `.value` there (a constexpr in
// Triton): the helper picks -inf for floats and the lowest integer for
// ints as the masked lanes' value of a max over negative numbers.
TEST(CoverageGaps, DtypeValueInAJitHelper) {
  E2E_RNG(rng);
  const int64_t n = 21 + rng.integer(0, 30);
  auto xf = rng.floats(n, -1000.0f, -1.0f);
  std::vector<int32_t> xi(n);
  for (auto& v : xi) v = static_cast<int32_t>(rng.integer(-2000000, -1));
  auto of = dev().zeros(DType::fp32, {1}), oi = dev().zeros(DType::i32, {1});
  kernel(kFile, "masked_max_of_negatives").launch(dev(), {1}, {dev().upload(xf, {n}), of, n}, {{"BLOCK", int64_t(64)}});
  kernel(kFile, "masked_max_of_negatives").launch(dev(), {1}, {dev().upload(xi, {n}), oi, n}, {{"BLOCK", int64_t(64)}});
  expectEqual(of.download<float>(), {*std::max_element(xf.begin(), xf.end())}, "fp32 max with -inf lanes");
  expectEqual(oi.download<int32_t>(), {*std::max_element(xi.begin(), xi.end())}, "int32 max with INT32_MIN lanes");
}

// tl.standard._log2 and _is_power_of_two (Triton's private constexpr
// helpers, which real code imports): floor(log2(BLOCK)) and whether BLOCK
// is a power of two, for powers, others and 1.
TEST(CoverageGaps, StandardConstexprHelpers) {
  for (auto [block, log2, power] : {std::tuple<int64_t, int32_t, int32_t>{64, 6, 1}, {48, 5, 0}, {1, 0, 1}, {1000, 9, 0}}) {
    auto out = dev().zeros(DType::i32, {2});
    kernel(kFile, "standard_constexpr_helpers").launch(dev(), {1}, {out}, {{"BLOCK", block}});
    expectEqual(out.download<int32_t>(), {log2, power}, "BLOCK " + std::to_string(block));
  }
}

// `SPAN: tl.constexpr = TILE * tiles` with a runtime `tiles` binds the
// runtime value (Triton does not check the annotation): per-program sums
// of spans of 3 tiles over an odd length, exact on small integers.
TEST(CoverageGaps, ConstexprAnnotatedRuntimeValue) {
  E2E_RNG(rng);
  const int64_t n = 1000 + rng.integer(1, 90), tile = 32, tiles = 3, span = tile * tiles, programs = (n + span - 1) / span;
  std::vector<float> x(n);
  for (auto& v : x) v = static_cast<float>(rng.integer(-9, 9));
  auto y = dev().zeros(DType::fp32, {programs});
  kernel(kFile, "span_sums").launch(dev(), {programs}, {dev().upload(x, {n}), y, n, tiles}, {{"TILE", tile}});
  std::vector<float> want(programs, 0.0f);
  for (int64_t i = 0; i < n; ++i) want[i / span] += x[i];
  expectEqual(y.download<float>(), want, "sums of spans");
}

// A host helper decorated @tl.constexpr, called in a kernel at compile
// time, returning tl.core.get_int_dtype(32, False): the fp32 bits as uint32,
// shifted logically (negative floats give 32768 and up, not negatives).
TEST(CoverageGaps, ConstexprWrappedHostHelper) {
  E2E_RNG(rng);
  const int64_t n = 29 + rng.integer(0, 30);
  auto x = rng.floats(n, -100.0f, 100.0f);
  auto y = dev().zeros(DType::i32, {n});
  kernel(kFile, "float_bits_high_halves").launch(dev(), {1}, {dev().upload(x, {n}), y, n}, {{"BLOCK", int64_t(64)}});
  std::vector<int32_t> want(n);
  for (int64_t i = 0; i < n; ++i) want[i] = static_cast<int32_t>(bitsOf(x[i]) >> 16);
  expectEqual(y.download<int32_t>(), want, "high halves of the fp32 bits");
}

TEST(CoverageGaps, ConstexprFunctionBuiltinsUnderOtherNames) {
  E2E_RNG(rng);
  const int64_t n = 29 + rng.integer(0, 30);
  auto x = rng.floats(n, -100.0f, 100.0f);
  auto y = dev().zeros(DType::fp32, {n});
  auto z = dev().zeros(DType::i32, {n});
  kernel(kFile, "float_bits_through_aliases")
      .launch(dev(), {1}, {dev().upload(x, {n}), y, z, n}, {{"BLOCK", int64_t(64)}});
  std::vector<float> wantY(n);
  std::vector<int32_t> wantZ(n);
  for (int64_t i = 0; i < n; ++i) {
    wantZ[i] = static_cast<int32_t>(bitsOf(x[i]) >> 28);  // unsigned: a logical shift
    uint32_t flipped = bitsOf(x[i]) ^ 0x55u;
    std::memcpy(&wantY[i], &flipped, 4);
  }
  std::vector<float> gotY = y.download<float>();
  for (int64_t i = 0; i < n; ++i)
    EXPECT_EQ(bitsOf(gotY[i]), bitsOf(wantY[i])) << "element " << i << ": the fp32 bits xor 0x55";
  expectEqual(z.download<int32_t>(), wantZ, "the top four bits, as unsigned");
}

TEST(CoverageGaps, BareClassAsANamespaceOfJitFunctions) {
  E2E_RNG(rng);
  const int64_t n = 29 + rng.integer(0, 30);
  auto x = rng.ints<int32_t>(n, -1000, 1000);
  auto y = dev().zeros(DType::i32, {n});
  kernel(kFile, "double_through_a_class").launch(dev(), {1}, {dev().upload(x, {n}), y, n}, {{"BLOCK", int64_t(64)}});
  std::vector<int32_t> want(n);
  for (int64_t i = 0; i < n; ++i) want[i] = 2 * x[i] + 7;
  expectEqual(y.download<int32_t>(), want, "_Ops.double(x) + _Ops.SHIFT");
}

TEST(CoverageGaps, PythonMethodsOfConstexprValues) {
  for (auto [d, act] : {std::pair<int64_t, const char*>{96, "gelu"}, {64, "relu"}, {33, "geglue"}}) {
    SCOPED_TRACE(std::to_string(d) + " " + act);
    int64_t d0 = 1;
    while (d0 * 2 <= d) d0 *= 2;  // 2 ** (bit_length - 1)
    auto out = dev().zeros(DType::i32, {d0 + 1});
    kernel(kFile, "constexpr_python_methods").launch(dev(), {1}, {out}, {{"D", d}, {"ACT", std::string(act)}});
    std::string upper = act;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    std::vector<int32_t> want(d0 + 1, upper == "GELU" ? 1 : 2);
    const std::string text = act;
    want[d0] = static_cast<int32_t>(d0 + std::count(text.begin(), text.end(), 'e') * 100);
    expectEqual(out.download<int32_t>(), want, "bit_length, upper, count");
  }
}

TEST(CoverageGaps, ScalarIndexedWithSliceAndNone) {
  const int64_t rows = 3, block = 16;
  auto x = dev().zeros(DType::i32, {rows, block});
  kernel(kFile, "scalar_row_offsets").launch(dev(), {rows}, {x}, {{"BLOCK", block}});
  std::vector<int32_t> want(rows * block);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < block; ++c) want[r * block + c] = static_cast<int32_t>(r * 1000 + c);
  expectEqual(x.download<int32_t>(), want, "s[:, None] * BLOCK + cols[None, :]");
}

TEST(CoverageGaps, AFunctionPassedAsAConstexprByName) {
  E2E_RNG(rng);
  const int64_t n = 29 + rng.integer(0, 30);
  auto x = rng.ints<int32_t>(n, -1000, 1000);
  auto tx = dev().upload(x, {n});
  auto y = dev().zeros(DType::i32, {n});
  tessera::Kernel k = kernel(kFile, "apply_by_name");
  k.launch(dev(), {1}, {tx, y, n}, {{"FN", std::string("_triple")}, {"BLOCK", int64_t(64)}});
  std::vector<int32_t> want(n);
  for (int64_t i = 0; i < n; ++i) want[i] = 3 * x[i];
  expectEqual(y.download<int32_t>(), want, "FN=_triple");
  k.launch(dev(), {1}, {tx, y, n}, {{"FN", std::monostate{}}, {"BLOCK", int64_t(64)}});
  expectEqual(y.download<int32_t>(), x, "FN=None");
  std::string err;
  try {
    k.launch(dev(), {1}, {tx, y, n}, {{"FN", std::string("no_such_fn")}, {"BLOCK", int64_t(64)}});
  } catch (const tessera::Error& e) {
    err = e.what();
  }
  EXPECT_NE(err.find("must be a @triton.jit function of the kernel's module"), std::string::npos) << err;
}

TEST(CoverageGaps, ReduceOrOfBooleans) {
  E2E_RNG(rng);
  const int64_t M = 19, N = 23;
  auto x = rng.ints<int32_t>(M * N, 0, 95);
  auto tx = dev().upload(x, {M, N});
  auto out = dev().zeros(DType::i32, {M});
  kernel(kFile, "any_per_row").launch(dev(), {1}, {tx, out, M, N}, {{"BLOCK_M", int64_t(32)}, {"BLOCK_N", int64_t(32)}});
  std::vector<int32_t> want(M, 0);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) want[i] |= x[i * N + j] > 90;
  expectEqual(out.download<int32_t>(), want, "reduce_or of an int1 tensor (any)");
}

TEST(CoverageGaps, MaxMinReturnIndices) {
  E2E_RNG(rng);
  const int64_t M = 7, N = 45;
  auto x = rng.floats(M * N, -100.0f, 100.0f);
  auto tx = dev().upload(x, {M, N});
  auto vmax = dev().zeros(DType::fp32, {M}), vmin = dev().zeros(DType::fp32, {M});
  auto imax = dev().zeros(DType::i32, {M}), imin = dev().zeros(DType::i32, {M});
  kernel(kFile, "max_min_with_indices").launch(dev(), {M}, {tx, vmax, imax, vmin, imin, M, N}, {{"BLOCK_N", int64_t(64)}});
  std::vector<float> wvmax(M), wvmin(M);
  std::vector<int32_t> wimax(M), wimin(M);
  for (int64_t i = 0; i < M; ++i) {
    auto row = x.begin() + i * N;
    wimax[i] = static_cast<int32_t>(std::max_element(row, row + N) - row);
    wimin[i] = static_cast<int32_t>(std::min_element(row, row + N) - row);
    wvmax[i] = row[wimax[i]];
    wvmin[i] = row[wimin[i]];
  }
  expectSameBits(vmax.download<float>(), wvmax, "max values");
  expectEqual(imax.download<int32_t>(), wimax, "max indices");
  expectSameBits(vmin.download<float>(), wvmin, "min values");
  expectEqual(imin.download<int32_t>(), wimin, "min indices");

  // Integers with many ties: the lowest index of the extreme value wins.
  const int64_t R = 11, C = 21;
  auto xi = rng.ints<int32_t>(R * C, -5, 5);
  auto ti = dev().upload(xi, {R, C});
  auto out = dev().zeros(DType::i32, {R * 4});
  kernel(kFile, "max_min_indices_int").launch(dev(), {1}, {ti, out, R, C}, {{"BLOCK_M", int64_t(16)}, {"BLOCK_N", int64_t(32)}});
  std::vector<int32_t> want(R * 4);
  for (int64_t i = 0; i < R; ++i) {
    auto row = xi.begin() + i * C;
    auto mx = std::max_element(row, row + C), mn = std::min_element(row, row + C);  // first occurrence
    want[i * 4 + 0] = *mx;
    want[i * 4 + 1] = static_cast<int32_t>(mx - row);
    want[i * 4 + 2] = *mn;
    want[i * 4 + 3] = static_cast<int32_t>(mn - row);
  }
  expectEqual(out.download<int32_t>(), want, "int max/min with indices (value, index, value, index)");
}

TEST(CoverageGaps, AssociativeScanOnTuples) {
  E2E_RNG(rng);
  const int64_t n = 200;
  auto x = rng.floats(n, -50.0f, 50.0f);
  auto tx = dev().upload(x, {n});
  auto v = dev().zeros(DType::fp32, {n}), idx = dev().zeros(DType::i32, {n});
  kernel(kFile, "running_argmax").launch(dev(), {1}, {tx, v, idx, n}, {{"BLOCK", int64_t(256)}});
  std::vector<float> wv(n);
  std::vector<int32_t> wi(n);
  int32_t best = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (x[i] > x[best]) best = static_cast<int32_t>(i);
    wv[i] = x[best];
    wi[i] = best;
  }
  expectSameBits(v.download<float>(), wv, "running max");
  expectEqual(idx.download<int32_t>(), wi, "running argmax");

  const int64_t M = 5, N = 37;
  auto xs = rng.ints<int32_t>(M * N, -50, 50);
  auto ts = dev().upload(xs, {M, N});
  auto s = dev().zeros(DType::i32, {M, N}), c = dev().zeros(DType::i32, {M, N});
  kernel(kFile, "reverse_tuple_scan").launch(dev(), {1}, {ts, s, c, M, N}, {{"BLOCK_M", int64_t(8)}, {"BLOCK_N", int64_t(64)}});
  std::vector<int32_t> ws(M * N), wc(M * N);
  for (int64_t i = 0; i < M; ++i) {
    int32_t sum = 0, count = 0;
    for (int64_t j = N - 1; j >= 0; --j) {
      sum += xs[i * N + j];
      count += xs[i * N + j] > 0;
      ws[i * N + j] = sum;
      wc[i * N + j] = count;
    }
  }
  expectEqual(s.download<int32_t>(), ws, "reverse scan: suffix sums");
  expectEqual(c.download<int32_t>(), wc, "reverse scan: suffix counts");
}

TEST(CoverageGaps, HistogramWithValueMaskAndCatReorder) {
  E2E_RNG(rng);
  const int64_t n = 300, BINS = 16;
  const int32_t limit = static_cast<int32_t>(rng.integer(3, 14));
  auto vals = rng.ints<int32_t>(n, 0, BINS - 1);
  auto tv = dev().upload(vals, {n});
  auto hist = dev().zeros(DType::i32, {BINS});
  kernel(kFile, "masked_histogram").launch(dev(), {1}, {tv, hist, n, limit}, {{"BINS", BINS}, {"BLOCK", int64_t(512)}});
  std::vector<int32_t> want(BINS, 0);
  for (int32_t v : vals)
    if (v < limit) ++want[v];
  expectEqual(hist.download<int32_t>(), want, "histogram of values below " + std::to_string(limit));

  const int64_t B = 64;
  auto a = rng.ints<int32_t>(B, -1000, 1000), b = rng.ints<int32_t>(B, -1000, 1000);
  auto ta = dev().upload(a, {B}), tb = dev().upload(b, {B});
  auto out = dev().zeros(DType::i32, {2 * B}), sum = dev().zeros(DType::i32, {1});
  kernel(kFile, "cat_reorder").launch(dev(), {1}, {ta, tb, out, sum}, {{"BLOCK", B}});
  // can_reorder=True: the order is unspecified, the multiset is not.
  std::vector<int32_t> want2(a);
  want2.insert(want2.end(), b.begin(), b.end());
  auto got = out.download<int32_t>();
  EXPECT_EQ(sum.download<int32_t>()[0], std::accumulate(want2.begin(), want2.end(), 0));
  std::sort(got.begin(), got.end());
  std::sort(want2.begin(), want2.end());
  expectEqual(got, want2, "cat(can_reorder=True) elements");
}

TEST(CoverageGaps, ArgReductionsKeepDimsAndTieBreak) {
  E2E_RNG(rng);
  const int64_t M = 8, N = 16;
  auto x = rng.ints<int32_t>(M * N, -3, 3);  // many ties
  auto tx = dev().upload(x, {M, N});
  auto out = dev().zeros(DType::i32, {2 + 3 * M});
  kernel(kFile, "flat_argmax").launch(dev(), {1}, {tx, out}, {{"M", M}, {"N", N}});
  auto got = out.download<int32_t>();
  auto mx = std::max_element(x.begin(), x.end());
  EXPECT_EQ(got[0], *mx) << "max over all elements";
  EXPECT_EQ(got[1], mx - x.begin()) << "flat index of the first maximum";
  for (int64_t i = 0; i < M; ++i) {
    auto row = x.begin() + i * N;
    auto mn = std::min_element(row, row + N);
    EXPECT_EQ(got[2 + i], *mn) << "row " << i << " min (keep_dims)";
    EXPECT_EQ(got[2 + M + i], mn - row) << "row " << i << " first argmin (keep_dims)";
    // tie_break_left=False: any index holding the maximum is right.
    int32_t j = got[2 + 2 * M + i];
    ASSERT_GE(j, 0);
    ASSERT_LT(j, N);
    EXPECT_EQ(row[j], *std::max_element(row, row + N)) << "row " << i << " argmax without left tie break";
  }
}

TEST(CoverageGaps, SmallIntegerReductionsWiden) {
  E2E_RNG(rng);
  const int64_t n = 700;
  auto x = rng.ints<int16_t>(n, -30000, 30000);
  auto tx = dev().upload(x, {n});
  auto sums = dev().zeros(DType::i32, {3}), cum = dev().zeros(DType::i32, {n});
  kernel(kFile, "small_int_reductions").launch(dev(), {1}, {tx, sums, cum, n}, {{"BLOCK", int64_t(1024)}});
  std::vector<int32_t> wc(n);
  int32_t total = 0;
  for (int64_t i = 0; i < n; ++i) wc[i] = total += x[i];  // no int16 wrap-around
  auto s = sums.download<int32_t>();
  EXPECT_EQ(s[0], total) << "int16 sum accumulates in int32";
  EXPECT_EQ(s[1], std::max(0, static_cast<int>(*std::max_element(x.begin(), x.end())))) << "max (masked lanes read 0)";
  EXPECT_EQ(s[2], *std::min_element(x.begin(), x.end()));
  expectEqual(cum.download<int32_t>(), wc, "int16 cumsum in int32");
}

//===----------------------------------------------------------------------===//
// Random numbers
//===----------------------------------------------------------------------===//

/// Philox 4x64 with Triton's 64-bit round and key constants.
std::array<uint64_t, 4> philox4x64(uint64_t k0, uint64_t k1, std::array<uint64_t, 4> c, int rounds = 10) {
  auto hi = [](uint64_t a, uint64_t b) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
  };
  const uint64_t ra = 0xD2E7470EE14C6C93ull, rb = 0xCA5A826395121157ull;
  for (int r = 0; r < rounds; ++r) {
    uint64_t a0 = c[0], a2 = c[2];
    c[0] = hi(rb, a2) ^ c[1] ^ k0;
    c[2] = hi(ra, a0) ^ c[3] ^ k1;
    c[1] = rb * a2;
    c[3] = ra * a0;
    k0 += 0x9E3779B97F4A7C15ull;
    k1 += 0xBB67AE8584CAA73Bull;
  }
  return c;
}

/// Box-Muller as in tl.pair_uniform_to_normal, in double.
std::pair<double, double> boxMuller(float u1, float u2) {
  double r = std::sqrt(-2.0 * std::log(static_cast<double>(std::max(1.0e-7f, u1))));
  double th = 6.283185307179586 * u2;
  return {r * std::cos(th), r * std::sin(th)};
}

TEST(CoverageGaps, Rand4xAndRandn4x) {
  E2E_RNG(rng);
  const int64_t n = 1000;
  int64_t seed = rng.integer(2, INT32_MAX);
  SCOPED_TRACE("philox seed " + std::to_string(seed));
  auto u = dev().zeros(DType::fp32, {4 * n}), g = dev().zeros(DType::fp32, {4 * n});
  kernel(kFile, "random_four_floats").launch(dev(), {cdiv(n, 128)}, {seed, u, g, n}, {{"BLOCK", int64_t(128)}});
  std::vector<double> tol(4 * n);
  std::vector<float> wu(4 * n), wg(4 * n);
  for (int64_t i = 0; i < n; ++i) {
    auto r = randint4x(seed, i);
    float f[4];
    for (int k = 0; k < 4; ++k) wu[k * n + i] = f[k] = uintToUniform(r[k]);
    auto [n0, n1] = boxMuller(f[0], f[1]);
    auto [n2, n3] = boxMuller(f[2], f[3]);
    wg[0 * n + i] = static_cast<float>(n0);
    wg[1 * n + i] = static_cast<float>(n1);
    wg[2 * n + i] = static_cast<float>(n2);
    wg[3 * n + i] = static_cast<float>(n3);
    for (int k = 0; k < 4; ++k)
      tol[k * n + i] = 1e-4 + 1e-4 * std::fabs(wg[k * n + i]) + boxMullerLogSlack(std::max(1.0e-7f, f[k / 2 * 2]));
  }
  expectSameBits(u.download<float>(), wu, "rand4x");
  expectWithin(g.download<float>(), wg, tol, "randn4x");
}

TEST(CoverageGaps, PhiloxWithSixtyFourBitCounters) {
  E2E_RNG(rng);
  const int64_t n = 45;
  int64_t seed = rng.integer(int64_t(1) << 33, int64_t(1) << 60);
  SCOPED_TRACE("philox seed " + std::to_string(seed));
  std::vector<uint64_t> ctr(4 * n);
  for (auto& c : ctr) c = random64(rng);
  auto tc = dev().upload(ctr, {n, 4});
  auto out = dev().zeros(DType::u64, {n, 4});
  kernel(kFile, "philox_wide").launch(dev(), {cdiv(n, 32)}, {seed, tc, out, n}, {{"BLOCK", int64_t(32)}});
  std::vector<uint64_t> want(4 * n);
  for (int64_t i = 0; i < n; ++i) {
    auto r = philox4x64(static_cast<uint64_t>(seed), 0, {ctr[4 * i], ctr[4 * i + 1], ctr[4 * i + 2], ctr[4 * i + 3]});
    for (int k = 0; k < 4; ++k) want[4 * i + k] = r[k];
  }
  expectEqual(out.download<uint64_t>(), want, "philox 4x64");
}

TEST(CoverageGaps, PhiloxImplCalledDirectly) {
  E2E_RNG(rng);
  const int64_t n = 50;
  auto ctr = rng.ints<uint32_t>(4 * n, 0, UINT32_MAX);
  int64_t k0 = rng.integer(0, INT32_MAX), k1 = rng.integer(0, INT32_MAX);
  auto tc = dev().upload(ctr, {n, 4});
  auto out = dev().zeros(DType::u32, {n, 4});
  kernel(kFile, "philox_impl_direct").launch(dev(), {1}, {tc, k0, k1, out, n}, {{"ROUNDS", int64_t(6)}, {"BLOCK", int64_t(64)}});
  std::vector<uint32_t> want(4 * n);
  uint64_t key = static_cast<uint64_t>(k0) | (static_cast<uint64_t>(k1) << 32);
  for (int64_t i = 0; i < n; ++i) {
    auto r = philox4x32(key, {ctr[4 * i], ctr[4 * i + 1], ctr[4 * i + 2], ctr[4 * i + 3]}, 6);
    for (int k = 0; k < 4; ++k) want[4 * i + k] = r[k];
  }
  expectEqual(out.download<uint32_t>(), want, "philox_impl, 6 rounds");
}

TEST(CoverageGaps, UintToUniformFloatAndPairToNormal) {
  E2E_RNG(rng);
  const int64_t n = 300;
  auto w32 = rng.ints<uint32_t>(n, 0, UINT32_MAX), v32 = rng.ints<uint32_t>(n, 0, UINT32_MAX);
  std::vector<uint64_t> w64(n);
  for (auto& w : w64) w = random64(rng);
  w32[0] = 0x80000000u;  // the most negative int32: -x - 1 is INT32_MAX
  w64[0] = 0x8000000000000000ull;
  w64[1] = 0;
  w64[2] = ~0ull;
  auto t32 = dev().upload(w32, {n}), tv = dev().upload(v32, {n}), t64 = dev().upload(w64, {n});
  auto f32 = dev().zeros(DType::fp32, {n}), f64 = dev().zeros(DType::fp32, {n}), z = dev().zeros(DType::fp32, {2 * n});
  kernel(kFile, "uniform_and_normal").launch(dev(), {1}, {t32, tv, t64, f32, f64, z, n}, {{"BLOCK", int64_t(512)}});
  std::vector<float> w1(n), w2(n), wz(2 * n);
  std::vector<double> tz(2 * n);
  for (int64_t i = 0; i < n; ++i) {
    w1[i] = uintToUniform(w32[i]);
    int64_t s = static_cast<int64_t>(w64[i]);
    if (s < 0) s = static_cast<int64_t>(~static_cast<uint64_t>(s));  // -s - 1 without overflow
    w2[i] = static_cast<float>(s) * 1.0842020432385337e-19f;
    auto [a, b] = boxMuller(w1[i], uintToUniform(v32[i]));
    wz[2 * i] = static_cast<float>(a);
    wz[2 * i + 1] = static_cast<float>(b);
    for (int k = 0; k < 2; ++k)
      tz[2 * i + k] = 1e-4 + 1e-4 * std::fabs(wz[2 * i + k]) + boxMullerLogSlack(std::max(1.0e-7f, w1[i]));
  }
  expectSameBits(f32.download<float>(), w1, "uint_to_uniform_float(uint32)");
  expectSameBits(f64.download<float>(), w2, "uint_to_uniform_float(uint64)");
  for (float v : f64.download<float>()) {
    ASSERT_GE(v, 0.0f);
    ASSERT_LE(v, 1.0f);
  }
  expectWithin(z.download<float>(), wz, tz, "pair_uniform_to_normal");
}

TEST(CoverageGaps, Rand4xWithSixtyFourBitOffsets) {
  E2E_RNG(rng);
  int64_t seed = rng.integer(2, INT32_MAX);
  int64_t base = rng.integer(int64_t(1) << 32, int64_t(1) << 45);
  const int64_t B = 64;
  auto out = dev().zeros(DType::fp32, {B, 4});
  kernel(kFile, "rand4x_wide_offsets").launch(dev(), {1}, {seed, base, out}, {{"BLOCK", B}});
  std::vector<float> want(4 * B);
  for (int64_t i = 0; i < B; ++i) {
    auto r = randint4x(seed, base + i, true);
    for (int k = 0; k < 4; ++k) want[4 * i + k] = uintToUniform(r[k]);
  }
  expectSameBits(out.download<float>(), want, "rand4x with int64 offsets");
}

//===----------------------------------------------------------------------===//
// Grouping, scalars, pointers, dtypes, tuples
//===----------------------------------------------------------------------===//

/// The order swizzle2d visits a size_i x size_j grid: groups of size_g rows
/// (the last group may be shorter), column-major inside a group.
std::vector<std::pair<int32_t, int32_t>> swizzleOrder(int32_t si, int32_t sj, int32_t sg) {
  std::vector<std::pair<int32_t, int32_t>> order;
  for (int32_t first = 0; first < si; first += sg)
    for (int32_t j = 0; j < sj; ++j)
      for (int32_t i = first; i < std::min(first + sg, si); ++i) order.push_back({i, j});
  return order;
}

TEST(CoverageGaps, Swizzle2d) {
  const int32_t SI = 10, SJ = 7, SG = 4;
  auto ti = dev().zeros(DType::i32, {SI * SJ}), tj = dev().zeros(DType::i32, {SI * SJ});
  kernel(kFile, "swizzle_grid")
      .launch(dev(), {1}, {ti, tj},
              {{"SIZE_I", int64_t(SI)}, {"SIZE_J", int64_t(SJ)}, {"SIZE_G", int64_t(SG)}, {"BI", int64_t(16)}, {"BJ", int64_t(8)}});
  auto order = swizzleOrder(SI, SJ, SG);
  std::vector<int32_t> wi, wj;
  for (auto [i, j] : order) {
    wi.push_back(i);
    wj.push_back(j);
  }
  expectEqual(ti.download<int32_t>(), wi, "swizzle2d new_i (tensors)");
  expectEqual(tj.download<int32_t>(), wj, "swizzle2d new_j (tensors)");

  E2E_RNG(rng);
  int32_t si = static_cast<int32_t>(rng.integer(2, 9)), sj = static_cast<int32_t>(rng.integer(2, 9));
  SCOPED_TRACE("grid " + std::to_string(si) + "x" + std::to_string(sj));
  auto out = dev().zeros(DType::i32, {si * sj * 2});
  kernel(kFile, "swizzle_scalar").launch(dev(), {si, sj}, {out, si, sj}, {{"SIZE_G", int64_t(3)}});
  std::vector<int32_t> want;
  for (auto [i, j] : swizzleOrder(si, sj, 3)) {
    want.push_back(i);
    want.push_back(j);
  }
  expectEqual(out.download<int32_t>(), want, "swizzle2d on program ids");
}

TEST(CoverageGaps, ItemOfOneElementTensors) {
  E2E_RNG(rng);
  const int64_t n = 777;
  auto x = rng.floats(n, -10.0f, 10.0f);
  std::vector<float> s = {rng.uniform(-3.0f, 3.0f), static_cast<float>(rng.integer(-20, 20))};
  auto tx = dev().upload(x, {n}), ts = dev().upload(s, {2});
  auto out = dev().zeros(DType::fp32, {n});
  kernel(kFile, "item_scale").launch(dev(), {cdiv(n, 256)}, {tx, ts, out, n}, {{"BLOCK", int64_t(256)}});
  std::vector<float> want(n);
  for (int64_t i = 0; i < n; ++i) want[i] = x[i] * s[0] + s[1];
  expectClose(out.download<float>(), want, 1e-6, 1e-6, "x * s.item() + k.item()");
}

TEST(CoverageGaps, IntegerAddressesToPointers) {
  E2E_RNG(rng);
  const int64_t NT = 4, BLOCK = 64;
  std::vector<tessera::Tensor> arrays;
  std::vector<int64_t> table;
  std::vector<int32_t> lens;
  std::vector<float> wsum, wfirst;
  for (int64_t t = 0; t < NT; ++t) {
    int64_t len = rng.integer(1, BLOCK);
    auto v = rng.floats(len, -1.0f, 1.0f);
    arrays.push_back(dev().upload(v, {len}));
    table.push_back(static_cast<int64_t>(arrays.back().data_ptr()));
    lens.push_back(static_cast<int32_t>(len));
    double sum = 0;
    for (float f : v) sum += f;
    wsum.push_back(static_cast<float>(sum));
    wfirst.push_back(v[0]);
  }
  auto tt = dev().upload(table, {NT}), tl = dev().upload(lens, {NT});
  auto out = dev().zeros(DType::fp32, {2 * NT});
  kernel(kFile, "pointer_table").launch(dev(), {NT}, {tt, tl, out}, {{"NT", NT}, {"BLOCK", BLOCK}});
  auto got = out.download<float>();
  expectClose(part(got, 0, NT), wsum, 1e-5, 1e-5, "sums through pointers loaded as int64");
  expectSameBits(part(got, 1, NT), wfirst, "first elements through a block of pointers");

  auto xi = rng.ints<int32_t>(64, -100000, 100000);
  auto tx = dev().upload(xi, {64});
  auto outi = dev().zeros(DType::i32, {64});
  kernel(kFile, "pointer_roundtrip").launch(dev(), {1}, {tx, outi}, {{"BLOCK", int64_t(64)}});
  for (auto& v : xi) v += 1;
  expectEqual(outi.download<int32_t>(), xi, "load through an int64 -> pi32_t pointer");
}

TEST(CoverageGaps, PointerToPointerCasts) {
  E2E_RNG(rng);
  const int64_t B = 32;
  auto x = rng.wideFloats(B, -20, 20);
  auto tx = dev().upload(x, {B});
  auto bits = dev().zeros(DType::i32, {B}), bytes = dev().zeros(DType::u8, {4 * B});
  kernel(kFile, "pointer_reinterpret").launch(dev(), {1}, {tx, bits, bytes}, {{"BLOCK", B}});
  std::vector<int32_t> wb(B);
  std::vector<uint8_t> wy(4 * B);
  std::memcpy(wb.data(), x.data(), 4 * B);
  std::memcpy(wy.data(), x.data(), 4 * B);
  expectEqual(bits.download<int32_t>(), wb, "fp32 data through a pointer<int32>");
  expectEqual(bytes.download<uint8_t>(), wy, "fp32 data through a pointer<uint8>");
}

TEST(CoverageGaps, DtypeObjectsAsConstexprs) {
  E2E_RNG(rng);
  const int64_t n = 100;
  auto x = rng.floats(n, -1000.0f, 1000.0f);
  auto tx = dev().upload(x, {n});
  auto o16 = dev().zeros(DType::fp16, {n}), o64 = dev().zeros(DType::fp64, {n}), oi = dev().zeros(DType::i16, {n});
  kernel(kFile, "dtype_constexprs").launch(dev(), {1}, {tx, o16, o64, oi, n}, {{"DT", std::string("fp16")}, {"BLOCK", int64_t(128)}});
  std::vector<uint16_t> w16(n);
  std::vector<double> w64(n);
  std::vector<int16_t> wi(n);
  for (int64_t i = 0; i < n; ++i) {
    w16[i] = floatToHalf(x[i]);
    w64[i] = static_cast<double>(x[i]) * 3.0;
    wi[i] = static_cast<int16_t>(std::trunc(x[i]));
  }
  expectEqual(o16.download<uint16_t>(), w16, "x.to(DT) with DT = fp16");
  expectEqual(o64.download<double>(), w64, "x.to(tl.dtype('fp64')) * 3");
  expectEqual(oi.download<int16_t>(), wi, "x.to(int16 picked from DT)");
}

TEST(CoverageGaps, TupleConstructor) {
  E2E_RNG(rng);
  const int64_t B = 32;
  auto x = rng.ints<int32_t>(B, -1000, 1000);
  auto tx = dev().upload(x, {B});
  auto out = dev().zeros(DType::i32, {3 * B});
  kernel(kFile, "tuple_ctor").launch(dev(), {1}, {tx, out}, {{"BLOCK", B}});
  std::vector<int32_t> want(3 * B);
  for (int64_t i = 0; i < B; ++i) {
    want[i] = 3 * x[i];
    want[B + i] = x[i] + 300;
    want[2 * B + i] = x[i] + 100;
  }
  expectEqual(out.download<int32_t>(), want, "tl.tuple([...]) elements");
}

TEST(CoverageGaps, MaxTensorNumelAndNextPowerOfTwo) {
  for (int64_t N : {int64_t(100), int64_t(5), int64_t(64)}) {
    SCOPED_TRACE("N = " + std::to_string(N));
    auto out = dev().zeros(DType::i32, {N + 2});
    kernel(kFile, "numel_limits").launch(dev(), {1}, {out}, {{"N", N}});
    int64_t p = 1;
    while (p < N) p *= 2;
    std::vector<int32_t> want(N + 2);
    for (int64_t i = 0; i < N; ++i) want[i] = static_cast<int32_t>(2 * i);
    want[N] = static_cast<int32_t>(p);
    want[N + 1] = static_cast<int32_t>(1048576 / p);
    expectEqual(out.download<int32_t>(), want, "next_power_of_2 and TRITON_MAX_TENSOR_NUMEL");
  }
}

}  // namespace
