//===- AggregatesTest.cpp - @triton.aggregate classes and namedtuples --------===//
//
// kernels/aggregates.py: aggregate objects made by the class's constructor
// and by the generated one, with @jit methods, operator methods (+, unary -,
// [], <), tl.aggregate_replace, inheritance of fields and methods, default
// and constexpr fields, carried through a loop and a runtime if and returned
// from a @jit function; namedtuples (collections.namedtuple and a
// typing.NamedTuple with a default) built, indexed, unpacked, `_replace`d
// in a @jit function and merged by a runtime if; tuple kernel arguments
// (nested, a namedtuple with a scale that may specialize to 1, host tensor
// descriptors inside a tuple). Each against the same arithmetic done here
// on fresh random inputs of odd sizes.
//
//===----------------------------------------------------------------------===//

#include "e2e/Harness.h"

using namespace e2e;
using tessera::DType;

namespace {

const char* kFile = "aggregates.py";

TEST(Aggregates, MethodsOperatorsAndReplace) {
  E2E_RNG(rng);
  const int64_t n = 1001, BLOCK = 128;
  auto x = rng.ints<int32_t>(n, -100, 100);
  auto y = rng.ints<int32_t>(n, -100, 100);
  auto out = dev().zeros(DType::i32, {n});
  kernel(kFile, "aggregate_methods")
      .launch(dev(), {cdiv(n, BLOCK)}, {dev().upload(x, {n}), dev().upload(y, {n}), out, n}, {{"BLOCK", BLOCK}});
  std::vector<int32_t> want(n);
  for (int64_t i = 0; i < n; ++i) {
    int32_t r0 = -9 * x[i], r1 = -2 * y[i];  // -(3 * (x + 2x), y + y)
    int32_t less = (x[i] + y[i]) < (3 * x[i] + 2 * y[i]);
    want[i] = (r0 * 10 + r1) + (r0 + r1) * 1000 + less * 1000000;
  }
  EXPECT_EQ(out.download<int32_t>(), want);
}

TEST(Aggregates, InheritanceDefaultsThroughLoopsAndIfs) {
  E2E_RNG(rng);
  for (int64_t n : {1, 333, 1000}) {
    for (int32_t flag : {0, 1}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " flag=" + std::to_string(flag));
      const int64_t BLOCK = 64;
      auto x = rng.floats(n, -1.0f, 1.0f);
      auto out = dev().zeros(DType::fp32, {3});
      kernel(kFile, "aggregate_loop")
          .launch(dev(), {1}, {dev().upload(x, {n}), out, n, int64_t(flag)}, {{"BLOCK", BLOCK}});
      // The sum runs lane by lane over the tiles, then across lanes: a
      // float64 reference within fp32 rounding.
      double sum = 0;
      for (float v : x) sum += v + (flag ? 1.0 : 0.0);
      auto got = out.download<float>();
      EXPECT_NEAR(got[0], sum / double(n) * 2, 1e-5 * (1 + std::abs(sum)));
      EXPECT_EQ(got[1], float(n));
      EXPECT_EQ(got[2], float(2 + BLOCK));
    }
  }
}

TEST(Aggregates, NamedTuples) {
  E2E_RNG(rng);
  const int64_t n = 517, BLOCK = 64;
  auto x = rng.ints<int32_t>(n, -50, 50);
  for (int32_t flag : {-1, 3}) {
    SCOPED_TRACE("flag=" + std::to_string(flag));
    auto out = dev().zeros(DType::i32, {n});
    kernel(kFile, "namedtuple_values")
        .launch(dev(), {cdiv(n, BLOCK)}, {dev().upload(x, {n}), out, n, int64_t(flag)}, {{"BLOCK", BLOCK}});
    std::vector<int32_t> want(n);
    for (int64_t i = 0; i < n; ++i) {
      int32_t lo = x[i] - 5, hi = 3 * x[i] + 5;
      if (flag > 0) lo *= 2;
      else hi *= 2;
      want[i] = (x[i] + 3 * x[i]) * 100000 + lo * 1000 + hi + 4 * 2 + 3;
    }
    EXPECT_EQ(out.download<int32_t>(), want);
  }
}

TEST(Aggregates, TupleAndNamedTupleKernelArguments) {
  E2E_RNG(rng);
  const int64_t n = 777, BLOCK = 128;
  auto x = rng.ints<int32_t>(n, -1000, 1000), y = rng.ints<int32_t>(n, -1000, 1000),
       z = rng.ints<int32_t>(n, -1000, 1000);
  for (int64_t scale : {int64_t(1), int64_t(-3)}) {  // 1: a constexpr inside the tuple
    SCOPED_TRACE("scale=" + std::to_string(scale));
    auto out = dev().zeros(DType::i32, {n});
    auto ptrs = tessera::Arg::tuple({dev().upload(x, {n}), tessera::Arg::tuple({dev().upload(y, {n}), dev().upload(z, {n})})});
    auto sizes = tessera::Arg::tuple({n, scale}, {"n", "scale"}, "Sizes");
    kernel(kFile, "tuple_arguments").launch(dev(), {cdiv(n, BLOCK)}, {ptrs, sizes, out}, {{"BLOCK", BLOCK}});
    std::vector<int32_t> want(n);
    for (int64_t i = 0; i < n; ++i) want[i] = int32_t(x[i] * scale + y[i] - z[i] * scale);
    EXPECT_EQ(out.download<int32_t>(), want);
  }
  {
    const int64_t M = 45, N = 92, BM = 16, BN = 32;  // rows of 16-byte multiples (TMA)
    auto a = rng.floats(M * N, -1, 1), b = rng.floats(M * N, -1, 1);
    auto out = dev().zeros(DType::fp32, {M, N});
    auto descs = tessera::Arg::tuple({tessera::TensorDescriptor::from_tensor(dev().upload(a, {M, N}), {BM, BN}),
                                      tessera::TensorDescriptor::from_tensor(dev().upload(b, {M, N}), {BM, BN})});
    kernel(kFile, "tuple_descriptor_arguments")
        .launch(dev(), {cdiv(M, BM), cdiv(N, BN)}, {descs, out, M, N}, {{"BLOCK_M", BM}, {"BLOCK_N", BN}});
    std::vector<float> want(M * N);
    for (int64_t i = 0; i < M * N; ++i) want[i] = a[i] * 2 + b[i];
    EXPECT_EQ(out.download<float>(), want);
  }
}

}  // namespace
