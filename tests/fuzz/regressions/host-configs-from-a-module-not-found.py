"""Reductions over jagged (variable-length) sequences: values are stored as
one [total_len, D] tensor and `offsets[b]..offsets[b+1]` are the rows of
sequence b."""

import torch
import triton
import triton.language as tl

from benchsuite import tuning


@triton.autotune(configs=tuning.JAGGED_CONFIGS, key=["D", "max_seq_len"])
@triton.jit
def jagged_sum_kernel(
    values_ptr,  # [total_len, D]
    offsets_ptr,  # [B + 1], int64
    out_ptr,  # [B, D]
    D,
    max_seq_len,
    BLOCK_SEQ: tl.constexpr,
    BLOCK_D: tl.constexpr,
):
    b = tl.program_id(0)
    d_block = tl.program_id(1)
    start = tl.load(offsets_ptr + b)
    end = tl.load(offsets_ptr + b + 1)
    length = tl.minimum(end - start, max_seq_len)
    cols = d_block * BLOCK_D + tl.arange(0, BLOCK_D)
    col_ok = cols < D
    acc = tl.zeros((BLOCK_SEQ, BLOCK_D), dtype=tl.float32)
    for s0 in tl.range(0, length, BLOCK_SEQ):
        rows = s0 + tl.arange(0, BLOCK_SEQ)
        ok = (rows[:, None] < length) & col_ok[None, :]
        acc += tl.load(values_ptr + (start + rows[:, None]) * D + cols[None, :], mask=ok, other=0.0)
    tl.store(out_ptr + b * D + cols, tl.sum(acc, axis=0), mask=col_ok)


@triton.jit
def jagged_mean_kernel(
    values_ptr,
    offsets_ptr,
    out_ptr,
    D,
    BLOCK_SEQ: tl.constexpr,
    BLOCK_D: tl.constexpr,
):
    b = tl.program_id(0)
    start = tl.load(offsets_ptr + b)
    end = tl.load(offsets_ptr + b + 1)
    n = end - start
    for d0 in tl.static_range(0, 4):
        # Up to four column blocks per program, unrolled.
        cols = (tl.program_id(1) * 4 + d0) * BLOCK_D + tl.arange(0, BLOCK_D)
        col_ok = cols < D
        total = tl.zeros((BLOCK_D, ), dtype=tl.float32)
        for s0 in range(0, n, BLOCK_SEQ):
            rows = start + s0 + tl.arange(0, BLOCK_SEQ)
            ok = (rows[:, None] < end) & col_ok[None, :]
            chunk = tl.load(values_ptr + rows[:, None] * D + cols[None, :], mask=ok, other=0.0)
            total += tl.sum(chunk.to(tl.float32), axis=0)
        mean = tl.where(n > 0, total / n.to(tl.float32), 0.0)
        tl.store(out_ptr + b * D + cols, mean, mask=col_ok)


def jagged_sum(values, offsets, max_seq_len):
    B = offsets.numel() - 1
    D = values.shape[1]
    out = torch.empty((B, D), device=values.device, dtype=torch.float32)
    grid = lambda META: (B, triton.cdiv(D, META["BLOCK_D"]))
    jagged_sum_kernel[grid](values, offsets, out, D, max_seq_len)
    return out


def jagged_mean(values, offsets, block_seq=32, block_d=64):
    B = offsets.numel() - 1
    D = values.shape[1]
    out = torch.empty((B, D), device=values.device, dtype=torch.float32)
    jagged_mean_kernel[(B, triton.cdiv(D, 4 * block_d))](values, offsets, out, D, BLOCK_SEQ=block_seq,
                                                          BLOCK_D=block_d)
    return out
