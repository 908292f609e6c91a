"""Kernels run at every num_warps from 1 to 32 (WarpsTest.cpp): 2-D tiles
reduced along each axis, scans, argmax ties, a sort, a histogram and atomics,
so layouts with 1 to 32 warps (and tiles smaller than the block, where warps
hold copies) are exercised by every data-movement path."""
import triton
import triton.language as tl


@triton.jit
def tile_stats(x_ptr, row_sum, row_max, row_arg, col_sum, cums, n_rows, n_cols,
               BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    rows = tl.arange(0, BLOCK_R)
    cols = tl.arange(0, BLOCK_C)
    m = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    offs = rows[:, None] * n_cols + cols[None, :]
    x = tl.load(x_ptr + offs, mask=m, other=0)
    tl.store(row_sum + rows, tl.sum(x, axis=1), mask=rows < n_rows)
    low = tl.where(m, x, -2147483647)
    tl.store(row_max + rows, tl.max(low, axis=1), mask=rows < n_rows)
    tl.store(row_arg + rows, tl.argmax(low, axis=1), mask=rows < n_rows)
    tl.store(col_sum + cols, tl.sum(x, axis=0), mask=cols < n_cols)
    tl.store(cums + offs, tl.cumsum(x, axis=1), mask=m)


@triton.jit
def row_softmax(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
    z = x - tl.max(x, axis=0)
    num = tl.exp(z)
    tl.store(y_ptr + row * n_cols + cols, num / tl.sum(num, axis=0), mask=cols < n_cols)


@triton.jit
def sort_rows(x_ptr, y_ptr, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    offs = tl.arange(0, BLOCK_R)[:, None] * BLOCK_C + tl.arange(0, BLOCK_C)[None, :]
    tl.store(y_ptr + offs, tl.sort(tl.load(x_ptr + offs), dim=1))


@triton.jit
def histogram_and_atomics(x_ptr, hist_ptr, total_ptr, n, BINS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0)
    tl.atomic_add(hist_ptr + tl.arange(0, BINS), tl.histogram(x, BINS, mask=m))
    tl.atomic_add(total_ptr, tl.sum(tl.where(m, x, 0), axis=0))
