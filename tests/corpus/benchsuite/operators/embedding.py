"""Embedding lookup (gather of rows) and its backward (scatter-add)."""

import torch
import triton
import triton.language as tl

from benchsuite.helpers import num_warps_for


@triton.jit
def embedding_forward_kernel(
    weight_ptr,  # [num_embeddings, D]
    indices_ptr,  # [num_indices], int64
    out_ptr,  # [num_indices, D]
    num_indices,
    D,
    padding_idx,
    BLOCK_M: tl.constexpr,
    BLOCK_D: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_d = tl.program_id(1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_d * BLOCK_D + tl.arange(0, BLOCK_D)
    row_ok = rows < num_indices
    idx = tl.load(indices_ptr + rows, mask=row_ok, other=0)
    keep = row_ok & (idx != padding_idx)
    mask = keep[:, None] & (cols[None, :] < D)
    vals = tl.load(weight_ptr + idx[:, None] * D + cols[None, :], mask=mask, other=0.0)
    out_mask = row_ok[:, None] & (cols[None, :] < D)
    tl.store(out_ptr + rows[:, None].to(tl.int64) * D + cols[None, :], vals, mask=out_mask)


@triton.jit
def embedding_backward_kernel(
    grad_out_ptr,  # [num_indices, D]
    indices_ptr,
    grad_weight_ptr,  # [num_embeddings, D], fp32, zero-initialized
    num_indices,
    D,
    BLOCK_D: tl.constexpr,
):
    i = tl.program_id(0)
    idx = tl.load(indices_ptr + i)
    for d0 in range(0, D, BLOCK_D):
        cols = d0 + tl.arange(0, BLOCK_D)
        ok = cols < D
        g = tl.load(grad_out_ptr + i.to(tl.int64) * D + cols, mask=ok, other=0.0).to(tl.float32)
        tl.atomic_add(grad_weight_ptr + idx * D + cols, g, mask=ok)


def embedding(weight, indices, padding_idx=-1):
    flat = indices.reshape(-1)
    n = flat.numel()
    D = weight.shape[1]
    out = torch.empty((n, D), device=weight.device, dtype=weight.dtype)
    block_m, block_d = 32, min(256, triton.next_power_of_2(D))
    grid = (triton.cdiv(n, block_m), triton.cdiv(D, block_d))
    embedding_forward_kernel[grid](weight, flat, out, n, D, padding_idx, BLOCK_M=block_m, BLOCK_D=block_d,
                                   num_warps=num_warps_for(block_m * block_d, hi=8))
    return out.view(*indices.shape, D)


def embedding_backward(grad_out, indices, num_embeddings):
    flat = indices.reshape(-1)
    D = grad_out.shape[-1]
    gw = torch.zeros((num_embeddings, D), device=grad_out.device, dtype=torch.float32)
    embedding_backward_kernel[(flat.numel(), )](grad_out.reshape(-1, D), flat, gw, flat.numel(), D, BLOCK_D=256)
    return gw
