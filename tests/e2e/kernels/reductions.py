"""Reductions, scans, sorting."""
import triton
import triton.language as tl


@triton.jit
def row_reductions(x_ptr, sum_out, max_out, min_out, amax_out, amin_out, n_rows, n_cols, stride,
                   BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.arange(0, BLOCK_C)
    row_ok = rows < n_rows
    m = row_ok[:, None] & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=m, other=0.0)
    lo_pad = tl.where(m, x, -float("inf"))
    hi_pad = tl.where(m, x, float("inf"))
    tl.store(sum_out + rows, tl.sum(x, axis=1), mask=row_ok)
    tl.store(max_out + rows, tl.max(lo_pad, axis=1), mask=row_ok)
    tl.store(min_out + rows, hi_pad.min(1), mask=row_ok)
    tl.store(amax_out + rows, tl.argmax(lo_pad, axis=1), mask=row_ok)
    tl.store(amin_out + rows, tl.argmin(hi_pad, 1), mask=row_ok)


@triton.jit
def _wrapping_product(a, b):
    return a * b


@triton.jit
def _larger_magnitude(a, b):
    return tl.maximum(tl.abs(a), tl.abs(b))


@triton.jit
def int_reductions(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x8 = tl.load(x_ptr + offs, mask=m, other=0)  # int8
    tl.store(out_ptr + 0, tl.sum(x8))  # accumulates in int32
    x = x8.to(tl.int32)
    tl.store(out_ptr + 1, tl.xor_sum(x * 7919, axis=0))
    tl.store(out_ptr + 2, tl.max(tl.where(m, x, -1000), axis=0))
    tl.store(out_ptr + 3, tl.argmax(tl.where(m, x, -1000), axis=0))
    tl.store(out_ptr + 4, tl.argmin(tl.where(m, x, 1000), axis=0))
    tl.store(out_ptr + 5, tl.reduce(tl.where(m, x, 1), 0, _wrapping_product))
    tl.store(out_ptr + 6, tl.reduce(x, axis=0, combine_fn=_larger_magnitude))
    tl.store(out_ptr + 7, tl.min(tl.where(m, x, 1000), axis=0))


@triton.jit
def _argmax_combine(v1, i1, v2, i2):
    first = (v1 > v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(first, v1, v2), tl.where(first, i1, i2)


@triton.jit
def tuple_reduce(x_ptr, val_out, idx_out, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-1e30)
    idx = tl.broadcast_to(cols, [BLOCK])
    best, where_best = tl.reduce((x, idx), 0, _argmax_combine)
    tl.store(val_out + row, best)
    tl.store(idx_out + row, where_best)


@triton.jit
def _max_combine(a, b):
    return tl.maximum(a, b)


@triton.jit
def scans(x_ptr, f_ptr, csum_out, rsum_out, cprod_out, smax_out, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0)
    tl.store(csum_out + offs, tl.cumsum(x, axis=0), mask=m)
    tl.store(rsum_out + offs, tl.cumsum(x, 0, reverse=True), mask=m)
    f = tl.load(f_ptr + offs, mask=m, other=1.0)
    tl.store(cprod_out + offs, tl.cumprod(f, 0), mask=m)
    suffix_max = tl.associative_scan(tl.where(m, x, -1000000), 0, _max_combine, reverse=True)
    tl.store(smax_out + offs, suffix_max, mask=m)


@triton.jit
def row_scan(x_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)[:, None]
    c = tl.arange(0, C)[None, :]
    x = tl.load(x_ptr + r * C + c)
    tl.store(out_ptr + r * C + c, tl.associative_scan(x, 1, _max_combine))


@triton.jit
def sort_and_flip(x_ptr, asc_out, desc_out, flip_out, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    hi = tl.load(x_ptr + offs, mask=m, other=2147483647)
    tl.store(asc_out + offs, tl.sort(hi), mask=m)
    lo = tl.load(x_ptr + offs, mask=m, other=-2147483647)
    tl.store(desc_out + offs, tl.sort(lo, descending=True), mask=m)
    tl.store(flip_out + offs, tl.flip(lo, 0))


@triton.jit
def sort_rows(x_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)[:, None]
    c = tl.arange(0, C)[None, :]
    x = tl.load(x_ptr + r * C + c)
    tl.store(out_ptr + r * C + c, tl.sort(x, dim=1))


@triton.jit
def sort_unsigned(x_ptr, asc_out, desc_out, n, BLOCK: tl.constexpr):
    # uint32 keys above 2^31 sort after the small ones (unsigned order).
    offs = tl.arange(0, BLOCK)
    m = offs < n
    hi = tl.load(x_ptr + offs, mask=m, other=0xFFFFFFFF)
    tl.store(asc_out + offs, tl.sort(hi), mask=m)
    lo = tl.load(x_ptr + offs, mask=m, other=0)
    tl.store(desc_out + offs, tl.sort(lo, descending=True), mask=m)


@triton.jit
def histogram_uint8(x_ptr, hist_out, n, BLOCK: tl.constexpr):
    # Bytes 128-255 land in their bins (they are not negative).
    offs = tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(x_ptr + offs, mask=m, other=0)
    tl.store(hist_out + tl.arange(0, 256), tl.histogram(v, 256, mask=m))
