"""triton.language.extra: libdevice (and its cuda spelling) as objects."""
from . import libdevice, cuda  # noqa: F401
