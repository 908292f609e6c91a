"""A module with one kernel whose autotune decorator cannot be evaluated
(it calls a function nobody defined). CPython would fail the whole import;
Tessera fails only that kernel, when its configs are needed. Not imported
by the package (real Triton could not import it)."""
import triton
import triton.language as tl

from .elementwise import add_kernel  # noqa: F401  (a sibling's kernel, re-bound here)


@triton.jit
def fill(x_ptr, n, value, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.full([BLOCK], value, tl.int32), mask=offs < n)


@triton.autotune(configs=_configs_nobody_defined(), key=["n"])
@triton.jit
def broken_tuning(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, offs, mask=offs < n)
