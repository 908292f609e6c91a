//===- bench_attention.cpp - kernels/attention.py under Tessera, timed ----===//
//
// Times attention forward, softmax(Q K^T / sqrt(d)) V, with the kernels of
// kernels/attention.py (FlashAttention style) launched as
// tessera::kernels::attention launches them (attention_launch, read by launchParams); bench_attention.py
// times the same source under Triton 3.6 with the same launch parameters
// and PyTorch's
// scaled_dot_product_attention. The rows are ANCHORS.md's: bf16, Z = 4,
// H = 32, S = 4096, head_dim 64 and 128, causal and not (kRows; keep
// bench_attention.py's ROWS the same).
//
// Each row makes Q, K, V ([Z, H, S, D], uniform in [-1, 1] rounded to
// bf16), runs once, checks 16 sampled query rows of O against float64
// attention of the rounded inputs (relative error ||got - ref|| / ||ref||
// at most 1e-2), then times with tessera::testing::do_bench (median). One
// JSON line per row on stdout (or appended to --json FILE):
//   {"kind": "attention", "provider": "tessera", "dtype": "bf16", "Z": 4, "H": 32, "S": 4096,
//    "D": 64, "causal": false, "ms": ..., "tflops": ..., "rel_err": ...}
// FLOPs: 4 Z H S^2 D (two matmuls), half of that when causal.
// --form pointer (default) times attention_fwd; --form descriptor
// attention_fwd_descriptor (tensor descriptors, TMA on sm_90a) ("form" in
// the JSON); at head_dim 128 both on 128-key blocks with 2 stages, as the
// library runs the descriptor form (on sm_90a the pointer form's tiles are
// TMA copies too: pointer-tiles-to-tma). The library runs the descriptor
// form on sm_90a at head_dim 64 and 128, the pointer form otherwise.
// --form persistent times attention_fwd_persistent on as many programs as
// fit on the GPU at once (two per multiprocessor at 4 warps).
//
//   bench_attention [--seq S] [--batch Z] [--heads H] [--form pointer|descriptor|persistent] [--json FILE]
//                   [--warmup MS] [--rep MS] [--block-m N] [--block-n N] [--stages N] [--warps N]
//                   [--rows LIST] [--interpreter]
//
// --block-m, --block-n, --stages, --warps launch with those parameters instead of the
// library's, for sweeps (bench_attention.py takes the same); the JSON
// records the ones used. --rows d128,d128c (names d64, d64c, d128, d128c)
// runs only those rows.
// --interpreter checks small problems on the CPU (use --seq 100 --batch 1
// --heads 2): the quick test of this program.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "BenchCommon.h"
#include "tessera/tessera.h"
#include "tessera/kernels.h"
#include "tessera/testing.h"

namespace {

using namespace bench;
using tessera::Device;
using tessera::Tensor;

struct Row {
  int64_t D;
  bool causal;
};
const Row kRows[] = {{64, false}, {64, true}, {128, false}, {128, true}};
constexpr int kSampleRows = 16;
constexpr double kMaxRelErr = 1e-2;

struct Options {
  int64_t seq = 4096, batch = 4, heads = 32;
  std::string jsonPath;
  int warmupMs = 25, repMs = 100;
  bool interpreter = false;
  std::string form = "pointer";  ///< --form
  /// --block-m, --block-n, --stages, --warps: launch parameters instead of the
  /// library's (launchParams), for sweeps; 0 keeps the library's.
  int64_t blockM = 0, blockN = 0, stages = 0, warps = 0;
  /// --rows d64,d128c,...: only these rows (names as rowName gives them);
  /// empty: all of kRows.
  std::vector<std::string> rows;
};

/// A row's name for --rows: d<head_dim>, with a trailing c when causal.
std::string rowName(const Row& r) { return "d" + std::to_string(r.D) + (r.causal ? "c" : ""); }

/// --rows's list split at commas; nullopt (with a message) for a name that
/// is no row of kRows.
std::optional<std::vector<std::string>> parseRows(const std::string& list) {
  std::vector<std::string> names = bench::splitCommas(list);
  for (const std::string& name : names) {
    bool known = false;
    for (const Row& r : kRows) known = known || rowName(r) == name;
    if (!known) {
      std::fprintf(stderr, "bench_attention: --rows: unknown row '%s' (rows: d64, d64c, d128, d128c)\n", name.c_str());
      return std::nullopt;
    }
  }
  return names;
}

bool positive(const char* text, int64_t& out) {
  char* end = nullptr;
  long long v = std::strtoll(text, &end, 10);
  if (*end || v <= 0) return false;
  out = v;
  return true;
}

std::optional<Options> parseOptions(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    bool hasValue = i + 1 < argc;
    int64_t v = 0;
    if ((a == "--seq" || a == "--batch" || a == "--heads" || a == "--warmup" || a == "--rep" || a == "--block-m" ||
         a == "--block-n" || a == "--stages" || a == "--warps") &&
        hasValue) {
      if (!positive(argv[++i], v)) {
        std::fprintf(stderr, "bench_attention: %s expects a positive integer, got '%s'\n", a.c_str(), argv[i]);
        return std::nullopt;
      }
      if (a == "--seq") o.seq = v;
      else if (a == "--batch") o.batch = v;
      else if (a == "--heads") o.heads = v;
      else if (a == "--warmup") o.warmupMs = static_cast<int>(v);
      else if (a == "--block-m") o.blockM = v;
      else if (a == "--block-n") o.blockN = v;
      else if (a == "--stages") o.stages = v;
      else if (a == "--warps") o.warps = v;
      else o.repMs = static_cast<int>(v);
    } else if (a == "--json" && hasValue) {
      o.jsonPath = argv[++i];
    } else if (a == "--rows" && hasValue) {
      std::optional<std::vector<std::string>> rows = parseRows(argv[++i]);
      if (!rows) return std::nullopt;
      o.rows = *rows;
    } else if (a == "--interpreter") {
      o.interpreter = true;
    } else if (a == "--form" && hasValue && (std::string(argv[i + 1]) == "pointer" ||
                                              std::string(argv[i + 1]) == "descriptor" ||
                                              std::string(argv[i + 1]) == "persistent")) {
      o.form = argv[++i];
    } else {
      std::fprintf(stderr,
                   "usage: bench_attention [--seq S] [--batch Z] [--heads H] [--form pointer|descriptor|persistent] [--json FILE]"
                   " [--warmup MS] [--rep MS] [--block-m N] [--block-n N] [--stages N] [--warps N] [--rows LIST]"
                   " [--interpreter]\n");
      return std::nullopt;
    }
  }
  return o;
}

/// ||got - ref|| / ||ref|| over kSampleRows query rows (the first, the
/// last, then random ones), against float64 attention of the rounded inputs.
double sampledRelError(const Options& o, const Row& r, const std::vector<uint16_t>& q,
                       const std::vector<uint16_t>& k, const std::vector<uint16_t>& v,
                       const std::vector<uint16_t>& out) {
  const int64_t S = o.seq, D = r.D, heads = o.batch * o.heads;
  std::mt19937_64 gen(0xa77e + static_cast<uint64_t>(D) * 2 + r.causal);
  std::uniform_int_distribution<int64_t> pickHead(0, heads - 1), pickRow(0, S - 1);
  double errSq = 0, refSq = 0, scale = 1.0 / std::sqrt(static_cast<double>(D));
  std::vector<double> p(S);
  for (int s = 0; s < kSampleRows; ++s) {
    int64_t h = pickHead(gen), i = s == 0 ? 0 : s == 1 ? S - 1 : pickRow(gen);
    const int64_t base = h * S * D;
    int64_t last = r.causal ? i : S - 1;
    double top = -INFINITY, total = 0;
    for (int64_t j = 0; j <= last; ++j) {
      double dot = 0;
      for (int64_t d = 0; d < D; ++d)
        dot += fromBits(DType::bf16, q[base + i * D + d]) * fromBits(DType::bf16, k[base + j * D + d]);
      p[j] = dot * scale;
      top = std::max(top, p[j]);
    }
    for (int64_t j = 0; j <= last; ++j) total += p[j] = std::exp(p[j] - top);
    for (int64_t d = 0; d < D; ++d) {
      double ref = 0;
      for (int64_t j = 0; j <= last; ++j) ref += p[j] / total * fromBits(DType::bf16, v[base + j * D + d]);
      double got = fromBits(DType::bf16, out[base + i * D + d]);
      double err = std::isfinite(got) ? got - ref : INFINITY;
      errSq += err * err;
      refSq += ref * ref;
    }
  }
  return std::sqrt(errSq / refSq);
}

/// The launch of both forms at head_dim D: tessera::kernels::attention's on
/// sm_90a (attention_launch; bench_attention.py's launch_params are the
/// same), with what the command line sets instead.
tessera::kernels::AttentionLaunch launchParams(const Options& o, int64_t D) {
  tessera::kernels::AttentionLaunch p = tessera::kernels::attention_launch("sm_90a", D, false);
  if (o.blockM) p.block_m = o.blockM;
  if (o.blockN) p.block_n = o.blockN;
  if (o.stages) p.num_stages = static_cast<int>(o.stages);
  if (o.warps) p.num_warps = static_cast<int>(o.warps);
  if (o.warps) p.programs_per_multiprocessor = p.num_warps <= 4 ? 2 : 1;
  return p;
}

/// O for one row: the form's kernel with launchParams's parameters, through
/// the library's launch of it (tessera::kernels::attention with a launch).
Tensor attention(const Options& o, Device& dev, const Tensor& q, const Tensor& k, const Tensor& v, bool causal) {
  tessera::kernels::AttentionLaunch p = launchParams(o, q.shape()[3]);
  p.kernel = o.form == "pointer" ? "attention_fwd" : "attention_fwd_" + o.form;
  return tessera::kernels::attention(dev, q, k, v, causal, 0, p);
}

int run(const Options& o) {
  FILE* out = o.jsonPath.empty() ? stdout : std::fopen(o.jsonPath.c_str(), "a");
  if (!out) {
    std::fprintf(stderr, "bench_attention: cannot write %s\n", o.jsonPath.c_str());
    return 2;
  }
  Device dev = o.interpreter ? Device::interpreter() : Device::cuda(0);
  int failures = 0;
  for (const Row& r : kRows) {
    if (!o.rows.empty() && std::find(o.rows.begin(), o.rows.end(), rowName(r)) == o.rows.end()) continue;
    const int64_t Z = o.batch, H = o.heads, S = o.seq, D = r.D, n = Z * H * S * D;
    Json rec;
    rec.str("kind", "attention").str("provider", "tessera").str("dtype", "bf16");
    tessera::kernels::AttentionLaunch p = launchParams(o, D);
    rec.str("form", o.form).integer("block_m", p.block_m).integer("block_n", p.block_n).integer("stages", p.num_stages).integer("warps", p.num_warps);
    rec.integer("Z", Z).integer("H", H).integer("S", S).integer("D", D).boolean("causal", r.causal);
    try {
      std::vector<uint16_t> q = randomBits(DType::bf16, n, 11 + D), k = randomBits(DType::bf16, n, 12 + D),
                            v = randomBits(DType::bf16, n, 13 + D);
      Tensor tq = dev.upload(q.data(), DType::bf16, {Z, H, S, D}), tk = dev.upload(k.data(), DType::bf16, {Z, H, S, D}),
             tv = dev.upload(v.data(), DType::bf16, {Z, H, S, D});
      Tensor o1 = attention(o, dev, tq, tk, tv, r.causal);
      double relErr = sampledRelError(o, r, q, k, v, o1.download<uint16_t>());
      rec.num("rel_err", relErr);
      if (!(relErr <= kMaxRelErr))
        throw tessera::Error("wrong result: relative error " + std::to_string(relErr) + " over the sampled rows");
      double flop = 4.0 * Z * H * static_cast<double>(S) * S * D * (r.causal ? 0.5 : 1.0);
      if (o.interpreter) {
        rec.str("device", "interpreter");
        std::fprintf(stderr, "ok   tessera attention d=%lld%s: checked on the interpreter, rel err %.2g\n",
                     static_cast<long long>(D), r.causal ? " causal" : "", relErr);
      } else {
        tessera::testing::BenchOptions bo;
        bo.warmup_ms = o.warmupMs;
        bo.rep_ms = o.repMs;
        double ms = tessera::testing::do_bench(dev, [&] { attention(o, dev, tq, tk, tv, r.causal); }, bo).median_ms;
        rec.num("ms", ms).num("tflops", flop / ms / 1e9);
        std::fprintf(stderr, "ok   tessera attention d=%lld%s: %.3f ms, %.1f TFLOP/s, rel err %.2g\n",
                     static_cast<long long>(D), r.causal ? " causal" : "", ms, flop / ms / 1e9, relErr);
      }
    } catch (const std::exception& e) {
      ++failures;
      rec.str("error", e.what());
      std::fprintf(stderr, "FAIL tessera attention d=%lld%s: %s\n", static_cast<long long>(D),
                   r.causal ? " causal" : "", e.what());
    }
    std::fprintf(out, "%s\n", rec.text().c_str());
    std::fflush(out);
  }
  if (out != stdout) std::fclose(out);
  return failures ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) { return bench::benchMain("bench_attention", argc, argv, parseOptions, run); }
