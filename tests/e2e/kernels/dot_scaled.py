# tl.dot_scaled (issue #27): microscaling operands (e2m1 packed two per
# uint8, e4m3, e5m2, bf16, fp16) with e8m0 scales per group of K, 2-D and
# batched 3-D, loaded whole and multiplied in one program.
import triton
import triton.language as tl


@triton.jit
def _tile(ptr, R: tl.constexpr, C: tl.constexpr):
    return tl.load(ptr + tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :])


@triton.jit
def dot_scaled_2d(a_ptr, as_ptr, b_ptr, bs_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                  AF: tl.constexpr, BF: tl.constexpr, AR: tl.constexpr, AC: tl.constexpr, BR: tl.constexpr,
                  BC: tl.constexpr, G: tl.constexpr, A_SCALED: tl.constexpr, B_SCALED: tl.constexpr,
                  A_KPACK: tl.constexpr, B_KPACK: tl.constexpr, FAST: tl.constexpr, WITH_ACC: tl.constexpr):
    a = _tile(a_ptr, AR, AC)
    b = _tile(b_ptr, BR, BC)
    a_scale = _tile(as_ptr, M, K // G) if A_SCALED else None
    b_scale = _tile(bs_ptr, N, K // G) if B_SCALED else None
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    if WITH_ACC:
        acc = tl.load(c_ptr + offs)
        c = tl.dot_scaled(a, a_scale, AF, b, b_scale, BF, acc, fast_math=FAST, lhs_k_pack=A_KPACK,
                          rhs_k_pack=B_KPACK)
    else:
        c = tl.dot_scaled(a, a_scale, AF, b, b_scale, BF, fast_math=FAST, lhs_k_pack=A_KPACK, rhs_k_pack=B_KPACK)
    tl.store(c_ptr + offs, c)


@triton.jit
def _tile3(ptr, B: tl.constexpr, R: tl.constexpr, C: tl.constexpr):
    i = tl.arange(0, B)[:, None, None] * (R * C) + tl.arange(0, R)[None, :, None] * C + tl.arange(0, C)[None, None, :]
    return tl.load(ptr + i)


@triton.jit
def dot_scaled_3d(a_ptr, as_ptr, b_ptr, bs_ptr, c_ptr, BATCH: tl.constexpr, M: tl.constexpr, N: tl.constexpr,
                  K: tl.constexpr, G: tl.constexpr):
    # e4m3 (as float8e4nv) times e2m1, both scaled, per batch.
    a = _tile3(a_ptr, BATCH, M, K)
    b = _tile3(b_ptr, BATCH, K // 2, N)
    c = tl.dot_scaled(a, _tile3(as_ptr, BATCH, M, K // G), "e4m3", b, _tile3(bs_ptr, BATCH, N, K // G), "e2m1")
    tl.store(c_ptr + tl.arange(0, BATCH)[:, None, None] * (M * N) + tl.arange(0, M)[None, :, None] * N +
             tl.arange(0, N)[None, None, :], c)


@triton.jit
def dot_scaled_loop(a_ptr, as_ptr, b_ptr, bs_ptr, c_ptr, M, N, K, AF: tl.constexpr, BF: tl.constexpr,
                    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # A K loop of block-scaled dots over masked tiles (odd M, partial N
    # blocks), at a wgmma tile on sm_90a.
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    APACK: tl.constexpr = 2 if AF == "e2m1" else 1
    BPACK: tl.constexpr = 2 if BF == "e2m1" else 1
    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = pid_n * BN + tl.arange(0, BN)
    rm = offs_m[:, None] < M
    cn = offs_n[None, :] < N
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        ka = k // APACK + tl.arange(0, BK // APACK)
        kb = k // BPACK + tl.arange(0, BK // BPACK)
        ks = k // 32 + tl.arange(0, BK // 32)
        a = tl.load(a_ptr + offs_m[:, None] * (K // APACK) + ka[None, :], mask=rm, other=0)
        b = tl.load(b_ptr + kb[:, None] * N + offs_n[None, :], mask=cn, other=0)
        sa = tl.load(as_ptr + offs_m[:, None] * (K // 32) + ks[None, :], mask=rm, other=127)
        sb = tl.load(bs_ptr + offs_n[:, None] * (K // 32) + ks[None, :], mask=offs_n[:, None] < N, other=127)
        acc = tl.dot_scaled(a, sa, AF, b, sb, BF, acc)
    tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc, mask=rm & cn)
