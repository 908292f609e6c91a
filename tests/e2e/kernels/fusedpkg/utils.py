"""Helpers, constants, configs and version switches shared by the kernels."""
import functools
import operator

import torch
import triton
import triton.language as tl

try:
    from packaging import version
except ImportError:  # packaging is not a dependency of triton
    version = None

try:
    from triton.language.extra.libdevice import rsqrt as _rsqrt  # Triton >= 3.0
except ModuleNotFoundError:
    from triton.language.extra.cuda.libdevice import rsqrt as _rsqrt

try:
    from triton.language.math import no_such_function  # absent in Triton 3.6: the except branch runs
    HAS_NO_SUCH_FUNCTION = True
except ImportError:
    HAS_NO_SUCH_FUNCTION = False


def _as_tuple(text):
    return tuple(int(part) for part in text.split(".")[:3] if part.isdigit())


def compare_version(package, op, target):
    try:
        import importlib.metadata as metadata
    except ImportError:
        return False
    installed = metadata.version(package)
    if version is None:
        return op(_as_tuple(installed), _as_tuple(target))
    return op(version.parse(installed), version.parse(target))


if compare_version("triton", operator.ge, "3.0.0"):
    ROW_SCALE = tl.constexpr(1.0)
else:
    ROW_SCALE = tl.constexpr(0.0)  # would make every test fail

rsqrt = _rsqrt

NUM_SMS = torch.cuda.get_device_properties(0).multi_processor_count
CAPABILITY = torch.cuda.get_device_capability()
IS_HOPPER = CAPABILITY[0] >= 9
FP32_MIN = tl.constexpr(torch.finfo(torch.float32).min)
SCALE = tl.constexpr(2.0)


@triton.jit
def fma(a, b, c):
    return a * b + c


@triton.jit
def scale(x):
    return x * SCALE


def block_sizes(lo=32, hi=256):
    sizes = []
    b = lo
    while b <= hi:
        sizes.append(b)
        b *= 2
    return sizes


def get_configs(warps=(1, 2, 4)):
    configs = [triton.Config({"BLOCK": b}, num_warps=w) for b in block_sizes() for w in warps]

    def keep(c):
        return c.kwargs["BLOCK"] >= 32 * c.num_warps

    return list(filter(keep, configs))


def even_heuristics(block_name):
    return {"EVEN": lambda args: args["n"] % args[block_name] == 0}


@functools.lru_cache(maxsize=None)
def default_block():
    return 128 if IS_HOPPER else 64


class RowOps:
    """Functions grouped in a class, as some projects do (trident): kernels of
    other modules reach them as U.RowOps.scaled and U.RowOps.OFFSET."""
    OFFSET = 3

    @staticmethod
    @triton.jit
    def scaled(x, factor):
        return x * factor
