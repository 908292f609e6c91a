"""triton.language.extra.cuda.gdc: programmatic dependent launch."""
from ...core import builtin as _builtin

gdc_wait = _builtin("triton.language.extra.cuda.gdc_wait")
gdc_launch_dependents = _builtin("triton.language.extra.cuda.gdc_launch_dependents")
