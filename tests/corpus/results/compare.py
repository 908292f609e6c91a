"""Runs every corpus entry with Triton 3.6 and with Tessera on the same
inputs and compares what the kernels wrote.  Needs a CUDA GPU, PyTorch,
Triton and the shim (shim.cpp built against libtessera; run.sh does it).

    python3 compare.py LIBSHIM [--only SUBSTRING] [--log FILE]

For each line of ../manifest.tsv the spec registered for it (specs_*.py,
contract in spec.py) runs twice with identically seeded inputs: first
launching the kernel through Triton, then through Tessera.  The autotune
config is pinned for both sides: the first config of the kernel's
@triton.autotune whose kwargs agree with the manifest's DEFINES (else the
first) is the only one Triton sees, and Tessera gets it as constexprs and
launch options; heuristics are computed by each side.  Grids given as
callables are resolved by Triton and the same dimensions are used for
Tessera.  Separately, the autotune configs Tessera's host evaluator computed
are checked equal to the ones Python computed.

A sticky CUDA error ends the worker process; the parent starts a new one
at the next entry.  Prints one line per entry and a summary; exit status 0
when at least 95% of the entries give Triton's results.
"""

import argparse
import ctypes
import importlib
import json
import math
import os
import subprocess
import sys
import time
import traceback
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.dirname(HERE)
SPEC_MODULES = ["specs_tutorials", "specs_trainlib", "specs_servelib", "specs_benchsuite"]
# Default tolerances (atol, rtol) by dtype; ints and bools compare exactly.
TOLERANCE = {"float32": (1e-5, 1e-5), "float64": (1e-12, 1e-12), "float16": (1e-3, 1e-3),
             "bfloat16": (1e-2, 1e-2), "float8_e4m3fn": (0.07, 0.07), "float8_e5m2": (0.07, 0.07)}


def read_manifest():
    entries = []
    with open(os.path.join(CORPUS, "manifest.tsv")) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            file, kernel, sig, defines = line.rstrip("\n").split("\t")
            consts = {}
            for d in defines.split():
                name, _, value = d[2:].partition("=")
                consts[name] = parse_value(value)
            entries.append((file, kernel, consts))
    return entries


def parse_value(v):
    if v in ("True", "False"):
        return v == "True"
    for conv in (int, float):
        try:
            return conv(v)
        except ValueError:
            pass
    return v


# --------------------------------------------------------------------------
# The worker: runs entries [start, end) in this process.
# --------------------------------------------------------------------------

def worker(args):
    sys.path.insert(0, CORPUS)
    sys.path.insert(0, HERE)
    import torch
    import triton
    import triton.language as tl
    from torch.utils import dlpack
    from triton.runtime.autotuner import Autotuner
    from triton.runtime.errors import OutOfResources
    from triton.runtime.jit import JITFunction
    from triton.tools.tensor_descriptor import TensorDescriptor
    import spec as S

    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    spec_errors = {}
    for name in SPEC_MODULES:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001
            spec_errors[name] = traceback.format_exc(limit=4)

    lib = ctypes.CDLL(args.shim)
    cp, vp, i32 = ctypes.c_char_p, ctypes.c_void_p, ctypes.c_int
    lib.tsr_program.restype = vp
    lib.tsr_program.argtypes = [cp, cp, cp, i32]
    lib.tsr_params.argtypes = [vp, cp, cp, i32, cp, i32]
    lib.tsr_configs.argtypes = [vp, cp, cp, i32, cp, i32]
    grid_fn_type = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int64))
    lib.tsr_launch.argtypes = [vp, cp, ctypes.POINTER(ctypes.c_int64), i32, grid_fn_type, cp, ctypes.POINTER(vp),
                               i32, cp, i32, i32, cp, i32]
    lib.tsr_best_config.argtypes = [vp, cp, cp, i32, cp, i32]
    api = ctypes.pythonapi
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
    err = ctypes.create_string_buffer(1 << 16)
    out = ctypes.create_string_buffer(1 << 20)
    programs = {}

    def program(file):
        if file not in programs:
            p = lib.tsr_program(os.path.join(CORPUS, file).encode(), CORPUS.encode(), err, len(err))
            if not p:
                raise RuntimeError("Tessera: " + err.value.decode(errors="replace"))
            programs[file] = p
        return programs[file]

    def shim_text(fn, prog, kernel):
        if fn(prog, kernel.encode(), out, len(out), err, len(err)) != 0:
            raise RuntimeError("Tessera: " + err.value.decode(errors="replace"))
        return out.value.decode()

    def hand_over(t):
        capsule = dlpack.to_dlpack(t)
        pointer = api.PyCapsule_GetPointer(capsule, b"dltensor")
        api.PyCapsule_SetName(capsule, b"used_dltensor")
        return pointer

    FP8 = {torch.float8_e4m3fn: "fp8e4nv", torch.float8_e5m2: "fp8e5"}

    def tensor_line(t, tag, handles):
        retype = ""
        if t.dtype in FP8:
            retype = " " + FP8[t.dtype]
            t = t.view(torch.uint8)
        handles.append(t)
        return f"{tag} {len(handles) - 1}{retype}"

    def meta_value_line(name, v):
        if isinstance(v, tl.constexpr):
            v = v.value
        if isinstance(v, bool):
            return f"{name}\tB\t{int(v)}"
        if isinstance(v, int):
            return f"{name}\tI\t{v}"
        if isinstance(v, float):
            return f"{name}\tF\t{v!r}"
        if isinstance(v, str):
            return f"{name}\tS\t{v}"
        if isinstance(v, tl.dtype):
            return f"{name}\tS\t{v}"
        raise TypeError(f"harness: keyword {name}={v!r} cannot be passed to Tessera")

    def value_text(v):
        if isinstance(v, bool):
            return "True" if v else "False"
        if isinstance(v, int):
            return str(v)
        if isinstance(v, float):
            return "%.17g" % v
        return f"'{v}'"

    def config_text(c):
        kw = " ".join(f"{k}={value_text(v)}" for k, v in sorted(c.kwargs.items()))
        return f"num_warps={c.num_warps} num_stages={c.num_stages}" + (" " + kw if kw else "")

    def resolve(module, dotted):
        obj = module
        for part in dotted.split("."):
            obj = getattr(obj, part)
        return obj

    def chain(obj):
        links = [obj]
        while not isinstance(obj, JITFunction) and hasattr(obj, "fn"):
            obj = obj.fn
            links.append(obj)
        return links

    def candidate_configs(autotuner, defines):
        """The configs to pin, best first: those whose kwargs agree with the
        manifest's DEFINES, then the others (Triton may run out of shared
        memory on one; the next is tried)."""
        agree = [c for c in autotuner.configs if all(defines.get(k, v) == v for k, v in c.kwargs.items())]
        return agree + [c for c in autotuner.configs if c not in agree]

    def grid_callback(grid):
        """The spec's grid callable for Tessera's own autotuning (the dims
        depend on the config Tessera picks)."""
        parse = {"I": int, "F": float, "B": lambda v: v == "True", "S": str}

        def call(text, dims):
            try:
                meta = {}
                for line in text.decode().splitlines():
                    name, kind, value = line.split("\t", 2)
                    meta[name] = parse[kind](value)
                d = tuple(int(x) for x in grid(meta))
                for i, x in enumerate(d):
                    dims[i] = x
                return len(d)
            except Exception:  # noqa: BLE001
                traceback.print_exc()
                return 0
        return grid_fn_type(call)

    def tessera_launcher(prog, kernel, params, cfg, dims_from_triton, tunes=False):
        """run() for Tessera. With cfg, the pinned config is given as
        constexprs and options and a callable grid takes Triton's dims; with
        tunes, Tessera autotunes itself and calls the grid callable."""
        count = [0]
        keep_alive = []

        def run(grid, *args, **kw):
            kw = dict(kw)
            opts = {k: kw.pop(k) for k in ("num_warps", "num_stages", "num_ctas", "maxnreg") if k in kw}
            positional = list(args)
            # Keywords Tessera cannot take by name (tensors, descriptors,
            # None) become positional, with every parameter before them.
            names = [p[0] for p in params]
            need = [names.index(k) for k, v in kw.items()
                    if k in names and (v is None or isinstance(v, (torch.Tensor, TensorDescriptor)))]
            while need and len(positional) <= max(need):
                name = names[len(positional)]
                if name not in kw:
                    raise TypeError(f"harness: parameter {name} is missing before a tensor given by keyword")
                positional.append(kw.pop(name))
            meta = dict(kw)
            if cfg is not None:
                for k, v in cfg.kwargs.items():
                    if k in meta:
                        raise TypeError(f"spec passes {k}, which the pinned autotune config sets")
                    meta[k] = v
                opts["num_warps"], opts["num_stages"] = cfg.num_warps, cfg.num_stages
                if cfg.pre_hook is not None:
                    nargs = {params[i][0]: a for i, a in enumerate(positional)}
                    cfg.pre_hook({**nargs, **meta})
            handles, lines = [], []
            for a in positional:
                if isinstance(a, tl.constexpr):
                    a = a.value
                if isinstance(a, torch.Tensor):
                    lines.append(tensor_line(a, "T", handles))
                elif isinstance(a, TensorDescriptor):
                    head = tensor_line(a.base, "D", handles)
                    lines.append("|".join([head, ",".join(map(str, a.shape)), ",".join(map(str, a.strides)),
                                           ",".join(map(str, a.block_shape)), getattr(a, "padding", "zero")]))
                elif isinstance(a, bool):
                    lines.append(f"B {int(a)}")
                elif isinstance(a, int):
                    lines.append(f"U {a}" if a >= 2**63 else f"I {a}")
                elif isinstance(a, float):
                    lines.append(f"F {a!r}")
                elif a is None:
                    lines.append("N")
                else:
                    raise TypeError(f"harness: positional argument {a!r} cannot be passed to Tessera positionally")
            for k, v in meta.items():
                if isinstance(v, (torch.Tensor, TensorDescriptor)) or v is None:
                    raise TypeError(f"harness: keyword {k} must be passed positionally")
            meta_text = "\n".join(meta_value_line(k, v) for k, v in meta.items())
            callback = grid_fn_type()
            if callable(grid) and tunes:
                callback = grid_callback(grid)
                keep_alive.append(callback)
                dims = (1,)
            elif callable(grid):
                if count[0] >= len(dims_from_triton):
                    raise RuntimeError("harness: no grid recorded from Triton for this launch")
                dims = dims_from_triton[count[0]]
            else:
                dims = tuple(grid)
            count[0] += 1
            dims = [int(d) for d in dims]
            c_dims = (ctypes.c_int64 * len(dims))(*dims)
            ptrs = [hand_over(t) for t in handles]
            c_ptrs = (ctypes.c_void_p * max(1, len(ptrs)))(*ptrs)
            rc = lib.tsr_launch(prog, kernel.encode(), c_dims, len(dims), callback, "\n".join(lines).encode(), c_ptrs,
                                len(ptrs), meta_text.encode(), int(opts.get("num_warps", 4)),
                                int(opts.get("num_stages", 3)), err, len(err))
            if rc != 0:
                raise RuntimeError("Tessera: " + err.value.decode(errors="replace"))
        return run

    def triton_launcher(kernel_obj, dims_log):
        def run(grid, *args, **kw):
            last = [None]

            def gw(meta):
                d = tuple(grid(meta)) if callable(grid) else tuple(grid)
                last[0] = d
                return d
            kernel_obj[gw](*args, **kw)
            dims_log.append(last[0])
        return run

    def to_cpu(outputs):
        got = {}
        for name, v in outputs.items():
            t = v.tensor if isinstance(v, S.Tol) else v
            got[name] = (t.detach().to("cpu").contiguous().clone(), v if isinstance(v, S.Tol) else None)
        return got

    def bits(t):
        ints = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}
        return t.reshape(-1).view(ints[t.element_size()])

    def compare(want, got):
        notes, ok, bitexact = [], True, True
        if set(want) != set(got):
            return False, False, [f"outputs differ: {sorted(want)} vs {sorted(got)}"]
        for name, (a, tolspec) in want.items():
            b = got[name][0]
            if a.shape != b.shape or a.dtype != b.dtype:
                ok = False
                notes.append(f"{name}: {a.dtype}{list(a.shape)} vs {b.dtype}{list(b.shape)}")
                continue
            same_bits = torch.equal(bits(a), bits(b))
            if same_bits:
                continue
            bitexact = False
            dtype = str(a.dtype).replace("torch.", "")
            if a.dtype.is_floating_point and not (tolspec is not None and tolspec.exact):
                atol, rtol = TOLERANCE.get(dtype, (1e-5, 1e-5))
                if tolspec is not None and tolspec.atol is not None:
                    atol, rtol = tolspec.atol, tolspec.rtol
                fa, fb = a.float(), b.float()
                close = torch.isclose(fa, fb, rtol=rtol, atol=atol, equal_nan=True)
                diff = (fa - fb).abs()
                diff = diff[~(torch.isnan(fa) & torch.isnan(fb))]
                maxd = diff.max().item() if diff.numel() else 0.0
                bad = int((~close).sum())
                if bad:
                    ok = False
                    first = tuple(int(i) for i in (~close).nonzero()[0])
                    notes.append(f"{name}: {bad}/{a.numel()} beyond atol={atol} rtol={rtol}, max|d|={maxd:.3g}, "
                                 f"first at {first}: triton {fa[first].item():.6g} tessera {fb[first].item():.6g}")
                else:
                    notes.append(f"{name}: max|d|={maxd:.3g}")
            else:
                bad = int((a != b).sum()) if a.dtype != torch.bool else int((a ^ b).sum())
                ok = False
                first = tuple(int(i) for i in (a != b).nonzero()[0])
                notes.append(f"{name}: {bad}/{a.numel()} differ, first at {first}: triton {a[first].item()} "
                             f"tessera {b[first].item()}")
        return ok, bitexact, notes

    entries = read_manifest()
    log = open(args.log, "a") if args.log else None
    for index in range(args.start, len(entries)):
        file, kernel, defines = entries[index]
        label = f"{file}:{kernel}"
        if args.only and args.only not in label:
            continue
        result = {"index": index, "entry": label, "status": None, "notes": [], "configs": None}
        t0 = time.time()
        try:
            fn = S.REGISTRY.get((file, kernel))
            if fn is None:
                result["status"] = "NO-SPEC"
                result["notes"] = [v.splitlines()[-1] for v in spec_errors.values()][:2]
                raise StopIteration
            modname = file[:-3].replace("/", ".")
            mod = importlib.import_module(modname)
            kobj = resolve(mod, kernel)
            links = chain(kobj)
            autotuner = next((l for l in links if isinstance(l, Autotuner)), None)
            cfg = None
            prog = program(file)
            candidates = [None]
            if autotuner is not None:
                candidates = candidate_configs(autotuner, defines)
                want_cfgs = [config_text(c) for c in autotuner.configs]
                try:
                    got_cfgs = shim_text(lib.tsr_configs, prog, kernel).splitlines()
                    result["configs"] = "agree" if got_cfgs == want_cfgs else \
                        f"differ: Triton {len(want_cfgs)} configs, Tessera {len(got_cfgs)}; first difference: " + next(
                            (f"{w!r} vs {g!r}" for w, g in zip(want_cfgs, got_cfgs) if w != g), "(a prefix)")
                except RuntimeError as e:
                    result["configs"] = "error: " + str(e)[:300]
            params = [tuple(l.split("\t")) for l in shim_text(lib.tsr_params, prog, kernel).splitlines()]
            seed = zlib.crc32(label.encode())
            # Triton, with the first candidate config it has the resources for.
            saved = autotuner.configs if autotuner is not None else None
            skipped = []
            for cfg in candidates:
                dims_log = []
                try:
                    if autotuner is not None:
                        autotuner.configs = [cfg]
                    outputs = fn(triton_launcher(kobj, dims_log), S.Inputs(seed))
                    torch.cuda.synchronize()
                    want = to_cpu(outputs)
                    del outputs
                    break
                except OutOfResources as e:
                    skipped.append(f"Triton skipped {config_text(cfg)}: {str(e)[:120]}")
                    if cfg is candidates[-1]:
                        result["status"] = "TRITON-ERROR"
                        result["notes"] = skipped
                        raise StopIteration
                except Exception as e:  # noqa: BLE001
                    result["status"] = "TRITON-ERROR"
                    result["notes"] = [" | ".join(traceback.format_exception_only(type(e), e))[:1500]]
                    raise StopIteration
                finally:
                    if autotuner is not None:
                        autotuner.configs = saved
            # Tessera.
            try:
                outputs = fn(tessera_launcher(prog, kernel, params, cfg, dims_log), S.Inputs(seed))
                torch.cuda.synchronize()
                got = to_cpu(outputs)
                del outputs
            except Exception as e:  # noqa: BLE001
                result["status"] = "TESSERA-ERROR"
                result["notes"] = [" | ".join(traceback.format_exception_only(type(e), e))[:1500]]
                raise StopIteration
            ok, bitexact, notes = compare(want, got)
            result["status"] = ("BITEXACT" if bitexact else "PASS") if ok else "MISMATCH"
            result["notes"] = skipped + notes
            if cfg is not None:
                result["notes"].insert(len(skipped), "pinned " + config_text(cfg))
            # Tessera autotuning by itself (its host-evaluated configs and
            # prune_configs_by, its sweep), against Triton's pinned result.
            # Configs with a pre_hook (Python run per config) stay pinned.
            if autotuner is not None and not any(c.pre_hook for c in autotuner.configs):
                tuned = {"status": None, "notes": []}
                try:
                    outputs = fn(tessera_launcher(prog, kernel, params, None, dims_log, tunes=True), S.Inputs(seed))
                    torch.cuda.synchronize()
                    got = to_cpu(outputs)
                    del outputs
                    ok, _, notes = compare(want, got)
                    tuned["status"] = "PASS" if ok else "MISMATCH"
                    tuned["notes"] = ["chose " + shim_text(lib.tsr_best_config, prog, kernel)] + notes
                except Exception as e:  # noqa: BLE001
                    tuned["status"] = "TESSERA-ERROR"
                    tuned["notes"] = [" | ".join(traceback.format_exception_only(type(e), e))[:1500]]
                result["tuned"] = tuned
        except StopIteration:
            pass
        except Exception as e:  # noqa: BLE001
            result["status"] = "HARNESS-ERROR"
            result["notes"] = [" | ".join(traceback.format_exception_only(type(e), e))[:1500]]
        result["seconds"] = round(time.time() - t0, 2)
        line = json.dumps(result)
        print(line, flush=True)
        if log:
            log.write(line + "\n")
            log.flush()
        try:
            torch.cuda.synchronize()
            torch.ones(1, device="cuda").add_(1).item()
        except Exception:  # noqa: BLE001
            return 3  # the context is gone: the parent goes on in a new process
    return 0


# --------------------------------------------------------------------------
# The parent: runs workers until every entry has a result, then summarizes.
# --------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("shim")
    ap.add_argument("--only", default="")
    ap.add_argument("--log", default="")
    ap.add_argument("--worker", action="store_true")
    ap.add_argument("--start", type=int, default=0)
    args = ap.parse_args()
    if args.worker:
        return worker(args)

    entries = read_manifest()
    results = {}
    start = 0
    while start < len(entries):
        cmd = [sys.executable, os.path.abspath(__file__), args.shim, "--worker", "--start", str(start)]
        if args.only:
            cmd += ["--only", args.only]
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
        last = start - 1
        for line in proc.stdout.splitlines():
            if line.startswith("{"):
                r = json.loads(line)
                results[r["index"]] = r
                last = r["index"]
            else:
                print(line)
        if proc.returncode == 0:
            break
        if last < start:  # died before finishing one entry: record it and skip it
            results[start] = {"index": start, "entry": "%s:%s" % entries[start][:2], "status": "CRASH",
                              "notes": [f"worker exited with {proc.returncode}"], "configs": None}
            last = start
        start = last + 1

    counts = {}
    for i in sorted(results):
        r = results[i]
        counts[r["status"]] = counts.get(r["status"], 0) + 1
        print(f"{r['status']:<14} {r['entry']}" + (f"  [{r.get('seconds', 0)} s]"))
        for n in r["notes"]:
            print("      " + n)
        if r.get("configs") and r["configs"] != "agree":
            print("      configs " + r["configs"])
        if r.get("tuned"):
            print(f"      tuned by Tessera: {r['tuned']['status']}; " + "; ".join(r["tuned"]["notes"]))
    n = len(results)
    good = counts.get("BITEXACT", 0) + counts.get("PASS", 0)
    cfg_total = sum(1 for r in results.values() if r.get("configs"))
    cfg_agree = sum(1 for r in results.values() if r.get("configs") == "agree")
    tuned = [r["tuned"] for r in results.values() if r.get("tuned")]
    tuned_ok = sum(1 for t in tuned if t["status"] == "PASS")
    if args.log:
        with open(args.log + ".summary.json", "w") as f:
            json.dump({"counts": counts, "results": [results[i] for i in sorted(results)]}, f, indent=1)
    print("corpus results: %d/%d give Triton's results (%d bit-identical, %d within tolerance); %s; "
          "autotune configs agree for %d/%d autotuned entries; tuned by Tessera itself, %d/%d give Triton's "
          "results" % (
              good, n, counts.get("BITEXACT", 0), counts.get("PASS", 0),
              ", ".join(f"{v} {k.lower()}" for k, v in sorted(counts.items()) if k not in ("BITEXACT", "PASS"))
              or "no failures", cfg_agree, cfg_total, tuned_ok, len(tuned)))
    return 0 if n and good >= math.ceil(0.95 * n) and cfg_agree == cfg_total and tuned_ok == len(tuned) else 1


if __name__ == "__main__":
    sys.exit(main())
