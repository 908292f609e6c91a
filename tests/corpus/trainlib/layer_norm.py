"""LayerNorm with the whole row in one block: forward saves mean and rstd,
backward computes dX per row and per-program partial sums of dW and dB."""

import math

import torch
import triton
import triton.language as tl

from .utils import calculate_settings
from .utils import ensure_contiguous
from .utils import rsqrt


@triton.jit
def _layer_norm_forward_kernel(
    Y_ptr, Y_row_stride,
    X_ptr, X_row_stride,
    W_ptr, B_ptr,
    Mean_ptr, RSTD_ptr,
    n_cols, eps,
    BLOCK_SIZE: tl.constexpr,
):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_SIZE)
    ok = cols < n_cols
    x = tl.load(X_ptr + row * X_row_stride + cols, mask=ok, other=0.0)
    w = tl.load(W_ptr + cols, mask=ok, other=0.0)
    b = tl.load(B_ptr + cols, mask=ok, other=0.0)
    xf = x.to(tl.float32)
    mean = tl.sum(xf, axis=0) / n_cols
    centered = tl.where(ok, xf - mean, 0.0)
    var = tl.sum(centered * centered, axis=0) / n_cols
    rstd = rsqrt(var + eps)
    tl.store(Mean_ptr + row, mean)
    tl.store(RSTD_ptr + row, rstd)
    y = centered * rstd * w + b
    tl.store(Y_ptr + row * Y_row_stride + cols, y.to(x.dtype), mask=ok)


@triton.jit
def _layer_norm_backward_kernel(
    X_ptr, W_ptr, Mean_ptr, RSTD_ptr,
    DX_ptr, DW_ptr, DB_ptr, DY_ptr,
    stride_x, stride_dx, stride_dw, stride_dy,
    n_rows, n_cols,
    rows_per_program: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
    dtype: tl.constexpr,
):
    pid = tl.program_id(0)
    first = pid * rows_per_program
    last = min(first + rows_per_program, n_rows)
    cols = tl.arange(0, BLOCK_SIZE)
    ok = cols < n_cols
    dw_acc = tl.zeros((BLOCK_SIZE, ), dtype=tl.float32)
    db_acc = tl.zeros((BLOCK_SIZE, ), dtype=tl.float32)
    w = tl.load(W_ptr + cols, mask=ok, other=0.0).to(tl.float32)
    for row in range(first, last):
        x = tl.load(X_ptr + row * stride_x + cols, mask=ok, other=0.0).to(tl.float32)
        dy = tl.load(DY_ptr + row * stride_dy + cols, mask=ok, other=0.0).to(tl.float32)
        mean = tl.load(Mean_ptr + row)
        rstd = tl.load(RSTD_ptr + row)
        x_hat = tl.where(ok, (x - mean) * rstd, 0.0)
        wdy = w * dy
        c1 = tl.sum(x_hat * wdy, axis=0) / n_cols
        c2 = tl.sum(wdy, axis=0) / n_cols
        dx = (wdy - (x_hat * c1 + c2)) * rstd
        tl.store(DX_ptr + row * stride_dx + cols, dx.to(dtype), mask=ok)
        dw_acc += dy * x_hat
        db_acc += dy
    tl.store(DW_ptr + pid * stride_dw + cols, dw_acc, mask=ok)
    tl.store(DB_ptr + pid * stride_dw + cols, db_acc, mask=ok)


_TORCH_TO_TL = {torch.float32: tl.float32, torch.bfloat16: tl.bfloat16, torch.float16: tl.float16}


class LayerNormFunction(torch.autograd.Function):

    @staticmethod
    @ensure_contiguous
    def forward(ctx, X, W, B, eps):
        shape = X.shape
        X2 = X.view(-1, shape[-1])
        n_rows, n_cols = X2.shape
        BLOCK_SIZE, num_warps = calculate_settings(n_cols)
        Y = torch.empty_like(X2)
        Mean = torch.empty(n_rows, dtype=torch.float32, device=X.device)
        RSTD = torch.empty(n_rows, dtype=torch.float32, device=X.device)
        _layer_norm_forward_kernel[(n_rows, )](Y, Y.stride(0), X2, X2.stride(0), W, B, Mean, RSTD, n_cols, eps,
                                               BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
        ctx.save_for_backward(X2, W, B, Mean, RSTD)
        ctx.shape = shape
        return Y.view(*shape)

    @staticmethod
    @ensure_contiguous
    def backward(ctx, dY):
        X2, W, B, Mean, RSTD = ctx.saved_tensors
        dY2 = dY.view(-1, dY.shape[-1])
        n_rows, n_cols = dY2.shape
        sm_count = torch.cuda.get_device_properties(X2.device).multi_processor_count
        rows_per_program = math.ceil(n_rows / sm_count)
        DW = torch.empty((sm_count, n_cols), dtype=torch.float32, device=W.device)
        DB = torch.empty((sm_count, n_cols), dtype=torch.float32, device=W.device)
        DX = torch.empty_like(dY2)
        BLOCK_SIZE, num_warps = calculate_settings(n_cols)
        _layer_norm_backward_kernel[(sm_count, )](
            X2, W, Mean, RSTD, DX, DW, DB, dY2, X2.stride(0), DX.stride(0), DW.stride(0), dY2.stride(0),
            n_rows, n_cols, rows_per_program, BLOCK_SIZE=BLOCK_SIZE, dtype=_TORCH_TO_TL[X2.dtype],
            num_warps=num_warps)
        return DX.view(*ctx.shape), DW.sum(dim=0).to(W.dtype), DB.sum(dim=0).to(B.dtype), None
