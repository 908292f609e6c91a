# Programmatic dependent launch and the other tl.extra.cuda functions
# (issue #27): each kernel of a chain does its independent work, waits for
# its predecessor (gdc_wait), lets its successor start (gdc_launch_dependents)
# and reads the predecessor's output. The three spellings real code uses.
import triton
import triton.language as tl
from triton.language.extra.cuda import gdc_launch_dependents, gdc_wait
import triton.language.extra.cuda.gdc as gdc
from triton.language.extra import cuda as tlcuda


@triton.jit
def chain_step(prev_ptr, w_ptr, out_ptr, n, k, BLOCK: tl.constexpr, FORM: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    # Independent of the predecessor: may run while it still runs.
    w = tl.load(w_ptr + offs, mask=mask, other=0)
    w = w * 3 + k
    if FORM == 0:
        gdc_wait()
        x = tl.load(prev_ptr + offs, mask=mask, other=0)
        gdc_launch_dependents()
    elif FORM == 1:
        tl.extra.cuda.gdc_wait()
        x = tl.load(prev_ptr + offs, mask=mask, other=0)
        tl.extra.cuda.gdc_launch_dependents()
    else:
        gdc.gdc_wait()
        x = tl.load(prev_ptr + offs, mask=mask, other=0)
        gdc.gdc_launch_dependents()
    tl.store(out_ptr + offs, (x ^ w) + (x >> 3), mask=mask)


# The copies of gdc_wait / gdc_launch_dependents serving engines carry for
# Triton builds without them: inline PTX with a dummy result (GPU only).
@triton.jit
def asm_gdc_wait():
    tl.inline_asm_elementwise("griddepcontrol.wait; // dummy $0", "=r", [], dtype=tl.int32, is_pure=False, pack=1)


@triton.jit
def asm_gdc_launch_dependents():
    tl.inline_asm_elementwise("griddepcontrol.launch_dependents; // dummy $0", "=r", [], dtype=tl.int32,
                              is_pure=False, pack=1)


@triton.jit
def chain_step_asm(prev_ptr, w_ptr, out_ptr, n, k, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    w = tl.load(w_ptr + offs, mask=mask, other=0) * 3 + k
    asm_gdc_wait()
    x = tl.load(prev_ptr + offs, mask=mask, other=0)
    asm_gdc_launch_dependents()
    tl.store(out_ptr + offs, (x ^ w) + (x >> 3), mask=mask)


@triton.jit
def cuda_info(out_ptr, times_ptr):
    # num_warps() / num_threads() are constexprs: usable as shapes.
    lanes = tl.arange(0, tlcuda.num_threads())
    tl.static_assert(tlcuda.num_threads() == 32 * tlcuda.num_warps())
    t0 = tlcuda.globaltimer()
    total = tl.sum(lanes, axis=0)
    t1 = tl.extra.cuda.globaltimer()
    tl.store(out_ptr + 0, tlcuda.num_warps())
    tl.store(out_ptr + 1, tlcuda.num_threads())
    tl.store(out_ptr + 2, total)
    tl.store(out_ptr + 3 + tl.program_id(0), tlcuda.smid())
    tl.store(times_ptr + 2 * tl.program_id(0), t0)
    tl.store(times_ptr + 2 * tl.program_id(0) + 1, t1)


# launch_pdl in a config's kwargs: a launch option, as Triton passes it on.
@triton.autotune(configs=[triton.Config({"BLOCK": 256, "launch_pdl": True}),
                          triton.Config({"BLOCK": 512, "launch_pdl": False})], key=["n"])
@triton.jit
def chain_step_tuned(prev_ptr, w_ptr, out_ptr, n, k, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    w = tl.load(w_ptr + offs, mask=mask, other=0) * 3 + k
    gdc_wait()
    x = tl.load(prev_ptr + offs, mask=mask, other=0)
    gdc_launch_dependents()
    tl.store(out_ptr + offs, (x ^ w) + (x >> 3), mask=mask)


@triton.autotune(configs=[triton.Config({"BLOCK": 256, "launch_pdl": 1})], key=["n"])
@triton.jit
def bad_pdl_config(x_ptr, n, BLOCK: tl.constexpr):
    gdc_wait()


# A grid-wide barrier, which needs every program resident at once
# (launch_cooperative_grid): partial sums, an arrival counter, then every
# program reads all partials.
@triton.jit
def grid_barrier_sum(x_ptr, partial_ptr, counter_ptr, out_ptr, BLOCK: tl.constexpr, MAXP: tl.constexpr):
    pid = tl.program_id(0)
    n = tl.num_programs(0)
    tl.store(partial_ptr + pid, tl.sum(tl.load(x_ptr + pid * BLOCK + tl.arange(0, BLOCK)), axis=0))
    tl.debug_barrier()  # the partial is written before the arrival is released
    tl.atomic_add(counter_ptr, 1, sem="release")
    tl.atomic_poll(counter_ptr, n)
    p = tl.arange(0, MAXP)
    total = tl.sum(tl.load(partial_ptr + p, mask=p < n, other=0, volatile=True), axis=0)
    tl.store(out_ptr + pid, total)


@triton.jit
def fill_program_ids(out_ptr):
    tl.store(out_ptr + tl.program_id(0), tl.program_id(0))


@triton.jit
def cluster_ranks(out_ptr, ON_GPU: tl.constexpr):
    # Each program records tl.extra.cuda.num_ctas() and, on the GPU, its
    # rank in its thread-block cluster and the cluster's size (special
    # registers), to show that num_ctas launches clusters.
    pid = tl.program_id(0)
    tl.store(out_ptr + pid * 3, tl.extra.cuda.num_ctas())
    if ON_GPU:
        rank = tl.inline_asm_elementwise("mov.u32 $0, %cluster_ctarank;", "=r", [], dtype=tl.int32, is_pure=True,
                                         pack=1)
        size = tl.inline_asm_elementwise("mov.u32 $0, %cluster_nctarank;", "=r", [], dtype=tl.int32, is_pure=True,
                                         pack=1)
        tl.store(out_ptr + pid * 3 + 1, rank)
        tl.store(out_ptr + pid * 3 + 2, size)
