"""Tessera from Python: Triton's API over Tessera's C++ compiler and runtime.

    import tessera
    import tessera.language as tl

    @tessera.jit
    def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr): ...

    add[(tessera.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)

Tensors are PyTorch tensors (CUDA ones on the GPU, on torch's current
stream; CPU ones on the interpreter), NumPy arrays (interpreter), or anything
with __cuda_array_interface__ / __dlpack__. `python3 -m tessera script.py`
runs an unchanged Triton program on Tessera (see _dropin.py).
"""

import sys as _sys

from . import _native

_native.add_cuda_wheels()
_C = _native.load(_sys.modules[__name__])

from ._C import Device, Program, Tensor, TesseraError  # noqa: E402
from .jit import CompiledKernel, JITFunction, KernelInterface, jit  # noqa: E402
from .autotuner import Autotuner, Config, Heuristics, autotune, heuristics  # noqa: E402
from . import language, testing, runtime, tools, compiler  # noqa: E402
from .compiler.errors import CompilationError  # noqa: E402
from .runtime.errors import OutOfResources  # noqa: E402
from ._dropin import install_as_triton  # noqa: E402

# The Triton version whose API this package offers (Triton code checks it).
__version__ = "3.6.0"
tessera_version = "0.1.0"

TritonError = TesseraError


def cdiv(x, y):
    return (x + y - 1) // y


def next_power_of_2(n):
    n = int(n)
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


_allocator = None


def set_allocator(allocator):
    """Triton's set_allocator: the scratch memory of device-made tensor
    descriptors. Tessera allocates that scratch itself; the allocator is kept
    for code that reads it back."""
    global _allocator
    _allocator = allocator


def must_use_result(x):
    return x


def constexpr_function(fn):
    """@triton.constexpr_function: a host function kernels may call at compile
    time on constexpr arguments (the frontend runs it from the source). On the
    host it is called as it is, with tl.constexpr arguments unwrapped."""
    import functools

    @functools.wraps(fn)
    def call(*args, **kwargs):
        unwrap = language.core.constexpr
        args = [a.value if isinstance(a, unwrap) else a for a in args]
        kwargs = {k: (v.value if isinstance(v, unwrap) else v) for k, v in kwargs.items()}
        return fn(*args, **kwargs)
    return call


def aggregate(cls):
    """@triton.aggregate (Triton 3.8): a class whose objects kernels make and
    pass around (fields from its annotations, @jit methods). The frontend
    compiles it from the source; in Python it stays the class it is."""
    cls.__triton_aggregate__ = True
    return cls

