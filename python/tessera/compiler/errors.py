"""Triton's compiler errors: Tessera's diagnostics (file:line:col, the line,
a caret) are raised as tessera.TesseraError, which is CompilationError."""
from .. import _C

CompilationError = _C.TesseraError
