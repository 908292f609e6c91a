//===- bench_matmul.cpp - kernels/matmul.py under Tessera, timed ----------===//
//
// Times C = A @ B with matmul_kernel of kernels/matmul.py (a Triton-language
// kernel with @triton.autotune), compiled, tuned and launched by Tessera
// from C++; bench_matmul.py times the same source under Triton 3.6 and
// torch.matmul (cuBLAS) on the same rows. The rows: fp16 and bf16, square
// M = N = K in {1024, 2048, 4096, 8192}, and fp8 e4m3 ("fp8e4nv") at 4096
// and 8192 with matmul_kernel_fp8 (kDTypes, kSizes, kFp8Sizes; keep
// bench_matmul.py's the same). fp16 and bf16 rows come in three forms: the
// pointer tiles of matmul_kernel ("form": "pointer"), the tensor
// descriptors of matmul_kernel_descriptor ("descriptor") and the block
// pointers of matmul_kernel_block_ptr ("block_ptr"); Tessera copies the
// last two with TMA on sm_90a.
//
// Each row makes A (M x K) and B (K x N), uniform in [-1, 1] rounded to the
// dtype, A row-major, B row-major too except for fp8, where it is stored
// K-contiguous (strides (1, K): wgmma reads fp8 only K-major, and
// torch._scaled_mm wants it so), and C (fp16 for fp8 rows, else the dtype)
// filled with NaN; launches once over the grid
// cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N) of the config the autotuner chose (a
// grid callable of the meta-parameters; this first launch is the tuning
// sweep, timed on the host up to a synchronize as "tune_ms"); checks 256
// sampled elements of C against float64 dot products of the rounded inputs
// (relative error ||got - ref|| / ||ref|| over the samples at most 1e-2),
// and only then times the launch with tessera::testing::do_bench (25 ms
// warm-up, 100 ms of runs, L2 flushed before each, median). One JSON line
// per row on stdout (or appended to --json FILE):
//   {"kind": "matmul", "provider": "tessera", "dtype": "fp16", "form": "pointer", "M": ..., "N": ..., "K": ...,
//    "ms": ..., "tflops": 2*M*N*K / ms / 1e9, "config": "BLOCK_M: 128, ...", "tune_ms": ...,
//    "rel_err": ...}
// A row that fails prints {..., "error": "..."} instead and a FAIL line on
// stderr; the exit status is then 1 (2 for bad options or no GPU).
//
//   bench_matmul [--only fp16,bf16,fp8e4nv] [--forms pointer,descriptor,block_ptr] [--sizes 1024,2048x2048x64]
//                [--json FILE] [--kernel-file PATH] [--warmup MS] [--rep MS]
//                [--fresh-cache] [--interpreter]
//
// --sizes takes any sizes (odd ones test the masked edges), square (N) or
// MxNxK. --fresh-cache
// points TESSERA_CACHE_DIR at a new empty directory (removed at exit), so
// that tune_ms includes compiling every config: otherwise a second run
// finds the chosen config in the disk cache and sweeps nothing.
// --interpreter checks on the CPU interpreter (no GPU, no timing; it runs
// the first config): the quick test of this program, with small --sizes.
// TESSERA_PRINT_AUTOTUNING=1 prints each config's time during the sweeps.
//
// Build: ninja -C BUILD bench_matmul (bench/CMakeLists.txt). Run from
// anywhere: the kernel file defaults to this checkout's kernels/matmul.py.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "BenchCommon.h"
#include "ir/FloatFormats.h"
#include "tessera/tessera.h"
#include "tessera/testing.h"

#ifndef TESSERA_KERNELS_DIR
#error "TESSERA_KERNELS_DIR (the checkout's kernels/ directory) must be defined; see bench/CMakeLists.txt"
#endif

namespace {

using namespace bench;
using tessera::Device;
using tessera::DType;
using tessera::Tensor;
namespace floats = tessera::ir::floats;
using Clock = std::chrono::steady_clock;

struct Row {
  DType dtype;
  int64_t M, N, K;
  std::string form = "pointer";  ///< "descriptor", "block_ptr": fp16 and bf16 only
  bool fp8() const { return dtype == DType::fp8e4nv; }
  DType out() const { return fp8() ? DType::fp16 : dtype; }
  std::string kernel() const { return fp8() ? "matmul_kernel_fp8" : form == "pointer" ? "matmul_kernel" : "matmul_kernel_" + form; }
};

const DType kDTypes[] = {DType::fp16, DType::bf16, DType::fp8e4nv};
const int64_t kSizes[] = {1024, 2048, 4096, 8192};
const int64_t kFp8Sizes[] = {4096, 8192};
constexpr int kSamples = 256;
constexpr double kMaxRelErr = 1e-2;

struct Options {
  std::string kernelFile = TESSERA_KERNELS_DIR "/matmul.py";
  std::string jsonPath;  ///< empty: stdout
  std::vector<std::string> only;
  std::vector<std::string> forms = {"pointer", "descriptor", "block_ptr"};
  std::vector<std::array<int64_t, 3>> shapes;  ///< --sizes: M, N, K of each
  int warmupMs = 25;
  int repMs = 100;
  bool freshCache = false;
  bool interpreter = false;
};

const char* kUsage =
    "usage: bench_matmul [--only fp16,bf16,fp8e4nv] [--forms pointer,descriptor,block_ptr] [--sizes 1024,2048x2048x64]\n"
    "                    [--json FILE] [--kernel-file PATH] [--warmup MS] [--rep MS] [--fresh-cache]\n"
    "                    [--interpreter]\n";

/// Options; std::nullopt after printing the usage (bad options).
std::optional<Options> parseOptions(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    bool hasValue = i + 1 < argc;
    if (a == "--only" && hasValue) {
      o.only = splitCommas(argv[++i]);
    } else if (a == "--forms" && hasValue) {
      o.forms = splitCommas(argv[++i]);
      for (const std::string& f : o.forms)
        if (f != "pointer" && f != "descriptor" && f != "block_ptr") {
          std::fprintf(stderr, "bench_matmul: --forms takes pointer, descriptor and block_ptr, not '%s'\n", f.c_str());
          return std::nullopt;
        }
    } else if (a == "--sizes" && hasValue) {
      for (const std::string& s : splitCommas(argv[++i])) {
        // N (square) or MxNxK.
        std::vector<int64_t> dims;
        const char* at = s.c_str();
        for (;;) {
          char* end = nullptr;
          long long v = std::strtoll(at, &end, 10);
          if (end == at || v <= 0) break;
          dims.push_back(v);
          at = end;
          if (*at != 'x') break;
          ++at;
        }
        if (*at || (dims.size() != 1 && dims.size() != 3)) {
          std::fprintf(stderr, "bench_matmul: --sizes expects positive integers or MxNxK, got '%s'\n", s.c_str());
          return std::nullopt;
        }
        if (dims.size() == 1) dims = {dims[0], dims[0], dims[0]};
        o.shapes.push_back({dims[0], dims[1], dims[2]});
      }
    } else if (a == "--json" && hasValue) {
      o.jsonPath = argv[++i];
    } else if (a == "--kernel-file" && hasValue) {
      o.kernelFile = argv[++i];
    } else if (a == "--warmup" && hasValue) {
      o.warmupMs = std::atoi(argv[++i]);
    } else if (a == "--rep" && hasValue) {
      o.repMs = std::atoi(argv[++i]);
    } else if (a == "--fresh-cache") {
      o.freshCache = true;
    } else if (a == "--interpreter") {
      o.interpreter = true;
    } else {
      std::fprintf(stderr, "%s", kUsage);
      return std::nullopt;
    }
  }
  for (const std::string& d : o.only)
    if (d != "fp16" && d != "bf16" && d != "fp8e4nv") {
      std::fprintf(stderr, "bench_matmul: --only takes fp16, bf16 and fp8e4nv, not '%s'\n", d.c_str());
      return std::nullopt;
    }
  return o;
}

/// The rows: the forms x kDTypes x kSizes (kFp8Sizes for fp8; fp8 in the
/// pointer form only), filtered by --only and --forms; --sizes replaces
/// both size lists.
std::vector<Row> selectRows(const Options& o) {
  auto has = [](const std::vector<std::string>& list, const std::string& x) {
    return std::find(list.begin(), list.end(), x) != list.end();
  };
  std::vector<Row> rows;
  for (const char* form : {"pointer", "descriptor", "block_ptr"}) {
    if (!has(o.forms, form)) continue;
    for (DType dt : kDTypes) {
      if ((!o.only.empty() && !has(o.only, tessera::dtype_name(dt))) ||
          (dt == DType::fp8e4nv && std::string(form) != "pointer"))
        continue;
      std::vector<std::array<int64_t, 3>> shapes = o.shapes;
      if (shapes.empty())
        for (int64_t s : dt == DType::fp8e4nv ? std::vector<int64_t>(std::begin(kFp8Sizes), std::end(kFp8Sizes))
                                              : std::vector<int64_t>(std::begin(kSizes), std::end(kSizes)))
          shapes.push_back({s, s, s});
      for (const auto& [m, n, k] : shapes) rows.push_back({dt, m, n, k, form});
    }
  }
  return rows;
}

/// Relative error ||got - ref|| / ||ref|| of C over kSamples elements (the
/// four corners, then random ones), against float64 dot products of the
/// rounded inputs; infinite when a sample is NaN or infinite. `worstSample`
/// describes the sample furthest off.
double sampledRelError(const Row& r, const std::vector<uint16_t>& a, const std::vector<uint16_t>& b,
                       const std::vector<uint16_t>& c, std::string* worstSample) {
  std::mt19937_64 gen(0x5eed + static_cast<uint64_t>(r.M));
  std::uniform_int_distribution<int64_t> pickRow(0, r.M - 1), pickCol(0, r.N - 1);
  double errSq = 0, refSq = 0, worst = -1;
  for (int s = 0; s < kSamples; ++s) {
    int64_t i = s < 4 ? (s & 1 ? r.M - 1 : 0) : pickRow(gen);
    int64_t j = s < 4 ? (s & 2 ? r.N - 1 : 0) : pickCol(gen);
    double ref = 0;
    for (int64_t k = 0; k < r.K; ++k) ref += fromBits(r.dtype, a[i * r.K + k]) * fromBits(r.dtype, b[k * r.N + j]);
    double got = fromBits(r.out(), c[i * r.N + j]);
    double err = std::isfinite(got) ? std::abs(got - ref) : INFINITY;
    errSq += err * err;
    refSq += ref * ref;
    if (worstSample && err > worst) {
      worst = err;
      char buf[160];
      std::snprintf(buf, sizeof buf, "worst sample C[%lld, %lld]: got %.6g, want %.6g", static_cast<long long>(i),
                    static_cast<long long>(j), got, ref);
      *worstSample = buf;
    }
  }
  return std::sqrt(errSq) / std::sqrt(refSq);
}

int64_t metaInt(const tessera::Meta& meta, const std::string& name) {
  auto it = meta.find(name);
  if (it == meta.end()) throw tessera::Error("bench_matmul: the grid callable got no '" + name + "'");
  if (const auto* v = std::get_if<int64_t>(&it->second)) return *v;
  throw tessera::Error("bench_matmul: meta-parameter '" + name + "' is not an integer");
}

std::string valueText(const tessera::Value& v) {
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "True" : "False";
  if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", *d);
    return buf;
  }
  return std::get<std::string>(v);
}

/// The config as Triton's str(triton.Config) writes it: the kwargs in the
/// kernel's parameter order, then num_warps, num_ctas, num_stages, maxnreg.
std::string configText(const tessera::Kernel& kernel, const tessera::AutotuneConfig& c) {
  std::string out;
  auto add = [&](const std::string& item) { out += (out.empty() ? "" : ", ") + item; };
  std::vector<std::string> order = kernel.parameter_names();
  for (const auto& [name, value] : c.kwargs)
    if (std::find(order.begin(), order.end(), name) == order.end()) order.push_back(name);
  for (const std::string& name : order)
    if (auto it = c.kwargs.find(name); it != c.kwargs.end()) add(name + ": " + valueText(it->second));
  add("num_warps: " + std::to_string(c.num_warps));
  add("num_ctas: " + std::to_string(c.num_ctas));
  add("num_stages: " + std::to_string(c.num_stages));
  add("maxnreg: " + (c.maxnreg ? std::to_string(*c.maxnreg) : std::string("None")));
  return out;
}

/// A fresh, empty TESSERA_CACHE_DIR for this process (--fresh-cache).
class FreshCache {
 public:
  FreshCache() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "bench_matmul-cache-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw tessera::Error("bench_matmul: mkdtemp failed");
    dir_ = tmpl;
    setenv("TESSERA_CACHE_DIR", dir_.c_str(), 1);
  }
  ~FreshCache() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

 private:
  std::string dir_;
};

/// What one row measured.
struct Measured {
  double ms = NAN, tuneMs = NAN, relErr = NAN;
  std::string config;
};

/// Runs one row: data, the first (tuning) launch, the check, the timing.
/// Throws on failure (a wrong result is never timed).
Measured runRow(const Options& o, Device& dev, tessera::Kernel& kernel, const Row& r) {
  const int64_t M = r.M, N = r.N, K = r.K;
  std::vector<uint16_t> aBits = randomBits(r.dtype, M * K, 1 + 2 * static_cast<uint64_t>(M));
  std::vector<uint16_t> bBits = randomBits(r.dtype, K * N, 2 + 2 * static_cast<uint64_t>(M));  // K x N
  Tensor a = uploadBits(dev, aBits, r.dtype, {M, K});
  // fp8: B^T stored row-major (N x K), read with strides (1, K).
  std::vector<uint16_t> bStored = bBits;
  if (r.fp8())
    parallelFor(N, [&](int64_t begin, int64_t end) {
      for (int64_t j = begin; j < end; ++j)
        for (int64_t k = 0; k < K; ++k) bStored[j * K + k] = bBits[k * N + j];
    });
  Tensor b = uploadBits(dev, bStored, r.dtype, r.fp8() ? std::vector<int64_t>{N, K} : std::vector<int64_t>{K, N});
  int64_t strideBK = r.fp8() ? 1 : b.stride(0), strideBN = r.fp8() ? K : b.stride(1);
  // All-ones bits: NaN in fp16 and bf16, so a tile never written fails the check.
  Tensor c = dev.upload(std::vector<uint16_t>(M * N, 0xffff).data(), r.out(), {M, N});

  // The grid of the config being launched (the autotuner's choice, or each
  // config in turn during the sweep).
  tessera::Grid grid([M, N](const tessera::Meta& m) {
    int64_t bm = metaInt(m, "BLOCK_M"), bn = metaInt(m, "BLOCK_N");
    return std::vector<int64_t>{((M + bm - 1) / bm) * ((N + bn - 1) / bn)};
  });
  std::vector<tessera::Arg> args = {a, b, c, M, N, K, a.stride(0), a.stride(1), strideBK, strideBN,
                                    c.stride(0), c.stride(1)};

  // The first launch: compiles the configs, sweeps them (on a GPU) and runs
  // the winner once.
  Measured m;
  auto t0 = Clock::now();
  kernel.launch(dev, grid, args);
  dev.synchronize();
  m.tuneMs = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();

  std::string worst;
  m.relErr = sampledRelError(r, aBits, bBits, c.download<uint16_t>(), &worst);
  if (!(m.relErr <= kMaxRelErr)) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "wrong result: relative error %.3g over %d samples (limit %.0e); ", m.relErr,
                  kSamples, kMaxRelErr);
    throw tessera::Error(buf + worst);
  }
  std::optional<tessera::AutotuneConfig> best = kernel.best_config();
  if (!best && o.interpreter) best = kernel.autotune_configs().at(0);  // the interpreter runs the first
  m.config = best ? configText(kernel, *best) : "?";
  if (o.interpreter) return m;  // do_bench needs a GPU

  tessera::testing::BenchOptions bo;
  bo.warmup_ms = o.warmupMs;
  bo.rep_ms = o.repMs;
  m.ms = tessera::testing::do_bench(dev, [&] { kernel.launch(dev, grid, args); }, bo).median_ms;
  return m;
}

int run(const Options& o) {
  std::optional<FreshCache> freshCache;
  if (o.freshCache) freshCache.emplace();
  FILE* out = o.jsonPath.empty() ? stdout : std::fopen(o.jsonPath.c_str(), "a");
  if (!out) {
    std::fprintf(stderr, "bench_matmul: cannot write %s\n", o.jsonPath.c_str());
    return 2;
  }
  Device dev = o.interpreter ? Device::interpreter() : Device::cuda(0);
  tessera::Program program = tessera::Program::from_file(o.kernelFile);
  // One Kernel per name for all its rows: later sizes reuse the configs
  // compiled for earlier ones, as Triton's in-process cache does.
  std::map<std::string, tessera::Kernel> kernels;
  int failures = 0;
  for (const Row& r : selectRows(o)) {
    auto it = kernels.find(r.kernel());
    if (it == kernels.end()) it = kernels.emplace(r.kernel(), program.kernel(r.kernel())).first;
    tessera::Kernel& kernel = it->second;
    Json rec;
    rec.str("kind", "matmul").str("provider", "tessera").str("dtype", tessera::dtype_name(r.dtype)).str("form", r.form);
    rec.integer("M", r.M).integer("N", r.N).integer("K", r.K);
    try {
      Measured m = runRow(o, dev, kernel, r);
      double flop = 2.0 * static_cast<double>(r.M) * static_cast<double>(r.N) * static_cast<double>(r.K);
      if (o.interpreter) rec.str("device", "interpreter");  // checked, not timed
      else rec.num("ms", m.ms).num("tflops", flop / m.ms / 1e9);
      rec.str("config", m.config).num("tune_ms", m.tuneMs).num("rel_err", m.relErr);
      char timing[96] = "interpreter: checked, not timed";
      if (!o.interpreter)
        std::snprintf(timing, sizeof timing, "%.4f ms, %.1f TFLOP/s, tune %.0f ms", m.ms, flop / m.ms / 1e9, m.tuneMs);
      std::fprintf(stderr, "ok   tessera %s %s %lldx%lldx%lld: %s, rel err %.2g [%s]\n", tessera::dtype_name(r.dtype),
                   r.form.c_str(), static_cast<long long>(r.M), static_cast<long long>(r.N), static_cast<long long>(r.K), timing,
                   m.relErr, m.config.c_str());
    } catch (const std::exception& e) {
      ++failures;
      rec.str("error", e.what());
      std::fprintf(stderr, "FAIL tessera matmul %s %s %lldx%lldx%lld: %s\n", tessera::dtype_name(r.dtype),
                   r.form.c_str(), static_cast<long long>(r.M), static_cast<long long>(r.N), static_cast<long long>(r.K), e.what());
    }
    std::fprintf(out, "%s\n", rec.text().c_str());
    std::fflush(out);
  }
  if (out != stdout) std::fclose(out);
  return failures ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) { return bench::benchMain("bench_matmul", argc, argv, parseOptions, run); }
