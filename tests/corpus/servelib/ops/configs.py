"""Launch configurations and heuristics shared by the ops.  Device queries
are cached: they are asked once per process."""

import functools
import itertools
import os

import torch
import triton

from servelib.platform import current_platform


@functools.lru_cache(maxsize=None)
def num_sms() -> int:
    return torch.cuda.get_device_properties(0).multi_processor_count


@functools.lru_cache(maxsize=None)
def device_capability():
    return torch.cuda.get_device_capability()


def is_hopper_or_newer() -> bool:
    return device_capability()[0] >= 9


def _env_flag(name: str, default: bool = False) -> bool:
    if (raw := os.environ.get(name)) is None:
        return default
    return raw.lower() in ("1", "true", "yes")


def gemm_configs(block_k=(64, 128), group_m=8):
    """Tile shapes for the quantized GEMMs.  Hopper gets deeper pipelines."""
    stages = (3, 4) if is_hopper_or_newer() else (2, 3)
    configs = []
    for bm, bn, bk, s in itertools.product((64, 128), (64, 128, 256), block_k, stages):
        if bm * bn >= 128 * 256 and s > 3:
            continue  # not enough shared memory
        warps = 8 if bm * bn >= 128 * 128 else 4
        configs.append(
            triton.Config({"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": group_m},
                          num_warps=warps, num_stages=s))
    return configs


def decode_configs():
    return [
        triton.Config({}, num_warps=w, num_stages=s)
        for w, s in itertools.product((2, 4, 8), (1, 2))
    ]


def even_k_heuristics(block_name="BLOCK_SIZE_K"):
    """EVEN_K lets the kernel skip the K-tail masks."""
    return {"EVEN_K": lambda args: args["K"] % args[block_name] == 0}


def block_size_heuristics(max_block=8192):
    return {
        "BLOCK_SIZE": lambda args: min(max_block, triton.next_power_of_2(args["hidden_size"])),
    }


USE_FAST_TANH = _env_flag("SERVELIB_FAST_TANH", default=not current_platform.is_rocm())
