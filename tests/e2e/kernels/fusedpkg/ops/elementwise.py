"""Elementwise kernels: helpers from a sibling module, computed configs,
heuristics from a helper, kernels made by calls, a project's own decorator."""
import triton
import triton.language as tl

import fusedpkg.utils as U
from ..utils import fma, get_configs, even_heuristics

_REGISTRY = []


def register(fn):
    """A project's own registry decorator (Tessera takes it as transparent)."""
    _REGISTRY.append(fn)
    return fn


@register
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    tl.store(out_ptr + offs, U.scale(x) + y, mask=m)


CONFIGS = get_configs()
CONFIGS += [triton.Config({"BLOCK": 512}, num_warps=8)]


@triton.autotune(configs=CONFIGS, key=["n"])
@triton.heuristics(even_heuristics("BLOCK"))
@triton.jit
def scaled_add(x_ptr, y_ptr, out_ptr, even_out, n, alpha, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        x = tl.load(x_ptr + offs)
        y = tl.load(y_ptr + offs)
        tl.store(out_ptr + offs, fma(x, alpha, y))
    else:
        m = offs < n
        x = tl.load(x_ptr + offs, mask=m)
        y = tl.load(y_ptr + offs, mask=m)
        tl.store(out_ptr + offs, fma(x, alpha, y), mask=m)
    if tl.program_id(0) == 0:
        tl.store(even_out, 1 if EVEN else 0)


def _axpby(x_ptr, y_ptr, out_ptr, n, a, b, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    tl.store(out_ptr + offs, a * x + b * y, mask=m)


axpby = triton.jit(_axpby)
axpby_nospec = triton.jit(do_not_specialize=["n"])(_axpby)


class Kernels:
    """A kernel inside a class (launched as elementwise.Kernels.scale_offset[grid])
    that calls a function of a class in a sibling module."""

    @staticmethod
    @triton.jit
    def scale_offset(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr):
        # One program strides over the whole array.
        for start in range(0, n, BLOCK):
            offs = start + tl.arange(0, BLOCK)
            x = tl.load(x_ptr + offs, mask=offs < n)
            tl.store(out_ptr + offs, U.RowOps.scaled(x, factor) + U.RowOps.OFFSET, mask=offs < n)
