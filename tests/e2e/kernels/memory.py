"""Loads and stores: masks, other, strided 2-D tiles, block pointers, hints."""
import triton
import triton.language as tl


@triton.jit
def masked_copy_other(x_ptr, out_ptr, n, fill, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=fill)
    tl.store(out_ptr + offs, x)
    v = tl.load(x_ptr + offs, mask=offs < n, other=-1.5, volatile=True)
    tl.store(out_ptr + tl.num_programs(0) * BLOCK + offs, v)


@triton.jit
def strided_tile_copy(src_ptr, dst_ptr, M, N, stride_sm, stride_sn, stride_dm, stride_dn,
                      BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    src = src_ptr + rm[:, None] * stride_sm + rn[None, :] * stride_sn
    x = tl.load(src, mask=mask, other=0.0, cache_modifier=".cg", eviction_policy="evict_last")
    dst = dst_ptr + rm[:, None] * stride_dm + rn[None, :] * stride_dn
    tl.store(dst, x * 2.0 + 1.0, mask=mask, cache_modifier=".wt", eviction_policy="evict_first")


@triton.jit
def block_ptr_rows(x_ptr, out_ptr, sums_ptr, M, N, stride_m, stride_n,
                   BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    src = tl.make_block_ptr(base=x_ptr, shape=(M, N), strides=(stride_m, stride_n),
                            offsets=(pid * BM, 0), block_shape=(BM, BN), order=(1, 0))
    dst = tl.make_block_ptr(out_ptr, (M, N), (N, 1), (pid * BM, 0), (BM, BN), (1, 0))
    acc = tl.zeros((BM,), dtype=tl.float32)
    for _ in range(0, tl.cdiv(N, BN)):
        tile = tl.load(src, boundary_check=(0, 1), padding_option="zero")
        acc += tl.sum(tile, axis=1)
        tl.store(dst, tile * 3.0, boundary_check=(0, 1))
        src = tl.advance(src, (0, BN))
        dst = dst.advance([0, BN])
    rows = pid * BM + tl.arange(0, BM)
    tl.store(sums_ptr + rows, acc, mask=rows < M)


@triton.jit
def block_ptr_nan_padding(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    blk = tl.make_block_ptr(x_ptr, shape=(M, N), strides=(N, 1), offsets=(0, 0),
                            block_shape=(BM, BN), order=(1, 0))
    t = tl.load(blk, boundary_check=(0, 1), padding_option="nan", cache_modifier=".ca")
    r = tl.arange(0, BM)[:, None]
    c = tl.arange(0, BN)[None, :]
    tl.store(out_ptr + r * BN + c, t)


@triton.jit
def scalar_and_bool(s_ptr, flags_ptr, out_ptr, n, BLOCK: tl.constexpr):
    base = tl.load(s_ptr)  # scalar pointer -> scalar
    offs = tl.arange(0, BLOCK)
    m = offs < n
    f = tl.load(flags_ptr + offs, mask=m, other=0)  # bool
    tl.store(out_ptr + offs, tl.where(f, base + offs, -offs), mask=m)
    tl.store(s_ptr + 1, base * 2)


@triton.jit
def int64_offsets(x_ptr, out_ptr, start, n, BLOCK: tl.constexpr):
    offs = start + tl.arange(0, BLOCK).to(tl.int64)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(out_ptr + (offs - start), x, mask=m)


@triton.jit
def descriptor_tiles(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    # One BM x BN tile per program through tensor descriptors: loads past
    # the edges read zeros, stores past them are dropped.
    src = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    dst = tl.make_tensor_descriptor(out_ptr, [M, N], [N, 1], [BM, BN])
    m0 = tl.program_id(0) * BM
    n0 = tl.program_id(1) * BN
    tile = src.load([m0, n0])
    dst.store([m0, n0], tile * 2.0 + 1.0)


@triton.jit
def tile_at(desc, m0, n0):
    return desc.load([m0, n0])


@triton.jit
def descriptors_through_a_helper(x_ptr, y_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    # One helper called with two descriptors of the same type: each call must
    # read its own tensor (the helper's one specialization takes the
    # descriptors' base, shape and strides as parameters).
    dx = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [BM, BN])
    dy = tl.make_tensor_descriptor(y_ptr, [M, N], [N, 1], [BM, BN])
    dst = tl.make_tensor_descriptor(out_ptr, [M, N], [N, 1], [BM, BN])
    m0 = tl.program_id(0) * BM
    n0 = tl.program_id(1) * BN
    dst.store([m0, n0], tile_at(dx, m0, n0) + 2.0 * tile_at(dy, m0, n0))


@triton.jit
def descriptor_nan_padding(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    src = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [BM, BN], padding_option="nan")
    t = tl.load_tensor_descriptor(src, [0, 0])
    r = tl.arange(0, BM)[:, None]
    c = tl.arange(0, BN)[None, :]
    tl.store(out_ptr + r * BN + c, t)


@triton.jit
def descriptor_matmul(a_ptr, b_ptr, c_ptr, M, N, K,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # The descriptor form of a matmul (Triton's tutorials): row-major A, B
    # and C, one BLOCK_M x BLOCK_N tile of C per program.
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [K, 1], [BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, [K, N], [N, 1], [BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, [M, N], [N, 1], [BLOCK_M, BLOCK_N])
    m0 = tl.program_id(0) * BLOCK_M
    n0 = tl.program_id(1) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = a_desc.load([m0, k])
        b = b_desc.load([k, n0])
        acc = tl.dot(a, b, acc)
    c_desc.store([m0, n0], acc.to(c_desc.dtype))


@triton.jit
def block_ptr_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # The block-pointer form of a matmul (Triton's older tutorials): the
    # pointers to A and B are advanced along K every iteration.
    m0 = tl.program_id(0) * BLOCK_M
    n0 = tl.program_id(1) * BLOCK_N
    a_blk = tl.make_block_ptr(a_ptr, (M, K), (stride_am, 1), (m0, 0), (BLOCK_M, BLOCK_K), (1, 0))
    b_blk = tl.make_block_ptr(b_ptr, (K, N), (stride_bk, 1), (0, n0), (BLOCK_K, BLOCK_N), (1, 0))
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_blk, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(b_blk, boundary_check=(0, 1), padding_option="zero")
        acc += tl.dot(a, b)
        a_blk = tl.advance(a_blk, (0, BLOCK_K))
        b_blk = tl.advance(b_blk, (BLOCK_K, 0))
    c_blk = tl.make_block_ptr(c_ptr, (M, N), (stride_cm, 1), (m0, n0), (BLOCK_M, BLOCK_N), (1, 0))
    tl.store(c_blk, acc.to(c_ptr.dtype.element_ty), boundary_check=(0, 1))


@triton.jit
def host_descriptor_matmul(a_desc, b_desc, c_desc, K,
                           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # The descriptors come from the host (TensorDescriptor arguments).
    m0 = tl.program_id(0) * BLOCK_M
    n0 = tl.program_id(1) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        acc += tl.dot(a_desc.load([m0, k]), b_desc.load([k, n0]))
    c_desc.store([m0, n0], acc.to(c_desc.dtype))


@triton.jit
def host_descriptor_blocks(x_desc, out_ptr, BM: tl.constexpr, BN: tl.constexpr):
    # Every block of x into a dense grid of blocks (out rows cover whole
    # blocks, so the padding past x's edges shows).
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    tile = x_desc.load([pid_m * BM, pid_n * BN])
    out_cols = tl.cdiv(x_desc.shape[1], BN) * BN
    r = pid_m * BM + tl.arange(0, BM)[:, None]
    c = pid_n * BN + tl.arange(0, BN)[None, :]
    tl.store(out_ptr + r * out_cols + c, tile)


@triton.jit
def descriptor_3d(x_ptr, out_ptr, A, B, C, BA: tl.constexpr, BB: tl.constexpr, BC: tl.constexpr):
    # A 3-D descriptor (batch, rows, cols) and a 1-D one over the same memory.
    src = tl.make_tensor_descriptor(x_ptr, [A, B, C], [B * C, C, 1], [BA, BB, BC])
    dst = tl.make_tensor_descriptor(out_ptr, [A, B, C], [B * C, C, 1], [BA, BB, BC])
    a0 = tl.program_id(0) * BA
    b0 = tl.program_id(1) * BB
    c0 = tl.program_id(2) * BC
    dst.store([a0, b0, c0], src.load([a0, b0, c0]) - 0.5)


@triton.jit
def load_block(bp):
    return tl.load(bp, boundary_check=(0, 1), padding_option="zero")


@triton.jit
def block_ptr_helper_two_shapes(a_ptr, b_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    # One helper loads through block pointers of two block shapes ([BM, BN]
    # of A, [BN, BM] of B = A's shape transposed): two specializations, as
    # in Triton, where a block pointer's type has its block shape.
    a = tl.make_block_ptr(a_ptr, (M, N), (N, 1), (0, 0), (BM, BN), (1, 0))
    b = tl.make_block_ptr(b_ptr, (N, M), (M, 1), (0, 0), (BN, BM), (1, 0))
    o = tl.make_block_ptr(out_ptr, (M, N), (N, 1), (0, 0), (BM, BN), (1, 0))
    tl.store(o, load_block(a) + tl.trans(load_block(b)), boundary_check=(0, 1))
