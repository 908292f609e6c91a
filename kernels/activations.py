"""Gated activations of Tessera's kernel library (kernels/README.md).

The input holds [gate | up] along its last dimension (2 * d columns), as the
fused gate/up projection of a Llama-style MLP gives it; the output has d
columns: silu(gate) * up (SwiGLU) or gelu(gate) * up (GeGLU, the exact erf
form). Any float dtype in and out; math in fp32.
"""
import triton
import triton.language as tl


@triton.jit
def _gated_activation(in_ptr, out_ptr, d, in_stride, out_stride, BLOCK: tl.constexpr, EXACT_GELU: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)  # row * stride overflows i32 past 2^31 elements
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    inside = cols < d
    gate = tl.load(in_ptr + row * in_stride + cols, mask=inside, other=0.0).to(tl.float32)
    up = tl.load(in_ptr + row * in_stride + d + cols, mask=inside, other=0.0).to(tl.float32)
    if EXACT_GELU:
        activated = 0.5 * gate * (1.0 + tl.math.erf(gate * 0.7071067811865476))
    else:
        activated = gate * tl.sigmoid(gate)
    tl.store(out_ptr + row * out_stride + cols, activated * up, mask=inside)


@triton.jit
def silu_and_mul(in_ptr, out_ptr, d, in_stride, out_stride, BLOCK: tl.constexpr):
    _gated_activation(in_ptr, out_ptr, d, in_stride, out_stride, BLOCK, False)


@triton.jit
def gelu_and_mul(in_ptr, out_ptr, d, in_stride, out_stride, BLOCK: tl.constexpr):
    _gated_activation(in_ptr, out_ptr, d, in_stride, out_stride, BLOCK, True)
