"""The kernel library's kernels under Triton 3.6, and PyTorch's own operators.

    python3 bench_library.py [--json FILE] [--only OP1,OP2] [--rep MS] [--skip-torch]

Loads Tessera's kernels/*.py with Triton (they are Triton-language sources)
and launches them exactly as kernels/Kernels.cpp does (same BLOCK, num_warps
and grid), on the shapes of bench_library.cpp; each Triton result is first
checked against PyTorch. PyTorch rows time the operator a PyTorch user calls
(F.layer_norm, F.rms_norm, softmax, F.cross_entropy, autograd for the
backwards that have no public function). One JSON line per row, as
bench_library.cpp: {"kind": "library", "provider": "triton" | "torch", ...}.
"""
import argparse
import importlib.util
import json
import os
import sys

import torch
import torch.nn.functional as F
import triton
from triton.testing import do_bench

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = os.path.join(HERE, "..", "..", "kernels")

ROWS = [
    ("layer_norm", torch.float16, 16384, 4096),
    ("layer_norm_backward", torch.float16, 16384, 4096),
    ("rms_norm", torch.float16, 16384, 4096),
    ("rms_norm_backward", torch.float16, 16384, 4096),
    ("add_layer_norm_dropout", torch.float16, 16384, 4096),
    ("softmax", torch.float16, 4096, 4096),
    ("softmax", torch.float32, 4096, 32768),
    ("softmax_persistent", torch.float32, 4096, 4096),
    ("cross_entropy", torch.bfloat16, 8192, 32000),
    ("cross_entropy_backward", torch.bfloat16, 8192, 32000),
    ("silu_and_mul", torch.float16, 8192, 16384),
    ("gelu_and_mul", torch.float16, 8192, 16384),
]
ROWS_PER_PROGRAM = 16  # kernels/Kernels.cpp kRowsPerProgram
DTYPE_NAME = {torch.float16: "fp16", torch.bfloat16: "bf16", torch.float32: "fp32"}


def load(name):
    spec = importlib.util.spec_from_file_location(f"tessera_kernels_{name}", os.path.join(KERNELS, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


norms, softmax_k, acts = load("norms"), load("softmax"), load("activations")
SMS = torch.cuda.get_device_properties(0).multi_processor_count


def next_pow2(n):
    return triton.next_power_of_2(n)


def row_warps(block):
    return 4 if block <= 2048 else 8 if block <= 8192 else 16


def sum_partials(partial, out, programs, cols):
    """As Kernels.cpp's sumPartials: slices of 32 rows, then their sums."""
    block = min(256, next_pow2(cols))
    per_slice = max(32, triton.cdiv(programs, 65535))
    slices = triton.cdiv(programs, per_slice)
    sliced = torch.empty(slices, cols, device="cuda")
    grid_c = triton.cdiv(cols, block)
    norms.sum_rows[(grid_c, slices)](partial, sliced, programs, cols, per_slice, BLOCK=block)
    norms.sum_rows[(grid_c, 1)](sliced, out, slices, cols, slices, BLOCK=block)


def triton_op(op, x, aux):
    """A callable running `op` as Kernels.cpp does, and its main output's
    reference from PyTorch (for the check)."""
    R, C = x.shape
    block = next_pow2(C)
    nw = row_warps(block)
    if op in ("layer_norm", "rms_norm"):
        w, b = aux["w"], aux["b"]

        def run():
            y = torch.empty_like(x)
            mean = torch.empty(R, device="cuda")
            rstd = torch.empty(R, device="cuda")
            if op == "layer_norm":
                norms.layer_norm_fwd[(R,)](x, w, b, y, mean, rstd, x.stride(0), y.stride(0), C, 1e-5, BLOCK=block,
                                           num_warps=nw)
            else:
                norms.rms_norm_fwd[(R,)](x, w, y, rstd, x.stride(0), y.stride(0), C, 1e-6, BLOCK=block, num_warps=nw)
            return y
        ref = F.layer_norm(x, (C,), w, b, 1e-5) if op == "layer_norm" else F.rms_norm(x, (C,), w, 1e-6)
        return run, ref
    if op in ("layer_norm_backward", "rms_norm_backward"):
        w, b, dy = aux["w"], aux["b"], aux["dy"]
        xf = x.float().requires_grad_()
        if op == "layer_norm_backward":
            mean = x.float().mean(1)
            rstd = torch.rsqrt(x.float().var(1, unbiased=False) + 1e-5)
            ref = torch.autograd.grad(F.layer_norm(xf, (C,), w.float(), b.float(), 1e-5), xf, dy.float())[0]
        else:
            rstd = torch.rsqrt(x.float().pow(2).mean(1) + 1e-6)
            ref = torch.autograd.grad(F.rms_norm(xf, (C,), w.float(), 1e-6), xf, dy.float())[0]
        programs = triton.cdiv(R, ROWS_PER_PROGRAM)

        def run():
            dx = torch.empty_like(x)
            dw = torch.zeros(C, device="cuda")
            dwp = torch.empty(programs, C, device="cuda")
            if op == "layer_norm_backward":
                db = torch.zeros(C, device="cuda")
                dbp = torch.empty(programs, C, device="cuda")
                norms.layer_norm_bwd[(programs,)](dy, x, w, mean, rstd, dx, dwp, dbp, x.stride(0), R, C, BLOCK=block,
                                                  ROWS_PER_PROGRAM=ROWS_PER_PROGRAM, num_warps=nw)
                sum_partials(dwp, dw, programs, C)
                sum_partials(dbp, db, programs, C)
            else:
                norms.rms_norm_bwd[(programs,)](dy, x, w, rstd, dx, dwp, x.stride(0), R, C, BLOCK=block,
                                                ROWS_PER_PROGRAM=ROWS_PER_PROGRAM, num_warps=nw)
                sum_partials(dwp, dw, programs, C)
            return dx
        return run, ref.to(x.dtype)
    if op == "add_layer_norm_dropout":
        res, w, b = aux["res"], aux["w"], aux["b"]

        def run():
            y = torch.empty_like(x)
            h = torch.empty_like(x)
            norms.add_layer_norm_dropout[(R,)](x, res, w, b, y, h, x.stride(0), C, 1e-5, 0.0, 1234, BLOCK=block,
                                               num_warps=nw)
            return y
        # Checked with p = 0 (no dropout); timed with p = 0.1 below.
        return run, F.layer_norm(x.float() + res.float(), (C,), w.float(), b.float(), 1e-5).to(x.dtype)
    if op in ("softmax", "softmax_persistent"):
        def run():
            y = torch.empty_like(x)
            if op == "softmax_persistent":
                per_sm = max(1, min(8, 32768 // block))
                programs = min(R, per_sm * SMS)
                softmax_k.softmax_persistent[(programs,)](x, y, x.stride(0), y.stride(0), R, C, BLOCK=block,
                                                          num_warps=nw)
            elif C > 8192:
                softmax_k.softmax_wide[(R,)](x, y, x.stride(0), y.stride(0), C, BLOCK=4096, num_warps=row_warps(4096))
            else:
                softmax_k.softmax_rows[(R,)](x, y, x.stride(0), y.stride(0), C, BLOCK=block, num_warps=nw)
            return y
        return run, torch.softmax(x.float(), -1).to(x.dtype)
    if op in ("cross_entropy", "cross_entropy_backward"):
        t, dloss = aux["targets"], aux["dloss"]
        fb = min(4096, block)
        lse = torch.logsumexp(x.float(), 1)
        if op == "cross_entropy":
            def run():
                loss = torch.empty(R, device="cuda")
                lse_out = torch.empty(R, device="cuda")
                softmax_k.cross_entropy_fwd[(R,)](x, t, loss, lse_out, x.stride(0), C, -100, BLOCK=fb,
                                               num_warps=row_warps(fb))
                return loss
            return run, F.cross_entropy(x.float(), t, reduction="none")
        bb = min(1024, block)

        def run():
            d = torch.empty_like(x)
            softmax_k.cross_entropy_bwd[(R, triton.cdiv(C, bb))](dloss, x, t, lse, d, x.stride(0), C, -100, BLOCK=bb,
                                                              num_warps=row_warps(bb))
            return d
        ref = (torch.softmax(x.float(), 1) - F.one_hot(t, C).float()) * dloss[:, None]
        return run, ref.to(x.dtype)
    if op in ("silu_and_mul", "gelu_and_mul"):
        d = C // 2
        gb = min(1024, next_pow2(d))

        def run():
            out = torch.empty(R, d, device="cuda", dtype=x.dtype)
            kernel = acts.silu_and_mul if op == "silu_and_mul" else acts.gelu_and_mul
            kernel[(R, triton.cdiv(d, gb))](x, out, d, x.stride(0), out.stride(0), BLOCK=gb, num_warps=row_warps(gb))
            return out
        g, u = x[:, :d].float(), x[:, d:].float()
        act = F.silu(g) if op == "silu_and_mul" else F.gelu(g)
        return run, (act * u).to(x.dtype)
    raise SystemExit(f"no op {op}")


def triton_timed(op, x, aux):
    """The timed call (add_layer_norm_dropout with p = 0.1, like Tessera's)."""
    if op != "add_layer_norm_dropout":
        return triton_op(op, x, aux)[0]
    R, C = x.shape
    block = next_pow2(C)
    res, w, b = aux["res"], aux["w"], aux["b"]

    def run():
        y = torch.empty_like(x)
        h = torch.empty_like(x)
        norms.add_layer_norm_dropout[(R,)](x, res, w, b, y, h, x.stride(0), C, 1e-5, 0.1, 1234, BLOCK=block,
                                           num_warps=row_warps(block))
    return run


def torch_op(op, x, aux):
    R, C = x.shape
    if op == "layer_norm":
        return lambda: F.layer_norm(x, (C,), aux["w"], aux["b"], 1e-5)
    if op == "rms_norm":
        return lambda: F.rms_norm(x, (C,), aux["w"], 1e-6)
    if op in ("layer_norm_backward", "rms_norm_backward"):
        xr = x.detach().requires_grad_()
        wr = aux["w"].detach().requires_grad_()
        if op == "layer_norm_backward":
            br = aux["b"].detach().requires_grad_()
            y = F.layer_norm(xr, (C,), wr, br, 1e-5)
            inputs = (xr, wr, br)
        else:
            y = F.rms_norm(xr, (C,), wr, 1e-6)
            inputs = (xr, wr)
        return lambda: torch.autograd.grad(y, inputs, aux["dy"], retain_graph=True)
    if op == "add_layer_norm_dropout":
        return lambda: F.dropout(F.layer_norm(x + aux["res"], (C,), aux["w"], aux["b"], 1e-5), 0.1, training=True)
    if op in ("softmax", "softmax_persistent"):
        return lambda: torch.softmax(x, -1)
    if op == "cross_entropy":
        return lambda: F.cross_entropy(x, aux["targets"], reduction="none")
    if op == "cross_entropy_backward":
        xr = x.detach().requires_grad_()
        loss = F.cross_entropy(xr, aux["targets"], reduction="none")
        return lambda: torch.autograd.grad(loss, xr, aux["dloss"], retain_graph=True)
    if op == "silu_and_mul":
        d = C // 2
        return lambda: F.silu(x[:, :d]) * x[:, d:]
    if op == "gelu_and_mul":
        d = C // 2
        return lambda: F.gelu(x[:, :d]) * x[:, d:]
    raise SystemExit(f"no op {op}")


def bytes_moved(op, x):
    rc, es = x.numel(), x.element_size()
    factor = {"layer_norm_backward": 3, "rms_norm_backward": 3, "add_layer_norm_dropout": 4, "cross_entropy": 1,
              "silu_and_mul": 1.5, "gelu_and_mul": 1.5}.get(op, 2)
    return factor * rc * es


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json")
    ap.add_argument("--only", default="")
    ap.add_argument("--rep", type=int, default=100)
    ap.add_argument("--skip-torch", action="store_true")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    out = open(args.json, "a") if args.json else sys.stdout
    failures = 0
    gen = torch.Generator(device="cuda").manual_seed(0)
    for op, dtype, R, C in ROWS:
        if only and op not in only:
            continue
        x = (torch.rand(R, C, device="cuda", generator=gen) * 8 - 4).to(dtype)
        aux = dict(w=(torch.rand(C, device="cuda", generator=gen) + 0.5).to(dtype),
                   b=(torch.rand(C, device="cuda", generator=gen) - 0.5).to(dtype),
                   dy=(torch.rand(R, C, device="cuda", generator=gen) * 2 - 1).to(dtype),
                   res=(torch.rand(R, C, device="cuda", generator=gen) * 2 - 1).to(dtype),
                   targets=torch.randint(0, C, (R,), device="cuda", generator=gen),
                   dloss=torch.full((R,), 1.0 / R, device="cuda"))
        shape = f"{R}x{C}"
        nbytes = bytes_moved(op, x)
        for provider in ("triton", "torch"):
            if provider == "torch" and args.skip_torch:
                continue
            rec = dict(kind="library", provider=provider, op=op, dtype=DTYPE_NAME[dtype], shape=shape)
            try:
                if provider == "triton":
                    run, ref = triton_op(op, x, aux)
                    got = run().float()
                    tol = 2e-2 if dtype != torch.float32 else 1e-4
                    if not torch.allclose(got, ref.float(), rtol=tol, atol=tol):
                        raise RuntimeError(f"wrong result: max error {(got - ref.float()).abs().max().item():.3g}")
                    fn = triton_timed(op, x, aux)
                else:
                    fn = torch_op(op, x, aux)
                ms = do_bench(fn, warmup=25, rep=args.rep)
                rec.update(bytes=nbytes, ms=ms, gbps=nbytes / (ms * 1e-3) / 1e9)
                print(f"ok   {provider} {op} {rec['dtype']} {shape}: {ms:.4f} ms, {rec['gbps']:.0f} GB/s",
                      file=sys.stderr, flush=True)
            except Exception as e:  # noqa: BLE001
                failures += 1
                rec["error"] = f"{type(e).__name__}: {e}"[:500]
                print(f"FAIL {provider} {op} {shape}: {rec['error']}", file=sys.stderr, flush=True)
            out.write(json.dumps(rec) + "\n")
            out.flush()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
