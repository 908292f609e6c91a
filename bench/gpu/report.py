#!/usr/bin/env python3
"""Merges the JSON lines of bench_gpu (Tessera) and bench_triton.py (Triton,
PyTorch) into the markdown report of the GPU benchmark, plus a bar plot.

  report.py --tessera T.jsonl --triton P.jsonl [--tessera-check T.jsonl]
            [--triton-check P.jsonl] [--md OUT.md] [--png OUT.png]
            [--ceiling GBPS] [--note TEXT]

Tables: memory-bound rows (GB/s of each side, Tessera/Triton, Tessera's share
of the device-to-device copy ceiling, and the ANCHORS.md targets: >= 0.97x
Triton on every row, >= 92% of the ceiling on rows that move at least
256 MiB), cold compile times (target: Tessera <= 1/10 of Triton) and warm
launch overhead (target: <= 3 us from C++). A row whose output was wrong
never passes. Failures and errors are listed after the tables. The markdown
is printed last; missing or partial inputs give empty cells, not a crash.
"""
import argparse
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RATIO_TARGET = 0.97
CEILING_TARGET = 0.92
LARGE_BYTES = 256 * 2**20
COMPILE_TARGET = 10.0  # Triton time / Tessera time
SWEEP_TARGET = 5.0  # an autotuning sweep: Triton time / Tessera time
LAUNCH_TARGET_US = 3.0
# The rows of shared/ANCHORS.md's memory-bound table, which the targets are
# about; the other kernels (online, persistent, fused dropout) are reported
# next to Triton too, their copy-ceiling share for information only (the
# online softmax reads its input twice by design).
ANCHOR_KERNELS = {"vector_add", "softmax_row", "layernorm_fwd"}


def load(path):
    """JSON objects of a JSON-lines file; [] when the file is missing."""
    if not path or not os.path.exists(path):
        return []
    out = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as e:
                print(f"report: {path}:{n}: skipped a malformed line ({e})", file=sys.stderr)
    return out


def row_order():
    """(kernel, shape, dtype) in rows.txt order, so tables follow the plan."""
    order = []
    try:
        with open(os.path.join(HERE, "rows.txt")) as f:
            for line in f:
                fields = line.split("#", 1)[0].split()
                if len(fields) >= 4:
                    kernel, dtype, rows, cols = fields[0], fields[1], int(fields[2]), int(fields[3])
                    if kernel == "vector_add":
                        shape = f"2^{cols.bit_length() - 1}" if cols & (cols - 1) == 0 else str(cols)
                    else:
                        shape = f"{rows}x{cols}"
                    order.append((kernel, shape, dtype))
    except OSError:
        pass
    return order


def fmt(v, digits=0):
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "—"
    return f"{v:,.{digits}f}"


def gbps_cell(rec):
    if rec is None:
        return "—"
    if rec.get("gbps") is None:
        return "error" if rec.get("error") else "—"
    cell = fmt(rec["gbps"])
    return cell if rec.get("ok", True) else cell + " (wrong)"


def passfail(ok):
    return "pass" if ok else "**FAIL**"


def better(a, b):
    """The record to keep of two measurements of one row by one provider
    (several rounds): a wrong output wins (it must show), else the faster."""
    if a is None:
        return b
    if not a.get("ok", True) or not b.get("ok", True):
        return a if not a.get("ok", True) else b
    return b if (b.get("gbps") or 0) > (a.get("gbps") or 0) else a


def bandwidth_table(tess, trit, ceiling):
    by_key = {}
    for provider, recs in (("tessera", tess), ("triton", trit)):
        for r in recs:
            if r.get("kind") != "bandwidth":
                continue
            key = (r.get("kernel"), r.get("shape"), r.get("dtype"))
            who = r.get("provider", provider)
            row = by_key.setdefault(key, {})
            row[who] = better(row.get(who), r)
    planned = row_order()
    keys = [k for k in planned if k in by_key] + [k for k in by_key if k not in planned]

    lines = ["| kernel | shape | dtype | Tessera GB/s | Triton GB/s | PyTorch GB/s | Tessera/Triton "
             f"| Tessera % of copy | ≥{RATIO_TARGET}× Triton | ≥{CEILING_TARGET:.0%} copy |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- |"]
    counts = dict(ratio_pass=0, ratio_total=0, ceil_pass=0, ceil_total=0, anchor_pass=0, anchor_total=0)
    plot = []
    for key in keys:
        recs = by_key[key]
        te, tr, pt = recs.get("tessera"), recs.get("triton"), recs.get("torch")
        te_g = te.get("gbps") if te else None
        tr_g = tr.get("gbps") if tr else None
        te_ok = bool(te and te.get("ok") and te_g)
        ratio = te_g / tr_g if te_g and tr_g else None
        share = te_g / ceiling if te_g and ceiling else None
        counts["ratio_total"] += 1
        ratio_ok = te_ok and ratio is not None and ratio >= RATIO_TARGET
        counts["ratio_pass"] += ratio_ok
        anchor = key[0] in ANCHOR_KERNELS
        if anchor:
            counts["anchor_total"] += 1
            counts["anchor_pass"] += ratio_ok
        nbytes = next((r.get("bytes") for r in (te, tr, pt) if r and r.get("bytes")), 0) or 0
        if not anchor:
            ceil_cell = "info"
        elif nbytes >= LARGE_BYTES:
            counts["ceil_total"] += 1
            ceil_ok = te_ok and share is not None and share >= CEILING_TARGET
            counts["ceil_pass"] += ceil_ok
            ceil_cell = passfail(ceil_ok)
        else:
            ceil_cell = "n/a (small)"
        name = key[0] if anchor else key[0] + " *"
        lines.append(f"| {name} | {key[1]} | {key[2]} | {gbps_cell(te)} | {gbps_cell(tr)} | {gbps_cell(pt)} "
                     f"| {fmt(ratio, 2)} | {fmt(share * 100 if share else None, 1)} | {passfail(ratio_ok)} "
                     f"| {ceil_cell} |")
        plot.append((f"{key[0]}\n{key[2]} {key[1]}", te_g, tr_g, pt.get("gbps") if pt else None))
    return lines, counts, plot


def fastest(recs, kind, field):
    """what -> the record of `kind` with the smallest `field` (several rounds)."""
    out = {}
    for r in recs:
        if r.get("kind") != kind or "what" not in r or r.get(field) is None:
            continue
        if r["what"] not in out or r[field] < out[r["what"]][field]:
            out[r["what"]] = r
    return out


def compile_table(tess, trit):
    te, tr = fastest(tess, "compile", "ms"), fastest(trit, "compile", "ms")
    names = {"softmax_first_launch": "softmax (BLOCK 4096, 8 warps): first launch, cold cache",
             "softmax_compile": "softmax: compile only (Kernel::compile / JITFunction.warmup)",
             "vector_add_first_kernel": "vector add: first kernel of the process, cold cache",
             "autotune_sweep": "autotune sweep: online softmax 4096x16384, 5 configs, cold cache (compile + time + launch)",
             "autotune_sweep_second_process": "the same launch in a second process, same cache directory",
             "autotune_sweep_layernorm": "autotune sweep: layernorm fp16 16384x8192, 5 configs, cold cache",
             "autotune_sweep_layernorm_second_process": "the same launch in a second process, same cache directory"}
    lines = ["| what | Tessera ms | Triton ms | Triton / Tessera | target |",
             "| --- | ---: | ---: | ---: | --- |"]
    for what in list(names) + sorted((set(te) | set(tr)) - set(names)):
        a, b = te.get(what, {}).get("ms"), tr.get(what, {}).get("ms")
        if what not in te and what not in tr:
            continue
        speedup = b / a if a and b else None
        goal = SWEEP_TARGET if what.startswith("autotune_sweep") else COMPILE_TARGET
        target = (passfail(speedup is not None and speedup >= goal) + f" (≥ {goal:g}×)") if speedup else "—"
        if what.endswith("_second_process"):
            target = "info"
        lines.append(f"| {names.get(what, what)} | {fmt(a, 1)} | {fmt(b, 1)} | {fmt(speedup, 1)} | {target} |")
    chosen = [f"{names.get(w, w).split(',')[0]} ({w}): Tessera {te.get(w, {}).get('best', '—')}; "
              f"Triton {tr.get(w, {}).get('best', '—')}" for w in names if "best" in te.get(w, {}) or "best" in tr.get(w, {})]
    if chosen:
        lines += ["", "Configs the sweeps chose:", ""] + [f"- {c}" for c in chosen]
    return lines


def launch_table(tess, trit):
    te, tr = fastest(tess, "launch", "us"), fastest(trit, "launch", "us")
    kernels = {"noop_2_args": "no-op kernel, 2 args", "vector_add_2^10": "vector add 2^10, 4 args"}
    lines = [f"| warm launch: CPU time of one call (µs) | Tessera Kernel::launch | Tessera PreparedLaunch "
             f"| raw cuLaunchKernel | Triton (Python) | Kernel::launch ≤ {LAUNCH_TARGET_US:g} µs |",
             "| --- | ---: | ---: | ---: | ---: | --- |"]
    for what, name in kernels.items():
        if what not in te and what not in tr:
            continue
        a = te.get(what, {}).get("us")
        prepared = te.get(what + "_prepared", {}).get("us")
        raw = te.get(what + "_raw_cuLaunchKernel", {}).get("us")
        b = tr.get(what, {}).get("us")
        target = passfail(a <= LAUNCH_TARGET_US) if a is not None else "—"
        lines.append(f"| {name} | {fmt(a, 2)} | {fmt(prepared, 2)} | {fmt(raw, 2)} | {fmt(b, 2)} | {target} |")
    through = {w: te.get(w, {}).get("us_throughput") for w in te}
    if any(v for v in through.values()):
        lines += ["", "Through the GPU (10000 launches, then one synchronize; a no-op kernel makes this the GPU's own "
                  "launch rate once the CPU keeps up), µs per launch: "
                  + ", ".join(f"{w} {fmt(v, 2)}" for w, v in sorted(through.items()) if v) + "."]
    return lines


PROVIDERS = {"tessera": "Tessera", "triton": "Triton", "torch": "PyTorch"}


def problems(recs, suffix=""):
    out = []
    for r in recs:
        msg = r.get("error") or r.get("mismatch")
        if not msg and r.get("ok", True):
            continue
        what = r.get("what") or " ".join(str(r.get(k, "")) for k in ("kernel", "op", "dtype", "shape"))
        msg = (msg or "output check failed").replace("\n", " ").replace("|", "\\|")
        if len(msg) > 400:
            msg = msg[:400] + "…"
        who = PROVIDERS.get(r.get("provider"), r.get("provider", "?")) + suffix
        out.append(f"- {who}, {r.get('kind', '')} {what.strip()}: {msg}")
    return out


def check_summary(label, recs):
    rows = [r for r in recs if r.get("kind") == "bandwidth"]
    if not rows:
        return None
    good = sum(1 for r in rows if r.get("ok"))
    return f"- {label}: {good}/{len(rows)} small odd shapes correct"


def make_plot(path, plot, ceiling):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not importable here: no plot."
    if not plot:
        return "no bandwidth rows: no plot."
    n = len(plot)
    fig, ax = plt.subplots(figsize=(max(10, 0.9 * n + 2), 6))
    width = 0.27
    for i, (name, color) in enumerate((("Tessera", "#1f77b4"), ("Triton", "#ff7f0e"), ("PyTorch", "#7f7f7f"))):
        values = [p[1 + i] or 0 for p in plot]
        ax.bar([x + (i - 1) * width for x in range(n)], values, width, label=name, color=color)
    if ceiling:
        ax.axhline(ceiling, color="black", linestyle="--", linewidth=1, label=f"d2d copy {ceiling:.0f} GB/s")
        ax.axhline(ceiling * CEILING_TARGET, color="black", linestyle=":", linewidth=1,
                   label=f"{CEILING_TARGET:.0%} of copy")
    top = max([v for p in plot for v in p[1:] if v] + [ceiling or 0, 1])
    ax.set_ylim(0, top * 1.18)
    ax.set_xticks(range(n))
    ax.set_xticklabels([p[0] for p in plot], rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("GB/s (bytes read + written / median time)")
    ax.set_title("Memory-bound kernels: Tessera vs Triton vs PyTorch")
    ax.legend(fontsize=8, loc="upper left", ncol=5)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return f"plot: {path}"


def library_table(tess, trit):
    """The kernel library: Tessera's C++ functions, the same kernels/*.py
    under Triton, and PyTorch's operators (best round of each)."""
    def best(recs, provider):
        out = {}
        for r in recs:
            if r.get("kind") != "library" or r.get("provider") != provider or r.get("gbps") is None:
                continue
            key = (r["op"], r["dtype"], r["shape"])
            if key not in out or r["gbps"] > out[key]["gbps"]:
                out[key] = r
        return out
    te, tr, pt = best(tess, "tessera"), best(trit, "triton"), best(trit, "torch")
    keys = []
    for r in tess + trit:
        if r.get("kind") == "library":
            k = (r["op"], r["dtype"], r["shape"])
            if k not in keys:
                keys.append(k)
    if not keys:
        return []
    lines = ["| op | shape | dtype | Tessera GB/s | Triton GB/s (same source) | PyTorch GB/s | Tessera/Triton "
             "| Tessera/PyTorch |", "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    for k in keys:
        a, b, c = (d.get(k, {}).get("gbps") for d in (te, tr, pt))
        lines.append(f"| {k[0]} | {k[2]} | {k[1]} | {fmt(a)} | {fmt(b)} | {fmt(c)} | "
                     f"{fmt(a / b if a and b else None, 2)} | {fmt(a / c if a and c else None, 2)} |")
    return lines


def main():
    ap = argparse.ArgumentParser(description="merge the GPU benchmark's JSON lines into markdown")
    ap.add_argument("--tessera", help="bench_gpu JSON lines")
    ap.add_argument("--triton", help="bench_triton.py JSON lines")
    ap.add_argument("--tessera-check", help="bench_gpu --check JSON lines")
    ap.add_argument("--triton-check", help="bench_triton.py --check JSON lines")
    ap.add_argument("--md", help="write the markdown here too")
    ap.add_argument("--png", help="write the bar plot here")
    ap.add_argument("--ceiling", type=float, default=0.0,
                    help="copy ceiling in GB/s when the Triton side measured none")
    ap.add_argument("--note", default="", help="a line under the title (commit, date, ...)")
    args = ap.parse_args()

    tess, trit = load(args.tessera), load(args.triton)
    tess_check, trit_check = load(args.tessera_check), load(args.triton_check)
    ceil_rec = next((r for r in trit if r.get("kind") == "ceiling" and r.get("gbps")), None)
    ceiling = ceil_rec["gbps"] if ceil_rec else (args.ceiling or None)
    devices = sorted({r.get("device") for r in tess + trit if r.get("device")})

    md = ["# GPU benchmark: Tessera vs Triton vs PyTorch", ""]
    if args.note:
        md += [args.note, ""]
    md.append(f"Device: {', '.join(devices) or 'unknown'}. "
              + (f"Device-to-device copy ceiling: {ceiling:,.0f} GB/s (1 GiB, bytes read + written)."
                 if ceiling else "No copy ceiling measured: the % column is empty."))
    rounds = max([r.get("round", 1) for r in tess + trit if r.get("kind") == "bandwidth"] + [1])
    md += ["", "GB/s = bytes read + written / median time (do_bench)"
           + (f", the best of {rounds} rounds per side (Tessera and Triton alternate)" if rounds > 1 else "")
           + ". '(wrong)': the output check failed. Rows marked * are not in ANCHORS.md's table: "
           "reported next to Triton, no copy-ceiling target.", ""]
    table, counts, plot = bandwidth_table(tess, trit, ceiling)
    md += table
    md += ["", f"≥ {RATIO_TARGET}× Triton: {counts['anchor_pass']}/{counts['anchor_total']} ANCHORS.md rows "
               f"({counts['ratio_pass']}/{counts['ratio_total']} rows in all). "
               f"≥ {CEILING_TARGET:.0%} of the copy ceiling: {counts['ceil_pass']}/{counts['ceil_total']} "
               f"ANCHORS.md rows that move ≥ 256 MiB.", ""]
    md += ["## Cold compile", ""] + compile_table(tess, trit) + [""]
    md += ["## Launch overhead", ""] + launch_table(tess, trit) + [""]
    library = library_table(tess, trit)
    if library:
        md += ["## Kernel library (tessera/kernels.h)", "",
               "Tessera: the C++ function as a user calls it (outputs allocated from the device's pool). Triton: "
               "the same kernels/*.py source under Triton 3.6, launched with the same parameters (outputs from "
               "PyTorch's caching allocator). PyTorch: its own operator (autograd for the backwards). GB/s of the "
               "bytes the op must move, median of do_bench, best round.", ""] + library + [""]
    checks = [s for s in (check_summary("Tessera", tess_check), check_summary("Triton", trit_check)) if s]
    if checks:
        md += ["## Correctness on small odd shapes (--check)", ""] + checks + [""]
    issues = (problems(tess) + problems(trit) + problems(tess_check, " --check") + problems(trit_check, " --check"))
    md += ["## Failures and errors", ""] + (issues or ["none"]) + [""]
    text = "\n".join(md)

    if args.md:
        with open(args.md, "w") as f:
            f.write(text)
    if args.png:
        print(make_plot(args.png, plot, ceiling))
    sys.stderr.flush()
    sys.stdout.write(text + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
