"""bench_dot_scaled.py - a block-scaled (MX) matmul, dot_scaled_kernels.py's
mx_matmul, timed under Triton 3.6 (`python3 bench/gpu/bench_dot_scaled.py`)
or Tessera's drop-in (`python3 -m tessera bench/gpu/bench_dot_scaled.py`),
after a check against float64 torch on the dequantized operands (each value
times its scale rounded to bf16, as both compilers compute on Hopper).
One JSON line per (format, size) and a table; times are triton.testing
.do_bench medians.

    python3 [-m tessera] bench/gpu/bench_dot_scaled.py [--sizes 4096,8192] [--json FILE]
"""
import argparse
import importlib.util
import json
import os
import sys

import torch
import triton

HERE = os.path.dirname(os.path.abspath(__file__))
PROVIDER = "tessera" if "tessera" in triton.__file__ else "triton"
E2M1 = torch.tensor([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0])
CONFIG = dict(BM=128, BN=128, BK=128, GROUP_M=8)


def load():
    spec = importlib.util.spec_from_file_location("dsk", os.path.join(HERE, "dot_scaled_kernels.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def dequant(x, s, fmt, rows_are_k):
    """x as stored -> float [R, C] values, then times 2^(s-127) per 32 of K, rounded to bf16."""
    if fmt == "e2m1":
        lut = E2M1.to(x.device)
        lo, hi = lut[(x & 15).long()], lut[(x >> 4).long()]
        v = torch.stack((lo, hi), dim=0 if rows_are_k else -1)
        v = v.permute(1, 0, 2).reshape(-1, x.shape[1]) if rows_are_k else v.reshape(x.shape[0], -1)
    else:
        v = x.view(torch.float8_e4m3fn).float()
    f = torch.exp2(s.float() - 127)
    if rows_are_k:  # B [K, N], scales [N, K/32]
        f = f.t().repeat_interleave(32, dim=0)
    else:
        f = f.repeat_interleave(32, dim=1)
    return (v * f).to(torch.bfloat16).double()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="4096,8192")
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    out = open(args.json, "a") if args.json else sys.stdout
    k = load()
    rows = []
    for fmt in ("e4m3", "e2m1"):
        for n in [int(s) for s in args.sizes.split(",")]:
            M = N = K = n
            pack = 2 if fmt == "e2m1" else 1
            g = torch.Generator(device="cuda").manual_seed(n)
            a = torch.randint(0, 256, (M, K // pack), dtype=torch.uint8, device="cuda", generator=g)
            b = torch.randint(0, 256, (K // pack, N), dtype=torch.uint8, device="cuda", generator=g)
            if fmt == "e4m3":  # no NaN codes
                a = torch.where((a & 0x7F) == 0x7F, a ^ 1, a)
                b = torch.where((b & 0x7F) == 0x7F, b ^ 1, b)
            sa = torch.randint(122, 132, (M, K // 32), dtype=torch.uint8, device="cuda", generator=g)
            sb = torch.randint(122, 132, (N, K // 32), dtype=torch.uint8, device="cuda", generator=g)
            c = torch.empty((M, N), dtype=torch.float32, device="cuda")
            grid = ((M // CONFIG["BM"]) * (N // CONFIG["BN"]),)

            def run():
                k.mx_matmul[grid](a, sa, b, sb, c, M, N, K, FMT=fmt, num_warps=8, num_stages=3, **CONFIG)

            run()
            torch.cuda.synchronize()
            ref = dequant(a, sa, fmt, False) @ dequant(b, sb, fmt, True)
            err = ((c.double() - ref).norm() / ref.norm()).item()
            ok = err < 1e-4
            ms = triton.testing.do_bench(run, warmup=25, rep=200)
            tflops = 2 * M * N * K / ms * 1e-9
            line = {"kind": "dot_scaled", "provider": PROVIDER, "fmt": fmt, "M": M, "N": N, "K": K, "ms": ms,
                    "tflops": tflops, "rel_err": err, "ok": ok}
            print(json.dumps(line), file=out)
            rows.append("| %s | %s | %d | %.3f | %.1f | %.1e %s |" % (PROVIDER, fmt, n, ms, tflops, err,
                                                                 "" if ok else "FAIL"))
    print("\n| provider | format | M = N = K | ms | TFLOP/s | rel. error |")
    print("| --- | --- | ---: | ---: | ---: | --- |")
    for r in rows:
        print(r)


if __name__ == "__main__":
    main()
