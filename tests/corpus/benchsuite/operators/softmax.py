"""Softmax variants the suite compares: rows that fit one block (with a
compile-time unrolled multi-row loop) and a log-softmax backward."""

import torch
import triton
import triton.language as tl

from benchsuite.helpers import get_num_sms
from benchsuite.helpers import num_warps_for

ROWS_PER_PROGRAM = tl.constexpr(4)


@triton.jit
def softmax_multirow_kernel(out_ptr, in_ptr, stride, n_rows, n_cols, BLOCK_N: tl.constexpr):
    base_row = tl.program_id(0) * ROWS_PER_PROGRAM
    cols = tl.arange(0, BLOCK_N)
    for r in tl.static_range(ROWS_PER_PROGRAM):
        row = base_row + r
        ok = (cols < n_cols) & (row < n_rows)
        x = tl.load(in_ptr + row * stride + cols, mask=ok, other=-float("inf")).to(tl.float32)
        x = x - tl.max(x, axis=0)
        num = tl.exp2(x * 1.4426950408889634)
        y = num / tl.sum(num, axis=0)
        tl.store(out_ptr + row * stride + cols, y.to(out_ptr.dtype.element_ty), mask=ok)


@triton.jit
def log_softmax_backward_kernel(grad_in_ptr, grad_out_ptr, out_ptr, stride, n_cols, BLOCK_N: tl.constexpr):
    # d/dx log_softmax: g - exp(y) * sum(g)
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    ok = cols < n_cols
    g = tl.load(grad_out_ptr + row * stride + cols, mask=ok, other=0.0).to(tl.float32)
    y = tl.load(out_ptr + row * stride + cols, mask=ok, other=0.0).to(tl.float32)
    gi = g - tl.exp(y) * tl.sum(g, axis=0)
    tl.store(grad_in_ptr + row * stride + cols, gi, mask=ok)


def softmax(x):
    M, N = x.shape
    out = torch.empty_like(x)
    block = triton.next_power_of_2(N)
    softmax_multirow_kernel[(triton.cdiv(M, ROWS_PER_PROGRAM.value), )](out, x, x.stride(0), M, N, BLOCK_N=block,
                                                                       num_warps=num_warps_for(block))
    return out


def log_softmax_backward(grad_out, out):
    M, N = out.shape
    grad_in = torch.empty_like(out)
    block = triton.next_power_of_2(N)
    log_softmax_backward_kernel[(M, )](grad_in, grad_out, out, out.stride(0), N, BLOCK_N=block,
                                       num_warps=num_warps_for(block))
    return grad_in
