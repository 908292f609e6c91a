"""GEMM variants: addmm with a fused activation epilogue, and split-K for
shapes with a long reduction dimension."""

import torch
import triton
import triton.language as tl

from benchsuite import tuning
from benchsuite.helpers import apply_activation


@triton.autotune(configs=tuning.GEMM_CONFIGS, key=["M", "N", "K"])
@triton.jit
def addmm_kernel(
    a_ptr, b_ptr, bias_ptr, c_ptr,
    M, N, K,
    stride_am, stride_ak,
    stride_bk, stride_bn,
    stride_cm, stride_cn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
    ACTIVATION: tl.constexpr,
    BIAS_ALONG_M: tl.constexpr = False,
):
    """C = act(A @ B + bias); bias broadcast along rows (or columns)."""
    pid = tl.program_id(0)
    grid_m = tl.cdiv(M, BLOCK_M)
    grid_n = tl.cdiv(N, BLOCK_N)
    width = GROUP_M * grid_n
    group_id = pid // width
    group_size = min(grid_m - group_id * GROUP_M, GROUP_M)
    pid_m = group_id * GROUP_M + (pid % group_size)
    pid_n = (pid % width) // group_size

    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ram = tl.max_contiguous(tl.multiple_of(rm % M, BLOCK_M), BLOCK_M)
    rbn = tl.max_contiguous(tl.multiple_of(rn % N, BLOCK_N), BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    A = a_ptr + (ram[:, None] * stride_am + rk[None, :] * stride_ak)
    B = b_ptr + (rk[:, None] * stride_bk + rbn[None, :] * stride_bn)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(K, 0, -BLOCK_K):
        a = tl.load(A, mask=rk[None, :] < k, other=0.)
        b = tl.load(B, mask=rk[:, None] < k, other=0.)
        acc += tl.dot(a, b, out_dtype=tl.float32)
        A += BLOCK_K * stride_ak
        B += BLOCK_K * stride_bk

    if BIAS_ALONG_M:
        bias = tl.load(bias_ptr + rm, mask=rm < M, other=0.0).to(tl.float32)
        acc += bias[:, None]
    else:
        bias = tl.load(bias_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)
        acc += bias[None, :]
    acc = apply_activation(acc, ACTIVATION)

    C = c_ptr + (rm[:, None] * stride_cm + rn[None, :] * stride_cn)
    mask = (rm < M)[:, None] & (rn < N)[None, :]
    tl.store(C, acc.to(c_ptr.dtype.element_ty), mask=mask)


@triton.autotune(
    configs=tuning.SPLITK_CONFIGS,
    key=["M", "N", "K"],
    prune_configs_by={"early_config_prune": tuning.prune_splitk},
    reset_to_zero=["c_ptr"],
)
@triton.jit
def splitk_matmul_kernel(
    a_ptr, b_ptr, c_ptr,  # c is fp32 and zero-initialized: partial products are added atomically
    M, N, K,
    stride_am, stride_ak,
    stride_bk, stride_bn,
    stride_cm, stride_cn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    SPLIT_K: tl.constexpr,
):
    pid_mn = tl.program_id(0)
    pid_k = tl.program_id(1)
    grid_n = tl.cdiv(N, BLOCK_N)
    pid_m = pid_mn // grid_n
    pid_n = pid_mn % grid_n
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    # Split s handles K tiles s, s + SPLIT_K, s + 2 * SPLIT_K, ...
    rk = pid_k * BLOCK_K + tl.arange(0, BLOCK_K)
    A = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    B = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, tl.cdiv(K, BLOCK_K * SPLIT_K)):
        k_left = K - (k0 * SPLIT_K + pid_k) * BLOCK_K
        kk = tl.arange(0, BLOCK_K)
        a = tl.load(A, mask=(rm[:, None] < M) & (kk[None, :] < k_left), other=0.0)
        b = tl.load(B, mask=(kk[:, None] < k_left) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        A += BLOCK_K * SPLIT_K * stride_ak
        B += BLOCK_K * SPLIT_K * stride_bk
    C = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    if SPLIT_K == 1:
        tl.store(C, acc, mask=mask)
    else:
        tl.atomic_add(C, acc, mask=mask, sem="relaxed")


def addmm(bias, a, b, activation="none"):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=a.dtype)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]) * triton.cdiv(N, META["BLOCK_N"]), )
    addmm_kernel[grid](a, b, bias, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                       c.stride(1), ACTIVATION=activation)
    return c


def splitk_matmul(a, b):
    M, K = a.shape
    _, N = b.shape
    c = torch.zeros((M, N), device=a.device, dtype=torch.float32)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]) * triton.cdiv(N, META["BLOCK_N"]), META["SPLIT_K"])
    splitk_matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                               c.stride(1))
    return c.to(a.dtype)
