//===- Syntax39Test.cpp - Syntax of Triton 3.9 -------------------------------===//
//
// kernels/syntax_39.py: chained comparisons (`0 <= offs < n`, `lo <= x <
// hi`, a three-link chain, constexpr chains that pick a branch and stop
// at a false link), @jit helpers and kernels with keyword-only parameters
// (after a bare `*`, with and without defaults; a kernel's are given by
// name) and list/tuple comprehensions (over constexpr ranges and tuples,
// with filters, nested, with tuple targets, their names kept inside),
// tl.squeeze / tl.unsqueeze (negative dims too), integer tl.clamp (signed
// and unsigned) and tl.cat in order along a dim (broadcasting the others),
// against the same expressions computed here.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <climits>

#include "e2e/Harness.h"

using namespace e2e;
using tessera::DType;

namespace {

const char* kFile = "syntax_39.py";

TEST(Syntax39, ChainedComparisons) {
  E2E_RNG(rng);
  const int64_t n = 1000, BLOCK = 256;
  auto x = rng.ints<int32_t>(n, -60, 60);
  for (auto [loC, hiC] : {std::pair<int64_t, int64_t>{1, 3}, {3, 5}}) {
    SCOPED_TRACE("LO_C=" + std::to_string(loC) + " HI_C=" + std::to_string(hiC));
    const int32_t lo = -17, hi = 23;
    auto out = dev().zeros(DType::i32, {n});
    kernel(kFile, "chained_compare")
        .launch(dev(), {cdiv(n, BLOCK)}, {dev().upload(x, {n}), out, n, int64_t(lo), int64_t(hi)},
                {{"LO_C", loC}, {"HI_C", hiC}, {"BLOCK", BLOCK}});
    std::vector<int32_t> want(n);
    for (int64_t i = 0; i < n; ++i) {
      int32_t v = x[i];
      bool inside = lo <= v && v < hi;
      bool ordered = lo < v && v <= v + 1 && v + 1 < hi + 10;
      int32_t y = (loC < 2 && 2 < hiC) ? (inside ? v * 2 : v) : (inside ? v : -v);
      want[i] = ordered ? y + 1000 : y;
    }
    EXPECT_EQ(out.download<int32_t>(), want);
  }
}

TEST(Syntax39, KeywordOnlyParameters) {
  E2E_RNG(rng);
  const int64_t n = 777, BLOCK = 128;
  auto x = rng.ints<int32_t>(n, -90, 90);
  const int32_t scale = -3;
  auto out = dev().zeros(DType::i32, {n});
  kernel(kFile, "keyword_only_helpers")
      .launch(dev(), {cdiv(n, BLOCK)}, {dev().upload(x, {n}), out, n, int64_t(scale)}, {{"BLOCK", BLOCK}});
  std::vector<int32_t> want(n);
  for (int64_t i = 0; i < n; ++i) {
    int32_t a = x[i] * scale;                   // shift 0, no clamp: the defaults
    int32_t b = std::min(x[i] * 2 + 7, 100);    // every keyword given, in another order
    want[i] = a * 1000 + b;
  }
  EXPECT_EQ(out.download<int32_t>(), want);
}

TEST(Syntax39, KeywordOnlyKernelParameters) {
  E2E_RNG(rng);
  const int64_t n = 300, BLOCK = 64;
  auto x = rng.ints<int32_t>(n, -1000, 1000);
  for (bool giveShift : {false, true}) {
    SCOPED_TRACE(giveShift ? "SHIFT given" : "SHIFT default");
    auto out = dev().zeros(DType::i32, {n});
    tessera::Meta meta = {{"scale", int64_t(-4)}, {"BLOCK", BLOCK}};
    if (giveShift) meta["SHIFT"] = int64_t(-11);
    kernel(kFile, "keyword_only_kernel").launch(dev(), {cdiv(n, BLOCK)}, {dev().upload(x, {n}), out, n}, meta);
    std::vector<int32_t> want(n);
    for (int64_t i = 0; i < n; ++i) want[i] = x[i] * -4 + (giveShift ? -11 : 5);
    EXPECT_EQ(out.download<int32_t>(), want);
  }
  // The C++ API has no keyword syntax for tensors: its argument list fills
  // the runtime parameters in order, keyword-only ones included (the Python
  // launcher refuses that, as Python does: tests/python/test_launch.py).
  auto out = dev().zeros(DType::i32, {n});
  kernel(kFile, "keyword_only_kernel")
      .launch(dev(), {cdiv(n, BLOCK)}, {dev().upload(x, {n}), out, n, int64_t(3)}, {{"BLOCK", BLOCK}});
  std::vector<int32_t> want(n);
  for (int64_t i = 0; i < n; ++i) want[i] = x[i] * 3 + 5;
  EXPECT_EQ(out.download<int32_t>(), want);
}

TEST(Syntax39, Comprehensions) {
  E2E_RNG(rng);
  const int64_t n = 500, BLOCK = 128, PARTS = 3;
  auto x = rng.ints<int32_t>(n * PARTS, -50, 50);
  auto out = dev().zeros(DType::i32, {n});
  kernel(kFile, "comprehensions")
      .launch(dev(), {cdiv(n, BLOCK)}, {dev().upload(x, {n * PARTS}), out, n}, {{"BLOCK", BLOCK}, {"PARTS", PARTS}});
  const int32_t weights[] = {1, 3, 5};  // the odd ones of 1..8
  const int32_t pairs = 12 + 34;        // [12, 12, 34, 34][0] + [3]
  std::vector<int32_t> want(n);
  for (int64_t i = 0; i < n; ++i) {
    int32_t acc = 0;
    for (int64_t p = 0; p < PARTS; ++p) acc += x[p * n + i] * weights[p];
    want[i] = acc + pairs + int32_t(PARTS) * 100;
  }
  EXPECT_EQ(out.download<int32_t>(), want);
}

TEST(Syntax39, SqueezeAndUnsqueeze) {
  E2E_RNG(rng);
  const int64_t M = 16, N = 32;
  auto x = rng.ints<int32_t>(M * N, -1000, 1000);
  auto out = dev().zeros(DType::i32, {M, N});
  kernel(kFile, "squeeze_unsqueeze").launch(dev(), {1}, {dev().upload(x, {M, N}), out}, {{"M", M}, {"N", N}});
  std::vector<int32_t> rowSum(M, 0), colMax(N, INT32_MIN), want(M * N);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      rowSum[i] += x[i * N + j];
      colMax[j] = std::max(colMax[j], x[i * N + j]);
    }
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) want[i * N + j] = x[i * N + j] + 2 * rowSum[i] + colMax[j];
  EXPECT_EQ(out.download<int32_t>(), want);
}

TEST(Syntax39, IntegerClamp) {
  E2E_RNG(rng);
  const int64_t n = 700, BLOCK = 256;
  auto x = rng.ints<int32_t>(n, -100, 100);
  auto u = rng.ints<uint32_t>(n, 0, 4000000000LL);
  const int32_t lo = -31, hi = 44;
  auto out = dev().zeros(DType::i32, {n});
  auto uout = dev().zeros(DType::u32, {n});
  kernel(kFile, "integer_clamp")
      .launch(dev(), {cdiv(n, BLOCK)}, {dev().upload(x, {n}), dev().upload(u, {n}), out, uout, n, int64_t(lo), int64_t(hi)},
              {{"BLOCK", BLOCK}});
  std::vector<int32_t> want(n);
  std::vector<uint32_t> uwant(n);
  for (int64_t i = 0; i < n; ++i) {
    want[i] = std::clamp(x[i], lo, hi) * 1000 + std::clamp(x[i], -5, 7);
    uwant[i] = std::clamp(u[i], 1000u, 3000000000u);
  }
  EXPECT_EQ(out.download<int32_t>(), want);
  EXPECT_EQ(uout.download<uint32_t>(), uwant);
}

TEST(Syntax39, CatInOrderAlongADim) {
  E2E_RNG(rng);
  const int64_t M = 8, N = 16;
  auto a = rng.ints<int32_t>(M * N, -500, 500), b = rng.ints<int32_t>(M * N, -500, 500);
  auto out1 = dev().zeros(DType::i32, {2 * N}), out2 = dev().zeros(DType::i32, {2 * M, N}),
       out3 = dev().zeros(DType::i32, {M, 2 * N});
  kernel(kFile, "cat_in_order")
      .launch(dev(), {1}, {dev().upload(a, {M, N}), dev().upload(b, {M, N}), out1, out2, out3}, {{"M", M}, {"N", N}});
  std::vector<int32_t> w1(2 * N), w2(2 * M * N), w3(2 * M * N);
  for (int64_t j = 0; j < N; ++j) {
    w1[j] = a[j];
    w1[N + j] = b[j];
  }
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      w2[i * N + j] = a[i * N + j];
      w2[(M + i) * N + j] = b[i * N + j];
      w3[i * 2 * N + j] = a[i * N + j];
      w3[i * 2 * N + N + j] = b[j];  // b's row 0, broadcast over the rows
    }
  EXPECT_EQ(out1.download<int32_t>(), w1) << "1-D";
  EXPECT_EQ(out2.download<int32_t>(), w2) << "dim=0";
  EXPECT_EQ(out3.download<int32_t>(), w3) << "dim=-1 with a broadcast row";
}

TEST(Syntax39, ConstexprFunctions) {
  E2E_RNG(rng);
  for (int64_t N : {int64_t(5), int64_t(100), int64_t(128)}) {
    SCOPED_TRACE("N=" + std::to_string(N));
    int64_t B = 1;
    while (B < N) B *= 2;
    const int64_t n = N - 1;
    auto x = rng.ints<int32_t>(B, -1000, 1000);
    auto out = dev().zeros(DType::i32, {B});
    kernel(kFile, "uses_constexpr_functions").launch(dev(), {1}, {dev().upload(x, {B}), out, n}, {{"N", N}});
    std::vector<int32_t> want(B, 0);
    for (int64_t i = 0; i < n; ++i) want[i] = static_cast<int32_t>(x[i] * (N * 2) + (N + 2) + 2 * B);
    EXPECT_EQ(out.download<int32_t>(), want);
  }
  auto t = dev().zeros(DType::i32, {1});
  std::string msg = errorOf([&] { kernel(kFile, "constexpr_function_on_a_tensor").launch(dev(), {1}, {t}, {}); });
  EXPECT_NE(msg.find("constexpr_function 'pow2_at_least'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("takes constexprs only"), std::string::npos) << msg;
  EXPECT_NE(msg.find("syntax_39.py:"), std::string::npos) << msg;
}

}  // namespace
