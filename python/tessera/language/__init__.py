"""tessera.language: Triton's `triton.language` (`tl`) as Python sees it.

See core.py: the names exist for import-time code; kernels are compiled by
Tessera's frontend from their source.
"""

from . import core
from .core import (PropagateNan, aggregate, TRITON_MAX_TENSOR_NUMEL, bfloat16, block_type, builtin, condition, const,
                   constexpr, dtype, float16, float32, float64, float8e4b8, float8e4b15, float8e4nv, float8e5,
                   float8e5b16, int1, int8, int16, int32, int64, pi32_t, pointer_type, range, slice,
                   static_range, str_to_ty, tensor, tensor_descriptor, tensor_descriptor_type, tuple_type, uint8, uint16, uint32,
                   uint64, void)

for _name in core.FUNCTIONS:
    globals()[_name] = builtin("triton.language." + _name)
del _name

constexpr_type = constexpr
tuple = core.tuple_type  # noqa: A001 (Triton's name)

from . import math, extra, random, standard, semantic, target_info  # noqa: E402
