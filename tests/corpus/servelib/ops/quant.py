"""Activation quantization for the low-precision GEMMs: fp8 (e4m3) with a
per-token, per-tensor (static) or per-group scale, and int8 per token."""

import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice

from servelib.platform import current_platform

_FP8_DTYPE = current_platform.fp8_dtype()
_FP8_FINFO = torch.finfo(_FP8_DTYPE)
FP8_MIN = _FP8_FINFO.min
FP8_MAX = _FP8_FINFO.max
FP8_E4M3_MAX = tl.constexpr(torch.finfo(torch.float8_e4m3fn).max)
INT8_MAX = tl.constexpr(127.0)


@triton.jit
def _per_token_quant_fp8_kernel(
    x_ptr,
    xq_ptr,
    scale_ptr,
    stride_x,
    stride_xq,
    N,
    fp8_min,
    fp8_max,
    eps,
    BLOCK: tl.constexpr,
):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    ok = cols < N
    x = tl.load(x_ptr + row * stride_x + cols, mask=ok, other=0.0).to(tl.float32)
    amax = tl.maximum(tl.max(tl.abs(x)), eps)
    scale = amax / fp8_max
    q = tl.clamp(x / scale, fp8_min, fp8_max).to(xq_ptr.dtype.element_ty)
    tl.store(xq_ptr + row * stride_xq + cols, q, mask=ok)
    tl.store(scale_ptr + row, scale)


@triton.jit
def _static_scaled_fp8_quant_kernel(x_ptr, out_ptr, scale_ptr, n_elements, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    ok = offs < n_elements
    inv_scale = 1.0 / tl.load(scale_ptr)
    x = tl.load(x_ptr + offs, mask=ok, other=0.0).to(tl.float32)
    q = tl.clamp(x * inv_scale, -FP8_E4M3_MAX, FP8_E4M3_MAX)
    tl.store(out_ptr + offs, q.to(tl.float8e4nv), mask=ok)


@triton.jit
def _per_token_group_quant_fp8(
    y_ptr,
    y_q_ptr,
    y_s_ptr,
    group_size,
    y_num_columns,
    y_row_stride,
    eps,
    fp8_min,
    fp8_max,
    BLOCK: tl.constexpr,
):
    """One program per group of `group_size` consecutive values of a row."""
    g = tl.program_id(0)
    groups_per_row = y_num_columns // group_size
    row = g // groups_per_row
    col0 = (g % groups_per_row) * group_size
    src = y_ptr + row.to(tl.int64) * y_row_stride + col0
    dst = y_q_ptr + g.to(tl.int64) * group_size
    cols = tl.arange(0, BLOCK)
    ok = cols < group_size
    y = tl.load(src + cols, mask=ok, other=0.0).to(tl.float32)
    amax = tl.maximum(tl.max(tl.abs(y)), eps)
    s = amax / fp8_max
    yq = tl.clamp(y / s, fp8_min, fp8_max).to(y_q_ptr.dtype.element_ty)
    tl.store(dst + cols, yq, mask=ok)
    tl.store(y_s_ptr + g, s)


@triton.jit
def _dynamic_int8_quant_kernel(x_ptr, out_ptr, scale_ptr, stride_x, stride_out, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    ok = cols < n_cols
    x = tl.load(x_ptr + row * stride_x + cols, mask=ok, other=0.0).to(tl.float32)
    amax = tl.max(tl.abs(x), axis=0)
    scale = tl.where(amax > 0, amax / INT8_MAX, 1.0)
    q = libdevice.rint(x / scale)
    q = tl.clamp(q, -INT8_MAX, INT8_MAX).to(tl.int8)
    tl.store(out_ptr + row * stride_out + cols, q, mask=ok)
    tl.store(scale_ptr + row, scale)


def per_token_quant_fp8(x: torch.Tensor, eps: float = 1e-10):
    x2 = x.view(-1, x.shape[-1])
    M, N = x2.shape
    xq = torch.empty_like(x2, dtype=_FP8_DTYPE)
    scales = torch.empty((M, 1), dtype=torch.float32, device=x.device)
    BLOCK = triton.next_power_of_2(N)
    num_warps = min(max(BLOCK // 256, 1), 8)
    _per_token_quant_fp8_kernel[(M, )](x2, xq, scales, x2.stride(0), xq.stride(0), N, FP8_MIN, FP8_MAX, eps,
                                       BLOCK=BLOCK, num_warps=num_warps)
    return xq.view_as(x), scales


def static_scaled_fp8_quant(x: torch.Tensor, scale: torch.Tensor):
    out = torch.empty_like(x, dtype=torch.float8_e4m3fn)
    n = x.numel()
    _static_scaled_fp8_quant_kernel[(triton.cdiv(n, 1024), )](x, out, scale, n, BLOCK=1024)
    return out


def per_token_group_quant_fp8(x: torch.Tensor, group_size: int, eps: float = 1e-10):
    assert x.shape[-1] % group_size == 0
    x_q = torch.empty_like(x, dtype=_FP8_DTYPE)
    M = x.numel() // group_size
    x_s = torch.empty(x.shape[:-1] + (x.shape[-1] // group_size, ), device=x.device, dtype=torch.float32)
    BLOCK = triton.next_power_of_2(group_size)
    _per_token_group_quant_fp8[(M, )](x, x_q, x_s, group_size, x.shape[-1], x.stride(-2), eps, FP8_MIN, FP8_MAX,
                                      BLOCK=BLOCK, num_warps=min(max(BLOCK // 256, 1), 8), num_stages=1)
    return x_q, x_s


def dynamic_int8_quant(x: torch.Tensor):
    x2 = x.view(-1, x.shape[-1])
    out = torch.empty_like(x2, dtype=torch.int8)
    scales = torch.empty((x2.shape[0], 1), dtype=torch.float32, device=x.device)
    _dynamic_int8_quant_kernel[(x2.shape[0], )](x2, out, scales, x2.stride(0), out.stride(0), x2.shape[1],
                                                BLOCK=triton.next_power_of_2(x2.shape[1]))
    return out.view_as(x), scales
