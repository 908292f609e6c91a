"""What one Python launch of a cached kernel costs on the host: a loop of
launches of a tiny kernel, timed on the CPU (the GPU keeps up: each kernel
runs in about 2 us). Also the first launch of a kernel never compiled before
(an empty cache directory: run.py gives each run a fresh one)."""
import time

import torch
import triton
import triton.language as tl

import common


@triton.jit
def tiny(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * alpha, mask=mask)


def main():
    a = common.args()
    torch.manual_seed(0)
    x = torch.randn(1000, device="cuda")
    y = torch.empty_like(x)
    _, first = common.first_launch(lambda: tiny[(8,)](x, y, 1000, 2.0, BLOCK=128))
    assert torch.equal(y, x * 2.0)
    for _ in range(1000):
        tiny[(8,)](x, y, 1000, 2.0, BLOCK=128)
    torch.cuda.synchronize()
    rounds = []
    n = 2000 if a.quick else 10000
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            tiny[(8,)](x, y, 1000, 2.0, BLOCK=128)
        rounds.append((time.perf_counter() - t0) / n * 1e6)
        torch.cuda.synchronize()
    rounds.sort()
    common.report("launch_overhead", a.out, {"y": y}, first, None, launch_us=rounds[len(rounds) // 2])


if __name__ == "__main__":
    main()
