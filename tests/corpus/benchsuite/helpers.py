"""Host-side helpers for picking launch parameters, and device helpers
(activations, index math) shared by the operators."""

import functools
import os

import torch
import triton
import triton.language as tl


def is_fbcode() -> bool:
    return not hasattr(torch.version, "git_version")


def is_cuda() -> bool:
    return triton.runtime.driver.active.get_current_target().backend == "cuda"


@functools.lru_cache(None)
def get_num_sms() -> int:
    if not torch.cuda.is_available():
        return 132
    return torch.cuda.get_device_properties("cuda").multi_processor_count


def num_warps_for(block: int, lo: int = 1, hi: int = 16) -> int:
    """One warp per 256 elements, clamped."""
    return max(lo, min(hi, block // 256))


def num_warps_for_tile(m: int, n: int) -> int:
    return 8 if m * n >= 128 * 128 else 4


def get_autotune_level() -> int:
    return int(os.environ.get("BENCHSUITE_AUTOTUNE_LEVEL", "1"))


# Short names for the math functions the epilogues use.
erf = tl.math.erf
exp2 = tl.math.exp2


@triton.jit
def gelu(x):
    return 0.5 * x * (1.0 + erf(x * 0.7071067811865476))


@triton.jit
def fast_gelu(x):
    # sigmoid(1.702 x) written with exp2 so it stays one MUFU op.
    return x / (1.0 + exp2(-1.702 * 1.4426950408889634 * x))


@triton.jit
def relu(x):
    return tl.maximum(x, 0.0)


@triton.jit
def apply_activation(x, ACTIVATION: tl.constexpr):
    if ACTIVATION == "gelu":
        return gelu(x)
    elif ACTIVATION == "fast_gelu":
        return fast_gelu(x)
    elif ACTIVATION == "relu":
        return relu(x)
    else:
        return x


@triton.jit
def welford_combine(mean_a, m2_a, n_a, mean_b, m2_b, n_b):
    """Merge two (mean, sum of squared deviations, count) summaries."""
    n = n_a + n_b
    delta = mean_b - mean_a
    frac_b = tl.where(n == 0, 0.0, n_b / tl.where(n == 0, 1.0, n))
    mean = mean_a + delta * frac_b
    m2 = m2_a + m2_b + delta * delta * n_a * frac_b
    return mean, m2, n
