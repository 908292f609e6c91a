//===- Harness.h - Helpers for the end-to-end kernel tests -----*- C++ -*-===//
//
// The e2e tests load Triton-language files from TESSERA_KERNEL_DIR, launch
// their kernels through the public API and compare the results with plain
// C++ reference implementations. They run on the CPU interpreter, or on a
// GPU with TESSERA_TEST_DEVICE=cuda (tests/gpu/run): the same tests, since
// every upload and download goes through the public API. This header gives
// them: the device under test, cached programs, a seeded random source
// (the seed is printed with every failure), host conversions between float
// and fp16/bf16/fp8 bit patterns, and tolerant comparisons.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "tessera/tessera.h"

namespace e2e {

/// The device shared by all tests: the interpreter, or the GPU named by
/// TESSERA_TEST_DEVICE ("cuda" or "cuda:N"; "interpreter" or unset: the
/// interpreter). Throws tessera::Error when the GPU asked for is unusable.
tessera::Device& dev();

/// True when the tests run on a GPU. Tests of interpreter-only behaviour
/// (its refusals, its checks) skip there with
/// `if (onGpu()) GTEST_SKIP() << "why";`.
bool onGpu();

/// Full path of a file in the kernel directory.
std::string kernelPath(const std::string& file);

/// The kernel `name` of kernel file `file` (the Program is parsed once and
/// cached).
tessera::Kernel kernel(const std::string& file, const std::string& name);

/// A grid computed from the meta-parameters.
inline tessera::Grid gridFn(std::function<std::vector<int64_t>(const tessera::Meta&)> fn) {
  return tessera::Grid(std::move(fn));
}

/// An integer meta-parameter of a grid callable.
int64_t metaInt(const tessera::Meta& meta, const std::string& name);

inline int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Random inputs seeded from std::random_device. Declare it with E2E_RNG so
/// the seed appears in every failure message of the test.
class Rng {
 public:
  Rng();
  uint32_t seed() const { return seed_; }
  std::mt19937_64& engine() { return engine_; }
  float uniform(float lo, float hi);
  int64_t integer(int64_t lo, int64_t hi);  ///< inclusive bounds
  std::vector<float> floats(size_t n, float lo, float hi);
  std::vector<double> doubles(size_t n, double lo, double hi);
  /// Floats whose magnitudes spread over [2^minExp, 2^maxExp), random signs.
  std::vector<float> wideFloats(size_t n, int minExp, int maxExp);
  template <class T> std::vector<T> ints(size_t n, int64_t lo, int64_t hi) {
    std::vector<T> out(n);
    for (auto& v : out) v = static_cast<T>(integer(lo, hi));
    return out;
  }

 private:
  uint32_t seed_;
  std::mt19937_64 engine_;
};

#define E2E_RNG(rng) \
  ::e2e::Rng rng;    \
  SCOPED_TRACE("random seed " + std::to_string(rng.seed()))

// Host conversions between float and the narrow float formats. All narrow
// results are bit patterns; rounding is to nearest-even unless `rtz`.
uint16_t floatToHalf(float f, bool rtz = false);
float halfToFloat(uint16_t h);
uint16_t floatToBf16(float f, bool rtz = false);
float bf16ToFloat(uint16_t b);
/// fp8 e4m3 "fn" (bias 7, no infinities, 0x7f/0xff are NaN, max 448).
uint8_t floatToFp8e4nv(float f);
float fp8e4nvToFloat(uint8_t b);
/// fp8 e5m2 (bias 15, IEEE-like with infinities, max 57344).
uint8_t floatToFp8e5(float f);
float fp8e5ToFloat(uint8_t b);

/// Rounds through a narrow format and back (what a store + load does).
inline float roundHalf(float f) { return halfToFloat(floatToHalf(f)); }
inline float roundBf16(float f) { return bf16ToFloat(floatToBf16(f)); }

uint32_t floatBits(float f);
float bitsFloat(uint32_t u);

/// Uploads floats converted to a narrow float dtype (fp16, bf16, fp8e4nv,
/// fp8e5).
tessera::Tensor uploadAs(tessera::DType dtype, const std::vector<float>& values, std::vector<int64_t> shape);
/// Downloads a float tensor of any float dtype as floats.
std::vector<float> downloadFloats(const tessera::Tensor& t);

/// Expects |got - want| <= atol + rtol * |want| elementwise; NaN must match
/// NaN. Reports the first few mismatches with their index.
void expectClose(const std::vector<float>& got, const std::vector<float>& want, double rtol, double atol,
                 const std::string& what = "");
void expectClose(const std::vector<double>& got, const std::vector<double>& want, double rtol, double atol,
                 const std::string& what = "");

/// Expects |got[i] - want[i]| <= tol[i] (an absolute tolerance per element,
/// for error bounds that depend on the input); NaN must match NaN.
void expectWithin(const std::vector<float>& got, const std::vector<float>& want, const std::vector<double>& tol,
                  const std::string& what = "");

/// The error a Box-Muller normal sqrt(-2 log u1) * cos/sin(2 pi u2) (tl.randn,
/// tl.pair_uniform_to_normal; u1 already clamped to 1e-7) may carry beyond
/// ordinary rounding from the approximate log: 0 on the interpreter; on the
/// GPU, where tl.log is lg2.approx.f32 (PTX ISA: absolute error 2^-22 on
/// (0.5, 2), relative 2^-22 elsewhere), the radius's error, up to sqrt(2 ln2
/// 2^-22) ~ 5.7e-4 for u1 near 1, where the exact radius tends to 0.
double boxMullerLogSlack(float u1);

/// Softmax of each row of a rows x cols row-major matrix, in double.
std::vector<float> rowSoftmaxReference(const std::vector<float>& x, int64_t rows, int64_t cols);

/// Exact comparison (integers, bit patterns), reporting the first mismatches.
template <class T>
void expectEqual(const std::vector<T>& got, const std::vector<T>& want, const std::string& what = "") {
  ASSERT_EQ(got.size(), want.size()) << what;
  int shown = 0;
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] == want[i]) continue;
    ++bad;
    if (shown++ < 8)
      ADD_FAILURE() << what << " [" << i << "]: got " << +got[i] << ", want " << +want[i];
  }
  EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << got.size() << " elements differ";
}

/// Float comparison on bit patterns (for conversions that must be exact).
void expectSameBits(const std::vector<float>& got, const std::vector<float>& want, const std::string& what = "");

/// The text a callable writes to stdout (the device is synchronized before
/// the capture ends: a GPU's device_print output arrives then).
std::string captureStdout(const std::function<void()>& fn);

/// Calls `fn`, expects a tessera::Error and returns its what() ("" and a
/// failure when nothing, or something else, was thrown).
std::string errorOf(const std::function<void()>& fn);

/// Checks that `launch` (a launch that fails a tl.device_assert in debug
/// mode) fails and that what it reports contains every one of `expected`.
/// On the interpreter: the tessera::Error's message. On a GPU the failing
/// assert prints CUDA's "file:line: func: ... Assertion `msg` failed." and
/// traps, which leaves the process's CUDA context unusable, so the launch
/// runs in a child process (a gtest death test, threadsafe style: the test
/// binary re-executed) whose stdout and the error both go to stderr, where
/// each expected text is looked for.
void expectDeviceAssertFailure(const std::function<void()>& launch, const std::vector<std::string>& expected);

/// The same for a launch that fails differently on the two: every one of
/// `onInterpreter` in the interpreter's error, every one of `onGpu` in what
/// the GPU child process reports (its fault and the runtime's notes).
void expectLaunchFailure(const std::function<void()>& launch, const std::vector<std::string>& onInterpreter,
                         const std::vector<std::string>& onGpu);

}  // namespace e2e
