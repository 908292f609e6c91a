"""
Layer normalization
===================

Forward pass with one program per row, and a backward pass split in two:
the first kernel computes dX and accumulates partial dW/dB sums into a small
number of buffers guarded by spin locks; the second reduces those buffers.
"""

import torch

import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def _layer_norm_fwd_fused(
    X,  # input rows
    Y,  # output rows
    W,  # weight
    B,  # bias
    Mean,  # per-row mean (saved for backward)
    Rstd,  # per-row 1/std (saved for backward)
    stride,  # elements between rows of X and Y
    N,  # columns
    eps,
    BLOCK_SIZE: tl.constexpr,
):
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    # Pass 1: mean.
    partial = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        partial += tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
    mean = tl.sum(partial, axis=0) / N
    # Pass 2: variance around that mean.
    partial = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        v = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        d = tl.where(cols < N, v - mean, 0.)
        partial += d * d
    var = tl.sum(partial, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    # Pass 3: normalize and apply the affine transform.
    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        ok = cols < N
        w = tl.load(W + cols, mask=ok)
        b = tl.load(B + cols, mask=ok)
        v = tl.load(X + cols, mask=ok, other=0.).to(tl.float32)
        y = (v - mean) * rstd * w + b
        tl.store(Y + cols, y, mask=ok)


@triton.jit
def _layer_norm_bwd_dx_fused(DX,  # input gradient
                             DY,  # output gradient
                             DW,  # partial sums of the weight gradient
                             DB,  # partial sums of the bias gradient
                             X, W, Mean, Rstd,
                             Lock,  # GROUP_SIZE_M locks followed by GROUP_SIZE_M counters
                             stride, N,
                             GROUP_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE_N)
    ok = cols < N
    X += row * stride
    DY += row * stride
    DX += row * stride
    # Rows are spread over GROUP_SIZE_M partial buffers.
    slot = row % GROUP_SIZE_M
    Lock += slot
    Count = Lock + GROUP_SIZE_M
    DW = DW + slot * N + cols
    DB = DB + slot * N + cols

    x = tl.load(X + cols, mask=ok, other=0).to(tl.float32)
    dy = tl.load(DY + cols, mask=ok, other=0).to(tl.float32)
    w = tl.load(W + cols, mask=ok).to(tl.float32)
    mean = tl.load(Mean + row)
    rstd = tl.load(Rstd + row)
    xhat = tl.where(ok, (x - mean) * rstd, 0.)
    wdy = tl.where(ok, w * dy, 0.)
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd
    tl.store(DX + cols, dx, mask=ok)

    part_dw = (dy * xhat).to(w.dtype)
    part_db = dy.to(w.dtype)
    # Take the slot's lock, add into its buffer, release.
    while tl.atomic_cas(Lock, 0, 1) == 1:
        pass
    seen = tl.load(Count)
    if seen == 0:
        tl.atomic_xchg(Count, 1)
    else:
        part_dw += tl.load(DW, mask=ok)
        part_db += tl.load(DB, mask=ok)
    tl.store(DW, part_dw, mask=ok)
    tl.store(DB, part_db, mask=ok)
    tl.debug_barrier()
    tl.atomic_xchg(Lock, 0)


@triton.jit
def _layer_norm_bwd_dwdb(DW,  # partial weight gradients, [M, N]
                         DB,  # partial bias gradients, [M, N]
                         FINAL_DW, FINAL_DB,
                         M,  # number of partial buffers
                         N,  # columns
                         BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    acc_w = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    acc_b = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for r0 in range(0, M, BLOCK_SIZE_M):
        rows = r0 + tl.arange(0, BLOCK_SIZE_M)
        ok = (rows[:, None] < M) & (cols[None, :] < N)
        offs = rows[:, None] * N + cols[None, :]
        acc_w += tl.load(DW + offs, mask=ok, other=0.)
        acc_b += tl.load(DB + offs, mask=ok, other=0.)
    tl.store(FINAL_DW + cols, tl.sum(acc_w, axis=0), mask=cols < N)
    tl.store(FINAL_DB + cols, tl.sum(acc_b, axis=0), mask=cols < N)


def _partial_buffers_for(n_cols):
    # Fewer partial buffers for wide rows: each buffer is a full row of fp32.
    for limit, buffers in ((1024, 256), (4096, 128), (8192, 96)):
        if n_cols <= limit:
            return buffers
    return 64


class LayerNormFunction(torch.autograd.Function):

    @staticmethod
    def forward(ctx, x, weight, bias, eps=1e-5):
        rows2d = x.reshape(-1, x.shape[-1])
        n_rows, n_cols = rows2d.shape
        out = torch.empty_like(rows2d)
        mean = rows2d.new_empty((n_rows, ), dtype=torch.float32)
        rstd = rows2d.new_empty((n_rows, ), dtype=torch.float32)
        block = min(triton.next_power_of_2(n_cols), 65536 // x.element_size())
        warps = max(1, min(8, block // 256))
        _layer_norm_fwd_fused[(n_rows, )](rows2d, out, weight, bias, mean, rstd, rows2d.stride(0), n_cols,
                                          eps, BLOCK_SIZE=block, num_warps=warps)
        ctx.save_for_backward(rows2d, weight, mean, rstd)
        ctx.block, ctx.warps = block, warps
        return out.view_as(x)

    @staticmethod
    def backward(ctx, grad_out):
        rows2d, weight, mean, rstd = ctx.saved_tensors
        n_rows, n_cols = rows2d.shape
        buffers = _partial_buffers_for(n_cols)
        locks = torch.zeros(2 * buffers, dtype=torch.int32, device=weight.device)
        dw_parts = torch.zeros((buffers, n_cols), dtype=weight.dtype, device=weight.device)
        db_parts = torch.zeros_like(dw_parts)
        grad_in = torch.empty_like(rows2d)
        grad_rows = grad_out.reshape(-1, n_cols)
        _layer_norm_bwd_dx_fused[(n_rows, )](grad_in, grad_rows, dw_parts, db_parts, rows2d, weight, mean, rstd,
                                             locks, rows2d.stride(0), n_cols, GROUP_SIZE_M=buffers,
                                             BLOCK_SIZE_N=ctx.block, num_warps=ctx.warps)
        dw = torch.empty_like(weight)
        db = torch.empty_like(weight)
        _layer_norm_bwd_dwdb[lambda meta: (triton.cdiv(n_cols, meta["BLOCK_SIZE_N"]), )](
            dw_parts, db_parts, dw, db, min(buffers, n_rows), n_cols, BLOCK_SIZE_M=32, BLOCK_SIZE_N=128)
        return grad_in.view_as(grad_out), dw, db, None


layer_norm = LayerNormFunction.apply
