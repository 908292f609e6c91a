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

namespace tessera::kernels {

/// RMSNorm over each row: y = x / sqrt(mean(x^2) + eps) * w (w: one value
/// per column). When `rstd` is given it receives 1/rms per row (fp32), what
/// rms_norm_backward needs.
Tensor rms_norm(Device& device, const Tensor& x, const Tensor& w, double eps = 1e-6, Tensor* rstd = nullptr);

/// The gradients of rms_norm for the upstream gradient `dy`: dx (x's shape
/// and dtype) and dw (fp32, one value per column).
void rms_norm_backward(Device& device, const Tensor& dy, const Tensor& x, const Tensor& w, const Tensor& rstd,
                       Tensor& dx, Tensor& dw);

/// Softmax over each row: exp(x - max) / sum. Rows up to 8192 columns stay
/// in registers (one pass over memory); wider rows of any width are read
/// twice in 4096-column chunks (the 65536 limit does not apply).
Tensor softmax(Device& device, const Tensor& x);

/// SwiGLU: for each row [gate | up] of 2*d columns, silu(gate) * up (d columns).
Tensor silu_and_mul(Device& device, const Tensor& gate_up);

/// GeGLU: gelu(gate) * up with the exact (erf) GELU.
Tensor gelu_and_mul(Device& device, const Tensor& gate_up);

}  // namespace tessera::kernels
