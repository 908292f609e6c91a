"""
Dropout
=======

Two flavours: one that reads a precomputed keep-mask, and the low-memory one
that regenerates its random numbers from a seed and the element offset, so the
backward pass needs no stored mask.  A third kernel takes one seed per row.
"""

import torch

import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def _dropout(
    x_ptr,  # input
    x_keep_ptr,  # boolean keep-mask, same shape as x
    output_ptr,
    n_elements,
    p,  # probability of zeroing an element
    BLOCK_SIZE: tl.constexpr,
):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    valid = offs < n_elements
    x = tl.load(x_ptr + offs, mask=valid)
    keep = tl.load(x_keep_ptr + offs, mask=valid)
    y = tl.where(keep, x / (1 - p), 0.0)
    tl.store(output_ptr + offs, y, mask=valid)


@triton.jit
def _seeded_dropout(
    x_ptr,
    output_ptr,
    n_elements,
    p,
    seed,
    BLOCK_SIZE: tl.constexpr,
):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    valid = offs < n_elements
    x = tl.load(x_ptr + offs, mask=valid)
    # The same (seed, offset) pair always gives the same number, so the mask
    # can be rebuilt instead of stored.
    u = tl.rand(seed, offs)
    keep = u > p
    tl.store(output_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=valid)


@triton.jit
def _row_seeded_dropout(
    x_ptr,
    output_ptr,
    seeds_ptr,  # one int32 seed per row
    row_stride,
    n_cols,
    p,
    BLOCK_SIZE: tl.constexpr,
):
    row = tl.program_id(0)
    seed = tl.load(seeds_ptr + row)
    cols = tl.arange(0, BLOCK_SIZE)
    valid = cols < n_cols
    x = tl.load(x_ptr + row * row_stride + cols, mask=valid, other=0.0)
    bits = tl.randint(seed, cols)
    # Compare in the integer domain: keep when bits >= p * 2**32.
    threshold = (p * 4294967296.0).to(tl.uint32)
    keep = bits >= threshold
    y = tl.where(keep, x * (1.0 / (1.0 - p)), 0.0)
    tl.store(output_ptr + row * row_stride + cols, y.to(x.dtype), mask=valid)


def dropout(x, x_keep, p):
    output = torch.empty_like(x)
    assert x.is_contiguous()
    n_elements = x.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta['BLOCK_SIZE']), )
    _dropout[grid](x, x_keep, output, n_elements, p, BLOCK_SIZE=1024)
    return output


def seeded_dropout(x, p, seed):
    output = torch.empty_like(x)
    assert x.is_contiguous()
    n_elements = x.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta['BLOCK_SIZE']), )
    _seeded_dropout[grid](x, output, n_elements, p, seed, BLOCK_SIZE=1024)
    return output


def row_seeded_dropout(x, p, seeds):
    rows, cols = x.shape
    out = torch.empty_like(x)
    _row_seeded_dropout[(rows, )](x, out, seeds, x.stride(0), cols, p,
                                  BLOCK_SIZE=triton.next_power_of_2(cols))
    return out


if __name__ == "__main__":
    x = torch.randn(size=(10, ), device=DEVICE)
    p = 0.5
    keep = (torch.rand(size=(10, ), device=DEVICE) > p).to(torch.int32)
    print(dropout(x, keep, p))
    print(seeded_dropout(x, p, seed=123))
