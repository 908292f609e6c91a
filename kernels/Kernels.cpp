//===- Kernels.cpp - C++ wrappers of the kernel library --------------------===//
//
// See tessera/kernels.h. Each kernels/*.py file is embedded at build time
// (KernelSources.cpp, generated) and parsed once per process; the wrappers
// check shapes and dtypes, allocate the outputs on the input's device and
// launch with BLOCK the next power of two of the row and num_warps by
// Triton's tutorial rule (4 up to 2048 columns, 8 up to 8192, then 16).
//
//===----------------------------------------------------------------------===//

#include "tessera/kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::kernels {

extern const std::string_view kNormsSource;        // kernels/norms.py
extern const std::string_view kActivationsSource;  // kernels/activations.py
extern const std::string_view kSoftmaxSource;      // kernels/softmax.py
extern const std::string_view kMatmulSource;       // kernels/matmul.py
extern const std::string_view kAttentionSource;    // kernels/attention.py

namespace {

Program& normsProgram() {
  static Program p = Program::from_source(std::string(kNormsSource), "kernels/norms.py");
  return p;
}

Program& activationsProgram() {
  static Program p = Program::from_source(std::string(kActivationsSource), "kernels/activations.py");
  return p;
}

Program& matmulProgram() {
  static Program p = Program::from_source(std::string(kMatmulSource), "kernels/matmul.py");
  return p;
}

Program& attentionProgram() {
  static Program p = Program::from_source(std::string(kAttentionSource), "kernels/attention.py");
  return p;
}

Program& softmaxProgram() {
  static Program p = Program::from_source(std::string(kSoftmaxSource), "kernels/softmax.py");
  return p;
}

int64_t nextPow2(int64_t n) {
  int64_t b = 1;
  while (b < n) b *= 2;
  return b;
}

LaunchOptions rowWarps(int64_t block) {
  LaunchOptions o;
  o.num_warps = block <= 2048 ? 4 : block <= 8192 ? 8 : 16;
  return o;
}

void check2d(const char* fn, const char* what, const Tensor& t, bool anyWidth = false) {
  if (!t.defined()) throw Error(std::string("tessera::kernels::") + fn + ": " + what + " is undefined");
  if (t.shape().size() != 2)
    throw Error(std::string("tessera::kernels::") + fn + ": " + what + " must be 2-D (rows, columns), got rank " +
                std::to_string(t.shape().size()));
  DType d = t.dtype();
  if (d != DType::fp32 && d != DType::fp16 && d != DType::bf16)
    throw Error(std::string("tessera::kernels::") + fn + ": " + what + " must be fp32, fp16 or bf16, got " +
                dtype_name(d));
  if (!anyWidth && t.shape()[1] > 65536)
    throw Error(std::string("tessera::kernels::") + fn + ": rows of " + std::to_string(t.shape()[1]) +
                " columns are longer than the 65536 these kernels hold in registers");
}

void checkSameShape(const char* fn, const char* what, const Tensor& t, const Tensor& like) {
  if (!t.defined() || t.shape() != like.shape())
    throw Error(std::string("tessera::kernels::") + fn + ": " + what + " must have x's shape");
}

/// Statistics per row (mean, rstd, logsumexp) of rows with no columns are
/// undefined: refused rather than returned uninitialized.
void checkColumns(const char* fn, int64_t rows, int64_t cols) {
  if (rows > 0 && cols == 0)
    throw Error(std::string("tessera::kernels::") + fn + ": rows with no columns have no statistics");
}

void checkVector(const char* fn, const char* what, const Tensor& t, int64_t n) {
  if (!t.defined() || t.shape().size() != 1 || t.shape()[0] != n)
    throw Error(std::string("tessera::kernels::") + fn + ": " + what + " must be 1-D with " + std::to_string(n) +
                " elements");
}

void checkTargets(const char* fn, const Tensor& targets, int64_t rows) {
  checkVector(fn, "targets", targets, rows);
  if (targets.dtype() != DType::i32 && targets.dtype() != DType::i64)
    throw Error(std::string("tessera::kernels::") + fn + ": targets must be int32 or int64, got " +
                dtype_name(targets.dtype()));
}

/// out[c] = sum over the rows of partial (programs x cols, fp32), in two
/// launches of sum_rows: slices of about 32 rows in parallel (columns x
/// slices programs), then the slices' sums. A fixed order: deterministic.
void sumPartials(Device& device, const Tensor& partial, Tensor& out, int64_t programs, int64_t cols) {
  const int64_t block = std::min<int64_t>(256, nextPow2(cols));
  // At most 65535 slices (the grid's y limit), so more rows per slice past 33M rows.
  const int64_t perSlice = std::max<int64_t>(32, (programs + 65534) / 65535);
  const int64_t slices = (programs + perSlice - 1) / perSlice;
  const int64_t colPrograms = (cols + block - 1) / block;
  Tensor sliced = device.empty(DType::fp32, {slices, cols});
  normsProgram().kernel("sum_rows").launch(device, {colPrograms, slices}, {partial, sliced, programs, cols, perSlice},
                                           {{"BLOCK", block}});
  normsProgram().kernel("sum_rows").launch(device, {colPrograms, 1}, {sliced, out, slices, cols, slices},
                                           {{"BLOCK", block}});
}

/// Rows each backward program handles (its partial dw is one more row to sum).
constexpr int64_t kRowsPerProgram = 16;

Tensor gated(Device& device, const Tensor& gateUp, const char* fn, const char* kernel) {
  check2d(fn, "gate_up", gateUp);
  int64_t rows = gateUp.shape()[0], width = gateUp.shape()[1];
  if (width % 2 != 0)
    throw Error(std::string("tessera::kernels::") + fn + ": gate_up has " + std::to_string(width) +
                " columns; it must hold [gate | up], an even number");
  int64_t d = width / 2;
  Tensor out = device.empty(gateUp.dtype(), {rows, d});
  const int64_t block = std::min<int64_t>(1024, nextPow2(d));
  if (rows * d == 0) return out;
  activationsProgram().kernel(kernel).launch(device, {rows, (d + block - 1) / block},
                                             {gateUp, out, d, gateUp.stride(0), out.stride(0)}, {{"BLOCK", block}},
                                             rowWarps(block));
  return out;
}

}  // namespace

Tensor rms_norm(Device& device, const Tensor& x, const Tensor& w, double eps, Tensor* rstd) {
  check2d("rms_norm", "x", x);
  int64_t rows = x.shape()[0], cols = x.shape()[1];
  checkVector("rms_norm", "w", w, cols);
  checkColumns("rms_norm", rows, cols);
  Tensor y = device.empty(x.dtype(), {rows, cols});
  Tensor r = device.empty(DType::fp32, {rows});
  if (rows > 0 && cols > 0) {
    int64_t block = nextPow2(cols);
    normsProgram().kernel("rms_norm_fwd").launch(device, {rows},
                                                 {x, w, y, r, x.stride(0), y.stride(0), cols, eps},
                                                 {{"BLOCK", block}}, rowWarps(block));
  }
  if (rstd) *rstd = r;
  return y;
}

void rms_norm_backward(Device& device, const Tensor& dy, const Tensor& x, const Tensor& w, const Tensor& rstd,
                       Tensor& dx, Tensor& dw) {
  check2d("rms_norm_backward", "x", x);
  check2d("rms_norm_backward", "dy", dy);
  int64_t rows = x.shape()[0], cols = x.shape()[1];
  if (dy.shape() != x.shape()) throw Error("tessera::kernels::rms_norm_backward: dy and x differ in shape");
  checkVector("rms_norm_backward", "w", w, cols);
  checkVector("rms_norm_backward", "rstd", rstd, rows);
  dx = device.empty(x.dtype(), {rows, cols});
  dw = device.zeros(DType::fp32, {cols});
  if (rows == 0 || cols == 0) return;
  const int64_t block = nextPow2(cols);
  const int64_t programs = (rows + kRowsPerProgram - 1) / kRowsPerProgram;
  Tensor partial = device.empty(DType::fp32, {programs, cols});
  normsProgram().kernel("rms_norm_bwd").launch(device, {programs},
                                               {dy, x, w, rstd, dx, partial, x.stride(0), rows, cols},
                                               {{"BLOCK", block}, {"ROWS_PER_PROGRAM", kRowsPerProgram}},
                                               rowWarps(block));
  sumPartials(device, partial, dw, programs, cols);
}

Tensor layer_norm(Device& device, const Tensor& x, const Tensor& w, const Tensor& b, double eps, Tensor* mean,
                  Tensor* rstd) {
  check2d("layer_norm", "x", x);
  int64_t rows = x.shape()[0], cols = x.shape()[1];
  checkVector("layer_norm", "w", w, cols);
  checkVector("layer_norm", "b", b, cols);
  checkColumns("layer_norm", rows, cols);
  Tensor y = device.empty(x.dtype(), {rows, cols});
  Tensor m = device.empty(DType::fp32, {rows}), r = device.empty(DType::fp32, {rows});
  if (rows > 0 && cols > 0) {
    int64_t block = nextPow2(cols);
    normsProgram().kernel("layer_norm_fwd").launch(device, {rows},
                                                   {x, w, b, y, m, r, x.stride(0), y.stride(0), cols, eps},
                                                   {{"BLOCK", block}}, rowWarps(block));
  }
  if (mean) *mean = m;
  if (rstd) *rstd = r;
  return y;
}

void layer_norm_backward(Device& device, const Tensor& dy, const Tensor& x, const Tensor& w, const Tensor& mean,
                         const Tensor& rstd, Tensor& dx, Tensor& dw, Tensor& db) {
  check2d("layer_norm_backward", "x", x);
  check2d("layer_norm_backward", "dy", dy);
  checkSameShape("layer_norm_backward", "dy", dy, x);
  int64_t rows = x.shape()[0], cols = x.shape()[1];
  checkVector("layer_norm_backward", "w", w, cols);
  checkVector("layer_norm_backward", "mean", mean, rows);
  checkVector("layer_norm_backward", "rstd", rstd, rows);
  dx = device.empty(x.dtype(), {rows, cols});
  dw = device.zeros(DType::fp32, {cols});
  db = device.zeros(DType::fp32, {cols});
  if (rows == 0 || cols == 0) return;
  const int64_t block = nextPow2(cols);
  const int64_t programs = (rows + kRowsPerProgram - 1) / kRowsPerProgram;
  Tensor dwPartial = device.empty(DType::fp32, {programs, cols}), dbPartial = device.empty(DType::fp32, {programs, cols});
  normsProgram().kernel("layer_norm_bwd").launch(
      device, {programs}, {dy, x, w, mean, rstd, dx, dwPartial, dbPartial, x.stride(0), rows, cols},
      {{"BLOCK", block}, {"ROWS_PER_PROGRAM", kRowsPerProgram}}, rowWarps(block));
  sumPartials(device, dwPartial, dw, programs, cols);
  sumPartials(device, dbPartial, db, programs, cols);
}

Tensor add_layer_norm_dropout(Device& device, const Tensor& x, const Tensor& residual, const Tensor& w,
                              const Tensor& b, double p, int64_t seed, double eps, Tensor* h) {
  check2d("add_layer_norm_dropout", "x", x);
  checkSameShape("add_layer_norm_dropout", "residual", residual, x);
  if (residual.dtype() != x.dtype())
    throw Error("tessera::kernels::add_layer_norm_dropout: residual must have x's dtype");
  int64_t rows = x.shape()[0], cols = x.shape()[1];
  checkVector("add_layer_norm_dropout", "w", w, cols);
  checkVector("add_layer_norm_dropout", "b", b, cols);
  if (!(p >= 0 && p < 1))
    throw Error("tessera::kernels::add_layer_norm_dropout: the dropout probability must be in [0, 1), got " +
                std::to_string(p));
  Tensor y = device.empty(x.dtype(), {rows, cols}), sum = device.empty(x.dtype(), {rows, cols});
  if (rows > 0 && cols > 0) {
    int64_t block = nextPow2(cols);
    normsProgram().kernel("add_layer_norm_dropout").launch(
        device, {rows}, {x, residual, w, b, y, sum, x.stride(0), cols, eps, p, seed}, {{"BLOCK", block}},
        rowWarps(block));
  }
  if (h) *h = sum;
  return y;
}

Tensor softmax(Device& device, const Tensor& x) {
  check2d("softmax", "x", x, /*anyWidth=*/true);
  int64_t rows = x.shape()[0], cols = x.shape()[1];
  Tensor y = device.empty(x.dtype(), {rows, cols});
  if (rows == 0 || cols == 0) return y;
  const bool wide = cols > 8192;
  const int64_t block = wide ? 4096 : nextPow2(cols);
  softmaxProgram().kernel(wide ? "softmax_wide" : "softmax_rows").launch(device, {rows},
                                                                        {x, y, x.stride(0), y.stride(0), cols},
                                                                        {{"BLOCK", block}}, rowWarps(block));
  return y;
}

Tensor softmax_persistent(Device& device, const Tensor& x) {
  check2d("softmax_persistent", "x", x);
  int64_t rows = x.shape()[0], cols = x.shape()[1];
  Tensor y = device.empty(x.dtype(), {rows, cols});
  if (rows == 0 || cols == 0) return y;
  const int64_t block = nextPow2(cols);
  // Programs per multiprocessor: as many rows in flight as the registers
  // allow for rows in registers (about 64K fp32 values per multiprocessor).
  const int64_t perSm = std::max<int64_t>(1, std::min<int64_t>(8, 32768 / block));
  const int64_t programs = std::min<int64_t>(rows, perSm * device.multiprocessor_count());
  softmaxProgram().kernel("softmax_persistent").launch(device, {programs},
                                                       {x, y, x.stride(0), y.stride(0), rows, cols},
                                                       {{"BLOCK", block}}, rowWarps(block));
  return y;
}

Tensor cross_entropy(Device& device, const Tensor& logits, const Tensor& targets, int64_t ignoreIndex, Tensor* lse) {
  check2d("cross_entropy", "logits", logits, /*anyWidth=*/true);
  int64_t rows = logits.shape()[0], cols = logits.shape()[1];
  checkTargets("cross_entropy", targets, rows);
  checkColumns("cross_entropy", rows, cols);
  Tensor loss = device.empty(DType::fp32, {rows}), l = device.empty(DType::fp32, {rows});
  if (rows > 0 && cols > 0) {
    const int64_t block = std::min<int64_t>(4096, nextPow2(cols));
    softmaxProgram().kernel("cross_entropy_fwd").launch(device, {rows},
                                                       {logits, targets, loss, l, logits.stride(0), cols, ignoreIndex},
                                                       {{"BLOCK", block}}, rowWarps(block));
  }
  if (lse) *lse = l;
  return loss;
}

Tensor cross_entropy_backward(Device& device, const Tensor& dloss, const Tensor& logits, const Tensor& targets,
                              const Tensor& lse, int64_t ignoreIndex) {
  check2d("cross_entropy_backward", "logits", logits, /*anyWidth=*/true);
  int64_t rows = logits.shape()[0], cols = logits.shape()[1];
  checkTargets("cross_entropy_backward", targets, rows);
  checkVector("cross_entropy_backward", "dloss", dloss, rows);
  checkVector("cross_entropy_backward", "lse", lse, rows);
  if (dloss.dtype() != DType::fp32 || lse.dtype() != DType::fp32)
    throw Error("tessera::kernels::cross_entropy_backward: dloss and lse must be fp32");
  Tensor dlogits = device.empty(logits.dtype(), {rows, cols});
  if (rows == 0 || cols == 0) return dlogits;
  const int64_t block = std::min<int64_t>(1024, nextPow2(cols));
  softmaxProgram().kernel("cross_entropy_bwd").launch(
      device, {rows, (cols + block - 1) / block},
      {dloss, logits, targets, lse, dlogits, logits.stride(0), cols, ignoreIndex}, {{"BLOCK", block}},
      rowWarps(block));
  return dlogits;
}

Tensor matmul(Device& device, const Tensor& a, const Tensor& b) {
  for (const auto& [what, t] : {std::pair<const char*, const Tensor*>{"a", &a}, {"b", &b}}) {
    if (!t->defined() || t->shape().size() != 2)
      throw Error(std::string("tessera::kernels::matmul: ") + what + " must be a 2-D tensor");
    if (t->dtype() != DType::fp16 && t->dtype() != DType::bf16)
      throw Error(std::string("tessera::kernels::matmul: ") + what + " must be fp16 or bf16, got " +
                  dtype_name(t->dtype()));
  }
  if (a.dtype() != b.dtype()) throw Error("tessera::kernels::matmul: a and b must have the same dtype");
  int64_t M = a.shape()[0], K = a.shape()[1], N = b.shape()[1];
  if (b.shape()[0] != K)
    throw Error("tessera::kernels::matmul: a is " + std::to_string(M) + " x " + std::to_string(K) + " but b has " +
                std::to_string(b.shape()[0]) + " rows");
  if (K == 0) return device.zeros(a.dtype(), {M, N});
  Tensor c = device.empty(a.dtype(), {M, N});
  if (M == 0 || N == 0) return c;
  auto blocks = [](const Meta& m, const char* name) { return std::get<int64_t>(m.at(name)); };
  Grid grid([M, N, blocks](const Meta& m) {
    return std::vector<int64_t>{((M + blocks(m, "BLOCK_M") - 1) / blocks(m, "BLOCK_M")) *
                                ((N + blocks(m, "BLOCK_N") - 1) / blocks(m, "BLOCK_N"))};
  });
  // Skinny products (at most 128 rows or columns, fewer 128 x 128 tiles
  // of C than multiprocessors, a long K: inference's few rows against a
  // weight matrix) run the split-K kernel, autotuned over small tiles and K
  // split up to SPLITK_MAX ways: 1.03-1.5x matmul_kernel there, 0.75x at
  // 1024^3 (performance.md, "Skinny matmuls").
  // Its shares start at k * stride in int32 (matmul_kernel steps its
  // pointers in 64 bits): only where that cannot overflow.
  int64_t kStride = std::max(std::abs(a.stride(1)), std::abs(b.stride(0)));
  bool splitFits = double(K + 256) * double(std::max<int64_t>(kStride, 1)) < double(INT32_MAX);
  if ((M <= 128 || N <= 128) && (M + 127) / 128 * ((N + 127) / 128) < device.multiprocessor_count() && K >= 1024 &&
      splitFits) {
    constexpr int64_t kSplitMax = 4;  // kernels/matmul.py: SPLITK_MAX
    Tensor partial = device.empty(DType::fp32, {kSplitMax, M, N});
    Tensor counts = device.zeros(DType::i32, {(M + 15) / 16 * ((N + 63) / 64)});  // tiles of the smallest config
    Grid split([M, N, blocks](const Meta& m) {
      return std::vector<int64_t>{((M + blocks(m, "BLOCK_M") - 1) / blocks(m, "BLOCK_M")) *
                                      ((N + blocks(m, "BLOCK_N") - 1) / blocks(m, "BLOCK_N")),
                                  blocks(m, "SPLIT_K")};
    });
    matmulProgram().kernel("matmul_kernel_splitk").launch(device, split, {a, b, c, partial, counts, M, N, K, a.stride(0),
                                                                         a.stride(1), b.stride(0), b.stride(1),
                                                                         c.stride(0), c.stride(1)});
    return c;
  }
  // On sm_90a, products from 2048^3 on run the tensor-descriptor form,
  // whose tiles TMA copies: 1.02-1.16x the pointer form there, 0.85x at
  // 1024^3 (performance.md). Rows that are not 16-byte aligned would only
  // make it fall back to masked pointer tiles; the last strides must be 1.
  bool descriptor = device.arch() == "sm_90a" && double(M) * double(N) * double(K) >= 2048.0 * 2048.0 * 2048.0 &&
                    a.stride(1) == 1 && b.stride(1) == 1 && a.stride(0) % 8 == 0 && b.stride(0) % 8 == 0 &&
                    c.stride(0) % 8 == 0;
  matmulProgram().kernel(descriptor ? "matmul_kernel_descriptor" : "matmul_kernel").launch(
      device, grid, {a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1)});
  return c;
}

GroupedMatmulLaunch grouped_matmul_launch(const std::string& arch, bool aligned, double wideTilesPerMultiprocessor) {
  // Off 16-byte multiples the tiles are loaded element by element: small
  // tiles, two programs per multiprocessor. Aligned: vector loads in a
  // 3-stage pipeline on 128 x 128 tiles, or, on sm_90a with at least two
  // 128 x 256 tiles per multiprocessor, the descriptor form on those
  // (TMA copies; each program makes each product's descriptors, which
  // only pays with enough work: performance.md, "Grouped GEMM").
  GroupedMatmulLaunch l;
  l.aligned = aligned;
  if (!aligned) {
    l.kernel = "grouped_matmul_kernel";
    l.block_m = l.block_n = 64;
    l.block_k = 32;
    l.num_warps = 4;
    l.programs_per_multiprocessor = 2;
    return l;
  }
  bool descriptor = arch == "sm_90a" && wideTilesPerMultiprocessor >= 2;
  l.kernel = descriptor ? "grouped_matmul_kernel_descriptor" : "grouped_matmul_kernel";
  l.block_m = 128;
  l.block_n = descriptor ? 256 : 128;
  l.block_k = 64;
  l.num_warps = 8;
  return l;
}

std::vector<Tensor> grouped_matmul(Device& device, const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  return grouped_matmul(device, a, b, GroupedMatmulLaunch{});
}

std::vector<Tensor> grouped_matmul(Device& device, const std::vector<Tensor>& a, const std::vector<Tensor>& b,
                                   const GroupedMatmulLaunch& requested) {
  auto fail = [](const std::string& what) { throw Error("tessera::kernels::grouped_matmul: " + what); };
  if (a.size() != b.size())
    fail(std::to_string(a.size()) + " A matrices but " + std::to_string(b.size()) + " B matrices");
  std::vector<Tensor> c;
  if (a.empty()) return c;
  DType dt = a[0].defined() ? a[0].dtype() : DType::fp16;
  if (dt != DType::fp16 && dt != DType::bf16) fail(std::string("A and B must be fp16 or bf16, got ") + dtype_name(dt));
  size_t groups = a.size();
  std::vector<int64_t> addresses(3 * groups);
  std::vector<int32_t> sizes(3 * groups), strides(3 * groups);
  int64_t elem = static_cast<int64_t>(dtype_size(dt));
  bool aligned = true;
  auto in16 = [&](int64_t v) { return (v * elem) % 16 == 0; };
  for (size_t g = 0; g < groups; ++g) {
    std::string which = "product " + std::to_string(g) + ": ";
    for (const Tensor* t : {&a[g], &b[g]}) {
      if (!t->defined() || t->shape().size() != 2) fail(which + "A and B must be 2-D");
      if (t->dtype() != dt) fail(which + "every A and B must have the first A's dtype");
      if (t->shape()[1] > 1 && t->stride(1) != 1) fail(which + "rows must be contiguous (column stride 1)");
      // The kernel reads them through addresses, which no launch check sees.
      if (!t->is_on(device)) fail(which + "A and B must live on " + device.name());
    }
    int64_t M = a[g].shape()[0], K = a[g].shape()[1], N = b[g].shape()[1];
    if (b[g].shape()[0] != K)
      fail(which + "A is " + std::to_string(M) + " x " + std::to_string(K) + " but B has " +
           std::to_string(b[g].shape()[0]) + " rows");
    // The kernel's offsets are int32 (as matmul_kernel's): each operand's
    // last element must be within 2^31 - 1 elements of its first.
    auto span = [](int64_t rows, int64_t stride, int64_t cols) { return rows > 0 && cols > 0 ? (rows - 1) * stride + cols : 0; };
    if (span(M, a[g].stride(0), K) > INT32_MAX || span(K, b[g].stride(0), N) > INT32_MAX || span(M, N, N) > INT32_MAX)
      fail(which + "an operand spans 2^31 elements or more (the kernel's offsets are int32): split the product");
    c.push_back(device.empty(dt, {M, N}));
    addresses[3 * g] = static_cast<int64_t>(a[g].data_ptr());
    addresses[3 * g + 1] = static_cast<int64_t>(b[g].data_ptr());
    addresses[3 * g + 2] = static_cast<int64_t>(c.back().data_ptr());
    sizes[3 * g] = static_cast<int32_t>(M);
    sizes[3 * g + 1] = static_cast<int32_t>(N);
    sizes[3 * g + 2] = static_cast<int32_t>(K);
    strides[3 * g] = static_cast<int32_t>(a[g].stride(0));
    strides[3 * g + 1] = static_cast<int32_t>(b[g].stride(0));
    strides[3 * g + 2] = static_cast<int32_t>(c.back().stride(0));
    for (int k = 0; k < 3; ++k) aligned = aligned && addresses[3 * g + k] % 16 == 0 && in16(strides[3 * g + k]);
    aligned = aligned && in16(K) && in16(N);
  }
  int64_t wideTiles = 0;
  for (size_t g = 0; g < groups; ++g) wideTiles += (int64_t{sizes[3 * g]} + 127) / 128 * ((int64_t{sizes[3 * g + 1]} + 255) / 256);
  GroupedMatmulLaunch l = requested.kernel.empty()
                              ? grouped_matmul_launch(device.arch(), aligned,
                                                      double(wideTiles) / std::max(1, device.multiprocessor_count()))
                              : requested;
  if (l.kernel != "grouped_matmul_kernel" && l.kernel != "grouped_matmul_kernel_descriptor")
    fail("unknown kernel '" + l.kernel + "' (grouped_matmul_kernel or grouped_matmul_kernel_descriptor)");
  // ALIGNED and the descriptors' 16-byte rows are promises the kernels
  // cannot check: only aligned operands may run them.
  bool needsAligned = l.kernel == "grouped_matmul_kernel_descriptor" || l.aligned;
  if (needsAligned && !aligned)
    fail(l.kernel + (l.kernel == "grouped_matmul_kernel" ? " with aligned = true" : "") +
         " needs every base address, row stride, K and N to be a multiple of 16 bytes, and these are not");
  if (l.block_m <= 0 || l.block_n <= 0 || l.block_k <= 0 || l.num_warps <= 0 || l.num_stages <= 0 ||
      l.programs_per_multiprocessor <= 0)
    fail("the launch's blocks, warps, stages and programs per multiprocessor must be positive");
  int64_t tiles = 0;
  for (size_t g = 0; g < groups; ++g)
    tiles += (int64_t{sizes[3 * g]} + l.block_m - 1) / l.block_m * ((int64_t{sizes[3 * g + 1]} + l.block_n - 1) / l.block_n);
  if (tiles == 0) return c;  // every product is empty
  Tensor addr = device.upload(addresses, {static_cast<int64_t>(groups), 3});
  Tensor size = device.upload(sizes, {static_cast<int64_t>(groups), 3});
  Tensor stride = device.upload(strides, {static_cast<int64_t>(groups), 3});
  LaunchOptions options;
  options.num_warps = l.num_warps;
  options.num_stages = l.num_stages;
  int64_t programs = std::min<int64_t>(tiles, int64_t{device.multiprocessor_count()} * l.programs_per_multiprocessor);
  Meta meta = {{"DT", std::string(dt == DType::fp16 ? "fp16" : "bf16")},
               {"BLOCK_M", l.block_m},
               {"BLOCK_N", l.block_n},
               {"BLOCK_K", l.block_k}};
  if (l.kernel == "grouped_matmul_kernel") meta["ALIGNED"] = l.aligned;
  matmulProgram().kernel(l.kernel).launch(device, {std::max<int64_t>(programs, 1)},
                                          {addr, size, stride, static_cast<int64_t>(groups)}, meta, options);
  return c;
}

AttentionLaunch attention_launch(const std::string& arch, int64_t headDim, bool causal) {
  // On sm_90a head_dim 64 and 128 run tensor descriptors (TMA, with a
  // producer warpgroup); at 128 on 128-key blocks with 2 stages and 8
  // warps, else on 64-key blocks with 3. At d=64, 128-key blocks with 2
  // stages ran 291 / 257 TFLOP/s against 440 / 404: their stages keep a
  // second program off the multiprocessor, and one consumer warpgroup
  // overlaps nothing. Without a mask the persistent form, whose producer
  // fetches the next tile's keys during this tile's epilogue, is 1.01x
  // (d=64) and 1.05-1.08x (d=128) the descriptor form on the H100; with
  // one its static round-robin of tiles of unequal length loses 7-15% to
  // the hardware's scheduling of one program per tile (performance.md,
  // 2026-11-27).
  bool descriptor = arch == "sm_90a" && (headDim == 64 || headDim == 128);
  bool wideBlocks = descriptor && headDim == 128;
  AttentionLaunch l;
  l.kernel = !descriptor ? "attention_fwd" : causal ? "attention_fwd_descriptor" : "attention_fwd_persistent";
  l.block_m = 128;
  l.block_n = wideBlocks ? 128 : 64;
  l.num_warps = headDim <= 64 ? 4 : 8;
  l.num_stages = wideBlocks ? 2 : 3;
  l.programs_per_multiprocessor = l.num_warps <= 4 ? 2 : 1;
  return l;
}

Tensor attention(Device& device, const Tensor& q, const Tensor& k, const Tensor& v, bool causal, double smScale) {
  int64_t dim = q.defined() && !q.shape().empty() ? q.shape().back() : 0;
  return attention(device, q, k, v, causal, smScale, attention_launch(device.arch(), dim, causal));
}

namespace {

/// An attention problem's sizes: every tensor of `named` has q's shape
/// [..., seq, head_dim] and dtype (fp16 or bf16), head_dim 16/32/64/128.
struct AttentionShape {
  int64_t seq = 0, dim = 0, heads = 1;
  double scale = 0;  ///< sm_scale, or 1/sqrt(head_dim) for <= 0
};

AttentionShape attentionShape(const char* fn, std::initializer_list<std::pair<const char*, const Tensor*>> named,
                              double smScale) {
  const Tensor& q = *named.begin()->second;
  auto fail = [&](const std::string& what) { throw Error(std::string("tessera::kernels::") + fn + ": " + what); };
  for (const auto& [what, t] : named) {
    if (!t->defined() || (t->shape().size() != 3 && t->shape().size() != 4))
      fail(std::string(what) + " must be [batch * heads, seq, head_dim] or [batch, heads, seq, head_dim]");
    if (t->shape() != q.shape()) fail(std::string(what) + " must have q's shape");
    if (t->dtype() != q.dtype()) fail(std::string(what) + " must have q's dtype");
    // The kernels index rows as row * head_dim within head * seq * head_dim.
    if (!t->is_contiguous()) fail(std::string(what) + " must be contiguous (row-major; copy a transposed view first)");
  }
  if (q.dtype() != DType::fp16 && q.dtype() != DType::bf16)
    fail(std::string("q, k and v must be fp16 or bf16, got ") + dtype_name(q.dtype()));
  const std::vector<int64_t>& shape = q.shape();
  AttentionShape a;
  a.seq = shape[shape.size() - 2];
  a.dim = shape.back();
  for (size_t i = 0; i + 2 < shape.size(); ++i) a.heads *= shape[i];
  if (a.dim != 16 && a.dim != 32 && a.dim != 64 && a.dim != 128)
    fail("head_dim must be 16, 32, 64 or 128, got " + std::to_string(a.dim));
  a.scale = smScale > 0 ? smScale : 1.0 / std::sqrt(static_cast<double>(a.dim));
  return a;
}

/// The shape of q without its last dim: one value per query row.
std::vector<int64_t> rowShape(const Tensor& q) {
  std::vector<int64_t> s = q.shape();
  s.pop_back();
  return s;
}

}  // namespace

Tensor attention(Device& device, const Tensor& q, const Tensor& k, const Tensor& v, bool causal, double smScale,
                 const AttentionLaunch& l) {
  AttentionShape a = attentionShape("attention", {{"q", &q}, {"k", &k}, {"v", &v}}, smScale);
  Tensor o = device.empty(q.dtype(), q.shape());
  if (a.seq == 0 || a.heads == 0) return o;
  LaunchOptions options;
  options.num_warps = l.num_warps;
  options.num_stages = l.num_stages;
  Meta constexprs = {{"HEAD_DIM", a.dim}, {"BLOCK_M", l.block_m}, {"BLOCK_N", l.block_n}, {"CAUSAL", causal}};
  int64_t blocksM = (a.seq + l.block_m - 1) / l.block_m;
  if (l.kernel == "attention_fwd_persistent") {
    int64_t programs = std::min<int64_t>(int64_t{device.multiprocessor_count()} * l.programs_per_multiprocessor,
                                         blocksM * a.heads);
    attentionProgram().kernel(l.kernel).launch(device, {programs}, {q, k, v, o, a.scale, a.seq, a.heads}, constexprs,
                                               options);
  } else {
    attentionProgram().kernel(l.kernel).launch(device, {blocksM, a.heads}, {q, k, v, o, a.scale, a.seq}, constexprs,
                                               options);
  }
  return o;
}

AttentionForward attention_forward(Device& device, const Tensor& q, const Tensor& k, const Tensor& v, bool causal,
                                   double smScale) {
  // attention()'s parameters, but never its persistent form (it keeps no
  // log-sum-exp): the descriptor form on sm_90a at head_dim 64 and 128, the
  // pointer form elsewhere.
  int64_t dim = q.defined() && !q.shape().empty() ? q.shape().back() : 0;
  return attention_forward(device, q, k, v, causal, smScale, attention_launch(device.arch(), dim, /*causal=*/true));
}

AttentionForward attention_forward(Device& device, const Tensor& q, const Tensor& k, const Tensor& v, bool causal,
                                   double smScale, const AttentionLaunch& l) {
  AttentionShape a = attentionShape("attention_forward", {{"q", &q}, {"k", &k}, {"v", &v}}, smScale);
  const char* kernel = l.kernel == "attention_fwd"              ? "attention_fwd_lse"
                       : l.kernel == "attention_fwd_descriptor" ? "attention_fwd_lse_descriptor"
                                                                : nullptr;
  if (!kernel)
    throw Error("tessera::kernels::attention_forward: no form of '" + l.kernel +
                "' keeps the log-sum-exp (attention_fwd and attention_fwd_descriptor do)");
  AttentionForward f{device.empty(q.dtype(), q.shape()), device.empty(DType::fp32, rowShape(q))};
  if (a.seq == 0 || a.heads == 0) return f;
  LaunchOptions options;
  options.num_warps = l.num_warps;
  options.num_stages = l.num_stages;
  attentionProgram().kernel(kernel).launch(
      device, {(a.seq + l.block_m - 1) / l.block_m, a.heads}, {q, k, v, f.out, f.lse, a.scale, a.seq},
      {{"HEAD_DIM", a.dim}, {"BLOCK_M", l.block_m}, {"BLOCK_N", l.block_n}, {"CAUSAL", causal}}, options);
  return f;
}

AttentionBackwardLaunch attention_backward_launch(const std::string& arch, int64_t headDim) {
  // As Triton's fused-attention tutorial: dK/dV programs own 128 keys and
  // step through 32 queries at a time, dQ programs own 128 rows and step
  // through 32 keys (the accumulators stay in registers; the short steps
  // keep the recomputed probabilities small).
  (void)arch;
  AttentionBackwardLaunch l;
  l.block_m1 = 32;
  l.block_n1 = 128;
  l.block_m2 = 128;
  l.block_n2 = 32;
  l.num_warps = headDim <= 64 ? 4 : 8;
  l.num_stages = 3;
  return l;
}

AttentionGradients attention_backward(Device& device, const Tensor& q, const Tensor& k, const Tensor& v,
                                      const Tensor& out, const Tensor& lse, const Tensor& dout, bool causal,
                                      double smScale) {
  int64_t dim = q.defined() && !q.shape().empty() ? q.shape().back() : 0;
  return attention_backward(device, q, k, v, out, lse, dout, causal, smScale,
                            attention_backward_launch(device.arch(), dim));
}

AttentionGradients attention_backward(Device& device, const Tensor& q, const Tensor& k, const Tensor& v,
                                      const Tensor& out, const Tensor& lse, const Tensor& dout, bool causal,
                                      double smScale, const AttentionBackwardLaunch& l) {
  AttentionShape a = attentionShape("attention_backward",
                                    {{"q", &q}, {"k", &k}, {"v", &v}, {"out", &out}, {"dout", &dout}}, smScale);
  if (!lse.defined() || lse.dtype() != DType::fp32 || lse.shape() != rowShape(q) || !lse.is_contiguous())
    throw Error("tessera::kernels::attention_backward: lse must be fp32 of q's shape without head_dim, contiguous, as "
                "attention_forward returns it");
  AttentionGradients g{device.empty(q.dtype(), q.shape()), device.empty(q.dtype(), q.shape()),
                       device.empty(q.dtype(), q.shape())};
  if (a.seq == 0 || a.heads == 0) return g;
  for (int64_t b : {l.block_m1, l.block_n1, l.block_m2, l.block_n2})
    if (b < 16 || (b & (b - 1)) != 0)
      throw Error("tessera::kernels::attention_backward: block sizes must be powers of two >= 16");
  Tensor delta = device.empty(DType::fp32, rowShape(q));
  attentionProgram().kernel("attention_bwd_delta").launch(device, {(a.seq + 63) / 64, a.heads}, {out, dout, delta, a.seq},
                                                          {{"HEAD_DIM", a.dim}, {"BLOCK_M", int64_t(64)}});
  LaunchOptions options;
  options.num_warps = l.num_warps;
  options.num_stages = l.num_stages;
  if (l.fused) {
    Tensor dqAcc = device.zeros(DType::fp32, q.shape());
    attentionProgram().kernel("attention_bwd_fused").launch(
        device, {(a.seq + l.block_n1 - 1) / l.block_n1, a.heads},
        {q, k, v, dout, lse, delta, g.dk, g.dv, dqAcc, a.scale, a.seq},
        {{"HEAD_DIM", a.dim}, {"BLOCK_M", l.block_m1}, {"BLOCK_N", l.block_n1}, {"CAUSAL", causal}}, options);
    int64_t n = q.numel();
    attentionProgram().kernel("attention_bwd_dq_scale").launch(device, {(n + 1023) / 1024}, {dqAcc, g.dq, a.scale, n},
                                                               {{"BLOCK", int64_t(1024)}});
    return g;
  }
  attentionProgram().kernel("attention_bwd_dkdv").launch(
      device, {(a.seq + l.block_n1 - 1) / l.block_n1, a.heads},
      {q, k, v, dout, lse, delta, g.dk, g.dv, a.scale, a.seq},
      {{"HEAD_DIM", a.dim}, {"BLOCK_M", l.block_m1}, {"BLOCK_N", l.block_n1}, {"CAUSAL", causal}}, options);
  attentionProgram().kernel("attention_bwd_dq").launch(
      device, {(a.seq + l.block_m2 - 1) / l.block_m2, a.heads}, {q, k, v, dout, lse, delta, g.dq, a.scale, a.seq},
      {{"HEAD_DIM", a.dim}, {"BLOCK_M", l.block_m2}, {"BLOCK_N", l.block_n2}, {"CAUSAL", causal}}, options);
  return g;
}

Tensor silu_and_mul(Device& device, const Tensor& gateUp) { return gated(device, gateUp, "silu_and_mul", "silu_and_mul"); }

Tensor gelu_and_mul(Device& device, const Tensor& gateUp) { return gated(device, gateUp, "gelu_and_mul", "gelu_and_mul"); }

}  // namespace tessera::kernels
