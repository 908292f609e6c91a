"""bench_pdl.py - bench/gpu/pdl.py's chain from Python, as bench_pdl times
it from C++: the same modes (serial, gdc, pdl), the same check against the
chain recomputed with torch, the same probe of each step's first start and
last end, and the median over rounds that alternate the modes. Under
Triton 3.6 (`python3 bench/gpu/bench_pdl.py`) or under Tessera's drop-in
(`python3 -m tessera bench/gpu/bench_pdl.py`): "provider" says which.
Launches go through the Python launcher on torch's current stream; with
--graph the chain is captured once into a torch CUDA graph per mode and
replayed (programmatic launches become programmatic edges), which takes
the Python launch cost out of the measurement.

    python3 [-m tessera] bench/gpu/bench_pdl.py [--chain L] [--sizes 65536,1048576] [--rounds R]
                                                [--graph] [--json FILE]
"""
import argparse
import importlib.util
import json
import os
import statistics
import sys

import torch
import triton

PROVIDER = "tessera" if "tessera" in triton.__file__ else "triton"

HERE = os.path.dirname(os.path.abspath(__file__))
MODES = [("serial", False, False), ("gdc", True, False), ("pdl", True, True)]


def load_kernels():
    spec = importlib.util.spec_from_file_location("pdl_kernels", os.path.join(HERE, "pdl.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--chain", type=int, default=32)
    ap.add_argument("--sizes", default="65536,1048576,4194304")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", default="")
    ap.add_argument("--graph", action="store_true")
    args = ap.parse_args()
    out = open(args.json, "a") if args.json else sys.stdout
    k = load_kernels()
    BLOCK = 1024
    chain = args.chain
    table = []
    for n in [int(s) for s in args.sizes.split(",")]:
        g = torch.Generator().manual_seed(n)
        x0 = (torch.rand(n, generator=g) * 2 - 1).cuda()
        w = (torch.rand(n, generator=g) * 2 - 1).cuda()
        want = x0.clone()
        for _ in range(chain):
            want = want * 0.5 + w
        bufs = [torch.zeros(n, device="cuda"), torch.zeros(n, device="cuda")]
        stamps = torch.zeros(2 * chain, dtype=torch.int64, device="cuda")
        grid = ((n + BLOCK - 1) // BLOCK,)

        def run_chain(gdc, pdl, stamp):
            for s in range(chain):
                prev = x0 if s == 0 else bufs[(s - 1) % 2]
                k.pdl_step[grid](prev, w, bufs[s % 2], stamps, n, s, BLOCK=BLOCK, USE_GDC=gdc, STAMP=stamp,
                                 launch_pdl=pdl)

        probes = {}
        for name, gdc, pdl in MODES:
            run_chain(gdc, pdl, False)
            got = bufs[(chain - 1) % 2]
            if not torch.equal(got, want):
                print("FAIL: n=%d mode %s: the chain's result differs (max err %g)" %
                      (n, name, (got - want).abs().max().item()), file=sys.stderr)
                sys.exit(1)
            init = torch.zeros(2 * chain, dtype=torch.int64)
            init[0::2] = 2**63 - 1
            stamps.copy_(init.cuda())
            run_chain(gdc, pdl, True)
            t = stamps.cpu().tolist()
            gaps = [t[2 * (s + 1)] - t[2 * s + 1] for s in range(chain - 1)]
            over = sum(1 for x in gaps if x < 0)
            mean_gap = sum(gaps) / len(gaps)
            probes[name] = "%d/%d, %d ns" % (over, chain - 1, mean_gap)
            print(json.dumps({"kind": "pdl-probe", "provider": PROVIDER, "graph": args.graph, "n": n, "chain": chain, "mode": name,
                              "overlapped_steps": over, "mean_gap_ns": mean_gap}), file=out)
        replay = {}
        if args.graph:
            for name, gdc, pdl in MODES:
                side = torch.cuda.Stream()
                side.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(side):
                    run_chain(gdc, pdl, False)  # compiled before the capture
                torch.cuda.current_stream().wait_stream(side)
                graph = torch.cuda.CUDAGraph()
                with torch.cuda.graph(graph):
                    run_chain(gdc, pdl, False)
                replay[name] = graph.replay
        per = {name: [] for name, _, _ in MODES}
        for r in range(args.rounds):
            order = MODES if r % 2 == 0 else MODES[::-1]
            for name, gdc, pdl in order:
                go = replay[name] if args.graph else (lambda: run_chain(gdc, pdl, False))
                for _ in range(3):
                    go()
                torch.cuda.synchronize()
                times = []
                total = 0.0
                while total < 50.0 or len(times) < 10:
                    a = torch.cuda.Event(enable_timing=True)
                    b = torch.cuda.Event(enable_timing=True)
                    a.record()
                    go()
                    b.record()
                    b.synchronize()
                    ms = a.elapsed_time(b)
                    times.append(ms)
                    total += ms
                us = statistics.median(times) * 1000.0 / chain
                per[name].append(us)
                print(json.dumps({"kind": "pdl", "provider": PROVIDER, "graph": args.graph, "n": n, "chain": chain, "mode": name,
                                  "round": r, "us_per_step": us}), file=out)
        s, gd, p = (statistics.median(per[m]) for m in ("serial", "gdc", "pdl"))
        table.append("| %d | %.2f | %.2f | %.2f | %.2fx | %s | %s |" % (n, s, gd, p, s / p, probes["pdl"],
                                                                      probes["serial"]))
    print("\n%s%s" % (PROVIDER, ", CUDA graph" if args.graph else ", stream launches"))
    print("| n | serial (us/step) | gdc waits only | pdl | pdl vs serial | overlapped steps, mean gap (pdl) | (serial) |")
    print("| ---: | ---: | ---: | ---: | ---: | --- | --- |")
    for row in table:
        print(row)


if __name__ == "__main__":
    main()
