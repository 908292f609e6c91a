"""GEGLU gate: c = gelu(a) * b with the tanh approximation of GELU (or the
exact erf form), forward and in-place backward."""

import operator

import torch
import triton
import triton.language as tl

from .utils import calculate_settings
from .utils import compare_version
from .utils import ensure_contiguous

if compare_version("triton", operator.ge, "3.0.0"):
    try:
        # typical import path with dispatch available on triton>=3.0
        from triton.language.extra.libdevice import tanh
    except ModuleNotFoundError:
        # for working with NGC containers
        from triton.language.extra.cuda.libdevice import tanh
else:
    from triton.language.math import tanh

SQRT_2_OVER_PI = tl.constexpr(0.7978845608028654)  # sqrt(2 / pi)
GELU_COEF = tl.constexpr(0.044715)
INV_SQRT_2 = tl.constexpr(0.7071067811865476)


@triton.jit
def _gelu(a, APPROXIMATE: tl.constexpr):
    if APPROXIMATE == "tanh":
        inner = SQRT_2_OVER_PI * (a + GELU_COEF * a * a * a)
        return 0.5 * a * (1 + tanh(inner))
    else:
        return 0.5 * a * (1 + tl.math.erf(a * INV_SQRT_2))


@triton.jit
def _geglu_forward_kernel(a, b, c, stride, n_cols: tl.constexpr, BLOCK_SIZE: tl.constexpr,
                          APPROXIMATE: tl.constexpr = "tanh"):
    row = tl.program_id(0).to(tl.int64)
    a += row * stride
    b += row * stride
    c += row * stride
    cols = tl.arange(0, BLOCK_SIZE)
    ok = cols < n_cols
    a_row = tl.load(a + cols, mask=ok, other=0).to(tl.float32)
    b_row = tl.load(b + cols, mask=ok, other=0)
    out = _gelu(a_row, APPROXIMATE).cast(b_row.dtype) * b_row
    tl.store(c + cols, out, mask=ok)


@triton.jit
def _geglu_backward_kernel(dc, a, b, stride, n_cols: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    dc += row * stride
    a += row * stride
    b += row * stride
    cols = tl.arange(0, BLOCK_SIZE)
    ok = cols < n_cols
    dc_row = tl.load(dc + cols, mask=ok, other=0)
    a_row = tl.load(a + cols, mask=ok, other=0).to(tl.float32)
    b_row = tl.load(b + cols, mask=ok, other=0)

    a_cubed = a_row * a_row * a_row
    t = tanh(SQRT_2_OVER_PI * (a_row + GELU_COEF * a_cubed))
    gelu_a = 0.5 * a_row * (1 + t)
    db_row = dc_row * gelu_a.cast(dc_row.dtype)
    # d/da of 0.5 a (1 + tanh(k (a + c a^3)))
    dgelu = 0.5 * (1 + t) + 0.5 * a_row * (1 - t * t) * SQRT_2_OVER_PI * (1 + 3 * GELU_COEF * a_row * a_row)
    da_row = dc_row * b_row * dgelu
    tl.store(a + cols, da_row, mask=ok)
    tl.store(b + cols, db_row, mask=ok)


class GEGLUMulFunction(torch.autograd.Function):

    @staticmethod
    @ensure_contiguous
    def forward(ctx, a, b):
        shape = a.shape
        a2 = a.view(-1, shape[-1])
        b2 = b.view(-1, shape[-1])
        c = torch.empty_like(a2)
        n_rows, n_cols = a2.shape
        BLOCK_SIZE, num_warps = calculate_settings(n_cols)
        _geglu_forward_kernel[(n_rows, )](a2, b2, c, c.stride(-2), n_cols=n_cols, BLOCK_SIZE=BLOCK_SIZE,
                                          num_warps=num_warps)
        ctx.save_for_backward(a2, b2)
        ctx.shape = shape
        return c.view(*shape)

    @staticmethod
    @ensure_contiguous
    def backward(ctx, dc):
        a2, b2 = ctx.saved_tensors
        dc2 = dc.view(-1, dc.shape[-1])
        n_rows, n_cols = dc2.shape
        BLOCK_SIZE, num_warps = calculate_settings(n_cols)
        _geglu_backward_kernel[(n_rows, )](dc2, a2, b2, dc2.stride(-2), n_cols=n_cols, BLOCK_SIZE=BLOCK_SIZE,
                                           num_warps=num_warps)
        return a2.view(*ctx.shape), b2.view(*ctx.shape)
