"""Runs each program of bench/python under Triton 3.6 and under Tessera's
drop-in mode (`python3 -m tessera`), in alternating rounds, each run with a
fresh, empty kernel cache (so the first launch compiles), compares what the
two saved, and prints a table of medians.

    python3 bench/python/run.py --build build-gpu [--rounds 2] [--quick] [--log OUT.jsonl] [programs...]

Outputs compare exactly for integers and by relative L2 error (below 1e-2)
and max |difference| for floats: the kernels are the same, but the two
compilers may order floating-point sums differently, and the layernorm
backward's lock order differs from run to run.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PROGRAMS = ["vector_add", "fused_softmax", "matmul", "layernorm", "attention", "strided_view", "launch_overhead"]


def run_one(program, backend, build, quick, workdir):
    out = os.path.join(workdir, "%s.%s.pt" % (program, backend))
    cache = tempfile.mkdtemp(prefix="cache-", dir=workdir)
    env = dict(os.environ)
    env["TRITON_CACHE_DIR"] = cache
    env["TESSERA_CACHE_DIR"] = cache
    cmd = [sys.executable]
    if backend == "tessera":
        env["PYTHONPATH"] = os.path.join(ROOT, "python") + os.pathsep + env.get("PYTHONPATH", "")
        env["TESSERA_PYTHON_MODULE_DIR"] = os.path.join(os.path.abspath(build), "python", "tessera")
        cmd += ["-m", "tessera"]
    cmd += [os.path.join(HERE, program + ".py"), "--out", out] + (["--quick"] if quick else [])
    p = subprocess.run(cmd, env=env, cwd=HERE, capture_output=True, text=True, timeout=600)
    result = None
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            result = json.loads(line[7:])
    if p.returncode != 0 or result is None:
        tail = (p.stdout + p.stderr).strip().splitlines()[-12:]
        return {"program": program, "backend": backend, "error": "\n".join(tail)}, None
    return result, out


def compare(a_path, b_path):
    import torch
    a, b = torch.load(a_path), torch.load(b_path)
    notes, ok, identical = [], True, True
    for key in a:
        x, y = a[key], b.get(key)
        if y is None or x.shape != y.shape or x.dtype != y.dtype:
            return False, False, "%s: shapes or dtypes differ" % key
        if x.dtype.is_floating_point:
            x, y = x.double(), y.double()
            if not torch.equal(x, y):
                identical = False
                rel = float((x - y).norm() / max(float(y.norm()), 1e-30))
                notes.append("%s: rel %.1e, max %.1e" % (key, rel, float((x - y).abs().max())))
                ok = ok and rel < 1e-2
        elif not torch.equal(x, y):
            identical, ok = False, False
            notes.append("%s: %d elements differ" % (key, int((x != y).sum())))
    return ok, identical, "; ".join(notes)


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", default=os.path.join(ROOT, "build-gpu"))
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--log")
    p.add_argument("programs", nargs="*")
    args = p.parse_args()
    programs = args.programs or PROGRAMS
    workdir = tempfile.mkdtemp(prefix="bench-python-")
    log = open(args.log, "w") if args.log else None
    rows = []
    for program in programs:
        runs = {"triton": [], "tessera": []}
        paths = {}
        for _ in range(args.rounds):
            for backend in ("triton", "tessera"):
                result, path = run_one(program, backend, args.build, args.quick, workdir)
                runs[backend].append(result)
                if path:
                    paths[backend] = path
                if log:
                    log.write(json.dumps(result) + "\n")
                    log.flush()
        errors = [r["error"] for b in runs for r in runs[b] if "error" in r]
        if errors or len(paths) < 2:
            rows.append((program, "ERROR", errors[0].splitlines()[-1] if errors else "no output", runs))
            print("== %s: ERROR\n%s" % (program, "\n".join(errors)), flush=True)
            continue
        ok, identical, notes = compare(paths["tessera"], paths["triton"])
        verdict = "identical" if identical else "close" if ok else "MISMATCH"
        rows.append((program, verdict, notes, runs))
        print("== %s: %s %s" % (program, verdict, notes), flush=True)

    def fmt(v, unit=""):
        return "-" if v is None else ("%.4g%s" % (v, unit))

    print("\n| program | results | Triton ms | Tessera ms | Triton/Tessera | first launch Triton ms | Tessera ms | "
          "ratio | other |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for program, verdict, notes, runs in rows:
        t = {b: [r for r in runs[b] if "error" not in r] for b in runs}
        k_tr = med([r.get("kernel_ms") for r in t["triton"]])
        k_ts = med([r.get("kernel_ms") for r in t["tessera"]])
        f_tr = med([r.get("first_launch_ms") for r in t["triton"]])
        f_ts = med([r.get("first_launch_ms") for r in t["tessera"]])
        other = []
        for key in ("launch_us", "torch_ms", "cublas_ms", "sdpa_ms", "torch_fwd_ms", "backward_ms"):
            tr = med([r.get(key) for r in t["triton"]])
            ts = med([r.get(key) for r in t["tessera"]])
            if tr is not None or ts is not None:
                other.append("%s %s / %s" % (key, fmt(tr), fmt(ts)))
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            program, verdict + (" (" + notes + ")" if notes and verdict != "ERROR" else ""), fmt(k_tr), fmt(k_ts),
            fmt(k_tr / k_ts if k_tr and k_ts else None, "x"), fmt(f_tr), fmt(f_ts),
            fmt(f_tr / f_ts if f_tr and f_ts else None, "x"), "; ".join(other) + (" " + notes if verdict == "ERROR" else "")))
    return 0 if all(r[1] in ("identical", "close") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
