"""Python semantics real kernels rely on: descriptors live across a runtime
`if`, isinstance(x, tl.tensor_descriptor) in a helper, numbers bound to
locals used as scalar tensors, and None / ':' indexing of scalars."""
import triton
import triton.language as tl


@triton.jit
def descriptor_across_runtime_if(x_ptr, y_ptr, out_ptr, M, N, use_y, BM: tl.constexpr, BN: tl.constexpr):
    src = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [BM, BN])
    dst = tl.make_tensor_descriptor(out_ptr, [M, N], [N, 1], [BM, BN])
    m0 = tl.program_id(0) * BM
    n0 = tl.program_id(1) * BN
    if use_y != 0:
        src = tl.make_tensor_descriptor(y_ptr, [M, N], [N, 1], [BM, BN])
    if tl.program_id(0) % 2 == 0:
        tile = src.load([m0, n0]) * 2.0
    else:
        tile = src.load([m0, n0]) + 1.0
    dst.store([m0, n0], tile)


@triton.jit
def _load_tile(src, m0, n0, M, N, BM: tl.constexpr, BN: tl.constexpr):
    if isinstance(src, tl.tensor_descriptor):
        return src.load([m0, n0])
    else:
        rows = m0 + tl.arange(0, BM)
        cols = n0 + tl.arange(0, BN)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        return tl.load(src + rows[:, None] * N + cols[None, :], mask=mask, other=0.0)


@triton.jit
def pointer_or_descriptor(x_ptr, y_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    dy = tl.make_tensor_descriptor(y_ptr, [M, N], [N, 1], [BM, BN])
    dst = tl.make_tensor_descriptor(out_ptr, [M, N], [N, 1], [BM, BN])
    m0 = tl.program_id(0) * BM
    n0 = tl.program_id(1) * BN
    dst.store([m0, n0], _load_tile(x_ptr, m0, n0, M, N, BM, BN) - _load_tile(dy, m0, n0, M, N, BM, BN))


@triton.jit
def number_locals_as_tensors(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # Triton makes `t` an fp32 scalar tensor: .to() and [None] work on it.
    t = float("-inf")
    best = t.to(tl.float32)
    offs = tl.arange(0, BLOCK)
    for start in range(0, n, BLOCK):
        x = tl.load(x_ptr + start + offs, mask=start + offs < n, other=t)
        best = tl.maximum(best, tl.max(x, axis=0))
    pid = tl.program_id(0)
    row = pid[None]               # shape [1]
    b1 = best[None, :]            # a scalar indexed with None and ':': shape [1]
    tl.store(out_ptr + row, b1)
