"""Shared by the programs of bench/python: seeded inputs, the first-launch
clock, timing and the one JSON line each program prints.

Each program is an ordinary Triton program (`import triton`); run.py runs it
under Triton 3.6 and under `python3 -m tessera`, and compares what it saved.
"""

import argparse
import json
import time

import torch
import triton


def args():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True, help="where to torch.save the outputs")
    p.add_argument("--quick", action="store_true", help="fewer timing repetitions")
    return p.parse_args()


def first_launch(fn):
    """(result, seconds) of the first call, synchronized: compile + launch."""
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    result = fn()
    torch.cuda.synchronize()
    return result, time.perf_counter() - t0


def report(name, out, outputs, first_s, ms, **extra):
    torch.save({k: v.detach().cpu() for k, v in outputs.items()}, out)
    line = {"program": name, "backend": "tessera" if "tessera" in triton.__file__ else "triton",
            "first_launch_ms": first_s * 1e3, "kernel_ms": ms}
    line.update(extra)
    print("RESULT " + json.dumps(line), flush=True)


def bench(fn, quick):
    return triton.testing.do_bench(fn, warmup=10 if quick else 25, rep=30 if quick else 100,
                                   quantiles=[0.5])
