"""Helpers shared by every op: launch settings, host decorators, version
checks, and the compile-time constants kernels branch on."""

import functools
import importlib
import importlib.metadata
import operator
from typing import Callable

import torch
import triton
import triton.language as tl
from packaging.version import Version

# Largest row the single-block kernels will hold in registers.
MAX_FUSED_SIZE = 65536


def infer_device() -> str:
    if torch.cuda.is_available():
        return "cuda"
    if getattr(torch, "xpu", None) is not None and torch.xpu.is_available():
        return "xpu"
    return "cpu"


def is_hip() -> bool:
    return torch.version.hip is not None


def ensure_contiguous(fn):
    """Make every tensor argument of an autograd method contiguous."""

    @functools.wraps(fn)
    def wrapper(ctx, *args, **kwargs):

        def _contig(value):
            return value.contiguous() if isinstance(value, torch.Tensor) else value

        args = [_contig(a) for a in args]
        kwargs = {k: _contig(v) for k, v in kwargs.items()}
        return fn(ctx, *args, **kwargs)

    return wrapper


def amp_custom_fwd(fn):
    return torch.amp.custom_fwd(fn, device_type=infer_device())


def amp_custom_bwd(fn):
    return torch.amp.custom_bwd(fn, device_type=infer_device())


def calculate_settings(n: int):
    """Block size and warp count for a kernel that keeps one row of `n`
    elements in a single block."""
    block_size = triton.next_power_of_2(n)
    if block_size > MAX_FUSED_SIZE:
        raise RuntimeError(f"row of {n} elements exceeds the fused limit of {MAX_FUSED_SIZE}")
    if block_size >= 32768:
        num_warps = 16 if is_hip() else 32
    elif block_size >= 8192:
        num_warps = 16
    elif block_size >= 2048:
        num_warps = 8
    else:
        num_warps = 4
    return block_size, num_warps


def compare_version(package: str, op: Callable, target: str) -> bool:
    try:
        installed = importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return False
    return op(Version(installed), Version(target))


def get_amp_custom_fwd_bwd():
    if compare_version("torch", operator.ge, "2.4.0"):
        return amp_custom_fwd, amp_custom_bwd
    return torch.cuda.amp.custom_fwd, torch.cuda.amp.custom_bwd


def torch_to_triton_dtype(dtype):
    return {
        torch.float32: tl.float32,
        torch.float16: tl.float16,
        torch.bfloat16: tl.bfloat16,
    }[dtype]


# Where the norm kernels cast to fp32 (the reference implementations of the
# model families differ in this).
_CASTING_MODE_NONE = tl.constexpr(-1)
_CASTING_MODE_LLAMA = tl.constexpr(0)
_CASTING_MODE_GEMMA = tl.constexpr(1)

_str_to_casting_mode = {
    "none": _CASTING_MODE_NONE.value,
    "llama": _CASTING_MODE_LLAMA.value,
    "gemma": _CASTING_MODE_GEMMA.value,
}

# Loss reductions.
_REDUCTION_MODE_NONE = tl.constexpr(0)
_REDUCTION_MODE_SUM = tl.constexpr(1)
_REDUCTION_MODE_MEAN = tl.constexpr(2)
_REDUCTION_MODE_BATCHMEAN = tl.constexpr(3)

_str_to_reduction_mode = {
    "none": _REDUCTION_MODE_NONE.value,
    "sum": _REDUCTION_MODE_SUM.value,
    "mean": _REDUCTION_MODE_MEAN.value,
    "batchmean": _REDUCTION_MODE_BATCHMEAN.value,
}

# Newer Triton moved libdevice; older releases only had tl.math.
if compare_version("triton", operator.ge, "3.0.0"):
    try:
        from triton.language.extra.libdevice import rsqrt
    except ModuleNotFoundError:
        from triton.language.extra.cuda.libdevice import rsqrt
else:
    from triton.language.math import rsqrt


@triton.jit
def element_mul_kernel(X_ptr, X_stride, grad_output_ptr, n_cols, BLOCK_SIZE: tl.constexpr):
    """Scale a row of X in place by the scalar upstream gradient."""
    row = tl.program_id(0).to(tl.int64)
    X_ptr += row * X_stride
    scale = tl.load(grad_output_ptr)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        ok = cols < n_cols
        x = tl.load(X_ptr + cols, mask=ok)
        tl.store(X_ptr + cols, x * scale, mask=ok)
