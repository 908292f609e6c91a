"""Shape manipulation: transposes, reshapes, broadcasting, joins, gather, histogram."""
import triton
import triton.language as tl


@triton.jit
def transpose_tile(x_ptr, t_out, T_out, M: tl.constexpr, N: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :])
    tl.store(t_out + rn[:, None] * M + rm[None, :], tl.trans(x))
    tl.store(T_out + rn[:, None] * M + rm[None, :], x.T)


@triton.jit
def permute3(x_ptr, out_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    a = tl.arange(0, A)[:, None, None]
    b = tl.arange(0, B)[None, :, None]
    c = tl.arange(0, C)[None, None, :]
    x = tl.load(x_ptr + a * (B * C) + b * C + c)
    y = tl.permute(x, (2, 0, 1))  # [C, A, B]
    oc = tl.arange(0, C)[:, None, None]
    oa = tl.arange(0, A)[None, :, None]
    ob = tl.arange(0, B)[None, None, :]
    tl.store(out_ptr + oc * (A * B) + oa * B + ob, y)
    # trans with explicit dims is a permute too: [B, C, A]
    z = tl.trans(x, 1, 2, 0)
    zb = tl.arange(0, B)[:, None, None]
    zc = tl.arange(0, C)[None, :, None]
    za = tl.arange(0, A)[None, None, :]
    tl.store(out_ptr + A * B * C + zb * (C * A) + zc * A + za, z)


@triton.jit
def reshape_family(x_ptr, rows_out, total_out, ravel_out, centered_out, pair_out,
                   M: tl.constexpr, N: tl.constexpr):
    flat = tl.arange(0, M * N)
    x = tl.load(x_ptr + flat)  # [M*N]
    x2 = tl.reshape(x, (M, N))
    row_sums = tl.sum(x2, axis=1)  # [M]
    tl.store(rows_out + tl.arange(0, M), row_sums)
    # view may reorder elements: only order-free facts are checked.
    v = x.view(N, M)
    tl.store(total_out, tl.sum(tl.sum(v, axis=1), axis=0))
    tl.store(total_out + 1, tl.max(tl.max(v, axis=0), axis=0))
    tl.store(ravel_out + flat, tl.ravel(x2 * 2))
    e = tl.expand_dims(row_sums, 1)  # [M, 1]
    centered = tl.broadcast_to(e, (M, N)) - x2
    r = tl.arange(0, M)[:, None]
    c = tl.arange(0, N)[None, :]
    tl.store(centered_out + r * N + c, centered)
    a2, b2 = tl.broadcast(e, c)
    tl.store(pair_out + r * N + c, a2 * 1000 + b2)
    e0 = tl.expand_dims(tl.arange(0, N), 0)  # [1, N]
    tl.store(pair_out + M * N + r * N + c, tl.reshape(x, M, N) + e0)


@triton.jit
def join_split(a_ptr, b_ptr, cat_out, join_out, split_out, inter_out, N: tl.constexpr):
    offs = tl.arange(0, N)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    both = tl.cat(a, b, can_reorder=True)  # [2N], order unspecified
    tl.store(cat_out + tl.arange(0, 2 * N), both)
    j = tl.join(a, b)  # [N, 2]
    tl.store(join_out + offs[:, None] * 2 + tl.arange(0, 2)[None, :], j)
    first, second = tl.split(j * 3)
    tl.store(split_out + offs, first - second)
    tl.store(inter_out + tl.arange(0, 2 * N), tl.interleave(a, b))


@triton.jit
def gather_rows(src_ptr, idx_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr, K: tl.constexpr):
    r = tl.arange(0, R)[:, None]
    src = tl.load(src_ptr + r * C + tl.arange(0, C)[None, :])  # [R, C]
    idx = tl.load(idx_ptr + r * K + tl.arange(0, K)[None, :])  # [R, K]
    tl.store(out_ptr + r * K + tl.arange(0, K)[None, :], tl.gather(src, idx, 1))


@triton.jit
def gather_1d(src_ptr, idx_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    src = tl.load(src_ptr + offs)
    idx = tl.load(idx_ptr + offs)
    tl.store(out_ptr + offs, src.gather(idx, axis=0))


@triton.jit
def histogram_kernel(vals_ptr, hist_out, n, BINS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(vals_ptr + offs, mask=m, other=0)
    h = tl.histogram(v, BINS, mask=m)
    tl.store(hist_out + tl.arange(0, BINS), h)
