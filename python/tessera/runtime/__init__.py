"""tessera.runtime (Triton's triton.runtime): driver, JITFunction, Autotuner, errors."""
from ..jit import JITFunction, KernelInterface  # noqa: F401
from ..autotuner import Autotuner, Config, Heuristics, autotune, heuristics  # noqa: F401
from .errors import OutOfResources, InterpreterError  # noqa: F401
from .driver import driver  # noqa: F401
from . import driver as _driver_module  # noqa: F401
# Triton's submodules as attributes (triton.runtime.jit.JITFunction,
# isinstance(k, triton.runtime.autotuner.Autotuner), `import
# triton.runtime.jit as j`): the modules that hold them here.
import importlib as _importlib
jit = _importlib.import_module("tessera.jit")
autotuner = _importlib.import_module("tessera.autotuner")
