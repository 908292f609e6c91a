"""Losses of Tessera's kernel library: cross-entropy over the classes of each row.

loss[row] = logsumexp(logits[row]) - logits[row, target[row]] (0 for rows
whose target is ignore_index), for vocabularies of any width: the row is
read in BLOCK-wide chunks with a running maximum and sum, as in
softmax_wide. The forward saves logsumexp per row (fp32); the backward
writes dlogits = (softmax(logits) - onehot(target)) * dloss[row], BLOCK
columns per program. Logits of any float dtype; targets int32 or int64.
"""
import triton
import triton.language as tl


@triton.jit
def cross_entropy_fwd(logits_ptr, target_ptr, loss_ptr, lse_ptr, stride, n_cols, ignore_index,
                      BLOCK: tl.constexpr):
    row = tl.program_id(0)
    src = logits_ptr + row * stride
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
    lse = top + tl.log(total)
    target = tl.load(target_ptr + row).to(tl.int64)
    ignored = target == ignore_index
    picked = tl.load(src + tl.where(ignored, 0, target)).to(tl.float32)
    tl.store(loss_ptr + row, tl.where(ignored, 0.0, lse - picked))
    tl.store(lse_ptr + row, lse)


@triton.jit
def cross_entropy_bwd(dloss_ptr, logits_ptr, target_ptr, lse_ptr, dlogits_ptr, stride, n_cols, ignore_index,
                      BLOCK: tl.constexpr):
    row = tl.program_id(0)
    pos = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    inside = pos < n_cols
    x = tl.load(logits_ptr + row * stride + pos, mask=inside, other=0.0).to(tl.float32)
    target = tl.load(target_ptr + row).to(tl.int64)
    scale = tl.where(target == ignore_index, 0.0, tl.load(dloss_ptr + row))
    p = tl.exp(x - tl.load(lse_ptr + row))
    d = (p - tl.where(pos == target, 1.0, 0.0)) * scale
    tl.store(dlogits_ptr + row * stride + pos, d, mask=inside)
