"""Row reductions: sum, argmax, a Welford layer norm built on tl.reduce with
a tuple combine function, and scans."""

import torch
import triton
import triton.language as tl

from benchsuite.helpers import num_warps_for
from benchsuite.helpers import welford_combine
from benchsuite.tuning import REDUCTION_CONFIGS


@triton.autotune(configs=REDUCTION_CONFIGS, key=["N"])
@triton.jit
def row_sum_kernel(x_ptr, out_ptr, stride_row, N, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros((BLOCK_N, ), dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        acc += tl.load(x_ptr + row * stride_row + cols, mask=cols < N, other=0.0).to(tl.float32)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


@triton.jit
def row_argmax_kernel(x_ptr, idx_ptr, val_ptr, stride_row, N, BLOCK_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + row * stride_row + cols, mask=cols < N, other=float("-inf"))
    best, where = tl.max(x, axis=0, return_indices=True, return_indices_tie_break_left=True)
    tl.store(idx_ptr + row, where.to(tl.int64))
    tl.store(val_ptr + row, best)


@triton.jit
def welford_layer_norm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, stride_row, N, eps, BLOCK_N: tl.constexpr):
    """Mean and variance in one pass with Welford's update, merged across
    lanes with tl.reduce over (mean, m2, count) triples."""
    row = tl.program_id(0).to(tl.int64)
    mean = tl.zeros((BLOCK_N, ), dtype=tl.float32)
    m2 = tl.zeros((BLOCK_N, ), dtype=tl.float32)
    count = tl.zeros((BLOCK_N, ), dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        ok = cols < N
        x = tl.load(x_ptr + row * stride_row + cols, mask=ok, other=0.0).to(tl.float32)
        new_count = count + ok.to(tl.float32)
        delta = x - mean
        mean = tl.where(ok, mean + delta / tl.maximum(new_count, 1.0), mean)
        m2 = tl.where(ok, m2 + delta * (x - mean), m2)
        count = new_count
    row_mean, row_m2, row_count = tl.reduce((mean, m2, count), 0, welford_combine)
    rstd = tl.rsqrt(row_m2 / row_count + eps)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        ok = cols < N
        x = tl.load(x_ptr + row * stride_row + cols, mask=ok, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=ok, other=1.0).to(tl.float32)
        b = tl.load(b_ptr + cols, mask=ok, other=0.0).to(tl.float32)
        tl.store(y_ptr + row * stride_row + cols, (x - row_mean) * rstd * w + b, mask=ok)


@triton.jit
def _max_abs_combine(a, b):
    return tl.maximum(tl.abs(a), tl.abs(b))


@triton.jit
def row_scan_kernel(x_ptr, cumsum_ptr, runmax_ptr, stride_row, N, BLOCK_N: tl.constexpr, REVERSE: tl.constexpr):
    """Inclusive prefix sum and running max |x| of one row (N <= BLOCK_N)."""
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    ok = cols < N
    x = tl.load(x_ptr + row * stride_row + cols, mask=ok, other=0.0)
    csum = tl.cumsum(x, axis=0, reverse=REVERSE)
    runmax = tl.associative_scan(x, 0, _max_abs_combine, reverse=REVERSE)
    tl.store(cumsum_ptr + row * stride_row + cols, csum, mask=ok)
    tl.store(runmax_ptr + row * stride_row + cols, runmax, mask=ok)


def row_sum(x):
    M, N = x.shape
    out = torch.empty(M, device=x.device, dtype=torch.float32)
    row_sum_kernel[(M, )](x, out, x.stride(0), N)
    return out


def row_argmax(x):
    M, N = x.shape
    idx = torch.empty(M, device=x.device, dtype=torch.int64)
    val = torch.empty(M, device=x.device, dtype=x.dtype)
    block = triton.next_power_of_2(N)
    row_argmax_kernel[(M, )](x, idx, val, x.stride(0), N, BLOCK_N=block, num_warps=num_warps_for(block))
    return val, idx


def welford_layer_norm(x, w, b, eps=1e-5, block=1024):
    M, N = x.shape
    y = torch.empty_like(x, dtype=torch.float32)
    welford_layer_norm_kernel[(M, )](x, w, b, y, x.stride(0), N, eps, BLOCK_N=block,
                                     num_warps=num_warps_for(block))
    return y


def row_scan(x, reverse=False):
    M, N = x.shape
    csum = torch.empty_like(x)
    runmax = torch.empty_like(x)
    row_scan_kernel[(M, )](x, csum, runmax, x.stride(0), N, BLOCK_N=triton.next_power_of_2(N), REVERSE=reverse)
    return csum, runmax
