"""bench_attention_bwd.py - attention backward (dq, dk, dv) of kernels/attention.py,
timed under Triton 3.6 (`python3 bench/gpu/bench_attention_bwd.py`) or Tessera's
drop-in (`python3 -m tessera bench/gpu/bench_attention_bwd.py`), next to
PyTorch's scaled_dot_product_attention backward (in the Triton run only).

    python3 [-m tessera] bench/gpu/bench_attention_bwd.py [--rows d64,d64c,d128,d128c]
        [--batch Z] [--heads H] [--seq S] [--warps N] [--stages N] [--forms three,fused]
        [--blocks M1,N1,M2,N2] [--json FILE]

--forms fused times the one-pass form instead of (or next to) the three
kernels: attention_bwd_fused on dkdv's blocks adds dQ's shares to a zeroed
fp32 buffer with atomics, and attention_bwd_dq_scale scales it into dQ.
--blocks overrides the block sizes (queries per step and keys of a dK/dV
or fused program, rows and keys per step of a dQ program), e.g. 64,128,128,32
for the fused form on wgmma-sized query steps.

Both compilers run the same source with tessera::kernels::attention_backward's
launch parameters (attention_backward_launch: dK/dV programs of 128 keys
stepping 32 queries, dQ programs of 128 rows stepping 32 keys; 4 warps at
head_dim 64, 8 at 128; 3 stages): attention_fwd_lse gives O and the
log-sum-exp, then attention_bwd_delta, attention_bwd_dkdv and
attention_bwd_dq give the gradients. Q, K, V and dO are bf16, uniform in
[-1, 1]. Before timing, dq, dk, dv of the first batch entry (all heads)
are checked against autograd through attention computed in float32 by
PyTorch (relative error ||got - ref|| / ||ref|| at most 2e-2), and SDPA's
gradients the same way.
Times are triton.testing.do_bench medians of the backward alone (delta +
dkdv + dq; SDPA: its backward through autograd); TFLOP/s counts the
backward's five S x S x D matmuls, 10 Z H S^2 D FLOPs, half when causal.
One JSON line per provider and row, and a table last.
"""
import argparse
import importlib.util
import json
import math
import os
import sys

import torch
import triton

HERE = os.path.dirname(os.path.abspath(__file__))
KERNEL_FILE = os.path.normpath(os.path.join(HERE, "..", "..", "kernels", "attention.py"))
PROVIDER = "tessera" if "tessera" in triton.__file__ else "triton"
ROWS = {"d64": (64, False), "d64c": (64, True), "d128": (128, False), "d128c": (128, True)}
MAX_REL_ERR = 2e-2


def load():
    spec = importlib.util.spec_from_file_location("tessera_attention_kernels", KERNEL_FILE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def launch_params(d, args):
    """attention_backward_launch: (BLOCK_M1, BLOCK_N1, BLOCK_M2, BLOCK_N2, warps, stages)."""
    warps = args.warps or (4 if d <= 64 else 8)
    m1, n1, m2, n2 = (int(b) for b in args.blocks.split(",")) if args.blocks else (32, 128, 128, 32)
    return m1, n1, m2, n2, warps, args.stages or 3


def rel_err(got, ref):
    return ((got.float() - ref).norm() / ref.norm()).item()


def reference(q, k, v, do, causal, scale):
    """dq, dk, dv of batch entry 0 by autograd through float32 attention."""
    qf, kf, vf = (t[:1].detach().float().requires_grad_() for t in (q, k, v))
    s = (qf @ kf.transpose(-1, -2)) * scale
    if causal:
        n = s.shape[-1]
        s = s.masked_fill(torch.triu(torch.ones(n, n, dtype=torch.bool, device=s.device), 1), float("-inf"))
    o = torch.softmax(s, dim=-1) @ vf
    o.backward(do[:1].float())
    return qf.grad, kf.grad, vf.grad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", default="d64,d64c,d128,d128c")
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--heads", type=int, default=32)
    ap.add_argument("--seq", type=int, default=4096)
    ap.add_argument("--warps", type=int, default=0)
    ap.add_argument("--stages", type=int, default=0)
    ap.add_argument("--forms", default="three", help="three (delta, dkdv, dq) and/or fused (one pass, atomic dQ)")
    ap.add_argument("--blocks", default="", help="M1,N1,M2,N2 (default 32,128,128,32)")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    forms = args.forms.split(",")
    mod = load()
    out_lines, failures = [], 0
    Z, H, S = args.batch, args.heads, args.seq
    for name in args.rows.split(","):
        d, causal = ROWS[name]
        torch.manual_seed(1234 + d + causal)
        shape = (Z, H, S, d)
        q, k, v = ((torch.rand(shape, device="cuda") * 2 - 1).to(torch.bfloat16) for _ in range(3))
        do = (torch.rand(shape, device="cuda") * 2 - 1).to(torch.bfloat16)
        scale = 1.0 / math.sqrt(d)
        m1, n1, m2, n2, warps, stages = launch_params(d, args)
        o = torch.empty_like(q)
        lse = torch.empty((Z, H, S), device="cuda", dtype=torch.float32)
        mod.attention_fwd_lse[(triton.cdiv(S, 128), Z * H)](
            q, k, v, o, lse, scale, S, HEAD_DIM=d, BLOCK_M=128, BLOCK_N=64, CAUSAL=causal,
            num_warps=4 if d <= 64 else 8, num_stages=3)
        dq, dk, dv = torch.empty_like(q), torch.empty_like(q), torch.empty_like(q)
        delta = torch.empty_like(lse)

        def backward():
            mod.attention_bwd_delta[(triton.cdiv(S, 64), Z * H)](o, do, delta, S, HEAD_DIM=d, BLOCK_M=64)
            mod.attention_bwd_dkdv[(triton.cdiv(S, n1), Z * H)](
                q, k, v, do, lse, delta, dk, dv, scale, S, HEAD_DIM=d, BLOCK_M=m1, BLOCK_N=n1, CAUSAL=causal,
                num_warps=warps, num_stages=stages)
            mod.attention_bwd_dq[(triton.cdiv(S, m2), Z * H)](
                q, k, v, do, lse, delta, dq, scale, S, HEAD_DIM=d, BLOCK_M=m2, BLOCK_N=n2, CAUSAL=causal,
                num_warps=warps, num_stages=stages)

        dq_acc = torch.zeros(shape, device="cuda", dtype=torch.float32)

        def fused_backward():
            mod.attention_bwd_delta[(triton.cdiv(S, 64), Z * H)](o, do, delta, S, HEAD_DIM=d, BLOCK_M=64)
            dq_acc.zero_()
            mod.attention_bwd_fused[(triton.cdiv(S, n1), Z * H)](
                q, k, v, do, lse, delta, dk, dv, dq_acc, scale, S, HEAD_DIM=d, BLOCK_M=m1, BLOCK_N=n1,
                CAUSAL=causal, num_warps=warps, num_stages=stages)
            mod.attention_bwd_dq_scale[(triton.cdiv(dq.numel(), 1024),)](dq_acc, dq, scale, dq.numel(), BLOCK=1024)

        providers = [(PROVIDER, form, backward if form == "three" else fused_backward, (dq, dk, dv)) for form in forms]
        if PROVIDER == "triton":
            qs, ks, vs = (t.detach().clone().requires_grad_() for t in (q, k, v))
            osdpa = torch.nn.functional.scaled_dot_product_attention(qs, ks, vs, is_causal=causal, scale=scale)

            def sdpa_backward():
                for t in (qs, ks, vs):
                    t.grad = None
                osdpa.backward(do, retain_graph=True)

            sdpa_backward()
            providers.append(("sdpa", None, sdpa_backward, None))
        ref = reference(q, k, v, do, causal, scale)
        flops = 10.0 * Z * H * S * S * d * (0.5 if causal else 1.0)
        for provider, form, run, grads in providers:
            line = {"kind": "attention_bwd", "provider": provider, "dtype": "bf16", "Z": Z, "H": H, "S": S, "D": d,
                    "causal": causal, "warps": warps, "stages": stages}
            if args.blocks:
                line["blocks"] = args.blocks
            if os.environ.get("TESSERA_WARP_SPECIALIZE"):  # Tessera's A/B knob (Triton ignores it)
                line["warp_specialize"] = os.environ["TESSERA_WARP_SPECIALIZE"]
            try:
                run()
                torch.cuda.synchronize()
                if grads is None:
                    grads = (qs.grad, ks.grad, vs.grad)
                errs = [rel_err(g[:1], r) for g, r in zip(grads, ref)]
                line["rel_err"] = max(errs)
                if not all(e <= MAX_REL_ERR for e in errs):
                    raise RuntimeError("dq/dk/dv relative errors %s exceed %g" % (errs, MAX_REL_ERR))
                ms = triton.testing.do_bench(run, warmup=25, rep=200)
                line["ms"], line["tflops"] = ms, flops / ms * 1e-9
            except Exception as e:  # report and go on
                failures += 1
                line["error"] = str(e)[:400]
                print("FAIL %s %s: %s" % (provider, name, e), file=sys.stderr)
            # One row per form; SDPA's timing is repeated in each (rows named
            # as before when only the three-kernel form runs).
            for f in ([form] if form else forms):
                row = dict(line, form=f) if forms != ["three"] else line
                out_lines.append(row)
                text = json.dumps(row)
                print(text)
                if args.json:
                    with open(args.json, "a") as fh:
                        fh.write(text + "\n")
    print("\n| provider | row | ms | TFLOP/s | rel. error |")
    print("| --- | --- | ---: | ---: | ---: |")
    for l in out_lines:
        row = "d%d%s%s" % (l["D"], " causal" if l["causal"] else "", " " + l["form"] if "form" in l else "")
        print("| %s | %s | %s | %s | %s |" % (l["provider"], row, "%.3f" % l["ms"] if "ms" in l else "-",
                                             "%.1f" % l["tflops"] if "tflops" in l else "-",
                                             "%.2e" % l["rel_err"] if "rel_err" in l else l.get("error", "-")))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
