"""Elementwise math: tl.math builtins, libdevice functions, softmax, cdiv."""
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def unary_math(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1.0)
    o = out_ptr + offs
    tl.store(o + 0 * n, tl.exp(x), mask=m)
    tl.store(o + 1 * n, tl.exp2(x), mask=m)
    tl.store(o + 2 * n, tl.log(x), mask=m)
    tl.store(o + 3 * n, tl.log2(x), mask=m)
    tl.store(o + 4 * n, tl.sqrt(x), mask=m)
    tl.store(o + 5 * n, tl.sqrt_rn(x), mask=m)
    tl.store(o + 6 * n, tl.rsqrt(x), mask=m)
    tl.store(o + 7 * n, tl.sin(x), mask=m)
    tl.store(o + 8 * n, tl.cos(x), mask=m)
    tl.store(o + 9 * n, tl.erf(x - 2.0), mask=m)
    tl.store(o + 10 * n, tl.floor(x * 4.0 - 6.0), mask=m)
    tl.store(o + 11 * n, tl.ceil(x * -4.0 + 3.0), mask=m)
    tl.store(o + 12 * n, tl.abs(x - 2.0), mask=m)
    tl.store(o + 13 * n, tl.sigmoid(x - 2.0), mask=m)
    tl.store(o + 14 * n, (x - 2.0).exp(), mask=m)


@triton.jit
def binary_math(x_ptr, y_ptr, z_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1.0)
    y = tl.load(y_ptr + offs, mask=m, other=1.0)
    z = tl.load(z_ptr + offs, mask=m, other=0.0)
    o = out_ptr + offs
    tl.store(o + 0 * n, tl.fma(x, y, z), mask=m)
    tl.store(o + 1 * n, tl.fdiv(x, y), mask=m)
    tl.store(o + 2 * n, tl.div_rn(x, y), mask=m)
    tl.store(o + 3 * n, libdevice.pow(x, y), mask=m)
    tl.store(o + 4 * n, libdevice.atan2(z, y), mask=m)
    tl.store(o + 5 * n, libdevice.tanh(z * 3.0), mask=m)
    tl.store(o + 6 * n, libdevice.erfinv(z * 0.5), mask=m)
    tl.store(o + 7 * n, x / y, mask=m)


@triton.jit
def high_multiply(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    a = tl.load(a_ptr + offs, mask=m)
    b = tl.load(b_ptr + offs, mask=m)
    tl.store(out_ptr + offs, tl.umulhi(a, b), mask=m)


@triton.jit
def ceil_div(v_ptr, out_ptr, scalar_out, n, d, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(v_ptr + offs, mask=m)
    tl.store(out_ptr + offs, tl.cdiv(v, d), mask=m)
    if tl.program_id(0) == 0:
        tl.store(scalar_out, tl.cdiv(n, BLOCK))


@triton.jit
def builtin_softmax(x_ptr, out_ptr, n_rows, n_cols, stride, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.arange(0, BLOCK_C)
    m = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    ptrs = rows[:, None] * stride + cols[None, :]
    x = tl.load(x_ptr + ptrs, mask=m, other=-float("inf"))
    y = tl.softmax(x, dim=1)
    tl.store(out_ptr + ptrs, y, mask=m)
