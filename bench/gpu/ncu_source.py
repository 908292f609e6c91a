"""ncu_source.py - where one kernel launch's warps stall, instruction by
instruction: Nsight Compute's source counters (warp-state sampling per SASS
instruction) reduced to a short report, to put two kernels side by side
(issue #28's attention rows: Tessera's against cuDNN's).

    python3 bench/gpu/ncu_source.py --label NAME --kernel REGEX [--skip N] [--out DIR] -- COMMAND...
    python3 bench/gpu/ncu_source.py --label NAME --csv FILE        # report on a saved CSV

Runs COMMAND under ncu (--clock-control none: the GPU's clocks are left
alone; SourceCounters and WarpStateStats sections, `--page source
--print-source sass`), saves DIR/NAME-source.csv and prints:
  - the hot loop: the run of instructions that executes the most (its
    length, executed instructions, tensor-core ops by shape, named
    barriers, special-register reads inside it);
  - the opcode mix: share of executed instructions and of stall samples;
  - per opcode, its top stall reasons (a MUFU waiting on the FFMA just
    before it shows as "wait").
Stall samples are per warp: a kernel with more resident warps collects
more of them in the same time, so compare shares, not totals.

    python3 bench/gpu/ncu_source.py --label tessera-d64 --kernel '^attention_fwd_persistent' --skip 3 -- \\
        python3 -m tessera bench/gpu/bench_attention.py --rows d64 --form persistent --warmup 5 --rep 20
"""
import argparse
import collections
import csv
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ncu_table import find_ncu  # noqa: E402

SAMPLES = "Warp Stall Sampling (All Samples)"
EXECUTED = "Instructions Executed"


def number(text):
    try:
        return float((text or "").replace(",", ""))
    except ValueError:
        return 0.0


def opcode(sass):
    words = sass.strip().split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return words[0].split(".")[0] if words else ""


def read_rows(text):
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"Address"')), None)
    if start is None:
        return []
    return list(csv.DictReader(lines[start:]))


def hot_loop(rows):
    """The contiguous run of rows (gaps of up to 3 rows: branches and
    predicated-off instructions) that executes the most instructions, among
    rows executed at least a twentieth as often as the most executed one."""
    if not rows:
        return []
    floor = max(number(r[EXECUTED]) for r in rows) / 20
    runs, last = [], None
    for i, r in enumerate(rows):
        if number(r[EXECUTED]) < floor:
            continue
        if last is None or i - last > 3:
            runs.append([])
        runs[-1].append(i)
        last = i
    best = max(runs, key=lambda run: sum(number(rows[i][EXECUTED]) for i in run))
    return rows[best[0]:best[-1] + 1]


def report(label, rows):
    stalls = [k for k in rows[0] if k.startswith("stall_") and "Not Issued" not in k]
    total_samples = sum(number(r[SAMPLES]) for r in rows) or 1.0
    total_executed = sum(number(r[EXECUTED]) for r in rows) or 1.0
    print("## %s: %d SASS instructions, %.1f M executed, %d stall samples" %
          (label, len(rows), total_executed / 1e6, total_samples))
    loop = hot_loop(rows)
    if loop:
        shapes = collections.Counter(r["Source"].split()[0] for r in loop if opcode(r["Source"]) == "HGMMA")
        named = sum(1 for r in loop if opcode(r["Source"]) == "BAR")
        s2r = sum(1 for r in loop if opcode(r["Source"]) == "S2R")
        print("hot loop: %d instructions, %.1f M executed (%.0f%%), %.0f%% of the samples; tensor-core ops: %s; "
              "BAR (named barriers): %d; S2R: %d" %
              (len(loop), sum(number(r[EXECUTED]) for r in loop) / 1e6,
               100 * sum(number(r[EXECUTED]) for r in loop) / total_executed,
               100 * sum(number(r[SAMPLES]) for r in loop) / total_samples,
               ", ".join("%d x %s" % (n, s) for s, n in sorted(shapes.items())) or "none", named, s2r))
    executed, samples = collections.Counter(), collections.Counter()
    reasons = collections.defaultdict(collections.Counter)
    for r in rows:
        op = opcode(r["Source"])
        executed[op] += number(r[EXECUTED])
        samples[op] += number(r[SAMPLES])
        for k in stalls:
            reasons[op][k[len("stall_"):]] += number(r[k])
    print()
    print("| opcode | executed % | stall samples % | top stall reasons |")
    print("| --- | ---: | ---: | --- |")
    for op, n in executed.most_common(16):
        c = reasons[op]
        t = sum(c.values()) or 1.0
        top = ", ".join("%s %.0f%%" % (k, 100 * v / t) for k, v in c.most_common(3) if v > 0)
        print("| %s | %.1f | %.1f | %s |" % (op, 100 * n / total_executed, 100 * samples[op] / total_samples, top))
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--label", required=True)
    ap.add_argument("--kernel", help="regex of the kernel's name")
    ap.add_argument("--skip", type=int, default=0, help="matching launches to skip first")
    ap.add_argument("--csv", help="report on this saved CSV instead of running ncu")
    ap.add_argument("--out", default=os.environ.get("OUT", "/tmp/ncu-out"))
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    if args.csv:
        with open(args.csv) as f:
            text = f.read()
    else:
        command = args.command[1:] if args.command[:1] == ["--"] else args.command
        if not command or not args.kernel:
            ap.error("give --kernel and the command to profile after --, or --csv")
        ncu = find_ncu()
        if not ncu:
            print("## %s: ncu not found" % args.label)
            return 1
        os.makedirs(args.out, exist_ok=True)
        cmd = [ncu, "--clock-control", "none", "--target-processes", "all", "--kernel-name", "regex:" + args.kernel,
               "--launch-skip", str(args.skip), "--launch-count", "1", "--section", "SourceCounters",
               "--section", "WarpStateStats", "--page", "source", "--print-source", "sass", "--csv"]
        run = subprocess.run(cmd + command, capture_output=True, text=True)
        text = run.stdout
        with open(os.path.join(args.out, args.label + "-source.csv"), "w") as f:
            f.write(text)
    rows = read_rows(text)
    if not rows:
        print("## %s: no source counters (ncu printed no SASS table)" % args.label)
        return 1
    report(args.label, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
