"""Where the host time of a Python launch goes (Tessera only): the same tiny
launch through each layer, microseconds per launch (median of 5 rounds).

    PYTHONPATH=python python3 bench/python/launch_breakdown.py
"""
import time

import torch

import tessera
import tessera.language as tl


@tessera.jit
def tiny(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * alpha, mask=mask)


def per_call(fn, n=5000):
    rounds = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        rounds.append((time.perf_counter() - t0) / n * 1e6)
        torch.cuda.synchronize()
    rounds.sort()
    return rounds[2]


def main():
    x = torch.randn(1000, device="cuda")
    y = torch.empty_like(x)
    tiny[(8,)](x, y, 1000, 2.0, BLOCK=128)
    torch.cuda.synchronize()
    prepared = tiny.prepare(x, y, 1000, 2.0, BLOCK=128, grid=(8,))
    launcher = tiny._launcher
    g = tiny[(8,)]
    rows = [
        ("torch attribute reads (2 tensors)", lambda: (x.data_ptr(), x.dtype, x.shape, x.stride(), x.is_cuda,
                                                      x.get_device(), y.data_ptr(), y.dtype, y.shape, y.stride(),
                                                      y.is_cuda, y.get_device())),
        ("PreparedLaunch.launch()", lambda: prepared.launch()),
        ("_C.Launcher(grid, args, kwargs)", lambda: launcher((8,), (x, y, 1000, 2.0), {"BLOCK": 128})),
        ("launcher = kernel[grid]; launcher(...)", lambda: g(x, y, 1000, 2.0, BLOCK=128)),
        ("kernel[grid](...)", lambda: tiny[(8,)](x, y, 1000, 2.0, BLOCK=128)),
        ("kernel[lambda meta: ...](...)", lambda: tiny[lambda m: (8,)](x, y, 1000, 2.0, BLOCK=128)),
    ]
    for name, fn in rows:
        print("%-42s %6.2f us" % (name, per_call(fn)))


if __name__ == "__main__":
    main()
