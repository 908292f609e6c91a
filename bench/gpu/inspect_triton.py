"""Dumps what Triton 3.6 makes of a kernel of bench/gpu/kernels.py, for
side-by-side reading with `tessera compile --emit ptx` (GPU machine only).

  python3 bench/gpu/inspect_triton.py OUTDIR KERNEL 'SIG' NUM_WARPS CONST=V ...

SIG is Triton's AOT signature of the non-constexpr parameters, e.g.
'*fp16:16,*fp16:16,i32:16'; CONST=V are the constexprs. Writes
OUTDIR/TAG.{ttgir,ptx,cubin,json} (TAG: $INSPECT_TAG, default KERNEL) and prints registers / spills / shared memory.
"""
import json
import os
import sys

import triton
from triton.backends.compiler import GPUTarget

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernels  # noqa: E402
from sass_compare import ast_source  # noqa: E402


def main():
    out, name, sig, warps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    consts = {}
    for kv in sys.argv[5:]:
        k, v = kv.split("=")
        consts[k] = int(v) if v.lstrip("-").isdigit() else float(v)
    fn = getattr(kernels, name)
    src = ast_source(fn, sig, consts)
    k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": warps})
    k._init_handles()
    os.makedirs(out, exist_ok=True)
    tag = os.environ.get("INSPECT_TAG", name)
    for stage in ("ttgir", "ptx"):
        with open(os.path.join(out, f"{tag}.{stage}"), "w") as f:
            f.write(k.asm[stage])
    with open(os.path.join(out, f"{tag}.cubin"), "wb") as f:
        f.write(k.asm["cubin"])
    with open(os.path.join(out, f"{tag}.json"), "w") as f:
        json.dump({"name": k.metadata.name, "num_warps": warps, "shared_bytes": k.metadata.shared,
                   "registers": k.n_regs, "spills": k.n_spills}, f)
    print(f"{name}: registers {k.n_regs}, spills {k.n_spills}, shared {k.metadata.shared}")


if __name__ == "__main__":
    main()
