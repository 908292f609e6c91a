# Syntax Triton 3.9 added that kernels now use (issue #27): chained
# comparisons on tensors, runtime scalars and constexprs.
import triton
import triton.language as tl


@triton.jit
def chained_compare(x_ptr, out_ptr, n, lo, hi, LO_C: tl.constexpr, HI_C: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    # A tensor chain as the mask: offs >= 0 and offs < n.
    valid = 0 <= offs < n
    x = tl.load(x_ptr + offs, mask=valid, other=0)
    # Runtime scalars around a tensor, and a three-link chain.
    inside = lo <= x < hi
    ordered = lo < x <= x + 1 < hi + 10
    # A constexpr chain picks the branch at compile time; its false link
    # stops the chain (the third operand would not type-check as a bool).
    if LO_C < 2 < HI_C:
        y = tl.where(inside, x * 2, x)
    else:
        y = tl.where(inside, x, -x)
    if HI_C < LO_C < undefined_name_never_evaluated:
        y = y * 0
    y = tl.where(ordered, y + 1000, y)
    tl.store(out_ptr + offs, y, mask=valid)


@triton.jit
def scale_shift(x, *, scale, shift: tl.constexpr = 0, clamp: tl.constexpr = False):
    y = x * scale + shift
    if clamp:
        y = tl.minimum(y, 100)
    return y


@triton.jit
def keyword_only_helpers(x_ptr, out_ptr, n, s, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    a = scale_shift(x, scale=s)
    b = scale_shift(x, shift=7, scale=2, clamp=True)
    tl.store(out_ptr + offs, a * 1000 + b, mask=offs < n)


@triton.jit
def keyword_only_kernel(x_ptr, out_ptr, n, *, scale, BLOCK: tl.constexpr, SHIFT: tl.constexpr = 5):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.store(out_ptr + offs, scale_shift(x, scale=scale, shift=SHIFT), mask=offs < n)


@triton.jit
def comprehensions(x_ptr, out_ptr, n, BLOCK: tl.constexpr, PARTS: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    # A list comprehension over a constexpr range: PARTS tiles, each loaded
    # once (names of the comprehension stay inside it).
    tiles = [tl.load(x_ptr + i * n + offs, mask=offs < n, other=0) for i in range(PARTS)]
    # A tuple comprehension over a tuple, with a constexpr filter.
    weights: tl.constexpr = tuple(w for w in (1, 2, 3, 4, 5, 6, 7, 8) if w % 2 == 1)
    acc = tl.zeros([BLOCK], dtype=tl.int32)
    for i in tl.static_range(PARTS):
        acc += tiles[i] * weights[i]
    # Nested generators and tuple targets.
    pairs = [a * 10 + b for a, b in ((1, 2), (3, 4)) for _ in range(2)]
    acc += pairs[0] + pairs[3]
    i = 100  # not the comprehension's `i`
    tl.store(out_ptr + offs, acc + len(tiles) * i, mask=offs < n)


@triton.jit
def squeeze_unsqueeze(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    x = tl.load(x_ptr + tl.unsqueeze(rm, 1) * N + tl.unsqueeze(rn, 0))   # [M, N]
    row = tl.sum(tl.unsqueeze(x, 1), axis=2)                           # [M, 1]
    col = tl.squeeze(tl.max(tl.unsqueeze(x, 0), axis=1, keep_dims=True), 0)  # [1, 1, N] -> [1, N]
    last = tl.squeeze(row, -1)                                          # [M]
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], x + row + col + tl.expand_dims(last, 1))


@triton.jit
def integer_clamp(x_ptr, u_ptr, out_ptr, uout_ptr, n, lo, hi, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0)
    # Signed: runtime bounds, then literal bounds.
    y = tl.clamp(x, lo, hi) * 1000 + tl.clamp(x, -5, 7)
    tl.store(out_ptr + offs, y, mask=m)
    # Unsigned: compared as unsigned (values past 2^31 are large, not negative).
    u = tl.load(u_ptr + offs, mask=m, other=0)
    tl.store(uout_ptr + offs, tl.clamp(u, tl.full([], 1000, tl.uint32), tl.full([], 3000000000, tl.uint32)), mask=m)


@triton.jit
def cat_in_order(a_ptr, b_ptr, out1_ptr, out2_ptr, out3_ptr, M: tl.constexpr, N: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    a = tl.load(a_ptr + rm[:, None] * N + rn[None, :])    # [M, N]
    b = tl.load(b_ptr + rm[:, None] * N + rn[None, :])    # [M, N]
    # 1-D, in order: a's first row then b's.
    a0 = tl.sum(a * (rm[:, None] == 0), axis=0)
    b0 = tl.sum(b * (rm[:, None] == 0), axis=0)
    tl.store(out1_ptr + tl.arange(0, 2 * N), tl.cat(a0, b0))
    # Along dim 0: [2M, N].
    c = tl.cat(a, b, dim=0)
    tl.store(out2_ptr + tl.arange(0, 2 * M)[:, None] * N + rn[None, :], c)
    # Along the last dim (-1), b's row 0 broadcast over the rows: [M, 2N].
    d = tl.cat(a, b0[None, :], dim=-1)
    tl.store(out3_ptr + rm[:, None] * (2 * N) + tl.arange(0, 2 * N)[None, :], d)


# @triton.constexpr_function (structured values, issue #27): host functions
# kernels call at compile time on constexprs; jit functions returning
# constexprs.
@triton.constexpr_function
def pow2_at_least(n):
    p = 1
    while p < n:
        p *= 2
    return p


@triton.constexpr_function
def scale_pair(a, b=3):
    return (a * b, a + b)


MODULE_BLOCK = pow2_at_least(100)  # called on the host too: 128


@triton.jit
def doubled(N: tl.constexpr):
    return N * 2


@triton.jit
def uses_constexpr_functions(x_ptr, out_ptr, n, N: tl.constexpr):
    B: tl.constexpr = pow2_at_least(N)
    S, T = scale_pair(N, b=2)
    tl.static_assert(MODULE_BLOCK == 128)
    D: tl.constexpr = doubled(B)  # a jit function's constexpr result stays constexpr
    offs = tl.arange(0, B)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0)
    tl.store(out_ptr + offs, x * S + T + D, mask=m)


@triton.jit
def constexpr_function_on_a_tensor(x_ptr):
    x = tl.load(x_ptr)
    tl.store(x_ptr, pow2_at_least(x))
