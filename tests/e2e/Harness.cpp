//===- Harness.cpp - Helpers for the end-to-end kernel tests --------------===//
//
// Implements Harness.h: the device under test (TESSERA_TEST_DEVICE, printed
// once at start-up), the cached programs, the seeded random source, the
// narrow-float conversions (one generic encoder/decoder parameterized by the
// exponent and mantissa widths) and the comparisons.
//
//===----------------------------------------------------------------------===//

#include "e2e/Harness.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

namespace e2e {

namespace {

/// TESSERA_TEST_DEVICE: "" / "interpreter" / "cuda" / "cuda:N".
tessera::Device selectDevice() {
  const char* env = std::getenv("TESSERA_TEST_DEVICE");
  std::string name = env ? env : "";
  if (name.empty() || name == "interpreter") return tessera::Device::interpreter();
  if (name == "cuda" || name.rfind("cuda:", 0) == 0) {
    int ordinal = 0;
    if (name.size() > 5) {
      char* end = nullptr;
      ordinal = static_cast<int>(std::strtol(name.c_str() + 5, &end, 10));
      if (*end != '\0' || ordinal < 0) throw tessera::Error("TESSERA_TEST_DEVICE='" + name + "': bad CUDA ordinal");
    }
    try {
      return tessera::Device::cuda(ordinal);
    } catch (const tessera::Error& e) {
      throw tessera::Error("TESSERA_TEST_DEVICE='" + name + "', but that GPU is unusable: " + e.what());
    }
  }
  throw tessera::Error("TESSERA_TEST_DEVICE='" + name + "': expected interpreter, cuda or cuda:N");
}

/// Opens the device before the first test and names it, so a run on the
/// wrong device (or an unusable GPU: every test would fail alike) is plain.
class DeviceEnvironment : public testing::Environment {
 public:
  void SetUp() override {
    try {
      tessera::Device& d = dev();
      std::string arch = d.arch();
      std::cout << "[e2e] device: " << d.name() << (arch.empty() ? "" : " (" + arch + ")") << std::endl;
      testing::Test::RecordProperty("device", d.name() + (arch.empty() ? "" : " " + arch));
    } catch (const tessera::Error& e) {
      GTEST_FAIL() << e.what();
    }
  }
};

[[maybe_unused]] testing::Environment* const deviceEnvironment =
    testing::AddGlobalTestEnvironment(new DeviceEnvironment);

}  // namespace

tessera::Device& dev() {
  static tessera::Device device = selectDevice();
  return device;
}

bool onGpu() { return !dev().is_interpreter(); }

std::string kernelPath(const std::string& file) { return std::string(TESSERA_KERNEL_DIR) + "/" + file; }

tessera::Kernel kernel(const std::string& file, const std::string& name) {
  static std::map<std::string, tessera::Program> programs;
  auto it = programs.find(file);
  if (it == programs.end()) it = programs.emplace(file, tessera::Program::from_file(kernelPath(file))).first;
  return it->second.kernel(name);
}

int64_t metaInt(const tessera::Meta& meta, const std::string& name) {
  auto it = meta.find(name);
  if (it == meta.end()) {
    ADD_FAILURE() << "grid callable: no meta-parameter '" << name << "'";
    return 1;
  }
  if (auto* i = std::get_if<int64_t>(&it->second)) return *i;
  if (auto* b = std::get_if<bool>(&it->second)) return *b;
  ADD_FAILURE() << "grid callable: meta-parameter '" << name << "' is not an integer";
  return 1;
}

//===----------------------------------------------------------------------===//
// Random inputs
//===----------------------------------------------------------------------===//

Rng::Rng() {
  if (const char* fixed = std::getenv("E2E_SEED"))
    seed_ = static_cast<uint32_t>(std::strtoul(fixed, nullptr, 10));
  else
    seed_ = std::random_device{}();
  engine_.seed(seed_);
}

float Rng::uniform(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(engine_); }

int64_t Rng::integer(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(engine_); }

std::vector<float> Rng::floats(size_t n, float lo, float hi) {
  std::vector<float> out(n);
  for (auto& v : out) v = uniform(lo, hi);
  return out;
}

std::vector<double> Rng::doubles(size_t n, double lo, double hi) {
  std::vector<double> out(n);
  for (auto& v : out) v = std::uniform_real_distribution<double>(lo, hi)(engine_);
  return out;
}

std::vector<float> Rng::wideFloats(size_t n, int minExp, int maxExp) {
  std::vector<float> out(n);
  for (auto& v : out) {
    float mag = std::ldexp(uniform(1.0f, 2.0f), static_cast<int>(integer(minExp, maxExp - 1)));
    v = integer(0, 1) ? -mag : mag;
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Narrow floats
//===----------------------------------------------------------------------===//

namespace {

struct Format {
  int expBits, mantBits, bias;
  bool ieeeSpecials;  ///< all-ones exponent = inf/NaN (false: e4m3fn, only S.1111.111 is NaN)
};

constexpr Format kHalf{5, 10, 15, true};
constexpr Format kBf16{8, 7, 127, true};
constexpr Format kE4nv{4, 3, 7, false};
constexpr Format kE5{5, 2, 15, true};

uint32_t nanBits(const Format& f) {
  if (!f.ieeeSpecials) return (1u << (f.expBits + f.mantBits)) - 1;  // 0x7f
  return (((1u << f.expBits) - 1) << f.mantBits) | (1u << (f.mantBits - 1));
}

uint32_t maxFiniteBits(const Format& f) {
  if (!f.ieeeSpecials) return (1u << (f.expBits + f.mantBits)) - 2;  // 0x7e
  return (((1u << f.expBits) - 2) << f.mantBits) | ((1u << f.mantBits) - 1);
}

uint32_t encode(float value, const Format& f, bool rtz) {
  uint32_t sign = std::signbit(value) ? 1u << (f.expBits + f.mantBits) : 0;
  if (std::isnan(value)) return sign | nanBits(f);
  double a = std::fabs(static_cast<double>(value));
  uint32_t infBits = f.ieeeSpecials ? ((1u << f.expBits) - 1) << f.mantBits : nanBits(f);
  if (std::isinf(a)) return sign | infBits;
  if (a == 0) return sign;
  auto roundInt = [rtz](double x) { return rtz ? std::trunc(x) : std::nearbyint(x); };
  int emin = 1 - f.bias;
  uint64_t bits;
  if (a < std::ldexp(1.0, emin)) {
    // Subnormal range: count quanta of 2^(emin - mantBits); rounding up to
    // 2^mantBits lands exactly on the smallest normal encoding.
    bits = static_cast<uint64_t>(roundInt(std::ldexp(a, f.mantBits - emin)));
  } else {
    int ex;
    std::frexp(a, &ex);
    int e = ex - 1;
    uint64_t k = static_cast<uint64_t>(roundInt(std::ldexp(a, f.mantBits - e)));
    if (k == (uint64_t{2} << f.mantBits)) {
      k >>= 1;
      ++e;
    }
    int field = e + f.bias;
    bits = (static_cast<uint64_t>(field) << f.mantBits) | (k - (uint64_t{1} << f.mantBits));
    if (bits > maxFiniteBits(f)) return sign | (rtz ? maxFiniteBits(f) : infBits);
  }
  return sign | static_cast<uint32_t>(bits);
}

float decode(uint32_t bits, const Format& f) {
  uint32_t mant = bits & ((1u << f.mantBits) - 1);
  uint32_t field = (bits >> f.mantBits) & ((1u << f.expBits) - 1);
  bool negative = (bits >> (f.expBits + f.mantBits)) & 1;
  double v;
  if (f.ieeeSpecials && field == (1u << f.expBits) - 1) {
    v = mant ? std::nan("") : INFINITY;
  } else if (!f.ieeeSpecials && (bits & nanBits(f)) == nanBits(f)) {
    v = std::nan("");
  } else if (field == 0) {
    v = std::ldexp(static_cast<double>(mant), 1 - f.bias - f.mantBits);
  } else {
    v = std::ldexp(1.0 + std::ldexp(static_cast<double>(mant), -f.mantBits), static_cast<int>(field) - f.bias);
  }
  return static_cast<float>(negative ? -v : v);
}

}  // namespace

uint16_t floatToHalf(float f, bool rtz) { return static_cast<uint16_t>(encode(f, kHalf, rtz)); }
float halfToFloat(uint16_t h) { return decode(h, kHalf); }
uint16_t floatToBf16(float f, bool rtz) { return static_cast<uint16_t>(encode(f, kBf16, rtz)); }
float bf16ToFloat(uint16_t b) { return decode(b, kBf16); }
uint8_t floatToFp8e4nv(float f) { return static_cast<uint8_t>(encode(f, kE4nv, false)); }
float fp8e4nvToFloat(uint8_t b) { return decode(b, kE4nv); }
uint8_t floatToFp8e5(float f) { return static_cast<uint8_t>(encode(f, kE5, false)); }
float fp8e5ToFloat(uint8_t b) { return decode(b, kE5); }

uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

float bitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

tessera::Tensor uploadAs(tessera::DType dtype, const std::vector<float>& values, std::vector<int64_t> shape) {
  using tessera::DType;
  if (dtype == DType::fp32) return dev().upload(values, std::move(shape));
  if (dtype == DType::fp16 || dtype == DType::bf16) {
    std::vector<uint16_t> bits(values.size());
    for (size_t i = 0; i < values.size(); ++i)
      bits[i] = dtype == DType::fp16 ? floatToHalf(values[i]) : floatToBf16(values[i]);
    return dev().upload(bits.data(), dtype, std::move(shape));
  }
  if (dtype == DType::fp8e4nv || dtype == DType::fp8e5) {
    std::vector<uint8_t> bits(values.size());
    for (size_t i = 0; i < values.size(); ++i)
      bits[i] = dtype == DType::fp8e4nv ? floatToFp8e4nv(values[i]) : floatToFp8e5(values[i]);
    return dev().upload(bits.data(), dtype, std::move(shape));
  }
  ADD_FAILURE() << "uploadAs: not a float dtype";
  return {};
}

std::vector<float> downloadFloats(const tessera::Tensor& t) {
  using tessera::DType;
  std::vector<float> out;
  switch (t.dtype()) {
    case DType::fp32: return t.download<float>();
    case DType::fp64:
      for (double d : t.download<double>()) out.push_back(static_cast<float>(d));
      return out;
    case DType::fp16:
      for (uint16_t h : t.download<uint16_t>()) out.push_back(halfToFloat(h));
      return out;
    case DType::bf16:
      for (uint16_t h : t.download<uint16_t>()) out.push_back(bf16ToFloat(h));
      return out;
    case DType::fp8e4nv:
      for (uint8_t b : t.download<uint8_t>()) out.push_back(fp8e4nvToFloat(b));
      return out;
    case DType::fp8e5:
      for (uint8_t b : t.download<uint8_t>()) out.push_back(fp8e5ToFloat(b));
      return out;
    default: ADD_FAILURE() << "downloadFloats: not a float tensor"; return out;
  }
}

//===----------------------------------------------------------------------===//
// Comparisons
//===----------------------------------------------------------------------===//

/// Expects |got[i] - want[i]| <= tol(i, want[i]); NaN must match NaN and an
/// infinity must be equal.
template <class T, class Tol>
static void expectWithinImpl(const std::vector<T>& got, const std::vector<T>& want, const Tol& tol,
                             const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  size_t bad = 0;
  int shown = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    double g = got[i], w = want[i], t = tol(i, w);
    bool ok;
    if (std::isnan(w) || std::isnan(g)) ok = std::isnan(w) && std::isnan(g);
    else if (std::isinf(w) || std::isinf(g)) ok = g == w;
    else ok = std::fabs(g - w) <= t;
    if (ok) continue;
    ++bad;
    if (shown++ < 8)
      ADD_FAILURE() << what << " [" << i << "]: got " << std::setprecision(17) << g << ", want " << w
                    << " (tolerance " << std::setprecision(3) << t << ")";
  }
  EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << got.size() << " elements differ";
}

void expectClose(const std::vector<float>& got, const std::vector<float>& want, double rtol, double atol,
                 const std::string& what) {
  expectWithinImpl(got, want, [&](size_t, double w) { return atol + rtol * std::fabs(w); }, what);
}

void expectClose(const std::vector<double>& got, const std::vector<double>& want, double rtol, double atol,
                 const std::string& what) {
  expectWithinImpl(got, want, [&](size_t, double w) { return atol + rtol * std::fabs(w); }, what);
}

void expectWithin(const std::vector<float>& got, const std::vector<float>& want, const std::vector<double>& tol,
                  const std::string& what) {
  ASSERT_EQ(tol.size(), want.size()) << what;
  expectWithinImpl(got, want, [&](size_t i, double) { return tol[i]; }, what);
}

double boxMullerLogSlack(float u1) {
  if (!onGpu()) return 0;
  // r^2 = -2 ln2 log2(u1); an error d of log2(u1) moves r^2 by up to
  // c = 2 ln2 d either way (and r^2 is never negative).
  double l = std::log2(static_cast<double>(u1));
  double d = u1 > 0.5f && u1 < 2.0f ? std::exp2(-22) : std::exp2(-22) * std::fabs(l);
  double r2 = std::max(-2 * M_LN2 * l, 0.0), c = 2 * M_LN2 * d, r = std::sqrt(r2);
  return std::max(r - std::sqrt(std::max(r2 - c, 0.0)), std::sqrt(r2 + c) - r);
}

void expectSameBits(const std::vector<float>& got, const std::vector<float>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  size_t bad = 0;
  int shown = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (floatBits(got[i]) == floatBits(want[i]) || (std::isnan(got[i]) && std::isnan(want[i]))) continue;
    ++bad;
    if (shown++ < 8)
      ADD_FAILURE() << what << " [" << i << "]: got " << got[i] << " (0x" << std::hex << floatBits(got[i])
                    << "), want " << want[i] << " (0x" << floatBits(want[i]) << std::dec << ")";
  }
  EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << got.size() << " elements differ";
}

std::vector<float> rowSoftmaxReference(const std::vector<float>& x, int64_t rows, int64_t cols) {
  std::vector<float> want(rows * cols);
  for (int64_t r = 0; r < rows; ++r) {
    double mx = -INFINITY, sum = 0;
    for (int64_t c = 0; c < cols; ++c) mx = std::max(mx, double(x[r * cols + c]));
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(double(x[r * cols + c]) - mx);
    for (int64_t c = 0; c < cols; ++c) want[r * cols + c] = float(std::exp(double(x[r * cols + c]) - mx) / sum);
  }
  return want;
}

std::string captureStdout(const std::function<void()>& fn) {
  std::cout.flush();
  std::fflush(stdout);
  testing::internal::CaptureStdout();
  try {
    fn();
    dev().synchronize();
  } catch (...) {
    std::cout.flush();
    std::fflush(stdout);
    testing::internal::GetCapturedStdout();
    throw;
  }
  std::cout.flush();
  std::fflush(stdout);
  return testing::internal::GetCapturedStdout();
}

std::string errorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const tessera::Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected tessera::Error, got another exception: " << e.what();
    return "";
  }
  ADD_FAILURE() << "expected tessera::Error, nothing was thrown";
  return "";
}

namespace {

/// The death-test body: exits 3 when the launch failed (the error printed to
/// stderr), 0 when it did not.
[[noreturn]] void launchInChild(const std::function<void()>& launch) {
  std::fflush(stdout);
  dup2(STDERR_FILENO, STDOUT_FILENO);  // the device's assertion line, too
  try {
    launch();
    dev().synchronize();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    std::fflush(stderr);
    std::_Exit(3);
  }
  std::fflush(nullptr);
  std::_Exit(0);
}

/// `text` as a POSIX extended regular expression matching itself.
std::string literalRegex(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (std::string("\\^$.|?*+()[]{}").find(c) != std::string::npos) out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

void expectDeviceAssertFailure(const std::function<void()>& launch, const std::vector<std::string>& expected) {
  expectLaunchFailure(launch, expected, expected);
}

void expectLaunchFailure(const std::function<void()>& launch, const std::vector<std::string>& onInterpreter,
                         const std::vector<std::string>& onGpu) {
  if (!e2e::onGpu()) {
    std::string msg = errorOf(launch);
    for (const std::string& text : onInterpreter) EXPECT_NE(msg.find(text), std::string::npos) << msg;
    return;
  }
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  for (const std::string& text : onGpu)
    EXPECT_EXIT(launchInChild(launch), testing::ExitedWithCode(3), literalRegex(text));
}

}  // namespace e2e
