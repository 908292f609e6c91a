"""A package of Triton kernels laid out the way projects lay them out.

Kernels live in sibling modules and import their helpers, constants and
autotune configs from `utils`; the package re-exports some of them.
tests/e2e/PackagesTest.cpp launches them through tessera::Program.
"""
from .ops.elementwise import add_kernel, scaled_add
from . import ops

__all__ = ["add_kernel", "scaled_add", "ops"]
