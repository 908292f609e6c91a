"""triton.language.math: the math functions as objects (see core.py)."""
from .core import MATH as _MATH, builtin as _builtin

for _name in _MATH:
    globals()[_name] = _builtin("triton.language.math." + _name)
del _name
