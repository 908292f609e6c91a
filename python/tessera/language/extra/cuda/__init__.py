"""triton.language.extra.cuda: libdevice under its CUDA path, programmatic
dependent launch (gdc), special registers and the launch's warps."""
from .. import libdevice  # noqa: F401
from . import gdc  # noqa: F401
from .gdc import gdc_launch_dependents, gdc_wait  # noqa: F401
from ...core import builtin as _builtin

globaltimer = _builtin("triton.language.extra.cuda.globaltimer")
smid = _builtin("triton.language.extra.cuda.smid")
num_threads = _builtin("triton.language.extra.cuda.num_threads")
num_warps = _builtin("triton.language.extra.cuda.num_warps")
convert_custom_float8_sm80 = _builtin("triton.language.extra.cuda.convert_custom_float8_sm80")
convert_custom_float8_sm90 = _builtin("triton.language.extra.cuda.convert_custom_float8_sm90")
