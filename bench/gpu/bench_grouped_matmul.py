"""bench_grouped_matmul.py - several matmuls of different sizes in one launch
(kernels/matmul.py's grouped_matmul_kernel), timed under Triton 3.6
(`python3 bench/gpu/bench_grouped_matmul.py`) or Tessera's drop-in
(`python3 -m tessera bench/gpu/bench_grouped_matmul.py`), next to PyTorch:
one torch.matmul per product, and torch._grouped_mm where this PyTorch has it
(in the Triton run only).

    python3 [-m tessera] bench/gpu/bench_grouped_matmul.py [--sets squares,moe] [--json FILE]

Forms (--forms): "pointer" is grouped_matmul_kernel with ALIGNED=True
(tessera::kernels::grouped_matmul off sm_90a), "descriptor" is
grouped_matmul_kernel_descriptor (its sm_90a path; Triton gets an
allocator for the descriptors' scratch), each with BLOCK_M x BLOCK_N x
BLOCK_K tiles (--tiles, default 128x128x64), 8 warps, 3 stages, a
persistent grid of min(tiles, P x SMs) programs (--programs: P, default
1 and 2). Sets (fp16, rows contiguous):
  squares: four products n x n x n, n = 128, 256, 512, 1024 (the grouped
           GEMM workload of Triton's tutorials), and the same with n = 1024,
           2048, 4096, 8192 (squares_big);
  moe:     eight experts, M = 128, 320, 384, 576, ..., 1088 tokens (uneven),
           N = K = 4096.
The PyTorch providers are timed once per set and reported in every form's
row.
Every result is checked against torch.matmul in float32 (relative error at
most 1e-2) before timing (triton.testing.do_bench, median). TFLOP/s count
2 M N K over all products. One JSON line per provider and set, a table last.
"""
import argparse
import json
import os
import importlib.util
import sys

import torch
import triton

HERE = os.path.dirname(os.path.abspath(__file__))
KERNEL_FILE = os.path.normpath(os.path.join(HERE, "..", "..", "kernels", "matmul.py"))
PROVIDER = "tessera" if "tessera" in triton.__file__ else "triton"
SETS = {
    "squares": [(n, n, n) for n in (128, 256, 512, 1024)],
    "squares_big": [(n, n, n) for n in (1024, 2048, 4096, 8192)],
    "moe": [(128 * (i + 1) + (64 if i % 2 else 0), 4096, 4096) for i in range(8)],
}
WARPS, STAGES = 8, 3


def load():
    spec = importlib.util.spec_from_file_location("tessera_matmul_kernels", KERNEL_FILE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", default="squares,squares_big,moe")
    ap.add_argument("--forms", default="pointer,descriptor")
    ap.add_argument("--tiles", default="128x128x64", help="BLOCK_MxBLOCK_NxBLOCK_K, comma-separated")
    ap.add_argument("--programs", default="1,2", help="programs per multiprocessor, comma-separated")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    mod = load()
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    variants = [(form, tuple(int(x) for x in tile.split("x")) + (int(p),))
                for form in args.forms.split(",") for tile in args.tiles.split(",") for p in args.programs.split(",")]
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    lines, failures = [], 0
    for name in args.sets.split(","):
        shapes = SETS[name]
        torch.manual_seed(7)
        a = [(torch.rand(m, k, device="cuda") * 2 - 1).half() for m, n, k in shapes]
        b = [(torch.rand(k, n, device="cuda") * 2 - 1).half() for m, n, k in shapes]
        c = [torch.empty(m, n, device="cuda", dtype=torch.float16) for m, n, k in shapes]
        addresses = torch.tensor([[x.data_ptr(), y.data_ptr(), z.data_ptr()] for x, y, z in zip(a, b, c)],
                                 dtype=torch.int64, device="cuda")
        sizes = torch.tensor([[m, n, k] for m, n, k in shapes], dtype=torch.int32, device="cuda")
        strides = torch.tensor([[x.stride(0), y.stride(0), z.stride(0)] for x, y, z in zip(a, b, c)],
                               dtype=torch.int32, device="cuda")

        def grouped_run(form, tile):
            bm, bn, bk, per_sm = tile
            grid = (min(sum(triton.cdiv(m, bm) * triton.cdiv(n, bn) for m, n, k in shapes), sms * per_sm),)

            def run():  # returns None: the results are in c
                if form == "pointer":
                    mod.grouped_matmul_kernel[grid](
                        addresses, sizes, strides, len(shapes), DT=triton.language.float16, BLOCK_M=bm, BLOCK_N=bn,
                        BLOCK_K=bk, ALIGNED=True, num_warps=WARPS, num_stages=STAGES)
                else:
                    mod.grouped_matmul_kernel_descriptor[grid](
                        addresses, sizes, strides, len(shapes), DT=triton.language.float16, BLOCK_M=bm, BLOCK_N=bn,
                        BLOCK_K=bk, num_warps=WARPS, num_stages=STAGES)
            return run

        def torch_loop():
            for x, y, z in zip(a, b, c):
                torch.matmul(x, y, out=z)

        providers = [(PROVIDER, form, tile, grouped_run(form, tile)) for form, tile in variants]
        if PROVIDER == "triton":
            providers.append(("torch.matmul loop", None, None, torch_loop))
            if hasattr(torch, "_grouped_mm"):
                def torch_grouped():
                    # torch._grouped_mm wants equal K and N: only the moe set qualifies.
                    return torch._grouped_mm(torch.cat(a), torch.stack(b), offs=offsets)
                if len({(n, k) for m, n, k in shapes}) == 1:
                    offsets = torch.tensor([sum(s[0] for s in shapes[:i + 1]) for i in range(len(shapes))],
                                           dtype=torch.int32, device="cuda")
                    providers.append(("torch._grouped_mm", None, None, torch_grouped))
        flops = sum(2.0 * m * n * k for m, n, k in shapes)
        refs = [x.float() @ y.float() for x, y in zip(a, b)]
        for provider, form, tile, run in providers:
            line = {"kind": "grouped_matmul", "provider": provider, "set": name, "shapes": shapes}
            try:
                for z in c:
                    z.fill_(float("nan"))
                out = run()
                torch.cuda.synchronize()
                got = c if out is None else list(torch.split(out, [m for m, n, k in shapes]))
                err = max(((g.float() - r).norm() / r.norm()).item() for g, r in zip(got, refs))
                line["rel_err"] = err
                if not err <= 1e-2:
                    raise RuntimeError("relative error %g" % err)
                ms = triton.testing.do_bench(run, warmup=25, rep=200)
                line["ms"], line["tflops"] = ms, flops / ms * 1e-9
            except Exception as e:  # report and go on (torch._grouped_mm may not take fp16: not a failure)
                failures += provider in ("tessera", "triton", "torch.matmul loop")
                line["error"] = str(e)[:300]
                print("FAIL %s %s: %s" % (provider, name, e), file=sys.stderr)
            # One row per kernel form; PyTorch's timings are repeated in each.
            for f, t in ([(form, tile)] if form else variants):
                row = dict(line, form="%s %dx%dx%d, %d/SM" % ((f,) + t))
                lines.append(row)
                text = json.dumps(row)
                print(text)
                if args.json:
                    with open(args.json, "a") as fh:
                        fh.write(text + "\n")
    print("\n| provider | set | form | ms | TFLOP/s | rel. error |")
    print("| --- | --- | --- | ---: | ---: | ---: |")
    for l in lines:
        print("| %s | %s | %s | %s | %s | %s |" % (l["provider"], l["set"], l["form"], "%.3f" % l["ms"] if "ms" in l else "-",
                                             "%.1f" % l["tflops"] if "tflops" in l else "-",
                                             "%.2e" % l["rel_err"] if "rel_err" in l else l.get("error", "-")))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
