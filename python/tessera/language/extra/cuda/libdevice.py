"""triton.language.extra.cuda.libdevice: the same functions as extra.libdevice."""
from ..libdevice import *  # noqa: F401,F403
from ..libdevice import NAMES  # noqa: F401
