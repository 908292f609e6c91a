"""Autotuning spaces for the operators.  The level (env var) widens the
search; everything is built at import time."""

import itertools

import triton

from benchsuite.helpers import get_autotune_level
from benchsuite.helpers import num_warps_for
from benchsuite.helpers import num_warps_for_tile


def _pow2(lo, hi):
    v = lo
    while v <= hi:
        yield v
        v *= 2


REDUCTION_CONFIGS = [triton.Config({"BLOCK_N": b}, num_warps=num_warps_for(b)) for b in _pow2(256, 8192)]


def _gemm_space():
    stages = [2, 3, 4] if get_autotune_level() > 1 else [3, 4]
    for bm, bn, bk, s in itertools.product([64, 128], [64, 128, 256], [32, 64], stages):
        yield triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8}, num_stages=s,
                            num_warps=num_warps_for_tile(bm, bn))


def keep(conf):
    bm = conf.kwargs["BLOCK_M"]
    bn = conf.kwargs["BLOCK_N"]
    bk = conf.kwargs["BLOCK_K"]
    smem = (bm * bk + bk * bn) * 2 * conf.num_stages
    return smem <= 200 * 1024


GEMM_CONFIGS = list(filter(keep, _gemm_space()))
GEMM_CONFIGS += [
    triton.Config({"BLOCK_M": 32, "BLOCK_N": 64, "BLOCK_K": 64, "GROUP_M": 4}, num_stages=5, num_warps=2),
]

SPLITK_CONFIGS = [
    triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "SPLIT_K": sk}, num_stages=3,
                  num_warps=num_warps_for_tile(bm, bn))
    for bm, bn, bk, sk in itertools.product([64, 128], [64, 128], [32, 64], [2, 4, 8])
]


def prune_splitk(configs, named_args, **kwargs):
    """Drop split factors that leave fewer than two K tiles per split."""
    K = named_args["K"]
    kept = [c for c in configs if K // (c.kwargs["SPLIT_K"] * c.kwargs["BLOCK_K"]) >= 2]
    return kept or configs[:1]


INT4_CONFIGS = [
    triton.Config({"BLOCK_M": 16, "BLOCK_N": 128, "BLOCK_K": 128}, num_stages=4, num_warps=4),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 64}, num_stages=3, num_warps=4),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, num_stages=3, num_warps=8),
]

JAGGED_CONFIGS = [
    triton.Config({"BLOCK_SEQ": bs, "BLOCK_D": bd}, num_warps=w)
    for bs, bd, w in itertools.product([16, 32, 64], [64, 128], [4, 8])
]
