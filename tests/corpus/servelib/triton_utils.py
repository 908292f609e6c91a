"""The one place that decides whether Triton is usable.

The rest of the package does `from servelib.triton_utils import tl, triton`
so that importing the package never fails on machines without Triton."""

import types
from importlib.util import find_spec

HAS_TRITON = find_spec("triton") is not None

if HAS_TRITON:
    import triton
    import triton.language as tl
else:

    class _Placeholder(types.ModuleType):

        def __init__(self, name):
            super().__init__(name)
            self.jit = lambda *args, **kwargs: (lambda fn: fn) if not args else args[0]
            self.autotune = lambda *args, **kwargs: (lambda fn: fn)
            self.heuristics = lambda *args, **kwargs: (lambda fn: fn)
            self.Config = lambda *args, **kwargs: None
            self.cdiv = lambda a, b: -(a // -b)

    triton = _Placeholder("triton")
    tl = _Placeholder("triton.language")

__all__ = ["HAS_TRITON", "triton", "tl"]
