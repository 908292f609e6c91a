"""tessera.compiler (Triton's triton.compiler): the compiled-kernel type and errors."""
from ..jit import CompiledKernel  # noqa: F401
from .errors import CompilationError  # noqa: F401
from ..runtime.driver import GPUTarget  # noqa: F401
