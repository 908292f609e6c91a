"""Elementary kernels: vector add, grid queries, creation ops, selection."""
import torch
import triton
import triton.language as tl


@triton.jit
def vector_add(x_ptr, y_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    start = pid * BLOCK
    offsets = start + tl.arange(0, BLOCK)
    in_bounds = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=in_bounds)
    y = tl.load(y_ptr + offsets, mask=in_bounds)
    tl.store(out_ptr + offsets, x + y, mask=in_bounds)


@triton.jit
def grid_coords(out_ptr):
    # One record of 6 int32 per program: its id and the grid size per axis.
    p0 = tl.program_id(0)
    p1 = tl.program_id(1)
    p2 = tl.program_id(2)
    n0 = tl.num_programs(0)
    n1 = tl.num_programs(1)
    n2 = tl.num_programs(2)
    linear = (p2 * n1 + p1) * n0 + p0
    rec = out_ptr + linear * 6
    tl.store(rec + 0, p0)
    tl.store(rec + 1, p1)
    tl.store(rec + 2, p2)
    tl.store(rec + 3, n0)
    tl.store(rec + 4, n1)
    tl.store(rec + 5, n2)


@triton.jit
def creation_ops(x_ptr, i_out, f_out, z_out, zl_out, r_out, n, FILL: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    filled = tl.full((BLOCK,), FILL, tl.int32)
    halves = tl.full([BLOCK], 0.5, dtype=tl.float32)
    zi = tl.zeros((BLOCK,), dtype=tl.int32)
    zl = tl.zeros_like(x)
    ramp = tl.arange(BLOCK, 2 * BLOCK)
    tl.store(i_out + offs, filled + zi + offs, mask=m)
    tl.store(f_out + offs, halves * x, mask=m)
    tl.store(z_out + offs, zi - 7, mask=m)
    tl.store(zl_out + offs, zl + 1.25, mask=m)
    tl.store(r_out + offs, ramp, mask=m)


@triton.jit
def select_ops(x_ptr, y_ptr, where_out, max_out, min_out, clamp_out, n, lo, hi, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    tl.store(where_out + offs, tl.where(x > y, x - y, y * 2.0), mask=m)
    tl.store(max_out + offs, tl.maximum(x, y), mask=m)
    tl.store(min_out + offs, tl.minimum(x, y), mask=m)
    tl.store(clamp_out + offs, tl.clamp(x, lo, hi), mask=m)


@triton.jit
def nan_minmax(x_ptr, y_ptr, max_none, min_none, max_all, min_all, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(max_none + offs, tl.maximum(x, y))
    tl.store(min_none + offs, tl.minimum(x, y, propagate_nan=tl.PropagateNan.NONE))
    tl.store(max_all + offs, tl.maximum(x, y, propagate_nan=tl.PropagateNan.ALL))
    tl.store(min_all + offs, tl.minimum(x, y, propagate_nan=tl.PropagateNan.ALL))


@triton.jit
def outer_affine(a_ptr, b_ptr, out_ptr, M, N, stride_om, scale,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # out[i, j] = a[i] * b[j] + scale, over a 2-D grid of tiles.
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    a = tl.load(a_ptr + rows, mask=rows < M, other=0.0)
    b = tl.load(b_ptr + cols, mask=cols < N, other=0.0)
    tile = a[:, None] * b[None, :] + scale
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :], tile, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = out.numel()
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)
    vector_add[grid](x, y, out, n, BLOCK=1024)
    return out


if __name__ == "__main__":
    torch.manual_seed(0)
    a = torch.rand(98432, device="cuda")
    b = torch.rand(98432, device="cuda")
    print(torch.max(torch.abs(add(a, b) - (a + b))))


@triton.jit
def scaled_copy(x_ptr, out_ptr, n, scale: tl.float32, BLOCK: tl.constexpr):
    """An annotated float parameter: an integer argument is converted."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * scale, mask=m)
