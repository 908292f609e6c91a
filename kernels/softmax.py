"""Softmax over the last dimension, for Tessera's kernel library.

softmax_rows: one program per row, the row in registers (n_cols <= BLOCK).
softmax_persistent: as softmax_rows, but a fixed grid (a few programs per
multiprocessor) in which each program walks the rows pid, pid + programs, ...
softmax_wide: one program per row of any width, in BLOCK-wide chunks: a
first sweep keeps the running maximum and the running sum of exp(x - max)
(rescaled when the maximum grows), a second writes exp(x - max) / sum.
Any float dtype in and out; math in fp32.
"""
import triton
import triton.language as tl


@triton.jit
def softmax_rows(x_ptr, y_ptr, x_stride, y_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    inside = cols < n_cols
    x = tl.load(x_ptr + row * x_stride + cols, mask=inside, other=-float("inf")).to(tl.float32)
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * y_stride + cols, e / tl.sum(e, axis=0), mask=inside)


@triton.jit
def softmax_persistent(x_ptr, y_ptr, x_stride, y_stride, n_rows, n_cols, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    inside = cols < n_cols
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0)):
        x = tl.load(x_ptr + row * x_stride + cols, mask=inside, other=-float("inf")).to(tl.float32)
        e = tl.exp(x - tl.max(x, axis=0))
        tl.store(y_ptr + row * y_stride + cols, e / tl.sum(e, axis=0), mask=inside)


@triton.jit
def softmax_wide(x_ptr, y_ptr, x_stride, y_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    src = x_ptr + row * x_stride
    dst = y_ptr + row * y_stride
    cols = tl.arange(0, BLOCK)
    first = tl.load(src + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
    top = tl.max(first, axis=0)
    total = tl.sum(tl.exp(first - top), axis=0)
    for start in tl.range(BLOCK, n_cols, BLOCK):
        pos = start + cols
        part = tl.load(src + pos, mask=pos < n_cols, other=-float("inf")).to(tl.float32)
        grown = tl.maximum(top, tl.max(part, axis=0))
        total = total * tl.exp(top - grown) + tl.sum(tl.exp(part - grown), axis=0)
        top = grown
    inv = 1.0 / total
    for start in tl.range(0, n_cols, BLOCK):
        pos = start + cols
        inside = pos < n_cols
        part = tl.load(src + pos, mask=inside, other=-float("inf")).to(tl.float32)
        tl.store(dst + pos, tl.exp(part - top) * inv, mask=inside)
