//===- PythonSemanticsTest.cpp - Python semantics real kernels rely on ----===//
//
// kernels/python_semantics.py: a tensor descriptor live (and reassigned)
// across a runtime `if`; a helper that branches on
// isinstance(src, tl.tensor_descriptor); a number bound to a local used as
// Triton's scalar tensor (`.to`, `[None]`); None and ':' indexing of scalars.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cmath>

#include "e2e/Harness.h"

using namespace e2e;
using tessera::DType;

namespace {

const char* kFile = "python_semantics.py";

TEST(PythonSemantics, DescriptorsAcrossARuntimeIf) {
  E2E_RNG(rng);
  const int64_t M = 45, N = 70, BM = 16, BN = 32;
  auto x = rng.floats(M * N, -1, 1), y = rng.floats(M * N, -1, 1);
  for (int64_t useY : {int64_t(0), int64_t(1)}) {
    SCOPED_TRACE("use_y=" + std::to_string(useY));
    auto out = dev().zeros(DType::fp32, {M, N});
    kernel(kFile, "descriptor_across_runtime_if")
        .launch(dev(), {cdiv(M, BM), cdiv(N, BN)},
                {dev().upload(x, {M, N}), dev().upload(y, {M, N}), out, M, N, useY}, {{"BM", BM}, {"BN", BN}});
    const std::vector<float>& src = useY ? y : x;
    std::vector<float> want(M * N);
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) want[i * N + j] = (i / BM) % 2 == 0 ? src[i * N + j] * 2.0f : src[i * N + j] + 1.0f;
    expectSameBits(out.download<float>(), want, "tile * 2 or tile + 1 by program parity");
  }
}

TEST(PythonSemantics, IsinstanceOfTensorDescriptor) {
  E2E_RNG(rng);
  const int64_t M = 33, N = 50, BM = 16, BN = 16;
  auto x = rng.floats(M * N, -1, 1), y = rng.floats(M * N, -1, 1);
  auto out = dev().zeros(DType::fp32, {M, N});
  kernel(kFile, "pointer_or_descriptor")
      .launch(dev(), {cdiv(M, BM), cdiv(N, BN)}, {dev().upload(x, {M, N}), dev().upload(y, {M, N}), out, M, N},
              {{"BM", BM}, {"BN", BN}});
  std::vector<float> want(M * N);
  for (int64_t i = 0; i < M * N; ++i) want[i] = x[i] - y[i];
  expectSameBits(out.download<float>(), want, "x - y, one through a pointer, one through a descriptor");
}

TEST(PythonSemantics, NumberLocalsAreScalarTensors) {
  E2E_RNG(rng);
  const int64_t n = 1000, programs = 3;
  auto x = rng.floats(n, -1e6f, -1.0f);
  auto out = dev().zeros(DType::fp32, {programs});
  kernel(kFile, "number_locals_as_tensors").launch(dev(), {programs}, {dev().upload(x, {n}), out, n}, {{"BLOCK", int64_t(128)}});
  float best = *std::max_element(x.begin(), x.end());
  expectSameBits(out.download<float>(), std::vector<float>(programs, best), "max with a -inf start");
}

}  // namespace
