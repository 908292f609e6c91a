"""triton.language.semantic: present so that imports of it succeed (see core.py)."""
from .core import builtin as _builtin


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _builtin("triton.language.semantic." + name)
