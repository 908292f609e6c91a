"""Weight-only int4 GEMM: bf16 activations times int4 weights packed two per
byte along K, with one bf16 scale and zero point per (K-group, column)."""

import torch
import triton
import triton.language as tl

from benchsuite.tuning import INT4_CONFIGS


@triton.jit
def _unpack_int4(packed, BLOCK_K: tl.constexpr, BLOCK_N: tl.constexpr):
    """[BLOCK_K // 2, BLOCK_N] int8 -> [BLOCK_K, BLOCK_N] int8 in [0, 15]."""
    lo = packed & 0xF
    hi = (packed >> 4) & 0xF
    # Row 2i of the result is the low nibble of packed row i, row 2i+1 the high one.
    both = tl.join(lo, hi)  # [BLOCK_K // 2, BLOCK_N, 2]
    both = tl.permute(both, (0, 2, 1))  # [BLOCK_K // 2, 2, BLOCK_N]
    return tl.reshape(both, (BLOCK_K, BLOCK_N))


@triton.autotune(configs=INT4_CONFIGS, key=["M", "N", "K"])
@triton.jit
def matmul_int4_kernel(
    a_ptr,  # [M, K] bf16
    b_ptr,  # [K // 2, N] int8, two 4-bit values per byte
    c_ptr,  # [M, N] bf16
    scales_ptr,  # [K // group_size, N] bf16
    zeros_ptr,  # [K // group_size, N] bf16
    M, N, K,
    stride_am, stride_ak,
    stride_bk, stride_bn,
    stride_cm, stride_cn,
    stride_sg, stride_sn,
    group_size,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    tl.static_assert(BLOCK_K % 2 == 0)
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    rk_half = tl.arange(0, BLOCK_K // 2)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_ptrs = b_ptr + rk_half[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < K - k0), other=0.0)
        packed = tl.load(b_ptrs, mask=(rk_half[:, None] < (K - k0) // 2) & (rn[None, :] < N), other=0)
        q = _unpack_int4(packed, BLOCK_K, BLOCK_N)
        g = (k0 + rk) // group_size
        s = tl.load(scales_ptr + g[:, None] * stride_sg + rn[None, :] * stride_sn,
                    mask=(rk[:, None] < K - k0) & (rn[None, :] < N), other=0.0)
        z = tl.load(zeros_ptr + g[:, None] * stride_sg + rn[None, :] * stride_sn,
                    mask=(rk[:, None] < K - k0) & (rn[None, :] < N), other=0.0)
        w = ((q.to(tl.float32) - 8.0) * s.to(tl.float32) + z.to(tl.float32)).to(tl.bfloat16)
        acc += tl.dot(a, w)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += (BLOCK_K // 2) * stride_bk
    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(tl.bfloat16), mask=(rm[:, None] < M) & (rn[None, :] < N))


def matmul_int4(a, b_packed, scales, zeros, group_size=128):
    M, K = a.shape
    N = b_packed.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=torch.bfloat16)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]), triton.cdiv(N, META["BLOCK_N"]))
    matmul_int4_kernel[grid](a, b_packed, c, scales, zeros, M, N, K, a.stride(0), a.stride(1), b_packed.stride(0),
                             b_packed.stride(1), c.stride(0), c.stride(1), scales.stride(0), scales.stride(1),
                             group_size)
    return c
