"""tessera.tools (Triton's triton.tools)."""
from . import tensor_descriptor  # noqa: F401
