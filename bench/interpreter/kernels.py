"""Kernels timed by bench/interpreter: the same shapes as the Triton
interpreter anchors (vector add 2^22 fp32, softmax 1024x1024 fp32)."""
import triton
import triton.language as tl


@triton.jit
def vadd(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = i < n
    tl.store(c_ptr + i, tl.load(a_ptr + i, mask=keep) + tl.load(b_ptr + i, mask=keep), mask=keep)


@triton.jit
def row_softmax(y_ptr, x_ptr, stride, n_cols, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    keep = c < n_cols
    v = tl.load(x_ptr + r * stride + c, mask=keep, other=float("-inf"))
    e = tl.exp(v - tl.max(v, axis=0))
    tl.store(y_ptr + r * stride + c, e / tl.sum(e, axis=0), mask=keep)
