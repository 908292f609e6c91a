"""alternate.py - alternating rounds of a Python benchmark under Triton and under
Tessera's drop-in, with median and best per row.

    python3 bench/gpu/alternate.py [--rounds 3] [--out DIR] SCRIPT [SCRIPT ARGS...]

SCRIPT is one of the benchmarks that run under both (`bench_attention_bwd.py`,
`bench_grouped_matmul.py`, `bench_dot_scaled.py`): each takes `--json FILE` and
writes one JSON line per provider and row with "ms" (and "tflops" where it
counts FLOPs). Each round runs `python3 SCRIPT` (Triton 3.6, and the PyTorch
providers the script adds) and then `python3 -m tessera SCRIPT` (Tessera; the
Python package must be importable: PYTHONPATH=python and
TESSERA_PYTHON_MODULE_DIR=<build>/python/tessera, as tests/gpu/python sets
them). Rows are the lines' fields other than the measurements; the table
gives, per row and provider, the median and the best of the rounds' ms and
TFLOP/s, and Tessera's median ratio against each other provider. A round
that fails is reported and left out.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

MEASURES = {"ms", "tflops", "rel_err", "error", "us", "gbps", "config", "tune_ms"}  # not part of a row's name


def row_key(line):
    return json.dumps({k: v for k, v in line.items() if k not in MEASURES and k != "provider"}, sort_keys=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", default=None, help="directory for each round's JSON lines and logs")
    ap.add_argument("script")
    ap.add_argument("rest", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    out = args.out or tempfile.mkdtemp(prefix="alternate-")
    os.makedirs(out, exist_ok=True)
    py = sys.executable
    results = {}  # row -> provider -> [line]
    order = []
    failed = 0
    for r in range(1, args.rounds + 1):
        for side, cmd in (("triton", [py, args.script]), ("tessera", [py, "-m", "tessera", args.script])):
            path = os.path.join(out, "%s_%d.jsonl" % (side, r))
            if os.path.exists(path):
                os.remove(path)
            with open(os.path.join(out, "%s_%d.log" % (side, r)), "w") as log:
                rc = subprocess.call(cmd + args.rest + ["--json", path], stdout=log, stderr=subprocess.STDOUT)
            if rc != 0:
                failed += 1
                print("round %d, %s: exit status %d (see %s)" % (r, side, rc, log.name), file=sys.stderr)
            if not os.path.exists(path):
                continue
            with open(path) as f:
                for text in f:
                    line = json.loads(text)
                    if "ms" not in line:
                        continue
                    key = row_key(line)
                    if key not in results:
                        results[key] = {}
                        order.append(key)
                    results[key].setdefault(line["provider"], []).append(line)
    print("\n| row | provider | rounds | median ms | best ms | median TFLOP/s | best TFLOP/s | Tessera speed vs this (median) |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for key in order:
        row = ", ".join("%s=%s" % (k, v) for k, v in json.loads(key).items() if k != "kind")
        tess = results[key].get("tessera")
        tess_ms = statistics.median(l["ms"] for l in tess) if tess else None
        for provider, lines in results[key].items():
            ms = [l["ms"] for l in lines]
            tf = [l["tflops"] for l in lines if "tflops" in l]
            ratio = "" if provider == "tessera" or tess_ms is None else "%.2fx" % (statistics.median(ms) / tess_ms)
            print("| %s | %s | %d | %.3f | %.3f | %s | %s | %s |" % (
                row, provider, len(ms), statistics.median(ms), min(ms),
                "%.1f" % statistics.median(tf) if tf else "-", "%.1f" % max(tf) if tf else "-", ratio))
    print("\n(raw lines and logs: %s)" % out)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
