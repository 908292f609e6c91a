"""Language features that had no end-to-end test: the less common tl
functions, dtypes and argument forms (see docs/language-support.md)."""
import triton
import triton.language as tl

OUT_DTYPE = tl.constexpr(tl.float16)


# ---------------------------------------------------------------------------
# Reductions and scans
# ---------------------------------------------------------------------------


@triton.jit
def reduce_or_rows(x_ptr, row_out, col_out, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    m = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=m, other=0)
    tl.store(row_out + rm, tl.reduce_or(x, axis=1), mask=rm < M)
    tl.store(col_out + rn, tl.reduce_or(x, 0), mask=rn < N)


@triton.jit
def max_min_with_indices(x_ptr, vmax, imax, vmin, imin, M, N, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    rn = tl.arange(0, BLOCK_N)
    m = rn < N
    x = tl.load(x_ptr + row * N + rn, mask=m, other=float("-inf"))
    v, i = tl.max(x, axis=0, return_indices=True)
    tl.static_assert(i.dtype == tl.int32)
    tl.store(vmax + row, v)
    tl.store(imax + row, i)
    y = tl.load(x_ptr + row * N + rn, mask=m, other=float("inf"))
    w, j = y.min(0, return_indices=True)
    tl.store(vmin + row, w)
    tl.store(imin + row, j)


@triton.jit
def max_min_indices_int(x_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # Integer rows with many ties: the first index of the extreme wins.
    rm = tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    m = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=m, other=-1000)
    v, i = tl.max(x, axis=1, return_indices=True)
    x2 = tl.where(m, x, 1000)
    w, j = tl.min(x2, axis=1, return_indices=True)
    rmask = rm < M
    tl.store(out_ptr + rm * 4 + 0, v, mask=rmask)
    tl.store(out_ptr + rm * 4 + 1, i, mask=rmask)
    tl.store(out_ptr + rm * 4 + 2, w, mask=rmask)
    tl.store(out_ptr + rm * 4 + 3, j, mask=rmask)


@triton.jit
def _argmax_combine(v1, i1, v2, i2):
    take = v2 > v1
    return tl.where(take, v2, v1), tl.where(take, i2, i1)


@triton.jit
def running_argmax(x_ptr, vout, iout, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=float("-inf"))
    v, i = tl.associative_scan((x, offs), 0, _argmax_combine)
    tl.store(vout + offs, v, mask=m)
    tl.store(iout + offs, i, mask=m)


@triton.jit
def _sum_and_count(a1, c1, a2, c2):
    return a1 + a2, c1 + c2


@triton.jit
def reverse_tuple_scan(x_ptr, sout, cout, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # A reverse scan along axis 1 of (sum, count of positives) pairs.
    rm = tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    m = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=m, other=0)
    s, c = tl.associative_scan((x, (x > 0).to(tl.int32)), axis=1, combine_fn=_sum_and_count, reverse=True)
    tl.store(sout + rm[:, None] * N + rn[None, :], s, mask=m)
    tl.store(cout + rm[:, None] * N + rn[None, :], c, mask=m)


@triton.jit
def masked_histogram(vals_ptr, hist_out, n, LIMIT, BINS: tl.constexpr, BLOCK: tl.constexpr):
    # Lanes past n and lanes holding a value >= LIMIT are not counted.
    offs = tl.arange(0, BLOCK)
    v = tl.load(vals_ptr + offs, mask=offs < n, other=0)
    h = tl.histogram(v, BINS, mask=(offs < n) & (v < LIMIT))
    tl.store(hist_out + tl.arange(0, BINS), h)


@triton.jit
def cat_reorder(a_ptr, b_ptr, out_ptr, sum_out, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    c = tl.cat(a, b, can_reorder=True)
    tl.static_assert(c.shape[0] == 2 * BLOCK)
    tl.store(out_ptr + tl.arange(0, 2 * BLOCK), c)
    tl.store(sum_out, tl.sum(c, axis=0))


# ---------------------------------------------------------------------------
# Random numbers
# ---------------------------------------------------------------------------


@triton.jit
def random_four_floats(seed, u_out, g_out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    u0, u1, u2, u3 = tl.rand4x(seed, offs)
    tl.store(u_out + 0 * n + offs, u0, mask=m)
    tl.store(u_out + 1 * n + offs, u1, mask=m)
    tl.store(u_out + 2 * n + offs, u2, mask=m)
    tl.store(u_out + 3 * n + offs, u3, mask=m)
    g0, g1, g2, g3 = tl.randn4x(seed, offs)
    tl.store(g_out + 0 * n + offs, g0, mask=m)
    tl.store(g_out + 1 * n + offs, g1, mask=m)
    tl.store(g_out + 2 * n + offs, g2, mask=m)
    tl.store(g_out + 3 * n + offs, g3, mask=m)


@triton.jit
def philox_wide(seed, ctr_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # 64-bit counters: Philox 4x64 with the seed as the low key word.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    c0 = tl.load(ctr_ptr + offs * 4 + 0, mask=m)
    c1 = tl.load(ctr_ptr + offs * 4 + 1, mask=m)
    c2 = tl.load(ctr_ptr + offs * 4 + 2, mask=m)
    c3 = tl.load(ctr_ptr + offs * 4 + 3, mask=m)
    r0, r1, r2, r3 = tl.philox(seed, c0, c1, c2, c3)
    tl.static_assert(r0.dtype == tl.uint64)
    tl.store(out_ptr + offs * 4 + 0, r0, mask=m)
    tl.store(out_ptr + offs * 4 + 1, r1, mask=m)
    tl.store(out_ptr + offs * 4 + 2, r2, mask=m)
    tl.store(out_ptr + offs * 4 + 3, r3, mask=m)


@triton.jit
def philox_impl_direct(ctr_ptr, k0, k1, out_ptr, n, ROUNDS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    c0 = tl.load(ctr_ptr + offs * 4 + 0, mask=m)
    c1 = tl.load(ctr_ptr + offs * 4 + 1, mask=m)
    c2 = tl.load(ctr_ptr + offs * 4 + 2, mask=m)
    c3 = tl.load(ctr_ptr + offs * 4 + 3, mask=m)
    r0, r1, r2, r3 = tl.philox_impl(c0, c1, c2, c3, k0.to(tl.uint32), k1.to(tl.uint32), ROUNDS)
    tl.store(out_ptr + offs * 4 + 0, r0, mask=m)
    tl.store(out_ptr + offs * 4 + 1, r1, mask=m)
    tl.store(out_ptr + offs * 4 + 2, r2, mask=m)
    tl.store(out_ptr + offs * 4 + 3, r3, mask=m)


@triton.jit
def uniform_and_normal(w32_ptr, v32_ptr, w64_ptr, f32_out, f64_out, n_out, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    a = tl.load(w32_ptr + offs, mask=m)
    tl.store(f32_out + offs, tl.uint_to_uniform_float(a), mask=m)
    b = tl.load(w64_ptr + offs, mask=m)
    fb = tl.uint_to_uniform_float(b)
    tl.static_assert(fb.dtype == tl.float32)
    tl.store(f64_out + offs, fb, mask=m)
    u1 = tl.uint_to_uniform_float(a)
    u2 = tl.uint_to_uniform_float(tl.load(v32_ptr + offs, mask=m))
    z0, z1 = tl.pair_uniform_to_normal(u1, u2)
    tl.store(n_out + offs * 2, z0, mask=m)
    tl.store(n_out + offs * 2 + 1, z1, mask=m)


# ---------------------------------------------------------------------------
# Grouping, scalars, pointers, dtypes, tuples
# ---------------------------------------------------------------------------


@triton.jit
def swizzle_grid(i_out, j_out, SIZE_I: tl.constexpr, SIZE_J: tl.constexpr, SIZE_G: tl.constexpr,
                 BI: tl.constexpr, BJ: tl.constexpr):
    ri = tl.arange(0, BI)[:, None]
    rj = tl.arange(0, BJ)[None, :]
    m = (ri < SIZE_I) & (rj < SIZE_J)
    ni, nj = tl.swizzle2d(ri, rj, SIZE_I, SIZE_J, SIZE_G)
    tl.store(i_out + ri * SIZE_J + rj, ni, mask=m)
    tl.store(j_out + ri * SIZE_J + rj, nj, mask=m)


@triton.jit
def swizzle_scalar(out_ptr, size_i, size_j, SIZE_G: tl.constexpr):
    # Runtime scalars, one program per (i, j) pair, like a matmul tile id.
    i = tl.program_id(0)
    j = tl.program_id(1)
    ni, nj = tl.swizzle2d(i, j, size_i, size_j, SIZE_G)
    tl.store(out_ptr + (i * size_j + j) * 2, ni)
    tl.store(out_ptr + (i * size_j + j) * 2 + 1, nj)


@triton.jit
def item_scale(x_ptr, s_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    s = tl.load(s_ptr + tl.arange(0, 1)).item()
    k = tl.load(s_ptr + 1 + tl.arange(0, 1)).to(tl.int32).item()
    tl.static_assert(len(s.shape) == 0)
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(out_ptr + offs, x * s + k, mask=m)


@triton.jit
def pointer_table(table_ptr, lens_ptr, out_ptr, NT: tl.constexpr, BLOCK: tl.constexpr):
    # table holds the addresses of NT float32 arrays as int64.
    t = tl.program_id(0)
    addr = tl.load(table_ptr + t)
    tl.static_assert(addr.dtype == tl.int64)
    p = addr.to(tl.pointer_type(tl.float32))
    tl.static_assert(p.dtype == tl.pointer_type(tl.float32))
    length = tl.load(lens_ptr + t)
    offs = tl.arange(0, BLOCK)
    v = tl.load(p + offs, mask=offs < length, other=0.0)
    tl.store(out_ptr + t, tl.sum(v, axis=0))
    # A block of addresses, converted elementwise.
    ts = tl.arange(0, NT)
    firsts = tl.load(tl.load(table_ptr + ts).to(tl.pointer_type(tl.float32)))
    tl.store(out_ptr + NT + ts, firsts, mask=t == 0)


@triton.jit
def pointer_roundtrip(x_ptr, out_ptr, BLOCK: tl.constexpr):
    # int32 data through a pointer rebuilt from its integer address (pi32_t).
    base = x_ptr.to(tl.int64)
    p = (base + 4 * tl.arange(0, BLOCK)).to(tl.pi32_t)
    tl.store(out_ptr + tl.arange(0, BLOCK), tl.load(p) + 1)


@triton.jit
def _convert(x, DT: tl.constexpr):
    return x.to(DT)


@triton.jit
def dtype_constexprs(x_ptr, out16, out64, outi, n, DT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.static_assert(DT == tl.float16)
    tl.static_assert(DT.primitive_bitwidth == 16)
    wide: tl.constexpr = tl.dtype("fp64")
    tl.static_assert(wide == tl.float64)
    tl.static_assert(wide.is_fp64())
    tl.store(out16 + offs, _convert(x, DT), mask=m)
    tl.store(out64 + offs, _convert(x, wide) * 3.0, mask=m)
    ity: tl.constexpr = tl.int16 if DT.primitive_bitwidth == 16 else tl.int32
    tl.static_assert(OUT_DTYPE == DT)
    tl.store(outi + offs, _convert(x, ity), mask=m)


@triton.jit
def tuple_ctor(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    t = tl.tuple([x, x * 2, x + 100])
    tl.static_assert(len(t) == 3)
    a, b, c = t
    u = t + tl.tuple((c * 3,))
    tl.static_assert(len(u) == 4)
    tl.store(out_ptr + offs, a + t[1])
    tl.store(out_ptr + BLOCK + offs, u[3] - b)
    tl.store(out_ptr + 2 * BLOCK + offs, u[2])


@triton.jit
def numel_limits(out_ptr, N: tl.constexpr):
    tl.static_assert(tl.TRITON_MAX_TENSOR_NUMEL == 1048576)
    B: tl.constexpr = triton.next_power_of_2(N)
    tl.static_assert(B >= N)
    tl.static_assert(B < 2 * N)
    offs = tl.arange(0, B)
    tl.store(out_ptr + offs, offs * 2, mask=offs < N)
    tl.store(out_ptr + N, B)
    tl.store(out_ptr + N + 1, tl.TRITON_MAX_TENSOR_NUMEL // B)


# ---------------------------------------------------------------------------
# Narrow and wide data types
# ---------------------------------------------------------------------------


@triton.jit
def fp8_encode(x_ptr, out_ptr, n, DT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = x.to(DT)
    tl.static_assert(y.dtype == DT)
    tl.store(out_ptr + offs, y.to(tl.uint8, bitcast=True), mask=m)


@triton.jit
def fp8_decode(b_ptr, out32, out16, n, DT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    b = tl.load(b_ptr + offs, mask=m)
    f = b.to(DT, bitcast=True)
    tl.store(out32 + offs, f.to(tl.float32), mask=m)
    tl.store(out16 + offs, f.to(tl.float16), mask=m)


@triton.jit
def fp64_math(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1.0)
    y = tl.load(y_ptr + offs, mask=m, other=1.0)
    tl.static_assert(x.dtype == tl.float64)
    tl.store(out_ptr + 0 * n + offs, tl.exp(x), mask=m)
    tl.store(out_ptr + 1 * n + offs, tl.log(y), mask=m)
    tl.store(out_ptr + 2 * n + offs, tl.sqrt(y), mask=m)
    tl.store(out_ptr + 3 * n + offs, tl.sin(x), mask=m)
    tl.store(out_ptr + 4 * n + offs, x * y + x / y, mask=m)
    tl.store(out_ptr + 5 * n + offs, tl.fma(x, y, 0.1), mask=m)


@triton.jit
def fp64_dot(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float64)
    for k0 in range(0, K, BK):
        ka = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * K + ka[None, :], mask=(rm[:, None] < M) & (ka[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ka[:, None] * N + rn[None, :], mask=(ka[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.static_assert(acc.dtype == tl.float64)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def int16_ops(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    a = tl.load(a_ptr + offs, mask=m)
    b = tl.load(b_ptr + offs, mask=m, other=1)
    tl.static_assert((a + b).dtype == tl.int16)
    tl.store(out_ptr + 0 * n + offs, a + b, mask=m)
    tl.store(out_ptr + 1 * n + offs, a * b, mask=m)
    tl.store(out_ptr + 2 * n + offs, a // b, mask=m)
    tl.store(out_ptr + 3 * n + offs, a % b, mask=m)
    tl.store(out_ptr + 4 * n + offs, a >> 3, mask=m)
    tl.store(out_ptr + 5 * n + offs, tl.maximum(a, b) - 7, mask=m)


@triton.jit
def uint16_ops(a_ptr, b_ptr, out_ptr, sum_out, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    a = tl.load(a_ptr + offs, mask=m)
    b = tl.load(b_ptr + offs, mask=m, other=1)
    tl.static_assert((a * b).dtype == tl.uint16)
    tl.store(out_ptr + 0 * n + offs, a + b, mask=m)
    tl.store(out_ptr + 1 * n + offs, a * b, mask=m)
    tl.store(out_ptr + 2 * n + offs, a // b, mask=m)
    tl.store(out_ptr + 3 * n + offs, a >> 3, mask=m)
    tl.store(out_ptr + 4 * n + offs, (a > b).to(tl.uint16), mask=m)
    tl.store(out_ptr + 5 * n + offs, a - b, mask=m)
    s = tl.sum(tl.where(m, a, 0), axis=0)
    tl.static_assert(s.dtype == tl.uint32)
    tl.store(sum_out, s)


@triton.jit
def uint64_ops(a_ptr, b_ptr, out_ptr, max_out, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    a = tl.load(a_ptr + offs, mask=m)
    b = tl.load(b_ptr + offs, mask=m, other=1)
    tl.static_assert(a.dtype == tl.uint64)
    tl.store(out_ptr + 0 * n + offs, a + b, mask=m)
    tl.store(out_ptr + 1 * n + offs, a * b, mask=m)
    tl.store(out_ptr + 2 * n + offs, a // b, mask=m)
    tl.store(out_ptr + 3 * n + offs, a % b, mask=m)
    tl.store(out_ptr + 4 * n + offs, a >> 7, mask=m)
    tl.store(out_ptr + 5 * n + offs, (a < b).to(tl.uint64), mask=m)
    tl.store(max_out, tl.max(tl.where(m, a, 0), axis=0))


# ---------------------------------------------------------------------------
# Math
# ---------------------------------------------------------------------------


@triton.jit
def math_spellings(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1.0)
    y = tl.load(y_ptr + offs, mask=m, other=1.0)
    ax = tl.math.abs(x)
    tl.store(out_ptr + 0 * n + offs, tl.math.exp(x), mask=m)
    tl.store(out_ptr + 1 * n + offs, tl.math.exp2(x), mask=m)
    tl.store(out_ptr + 2 * n + offs, tl.math.log(y), mask=m)
    tl.store(out_ptr + 3 * n + offs, tl.math.log2(y), mask=m)
    tl.store(out_ptr + 4 * n + offs, tl.math.sin(x), mask=m)
    tl.store(out_ptr + 5 * n + offs, tl.math.cos(x), mask=m)
    tl.store(out_ptr + 6 * n + offs, tl.math.sqrt(y), mask=m)
    tl.store(out_ptr + 7 * n + offs, tl.math.sqrt_rn(y), mask=m)
    tl.store(out_ptr + 8 * n + offs, tl.math.rsqrt(y), mask=m)
    tl.store(out_ptr + 9 * n + offs, tl.math.erf(x), mask=m)
    tl.store(out_ptr + 10 * n + offs, tl.math.floor(x * 3.0), mask=m)
    tl.store(out_ptr + 11 * n + offs, tl.math.ceil(x * 3.0), mask=m)
    tl.store(out_ptr + 12 * n + offs, ax, mask=m)
    tl.store(out_ptr + 13 * n + offs, tl.math.fma(x, y, ax), mask=m)
    tl.store(out_ptr + 14 * n + offs, tl.math.div_rn(x, y), mask=m)
    tl.store(out_ptr + 15 * n + offs, tl.math.fdiv(x, y), mask=m)


@triton.jit
def math_umulhi(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    a = tl.load(a_ptr + offs, mask=m)
    b = tl.load(b_ptr + offs, mask=m)
    tl.store(out_ptr + offs, tl.math.umulhi(a, b), mask=m)


@triton.jit
def clamp_nan(x_ptr, out_all, out_none, lo, hi, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(out_all + offs, tl.clamp(x, lo, hi, propagate_nan=tl.PropagateNan.ALL), mask=m)
    tl.store(out_none + offs, tl.clamp(x, lo, hi), mask=m)


@triton.jit
def softmax_forms(x_ptr, rows_out, cols_out, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.arange(0, BLOCK_M)[:, None]
    rn = tl.arange(0, BLOCK_N)[None, :]
    m = (rm < M) & (rn < N)
    x = tl.load(x_ptr + rm * N + rn, mask=m, other=float("-inf"))
    r = tl.softmax(x, dim=1, keep_dims=True, ieee_rounding=True)
    tl.store(rows_out + rm * N + rn, r, mask=m)
    c = tl.softmax(x, ieee_rounding=True)  # dim=None reduces axis 0
    tl.store(cols_out + rm * N + rn, c, mask=m)


@triton.jit
def full_bf16(v, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.full((BLOCK,), 0.1, tl.bfloat16)
    tl.static_assert(a.dtype == tl.bfloat16)
    b = tl.full((BLOCK,), v, dtype=tl.bfloat16)
    c = tl.full((BLOCK,), -3, tl.bfloat16)
    tl.store(out_ptr + offs, a)
    tl.store(out_ptr + BLOCK + offs, b)
    tl.store(out_ptr + 2 * BLOCK + offs, c + offs.to(tl.bfloat16))


# ---------------------------------------------------------------------------
# Atomics
# ---------------------------------------------------------------------------


@triton.jit
def atomic_add_float(x_ptr, bins_ptr, n, NBINS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.atomic_add(bins_ptr + offs % NBINS, x, mask=m)


@triton.jit
def atomic_cas_float(slots_ptr, won_ptr, old_ptr, NSLOTS: tl.constexpr):
    pid = tl.program_id(0)
    mine = pid.to(tl.float32) * 0.5 + 0.25
    prev = tl.atomic_cas(slots_ptr + pid % NSLOTS, -1.0, mine)
    tl.static_assert(prev.dtype == tl.float32)
    tl.store(won_ptr + pid, (prev == -1.0).to(tl.int32))
    tl.store(old_ptr + pid, prev)


@triton.jit
def atomics_with_sem_scope(acc_ptr, x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0)
    tl.atomic_add(acc_ptr + 0, tl.sum(x, axis=0), sem="relaxed", scope="gpu")
    tl.atomic_max(acc_ptr + 1, tl.max(tl.where(m, x, -2147483647), axis=0), sem="acquire", scope="cta")
    tl.atomic_min(acc_ptr + 2, tl.min(tl.where(m, x, 2147483647), axis=0), sem="release", scope="sys")
    same = offs * 0  # a block of pointers to one address
    tl.atomic_or(acc_ptr + 3 + same, x & 0xFF0, mask=m, sem="acq_rel")
    tl.atomic_xor(acc_ptr + 4 + same, x, mask=m, scope="gpu")
    tl.atomic_and(acc_ptr + 5 + same, x | 0x7FFF0000, mask=m, sem="relaxed", scope="sys")
    tl.atomic_xchg(acc_ptr + 6 + offs, x, mask=m, sem="release", scope="gpu")
    tl.atomic_cas(acc_ptr + 6 + n + tl.program_id(0), 0, tl.program_id(0) + 1, sem="acq_rel", scope="cta")


# ---------------------------------------------------------------------------
# Debugging
# ---------------------------------------------------------------------------


@triton.jit
def print_hex(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.device_print("hx", x, hex=True)
    y = tl.load(y_ptr + offs)
    tl.device_print("hy", y, hex=True)


@triton.jit(debug=True)
def masked_assert(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=-5)
    tl.device_assert(x > 0, "x must be positive", mask=m)
    tl.store(out_ptr + offs, x + 1, mask=m)


# ---------------------------------------------------------------------------
# Conversions from and to the wide and 16-bit types, reductions over them
# ---------------------------------------------------------------------------


@triton.jit
def wide_int_to_float(u64_ptr, i16_ptr, u16_ptr, f32_out, f64_out, h_out, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    a = tl.load(u64_ptr + offs, mask=m)
    b = tl.load(i16_ptr + offs, mask=m)
    c = tl.load(u16_ptr + offs, mask=m)
    tl.store(f32_out + offs, a.to(tl.float32), mask=m)
    tl.store(f64_out + offs, a.to(tl.float64), mask=m)
    tl.store(f32_out + n + offs, b.to(tl.float32), mask=m)
    tl.store(h_out + offs, c.to(tl.float16), mask=m)
    tl.store(h_out + n + offs, b.to(tl.float16), mask=m)


@triton.jit
def fp64_narrowing(x_ptr, h_out, b_out, f_out, n, BLOCK: tl.constexpr):
    # fp64 -> fp16 / bf16 must round once, not through fp32.
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(h_out + offs, x.to(tl.float16), mask=m)
    tl.store(b_out + offs, x.to(tl.bfloat16), mask=m)
    tl.store(f_out + offs, x.to(tl.float32), mask=m)


@triton.jit
def small_int_reductions(x_ptr, sum_out, cum_out, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0)
    s = tl.sum(x, axis=0)
    tl.static_assert(s.dtype == tl.int32)
    tl.store(sum_out, s)
    c = tl.cumsum(x, axis=0)
    tl.static_assert(c.dtype == tl.int32)
    tl.store(cum_out + offs, c, mask=m)
    tl.store(sum_out + 1, tl.max(x, axis=0))
    tl.store(sum_out + 2, tl.min(tl.where(m, x, 32767), axis=0))


@triton.jit
def flat_argmax(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    rm = tl.arange(0, M)[:, None]
    rn = tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + rm * N + rn)
    v, i = tl.max(x, return_indices=True)
    tl.store(out_ptr + 0, v)
    tl.store(out_ptr + 1, i)
    vk, ik = tl.min(x, axis=1, return_indices=True, keep_dims=True)
    tl.static_assert(len(ik.shape) == 2)
    tl.store(out_ptr + 2 + tl.arange(0, M)[:, None], vk)
    tl.store(out_ptr + 2 + M + tl.arange(0, M)[:, None], ik)
    w, j = tl.max(x, axis=1, return_indices=True, return_indices_tie_break_left=False)
    tl.store(out_ptr + 2 + 2 * M + tl.arange(0, M), j)


@triton.jit
def rand4x_wide_offsets(seed, base, out_ptr, BLOCK: tl.constexpr):
    offs = base + tl.arange(0, BLOCK).to(tl.int64)
    a, b, c, d = tl.rand4x(seed, offs)
    r = tl.arange(0, BLOCK)
    tl.store(out_ptr + r * 4 + 0, a)
    tl.store(out_ptr + r * 4 + 1, b)
    tl.store(out_ptr + r * 4 + 2, c)
    tl.store(out_ptr + r * 4 + 3, d)


@triton.jit
def atomic_tickets_fp16(acc_ptr, old_ptr, BLOCK: tl.constexpr):
    # Every lane adds 1 to one fp16 address: the old values are 0..BLOCK-1.
    offs = tl.arange(0, BLOCK)
    one = tl.full((BLOCK,), 1.0, tl.float16)
    old = tl.atomic_add(acc_ptr + offs * 0, one)
    tl.static_assert(old.dtype == tl.float16)
    tl.store(old_ptr + offs, old)


@triton.jit
def atomic_minmax_fp64(x_ptr, acc_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.atomic_max(acc_ptr + offs * 0, x, mask=m)
    tl.atomic_min(acc_ptr + 1 + offs * 0, x, mask=m)


@triton.jit
def pointer_reinterpret(x_ptr, bits_out, bytes_out, BLOCK: tl.constexpr):
    # A float32 array read as int32 words and as bytes through cast pointers.
    offs = tl.arange(0, BLOCK)
    wp = x_ptr.to(tl.pointer_type(tl.int32))
    tl.static_assert(wp.dtype.element_ty == tl.int32)
    tl.store(bits_out + offs, tl.load(wp + offs))
    bp = x_ptr.to(tl.pointer_type(tl.uint8))
    tl.store(bytes_out + tl.arange(0, 4 * BLOCK), tl.load(bp + tl.arange(0, 4 * BLOCK)))


@triton.jit
def any_per_row(x_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    m = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=m, other=0)
    hit = (x > 90) & m
    tl.store(out_ptr + rm, tl.reduce_or(hit, axis=1).to(tl.int32), mask=rm < M)


@triton.jit
def softmax_1d(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=float("-inf"))
    tl.store(out_ptr + offs, tl.softmax(x), mask=m)


@triton.jit
def arith_function_forms(x_ptr, y_ptr, i_ptr, j_ptr, f_out, i_out, n, BLOCK: tl.constexpr):
    # tl.add / tl.sub / tl.mul, the function forms of + - * (sanitize_overflow
    # given and not), on float and int32 tensors (wrapping) and scalars.
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    i = tl.load(i_ptr + offs, mask=m)
    j = tl.load(j_ptr + offs, mask=m)
    tl.store(f_out + offs, tl.add(x, y), mask=m)
    tl.store(f_out + n + offs, tl.sub(x, y, sanitize_overflow=False), mask=m)
    tl.store(f_out + tl.mul(n, 2) + offs, tl.mul(x, 2.5), mask=m)
    tl.store(i_out + offs, tl.add(i, j), mask=m)
    tl.store(i_out + tl.add(n, n) - n + offs, tl.sub(i, j, True), mask=m)
    tl.store(i_out + 2 * n + offs, tl.mul(i, j, sanitize_overflow=False), mask=m)


@triton.jit
def _lowest_of(dtype):
    # A dtype handed to a jit helper is a constexpr there: .value unwraps it.
    dt = dtype.value
    if dt.is_floating():
        v: tl.constexpr = float("-inf")
        return v
    else:
        w: tl.constexpr = dt.int_bitwidth
        v: tl.constexpr = -(2 ** (w - 1))
        return v


@triton.jit
def masked_max_of_negatives(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # The masked lanes hold the dtype's lowest value, so they never win.
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=_lowest_of(x_ptr.dtype.element_ty))
    tl.store(out_ptr, tl.max(x, 0))


@triton.jit
def standard_constexpr_helpers(out_ptr, BLOCK: tl.constexpr):
    # triton.language.standard's private constexpr helpers, which real
    # kernels import for their own bitonic sorts.
    n: tl.constexpr = tl.standard._log2(BLOCK)
    p: tl.constexpr = tl.standard._is_power_of_two(BLOCK)
    offs = tl.arange(0, 2)
    tl.store(out_ptr + offs, tl.where(offs == 0, n, 1 if p else 0))


@triton.jit
def span_sums(x_ptr, y_ptr, n, tiles_per_program, TILE: tl.constexpr):
    # A local annotated tl.constexpr that holds a runtime value: Triton
    # wraps it without checking and it behaves as the value (FlagGems).
    SPAN: tl.constexpr = TILE * tiles_per_program
    start = tl.program_id(0) * SPAN
    end = tl.minimum(start + SPAN, n)
    acc = tl.zeros([TILE], tl.float32)
    for s in range(start, end, TILE):
        offs = s + tl.arange(0, TILE)
        acc += tl.load(x_ptr + offs, mask=offs < end, other=0.0)
    tl.store(y_ptr + tl.program_id(0), tl.sum(acc, 0))


@tl.constexpr
def _unsigned_of_width(bits):
    # A host helper wrapped in tl.constexpr (FlagGems' sort): kernels call
    # it at compile time.
    bits = bits.value if isinstance(bits, tl.constexpr) else bits
    return tl.core.get_int_dtype(bits, False)


@triton.jit
def float_bits_high_halves(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    # The fp32 bits as an unsigned int: the shift is logical.
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    u = x.to(_unsigned_of_width(x.dtype.primitive_bitwidth), bitcast=True)
    tl.store(y_ptr + offs, (u >> 16).to(tl.int32), mask=m)


# Triton's own constexpr_function called in a kernel, under another name, and
# wrapped in triton.constexpr_function (TransformerEngine, for Triton >= 3.5).
_int_dtype = tl.core.get_int_dtype
_int_dtype_wrapped = triton.constexpr_function(tl.core.get_int_dtype)


@triton.jit
def float_bits_through_aliases(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    i = x.to(_int_dtype_wrapped(bitwidth=x.dtype.primitive_bitwidth, signed=True), bitcast=True)
    tl.store(y_ptr + offs, (i ^ 0x55).to(x.dtype, bitcast=True), mask=m)
    u = x.to(tl.core.get_int_dtype(x.dtype.primitive_bitwidth, False), bitcast=True)
    tl.store(z_ptr + offs, (u >> 28).to(_int_dtype(32, True)), mask=m)


class _Ops:
    # A class used as a namespace of jit functions, named bare in a kernel:
    # Triton 3.6 asks for TRITON_ALLOW_NON_CONSTEXPR_GLOBALS=1 there; Tessera
    # accepts it, as it accepts int globals.
    SHIFT = 7

    @staticmethod
    @triton.jit
    def double(x):
        return x * 2


@triton.jit
def double_through_a_class(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, _Ops.double(tl.load(x_ptr + offs, mask=m)) + _Ops.SHIFT, mask=m)


@triton.jit
def constexpr_python_methods(out_ptr, D: tl.constexpr, ACT: tl.constexpr):
    # Python's methods and attributes of constexpr values, run at compile
    # time as Triton does (aotriton: 2 ** (D.bit_length() - 1)).
    D0: tl.constexpr = 2 ** (D.bit_length() - 1)
    offs = tl.arange(0, D0)
    tl.store(out_ptr + offs, tl.full([D0], 1 if ACT.upper() == "GELU" else 2, tl.int32))
    tl.store(out_ptr + D0, D0 + ACT.count("e") * 100)


@triton.jit
def scalar_row_offsets(x_ptr, BLOCK: tl.constexpr):
    # s[:, None] of a 0-d tensor is a 1-element block (aotriton's composed
    # offsets), broadcast against a row.
    s = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    tl.store(x_ptr + s[:, None] * BLOCK + cols[None, :], (s * 1000 + cols)[None, :])


@triton.jit
def _triple(x):
    return x * 3


@triton.jit
def apply_by_name(x_ptr, y_ptr, n, FN: tl.constexpr, BLOCK: tl.constexpr):
    # A function passed as a constexpr (jax-triton's ACTIVATION): from C++ it
    # is the name of a @jit function of this module, or None.
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    if FN is not None:
        x = FN(x)
    tl.store(y_ptr + offs, x, mask=m)
