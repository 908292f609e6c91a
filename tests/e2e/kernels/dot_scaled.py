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
