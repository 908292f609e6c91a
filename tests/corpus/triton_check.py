"""Compiles every manifest line with real Triton (no launch), to check that
the corpus itself is valid Triton.  Needs triton, torch and a CUDA GPU
(modules query the device when imported).

    python tests/corpus/triton_check.py [--arch 90|80] [--only SUBSTRING]

Each kernel is unwrapped from its autotune/heuristics decorators and
compiled with JITFunction.warmup for the manifest's signature and defines.
`--arch 80` compiles for sm_80 on whatever GPU is present."""

import argparse
import importlib
import inspect
import os
import re
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

DTYPES = {
    "fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16, "fp64": torch.float64,
    "fp8e4nv": torch.float8_e4m3fn, "fp8e5": torch.float8_e5m2,
    "i1": torch.bool, "i8": torch.int8, "i16": torch.int16, "i32": torch.int32, "i64": torch.int64,
    "u8": torch.uint8,
}
TL_DTYPES = {"fp32": tl.float32, "fp16": tl.float16, "bf16": tl.bfloat16}


def parse_sig(sig):
    parts = []
    depth = 0
    cur = ""
    for ch in sig:
        if ch == "<" or ch == "[":
            depth += 1
        elif ch == ">" or ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def make_arg(entry):
    m = re.fullmatch(r"tensordesc<(\w+)\[([\d, ]+)\]>", entry)
    if m:
        from triton.tools.tensor_descriptor import TensorDescriptor
        block = [int(x) for x in m.group(2).split(",")]
        t = torch.empty([4 * b for b in block], dtype=DTYPES[m.group(1)], device="cuda")
        return TensorDescriptor.from_tensor(t, block)
    ty, _, hint = entry.partition(":")
    if ty.startswith("*"):
        return DTYPES[ty[1:]]  # warmup turns a dtype into a mock tensor
    if ty.startswith("fp"):
        return 0.5
    if hint == "1":
        return 1
    if hint == "16":
        return 64
    return 2**33 + 7 if ty == "i64" else 7


def parse_value(v):
    if v in ("True", "False"):
        return v == "True"
    for conv in (int, float):
        try:
            return conv(v)
        except ValueError:
            pass
    if v in TL_DTYPES:
        return TL_DTYPES[v]
    return v


def resolve(module, dotted):
    obj = module
    for part in dotted.split("."):
        obj = getattr(obj, part)
    while not isinstance(obj, triton.runtime.jit.JITFunction) and hasattr(obj, "fn"):
        obj = obj.fn
    return obj


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", type=int, default=None, help="compute capability, e.g. 80 or 90")
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    if args.arch is not None:
        from triton.backends.compiler import GPUTarget
        driver = triton.runtime.driver.active
        driver.get_current_target = lambda: GPUTarget("cuda", args.arch, 32)
    total = ok = 0
    with open(os.path.join(HERE, "manifest.tsv")) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            file, kernel, sig, defines = line.rstrip("\n").split("\t")
            if args.only and args.only not in file + ":" + kernel:
                continue
            total += 1
            modname = file[:-3].replace("/", ".")
            try:
                mod = importlib.import_module(modname)
                fn = resolve(mod, kernel)
                runtime_args = [make_arg(e) for e in parse_sig(sig)]
                consts = {}
                for d in defines.split():
                    name, _, value = d[2:].partition("=")
                    consts[name] = parse_value(value)
                # Every argument positionally, in parameter order: constexprs
                # may sit between runtime parameters.
                ordered = []
                for p in fn.params:
                    if p.is_constexpr:
                        if p.name in consts:
                            ordered.append(consts.pop(p.name))
                        elif p._param.default is not inspect.Parameter.empty:
                            ordered.append(p._param.default)
                        else:
                            raise ValueError(f"no value for constexpr {p.name}")
                    else:
                        ordered.append(runtime_args.pop(0))
                if runtime_args or consts:
                    raise ValueError(f"unused: {runtime_args} {consts}")
                fn.warmup(*ordered, grid=(1, ))
                ok += 1
            except Exception as e:  # noqa: BLE001
                msg = "".join(traceback.format_exception_only(type(e), e)).strip().splitlines()
                print(f"FAIL {file}:{kernel}: " + " | ".join(msg[:6])[:1500])
    print(f"triton {triton.__version__}: {ok}/{total} compiled for "
          f"{'sm_%d' % args.arch if args.arch else 'the current GPU'}")
    return 0 if ok == total else 1


if __name__ == "__main__":
    sys.exit(main())
