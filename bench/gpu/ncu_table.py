"""ncu_table.py - hardware counters of one kernel launch of a benchmark, as a
short table: the evidence issue #28 asks for where a row trails its target.

    python3 bench/gpu/ncu_table.py --label NAME --kernel REGEX [--skip N] [--out DIR] -- COMMAND...

Runs COMMAND under Nsight Compute (`ncu`, with --clock-control none: the
GPU's clocks are left alone) and profiles the first launch of a kernel
whose name matches REGEX after skipping N such launches (skip past
autotuning and warm-up into the timed loop of the config that won).
Collected: the SpeedOfLight, Occupancy, LaunchStats, WarpStateStats and
MemoryWorkloadAnalysis sections, and, where this ncu knows them, the
Hopper tensor-core (gmma) pipe metrics. Writes DIR/NAME.csv (everything
ncu printed) and prints one markdown row per profiled kernel:
duration, SM / memory / DRAM throughput (% of peak), tensor pipe busy,
issue slots busy, warp instructions executed, FMA / ALU / XU pipes busy,
registers, shared memory, achieved occupancy, L2 hit rate, and the two
largest warp-stall reasons (cycles per issued instruction), where this ncu
has those metrics.

    # Tessera's fp8 matmul against cuBLAS's, 4096^3
    python3 bench/gpu/ncu_table.py --label tessera-fp8 --kernel matmul_kernel_fp8 --skip 300 -- \\
        python3 -m tessera bench/gpu/bench_matmul.py --only fp8e4nv --sizes 4096 --skip-cublas
    python3 bench/gpu/ncu_table.py --label cublas-fp8 --kernel 'gemm|xmma|cutlass' --skip 30 -- \\
        python3 bench/gpu/bench_matmul.py --only fp8e4nv --sizes 4096
"""
import argparse
import csv
import io
import os
import re
import shutil
import subprocess
import sys

SECTIONS = ["SpeedOfLight", "Occupancy", "LaunchStats", "WarpStateStats", "MemoryWorkloadAnalysis"]
# (column, the metrics that give it, first found wins): "Section/Name" for
# a name two sections share (SpeedOfLight's "Memory Throughput" is a
# percentage, MemoryWorkloadAnalysis's a rate), else a bare name.
SOL = "GPU Speed Of Light Throughput/"
COLUMNS = [
    ("duration", [SOL + "Duration", "gpu__time_duration.sum"]),
    ("SM %", [SOL + "Compute (SM) Throughput", "sm__throughput.avg.pct_of_peak_sustained_elapsed"]),
    ("memory %", [SOL + "Memory Throughput"]),
    ("DRAM %", [SOL + "DRAM Throughput", "dram__throughput.avg.pct_of_peak_sustained_elapsed"]),
    ("tensor pipe %", ["sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active",
                       "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"]),
    ("issue %", ["sm__inst_issued.avg.pct_of_peak_sustained_active"]),
    ("warp inst (M)", ["smsp__inst_executed.sum"]),
    ("fma %", ["sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"]),
    ("alu %", ["sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active"]),
    ("xu (MUFU) %", ["sm__pipe_xu_cycles_active.avg.pct_of_peak_sustained_active"]),
    ("regs", ["Registers Per Thread"]),
    ("smem/block", ["Dynamic Shared Memory Per Block"]),
    ("occupancy %", ["Achieved Occupancy"]),
    ("L2 hit %", ["L2 Hit Rate"]),
    ("grid", ["Grid Size"]),
    ("block", ["Block Size"]),
]
TENSOR_METRICS = ["sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active",
                  "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"]
# Issue slots and the pipes a softmax loads: FMA (FFMA, FADD, FMUL), ALU
# (FMNMX, compares, integer logic), XU (MUFU.EX2, conversions).
PIPE_METRICS = ["sm__inst_issued.avg.pct_of_peak_sustained_active", "smsp__inst_executed.sum",
                "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
                "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active",
                "sm__pipe_xu_cycles_active.avg.pct_of_peak_sustained_active"]
# Warp stall reasons, cycles per issued instruction (the details page shows
# only their sum, "Warp Cycles Per Issued Instruction").
STALL_PREFIX = "smsp__average_warps_issue_stalled_"
STALL_METRICS = [STALL_PREFIX + r + "_per_issue_active.ratio" for r in (
    "long_scoreboard", "short_scoreboard", "barrier", "membar", "wait", "math_pipe_throttle", "mio_throttle",
    "lg_throttle", "not_selected", "selected", "dispatch_stall", "no_instruction", "branch_resolving",
    "sleeping", "drain", "imc_miss", "tex_throttle", "misc")]


def find_ncu():
    for candidate in [shutil.which("ncu"), "/usr/local/cuda/bin/ncu"]:
        if candidate and os.path.exists(candidate):
            return candidate
    for root, _, files in os.walk("/opt/nvidia"):
        if "ncu" in files:
            return os.path.join(root, "ncu")
    return None


def known_metrics(ncu, names):
    """The names of `names` this ncu can collect on this GPU (an unknown
    metric would make ncu refuse the whole run)."""
    have = set()
    for extra in ([], ["--chips", "gh100"]):
        try:
            out = subprocess.run([ncu, "--query-metrics"] + extra, capture_output=True, text=True, timeout=120).stdout
        except Exception:  # noqa: BLE001
            continue
        have |= set(re.findall(r"^(\S+)", out, re.M))
        if have:
            break
    return [n for n in names if n.split(".")[0] in have]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--label", required=True)
    ap.add_argument("--kernel", required=True, help="regex on the kernel's name")
    ap.add_argument("--skip", type=int, default=0, help="matching launches to skip")
    ap.add_argument("--count", type=int, default=1, help="matching launches to profile")
    ap.add_argument("--out", default=os.environ.get("OUT", "/tmp/ncu-out"))
    ap.add_argument("--no-header", action="store_true", help="rows only (to append to another table)")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        ap.error("give the command to profile after --")
    ncu = find_ncu()
    if not ncu:
        print("| %s | ncu not found |" % args.label)
        return 1
    os.makedirs(args.out, exist_ok=True)
    cmd = [ncu, "--clock-control", "none", "--target-processes", "all", "--kernel-name", "regex:" + args.kernel,
           "--launch-skip", str(args.skip), "--launch-count", str(args.count), "--csv", "--page", "details"]
    for s in SECTIONS:
        cmd += ["--section", s]
    extra = known_metrics(ncu, TENSOR_METRICS + PIPE_METRICS + STALL_METRICS)
    if extra:
        cmd += ["--metrics", ",".join(extra)]
    run = subprocess.run(cmd + command, capture_output=True, text=True)
    raw = os.path.join(args.out, args.label + ".csv")
    with open(raw, "w") as f:
        f.write(run.stdout)
        f.write(run.stderr)
    # ncu's CSV starts at the first line that begins with "\"ID\"".
    text = run.stdout[run.stdout.find('"ID"'):] if '"ID"' in run.stdout else ""
    kernels = {}  # (id, name) -> {metric: "value unit"}
    stalls = {}
    for row in csv.DictReader(io.StringIO(text)):
        key = (row.get("ID"), (row.get("Kernel Name") or "")[:60])
        name, value, unit = row.get("Metric Name") or "", row.get("Metric Value") or "", row.get("Metric Unit") or ""
        if not name:
            continue  # a line of the program's own output inside the CSV
        shown = (value + (" " + unit if unit and unit != "%" else "")).strip()
        metrics = kernels.setdefault(key, {})
        metrics[(row.get("Section Name") or "") + "/" + name] = shown
        metrics.setdefault(name, shown)
        if name.startswith(STALL_PREFIX):
            try:
                reason = name[len(STALL_PREFIX):].split("_per_issue")[0]
                stalls.setdefault(key, []).append((float(value.replace(",", "")), reason))
            except ValueError:
                pass
    if not kernels:
        tail = (run.stderr or run.stdout).strip().splitlines()[-3:]
        print("| %s | no kernel profiled (exit %d): %s |" % (args.label, run.returncode, " / ".join(tail)))
        return 1
    if not args.no_header:
        print("| label | kernel | " + " | ".join(c for c, _ in COLUMNS) + " | top stalls |")
        print("| --- | --- | " + " | ".join("---:" for _ in COLUMNS) + " | --- |")
    for key, metrics in kernels.items():
        cells = []
        for _, names in COLUMNS:
            cells.append(next((metrics[n] for n in names if n in metrics), "-"))
        top = sorted(stalls.get(key, []), reverse=True)[:2]
        print("| %s | %s | %s | %s |" % (args.label, key[1], " | ".join(cells),
                                         ", ".join("%s %.1f" % (n, v) for v, n in top) or "-"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
