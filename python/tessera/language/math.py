"""triton.language.math: the math functions as objects (see core.py)."""
from functools import wraps  # noqa: F401 (Triton's module has these names too)
from typing import List, TypeVar  # noqa: F401

from . import core  # noqa: F401
from .core import MATH as _MATH, builtin as _builtin

T = TypeVar("T")

for _name in _MATH:
    globals()[_name] = _builtin("triton.language.math." + _name)
del _name
