"""Fused kernels for LLM training, in the style of the kernel libraries that
patch Hugging Face models: each op is an autograd Function over one or two
Triton kernels, and shared helpers live in `utils`."""

from trainlib.cross_entropy import CrossEntropyFunction
from trainlib.fused_add_rms_norm import FusedAddRMSNormFunction
from trainlib.geglu import GEGLUMulFunction
from trainlib.kl_div import KLDivFunction
from trainlib.layer_norm import LayerNormFunction
from trainlib.rms_norm import RMSNormFunction
from trainlib.rope import RopeFunction
from trainlib.swiglu import SiLUMulFunction

__all__ = [
    "CrossEntropyFunction",
    "FusedAddRMSNormFunction",
    "GEGLUMulFunction",
    "KLDivFunction",
    "LayerNormFunction",
    "RMSNormFunction",
    "RopeFunction",
    "SiLUMulFunction",
]
