"""kernels/matmul.py under Triton 3.6, and torch.matmul (cuBLAS), timed.

    python3 [-m tessera] bench_matmul.py [--only fp16,bf16,fp8e4nv] [--forms pointer,descriptor,block_ptr,splitk,persistent,persistent_fast]
                                         [--sizes 1024,2048x2048x64]
                            [--json FILE]
                            [--kernel-file PATH] [--warmup MS] [--rep MS]
                            [--fresh-cache] [--skip-cublas | --only-cublas]
                            [--config BLOCK_M=128,BLOCK_N=256,BLOCK_K=128,GROUP_M=8,num_warps=8,num_stages=3]

The Triton side of bench_matmul.cpp: the same kernel source (loaded by path
with importlib; its @triton.autotune tunes it, as Tessera's does) on the
same rows, fp16 and bf16 at M = N = K in {1024, 2048, 4096, 8192}, fp8
e4m3 ("fp8e4nv", matmul_kernel_fp8) at 4096 and 8192 (DTYPES, SIZES,
FP8_SIZES; keep bench_matmul.cpp's kDTypes, kSizes and kFp8Sizes the same);
Under `python3 -m tessera` the same rows run on Tessera's drop-in (provider
"tessera"). The "splitk" form (not in the default set) is
matmul_kernel_splitk, the library's kernel for skinny products, with its
buffers, on a grid of tiles x SPLIT_K; cuBLAS is timed with it too. The
"persistent" form (fp8 only, not in the default set) is
matmul_kernel_fp8_persistent on min(SMs, tiles) programs, with per-tensor
scales (0.75 for A, 0.5 for B) on both sides: cuBLAS is torch._scaled_mm
with the same scale tensors, the reference scaled too. "persistent_fast"
is the same with FAST_ACCUM=True against _scaled_mm(use_fast_accum=True)
(the tensor cores accumulate across K steps on both sides).
fp16 and bf16 rows in three forms, matmul_kernel ("form": "pointer"),
matmul_kernel_descriptor ("descriptor") and matmul_kernel_block_ptr
("block_ptr"); cuBLAS is timed with the pointer rows.
Each row makes A (M x K) and B (K x N), uniform in [-1, 1] rounded to the
dtype, A row-major, B row-major except for fp8, where it is K-contiguous
(strides (1, K), as Triton's tutorial and torch._scaled_mm want it); C is
fp16 for fp8 rows. cuBLAS is torch.matmul, or torch._scaled_mm with unit
scales for fp8. The Triton kernel writes into a C filled with NaN, over the grid
cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N) of the config being launched. The first
call (the autotuning sweep, compiles included) is timed up to a synchronize
as "tune_ms". Both providers' outputs are checked on the same 256 sampled
elements (the four corners, then random ones) against torch.matmul of the
inputs in float32 (TF32 off): relative error ||got - ref|| / ||ref|| at most
1e-2, else the row fails and is not timed. Then triton.testing.do_bench
(25 ms warm-up, 100 ms of runs, L2 flushed before each, median). One JSON
line per provider and row on stdout (or appended to --json FILE):
  {"kind": "matmul", "provider": "triton", "dtype": "fp16", "form": "pointer", "M": ..., "N": ..., "K": ...,
   "ms": ..., "tflops": 2*M*N*K / ms / 1e9, "config": str(best_config), "tune_ms": ..., "rel_err": ...}
  {"kind": "matmul", "provider": "cublas", ..., "ms": ..., "tflops": ..., "rel_err": ...}
A failure writes {..., "error": "..."} and a FAIL line on stderr; the exit
status is then 1.

--fresh-cache points TRITON_CACHE_DIR at a new empty directory, so that
tune_ms includes compiling every config (Triton keeps compiled kernels on
disk, not its autotuning choices). TRITON_PRINT_AUTOTUNING=1 prints each
sweep's winner.
"""
import argparse
import importlib.util
import json
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_KERNEL_FILE = os.path.normpath(os.path.join(HERE, "..", "..", "kernels", "matmul.py"))

DTYPES = ["fp16", "bf16", "fp8e4nv"]
FORMS = ["pointer", "descriptor", "block_ptr", "splitk", "persistent", "persistent_fast"]
SIZES = [1024, 2048, 4096, 8192]
FP8_SIZES = [4096, 8192]
SAMPLES = 256
MAX_REL_ERR = 1e-2
COMPILER = "triton"  # "tessera" under python3 -m tessera


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="", help="dtypes to run, e.g. fp16 or fp16,bf16,fp8e4nv")
    ap.add_argument("--forms", default="pointer,descriptor,block_ptr",
                    help="kernel forms: pointer, descriptor, block_ptr, splitk, persistent, persistent_fast (fp8)")
    ap.add_argument("--sizes", default="", help="M = N = K values or MxNxK, e.g. 1024,2048x2048x64 (default: %s)" %
                    ",".join(map(str, SIZES)))
    ap.add_argument("--json", help="append the JSON lines to FILE instead of printing them")
    ap.add_argument("--kernel-file", default=DEFAULT_KERNEL_FILE)
    ap.add_argument("--warmup", type=int, default=25)
    ap.add_argument("--rep", type=int, default=100)
    ap.add_argument("--fresh-cache", action="store_true")
    ap.add_argument("--skip-cublas", action="store_true")
    ap.add_argument("--only-cublas", action="store_true", help="time cuBLAS alone (for profiling it)")
    ap.add_argument("--config", default="",
                    help="launch this one config instead of autotuning (both compilers; for profiling, where "
                         "timings under a profiler would mislead the tuner): NAME=VALUE,..., num_warps and "
                         "num_stages included")
    args = ap.parse_args()
    args.only = [d for d in args.only.split(",") if d]
    args.forms = [f for f in args.forms.split(",") if f]
    for f in args.forms:
        if f not in FORMS:
            ap.error(f"--forms takes {' and '.join(FORMS)}, not '{f}'")
    for d in args.only:
        if d not in DTYPES:
            ap.error(f"--only takes {' and '.join(DTYPES)}, not '{d}'")
    try:
        # N (square) or MxNxK.
        args.sizes = [tuple(int(d) for d in s.split("x")) for s in args.sizes.split(",") if s]
    except ValueError:
        ap.error("--sizes expects integers or MxNxK, e.g. 1024,2048x2048x64")
    args.sizes = [s * 3 if len(s) == 1 else s for s in args.sizes]
    if any(len(s) != 3 or min(s) <= 0 for s in args.sizes):
        ap.error("--sizes expects positive integers or MxNxK")
    return args


def load_kernel_module(path):
    spec = importlib.util.spec_from_file_location("tessera_kernels_matmul", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    args = parse_args()
    if args.fresh_cache:  # before triton is imported: it reads the variable when it compiles
        os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="bench_matmul-triton-cache-")

    import torch
    import triton
    from triton.testing import do_bench

    torch.backends.cuda.matmul.allow_tf32 = False  # the float32 references are exact fp32 products
    # Kernels that make tensor descriptors on the device need global scratch.
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    module = load_kernel_module(args.kernel_file)
    if args.config:
        # Both compilers' autotuners read `configs` at the first launch.
        items = dict(kv.split("=") for kv in args.config.split(","))
        options = {k: int(items.pop(k)) for k in ("num_warps", "num_stages") if k in items}
        pinned = triton.Config({k: int(v) for k, v in items.items()}, **options)
        for name in dir(module):
            kernel = getattr(module, name)
            if name.startswith("matmul_kernel") and hasattr(kernel, "configs"):
                kernel.configs = [pinned]
    global COMPILER
    COMPILER = "tessera" if "tessera" in triton.__file__ else "triton"
    sms = torch.cuda.get_device_properties(0).multi_processor_count  # the persistent form's grid
    torch_dtype = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp8e4nv": torch.float8_e4m3fn}
    out = open(args.json, "a") if args.json else sys.stdout
    failures = 0

    for form, name in [(f, n) for f in args.forms for n in DTYPES]:
        fp8 = name == "fp8e4nv"
        persistent = form.startswith("persistent")
        if (args.only and name not in args.only) or (fp8 and form != "pointer" and not persistent) or \
                (persistent and not fp8):
            continue
        dtype = torch_dtype[name]
        kernel = (module.matmul_kernel_fp8_persistent if persistent else module.matmul_kernel_fp8 if fp8 else
                  module.matmul_kernel if form == "pointer" else getattr(module, "matmul_kernel_" + form))
        out_dtype = torch.float16 if fp8 else dtype
        for M, N, K in args.sizes or [(s, s, s) for s in (FP8_SIZES if fp8 else SIZES)]:
            size = M
            gen = torch.Generator(device="cuda").manual_seed(size)
            a = (torch.rand(M, K, device="cuda", generator=gen) * 2 - 1).to(dtype)
            b = (torch.rand(K, N, device="cuda", generator=gen) * 2 - 1).to(dtype)
            if fp8:
                b = b.t().contiguous().t()  # K-contiguous
            # The sampled elements of C: the four corners (the masked edges), then random ones.
            cpu = torch.Generator().manual_seed(size)
            rows = torch.cat([torch.tensor([0, M - 1, 0, M - 1]), torch.randint(0, M, (SAMPLES - 4,), generator=cpu)])
            cols = torch.cat([torch.tensor([0, 0, N - 1, N - 1]), torch.randint(0, N, (SAMPLES - 4,), generator=cpu)])
            rows, cols = rows.cuda(), cols.cuda()
            ref = torch.matmul(a[rows].float(), b[:, cols].float()).diagonal()
            # Per-tensor scales (the persistent fp8 form), torch._scaled_mm's tensors.
            scales = ((torch.full((), 0.75, device="cuda"), torch.full((), 0.5, device="cuda"))
                      if persistent else ())
            fast = {"FAST_ACCUM": True} if form == "persistent_fast" else {}
            if scales:
                ref = ref * 0.375

            def rel_error(c):
                got = c[rows, cols].float()
                err = torch.where(torch.isfinite(got), got - ref, torch.full_like(ref, float("inf")))
                return (err.norm() / ref.norm()).item()

            def check(c):
                rel = rel_error(c)
                if not rel <= MAX_REL_ERR:
                    i = int((c[rows, cols].float() - ref).abs().nan_to_num(float("inf")).argmax())
                    raise RuntimeError(f"wrong result: relative error {rel:.3g} over {SAMPLES} samples "
                                       f"(limit {MAX_REL_ERR:.0e}); worst sample C[{rows[i].item()}, "
                                       f"{cols[i].item()}]: got {c[rows[i], cols[i]].item():.6g}, "
                                       f"want {ref[i].item():.6g}")
                return rel

            flop = 2.0 * M * N * K
            for provider in (COMPILER, "cublas"):
                if provider == "cublas" and (args.skip_cublas or form not in ("pointer", "splitk") and not persistent):
                    continue
                if provider == COMPILER and args.only_cublas:
                    continue
                rec = dict(kind="matmul", provider=provider, dtype=name, form=form, M=M, N=N, K=K)
                try:
                    extra = {}
                    if provider == COMPILER:
                        c = torch.full((M, N), float("nan"), device="cuda", dtype=out_dtype)
                        # The split-K form's fp32 shares and per-tile counters.
                        split = ((torch.empty(module.SPLITK_MAX, M, N, device="cuda"),
                                  torch.zeros(triton.cdiv(M, 16) * triton.cdiv(N, 16), device="cuda",
                                              dtype=torch.int32)) if form == "splitk" else ())

                        def grid(meta):
                            tiles = triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"])
                            if persistent:
                                return (min(tiles, sms),)
                            return (tiles, meta.get("SPLIT_K", 1))

                        def run():
                            kernel[grid](a, b, c, *split, *scales, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                                         b.stride(1), c.stride(0), c.stride(1), **fast)

                        torch.cuda.synchronize()
                        t0 = time.perf_counter()
                        run()  # the autotuning sweep, then the winner once
                        torch.cuda.synchronize()
                        extra["tune_ms"] = (time.perf_counter() - t0) * 1e3
                        extra["config"] = str(kernel.best_config)
                        rel = check(c)
                    elif fp8:
                        one = torch.ones((), device="cuda")
                        scale_a, scale_b = scales or (one, one)

                        def run():
                            return torch._scaled_mm(a, b, scale_a=scale_a, scale_b=scale_b, out_dtype=out_dtype,
                                                    use_fast_accum=bool(fast))

                        rel = check(run())
                    else:
                        def run():
                            return torch.matmul(a, b)

                        rel = check(run())
                    ms = do_bench(run, warmup=args.warmup, rep=args.rep, return_mode="median")
                    rec.update(ms=ms, tflops=flop / ms / 1e9)
                    if "config" in extra:
                        rec.update(config=extra["config"], tune_ms=extra["tune_ms"])
                    rec["rel_err"] = rel
                    tune = f", tune {extra['tune_ms']:.0f} ms [{extra['config']}]" if extra else ""
                    print(f"ok   {provider} {name} {form} {M}x{N}x{K}: {ms:.4f} ms, {rec['tflops']:.1f} TFLOP/s, "
                          f"rel err {rel:.2g}{tune}", file=sys.stderr, flush=True)
                except Exception as e:  # noqa: BLE001
                    failures += 1
                    rec["error"] = f"{type(e).__name__}: {e}"[:500]
                    print(f"FAIL {provider} matmul {name} {form} {M}x{N}x{K}: {rec['error']}", file=sys.stderr, flush=True)
                out.write(json.dumps(rec) + "\n")
                out.flush()
            del a, b
            torch.cuda.empty_cache()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
