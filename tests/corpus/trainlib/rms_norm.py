"""RMSNorm: y = x / sqrt(mean(x^2) + eps) * (offset + w).

`offset` is 0 for Llama-style weights and 1 for Gemma-style weights that are
stored as (w - 1).  The casting mode decides which parts run in fp32.
"""

import math
import operator

import torch
import triton
import triton.language as tl

from .utils import _CASTING_MODE_GEMMA
from .utils import _CASTING_MODE_LLAMA
from .utils import _CASTING_MODE_NONE
from .utils import _str_to_casting_mode
from .utils import calculate_settings
from .utils import compare_version
from .utils import ensure_contiguous
from .utils import rsqrt


@triton.jit
def _rms_normalize(x, w, n_cols, eps, offset, casting_mode: tl.constexpr):
    """Normalize one row already in registers; returns (y, rstd)."""
    in_dtype = x.dtype
    if casting_mode == _CASTING_MODE_LLAMA:
        x = x.to(tl.float32)
    if casting_mode == _CASTING_MODE_GEMMA:
        x = x.to(tl.float32)
        w = w.to(tl.float32)
    mean_sq = tl.sum(x * x, axis=0) / n_cols
    rstd = rsqrt(mean_sq + eps)
    y = x * rstd
    if casting_mode == _CASTING_MODE_LLAMA:
        y = y.to(in_dtype)
    y = y * (offset + w)
    if casting_mode == _CASTING_MODE_GEMMA:
        y = y.to(in_dtype)
    return y, rstd


@triton.jit
def _rms_norm_forward_kernel(
    Y_ptr,
    Y_row_stride,
    X_ptr,
    X_row_stride,
    W_ptr,
    RSTD_ptr,
    RSTD_row_stride,
    n_cols,
    eps,
    offset,
    casting_mode: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_SIZE)
    ok = cols < n_cols

    Y_ptr += row * Y_row_stride
    X_ptr += row * X_row_stride
    RSTD_ptr += row * RSTD_row_stride

    x = tl.load(X_ptr + cols, mask=ok, other=0)
    w = tl.load(W_ptr + cols, mask=ok, other=0)
    y, rstd = _rms_normalize(x, w, n_cols, eps, offset, casting_mode)
    # The backward pass reuses rstd instead of reducing the row again.
    tl.store(RSTD_ptr, rstd)
    tl.store(Y_ptr + cols, y, mask=ok)


@triton.jit
def _rms_norm_backward_kernel(
    dY_ptr,
    dY_row_stride,
    dX_ptr,
    dX_row_stride,
    X_ptr,
    X_row_stride,
    W_ptr,
    RSTD_ptr,
    RSTD_row_stride,
    dW_ptr,
    dW_row_stride,
    n_rows,
    n_cols,
    offset,
    rows_per_program,
    casting_mode: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
):
    """dx = rstd * (dy*w) - rstd^3 / n * sum(dy*w*x) * x; each program also
    writes its share of dW, summed over programs on the host."""
    pid = tl.program_id(0).to(tl.int64)
    first = pid * rows_per_program
    last = min((pid + 1) * rows_per_program, n_rows)
    cols = tl.arange(0, BLOCK_SIZE)
    ok = cols < n_cols

    dW_acc = tl.zeros((BLOCK_SIZE, ), dtype=tl.float32)
    w = tl.load(W_ptr + cols, mask=ok, other=0.0)
    w = w + offset

    for row in range(first, last):
        dy = tl.load(dY_ptr + row * dY_row_stride + cols, mask=ok, other=0.0)
        x = tl.load(X_ptr + row * X_row_stride + cols, mask=ok, other=0.0)
        rstd = tl.load(RSTD_ptr + row * RSTD_row_stride)
        in_dtype = x.dtype
        x = x.to(tl.float32)
        if casting_mode == _CASTING_MODE_LLAMA:
            dy_w = (dy * w).to(tl.float32)
        elif casting_mode == _CASTING_MODE_GEMMA:
            dy = dy.to(tl.float32)
            dy_w = dy * w
        else:
            dy_w = dy * w
        dx = rstd * dy_w
        dx += -(rstd * rstd * rstd / n_cols) * tl.sum(dy_w * x, axis=0) * x
        if casting_mode == _CASTING_MODE_LLAMA:
            dW_acc += dy * (x * rstd).to(in_dtype)
        else:
            dW_acc += dy * (x * rstd)
        tl.store(dX_ptr + row * dX_row_stride + cols, dx.to(in_dtype), mask=ok)

    tl.store(dW_ptr + pid * dW_row_stride + cols, dW_acc, mask=ok)


def rms_norm_forward(X, W, eps, offset, casting_mode):
    if not isinstance(casting_mode, int):
        casting_mode = _str_to_casting_mode[casting_mode]
    shape = X.shape
    X = X.view(-1, shape[-1])
    n_rows, n_cols = X.shape
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    Y = torch.empty((n_rows, n_cols), dtype=X.dtype, device=X.device)
    rstd_dtype = torch.float32 if casting_mode in (_CASTING_MODE_LLAMA.value, _CASTING_MODE_GEMMA.value) else X.dtype
    RSTD = torch.empty(n_rows, dtype=rstd_dtype, device=X.device)
    _rms_norm_forward_kernel[(n_rows, )](
        Y, Y.stride(0), X, X.stride(0), W, RSTD, RSTD.stride(0), n_cols, eps, offset,
        casting_mode=casting_mode, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps,
    )
    return Y.view(*shape), X, RSTD, BLOCK_SIZE, num_warps, casting_mode


def rms_norm_backward(dY, X, W, RSTD, offset, casting_mode, BLOCK_SIZE, num_warps):
    shape = dY.shape
    dY = dY.view(-1, shape[-1])
    n_rows, n_cols = dY.shape
    sm_count = torch.cuda.get_device_properties(X.device).multi_processor_count
    partial_dW = torch.empty((sm_count, n_cols), dtype=torch.float32, device=W.device)
    rows_per_program = math.ceil(n_rows / sm_count)
    dX = torch.empty_like(dY)
    _rms_norm_backward_kernel[(sm_count, )](
        dY, dY.stride(0), dX, dX.stride(0), X, X.stride(0), W, RSTD, RSTD.stride(0),
        partial_dW, partial_dW.stride(0), n_rows, n_cols, offset, rows_per_program,
        casting_mode=casting_mode, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps,
    )
    return dX.view(*shape), partial_dW.sum(dim=0).to(W.dtype)


class RMSNormFunction(torch.autograd.Function):

    @staticmethod
    @ensure_contiguous
    def forward(ctx, X, W, eps, offset=0.0, casting_mode="llama"):
        Y, X, RSTD, BLOCK_SIZE, num_warps, casting_mode = rms_norm_forward(X, W, eps, offset, casting_mode)
        ctx.offset = offset
        ctx.casting_mode = casting_mode
        ctx.BLOCK_SIZE = BLOCK_SIZE
        ctx.num_warps = num_warps
        ctx.save_for_backward(X, W, RSTD)
        return Y

    @staticmethod
    @ensure_contiguous
    def backward(ctx, dY):
        X, W, RSTD = ctx.saved_tensors
        dX, dW = rms_norm_backward(dY, X, W, RSTD, ctx.offset, ctx.casting_mode, ctx.BLOCK_SIZE, ctx.num_warps)
        return dX, dW, None, None, None
