"""tessera.compiler (Triton's triton.compiler): the compiled-kernel type and errors."""
from ..jit import CompiledKernel  # noqa: F401
from .errors import CompilationError  # noqa: F401
from ..runtime.driver import GPUTarget  # noqa: F401
# triton.compiler.compiler (`import triton.compiler.compiler as cc`): this module.
import sys as _sys
compiler = _sys.modules[__name__]
