#!/usr/bin/env python3
"""Triton and PyTorch side of the GPU benchmark (bench/gpu).

Times the kernels of kernels.py -- the very file bench_tessera.cpp loads --
compiled by Triton, and the PyTorch equivalents (x + y, torch.softmax,
F.layer_norm, and x + residual -> layer_norm -> dropout in eager PyTorch) on
the rows of rows.txt, with triton.testing.do_bench (median), and prints one
JSON object per measurement (report.py merges them with Tessera's). GB/s is
(bytes read + written) / time, the same formula as bench_tessera.cpp.

Triton's outputs are checked against float64 PyTorch references before
timing (the dropout mask against a NumPy Philox on the first 2^20 elements).
Also measured, like ANCHORS.md:
  - the device-to-device copy ceiling (torch copy of 1 GiB, read + written);
  - cold compile in child processes, each with a fresh TRITON_CACHE_DIR set
    before triton is imported: first launch of the softmax (BLOCK 4096,
    8 warps) after another kernel warmed the process up, the softmax's
    JITFunction.warmup (compile only), and vector add as the first kernel of
    a process;
  - warm launch overhead from Python (CPU time per call, best of 20 batches
    of 100; and throughput over 10000 launches) of the no-op kernel
    (2 args) and of vector add over 2^10 elements (4 args), then one
    synchronize.

  bench_triton.py [--quick] [--check] [--only K1,K2,...] [--json FILE]
                  [--sms N] [--warmup MS] [--rep MS] [--launches N]

--only takes kernel names and the groups 'ceiling', 'compile', 'launch'.
--check runs Triton on the small odd shapes of bench_gpu --check instead.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))

# Shapes of the cold-compile measurement (ANCHORS.md: softmax BLOCK 4096, 8 warps).
COMPILE_ROWS, COMPILE_COLS = 4096, 4096
EPS, DROP_P, DROP_SEED = 1e-5, 0.1, 1234


# ---------------------------------------------------------------------------
# Rows and launch parameters (the same rules as bench_tessera.cpp)
# ---------------------------------------------------------------------------

def read_rows(path):
    rows = []
    with open(path) as f:
        for line_no, line in enumerate(f, 1):
            fields = line.split("#", 1)[0].split()
            if not fields:
                continue
            if len(fields) < 4:
                raise SystemExit(f"{path}:{line_no}: expected 'kernel dtype rows cols [q]'")
            rows.append(dict(kernel=fields[0], dtype=fields[1], rows=int(fields[2]), cols=int(fields[3]),
                             quick=len(fields) > 4 and fields[4] == "q"))
    return rows


def check_rows():
    """The small odd shapes of bench_gpu --check."""
    shapes = [("vector_add", "fp32", 1, 1000), ("vector_add", "fp32", 1, 4099),
              ("softmax_row", "fp32", 7, 1000), ("softmax_row", "fp16", 5, 333),
              ("softmax_row", "fp32", 3, 5000), ("softmax_online", "fp32", 3, 9000),
              ("softmax_online", "fp16", 4, 300), ("softmax_persistent", "fp32", 37, 777),
              ("layernorm_fwd", "fp16", 9, 1000), ("layernorm_fwd", "fp32", 7, 333),
              ("add_layernorm_dropout", "fp16", 5, 777), ("add_layernorm_dropout", "fp32", 3, 1000)]
    return [dict(kernel=k, dtype=d, rows=r, cols=c, quick=True) for k, d, r, c in shapes]


def next_pow2(n):
    p = 1
    while p < n:
        p *= 2
    return p


def row_warps(block):
    """num_warps for a one-row-per-program block (Triton's tutorial heuristic)."""
    return 4 if block <= 2048 else 8 if block <= 8192 else 16


def shape_text(row):
    if row["kernel"] == "vector_add":
        n = row["cols"]
        return f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else str(n)
    return f"{row['rows']}x{row['cols']}"


class Sink:
    """JSON lines to stdout or a file, flushed line by line."""

    def __init__(self, path):
        self.file = open(path, "w") if path else sys.stdout

    def line(self, obj):
        self.file.write(json.dumps(obj) + "\n")
        self.file.flush()


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# Checking
# ---------------------------------------------------------------------------

def tolerance(dtype, layernorm):
    if dtype == "fp16":
        return (4e-3, 4e-3) if layernorm else (2e-3, 1e-7)
    return (1e-4, 1e-4) if layernorm else (1e-4, 1e-9)


def worst_ratio(torch, got, want, rtol, atol, where=None):
    """max |got - want| / (atol + rtol |want|) over the elements (NaN: inf);
    <= 1 passes. `where` (bool tensor) restricts the elements compared."""
    got = got.double().flatten()
    want = want.double().flatten()
    if where is not None:
        where = where.flatten()
        got, want = got[where], want[where]
    if got.numel() == 0:
        return 0.0
    diff = (got - want).abs()
    ratio = diff / (atol + rtol * want.abs())
    ratio = torch.where(diff == 0, torch.zeros_like(ratio), ratio)
    ratio = torch.nan_to_num(ratio, nan=math.inf)
    return float(ratio.max())


def triton_rand_np(seed, offsets):
    """tl.rand(seed, offsets) for int32 offsets, in NumPy: Philox-4x32-10 on
    the counter (offset, 0, 0, 0) with the key (seed low, seed high)."""
    import numpy as np
    m32 = np.uint64(0xFFFFFFFF)
    c0 = offsets.astype(np.uint64) & m32
    c1 = np.zeros_like(c0)
    c2 = np.zeros_like(c0)
    c3 = np.zeros_like(c0)
    k0, k1 = np.uint64(seed & 0xFFFFFFFF), np.uint64(seed >> 32)
    ra, rb = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
    for _ in range(10):
        pb, pa = rb * c2, ra * c0
        c0, c2 = ((pb >> np.uint64(32)) ^ c1 ^ k0) & m32, ((pa >> np.uint64(32)) ^ c3 ^ k1) & m32
        c1, c3 = pb & m32, pa & m32
        k0, k1 = (k0 + np.uint64(0x9E3779B9)) & m32, (k1 + np.uint64(0xBB67AE85)) & m32
    v = c0.astype(np.uint32).view(np.int32).astype(np.int64)
    v = np.where(v < 0, -v - 1, v)
    return v.astype(np.float32) * np.float32(4.6566127342e-10)


# ---------------------------------------------------------------------------
# Cases: one per row, with the Triton launch, the PyTorch equivalent, the
# check of Triton's outputs and the traffic
# ---------------------------------------------------------------------------

class Case:
    def __init__(self, nbytes, block, num_warps, grid, run_triton, run_torch, torch_key, verify):
        self.nbytes, self.block, self.num_warps, self.grid = nbytes, block, num_warps, grid
        self.run_triton, self.run_torch, self.torch_key, self.verify = run_triton, run_torch, torch_key, verify


def make_case(torch, kernels, row, sms):
    import torch.nn.functional as F
    kernel, R, C = row["kernel"], row["rows"], row["cols"]
    dt = {"fp32": torch.float32, "fp16": torch.float16}[row["dtype"]]
    es = torch.tensor([], dtype=dt).element_size()

    def rand(shape, lo, hi, dtype=dt):
        t = (torch.rand(shape, device="cuda") * (hi - lo) + lo).to(dtype)
        t[t == 0] = hi / 2  # never zeros
        return t

    def poisoned(shape, dtype=dt):
        return torch.full(shape, math.nan, device="cuda", dtype=dtype)

    if kernel == "vector_add":
        a, b, out = rand((C,), -1, 1), rand((C,), -1, 1), poisoned((C,))
        grid = (C + 1023) // 1024

        def run_triton():
            kernels.vector_add[(grid,)](a, b, out, C, BLOCK=1024, num_warps=4)

        def verify():
            return worst_ratio(torch, out, a + b, 1e-6, 0.0), ""
        return Case(3.0 * C * 4, 1024, 4, grid, run_triton, lambda: a + b, ("add", C), verify)

    if kernel.startswith("softmax_"):
        x, y = rand((R, C), -4, 4), poisoned((R, C))
        persistent = kernel == "softmax_persistent"
        block = min(next_pow2(C), 4096) if kernel == "softmax_online" else next_pow2(C)
        nw = row_warps(block)
        grid = min(R, sms * max(1, 16 // nw)) if persistent else R
        fn = getattr(kernels, kernel)

        def run_triton():
            if persistent:
                fn[(grid,)](y, x, y.stride(0), x.stride(0), R, C, BLOCK=block, num_warps=nw)
            else:
                fn[(grid,)](y, x, y.stride(0), x.stride(0), C, BLOCK=block, num_warps=nw)

        def verify():
            return worst_ratio(torch, y, torch.softmax(x.double(), dim=-1), *tolerance(row["dtype"], False)), ""
        return Case(2.0 * R * C * es, block, nw, grid, run_triton, lambda: torch.softmax(x, dim=-1),
                    ("softmax", row["dtype"], R, C), verify)

    block = next_pow2(C)
    nw = row_warps(block)
    w, b = rand((C,), 0.5, 1.5), rand((C,), -0.5, 0.5)

    if kernel == "layernorm_fwd":
        x, y = rand((R, C), -1.5, 2.5), poisoned((R, C))
        mean, rstd = poisoned((R,), torch.float32), poisoned((R,), torch.float32)

        def run_triton():
            kernels.layernorm_fwd[(R,)](y, x, w, b, mean, rstd, x.stride(0), C, EPS, BLOCK=block, num_warps=nw)

        def verify():
            xd = x.double()
            var, mu = torch.var_mean(xd, dim=-1, correction=0)
            ref = F.layer_norm(xd, (C,), w.double(), b.double(), EPS)
            err = max(worst_ratio(torch, y, ref, *tolerance(row["dtype"], True)),
                      worst_ratio(torch, mean, mu, 1e-4, 1e-5),
                      worst_ratio(torch, rstd, 1.0 / torch.sqrt(var + EPS), 1e-4, 1e-5))
            return err, ""
        return Case(2.0 * R * C * es + 2.0 * C * es + 2.0 * R * 4, block, nw, R, run_triton,
                    lambda: F.layer_norm(x, (C,), w, b, EPS), ("layernorm", row["dtype"], R, C), verify)

    if kernel == "add_layernorm_dropout":
        x, res = rand((R, C), -1, 1.5), rand((R, C), -1, 1)
        out, hsum = poisoned((R, C)), poisoned((R, C))

        def run_triton():
            kernels.add_layernorm_dropout[(R,)](out, hsum, x, res, w, b, x.stride(0), C, EPS, DROP_P, DROP_SEED,
                                                BLOCK=block, num_warps=nw)

        def run_torch():
            s = x + res
            return s, F.dropout(F.layer_norm(s, (C,), w, b, EPS), p=DROP_P, training=True)

        def verify():
            h = x.float() + res.float()  # the kernel normalizes the fp32 sum
            ref = F.layer_norm(h.double(), (C,), w.double(), b.double(), EPS) * (1.0 / (1.0 - DROP_P))
            kept = out != 0
            err = max(worst_ratio(torch, out, ref, *tolerance(row["dtype"], True), where=kept),
                      worst_ratio(torch, hsum, h, 1e-3 if dt == torch.float16 else 1e-6, 1e-7))
            note = ""
            dropped = 1.0 - float(kept.double().mean())
            if R * C >= 100000 and abs(dropped - DROP_P) > 0.01:
                err, note = math.inf, f"dropped {dropped:.4f} of the elements, want {DROP_P}"
            try:
                import numpy as np
                n = min(R * C, 1 << 20)
                rnd = triton_rand_np(DROP_SEED, np.arange(n, dtype=np.int64))
                want = rnd > np.float32(DROP_P)
                clear = np.abs(rnd - np.float32(DROP_P)) >= 1e-6
                got = kept.flatten()[:n].cpu().numpy()
                ref_nonzero = (ref.flatten()[:n] != 0).cpu().numpy()
                bad = int(np.sum((got != want) & clear & ref_nonzero))
                if bad:
                    err, note = math.inf, f"{bad} of the first {n} dropout decisions differ from tl.rand's Philox"
            except ImportError:
                note = note or "numpy missing: dropout mask not checked bit for bit"
            return err, note
        return Case(4.0 * R * C * es + 2.0 * C * es, block, nw, R, run_triton, run_torch,
                    ("add_layernorm_dropout", row["dtype"], R, C), verify)

    raise ValueError(f"no case for kernel '{kernel}'")


def bench_rows(args, sink, torch, triton, kernels, rows, device):
    sms = args.sms or torch.cuda.get_device_properties(0).multi_processor_count
    torch_cache = {}
    failures = 0
    for row in rows:
        base = dict(kind="bandwidth", device=device, kernel=row["kernel"], dtype=row["dtype"],
                    shape=shape_text(row), rows=row["rows"], cols=row["cols"])
        label = f"{row['kernel']} {row['dtype']} {shape_text(row)}"
        try:
            case = make_case(torch, kernels, row, sms)
        except Exception as e:  # noqa: BLE001 - reported in the row
            traceback.print_exc()
            sink.line(dict(base, provider="triton", ok=False, error=f"{type(e).__name__}: {e}"))
            failures += 1
            continue
        geometry = dict(bytes=case.nbytes, block=case.block, num_warps=case.num_warps, grid=case.grid)

        rec = dict(base, provider="triton", **geometry)
        try:
            case.run_triton()
            torch.cuda.synchronize()
            err, note = case.verify()
            rec.update(ok=err <= 1.0, err=err if math.isfinite(err) else None)
            if note:
                rec["mismatch"] = note
            log(f"{'ok  ' if err <= 1.0 else 'FAIL'} triton {label} (worst error {err:.3g} x tolerance) {note}")
            if not args.check:
                ms = triton.testing.do_bench(case.run_triton, warmup=args.warmup, rep=args.rep, return_mode="median")
                rec.update(ms=ms, gbps=case.nbytes / (ms * 1e-3) / 1e9)
                log(f"     triton {label}: {ms:.4f} ms, {rec['gbps']:.0f} GB/s")
        except Exception as e:  # noqa: BLE001
            traceback.print_exc()
            rec.update(ok=False, error=f"{type(e).__name__}: {e}")
        failures += not rec.get("ok", False)
        sink.line(rec)

        if args.check or args.skip_torch:
            continue
        rec = dict(base, provider="torch", bytes=case.nbytes)
        try:
            if case.torch_key not in torch_cache:
                torch_cache[case.torch_key] = triton.testing.do_bench(case.run_torch, warmup=args.warmup,
                                                                      rep=args.rep, return_mode="median")
            ms = torch_cache[case.torch_key]
            rec.update(ok=True, ms=ms, gbps=case.nbytes / (ms * 1e-3) / 1e9)
            log(f"     torch  {label}: {ms:.4f} ms, {rec['gbps']:.0f} GB/s")
        except Exception as e:  # noqa: BLE001
            traceback.print_exc()
            rec.update(ok=False, error=f"{type(e).__name__}: {e}")
        sink.line(rec)
        del case
    return failures


def copy_ceiling(args, sink, torch, triton, device):
    rec = dict(kind="ceiling", provider="torch", device=device, what="d2d_copy_1GiB")
    try:
        src = torch.rand(1 << 28, device="cuda")
        dst = torch.empty_like(src)
        ms = triton.testing.do_bench(lambda: dst.copy_(src), warmup=args.warmup, rep=args.rep, return_mode="median")
        nbytes = 2.0 * src.numel() * 4
        rec.update(ok=True, bytes=nbytes, ms=ms, gbps=nbytes / (ms * 1e-3) / 1e9)
        log(f"     copy ceiling: {rec['gbps']:.0f} GB/s")
        del src, dst
    except Exception as e:  # noqa: BLE001
        traceback.print_exc()
        rec.update(ok=False, error=f"{type(e).__name__}: {e}")
    sink.line(rec)


def launch_overhead(args, sink, torch, kernels, device):
    x = torch.full((16,), math.nan, device="cuda")
    a = torch.rand(1024, device="cuda")
    c = torch.full((1024,), math.nan, device="cuda")
    launches = {
        "noop_2_args": lambda: kernels.noop[(1,)](x, 16),
        "vector_add_2^10": lambda: kernels.vector_add[(1,)](a, a, c, 1024, BLOCK=1024),
    }
    count = 200 if args.check else args.launches
    for what, fn in launches.items():
        rec = dict(kind="launch", provider="triton", device=device, what=what)
        try:
            for _ in range(20):
                fn()
            torch.cuda.synchronize()
            # As bench_tessera.cpp: CPU time of one call (best of 20 batches of
            # 100 after a synchronize), then throughput over `count` launches.
            best = float("inf")
            for _ in range(20):
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                for _ in range(100):
                    fn()
                best = min(best, (time.perf_counter() - t0) / 100 * 1e6)
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(count):
                fn()
            torch.cuda.synchronize()
            us = (time.perf_counter() - t0) / count * 1e6
            rec.update(us=best, us_throughput=us, launches=count)
            log(f"ok   launch {what}: {best:.2f} us per call, {us:.2f} us per launch through the GPU")
        except Exception as e:  # noqa: BLE001
            traceback.print_exc()
            rec.update(error=f"{type(e).__name__}: {e}")
        sink.line(rec)
    if not torch.equal(c, a + a):
        log("FAIL launch vector_add_2^10: wrong result")


# ---------------------------------------------------------------------------
# Cold compile: each measurement in a child process with an empty cache
# ---------------------------------------------------------------------------

COLD_MODES = ("softmax_first_launch", "softmax_compile", "vector_add_first_kernel", "autotune_sweep",
              "autotune_sweep_layernorm")
SWEEP_ROWS, SWEEP_COLS = 4096, 16384  # the autotuned online softmax's problem
LN_SWEEP_ROWS, LN_SWEEP_COLS = 16384, 8192  # the autotuned layernorm's (fp16)


def cold_child(mode):
    """Runs in a child whose TRITON_CACHE_DIR is fresh; prints one JSON line."""
    import torch
    import triton  # noqa: F401 - imported before the clock starts, like linking libtessera
    sys.path.insert(0, HERE)
    import kernels
    rec = dict(kind="compile", provider="triton", device=torch.cuda.get_device_name(0), what=mode)
    n = COMPILE_ROWS * COMPILE_COLS
    x = torch.rand(COMPILE_ROWS, COMPILE_COLS, device="cuda") * 8 - 4
    y = torch.full_like(x, math.nan)
    torch.cuda.synchronize()
    if mode == "vector_add_first_kernel":
        t0 = time.perf_counter()
        kernels.vector_add[(n // 1024,)](x, x, y, n, BLOCK=1024, num_warps=4)
        torch.cuda.synchronize()
        rec["ms"] = (time.perf_counter() - t0) * 1e3
    else:
        kernels.noop[(1,)](y, 3)  # warm the process up with another kernel
        torch.cuda.synchronize()
        args = (y, x, y.stride(0), x.stride(0), COMPILE_COLS)
        if mode == "softmax_first_launch":
            t0 = time.perf_counter()
            kernels.softmax_row[(COMPILE_ROWS,)](*args, BLOCK=COMPILE_COLS, num_warps=8)
            torch.cuda.synchronize()
            rec["ms"] = (time.perf_counter() - t0) * 1e3
        elif mode == "autotune_sweep":
            # 5 configs: compile, time each (do_bench, 25 + 100 ms), launch the winner.
            xs = torch.rand(SWEEP_ROWS, SWEEP_COLS, device="cuda") * 8 - 4
            ys = torch.full_like(xs, math.nan)
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            kernels.softmax_online_tuned[(SWEEP_ROWS,)](ys, xs, ys.stride(0), xs.stride(0), SWEEP_COLS)
            torch.cuda.synchronize()
            rec["ms"] = (time.perf_counter() - t0) * 1e3
            rec["best"] = str(kernels.softmax_online_tuned.best_config)
            ref = torch.softmax(xs.double(), dim=1)
            if not torch.allclose(ys.double(), ref, rtol=1e-4, atol=1e-6):
                rec["error"] = "wrong softmax after the sweep"
        elif mode == "autotune_sweep_layernorm":
            # 5 configs (num_warps 2..32), BLOCK given at launch.
            R, C = LN_SWEEP_ROWS, LN_SWEEP_COLS
            xs = (torch.rand(R, C, device="cuda") * 4 - 1.5).half()
            w = (torch.rand(C, device="cuda") + 0.5).half()
            b = (torch.rand(C, device="cuda") - 0.5).half()
            ys = torch.full_like(xs, math.nan)
            mean = torch.full((R,), math.nan, device="cuda")
            rstd = torch.full((R,), math.nan, device="cuda")
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            kernels.layernorm_fwd_tuned[(R,)](ys, xs, w, b, mean, rstd, xs.stride(0), C, EPS, BLOCK=C)
            torch.cuda.synchronize()
            rec["ms"] = (time.perf_counter() - t0) * 1e3
            rec["best"] = str(kernels.layernorm_fwd_tuned.best_config)
            ref = torch.nn.functional.layer_norm(xs.float(), (C,), w.float(), b.float(), EPS)
            if not torch.allclose(ys.float(), ref, rtol=4e-3, atol=4e-3):
                rec["error"] = "wrong layernorm after the sweep"
        elif mode == "softmax_compile":
            t0 = time.perf_counter()
            kernels.softmax_row.warmup(*args, BLOCK=COMPILE_COLS, num_warps=8, grid=(1,))
            rec["ms"] = (time.perf_counter() - t0) * 1e3
        else:
            raise SystemExit(f"unknown --cold mode '{mode}'")
    print(json.dumps(rec), flush=True)


def cold_compile(sink, device):
    failures = 0
    for mode in COLD_MODES:
        # An autotuning sweep runs again in a second process over the same
        # cache directory (what = MODE_second_process), as Tessera's does.
        whats = [mode, mode + "_second_process"] if mode.startswith("autotune_sweep") else [mode]
        with tempfile.TemporaryDirectory(prefix="triton-bench-cache-") as cache:
            env = dict(os.environ, TRITON_CACHE_DIR=cache)
            for what in whats:
                rec = dict(kind="compile", provider="triton", device=device, what=what)
                try:
                    proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--cold", mode], env=env,
                                          capture_output=True, text=True, timeout=180)
                    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
                    if lines:
                        rec = json.loads(lines[-1])
                        rec["what"] = what
                        log(f"ok   cold compile {what}: {rec.get('ms', float('nan')):.1f} ms")
                    else:
                        rec["error"] = f"child exited {proc.returncode}: {proc.stderr[-2000:]}"
                except Exception as e:  # noqa: BLE001
                    rec["error"] = f"{type(e).__name__}: {e}"
                if "error" in rec:
                    failures += 1
                    log(f"FAIL cold compile {what}: {rec['error']}")
                sink.line(rec)
    return failures


# ---------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", help="write JSON lines here (default: stdout)")
    ap.add_argument("--rows", default=os.path.join(HERE, "rows.txt"))
    ap.add_argument("--quick", action="store_true", help="only the rows marked q")
    ap.add_argument("--check", action="store_true", help="small odd shapes, correctness only")
    ap.add_argument("--only", default="", help="comma-separated kernels / ceiling / compile / launch")
    ap.add_argument("--sms", type=int, default=0, help="multiprocessors for the persistent grid (default: ask)")
    ap.add_argument("--warmup", type=int, default=25, help="do_bench warm-up, ms")
    ap.add_argument("--rep", type=int, default=100, help="do_bench repetitions, ms")
    ap.add_argument("--launches", type=int, default=10000)
    ap.add_argument("--skip-torch", action="store_true", help="time Triton only")
    ap.add_argument("--cold", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.cold:
        return cold_child(args.cold)

    import torch
    import triton
    import triton.testing
    sys.path.insert(0, HERE)
    import kernels

    only = [s for s in args.only.split(",") if s]

    def selected(name):
        return not only or name in only

    sink = Sink(args.json)
    device = torch.cuda.get_device_name(0)
    log(f"torch {torch.__version__}, triton {triton.__version__}, {device}")
    rows = check_rows() if args.check else [r for r in read_rows(args.rows) if r["quick"] or not args.quick]
    rows = [r for r in rows if selected(r["kernel"])]
    if not args.check and selected("ceiling"):
        copy_ceiling(args, sink, torch, triton, device)
    failures = bench_rows(args, sink, torch, triton, kernels, rows, device)
    if selected("launch"):
        launch_overhead(args, sink, torch, kernels, device)
    if selected("compile") and not args.check:
        failures += cold_compile(sink, device)
    log(f"{'FAILED' if failures else 'done'}: {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
