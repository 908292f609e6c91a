"""Grouped GEMM of a mixture-of-experts layer.

Tokens are pre-sorted by expert and padded so that every BLOCK_SIZE_M rows
belong to one expert: `sorted_token_ids` holds (token * top_k + k) indices,
with values >= num_valid_tokens as padding, and `expert_ids[i]` is the
expert of row block i."""

import torch
import triton
import triton.language as tl

from servelib.ops import configs


@triton.jit
def _grouped_pid(pid, num_pid_m, num_pid_n, GROUP_SIZE_M: tl.constexpr):
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@triton.jit
def fused_moe_kernel(
    a_ptr,  # [num_tokens, K]
    b_ptr,  # [num_experts, N, K]
    c_ptr,  # [num_tokens * top_k, N]
    topk_weights_ptr,  # [num_tokens * top_k]
    sorted_token_ids_ptr,
    expert_ids_ptr,
    num_tokens_post_padded_ptr,
    N,
    K,
    EM,
    num_valid_tokens,
    stride_am,
    stride_ak,
    stride_be,
    stride_bk,
    stride_bn,
    stride_cm,
    stride_cn,
    BLOCK_SIZE_M: tl.constexpr,
    BLOCK_SIZE_N: tl.constexpr,
    BLOCK_SIZE_K: tl.constexpr,
    GROUP_SIZE_M: tl.constexpr,
    MUL_ROUTED_WEIGHT: tl.constexpr,
    top_k: tl.constexpr,
    compute_type: tl.constexpr,
):
    pid = tl.program_id(axis=0)
    pid_m, pid_n = _grouped_pid(pid, tl.cdiv(EM, BLOCK_SIZE_M), tl.cdiv(N, BLOCK_SIZE_N), GROUP_SIZE_M)
    num_tokens_post_padded = tl.load(num_tokens_post_padded_ptr)
    if pid_m * BLOCK_SIZE_M >= num_tokens_post_padded:
        return

    row_ids = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M).to(tl.int64)
    token_ids = tl.load(sorted_token_ids_ptr + row_ids)
    token_ok = token_ids < num_valid_tokens
    expert = tl.load(expert_ids_ptr + pid_m).to(tl.int64)

    offs_n = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N).to(tl.int64)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    # Each routed row reads the activation of its source token.
    a_ptrs = a_ptr + (token_ids[:, None] // top_k * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + expert * stride_be + (offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn)

    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        k_left = K - k * BLOCK_SIZE_K
        a = tl.load(a_ptrs, mask=token_ok[:, None] & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < k_left, other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk

    if MUL_ROUTED_WEIGHT:
        w = tl.load(topk_weights_ptr + token_ids, mask=token_ok, other=0)
        acc = acc * w[:, None]
    acc = acc.to(compute_type)

    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * token_ids[:, None] + stride_cn * offs_cn[None, :]
    tl.store(c_ptrs, acc, mask=token_ok[:, None] & (offs_cn[None, :] < N))


def _compute_type(dtype):
    return tl.bfloat16 if dtype == torch.bfloat16 else tl.float16


def invoke_fused_moe_kernel(A, B, C, topk_weights, sorted_token_ids, expert_ids, num_tokens_post_padded,
                            mul_routed_weight, top_k, config=None):
    config = config or {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8}
    EM = sorted_token_ids.shape[0]
    grid = lambda META: (triton.cdiv(EM, META["BLOCK_SIZE_M"]) * triton.cdiv(B.shape[1], META["BLOCK_SIZE_N"]), )
    fused_moe_kernel[grid](
        A, B, C, topk_weights, sorted_token_ids, expert_ids, num_tokens_post_padded, B.shape[1], B.shape[2], EM,
        topk_weights.numel(), A.stride(0), A.stride(1), B.stride(0), B.stride(2), B.stride(1), C.stride(-2),
        C.stride(-1), MUL_ROUTED_WEIGHT=mul_routed_weight, top_k=top_k, compute_type=_compute_type(A.dtype),
        **config)
