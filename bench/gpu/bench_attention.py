"""kernels/attention.py under Triton 3.6, and PyTorch SDPA, timed.

    python3 bench_attention.py [--seq S] [--batch Z] [--heads H] [--json FILE]
                               [--warmup MS] [--rep MS] [--form pointer|descriptor|persistent]
                               [--block-m N] [--block-n N] [--stages N] [--warps N]
                               [--rows d64,d64c,d128,d128c]

The Triton side of bench_attention.cpp: the same kernel source (loaded by
path with importlib) launched with bench_attention.cpp's parameters
(launch_params: BLOCK_M 128, BLOCK_N 64, 3 stages, 4 warps at head_dim
64; at 128 both forms on 128-key blocks with 2 stages and 8 warps: what
tessera::kernels::attention_launch gives on sm_90a; on sm_90a both forms
are TMA copies; grid cdiv(S, 128) x Z*H), on the same rows: bf16, Z = 4, H = 32, S = 4096,
head_dim 64 and 128, causal and not (ROWS; keep bench_attention.cpp's kRows
the same); and torch.nn.functional.scaled_dot_product_attention on the same
inputs. Q, K, V are uniform in [-1, 1] rounded to bf16. Both outputs are
checked on 16 sampled query rows against attention computed in float64
(relative error at most 1e-2), then timed with triton.testing.do_bench
(median). One JSON line per provider and row on stdout (or appended to
--json FILE):
  {"kind": "attention", "provider": "triton" | "sdpa", "dtype": "bf16", "Z": 4, "H": 32, "S": 4096,
   "D": 64, "causal": false, "ms": ..., "tflops": ..., "rel_err": ...}
FLOPs: 4 Z H S^2 D, half of that when causal. A failure writes
{..., "error": "..."} and a FAIL line on stderr; the exit status is then 1.
"""
import argparse
import importlib.util
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KERNEL_FILE = os.path.normpath(os.path.join(HERE, "..", "..", "kernels", "attention.py"))
ROWS = [(64, False), (64, True), (128, False), (128, True)]
SAMPLE_ROWS = 16
MAX_REL_ERR = 1e-2


def load_kernel(form):
    spec = importlib.util.spec_from_file_location("tessera_attention_kernels", KERNEL_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, "attention_fwd" if form == "pointer" else "attention_fwd_" + form)


def launch_params(d):
    """(BLOCK_M, BLOCK_N, num_stages, num_warps) at head_dim d, both forms
    (tessera::kernels::attention_launch on sm_90a, as bench_attention.cpp's
    launchParams reads it)."""
    if d == 128:  # both forms: TMA copies on sm_90a
        return 128, 128, 2, 8
    return 128, 64, 3, 4 if d <= 64 else 8


def sampled_rel_error(torch, q, k, v, out, causal, seed):
    """||out - ref|| / ||ref|| over SAMPLE_ROWS query rows, ref in float64."""
    gen = torch.Generator().manual_seed(seed)
    z, h, s, d = q.shape
    err_sq, ref_sq = 0.0, 0.0
    for n in range(SAMPLE_ROWS):
        zi = int(torch.randint(z, (1,), generator=gen))
        hi = int(torch.randint(h, (1,), generator=gen))
        i = 0 if n == 0 else s - 1 if n == 1 else int(torch.randint(s, (1,), generator=gen))
        last = i + 1 if causal else s
        qi = q[zi, hi, i].double()
        kk = k[zi, hi, :last].double()
        vv = v[zi, hi, :last].double()
        p = torch.softmax((kk @ qi) / math.sqrt(d), dim=0)
        ref = (p[:, None] * vv).sum(0)
        got = out[zi, hi, i].double()
        err_sq += float(((got - ref) ** 2).sum())
        ref_sq += float((ref ** 2).sum())
    return math.sqrt(err_sq / ref_sq)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seq", type=int, default=4096)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--heads", type=int, default=32)
    ap.add_argument("--json", help="append the JSON lines to FILE instead of printing them")
    ap.add_argument("--warmup", type=int, default=25)
    ap.add_argument("--rep", type=int, default=100)
    ap.add_argument("--block-m", type=int, default=0, help="BLOCK_M instead of the library's 128 (sweeps)")
    ap.add_argument("--block-n", type=int, default=0, help="BLOCK_N instead of the library's (sweeps)")
    ap.add_argument("--stages", type=int, default=0, help="num_stages instead of the library's")
    ap.add_argument("--warps", type=int, default=0, help="num_warps instead of the library's")
    ap.add_argument("--form", choices=["pointer", "descriptor", "persistent"], default="pointer",
                    help="attention_fwd, or attention_fwd_descriptor (tensor descriptors; SDPA is then skipped)")
    ap.add_argument("--rows", default="", help="only these rows, e.g. d128,d128c (default: all)")
    args = ap.parse_args()
    wanted = [r for r in args.rows.split(",") if r]
    names = {"d%d%s" % (d, "c" if c else ""): (d, c) for d, c in ROWS}
    for r in wanted:
        if r not in names:
            ap.error("--rows: unknown row %r (rows: %s)" % (r, ", ".join(names)))
    if min(args.block_m, args.block_n, args.stages, args.warps) < 0:
        ap.error("--block-m, --block-n, --stages and --warps must be positive (0: the library's)")

    import torch
    import triton
    import triton.testing

    kernel = load_kernel(args.form)
    # Descriptors made on the device need global scratch.
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    out_file = open(args.json, "a") if args.json else sys.stdout
    failures = 0
    z, h, s = args.batch, args.heads, args.seq
    for d, causal in ROWS:
        if wanted and "d%d%s" % (d, "c" if causal else "") not in wanted:
            continue
        torch.manual_seed(11 + d)
        q, k, v = [(torch.rand(z, h, s, d, device="cuda") * 2 - 1).to(torch.bfloat16) for _ in range(3)]
        flop = 4.0 * z * h * s * s * d * (0.5 if causal else 1.0)
        scale = 1.0 / math.sqrt(d)

        block_m, block_n, stages, warps = [given or default for given, default in zip(
            (args.block_m, args.block_n, args.stages, args.warps), launch_params(d))]

        def triton_run():
            o = torch.empty_like(q)
            if args.form == "persistent":  # as bench_attention.cpp: two programs per multiprocessor at 4 warps
                sms = torch.cuda.get_device_properties(0).multi_processor_count
                grid = (min(sms * (2 if warps <= 4 else 1), triton.cdiv(s, block_m) * z * h),)
                kernel[grid](q, k, v, o, scale, s, z * h, HEAD_DIM=d, BLOCK_M=block_m, BLOCK_N=block_n,
                             CAUSAL=causal, num_warps=warps, num_stages=stages)
                return o
            grid = (triton.cdiv(s, block_m), z * h)
            kernel[grid](q, k, v, o, scale, s, HEAD_DIM=d, BLOCK_M=block_m, BLOCK_N=block_n, CAUSAL=causal,
                         num_warps=warps, num_stages=stages)
            return o

        def sdpa_run():
            return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)

        providers = (("triton", triton_run),) + ((("sdpa", sdpa_run),) if args.form == "pointer" else ())
        for provider, fn in providers:
            rec = {"kind": "attention", "provider": provider, "dtype": "bf16", "form": args.form, "Z": z, "H": h,
                   "S": s, "D": d, "causal": causal}
            if provider == "triton":
                rec.update(block_m=block_m, block_n=block_n, stages=stages, warps=warps)
            try:
                out = fn()
                torch.cuda.synchronize()
                rel = sampled_rel_error(torch, q.cpu(), k.cpu(), v.cpu(), out.float().cpu(), causal, 7 + d)
                rec["rel_err"] = rel
                if not rel <= MAX_REL_ERR:
                    raise RuntimeError("wrong result: relative error %.3g over the sampled rows" % rel)
                ms = triton.testing.do_bench(fn, warmup=args.warmup, rep=args.rep, return_mode="median")
                rec["ms"] = ms
                rec["tflops"] = flop / ms / 1e9
                print("ok   %s attention d=%d%s: %.3f ms, %.1f TFLOP/s, rel err %.2g" %
                      (provider, d, " causal" if causal else "", ms, flop / ms / 1e9, rel), file=sys.stderr)
            except Exception as e:  # a failing provider must not hide the others
                failures += 1
                rec["error"] = str(e)
                print("FAIL %s attention d=%d%s: %s" % (provider, d, " causal" if causal else "", e),
                      file=sys.stderr)
            print(json.dumps(rec), file=out_file, flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
