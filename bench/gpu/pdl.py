# A chain of dependent memory-bound kernels for the programmatic dependent
# launch benchmark (bench_pdl / bench_pdl.py run this file under Tessera and
# Triton). Each step loads its own weights (independent of the previous
# step), waits for the previous step (gdc_wait), lets the next one start
# (gdc_launch_dependents) and writes out = prev * 0.5 + w. STAMP records, per
# step, the earliest start and the latest end of its programs (globaltimer)
# so that overlap between consecutive steps can be seen directly.
import triton
import triton.language as tl
from triton.language.extra.cuda import gdc_launch_dependents, gdc_wait, globaltimer


@triton.jit
def pdl_step(prev_ptr, w_ptr, out_ptr, stamps_ptr, n, k, BLOCK: tl.constexpr, USE_GDC: tl.constexpr,
             STAMP: tl.constexpr):
    if STAMP:
        t0 = globaltimer()
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    w = tl.load(w_ptr + offs, mask=mask, other=0.0)
    if USE_GDC:
        gdc_wait()
    x = tl.load(prev_ptr + offs, mask=mask, other=0.0)
    if USE_GDC:
        gdc_launch_dependents()
    tl.store(out_ptr + offs, x * 0.5 + w, mask=mask)
    if STAMP:
        t1 = globaltimer()
        tl.atomic_min(stamps_ptr + 2 * k, t0)
        tl.atomic_max(stamps_ptr + 2 * k + 1, t1)
