"""Summarizes bench/gpu/tensor_cores' all.jsonl as a markdown table: for each
matmul row (dtype, size, kernel form) and attention row (head_dim, causal), each
provider's best TFLOP/s over the rounds (--stat median: the median round's,
which an outlier round of either side does not move: at 8192^3 the H100's
clocks under its power limit spread one kernel's rounds by up to 15%), and
the ratios Tessera/Triton and
Tessera/(cuBLAS or SDPA; a descriptor-form matmul row is compared with
the reference time of its pointer-form row). With --png, also a grouped bar plot of the three
providers per row (matplotlib if importable, else gnuplot if on PATH).

    python3 tensor_cores_summary.py all.jsonl [--png OUT.png] [--stat best|median]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile


def row_key(rec):
    if rec["kind"] == "matmul":
        return ("matmul", rec["dtype"], rec["M"], rec.get("form", "pointer"))
    return ("attention", rec["D"], rec["causal"], rec.get("form", "pointer"))


def shape_text(key):
    if key[0] == "matmul":
        return "%s %d%s" % (key[1], key[2], {"descriptor": " desc", "block_ptr": " block ptr"}.get(key[3], ""))
    return "bf16 d=%d%s%s" % (key[1], " causal" if key[2] else "",
                              {"descriptor": " desc", "persistent": " persistent"}.get(key[3], ""))


PROVIDERS = (("Tessera", ("tessera",)), ("Triton 3.6", ("triton",)), ("cuBLAS / SDPA", ("cublas", "sdpa")))


def plot(path, labels, series):
    """Grouped bars: series is [(provider, [TFLOP/s or 0 per label])]."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        plt = None
    if plt is not None:
        fig, ax = plt.subplots(figsize=(12, 4.5))
        width = 0.8 / len(series)
        for i, (name, values) in enumerate(series):
            ax.bar([x + i * width for x in range(len(labels))], values, width, label=name)
        ax.set_xticks([x + 0.4 - width / 2 for x in range(len(labels))])
        ax.set_xticklabels(labels, rotation=30, ha="right")
        ax.set_ylabel("TFLOP/s")
        ax.legend()
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        return "wrote " + path
    if not shutil.which("gnuplot"):
        return "neither matplotlib nor gnuplot here: no plot"
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "rows.dat")
        with open(data, "w") as f:
            for i, label in enumerate(labels):
                f.write('"%s" %s\n' % (label, " ".join("%.1f" % v for _, v2 in series for v in [v2[i]])))
        script = os.path.join(tmp, "plot.gp")
        with open(script, "w") as f:
            f.write('set terminal pngcairo size 1300,500 font ",10"\n' if subprocess.run(
                ["gnuplot", "-e", "set terminal pngcairo"], capture_output=True).returncode == 0
                    else 'set terminal png size 1300,500\n')
            f.write('set output "%s"\nset style data histograms\nset style histogram clustered gap 1\n' % path)
            f.write('set style fill solid 0.9 border -1\nset ylabel "TFLOP/s"\nset xtics rotate by -30\n')
            f.write('set key top left\nset grid ytics\nset yrange [0:*]\n')
            f.write("plot " + ", ".join('"%s" using %d:xtic(1) title "%s"' % (data, i + 2, name)
                                        for i, (name, _) in enumerate(series)) + "\n")
        subprocess.run(["gnuplot", script], check=True)
    return "wrote " + path


def main(path, png=None, stat="best"):
    rounds = {}
    with open(path) as f:
        for line in f:
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            if "tflops" not in rec:
                continue
            rounds.setdefault(row_key(rec) + (rec["provider"],), []).append(rec)
    best = {}  # the chosen round of each row and provider
    for k, recs in rounds.items():
        recs.sort(key=lambda r: r["tflops"])
        best[k] = recs[-1] if stat == "best" else recs[(len(recs) - 1) // 2]

    def tflops(rec):
        return "%.1f" % rec["tflops"] if rec else "-"

    def ratio(a, b):
        return "%.2f" % (a["tflops"] / b["tflops"]) if a and b else "-"

    keys = sorted({k[:-1] for k in best})
    if png:
        labels = [("%s %s" % (k[0], shape_text(k))) for k in keys]
        series = [(name, [max([best[k + (p,)]["tflops"] for p in providers if k + (p,) in best] or [0.0])
                          for k in keys]) for name, providers in PROVIDERS]
        print(plot(png, labels, series), file=sys.stderr)
    print("| kernel | shape | Tessera | Triton | cuBLAS/SDPA | Tessera/Triton | Tessera/ref |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for key in keys:
        ours, triton = best.get(key + ("tessera",)), best.get(key + ("triton",))
        ref = best.get(key + ("cublas",)) or best.get(key + ("sdpa",))
        if not ref:  # descriptor rows: the reference of the pointer row
            ref = best.get(key[:3] + ("pointer", "cublas")) or best.get(key[:3] + ("pointer", "sdpa"))
        print("| %s | %s | %s | %s | %s | %s | %s |" % (key[0], shape_text(key), tflops(ours), tflops(triton),
                                                       tflops(ref), ratio(ours, triton), ratio(ours, ref)))


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("jsonl")
    ap.add_argument("--png", help="also write a bar plot here")
    ap.add_argument("--stat", choices=["best", "median"], default="best",
                    help="each provider's best round (default) or its median round (the lower one of an even count)")
    args = ap.parse_args()
    main(args.jsonl, args.png, args.stat)
