"""sass_compare.py - Tessera's and Triton's machine code for the same kernel
source and config, side by side, without running anything (GPU machine: it
needs Triton 3.6, nvdisasm and cuobjdump; no GPU time).

Profiling one kernel at a time (ncu_source.py) finds where a kernel loses;
this finds *which* kernels to profile. For each case it compiles the source
with both compilers to sm_90a cubins, disassembles them, and reports per
side: registers and spills, instructions, the hot loop (the innermost loop
that holds the tensor-core or TMA instructions, else the largest innermost
loop) and, inside it, the opcodes that tell codegen apart: uniform-register
moves (R2UR: a value ptxas could not prove uniform), lane loops around TMA
copies (ELECT / BRA.U.ANY), special-register reads (S2R), barriers, shared
and global memory, MUFU. Session 36 found the grouped GEMM's K loop at 174
instructions against Triton's 71 this way (docs/performance.md).

    python3 bench/gpu/sass_compare.py [--cases FILE] [--only NAME,...] [--out DIR] [--tessera BIN]
    python3 bench/gpu/sass_compare.py --sass A.sass [B.sass ...]   # only the analysis, any machine

FILE (default bench/gpu/sass_cases.txt): one case per line,
    name | module path | kernel | signature | constexprs | num_warps | num_stages
with the signature in Triton's AOT form ('*bf16:16,i32:16,fp32', the
kernel's non-constexpr parameters in order) and constexprs as NAME=VALUE
separated by spaces (a parameter Triton would specialize to 1 is given here
too). Tessera's side is `tessera compile` (--tessera, default
build-gpu/tools/tessera); Triton's is triton.compile on the same function
(an @autotune / @heuristics kernel's JIT function underneath). Writes
DIR/NAME.{tessera,triton}.{cubin,sass} and DIR/sass_compare.md, and prints
the table last.
"""
import argparse
import collections
import importlib.util
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
# Opcodes counted inside the hot loop (a SASS opcode's first dotted part).
WATCH = ["HGMMA", "HMMA", "UTMALDG", "R2UR", "ELECT", "VOTEU", "S2R", "BAR", "SYNCS", "LDS", "STS", "LDSM",
         "LDG", "STG", "MUFU", "FFMA", "IMAD"]
INSTRUCTION = re.compile(r"^\s*/\*([0-9a-f]+)\*/\s+(.*?)\s*;")
LABEL = re.compile(r"^(\.L_x_\d+):")
TARGET = re.compile(r"`\((\.L_x_\d+)\)")


def parse_sass(text):
    """Instructions of the (first) function as (text, opcode) in order, and
    each label's index (the instruction it precedes)."""
    instructions, labels = [], {}
    for line in text.splitlines():
        m = LABEL.match(line.strip())
        if m:
            labels[m.group(1)] = len(instructions)
            continue
        m = INSTRUCTION.match(line)
        if not m:
            continue
        body = m.group(2)
        words = body.split()
        if words and words[0].startswith("@"):
            words = words[1:]
        opcode = words[0].split(".")[0] if words else ""
        instructions.append((body, opcode))
    return instructions, labels


def loops(instructions, labels):
    """(start, end) of every backward branch: instructions start..end.
    Branches after the last EXIT are left out: ptxas puts the retry of an
    mbarrier wait there, and its jump back into the loop is not a loop."""
    found = []
    last_exit = max((i for i, (_, op) in enumerate(instructions) if op == "EXIT"), default=len(instructions))
    for i, (body, opcode) in enumerate(instructions):
        # A lane loop (BRA.U.ANY: ptxas repeating an instruction for each
        # lane's operands) is counted in the loop around it, not one itself.
        if opcode != "BRA" or i > last_exit or ".U.ANY" in body:
            continue
        m = TARGET.search(body)
        if m and m.group(1) in labels and labels[m.group(1)] <= i:
            found.append((labels[m.group(1)], i))
    return found


def hot_loop(instructions, labels):
    """The innermost loop with tensor-core / TMA instructions (the most of
    them), else the largest innermost loop of more than 3 instructions;
    None for straight-line code."""
    spans = [s for s in loops(instructions, labels) if s[1] - s[0] + 1 > 3]
    inner = [s for s in spans if not any(o != s and s[0] <= o[0] and o[1] <= s[1] for o in spans)]
    if not inner:
        return None

    def heavy(span):
        return sum(1 for _, op in instructions[span[0]:span[1] + 1] if op in ("HGMMA", "HMMA", "UTMALDG"))

    return max(inner, key=lambda s: (heavy(s), s[1] - s[0]))


def analyse(text):
    instructions, labels = parse_sass(text)
    span = hot_loop(instructions, labels)
    body = instructions[span[0]:span[1] + 1] if span else []
    counts = collections.Counter(op for _, op in body)
    lane_loops = sum(1 for b, op in body if op == "BRA" and ".U.ANY" in b)
    return {"instructions": len(instructions), "loop": len(body), "counts": counts, "lane_loops": lane_loops}


def resources(cubin):
    """(registers, stack bytes) of the cubin's kernel from cuobjdump -res-usage."""
    tool = shutil.which("cuobjdump") or "/usr/local/cuda/bin/cuobjdump"
    try:
        out = subprocess.run([tool, "-res-usage", cubin], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None, None
    reg = re.search(r"REG:(\d+)", out)
    stack = re.search(r"STACK:(\d+)", out)
    return (int(reg.group(1)) if reg else None), (int(stack.group(1)) if stack else None)


def disassemble(cubin, sass):
    tool = shutil.which("nvdisasm") or "/usr/local/cuda/bin/nvdisasm"
    out = subprocess.run([tool, "-c", cubin], capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise RuntimeError("nvdisasm: " + out.stderr.strip()[:300])
    with open(sass, "w") as f:
        f.write(out.stdout)
    return out.stdout


def read_cases(path):
    cases = []
    for n, line in enumerate(open(path), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = [p.strip() for p in line.split("|")]
        if len(parts) != 7:
            raise SystemExit("%s:%d: expected 7 fields separated by '|', got %d" % (path, n, len(parts)))
        name, module, kernel, sig, consts, warps, stages = parts
        constexprs = dict(kv.split("=", 1) for kv in consts.split()) if consts else {}
        cases.append(dict(name=name, module=os.path.join(ROOT, module), kernel=kernel, sig=sig,
                          constexprs=constexprs, warps=int(warps), stages=int(stages)))
    return cases


def compile_tessera(case, binary, cubin):
    cmd = [binary, "compile", case["module"], "-k", case["kernel"], "-s", case["sig"], "-w", str(case["warps"]),
           "--num-stages", str(case["stages"]), "--arch", "sm_90a", "--emit", "cubin", "-o", cubin]
    for k, v in case["constexprs"].items():
        cmd += ["-D", "%s=%s" % (k, v)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        raise RuntimeError((out.stderr or out.stdout).strip()[-400:])


def triton_value(text):
    """A constexpr's value as Triton takes it: an int, a float, a bool or a dtype."""
    import triton.language as tl
    if text in ("True", "False"):
        return text == "True"
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        pass
    dtype = getattr(tl, {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32", "fp8e4nv": "float8e4nv"}
                    .get(text, text), None)
    if dtype is None:
        raise ValueError("constexpr value %r" % text)
    return dtype


def ast_source(fn, sig, consts):
    """Triton's ASTSource of a JIT function for an AOT signature ('*bf16:16,i32',
    the non-constexpr parameters in order; ':16' marks divisibility by 16)."""
    import triton
    params = [p for p in fn.arg_names if p not in consts]
    types = [t.strip() for t in sig.split(",")] if sig else []
    if len(types) > len(params):
        raise RuntimeError("the signature has %d types for %d parameters" % (len(types), len(params)))
    signature, attrs = {}, {}
    for p, t in zip(params, types):
        base, _, div = t.partition(":")
        signature[p] = base
        if div == "16":
            attrs[(fn.arg_names.index(p),)] = [["tt.divisibility", 16]]
    for k in consts:
        signature[k] = "constexpr"
    return triton.compiler.ASTSource(fn=fn, signature=signature, constexprs=consts, attrs=attrs)


def compile_triton(case, cubin):
    import triton
    from triton.backends.compiler import GPUTarget
    spec = importlib.util.spec_from_file_location("sass_compare_" + case["name"], case["module"])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    fn = getattr(module, case["kernel"])
    while not hasattr(fn, "arg_names") and hasattr(fn, "fn"):  # Autotuner / Heuristics around the JIT function
        fn = fn.fn
    consts = {k: triton_value(v) for k, v in case["constexprs"].items()}
    k = triton.compile(ast_source(fn, case["sig"], consts), target=GPUTarget("cuda", 90, 32),
                       options={"num_warps": case["warps"], "num_stages": case["stages"]})
    with open(cubin, "wb") as f:
        f.write(k.asm["cubin"])


def row(name, side, cubin, text):
    a = analyse(text)
    regs, stack = resources(cubin)
    c = a["counts"]
    ops = " ".join("%s %d" % (op, c[op]) for op in WATCH if c[op])
    return "| %s | %s | %s | %s | %d | %d | %d | %s |" % (
        name, side, regs if regs is not None else "?", stack if stack is not None else "?", a["instructions"],
        a["loop"], a["lane_loops"], ops or "-")


HEADER = ["| case | compiler | registers | stack bytes | instructions | hot loop | lane loops in it | in the hot loop |",
          "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", default=os.path.join(HERE, "sass_cases.txt"))
    ap.add_argument("--only", default="")
    ap.add_argument("--out", default=os.environ.get("OUT", "/tmp/sass-compare"))
    ap.add_argument("--tessera", default=os.path.join(ROOT, "build-gpu", "tools", "tessera"))
    ap.add_argument("--sass", nargs="+", help="analyse these nvdisasm listings instead of compiling")
    args = ap.parse_args()
    lines = list(HEADER)
    if args.sass:
        for path in args.sass:
            lines.append(row(os.path.basename(path), "-", "", open(path).read()))
        print("\n".join(lines))
        return 0
    os.makedirs(args.out, exist_ok=True)
    wanted = set(n for n in args.only.split(",") if n)
    failures = 0
    for case in read_cases(args.cases):
        if wanted and case["name"] not in wanted:
            continue
        for side, build in (("tessera", lambda c, f: compile_tessera(c, args.tessera, f)), ("triton", compile_triton)):
            cubin = os.path.join(args.out, "%s.%s.cubin" % (case["name"], side))
            try:
                build(case, cubin)
                text = disassemble(cubin, cubin[:-len(".cubin")] + ".sass")
                lines.append(row(case["name"], side, cubin, text))
            except Exception as e:  # one case's failure does not stop the others
                failures += 1
                lines.append("| %s | %s | failed: %s | | | | | |" % (case["name"], side,
                                                                    str(e).replace("|", "/").replace("\n", " ")[:300]))
            print(lines[-1], file=sys.stderr)
    with open(os.path.join(args.out, "sass_compare.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
