"""Softmax and cross-entropy over the last dimension, for Tessera's kernel library.

softmax_rows: one program per row, the row in registers (n_cols <= BLOCK).
softmax_persistent: as softmax_rows, but a fixed grid (a few programs per
multiprocessor) in which each program walks the rows pid, pid + programs, ...
softmax_wide: one program per row of any width, in BLOCK-wide chunks: a
first sweep keeps the running maximum and the running sum of exp(x - max)
(rescaled when the maximum grows), a second writes exp(x - max) / sum.
cross_entropy_fwd: loss[row] = logsumexp(row) - row[target[row]] (0 where
the target is ignore_index) for vocabularies of any width, with the same
online sweep; saves logsumexp per row (fp32). cross_entropy_bwd: dlogits =
(softmax(row) - onehot(target)) * dloss[row], BLOCK columns per program.
Any float dtype in and out (targets int32 or int64); math in fp32.
"""
import triton
import triton.language as tl


@triton.jit
def softmax_rows(x_ptr, y_ptr, x_stride, y_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)  # row * stride overflows i32 past 2^31 elements
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
        offs = row.to(tl.int64)
        x = tl.load(x_ptr + offs * x_stride + cols, mask=inside, other=-float("inf")).to(tl.float32)
        e = tl.exp(x - tl.max(x, axis=0))
        tl.store(y_ptr + offs * y_stride + cols, e / tl.sum(e, axis=0), mask=inside)


@triton.jit
def _online_max_and_sum(src, n_cols, BLOCK: tl.constexpr):
    """max(row) and sum(exp(row - max)) of a row of any width at `src`, in
    BLOCK-wide chunks: the running sum is rescaled when the maximum grows."""
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
    return top, total


@triton.jit
def softmax_wide(x_ptr, y_ptr, x_stride, y_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)  # row * stride overflows i32 past 2^31 elements
    src = x_ptr + row * x_stride
    dst = y_ptr + row * y_stride
    top, total = _online_max_and_sum(src, n_cols, BLOCK)
    inv = 1.0 / total
    cols = tl.arange(0, BLOCK)
    for start in tl.range(0, n_cols, BLOCK):
        pos = start + cols
        inside = pos < n_cols
        part = tl.load(src + pos, mask=inside, other=-float("inf")).to(tl.float32)
        tl.store(dst + pos, tl.exp(part - top) * inv, mask=inside)


@triton.jit
def cross_entropy_fwd(logits_ptr, target_ptr, loss_ptr, lse_ptr, stride, n_cols, ignore_index,
                      BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)  # row * stride overflows i32 past 2^31 elements
    src = logits_ptr + row * stride
    top, total = _online_max_and_sum(src, n_cols, BLOCK)
    lse = top + tl.log(total)
    target = tl.load(target_ptr + row).to(tl.int64)
    ignored = target == ignore_index
    picked = tl.load(src + tl.where(ignored, 0, target)).to(tl.float32)
    tl.store(loss_ptr + row, tl.where(ignored, 0.0, lse - picked))
    tl.store(lse_ptr + row, lse)


@triton.jit
def cross_entropy_bwd(dloss_ptr, logits_ptr, target_ptr, lse_ptr, dlogits_ptr, stride, n_cols, ignore_index,
                      BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)  # row * stride overflows i32 past 2^31 elements
    pos = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    inside = pos < n_cols
    x = tl.load(logits_ptr + row * stride + pos, mask=inside, other=0.0).to(tl.float32)
    target = tl.load(target_ptr + row).to(tl.int64)
    scale = tl.where(target == ignore_index, 0.0, tl.load(dloss_ptr + row))
    p = tl.exp(x - tl.load(lse_ptr + row))
    d = (p - tl.where(pos == target, 1.0, 0.0)) * scale
    tl.store(dlogits_ptr + row * stride + pos, d, mask=inside)
