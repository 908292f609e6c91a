"""Control flow, jit-function calls, tuples, heuristics, autotuning and hints."""
import triton
import triton.language as tl


@triton.jit
def _gcd(a, b):
    while b != 0:
        t = a % b
        a = b
        b = t
    return a


@triton.jit(noinline=True)
def _affine(x, factor):
    return x * factor + 1


@triton.jit
def _sum_and_max(x):
    return tl.sum(x, axis=0), tl.max(x, axis=0)


@triton.jit
def _twice(x):
    return _affine(x, 2) - 1


@triton.jit
def control_flow(a_ptr, b_ptr, out_ptr, limit):
    pid = tl.program_id(0)
    if pid >= limit:
        return
    a = tl.load(a_ptr + pid)
    b = tl.load(b_ptr + pid)
    g = _gcd(a, b)
    if pid % 2 == 0:
        v = g * 2
    else:
        v = g - 1
    acc = 0
    for i in tl.range(pid, pid + 10, 3, num_stages=2):
        acc += i * i
    rec = out_ptr + pid * 5
    tl.store(rec + 0, g)
    tl.store(rec + 1, v)
    tl.store(rec + 2, acc)
    tl.store(rec + 3, _affine(a, 3))
    tl.store(rec + 4, _twice(b) if pid < 3 else -b)


@triton.jit
def loops_and_tuples(x_ptr, out_ptr, n_iter, BLOCK: tl.constexpr, N_TERMS: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    total, biggest = _sum_and_max(x)
    coeffs = (1, 3, 5, 7, 9)
    poly = tl.zeros((BLOCK,), tl.int32)
    for k in tl.static_range(N_TERMS):
        poly = poly * x + coeffs[k]
    acc = tl.zeros((BLOCK,), dtype=tl.int32)
    for i in range(n_iter):
        acc = acc + x * i
    j = 0
    steps = 0
    while j < n_iter * 3:
        j += 2
        steps += 1
    tl.store(out_ptr + offs, poly)
    tl.store(out_ptr + BLOCK + offs, acc)
    tl.store(out_ptr + 2 * BLOCK, total)
    tl.store(out_ptr + 2 * BLOCK + 1, biggest)
    tl.store(out_ptr + 2 * BLOCK + 2, steps)


@triton.heuristics({"EVEN_N": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def scale_maybe_even(x_ptr, out_ptr, flag_ptr, n, alpha, BLOCK: tl.constexpr, EVEN_N: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN_N:
        x = tl.load(x_ptr + offs)
        tl.store(out_ptr + offs, x * alpha)
    else:
        m = offs < n
        x = tl.load(x_ptr + offs, mask=m)
        tl.store(out_ptr + offs, x * alpha, mask=m)
    if tl.program_id(0) == 0:
        tl.store(flag_ptr, 1 if EVEN_N else 0)


@triton.autotune(configs=[triton.Config({"BLOCK": 32}, num_warps=1), triton.Config({"BLOCK": 64}, num_warps=2)],
                 key=["n", "SCALE"])
@triton.jit
def tuned_scaled_axpy(x_ptr, y_ptr, out_ptr, n, a, BLOCK: tl.constexpr, SCALE: tl.constexpr = 1):
    # A key naming a constexpr with a default, which a launch may leave out.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, a * SCALE * tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 32}, num_warps=1),
        triton.Config({"BLOCK": 128}, num_warps=4),
        triton.Config({"BLOCK": 64}, num_warps=2, num_stages=2),
    ],
    key=["n"],
)
@triton.jit
def tuned_axpy(x_ptr, y_ptr, out_ptr, block_out, n, a, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    tl.store(out_ptr + offs, a * x + y, mask=m)
    tl.store(block_out + tl.program_id(0), BLOCK)


@triton.autotune(
    configs=[triton.Config({"BLOCK": b}, num_warps=w, maxnreg=r) for b, w, r in [(64, 2, 32), (128, 4, 64)]]
    + [triton.Config({"BLOCK": 256}, num_warps=4, num_ctas=2)],
    key=["n"],
)
@triton.jit
def tuned_axpy_capped(x_ptr, y_ptr, out_ptr, block_out, n, a, BLOCK: tl.constexpr):
    tuned_axpy(x_ptr, y_ptr, out_ptr, block_out, n, a, BLOCK)


@triton.jit
def hinted_copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    tl.assume(pid >= 0)
    tl.assume(n > 0)
    start = tl.multiple_of(pid * BLOCK, 16)
    offs = tl.max_contiguous(tl.multiple_of(start + tl.arange(0, BLOCK), BLOCK), BLOCK)
    base = tl.max_constancy(start + tl.zeros((BLOCK,), tl.int32), BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.debug_barrier()
    tl.store(out_ptr + offs, x + base.to(tl.float32), mask=m)


@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 64}, num_warps=2),
        triton.Config({"BLOCK": 256}, num_warps=4),
        triton.Config({"BLOCK": 128}, num_warps=64),  # invalid: skipped with its reason
    ],
    key=["n"],
    reset_to_zero=["hits_ptr"],
)
@triton.jit
def tuned_accumulate(x_ptr, acc_ptr, hits_ptr, n, BLOCK: tl.constexpr):
    """acc += x, and one count per program: tuning runs it many times, so
    only a sweep that restores acc and zeroes hits leaves the right result."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    acc = tl.load(acc_ptr + offs, mask=m)
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(acc_ptr + offs, acc + x, mask=m)
    tl.atomic_add(hits_ptr, 1)


def _prune_big_blocks(configs, named_args, **kwargs):
    return [c for c in configs if c.kwargs["BLOCK"] <= 128]


@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 64}, num_warps=2),
        triton.Config({"BLOCK": 128}, num_warps=4),
        triton.Config({"BLOCK": 512}, num_warps=4),
        triton.Config({"BLOCK": 1024}, num_warps=8),
    ],
    key=["n"],
    prune_configs_by={"early_config_prune": _prune_big_blocks},
)
@triton.jit
def pruned_copy(x_ptr, out_ptr, chosen_ptr, n, BLOCK: tl.constexpr):
    """A copy that records its BLOCK: which configs prune_configs_by let
    through is visible in chosen_ptr."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m), mask=m)
    if tl.program_id(0) == 0:
        tl.store(chosen_ptr, BLOCK)
