"""Matrix multiplication C = A @ B on tensor cores, for the matmul benchmark
(bench/gpu/bench_matmul.cpp under Tessera, bench/gpu/bench_matmul.py under
Triton 3.6, the same source for both).

matmul_kernel: A is M x K, B is K x N, C is M x N, any strides. One program
per BLOCK_M x BLOCK_N tile of C (grid cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)),
marching along K in BLOCK_K steps with tl.dot into an fp32 accumulator; the
result is stored in C's dtype. Tiles are handed out in bands of GROUP_M tile
rows, walked column by column inside a band, so that programs running at
the same time reuse the same rows of A and columns of B from L2. Loads are
masked at the M and N edges and in the last, partial step along K (zeros
there add nothing to the sum), so any M, N, K works. fp16 or bf16 in; the
configs are H100 choices for those (128x256 tiles at the top).
Offsets are i32: enough for up to 2^31 elements per operand.

matmul_kernel_fp8: the same tile loop (matmul_tile) for fp8 e4m3/e5m2
operands, autotuned over configs with twice the K per step (BLOCK_K = 128:
128-byte rows, as the 16-bit configs' 64). On sm_90a wgmma reads fp8 tiles
K-major only, so B is best stored K-contiguous (strides (1, K)), as
Triton's matmul tutorial stores it for fp8.

matmul_kernel_fp8_persistent: the fp8 product on a persistent grid (at most
one program per SM) through tensor descriptors (A row-major, B
K-contiguous read as B^T), the K loop asking for a producer warpgroup
(tl.range(..., warp_specialize=True)): cuBLAS's structure for fp8 on the
H100/H200. Per-tensor scales as torch._scaled_mm takes them: C = a_scale *
b_scale * (A @ B), each scale a one-element fp32 tensor; FAST_ACCUM=True
accumulates in the tensor cores across K steps (_scaled_mm's use_fast_accum;
by default each step's sum goes through an fp32 add, as in matmul_kernel_fp8). Rows of A and B^T
must be 16-byte aligned (descriptors).

matmul_kernel_descriptor: the same product written with tensor descriptors
(tl.make_tensor_descriptor, desc.load / desc.store), the form of Triton's
newer tutorials; the last stride of each operand must be 1. On sm_90a the
tiles are copied by TMA (both compilers), so rows must be 16-byte aligned
for that; Tessera falls back to masked pointer tiles when it cannot prove it.
Triton needs triton.set_allocator for the descriptors' scratch.

matmul_kernel_block_ptr: the same product with block pointers
(tl.make_block_ptr, tl.advance), the form of Triton's older tutorials. On
sm_90a Tessera copies these tiles with TMA too (Triton 3.6 does not).

matmul_kernel_splitk: the same product for skinny shapes, autotuned over
small tiles and K split SPLIT_K ways (grid: tiles x SPLIT_K). Each program
sums its share of K and stores it in fp32 to `partial` ([SPLITK_MAX, M, N],
contiguous); the last of a tile's programs to finish (a per-tile counter in
`counts`, int32, zero before the first launch) adds the shares in split
order (the result does not depend on which finished last), stores C and
sets the counter back to zero for the next launch (the autotuner's timing
runs reuse the counters). Offsets are i32, as matmul_kernel's, and so is a
share's start times the K strides (the library checks both).

grouped_matmul_kernel: several products of different sizes in one launch
(tessera::kernels::grouped_matmul), each tile the same K loop as above
(product_tile), on a persistent grid that walks the products' tiles in
order.
"""
import triton
import triton.language as tl

# BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages (GROUP_M is 8 everywhere).
_TILES = [
    (128, 256, 64, 8, 3),
    (128, 128, 64, 4, 4),
    (128, 128, 32, 4, 4),
    (64, 128, 32, 4, 4),
    (128, 64, 32, 4, 4),
    (64, 64, 32, 4, 5),
    # Twice the programs of 128x128 where that tile leaves SMs idle (1024^3
    # is 64 tiles of 128x128 on 132 SMs; cuBLAS runs 128x64 there).
    (128, 64, 64, 4, 5),
    (64, 128, 64, 4, 5),
    # Skinny products (M = 64-128 against N = K = 4096): memory-bound, so
    # bytes in flight count; cuBLAS's tile there, 13 stages deep.
    (64, 64, 64, 4, 13),
]
_FP8_TILES = [
    (128, 256, 128, 8, 3),
    (256, 128, 128, 8, 3),
    (128, 128, 128, 4, 4),
    (64, 256, 128, 4, 4),
    (128, 64, 128, 4, 4),
    (64, 128, 64, 4, 4),
]
# matmul_kernel_fp8_persistent: one program per SM, a producer warpgroup.
# The asynchronous dot holds one stage more than num_stages, and the
# epilogue's layout change takes a tile of C of scratch: all within 227 KB.
# The 128 x 256 tiles suit FAST_ACCUM (with fp32 adds they need a second
# accumulator: ptxas spills), the 128 x 128 ones both.
_FP8_PERSISTENT_TILES = [
    (128, 256, 128, 8, 2),
    (128, 128, 128, 8, 4),
    (128, 256, 64, 8, 5),
    (128, 128, 64, 8, 6),
]
# Skinny products (few tiles of C, a long K: inference's M = 16-128 rows
# against N = K = 4096-8192): small BLOCK_M, and K split over SPLIT_K
# programs per tile so that the grid fills the machine.
# BLOCK_M, BLOCK_N, BLOCK_K, SPLIT_K, num_warps, num_stages.
_SPLITK_TILES = [
    (16, 64, 128, 4, 4, 4),  # first: the interpreter runs the first config
    (16, 64, 128, 1, 4, 4),
    (16, 128, 128, 4, 4, 4),
    (32, 64, 128, 4, 4, 4),
    (64, 64, 128, 2, 4, 4),
    (64, 128, 64, 4, 4, 4),
    (128, 128, 64, 2, 8, 3),
    (128, 128, 64, 4, 8, 3),
    (128, 64, 64, 4, 4, 4),
    (64, 256, 64, 4, 8, 3),
    # Deep pipelines on 64x64 tiles (memory-bound: bytes in flight matter
    # more than the split; cuBLAS runs 64x64x64 tiles 13 stages deep at
    # 128 x 4096 x 4096 and 64 x 8192 x 8192).
    (64, 64, 64, 1, 4, 13),
    (64, 64, 64, 2, 4, 8),
]
SPLITK_MAX = 4  # the most any config splits K (the partial sums' buffer)
_CONFIGS = [triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8}, num_warps=w, num_stages=s)
            for bm, bn, bk, w, s in _TILES]
_FP8_CONFIGS = [triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8}, num_warps=w, num_stages=s)
                for bm, bn, bk, w, s in _FP8_TILES]
_FP8_PERSISTENT_CONFIGS = [triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8}, num_warps=w,
                                          num_stages=s) for bm, bn, bk, w, s in _FP8_PERSISTENT_TILES]
_SPLITK_CONFIGS = [triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "SPLIT_K": sk, "GROUP_M": 8},
                                 num_warps=w, num_stages=st) for bm, bn, bk, sk, w, st in _SPLITK_TILES]


@triton.jit
def band_tile(index, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr):
    # Which tile of C is number `index`: the numbers fill a band of GROUP_M
    # tile rows one column of tiles at a time, then move on to the next
    # band (the last band may be shorter), so that tiles numbered close
    # together share rows of A and columns of B in L2.
    n_tiles_m = tl.cdiv(M, BLOCK_M)
    n_tiles_n = tl.cdiv(N, BLOCK_N)
    band_size = GROUP_M * n_tiles_n
    band_first_row = (index // band_size) * GROUP_M
    band_rows = tl.minimum(n_tiles_m - band_first_row, GROUP_M)
    in_band = index % band_size
    return band_first_row + in_band % band_rows, in_band // band_rows


@triton.jit
def grouped_tile(M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr):
    # This program's tile of C, in bands (band_tile).
    return band_tile(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)


@triton.jit
def product_tile(a_ptr, b_ptr, c_ptr, tile_m, tile_n, M, N, K,
                 stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # Tile (tile_m, tile_n) of C = A @ B, K in BLOCK_K steps.
    offs_m = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    row_ok = offs_m[:, None] < M
    col_ok = offs_n[None, :] < N
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in tl.range(0, K, BLOCK_K):
        k_left = K - k0  # < BLOCK_K only in the last step
        a = tl.load(a_ptrs, mask=row_ok & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & col_ok, other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=row_ok & col_ok)


@triton.jit
def matmul_tile(a_ptr, b_ptr, c_ptr, M, N, K,
                stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                GROUP_M: tl.constexpr):
    tile_m, tile_n = grouped_tile(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    product_tile(a_ptr, b_ptr, c_ptr, tile_m, tile_n, M, N, K,
                 stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn, BLOCK_M, BLOCK_N, BLOCK_K)


@triton.autotune(configs=_CONFIGS, key=["M", "N", "K"])
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  GROUP_M: tl.constexpr):
    matmul_tile(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M)


@triton.autotune(configs=_FP8_CONFIGS, key=["M", "N", "K"])
@triton.jit
def matmul_kernel_fp8(a_ptr, b_ptr, c_ptr, M, N, K,
                      stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                      GROUP_M: tl.constexpr):
    matmul_tile(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M)


@triton.autotune(configs=_FP8_PERSISTENT_CONFIGS, key=["M", "N", "K", "FAST_ACCUM"])
@triton.jit
def matmul_kernel_fp8_persistent(a_ptr, b_ptr, c_ptr, a_scale_ptr, b_scale_ptr, M, N, K,
                                 stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                                 GROUP_M: tl.constexpr, FAST_ACCUM: tl.constexpr = False):
    # Launched on at most one program per SM, each walking tiles `programs`
    # apart. A is read through a [M, K] descriptor, B (K-contiguous: wgmma
    # reads fp8 tiles K-major) through one of B^T, [N, K]; both made once,
    # before the tile loop. The K loop asks for a producer warpgroup, whose
    # ring of stages goes on from one tile to the next. C = a_scale * b_scale
    # * (A @ B): per-tensor scales (one fp32 each, as torch._scaled_mm's).
    # Each K step's products reach the accumulator through an fp32 add, as
    # matmul_kernel_fp8's and _scaled_mm's by default; FAST_ACCUM lets the
    # tensor cores accumulate across steps (_scaled_mm's use_fast_accum).
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [stride_am, stride_ak], [BLOCK_M, BLOCK_K])
    bt_desc = tl.make_tensor_descriptor(b_ptr, [N, K], [stride_bn, stride_bk], [BLOCK_N, BLOCK_K])
    c_desc = tl.make_tensor_descriptor(c_ptr, [M, N], [stride_cm, stride_cn], [BLOCK_M, BLOCK_N])
    scale = tl.load(a_scale_ptr) * tl.load(b_scale_ptr)
    tiles = tl.cdiv(M, BLOCK_M) * tl.cdiv(N, BLOCK_N)
    for tile in range(tl.program_id(0), tiles, tl.num_programs(0)):
        tile_m, tile_n = band_tile(tile, M, N, BLOCK_M, BLOCK_N, GROUP_M)
        m0 = tile_m * BLOCK_M
        n0 = tile_n * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k0 in tl.range(0, K, BLOCK_K, warp_specialize=True):
            if FAST_ACCUM:
                acc = tl.dot(a_desc.load([m0, k0]), bt_desc.load([n0, k0]).T, acc)
            else:
                acc += tl.dot(a_desc.load([m0, k0]), bt_desc.load([n0, k0]).T)
        c_desc.store([m0, n0], (acc * scale).to(c_desc.dtype))


@triton.autotune(configs=_SPLITK_CONFIGS, key=["M", "N", "K"])
@triton.jit
def matmul_kernel_splitk(a_ptr, b_ptr, c_ptr, partial, counts, M, N, K,
                         stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                         SPLIT_K: tl.constexpr, GROUP_M: tl.constexpr):
    tile_m, tile_n = grouped_tile(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    if SPLIT_K == 1:
        product_tile(a_ptr, b_ptr, c_ptr, tile_m, tile_n, M, N, K,
                     stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn, BLOCK_M, BLOCK_N, BLOCK_K)
    else:
        # This program's share of K: whole BLOCK_K steps, the last share shorter.
        split = tl.program_id(1)
        per_split = tl.cdiv(tl.cdiv(K, SPLIT_K), BLOCK_K) * BLOCK_K
        k_lo = split * per_split
        k_hi = tl.minimum(K, k_lo + per_split)
        offs_m = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_k = tl.arange(0, BLOCK_K)
        row_ok = offs_m[:, None] < M
        col_ok = offs_n[None, :] < N
        a_ptrs = a_ptr + offs_m[:, None] * stride_am + (k_lo + offs_k[None, :]) * stride_ak
        b_ptrs = b_ptr + (k_lo + offs_k[:, None]) * stride_bk + offs_n[None, :] * stride_bn
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k0 in tl.range(k_lo, k_hi, BLOCK_K):
            k_left = K - k0  # shares are whole steps: only K's last step is partial
            a = tl.load(a_ptrs, mask=row_ok & (offs_k[None, :] < k_left), other=0.0)
            b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & col_ok, other=0.0)
            acc += tl.dot(a, b)
            a_ptrs += BLOCK_K * stride_ak
            b_ptrs += BLOCK_K * stride_bk
        mn = offs_m[:, None] * N + offs_n[None, :]
        ok = row_ok & col_ok
        tl.store(partial + split * M * N + mn, acc, mask=ok)
        # Every thread's share is stored before one thread counts it
        # (release); the count's acquire orders the reads after it.
        tl.debug_barrier()
        tile = tl.program_id(0)
        if tl.atomic_add(counts + tile, 1, sem="acq_rel") == SPLIT_K - 1:
            total = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
            for s in range(SPLIT_K):  # a loop, not unrolled: one share in registers at a time
                total += tl.load(partial + s * M * N + mn, mask=ok, other=0.0, cache_modifier=".cg")
            c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
            tl.store(c_ptrs, total.to(c_ptr.dtype.element_ty), mask=ok)
            tl.atomic_xchg(counts + tile, 0)


@triton.autotune(configs=_CONFIGS, key=["M", "N", "K"])
@triton.jit
def matmul_kernel_descriptor(a_ptr, b_ptr, c_ptr, M, N, K,
                             stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                             GROUP_M: tl.constexpr):
    # The tensor-descriptor form (Triton's newer tutorials): the blocks are
    # loaded through descriptors, which bound-check every dim themselves.
    tile_m, tile_n = grouped_tile(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [stride_am, stride_ak], [BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, [K, N], [stride_bk, stride_bn], [BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, [M, N], [stride_cm, stride_cn], [BLOCK_M, BLOCK_N])
    m0 = tile_m * BLOCK_M
    n0 = tile_n * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in tl.range(0, K, BLOCK_K):
        acc += tl.dot(a_desc.load([m0, k0]), b_desc.load([k0, n0]))
    c_desc.store([m0, n0], acc.to(c_desc.dtype))


@triton.autotune(configs=_CONFIGS, key=["M", "N", "K"])
@triton.jit
def matmul_kernel_block_ptr(a_ptr, b_ptr, c_ptr, M, N, K,
                            stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                            GROUP_M: tl.constexpr):
    # The block-pointer form (Triton's older tutorials): block pointers
    # advanced along K, bounds-checked at the edges.
    tile_m, tile_n = grouped_tile(M, N, BLOCK_M, BLOCK_N, GROUP_M)
    a_blk = tl.make_block_ptr(a_ptr, (M, K), (stride_am, stride_ak), (tile_m * BLOCK_M, 0), (BLOCK_M, BLOCK_K), (1, 0))
    b_blk = tl.make_block_ptr(b_ptr, (K, N), (stride_bk, stride_bn), (0, tile_n * BLOCK_N), (BLOCK_K, BLOCK_N), (1, 0))
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in tl.range(0, K, BLOCK_K):
        a = tl.load(a_blk, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(b_blk, boundary_check=(0, 1), padding_option="zero")
        acc += tl.dot(a, b)
        a_blk = tl.advance(a_blk, (0, BLOCK_K))
        b_blk = tl.advance(b_blk, (BLOCK_K, 0))
    c_blk = tl.make_block_ptr(c_ptr, (M, N), (stride_cm, stride_cn), (tile_m * BLOCK_M, tile_n * BLOCK_N),
                              (BLOCK_M, BLOCK_N), (1, 0))
    tl.store(c_blk, acc.to(c_ptr.dtype.element_ty), boundary_check=(0, 1))


@triton.jit
def group_product(addresses, sizes, row_strides, g, DT: tl.constexpr, ALIGNED: tl.constexpr):
    # Product g of a group (grouped_matmul_kernel): its M, N, K, the A, B, C
    # pointers and their row strides. ALIGNED: every base address, row
    # stride, K and N is a multiple of 16 bytes, which the compiler cannot
    # see through values loaded from memory (without it the tiles are loaded
    # an element at a time and not pipelined, and no TMA copies them).
    M = tl.load(sizes + 3 * g)
    N = tl.load(sizes + 3 * g + 1)
    K = tl.load(sizes + 3 * g + 2)
    a_ptr = tl.load(addresses + 3 * g).to(tl.pointer_type(DT))
    b_ptr = tl.load(addresses + 3 * g + 1).to(tl.pointer_type(DT))
    c_ptr = tl.load(addresses + 3 * g + 2).to(tl.pointer_type(DT))
    lda = tl.load(row_strides + 3 * g)
    ldb = tl.load(row_strides + 3 * g + 1)
    ldc = tl.load(row_strides + 3 * g + 2)
    if ALIGNED:
        a_ptr = tl.multiple_of(a_ptr, 16)
        b_ptr = tl.multiple_of(b_ptr, 16)
        c_ptr = tl.multiple_of(c_ptr, 16)
        VEC: tl.constexpr = 128 // DT.primitive_bitwidth  # elements in 16 bytes
        lda = tl.multiple_of(lda, VEC)
        ldb = tl.multiple_of(ldb, VEC)
        ldc = tl.multiple_of(ldc, VEC)
        K = tl.multiple_of(K, VEC)
        N = tl.multiple_of(N, VEC)  # C's rows are N long: ldc = N
    return M, N, K, a_ptr, b_ptr, c_ptr, lda, ldb, ldc


@triton.jit
def first_tile(first, pid, programs):
    # A persistent program's first tile number at or after `first` (program
    # p takes tiles p, p + programs, ...).
    return first + (pid - first % programs + programs) % programs


@triton.jit
def grouped_matmul_kernel(addresses, sizes, row_strides, groups,
                          DT: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                          ALIGNED: tl.constexpr, GROUP_M: tl.constexpr = 8):
    # A group of products C_g = A_g @ B_g of different sizes in one launch:
    # addresses is int64 [groups, 3] (the A, B, C base addresses of each
    # product, elements of type DT), sizes int32 [groups, 3] (M, N, K),
    # row_strides int32 [groups, 3] (the rows of A, B, C; their columns
    # are contiguous). A persistent grid: the tiles of all products are
    # numbered one product after another, and program p takes tiles p,
    # p + num_programs, ... (each program walks the list of products once,
    # keeping the number of the product's first tile). Inside a product
    # the tiles are numbered in bands of GROUP_M tile rows (band_tile), so
    # that the tiles running at once share operands in L2.
    pid = tl.program_id(0)
    programs = tl.num_programs(0)
    first = 0
    for g in range(groups):
        M, N, K, a_ptr, b_ptr, c_ptr, lda, ldb, ldc = group_product(addresses, sizes, row_strides, g, DT, ALIGNED)
        count = tl.cdiv(M, BLOCK_M) * tl.cdiv(N, BLOCK_N)
        for t in range(first_tile(first, pid, programs), first + count, programs):
            tile_m, tile_n = band_tile(t - first, M, N, BLOCK_M, BLOCK_N, GROUP_M)
            product_tile(a_ptr, b_ptr, c_ptr, tile_m, tile_n, M, N, K,
                         lda, 1, ldb, 1, ldc, 1, BLOCK_M, BLOCK_N, BLOCK_K)
        first += count


@triton.jit
def grouped_matmul_kernel_descriptor(addresses, sizes, row_strides, groups,
                                     DT: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                                     BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr = 8):
    # The same group of products and persistent tile order as
    # grouped_matmul_kernel, each product's operands read through tensor
    # descriptors the program makes from the loaded addresses (on sm_90a
    # TMA copies; Triton needs triton.set_allocator for their scratch).
    # Every base address, row stride, K and N must be a multiple of 16 bytes.
    pid = tl.program_id(0)
    programs = tl.num_programs(0)
    first = 0
    for g in range(groups):
        M, N, K, a_ptr, b_ptr, c_ptr, lda, ldb, ldc = group_product(addresses, sizes, row_strides, g, DT, True)
        count = tl.cdiv(M, BLOCK_M) * tl.cdiv(N, BLOCK_N)
        if count > 0:
            a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [lda, 1], [BLOCK_M, BLOCK_K])
            b_desc = tl.make_tensor_descriptor(b_ptr, [K, N], [ldb, 1], [BLOCK_K, BLOCK_N])
            c_desc = tl.make_tensor_descriptor(c_ptr, [M, N], [ldc, 1], [BLOCK_M, BLOCK_N])
            for t in range(first_tile(first, pid, programs), first + count, programs):
                tile_m, tile_n = band_tile(t - first, M, N, BLOCK_M, BLOCK_N, GROUP_M)
                m0 = tile_m * BLOCK_M
                n0 = tile_n * BLOCK_N
                acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
                for k0 in tl.range(0, K, BLOCK_K):
                    acc += tl.dot(a_desc.load([m0, k0]), b_desc.load([k0, n0]))
                c_desc.store([m0, n0], acc.to(DT))
        first += count
