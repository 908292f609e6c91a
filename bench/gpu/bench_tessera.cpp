//===- bench_tessera.cpp - Tessera side of the GPU benchmark --------------===//
//
// Times the kernels of bench/gpu/kernels.py, compiled and launched by
// Tessera, on the rows of bench/gpu/rows.txt, and prints one JSON object per
// measurement; bench_triton.py does the same with Triton and PyTorch and
// report.py sets the two side by side (bench/gpu/run does all three).
//
// Every row fills its inputs with random host data (never zeros), poisons
// its outputs with NaN, runs once, checks every element against a host
// reference computed in double, and only then times the launch with
// tessera::testing::do_bench (median). GB/s counts the bytes a kernel must
// read and write (the same formula as bench_triton.py), never a bare time.
//
// Besides the rows it measures, like ANCHORS.md:
//   - cold compile: in child processes (a fresh TESSERA_CACHE_DIR each, and
//     nothing compiled yet in memory): Program::from_file .. first launch ..
//     synchronize of the softmax (BLOCK 4096, 8 warps), Kernel::compile alone
//     for it, and vector add as the first kernel of a process;
//   - warm launch overhead of a no-op kernel (2 args) and of vector add over
//     2^10 elements (4 args), by Kernel::launch, a PreparedLaunch and a raw
//     cuLaunchKernel: CPU time per call (batches of 100 after a synchronize)
//     and throughput (10000 launches, then one synchronize).
//
//   bench_gpu [--interpreter] [--check] [--quick] [--only K1,K2,...]
//             [--json FILE] [--kernels FILE] [--rows FILE] [--sms N]
//             [--warmup MS] [--rep MS] [--flush-memset]
//
// --flush-memset clears do_bench's L2 flush buffer with cuMemsetD8Async
// instead of a kernel of 16-byte stores (torch's zero_(), which Triton's
// do_bench uses; the default).
// --check runs every kernel on small odd shapes (correctness only, no
// timing), also on the interpreter, where it is the quick test of this
// benchmark on a machine without a GPU. --only takes kernel names and the
// groups 'compile' and 'launch'.
//
//===----------------------------------------------------------------------===//

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "BenchCommon.h"
#include "tessera/testing.h"
#include "tessera/tessera.h"

namespace {

using tessera::Device;
using tessera::DType;
using tessera::Tensor;
using Clock = std::chrono::steady_clock;

//===----------------------------------------------------------------------===//
// Options and output
//===----------------------------------------------------------------------===//

struct Options {
  std::string kernelsPath = TESSERA_BENCH_GPU_DIR "/kernels.py";
  std::string rowsPath = TESSERA_BENCH_GPU_DIR "/rows.txt";
  std::string jsonPath;       ///< empty: stdout
  std::vector<std::string> only;
  std::string coldMode;       ///< internal: the child of a cold-compile measurement
  std::string coldLabel;      ///< internal: the child's "what" (default: coldMode)
  bool interpreter = false;
  bool check = false;
  bool quick = false;
  int sms = 132;              ///< multiprocessors, for the persistent grid (H100 SXM: 132)
  int warmupMs = 25;
  int repMs = 100;
  int launches = 10000;
  bool flushMemset = false;   ///< clear the L2 flush buffer with cuMemsetD8Async instead of a kernel
};

using bench::Json;

/// Where JSON lines go: stdout or --json FILE; flushed per line so that a
/// crash loses nothing already measured.
class Sink {
 public:
  explicit Sink(const std::string& path) {
    if (path.empty()) return;
    file_ = std::fopen(path.c_str(), "w");
    if (!file_) throw tessera::Error("cannot write '" + path + "': " + std::strerror(errno));
  }
  ~Sink() {
    if (file_) std::fclose(file_);
  }
  void line(const std::string& text) {
    FILE* f = file_ ? file_ : stdout;
    std::fprintf(f, "%s\n", text.c_str());
    std::fflush(f);
  }

 private:
  FILE* file_ = nullptr;
};

//===----------------------------------------------------------------------===//
// Host data: parallel loops, random numbers, fp16, Philox
//===----------------------------------------------------------------------===//

/// fn(begin, end) over [0, n) in chunks on all hardware threads.
void parallelFor(int64_t n, const std::function<void(int64_t, int64_t)>& fn) {
  int threads = std::max(1u, std::min(32u, std::thread::hardware_concurrency()));
  if (n < 65536 || threads == 1) {
    fn(0, n);
    return;
  }
  std::atomic<int64_t> next{0};
  const int64_t chunk = std::max<int64_t>(4096, n / (threads * 8));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      for (int64_t b; (b = next.fetch_add(chunk)) < n;) fn(b, std::min(n, b + chunk));
    });
  for (auto& th : pool) th.join();
}

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint16_t floatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  uint32_t mag = x & 0x7fffffff;
  if (mag > 0x7f800000) return sign | 0x7e00;   // NaN
  if (mag >= 0x477ff000) return sign | 0x7c00;  // rounds past 65504: inf
  if (mag < 0x38800000) {                        // below 2^-14: subnormal or zero
    float a;
    std::memcpy(&a, &mag, 4);
    return sign | static_cast<uint16_t>(std::nearbyint(a * 16777216.0f));  // units of 2^-24, ties to even
  }
  uint32_t h = ((mag >> 23) - 112) << 10 | ((mag >> 13) & 0x3ff);
  uint32_t rest = mag & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) ++h;
  return sign | static_cast<uint16_t>(h);
}

float halfToFloat(uint16_t h) {
  uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  float v = exp == 0    ? std::ldexp(static_cast<float>(man), -24)
            : exp == 31 ? (man ? NAN : INFINITY)
                        : std::ldexp(static_cast<float>(man | 0x400), static_cast<int>(exp) - 25);
  return (h & 0x8000) ? -v : v;
}

/// tl.rand(seed, offset) for a 32-bit offset and a seed below 2^63:
/// Philox-4x32 with 10 rounds on counter (offset, 0, 0, 0) and key (seed
/// low, seed high), first word, mapped to [0, 1) as Triton does.
float tritonRand(uint64_t seed, uint32_t offset) {
  uint32_t c0 = offset, c1 = 0, c2 = 0, c3 = 0;
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    uint64_t prodB = uint64_t(0xCD9E8D57u) * c2, prodA = uint64_t(0xD2511F53u) * c0;
    uint32_t n0 = static_cast<uint32_t>(prodB >> 32) ^ c1 ^ k0;
    uint32_t n2 = static_cast<uint32_t>(prodA >> 32) ^ c3 ^ k1;
    c1 = static_cast<uint32_t>(prodB);
    c3 = static_cast<uint32_t>(prodA);
    c0 = n0;
    c2 = n2;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  int32_t v = static_cast<int32_t>(c0);
  if (v < 0) v = ~v;  // -v - 1 without overflow
  return static_cast<float>(v) * 4.6566127342e-10f;
}

/// Host values of a tensor: already rounded to `dtype`, so references see
/// exactly what the kernel reads.
struct HostTensor {
  DType dtype = DType::fp32;
  std::vector<int64_t> shape;
  std::vector<float> values;
};

/// Uniform values in [lo, hi), deterministic for a given seed whatever the
/// thread count (one generator per 64Ki-element block).
HostTensor randomTensor(DType dtype, std::vector<int64_t> shape, float lo, float hi, uint64_t seed) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  HostTensor t{dtype, shape, std::vector<float>(n)};
  const int64_t block = 65536;
  parallelFor((n + block - 1) / block, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      uint64_t state = seed * 0x100000001B3ull + b;
      for (int64_t i = b * block; i < std::min(n, (b + 1) * block); ++i) {
        float u = static_cast<float>(splitmix64(state) >> 40) * (1.0f / 16777216.0f);
        float v = lo + (hi - lo) * u;
        if (v == 0.0f) v = 0.5f * hi;  // never zeros
        t.values[i] = dtype == DType::fp16 ? halfToFloat(floatToHalf(v)) : v;
      }
    }
  });
  return t;
}

Tensor upload(Device& dev, const HostTensor& t) {
  if (t.dtype == DType::fp32) return dev.upload(t.values.data(), DType::fp32, t.shape);
  if (t.dtype != DType::fp16) throw tessera::Error("bench: only fp32 and fp16 data are supported");
  std::vector<uint16_t> bits(t.values.size());
  parallelFor(bits.size(), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) bits[i] = floatToHalf(t.values[i]);
  });
  return dev.upload(bits.data(), DType::fp16, t.shape);
}

/// An output tensor filled with NaN, so an element the kernel never writes
/// fails the check even when the allocation held a previous correct result.
Tensor poisoned(Device& dev, DType dtype, std::vector<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<unsigned char> bytes(n * tessera::dtype_size(dtype), 0xff);  // all-ones: NaN in fp16 and fp32
  return dev.upload(bytes.data(), dtype, std::move(shape));
}

std::vector<float> download(const Tensor& t) {
  if (t.dtype() == DType::fp32) return t.download<float>();
  std::vector<uint16_t> bits = t.download<uint16_t>();
  std::vector<float> out(bits.size());
  parallelFor(bits.size(), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) out[i] = halfToFloat(bits[i]);
  });
  return out;
}

//===----------------------------------------------------------------------===//
// Checking outputs
//===----------------------------------------------------------------------===//

/// |got - want| <= atol + rtol * |want|, element by element.
struct Tolerance {
  double rtol, atol;
};

Tolerance toleranceFor(DType dtype, bool layernorm) {
  if (dtype == DType::fp16) return layernorm ? Tolerance{4e-3, 4e-3} : Tolerance{2e-3, 1e-7};
  return layernorm ? Tolerance{1e-4, 1e-4} : Tolerance{1e-4, 1e-9};
}

struct Verdict {
  double worst = 0;    ///< max |got - want| / (atol + rtol |want|): <= 1 passes
  int64_t bad = 0;     ///< elements over the tolerance (NaN counts)
  int64_t firstBad = -1;
  double got = 0, want = 0;
  std::string what;    ///< which output
  bool ok() const { return bad == 0; }
  /// Adds `o`'s counts; the first bad element reported stays the earliest one.
  void merge(const Verdict& o) {
    if (o.bad && !bad) firstBad = o.firstBad, got = o.got, want = o.want, what = o.what;
    bad += o.bad;
    worst = std::max(worst, o.worst);
  }
  std::string describe() const {
    if (ok()) return "";
    char buf[256];
    std::snprintf(buf, sizeof buf, "%lld elements of %s off (worst %.3g x tolerance); first at %lld: got %.9g, want %.9g",
                  static_cast<long long>(bad), what.c_str(), worst, static_cast<long long>(firstBad), got, want);
    return buf;
  }
};

/// Compares got[i] with want(i) for all i; `skip(i)` exempts an element.
Verdict compare(const std::string& what, const std::vector<float>& got, const std::function<double(int64_t)>& want,
                Tolerance tol, const std::function<bool(int64_t)>& skip = nullptr) {
  std::vector<Verdict> parts;
  std::mutex m;
  parallelFor(got.size(), [&](int64_t b, int64_t e) {
    Verdict v;
    v.what = what;
    for (int64_t i = b; i < e; ++i) {
      if (skip && skip(i)) continue;
      double w = want(i), g = got[i], diff = std::fabs(g - w);
      double ratio = diff == 0 ? 0.0 : diff / (tol.atol + tol.rtol * std::fabs(w));
      if (!(ratio <= 1.0)) {
        if (v.bad++ == 0) v.firstBad = i, v.got = g, v.want = w;
        if (std::isnan(ratio)) ratio = INFINITY;
      }
      v.worst = std::max(v.worst, ratio);
    }
    std::lock_guard<std::mutex> lock(m);
    parts.push_back(v);
  });
  std::sort(parts.begin(), parts.end(), [](const Verdict& a, const Verdict& b) { return a.firstBad < b.firstBad; });
  Verdict all;
  all.what = what;
  for (const Verdict& p : parts) all.merge(p);
  return all;
}

/// Row softmax of host values in double.
std::vector<float> softmaxReference(const HostTensor& x) {
  int64_t rows = x.shape[0], cols = x.shape[1];
  std::vector<float> ref(x.values.size());
  parallelFor(rows, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const float* in = &x.values[r * cols];
      double mx = -INFINITY, sum = 0;
      for (int64_t c = 0; c < cols; ++c) mx = std::max<double>(mx, in[c]);
      for (int64_t c = 0; c < cols; ++c) sum += std::exp(in[c] - mx);
      for (int64_t c = 0; c < cols; ++c) ref[r * cols + c] = static_cast<float>(std::exp(in[c] - mx) / sum);
    }
  });
  return ref;
}

/// Layernorm of rows h (given as a callable), in double; also mean and rstd.
struct LayernormRef {
  std::vector<float> y, mean, rstd;
};
LayernormRef layernormReference(int64_t rows, int64_t cols, const std::function<float(int64_t)>& h,
                                const HostTensor& w, const HostTensor& b, double eps) {
  LayernormRef out{std::vector<float>(rows * cols), std::vector<float>(rows), std::vector<float>(rows)};
  parallelFor(rows, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      double sum = 0, sq = 0;
      for (int64_t c = 0; c < cols; ++c) sum += h(r * cols + c);
      double mean = sum / cols;
      for (int64_t c = 0; c < cols; ++c) {
        double d = h(r * cols + c) - mean;
        sq += d * d;
      }
      double rstd = 1.0 / std::sqrt(sq / cols + eps);
      for (int64_t c = 0; c < cols; ++c)
        out.y[r * cols + c] = static_cast<float>((h(r * cols + c) - mean) * rstd * w.values[c] + b.values[c]);
      out.mean[r] = static_cast<float>(mean);
      out.rstd[r] = static_cast<float>(rstd);
    }
  });
  return out;
}

//===----------------------------------------------------------------------===//
// Benchmark cases
//===----------------------------------------------------------------------===//

struct RowSpec {
  std::string kernel;
  DType dtype = DType::fp32;
  int64_t rows = 1, cols = 1;
  bool quick = false;
};

/// One runnable row: its launch, its check and its traffic.
struct Case {
  std::function<void()> launch;
  std::function<Verdict()> verify;
  double bytes = 0;  ///< bytes read + written by one launch
  int64_t block = 0, numWarps = 0, grid = 0;
};

struct Context {
  tessera::Program program;
  Device& dev;
  const Options& opt;
  int sms;  ///< multiprocessors assumed for the persistent grid
};

int64_t nextPow2(int64_t n) {
  int64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

/// num_warps for a one-row-per-program block, Triton's tutorial heuristic.
int rowWarps(int64_t block) { return block <= 2048 ? 4 : block <= 8192 ? 8 : 16; }

tessera::LaunchOptions warps(int n) {
  tessera::LaunchOptions o;
  o.num_warps = n;
  return o;
}

Case vectorAddCase(Context& ctx, const RowSpec& row) {
  int64_t n = row.cols;
  auto a = randomTensor(DType::fp32, {n}, -1.f, 1.f, 1), b = randomTensor(DType::fp32, {n}, -1.f, 1.f, 2);
  Tensor da = upload(ctx.dev, a), db = upload(ctx.dev, b), dc = poisoned(ctx.dev, DType::fp32, {n});
  auto sum = std::make_shared<std::vector<float>>(n);
  parallelFor(n, [&](int64_t s, int64_t e) {
    for (int64_t i = s; i < e; ++i) (*sum)[i] = a.values[i] + b.values[i];
  });
  const int64_t block = 1024, grid = (n + block - 1) / block;
  Case c;
  c.block = block, c.numWarps = 4, c.grid = grid;
  c.bytes = 3.0 * n * 4;
  tessera::Kernel k = ctx.program.kernel("vector_add");
  Device* dev = &ctx.dev;
  c.launch = [=]() mutable { k.launch(*dev, {grid}, {da, db, dc, n}, {{"BLOCK", block}}, warps(4)); };
  c.verify = [=] {
    return compare("out", download(dc), [&](int64_t i) { return (*sum)[i]; }, Tolerance{1e-6, 0});
  };
  return c;
}

Case softmaxCase(Context& ctx, const RowSpec& row) {
  int64_t R = row.rows, C = row.cols;
  auto x = std::make_shared<HostTensor>(randomTensor(row.dtype, {R, C}, -4.f, 4.f, 3));
  Tensor dx = upload(ctx.dev, *x), dy = poisoned(ctx.dev, row.dtype, {R, C});
  const bool persistent = row.kernel == "softmax_persistent";
  // The online kernel loops over 4096-wide chunks; the others hold a row.
  const int64_t block = row.kernel == "softmax_online" ? std::min<int64_t>(nextPow2(C), 4096) : nextPow2(C);
  const int nw = rowWarps(block);
  // Persistent: 16 warps per multiprocessor in all.
  const int64_t grid = persistent ? std::min<int64_t>(R, int64_t(ctx.sms) * std::max(1, 16 / nw)) : R;
  Case c;
  c.bytes = 2.0 * R * C * tessera::dtype_size(row.dtype);
  c.block = block, c.numWarps = nw, c.grid = grid;
  tessera::Kernel k = ctx.program.kernel(row.kernel);
  Device* dev = &ctx.dev;
  c.launch = [=]() mutable {
    std::vector<tessera::Arg> args = {dy, dx, dy.stride(0), dx.stride(0)};
    if (persistent) args.emplace_back(R);
    args.emplace_back(C);
    k.launch(*dev, {grid}, args, {{"BLOCK", block}}, warps(nw));
  };
  DType dtype = row.dtype;
  c.verify = [=] {
    std::vector<float> ref = softmaxReference(*x);
    return compare("out", download(dy), [&](int64_t i) { return ref[i]; }, toleranceFor(dtype, false));
  };
  return c;
}

constexpr float kEps = 1e-5f;

Case layernormCase(Context& ctx, const RowSpec& row) {
  int64_t R = row.rows, C = row.cols;
  DType dt = row.dtype;
  auto x = std::make_shared<HostTensor>(randomTensor(dt, {R, C}, -1.5f, 2.5f, 4));
  auto w = std::make_shared<HostTensor>(randomTensor(dt, {C}, 0.5f, 1.5f, 5));
  auto b = std::make_shared<HostTensor>(randomTensor(dt, {C}, -0.5f, 0.5f, 6));
  Tensor dx = upload(ctx.dev, *x), dw = upload(ctx.dev, *w), db = upload(ctx.dev, *b);
  Tensor dy = poisoned(ctx.dev, dt, {R, C}), dmean = poisoned(ctx.dev, DType::fp32, {R}),
         drstd = poisoned(ctx.dev, DType::fp32, {R});
  Case c;
  size_t es = tessera::dtype_size(dt);
  c.bytes = 2.0 * R * C * es + 2.0 * C * es + 2.0 * R * 4;
  const int64_t block = nextPow2(C);
  const int nw = rowWarps(block);
  c.block = block, c.numWarps = nw, c.grid = R;
  tessera::Kernel k = ctx.program.kernel("layernorm_fwd");
  Device* dev = &ctx.dev;
  c.launch = [=]() mutable {
    k.launch(*dev, {R}, {dy, dx, dw, db, dmean, drstd, dx.stride(0), C, kEps}, {{"BLOCK", block}}, warps(nw));
  };
  c.verify = [=] {
    LayernormRef ref = layernormReference(R, C, [&](int64_t i) { return x->values[i]; }, *w, *b, kEps);
    Verdict v = compare("out", download(dy), [&](int64_t i) { return ref.y[i]; }, toleranceFor(dt, true));
    v.merge(compare("mean", download(dmean), [&](int64_t i) { return ref.mean[i]; }, Tolerance{1e-4, 1e-5}));
    v.merge(compare("rstd", download(drstd), [&](int64_t i) { return ref.rstd[i]; }, Tolerance{1e-4, 1e-5}));
    return v;
  };
  return c;
}

Case residualLayernormDropoutCase(Context& ctx, const RowSpec& row) {
  int64_t R = row.rows, C = row.cols;
  DType dt = row.dtype;
  const float p = 0.1f;
  const int64_t seed = 1234;
  auto x = std::make_shared<HostTensor>(randomTensor(dt, {R, C}, -1.f, 1.5f, 7));
  auto res = std::make_shared<HostTensor>(randomTensor(dt, {R, C}, -1.f, 1.f, 8));
  auto w = std::make_shared<HostTensor>(randomTensor(dt, {C}, 0.5f, 1.5f, 9));
  auto b = std::make_shared<HostTensor>(randomTensor(dt, {C}, -0.5f, 0.5f, 10));
  Tensor dx = upload(ctx.dev, *x), dres = upload(ctx.dev, *res), dw = upload(ctx.dev, *w), db = upload(ctx.dev, *b);
  Tensor dout = poisoned(ctx.dev, dt, {R, C}), dsum = poisoned(ctx.dev, dt, {R, C});
  Case c;
  size_t es = tessera::dtype_size(dt);
  c.bytes = 4.0 * R * C * es + 2.0 * C * es;
  const int64_t block = nextPow2(C);
  const int nw = rowWarps(block);
  c.block = block, c.numWarps = nw, c.grid = R;
  tessera::Kernel k = ctx.program.kernel("add_layernorm_dropout");
  Device* dev = &ctx.dev;
  c.launch = [=]() mutable {
    k.launch(*dev, {R}, {dout, dsum, dx, dres, dw, db, dx.stride(0), C, kEps, p, seed}, {{"BLOCK", block}},
             warps(nw));
  };
  c.verify = [=] {
    // The kernel normalizes the fp32 sum; the stored sum is rounded to dt.
    auto h = [&](int64_t i) { return x->values[i] + res->values[i]; };
    LayernormRef ref = layernormReference(R, C, h, *w, *b, kEps);
    const float scale = 1.0f / (1.0f - p);
    auto rnd = [&](int64_t i) { return tritonRand(seed, static_cast<uint32_t>(i)); };
    Verdict v = compare(
        "out", download(dout), [&](int64_t i) { return rnd(i) > p ? double(ref.y[i] * scale) : 0.0; },
        toleranceFor(dt, true), [&](int64_t i) { return std::fabs(rnd(i) - p) < 1e-6f; });
    Tolerance exactish = dt == DType::fp16 ? Tolerance{1e-3, 1e-7} : Tolerance{1e-6, 0};
    v.merge(compare("sum", download(dsum), [&](int64_t i) { return double(h(i)); }, exactish));
    return v;
  };
  return c;
}

Case makeCase(Context& ctx, const RowSpec& row) {
  if (row.kernel == "vector_add") return vectorAddCase(ctx, row);
  if (row.kernel.rfind("softmax_", 0) == 0) return softmaxCase(ctx, row);
  if (row.kernel == "layernorm_fwd") return layernormCase(ctx, row);
  if (row.kernel == "add_layernorm_dropout") return residualLayernormDropoutCase(ctx, row);
  throw tessera::Error("bench: no case for kernel '" + row.kernel + "'");
}

std::string shapeText(const RowSpec& row) {
  if (row.kernel == "vector_add") {
    int64_t n = row.cols;
    int e = 0;
    while ((int64_t(1) << e) < n) ++e;
    if ((int64_t(1) << e) == n) return "2^" + std::to_string(e);
    return std::to_string(n);
  }
  return std::to_string(row.rows) + "x" + std::to_string(row.cols);
}

void runRow(Context& ctx, const RowSpec& row, bool time, Sink& sink, int& failures) {
  Json j;
  j.str("kind", "bandwidth").str("provider", "tessera").str("device", ctx.dev.name());
  j.str("kernel", row.kernel).str("dtype", tessera::dtype_name(row.dtype)).str("shape", shapeText(row));
  j.integer("rows", row.rows).integer("cols", row.cols);
  std::string label = row.kernel + " " + tessera::dtype_name(row.dtype) + " " + shapeText(row);
  bool ok = false;
  try {
    Case c = makeCase(ctx, row);
    j.num("bytes", c.bytes).integer("block", c.block).integer("num_warps", c.numWarps).integer("grid", c.grid);
    c.launch();
    ctx.dev.synchronize();
    Verdict v = c.verify();
    ok = v.ok();
    j.num("err", v.worst);
    if (!ok) {
      j.str("mismatch", v.describe());
      std::fprintf(stderr, "FAIL %s: %s\n", label.c_str(), v.describe().c_str());
    } else {
      std::fprintf(stderr, "ok   %s (worst error %.3g x tolerance)\n", label.c_str(), v.worst);
    }
    // A wrong kernel is still timed: its speed is worth seeing, and the
    // report marks the row as failing.
    if (time) {
      tessera::testing::BenchOptions bo;
      bo.warmup_ms = ctx.opt.warmupMs;
      bo.rep_ms = ctx.opt.repMs;
      bo.flush_with_kernel = !ctx.opt.flushMemset;
      tessera::testing::BenchResult r = tessera::testing::do_bench(ctx.dev, c.launch, bo);
      double gbps = c.bytes / (r.median_ms * 1e-3) / 1e9;
      j.num("ms", r.median_ms).num("gbps", gbps).integer("runs", r.runs);
      std::fprintf(stderr, "     %s: %.4f ms, %.0f GB/s\n", label.c_str(), r.median_ms, gbps);
    }
  } catch (const std::exception& e) {
    ok = false;
    j.str("error", e.what());
    std::fprintf(stderr, "FAIL %s: %s\n", label.c_str(), e.what());
  }
  if (!ok) ++failures;
  j.boolean("ok", ok);
  sink.line(j.text());
}

//===----------------------------------------------------------------------===//
// Compile time and launch overhead
//===----------------------------------------------------------------------===//

double msSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

constexpr int64_t kCompileRows = 4096, kCompileCols = 4096;  // softmax BLOCK 4096, 8 warps, as ANCHORS.md

/// "BLOCK: 4096, num_warps: 8" for the report (Triton's best_config prints alike).
std::string describe(const std::optional<tessera::AutotuneConfig>& c) {
  if (!c) return "none";
  std::string out;
  for (const auto& [name, value] : c->kwargs)
    if (const int64_t* i = std::get_if<int64_t>(&value)) out += name + ": " + std::to_string(*i) + ", ";
  return out + "num_warps: " + std::to_string(c->num_warps);
}

/// The child of one cold measurement (its own process, fresh cache dir).
/// Prints one JSON line on stdout.
int coldChild(const Options& opt) {
  Device dev = opt.interpreter ? Device::interpreter() : Device::cuda(0);
  Json j;
  j.str("kind", "compile").str("provider", "tessera").str("device", dev.name()).str("what", opt.coldLabel.empty() ? opt.coldMode : opt.coldLabel);
  auto x = randomTensor(DType::fp32, {kCompileRows, kCompileCols}, -4.f, 4.f, 11);
  Tensor dx = upload(dev, x), dy = poisoned(dev, DType::fp32, {kCompileRows, kCompileCols});
  dev.synchronize();
  const tessera::Meta meta = {{"BLOCK", kCompileCols}};
  if (opt.coldMode == "vector_add_first_kernel") {
    // Nothing launched before: includes the runtime's own first-use work.
    auto t0 = Clock::now();
    auto program = tessera::Program::from_file(opt.kernelsPath);
    int64_t n = kCompileRows * kCompileCols;
    program.kernel("vector_add").launch(dev, {n / 1024}, {dx, dx, dy, n}, {{"BLOCK", int64_t(1024)}}, warps(4));
    dev.synchronize();
    j.num("ms", msSince(t0));
  } else {
    // Warm the process up with another kernel first, so that only the
    // softmax's own compilation is timed.
    tessera::Program::from_file(opt.kernelsPath).kernel("noop").launch(dev, {1}, {dy, int64_t(3)});
    dev.synchronize();
    if (opt.coldMode == "softmax_first_launch") {
      auto t0 = Clock::now();
      auto program = tessera::Program::from_file(opt.kernelsPath);
      program.kernel("softmax_row")
          .launch(dev, {kCompileRows}, {dy, dx, kCompileCols, kCompileCols, kCompileCols}, meta, warps(8));
      dev.synchronize();
      j.num("ms", msSince(t0));
    } else if (opt.coldMode == "autotune_sweep") {
      // 5 configs: compile (in parallel), time each (the race: a short
      // round for all, a full one for those within 5%), launch the winner;
      // bench_triton.py does the same with Triton's autotuner.
      const int64_t rows = 4096, cols = 16384;
      auto xs = randomTensor(DType::fp32, {rows, cols}, -4.f, 4.f, 13);
      Tensor dxs = upload(dev, xs), dys = poisoned(dev, DType::fp32, {rows, cols});
      dev.synchronize();
      auto t0 = Clock::now();
      auto program = tessera::Program::from_file(opt.kernelsPath);
      tessera::Kernel k = program.kernel("softmax_online_tuned");
      k.launch(dev, {rows}, {dys, dxs, cols, cols, cols});
      dev.synchronize();
      j.num("ms", msSince(t0)).str("best", describe(k.best_config()));
      std::vector<float> y = download(dys);
      for (int64_t r = 0; r < rows; r += 997) {
        double mx = -INFINITY, sum = 0;
        for (int64_t c = 0; c < cols; ++c) mx = std::max(mx, double(xs.values[r * cols + c]));
        for (int64_t c = 0; c < cols; ++c) sum += std::exp(double(xs.values[r * cols + c]) - mx);
        for (int64_t c = 0; c < cols; c += 101) {
          double want = std::exp(double(xs.values[r * cols + c]) - mx) / sum;
          if (!(std::abs(y[r * cols + c] - want) <= 1e-4 * want + 1e-6)) {
            j.str("error", "wrong softmax after the sweep");
            r = rows;
            break;
          }
        }
      }
    } else if (opt.coldMode == "autotune_sweep_layernorm") {
      // The layernorm forward under @triton.autotune over num_warps 2..32
      // (5 configs), fp16 16384 x 8192, BLOCK 8192 given at launch.
      const int64_t rows = 16384, cols = 8192;
      auto xs = randomTensor(DType::fp16, {rows, cols}, -1.5f, 2.5f, 14);
      auto w = randomTensor(DType::fp16, {cols}, 0.5f, 1.5f, 15), b = randomTensor(DType::fp16, {cols}, -0.5f, 0.5f, 16);
      Tensor dxs = upload(dev, xs), dw = upload(dev, w), db = upload(dev, b);
      Tensor dys = poisoned(dev, DType::fp16, {rows, cols}), dmean = poisoned(dev, DType::fp32, {rows}),
             drstd = poisoned(dev, DType::fp32, {rows});
      dev.synchronize();
      auto t0 = Clock::now();
      auto program = tessera::Program::from_file(opt.kernelsPath);
      tessera::Kernel k = program.kernel("layernorm_fwd_tuned");
      k.launch(dev, {rows}, {dys, dxs, dw, db, dmean, drstd, cols, cols, kEps}, {{"BLOCK", cols}});
      dev.synchronize();
      j.num("ms", msSince(t0)).str("best", describe(k.best_config()));
      // Every 997th row against a double reference.
      const int64_t step = 997, checked = (rows + step - 1) / step;
      LayernormRef ref = layernormReference(checked, cols, [&](int64_t i) {
        return xs.values[(i / cols) * step * cols + i % cols];
      }, w, b, kEps);
      std::vector<float> y = download(dys), mean = download(dmean);
      Tolerance tol = toleranceFor(DType::fp16, true);
      for (int64_t r = 0; r < checked; ++r) {
        bool bad = !(std::abs(mean[r * step] - ref.mean[r]) <= 1e-4 + 1e-5 * std::abs(ref.mean[r]));
        for (int64_t c = 0; c < cols && !bad; ++c) {
          double want = ref.y[r * cols + c];
          bad = !(std::abs(y[r * step * cols + c] - want) <= tol.atol + tol.rtol * std::abs(want));
        }
        if (bad) {
          j.str("error", "wrong layernorm after the sweep (row " + std::to_string(r * step) + ")");
          break;
        }
      }
    } else if (opt.coldMode == "softmax_compile") {
      auto t0 = Clock::now();
      auto program = tessera::Program::from_file(opt.kernelsPath);
      tessera::Kernel k = program.kernel("softmax_row");
      double parseMs = msSince(t0);
      auto t1 = Clock::now();
      tessera::CompiledKernel compiled = k.compile("*fp32:16, *fp32:16, i32:16, i32:16, i32:16", meta, warps(8),
                                                   dev.arch());
      j.num("ms", msSince(t1)).num("parse_ms", parseMs).integer("ttir_chars", compiled.asm_text("ttir").size());
    } else {
      throw tessera::Error("bench: unknown --cold mode '" + opt.coldMode + "'");
    }
  }
  std::printf("%s\n", j.text().c_str());
  return 0;
}

std::string shellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// Runs this binary as a cold child with a fresh, empty TESSERA_CACHE_DIR
/// and forwards its JSON line.
void coldCompile(const Options& opt, const std::string& mode, const std::string& deviceName, Sink& sink,
                 int& failures) {
  std::string tmpl = (std::filesystem::temp_directory_path() / "tessera-bench-cache-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) throw tessera::Error("bench: mkdtemp failed");
  // One child with the fresh cache directory; an autotuning sweep then runs
  // in a second process over the same directory, which must find the
  // choice and the cubins there (what = MODE_second_process).
  bool sweep = mode.rfind("autotune_sweep", 0) == 0;
  for (const std::string& what : sweep ? std::vector<std::string>{mode, mode + "_second_process"}
                                       : std::vector<std::string>{mode}) {
    Json err;
    err.str("kind", "compile").str("provider", "tessera").str("device", deviceName).str("what", what);
    try {
      std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
      // Sweeps print where their time went (compile, save, time) into the log.
      std::string cmd = "TESSERA_CACHE_DIR=" + shellQuote(tmpl) + (sweep ? " TESSERA_PRINT_AUTOTUNING=1 " : " ") +
                        shellQuote(self) + " --cold " + mode + " --cold-label " + shellQuote(what) +
                        " --kernels " + shellQuote(opt.kernelsPath) + (opt.interpreter ? " --interpreter" : "");
      FILE* pipe = popen(cmd.c_str(), "r");
      if (!pipe) throw tessera::Error("bench: cannot start '" + cmd + "'");
      std::string out;
      char buf[4096];
      while (std::fgets(buf, sizeof buf, pipe)) out += buf;
      int status = pclose(pipe);
      std::istringstream lines(out);
      std::string result;
      for (std::string line; std::getline(lines, line);)
        if (!line.empty() && line[0] == '{') result = line;
      if (result.empty())
        throw tessera::Error("bench: the cold-compile child for '" + mode + "' printed no result (exit status " +
                             std::to_string(status) + ")");
      if (result.find("\"error\"") != std::string::npos) ++failures;
      sink.line(result);
      std::fprintf(stderr, "ok   cold compile: %s\n", result.c_str());
    } catch (const std::exception& e) {
      ++failures;
      err.str("error", e.what());
      std::fprintf(stderr, "FAIL cold compile %s: %s\n", what.c_str(), e.what());
      sink.line(err.text());
    }
  }
  std::filesystem::remove_all(tmpl);
}

/// Launch overhead two ways. "us": the CPU time of one launch call, the
/// smallest of 20 batches of 100 back-to-back launches timed right after a
/// synchronize, so the launch queue never fills and the GPU never holds the
/// CPU back: what a launch costs the calling thread. "us_throughput": the
/// average over `count` launches plus one synchronize, which a no-op kernel
/// makes the GPU's own launch throughput once the CPU is fast enough.
void launchOverhead(Context& ctx, const std::string& what, int count, const std::function<void()>& launch, Sink& sink,
                    int& failures) {
  Json j;
  j.str("kind", "launch").str("provider", "tessera").str("device", ctx.dev.name()).str("what", what);
  try {
    for (int i = 0; i < 20; ++i) launch();  // compile, load, warm the caches
    ctx.dev.synchronize();
    constexpr int kBatch = 100;
    double best = 1e30;
    for (int rep = 0; rep < 20; ++rep) {
      ctx.dev.synchronize();
      auto t0 = Clock::now();
      for (int i = 0; i < kBatch; ++i) launch();
      best = std::min(best, msSince(t0) * 1e3 / kBatch);
    }
    ctx.dev.synchronize();
    auto t0 = Clock::now();
    for (int i = 0; i < count; ++i) launch();
    ctx.dev.synchronize();
    double throughput = msSince(t0) * 1e3 / count;
    j.num("us", best).num("us_throughput", throughput).integer("launches", count);
    std::fprintf(stderr, "ok   launch %s: %.2f us per call, %.2f us per launch through the GPU\n", what.c_str(), best,
                 throughput);
  } catch (const std::exception& e) {
    ++failures;
    j.str("error", e.what());
    std::fprintf(stderr, "FAIL launch %s: %s\n", what.c_str(), e.what());
  }
  sink.line(j.text());
}

void launchRows(Context& ctx, int count, Sink& sink, int& failures) {
  Device& dev = ctx.dev;
  Tensor x = poisoned(dev, DType::fp32, {16});
  tessera::Kernel noop = ctx.program.kernel("noop");
  launchOverhead(ctx, "noop_2_args", count, [&] { noop.launch(dev, {1}, {x, int64_t(16)}); }, sink, failures);

  const int64_t n = 1024;
  auto a = randomTensor(DType::fp32, {n}, -1.f, 1.f, 12);
  Tensor da = upload(dev, a), dc = poisoned(dev, DType::fp32, {n});
  tessera::Kernel vadd = ctx.program.kernel("vector_add");
  launchOverhead(ctx, "vector_add_2^10", count,
                 [&] { vadd.launch(dev, {1}, {da, da, dc, n}, {{"BLOCK", int64_t(1024)}}); }, sink, failures);
  auto checkDoubled = [&](const char* what) {
    std::vector<float> got = download(dc);
    for (int64_t i = 0; i < n; ++i)
      if (got[i] != 2 * a.values[i]) {
        ++failures;
        std::fprintf(stderr, "FAIL launch %s: element %lld is %g, want %g\n", what, static_cast<long long>(i), got[i],
                     2 * a.values[i]);
        return;
      }
  };
  checkDoubled("vector_add_2^10");

  // The same launches prepared once (PreparedLaunch), and as raw
  // cuLaunchKernel calls with the same function and parameters: the floor
  // any launcher pays.
  if (dev.is_interpreter()) return;
  tessera::PreparedLaunch pnoop = noop.prepare(dev, {1}, {x, int64_t(16)});
  launchOverhead(ctx, "noop_2_args_prepared", count, [&] { pnoop.launch(); }, sink, failures);
  dc = poisoned(dev, DType::fp32, {n});
  tessera::PreparedLaunch pvadd = vadd.prepare(dev, {1}, {da, da, dc, n}, {{"BLOCK", int64_t(1024)}});
  launchOverhead(ctx, "vector_add_2^10_prepared", count, [&] { pvadd.launch(); }, sink, failures);
  checkDoubled("vector_add_2^10_prepared");
  using LaunchFn = int (*)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*, void**,
                           void**);
  static LaunchFn cuLaunchKernel = [] {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    return lib ? reinterpret_cast<LaunchFn>(dlsym(lib, "cuLaunchKernel")) : nullptr;
  }();
  if (!cuLaunchKernel) return;
  auto raw = [&](const tessera::PreparedLaunch& p) {
    std::vector<int64_t> g = p.grid();
    int r = cuLaunchKernel(p.cu_function(), unsigned(g[0]), unsigned(g[1]), unsigned(g[2]), unsigned(p.block_threads()),
                           1, 1, unsigned(p.shared_bytes()), nullptr, p.cu_params(), nullptr);
    if (r != 0) throw std::runtime_error("cuLaunchKernel failed with CUresult " + std::to_string(r));
  };
  launchOverhead(ctx, "noop_2_args_raw_cuLaunchKernel", count, [&] { raw(pnoop); }, sink, failures);
  dc = poisoned(dev, DType::fp32, {n});
  pvadd = vadd.prepare(dev, {1}, {da, da, dc, n}, {{"BLOCK", int64_t(1024)}});
  launchOverhead(ctx, "vector_add_2^10_raw_cuLaunchKernel", count, [&] { raw(pvadd); }, sink, failures);
  checkDoubled("vector_add_2^10_raw_cuLaunchKernel");
}

//===----------------------------------------------------------------------===//
// Rows, command line, main
//===----------------------------------------------------------------------===//

DType parseDType(const std::string& s) {
  if (s == "fp32") return DType::fp32;
  if (s == "fp16") return DType::fp16;
  throw tessera::Error("bench: unsupported dtype '" + s + "' (fp32 or fp16)");
}

std::vector<RowSpec> readRows(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw tessera::Error("bench: cannot read '" + path + "'");
  std::vector<RowSpec> rows;
  int lineNo = 0;
  for (std::string line; std::getline(in, line);) {
    ++lineNo;
    if (size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream fields(line);
    std::string kernel, dtype, quick;
    RowSpec r;
    if (!(fields >> kernel)) continue;
    if (!(fields >> dtype >> r.rows >> r.cols))
      throw tessera::Error(path + ":" + std::to_string(lineNo) + ": expected 'kernel dtype rows cols [q]'");
    fields >> quick;
    r.kernel = kernel, r.dtype = parseDType(dtype), r.quick = quick == "q";
    rows.push_back(r);
  }
  return rows;
}

/// Small odd shapes for --check: masks, partial chunks, a persistent grid
/// smaller than the row count.
std::vector<RowSpec> checkRows() {
  return {
      {"vector_add", DType::fp32, 1, 1000},      {"vector_add", DType::fp32, 1, 4099},
      {"softmax_row", DType::fp32, 7, 1000},     {"softmax_row", DType::fp16, 5, 333},
      {"softmax_row", DType::fp32, 3, 5000},     {"softmax_online", DType::fp32, 3, 9000},
      {"softmax_online", DType::fp16, 4, 300},   {"softmax_persistent", DType::fp32, 37, 777},
      {"layernorm_fwd", DType::fp16, 9, 1000},   {"layernorm_fwd", DType::fp32, 7, 333},
      {"add_layernorm_dropout", DType::fp16, 5, 777}, {"add_layernorm_dropout", DType::fp32, 3, 1000},
  };
}

const char* kUsage =
    "usage: bench_gpu [--interpreter] [--check] [--quick] [--only K1,K2,...] [--json FILE]\n"
    "                 [--kernels FILE] [--rows FILE] [--sms N] [--warmup MS] [--rep MS] [--launches N]\n"
    "                 [--flush-memset]\n";

Options parseOptions(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw tessera::Error("bench: " + a + " expects a value\n" + kUsage);
      return argv[++i];
    };
    auto integer = [&]() {
      std::string v = value();
      char* end = nullptr;
      long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end || n <= 0) throw tessera::Error("bench: " + a + " expects a positive integer");
      return static_cast<int>(n);
    };
    if (a == "--interpreter") o.interpreter = true;
    else if (a == "--check") o.check = true;
    else if (a == "--quick") o.quick = true;
    else if (a == "--json") o.jsonPath = value();
    else if (a == "--kernels") o.kernelsPath = value();
    else if (a == "--rows") o.rowsPath = value();
    else if (a == "--sms") o.sms = integer();
    else if (a == "--warmup") o.warmupMs = integer();
    else if (a == "--rep") o.repMs = integer();
    else if (a == "--launches") o.launches = integer();
    else if (a == "--flush-memset") o.flushMemset = true;
    else if (a == "--cold") o.coldMode = value();
    else if (a == "--cold-label") o.coldLabel = value();
    else if (a == "--only") {
      std::stringstream list(value());
      for (std::string item; std::getline(list, item, ',');)
        if (!item.empty()) o.only.push_back(item);
    } else if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else {
      throw tessera::Error("bench: unknown option '" + a + "'\n" + kUsage);
    }
  }
  return o;
}

bool selected(const Options& o, const std::string& name) {
  return o.only.empty() || std::find(o.only.begin(), o.only.end(), name) != o.only.end();
}

int run(const Options& opt) {
  if (!opt.coldMode.empty()) return coldChild(opt);
  Sink sink(opt.jsonPath);
  Device dev = opt.interpreter ? Device::interpreter() : Device::cuda(0);
  Context ctx{tessera::Program::from_file(opt.kernelsPath), dev, opt, opt.sms};
  int failures = 0;

  std::vector<RowSpec> rows = opt.check ? checkRows() : readRows(opt.rowsPath);
  if (opt.check) ctx.sms = 2;  // a grid of 8 programs over 37 rows
  for (const RowSpec& row : rows)
    if (selected(opt, row.kernel) && (!opt.quick || row.quick || opt.check))
      runRow(ctx, row, /*time=*/!opt.check, sink, failures);

  if (selected(opt, "launch")) launchRows(ctx, opt.check ? 200 : opt.launches, sink, failures);
  if (selected(opt, "compile"))
    for (const char* mode : {"softmax_first_launch", "softmax_compile", "vector_add_first_kernel", "autotune_sweep",
                             "autotune_sweep_layernorm"})
      coldCompile(opt, mode, dev.name(), sink, failures);

  std::fprintf(stderr, "%s: %d failure(s)\n", failures ? "FAILED" : "done", failures);
  return failures ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parseOptions(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
}
