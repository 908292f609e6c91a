"""SwiGLU gate: c = silu(a) * b, with the backward pass done in place."""

import torch
import triton
import triton.language as tl

from .utils import calculate_settings
from .utils import ensure_contiguous


@triton.jit
def silu(x):
    return x * tl.sigmoid(x)


@triton.jit
def _swiglu_forward_kernel(a_ptr, b_ptr, c_ptr, stride, n_cols: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    a_ptr += row * stride
    b_ptr += row * stride
    c_ptr += row * stride
    cols = tl.arange(0, BLOCK_SIZE)
    ok = cols < n_cols
    # sigmoid wants fp32; b stays in its storage type until the product.
    a = tl.load(a_ptr + cols, mask=ok, other=0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=ok, other=0)
    c = silu(a).cast(b.dtype) * b
    tl.store(c_ptr + cols, c, mask=ok)


@triton.jit
def _swiglu_backward_kernel(dc_ptr, a_ptr, b_ptr, stride, n_cols: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    dc_ptr += row * stride
    a_ptr += row * stride
    b_ptr += row * stride
    cols = tl.arange(0, BLOCK_SIZE)
    ok = cols < n_cols
    dc = tl.load(dc_ptr + cols, mask=ok, other=0)
    a = tl.load(a_ptr + cols, mask=ok, other=0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=ok, other=0)
    # Recompute the activation rather than saving it in the forward pass.
    sig = tl.sigmoid(a)
    act = a * sig
    db = dc * act
    da = dc * (act * (1 - sig) + sig) * b
    # a and b are overwritten with their gradients.
    tl.store(a_ptr + cols, da, mask=ok)
    tl.store(b_ptr + cols, db, mask=ok)


def swiglu_forward(a, b):
    shape = a.shape
    a = a.view(-1, shape[-1])
    b = b.view(-1, shape[-1])
    c = torch.empty_like(a)
    n_rows, n_cols = a.shape
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    _swiglu_forward_kernel[(n_rows, )](a, b, c, c.stride(-2), n_cols=n_cols, BLOCK_SIZE=BLOCK_SIZE,
                                       num_warps=num_warps)
    return a, b, c.view(*shape)


def swiglu_backward(a, b, dc):
    shape = dc.shape
    dc = dc.view(-1, shape[-1])
    n_rows, n_cols = dc.shape
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    _swiglu_backward_kernel[(n_rows, )](dc, a, b, dc.stride(-2), n_cols=n_cols, BLOCK_SIZE=BLOCK_SIZE,
                                        num_warps=num_warps)
    return a.view(*shape), b.view(*shape)


class SiLUMulFunction(torch.autograd.Function):

    @staticmethod
    @ensure_contiguous
    def forward(ctx, a, b):
        a, b, c = swiglu_forward(a, b)
        ctx.save_for_backward(a, b)
        return c

    @staticmethod
    @ensure_contiguous
    def backward(ctx, dc):
        a, b = ctx.saved_tensors
        return swiglu_backward(a, b, dc)
