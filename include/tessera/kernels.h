//===- tessera/kernels.h - The kernel library ------------------*- C++ -*-===//
//
// Kernels written in the Triton language (kernels/*.py, embedded in the
// library) behind typed C++ functions: the tensors in, the tensors out, the
// launch parameters chosen here. They run on any Device (the interpreter
// too). Inputs are 2-D, row-major (Tessera tensors always are), of fp32,
// fp16 or bf16; outputs take the input's dtype, saved statistics are fp32.
// Rows up to 65536 columns. See kernels/README.md.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tessera/tessera.h"

#include "tessera/Export.h"

TESSERA_API_BEGIN
namespace tessera::kernels {

/// RMSNorm over each row: y = x / sqrt(mean(x^2) + eps) * w (w: one value
/// per column). When `rstd` is given it receives 1/rms per row (fp32), what
/// rms_norm_backward needs.
Tensor rms_norm(Device& device, const Tensor& x, const Tensor& w, double eps = 1e-6, Tensor* rstd = nullptr);

/// The gradients of rms_norm for the upstream gradient `dy`: dx (x's shape
/// and dtype) and dw (fp32, one value per column).
void rms_norm_backward(Device& device, const Tensor& dy, const Tensor& x, const Tensor& w, const Tensor& rstd,
                       Tensor& dx, Tensor& dw);

/// LayerNorm over each row: y = (x - mean) / sqrt(var + eps) * w + b (w, b:
/// one value per column; biased variance, as torch). When `mean` / `rstd`
/// are given they receive the per-row statistics (fp32) that
/// layer_norm_backward needs.
Tensor layer_norm(Device& device, const Tensor& x, const Tensor& w, const Tensor& b, double eps = 1e-5,
                  Tensor* mean = nullptr, Tensor* rstd = nullptr);

/// The gradients of layer_norm for the upstream gradient `dy`: dx (x's
/// shape and dtype), dw and db (fp32, one value per column).
void layer_norm_backward(Device& device, const Tensor& dy, const Tensor& x, const Tensor& w, const Tensor& mean,
                         const Tensor& rstd, Tensor& dx, Tensor& dw, Tensor& db);

/// The fused start of a transformer sub-block: h = x + residual, then
/// dropout(layer_norm(h) * w + b) with probability `p`: an element is kept
/// when tl.rand(seed, row * cols + col) >= p, and scaled by 1 / (1 - p).
/// Returns the output; `h` (when given) receives x + residual in x's dtype,
/// the next residual. The same seed gives the same mask on every device.
Tensor add_layer_norm_dropout(Device& device, const Tensor& x, const Tensor& residual, const Tensor& w,
                              const Tensor& b, double p, int64_t seed, double eps = 1e-5, Tensor* h = nullptr);

/// Softmax over each row: exp(x - max) / sum. Rows up to 8192 columns stay
/// in registers (one pass over memory); wider rows of any width are read
/// twice in 4096-column chunks (the 65536 limit does not apply).
Tensor softmax(Device& device, const Tensor& x);

/// The same softmax (rows up to 65536 columns) with a persistent grid: a
/// few programs per multiprocessor, each walking rows pid, pid + programs,
/// ... (Triton's fused-softmax tutorial). On the interpreter, one program
/// per hardware thread.
Tensor softmax_persistent(Device& device, const Tensor& x);

/// Cross-entropy of each row of `logits` (rows, classes; fp32/fp16/bf16,
/// any number of classes) against `targets` (rows; int32 or int64 class
/// indices): logsumexp(row) - row[target], 0 where target == ignore_index
/// (reduction "none": average the fp32 result as the loss needs). `lse`
/// (when given) receives logsumexp per row (fp32), for the backward.
/// A target outside [0, classes) other than ignore_index is an error on the
/// interpreter (its bounds check) and undefined on the GPU, as in Triton.
Tensor cross_entropy(Device& device, const Tensor& logits, const Tensor& targets, int64_t ignore_index = -100,
                     Tensor* lse = nullptr);

/// dlogits = (softmax(logits) - onehot(target)) * dloss[row] (0 on ignored
/// rows), in the logits' dtype; dloss is fp32, one value per row (for a mean
/// over n rows, 1/n each).
Tensor cross_entropy_backward(Device& device, const Tensor& dloss, const Tensor& logits, const Tensor& targets,
                              const Tensor& lse, int64_t ignore_index = -100);

/// C = A @ B for A (M x K) and B (K x N), fp16 or bf16, on tensor cores
/// (kernels/matmul.py, autotuned over 6 tile configs on the first call of
/// each shape; on sm_90a from 2048^3 on, its tensor-descriptor form, which
/// TMA copies); fp32 accumulation, C in the inputs' dtype.
Tensor matmul(Device& device, const Tensor& a, const Tensor& b);

/// C_g = A_g @ B_g for a list of products of different sizes in one launch
/// (kernels/matmul.py: a persistent grid over the tiles of all products):
/// A_g is M_g x K_g, B_g is K_g x N_g, all fp16 or all bf16 on one device,
/// rows contiguous (column stride 1); fp32 accumulation, each C_g in the
/// inputs' dtype. When every base address, row stride, K_g and N_g is a
/// multiple of 16 bytes the tiles are vector loads in a multi-stage
/// pipeline (128 x 128 tiles; on sm_90a, given enough work, 128 x 256
/// tiles through tensor descriptors the program makes, copied by TMA);
/// otherwise they are loaded element by element (64 x 64 tiles).
std::vector<Tensor> grouped_matmul(Device& device, const std::vector<Tensor>& a, const std::vector<Tensor>& b);

/// The kernel and parameters grouped_matmul launches: grouped_matmul_kernel
/// (pointer tiles; `aligned` sets its ALIGNED) or
/// grouped_matmul_kernel_descriptor (tensor descriptors), the tile, warps,
/// stages and programs per multiprocessor of the persistent grid.
/// grouped_matmul_launch gives the default for an architecture, whether
/// every operand is 16-byte aligned, and the work: the products' 128 x 256
/// tiles per multiprocessor.
struct GroupedMatmulLaunch {
  std::string kernel;  ///< empty: grouped_matmul_launch's choice
  int64_t block_m = 0, block_n = 0, block_k = 0;
  int num_warps = 0, num_stages = 3;
  int programs_per_multiprocessor = 1;
  bool aligned = true;  ///< grouped_matmul_kernel's ALIGNED (operands must be)
};
GroupedMatmulLaunch grouped_matmul_launch(const std::string& arch, bool aligned, double wide_tiles_per_multiprocessor);

/// `grouped_matmul` on the given launch (an error when it asks for 16-byte
/// alignment the operands lack).
std::vector<Tensor> grouped_matmul(Device& device, const std::vector<Tensor>& a, const std::vector<Tensor>& b,
                                   const GroupedMatmulLaunch& launch);

/// Attention forward, softmax(Q K^T * sm_scale) V, FlashAttention style
/// (kernels/attention.py): q, k, v of shape [batch * heads, seq, head_dim] or
/// [batch, heads, seq, head_dim], fp16 or bf16, head_dim 16, 32, 64 or 128,
/// any seq. `causal`: query i sees keys 0..i. sm_scale <= 0 means
/// 1 / sqrt(head_dim). The output has q's shape and dtype.
Tensor attention(Device& device, const Tensor& q, const Tensor& k, const Tensor& v, bool causal = false,
                 double sm_scale = 0);

/// How `attention` launches kernels/attention.py on a device of `arch`
/// ("sm_90a", "sm_80", ...) at `head_dim`: the kernel (attention_fwd; on
/// sm_90a at head_dim 64 and 128 attention_fwd_persistent, or
/// attention_fwd_descriptor when `causal`), BLOCK_M, BLOCK_N, num_warps
/// and num_stages. attention_fwd_persistent runs on a 1-D grid of
/// programs_per_multiprocessor programs per multiprocessor (at most one
/// per tile), the others on one program per query block and head.
/// bench_attention times these.
struct AttentionLaunch {
  std::string kernel;
  int64_t block_m = 0, block_n = 0;
  int num_warps = 0, num_stages = 0;
  int programs_per_multiprocessor = 0;  ///< of the persistent kernel: as many as fit at once
};
AttentionLaunch attention_launch(const std::string& arch, int64_t head_dim, bool causal = false);

/// `attention` on the given launch instead of attention_launch's (the
/// kernel, one of kernels/attention.py's forms, and its parameters), as
/// bench_attention times other forms and parameters.
Tensor attention(Device& device, const Tensor& q, const Tensor& k, const Tensor& v, bool causal, double sm_scale,
                 const AttentionLaunch& launch);

/// Attention for training, forward: `attention`'s output and each query
/// row's log-sum-exp of its scaled scores, ln(sum_j exp(sm_scale * q.k_j))
/// over the keys the row sees (fp32, q's shape without head_dim), which
/// the backward pass needs (kernels/attention.py: attention_fwd_lse).
struct AttentionForward {
  Tensor out;
  Tensor lse;
};
AttentionForward attention_forward(Device& device, const Tensor& q, const Tensor& k, const Tensor& v,
                                   bool causal = false, double sm_scale = 0);
/// `attention_forward` on the given launch: its kernel attention_fwd (the
/// pointer form) or attention_fwd_descriptor (TMA on sm_90a; the default
/// there at head_dim 64 and 128) with its parameters; the persistent form
/// keeps no log-sum-exp (an error).
AttentionForward attention_forward(Device& device, const Tensor& q, const Tensor& k, const Tensor& v, bool causal,
                                   double sm_scale, const AttentionLaunch& launch);

/// Attention backward: the gradients of the loss with respect to q, k and
/// v given its gradient `dout` with respect to the output, from q, k, v
/// and `attention_forward`'s out and lse (the scores are recomputed, not
/// stored: FlashAttention-2's scheme, kernels/attention.py:
/// attention_bwd_delta, attention_bwd_dkdv, attention_bwd_dq). Shapes,
/// dtypes, `causal` and `sm_scale` as for `attention`; dq, dk, dv have q's
/// shape and dtype. Deterministic (no atomics) unless the launch is `fused`.
struct AttentionGradients {
  Tensor dq, dk, dv;
};
AttentionGradients attention_backward(Device& device, const Tensor& q, const Tensor& k, const Tensor& v,
                                      const Tensor& out, const Tensor& lse, const Tensor& dout, bool causal = false,
                                      double sm_scale = 0);

/// How `attention_backward` launches its kernels on `arch` at `head_dim`:
/// attention_bwd_dkdv's keys per program (block_n1) and query step
/// (block_m1), attention_bwd_dq's rows per program (block_m2) and key step
/// (block_n2), and their warps and stages. bench_attention times these.
/// `fused`: one pass instead (attention_bwd_fused on block_n1 keys and
/// block_m1 query steps adds dQ's shares into an fp32 buffer with atomics,
/// then attention_bwd_dq_scale): fewer products, but dQ's last bits depend
/// on the order the shares arrive in.
struct AttentionBackwardLaunch {
  int64_t block_m1 = 0, block_n1 = 0, block_m2 = 0, block_n2 = 0;
  int num_warps = 0, num_stages = 0;
  bool fused = false;
};
AttentionBackwardLaunch attention_backward_launch(const std::string& arch, int64_t head_dim);
AttentionGradients attention_backward(Device& device, const Tensor& q, const Tensor& k, const Tensor& v,
                                      const Tensor& out, const Tensor& lse, const Tensor& dout, bool causal,
                                      double sm_scale, const AttentionBackwardLaunch& launch);

/// SwiGLU: for each row [gate | up] of 2*d columns, silu(gate) * up (d columns).
Tensor silu_and_mul(Device& device, const Tensor& gate_up);

/// GeGLU: gelu(gate) * up with the exact (erf) GELU.
Tensor gelu_and_mul(Device& device, const Tensor& gate_up);

}  // namespace tessera::kernels
TESSERA_API_END
