"""Corner cases of Triton 3.6's typing and semantics (LANGUAGE_CHECKLIST.md
§1-§3): weak literals, mixed signedness, comparisons without weak typing,
maximum/minimum promotion, reductions' result dtypes, loads and stores that
cast, shape compositions, casts and control flow. Result dtypes are checked
with tl.static_assert (a wrong dtype fails the compile); values are stored
and compared with C++ expectations by SemanticsCornerCasesTest.cpp."""
import triton
import triton.language as tl


@triton.jit
def int_literals_and_signedness(i8_ptr, u8_ptr, u32_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(i8_ptr + offs)  # int8
    u = tl.load(u8_ptr + offs)  # uint8
    w = tl.load(u32_ptr + offs)  # uint32
    pos = a > 0
    # Weak literals adopt the tensor's type; literals of a higher kind do not.
    tl.static_assert((a + 1).dtype == tl.int8)
    tl.static_assert((u * 2).dtype == tl.uint8)
    tl.static_assert((pos + 1).dtype == tl.int32)
    tl.static_assert((pos + True).dtype == tl.int1)
    tl.static_assert((a + 1.5).dtype == tl.float32)
    tl.static_assert((offs + 1e300).dtype == tl.float64)
    # Mixed signedness: C's usual arithmetic conversions.
    i32 = a.to(tl.int32)
    tl.static_assert((i32 + w).dtype == tl.uint32)
    tl.static_assert((u + a.to(tl.int16)).dtype == tl.int16)
    tl.static_assert((w + a.to(tl.int64)).dtype == tl.int64)
    tl.static_assert((a + u).dtype == tl.uint8)
    tl.static_assert((a * w).dtype == tl.uint32)
    # Comparisons turn the literal into a tensor first (int32 here).
    tl.static_assert((a < 1000).dtype == tl.int1)
    tl.store(out_ptr + 0 * BLOCK + offs, (a + 1).to(tl.int32))
    tl.store(out_ptr + 1 * BLOCK + offs, (u * 2).to(tl.int32))
    tl.store(out_ptr + 2 * BLOCK + offs, (pos + True).to(tl.int32))
    tl.store(out_ptr + 3 * BLOCK + offs, (w > -1).to(tl.int32))
    tl.store(out_ptr + 4 * BLOCK + offs, (a < 1000).to(tl.int32))
    tl.store(out_ptr + 5 * BLOCK + offs, (-u).to(tl.int32))
    tl.store(out_ptr + 6 * BLOCK + offs, (~a).to(tl.int32))
    tl.store(out_ptr + 7 * BLOCK + offs, (a >> 1).to(tl.int32))
    tl.store(out_ptr + 8 * BLOCK + offs, (a.to(tl.uint8) >> 1).to(tl.int32))
    tl.store(out_ptr + 9 * BLOCK + offs, (a << 1).to(tl.int32))
    tl.store(out_ptr + 10 * BLOCK + offs, (i32 < w).to(tl.int32))
    tl.store(out_ptr + 11 * BLOCK + offs, (u + a.to(tl.int16)).to(tl.int32))
    tl.store(out_ptr + 12 * BLOCK + offs, (a + u).to(tl.int32))
    tl.store(out_ptr + 13 * BLOCK + offs, pos.to(tl.int32) + pos)
    tl.store(out_ptr + 14 * BLOCK + offs, (-a).to(tl.int32))
    tl.store(out_ptr + 15 * BLOCK + offs, (~pos).to(tl.int32))


@triton.jit
def division_and_remainder(x_ptr, y_ptr, q_ptr, r_ptr, f_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)  # int32, any sign
    y = tl.load(y_ptr + offs)  # int32, non-zero, any sign
    tl.store(q_ptr + 0 * BLOCK + offs, x // y)
    tl.store(q_ptr + 1 * BLOCK + offs, x // 4)
    tl.store(q_ptr + 2 * BLOCK + offs, -x // 4)
    tl.store(r_ptr + 0 * BLOCK + offs, x % y)
    tl.store(r_ptr + 1 * BLOCK + offs, x % -3)
    # Unsigned division of the same bits.
    ux = x.to(tl.uint32, bitcast=True)
    uy = y.to(tl.uint32, bitcast=True)
    tl.store(r_ptr + 2 * BLOCK + offs, (ux // uy).to(tl.int32, bitcast=True))
    tl.store(r_ptr + 3 * BLOCK + offs, (ux % uy).to(tl.int32, bitcast=True))
    # Float %: fmod, the sign follows the dividend.
    fx = x.to(tl.float32) * 0.25
    fy = y.to(tl.float32)
    tl.store(f_ptr + 0 * BLOCK + offs, fx % fy)
    # `/` of ints is an fp32 division.
    tl.static_assert((x / y).dtype == tl.float32)
    tl.store(f_ptr + 1 * BLOCK + offs, x / y)
    # int8 // int8 stays int8 (and -128 // -1 wraps).
    a = x.to(tl.int8)
    b = y.to(tl.int8)
    tl.static_assert((a // b).dtype == tl.int8)
    b = tl.where(b == 0, 1, b)
    tl.store(q_ptr + 3 * BLOCK + offs, (a // b).to(tl.int32))


@triton.jit
def float_promotion(h_ptr, bf_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    h = tl.load(h_ptr + offs)  # fp16
    bf = tl.load(bf_ptr + offs)  # bf16
    tl.static_assert((h + 1.5).dtype == tl.float16)
    tl.static_assert((h * 2).dtype == tl.float16)
    tl.static_assert((h / 2).dtype == tl.float32)
    tl.static_assert((h % 2).dtype == tl.float32)
    tl.static_assert((bf + 2).dtype == tl.bfloat16)
    tl.static_assert((bf + bf).dtype == tl.bfloat16)
    tl.static_assert((bf / bf).dtype == tl.float32)
    tl.static_assert((bf % 3.0).dtype == tl.float32)
    tl.static_assert((bf + h).dtype == tl.float16)
    tl.static_assert((bf + offs).dtype == tl.float32)
    tl.static_assert((h + offs).dtype == tl.float16)
    e5 = h.to(tl.float8e5)
    e4 = h.to(tl.float8e4nv)
    tl.static_assert((e5 + e4).dtype == tl.float16)
    tl.static_assert((e5 + e5).dtype == tl.float8e5)
    tl.static_assert((e5 * 2).dtype == tl.float8e5)
    tl.static_assert((h < 0.1).dtype == tl.int1)
    # fp16 + 0.1: the literal is rounded to fp16 first, the sum to fp16.
    tl.store(out_ptr + 0 * BLOCK + offs, (h + 0.1).to(tl.float32))
    # The comparison is done in fp32 against 0.1f (no weak typing).
    tl.store(out_ptr + 1 * BLOCK + offs, (h < 0.1).to(tl.float32))
    tl.store(out_ptr + 2 * BLOCK + offs, (bf + bf).to(tl.float32))
    tl.store(out_ptr + 3 * BLOCK + offs, (bf + h).to(tl.float32))
    tl.store(out_ptr + 4 * BLOCK + offs, h / 3)
    tl.store(out_ptr + 5 * BLOCK + offs, (h + offs).to(tl.float32))


@triton.jit
def maximum_minimum(x_ptr, y_ptr, i8_ptr, bf_ptr, out_ptr, iout_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)  # fp32, with NaNs
    y = tl.load(y_ptr + offs)  # fp32, with NaNs
    a = tl.load(i8_ptr + offs)  # int8
    bf = tl.load(bf_ptr + offs)  # bf16
    h = x.to(tl.float16)
    # maximum/minimum turn literals into tensors first: no weak typing.
    tl.static_assert(tl.maximum(a, 1).dtype == tl.int32)
    tl.static_assert(tl.minimum(a, a).dtype == tl.int8)
    tl.static_assert(tl.maximum(h, 0.0).dtype == tl.float32)
    tl.static_assert(tl.maximum(h, h).dtype == tl.float16)
    tl.static_assert(tl.maximum(bf, bf).dtype == tl.float32)
    tl.static_assert(tl.minimum(bf, 2).dtype == tl.float32)
    tl.store(out_ptr + 0 * BLOCK + offs, tl.maximum(x, y))
    tl.store(out_ptr + 1 * BLOCK + offs, tl.minimum(x, y))
    tl.store(out_ptr + 2 * BLOCK + offs, tl.maximum(x, y, propagate_nan=tl.PropagateNan.ALL))
    tl.store(out_ptr + 3 * BLOCK + offs, tl.minimum(x, y, propagate_nan=tl.PropagateNan.ALL))
    tl.store(out_ptr + 4 * BLOCK + offs, tl.maximum(bf, bf * 2))
    # clamp: literals are tensors too, and ints promote with float bounds.
    tl.static_assert(tl.clamp(h, 0.0, 1.0).dtype == tl.float32)
    tl.static_assert(tl.clamp(bf, bf, bf).dtype == tl.float32)
    tl.static_assert(tl.clamp(a, -10.5, 10.5).dtype == tl.float32)
    tl.store(out_ptr + 5 * BLOCK + offs, tl.clamp(a, -10.5, 10.5))
    tl.store(out_ptr + 6 * BLOCK + offs, tl.clamp(bf, -20, 20.0))
    tl.store(iout_ptr + 0 * BLOCK + offs, tl.maximum(a, 100))
    tl.store(iout_ptr + 1 * BLOCK + offs, tl.minimum(a.to(tl.uint8), a.to(tl.uint8) + 100).to(tl.int32))
    tl.store(iout_ptr + 2 * BLOCK + offs, tl.maximum(a, -a).to(tl.int32))


@triton.jit
def reduction_dtypes(i8_ptr, u8_ptr, h_ptr, bf_ptr, out_ptr, fout_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(i8_ptr + offs)
    u = tl.load(u8_ptr + offs)
    h = tl.load(h_ptr + offs)
    bf = tl.load(bf_ptr + offs)
    tl.static_assert(tl.sum(a, axis=0).dtype == tl.int32)
    tl.static_assert(tl.sum(u, axis=0).dtype == tl.uint32)
    tl.static_assert(tl.sum(a > 0, axis=0).dtype == tl.uint32)
    tl.static_assert(tl.sum(h, axis=0).dtype == tl.float16)
    tl.static_assert(tl.sum(bf, axis=0).dtype == tl.bfloat16)
    tl.static_assert(tl.sum(a, axis=0, dtype=tl.int8).dtype == tl.int8)
    tl.static_assert(tl.max(u, axis=0).dtype == tl.int32)
    tl.static_assert(tl.min(a, axis=0).dtype == tl.int32)
    tl.static_assert(tl.max(h, axis=0).dtype == tl.float32)
    tl.static_assert(tl.max(bf, axis=0).dtype == tl.float32)
    tl.static_assert(tl.cumsum(a, axis=0).dtype == tl.int32)
    tl.static_assert(tl.cumsum(u, axis=0).dtype == tl.uint32)
    tl.static_assert(tl.cumsum(bf, axis=0).dtype == tl.float32)
    tl.static_assert(tl.argmax(a, axis=0).dtype == tl.int32)
    tl.static_assert(a.sum(axis=0).dtype == tl.int32)
    tl.store(out_ptr + 0, tl.sum(a, axis=0))
    tl.store(out_ptr + 1, tl.sum(u, axis=0).to(tl.int32))
    tl.store(out_ptr + 2, tl.sum(a > 0, axis=0).to(tl.int32))
    tl.store(out_ptr + 3, tl.sum(a, axis=0, dtype=tl.int8).to(tl.int32))
    tl.store(out_ptr + 4, tl.max(u, axis=0))
    tl.store(out_ptr + 5, tl.min(a, axis=0))
    tl.store(out_ptr + 6, tl.argmax(a, axis=0))
    tl.store(out_ptr + 7, tl.argmin(a, axis=0))
    tl.store(out_ptr + 8, tl.argmax(u, axis=0, tie_break_left=True))
    tl.store(out_ptr + 9, a.sum(axis=0) + a.to(tl.int32).max(axis=0))
    tl.store(out_ptr + 10, tl.xor_sum(a.to(tl.int32), axis=0))
    tl.store(out_ptr + 16 + offs, tl.cumsum(a, axis=0))
    tl.store(out_ptr + 16 + BLOCK + offs, tl.cumsum(a, axis=0, reverse=True))
    tl.store(fout_ptr + 0, tl.max(h, axis=0))
    tl.store(fout_ptr + 1, tl.sum(h, axis=0).to(tl.float32))
    tl.store(fout_ptr + 2, tl.max(bf, axis=0))


@triton.jit
def loads_and_stores_cast(i8_ptr, f_ptr, b_ptr, out8_ptr, outu8_ptr, out32_ptr, outh_ptr, outb_ptr, n,
                          BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    # `other` is cast to the pointee type (fp32 -> int8 truncates toward zero,
    # the int32 literal 300 wraps to 44).
    a = tl.load(i8_ptr + offs, mask=m, other=-1.7)
    tl.static_assert(a.dtype == tl.int8)
    tl.store(out32_ptr + offs, a.to(tl.int32))
    c = tl.load(i8_ptr + offs, mask=m, other=300)
    tl.store(out32_ptr + BLOCK + offs, c.to(tl.int32))
    # Stores cast the value to the pointee type.
    f = tl.load(f_ptr + offs)  # fp32
    tl.store(out8_ptr + offs, f)  # int8 <- fp32: truncation toward zero
    tl.store(outu8_ptr + offs, offs - 3)  # uint8 <- int32: wraps
    tl.store(outh_ptr + offs, f)  # fp16 <- fp32: round to nearest even
    tl.store(out32_ptr + 2 * BLOCK + offs, 7)  # a scalar broadcast to the block
    # int1 pointers: loaded as int8 then != 0; stored as 0/1 bytes.
    b = tl.load(b_ptr + offs)
    tl.static_assert(b.dtype == tl.int1)
    tl.store(out32_ptr + 3 * BLOCK + offs, b.to(tl.int32))
    tl.store(outb_ptr + offs, f > 0)
    # ... through an int8 pointer: other values are cast to int8, not != 0.
    tl.store(outb_ptr + BLOCK + offs, offs + 250)
    tl.store(outb_ptr + 2 * BLOCK + offs, f * 0 + 0.5)
    d = tl.load(b_ptr + offs, mask=offs < 4, other=0.5)  # other -> int8 0
    tl.store(out32_ptr + 4 * BLOCK + offs, d.to(tl.int32))


@triton.jit
def where_broadcasting(x_ptr, out_ptr, fout_ptr, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)[:, None]
    c = tl.arange(0, C)[None, :]
    x = tl.load(x_ptr + r * C + c)  # int8 [R, C]
    # Scalar branches, block condition.
    w1 = tl.where(r > c, 1, 0)
    tl.static_assert(w1.dtype == tl.int32)
    tl.store(out_ptr + r * C + c, w1)
    # Weak literal on one side: the tensor's type wins.
    w2 = tl.where(c % 2 == 0, x, 100)
    tl.static_assert(w2.dtype == tl.int8)
    tl.store(out_ptr + R * C + r * C + c, w2.to(tl.int32))
    # Column condition, row tensor, scalar: all broadcast to [R, C].
    w3 = tl.where(c < 2, tl.arange(0, R)[:, None], -1)
    tl.store(out_ptr + 2 * R * C + r * C + c, w3)
    # Scalar condition with block branches.
    flag = tl.sum(tl.arange(0, 4), axis=0) == 6
    w4 = tl.where(flag, x, -x)
    tl.store(out_ptr + 3 * R * C + r * C + c, w4.to(tl.int32))
    # A float condition means != 0.
    w5 = tl.where((c - 1).to(tl.float32), 5, 6)
    tl.store(out_ptr + 4 * R * C + r * C + c, w5)
    # int and float branches promote to fp32.
    w6 = tl.where(r == 0, 1, 2.5)
    tl.static_assert(w6.dtype == tl.float32)
    tl.store(fout_ptr + r * C + c, w6)


@triton.jit
def shape_compositions(x_ptr, out_ptr, fout_ptr, M: tl.constexpr, N: tl.constexpr):
    i = tl.arange(0, M * N)
    x = tl.load(x_ptr + i)  # int32 [M*N]
    x2 = tl.reshape(x, (M, N))
    # trans(reshape) then reshape back: element [j, k] = x[k*N + j].
    t = tl.reshape(tl.trans(x2), (M * N,))
    tl.store(out_ptr + i, t)
    # permute of a 3-D reshape equals a double transpose.
    x3 = tl.reshape(x, (2, M // 2, N))
    p = tl.permute(x3, (2, 0, 1))  # [N, 2, M/2]
    tl.store(out_ptr + M * N + i, tl.reshape(p, (M * N,)))
    tl.store(out_ptr + 2 * M * N + i, tl.reshape(x2.T.T, (M * N,)))
    # arange with a non-zero start.
    ar = tl.arange(3, 3 + M)
    tl.store(out_ptr + 3 * M * N + tl.arange(0, M), ar)
    # full with a one-element tensor value, cast to the dtype.
    s = tl.sum(x, axis=0)
    f = tl.full((M,), s, tl.int8)
    tl.static_assert(f.dtype == tl.int8)
    tl.store(out_ptr + 3 * M * N + M + tl.arange(0, M), f.to(tl.int32))
    g = tl.full((2, 2), -3, tl.int32)
    tl.store(out_ptr + 3 * M * N + 2 * M + tl.arange(0, 4), tl.reshape(g, (4,)))
    # join and split of scalars.
    j = tl.join(s, s + 1)
    tl.static_assert(len(j.shape) == 1)
    tl.static_assert(j.shape[0] == 2)
    lo, hi = tl.split(j)
    tl.store(out_ptr + 3 * M * N + 2 * M + 4 + tl.arange(0, 2), j)
    tl.store(out_ptr + 3 * M * N + 2 * M + 6, hi - lo)
    # zeros_like keeps shape and dtype; reshape of 1 element to () is a scalar.
    z = tl.zeros_like(x2.to(tl.float16))
    tl.static_assert(z.dtype == tl.float16)
    tl.static_assert(z.shape[0] == M)
    one = tl.reshape(tl.full((1, 1), 9, tl.int32), ())
    tl.static_assert(len(one.shape) == 0)
    tl.store(out_ptr + 3 * M * N + 2 * M + 7, one + tl.sum(tl.sum(z, axis=1), axis=0).to(tl.int32))
    # A scalar expanded, broadcast and summed.
    e = tl.broadcast_to(tl.expand_dims(s, 0), (M,))
    tl.store(out_ptr + 3 * M * N + 2 * M + 8, tl.sum(e, axis=0))
    tl.store(fout_ptr + tl.arange(0, M), tl.arange(0, M).to(tl.float32).to(tl.bfloat16))


@triton.jit
def casts_corner(f_ptr, i_ptr, i64_ptr, out_i, out_u, out_f, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    f = tl.load(f_ptr + offs)  # fp32
    i = tl.load(i_ptr + offs)  # int32
    big = tl.load(i64_ptr + offs)  # int64
    tl.store(out_i + offs, f.to(tl.int32))  # toward zero
    tl.store(out_i + BLOCK + offs, f.to(tl.int1).to(tl.int32))
    tl.store(out_i + 2 * BLOCK + offs, (i > 0).to(tl.int8).to(tl.int32))  # int1 zero-extends
    tl.store(out_i + 3 * BLOCK + offs, i.to(tl.int8).to(tl.uint32).to(tl.int32, bitcast=True))
    tl.store(out_u + offs, tl.minimum(tl.abs(f), 255.0).to(tl.uint8).to(tl.int32))
    tl.store(out_f + offs, i.to(tl.float32))  # rounding of large ints
    tl.store(out_f + BLOCK + offs, i.to(tl.uint32, bitcast=True).to(tl.float32))
    tl.store(out_f + 2 * BLOCK + offs, big.to(tl.float32))
    tl.store(out_f + 3 * BLOCK + offs, (i > 0).to(tl.float32))
    tl.store(out_f + 4 * BLOCK + offs, f.to(tl.float16).to(tl.int32).to(tl.float32))
    tl.store(out_f + 5 * BLOCK + offs, f.to(tl.bfloat16, fp_downcast_rounding="rtz").to(tl.float32))


@triton.jit
def _pair_step(a, b, k):
    if k % 3 == 0:
        a, b = b, a + b
    else:
        a = a + k
    return a, b


@triton.jit
def _constexpr_facts(X: tl.constexpr):
    return X * 2


@triton.jit
def control_corner(out_ptr, f16_ptr, lo64, hi64, n, BLOCK: tl.constexpr):
    # tl.range / range with a negative constexpr step.
    acc = 0
    for i in tl.range(10, 0, -3):
        acc = acc * 100 + i
    tl.store(out_ptr + 0, acc)
    acc2 = 0
    for i in range(n, 0, -2):
        acc2 += i
    tl.store(out_ptr + 1, acc2)
    # Runtime loop with int64 bounds: the induction variable is int64.
    cnt = 0
    for j in range(lo64, hi64):
        tl.static_assert(j.dtype == tl.int64)
        cnt += (j - lo64).to(tl.int32)
    tl.store(out_ptr + 2, cnt)
    # Nested runtime if inside a loop with a loop-carried tuple.
    t = (0, 1)
    for k in range(n):
        a, b = t
        if k % 2 == 0:
            if k % 4 == 0:
                t = (a + k, b * 2)
            else:
                t = (a - 1, b)
        else:
            t = (a, b + k)
    tl.store(out_ptr + 3, t[0])
    tl.store(out_ptr + 4, t[1])
    # A jit function returning a tuple, called in a loop.
    p, q = 1, 1
    for k in range(n):
        p, q = _pair_step(p, q, k)
    tl.store(out_ptr + 5, p)
    tl.store(out_ptr + 6, q)
    # Constexpr arithmetic with huge ints is exact.
    BIG: tl.constexpr = 2**70
    H: tl.constexpr = BIG * BIG // (BIG - 1)
    tl.static_assert(H == BIG + 1)
    tl.store(out_ptr + 7, (2**100 + 7) % 1000)
    tl.store(out_ptr + 8, (BIG * BIG) >> 130)
    # static_range over a tuple, min/max builtins, triton.cdiv.
    vals = (3, 5, 7, 11)
    s = 0
    for idx in tl.static_range(len(vals)):
        s += vals[idx] * (idx + 1)
    tl.store(out_ptr + 9, s)
    tl.store(out_ptr + 10, min(BLOCK, 8) * 100 + max(3, BLOCK // 4))
    tl.store(out_ptr + 11, triton.cdiv(BLOCK + 1, 4) + tl.cdiv(BLOCK, 3))
    tl.store(out_ptr + 12, _constexpr_facts(BLOCK))
    # dtype-based static logic and element_ty.
    h = tl.load(f16_ptr + tl.arange(0, BLOCK))
    if h.dtype == tl.float16:
        code = 16
    else:
        code = 32
    if f16_ptr.dtype.element_ty == tl.float16:
        code += 1000
    tl.static_assert(out_ptr.dtype.element_ty == tl.int32)
    tl.store(out_ptr + 13, code)
    # while with a runtime condition and a carried pair.
    x = 1
    steps = 0
    while x < n * 10:
        x = x * 3
        steps += 1
    tl.store(out_ptr + 14, steps * 1000 + x)


@triton.jit
def grid_3d(out_ptr):
    x = tl.program_id(0)
    y = tl.program_id(1)
    z = tl.program_id(2)
    nx = tl.num_programs(0)
    ny = tl.num_programs(1)
    nz = tl.num_programs(2)
    lin = (z * ny + y) * nx + x
    tl.store(out_ptr + lin, x * 10000 + y * 100 + z + nx * nx * 0 + (nx * ny * nz - 24) * 7)


@triton.jit
def _sign_code(n):
    if n > 3:
        return 1
    return -1


@triton.jit
def assigned_numbers_merge(out_ptr, n):
    # Numbers assigned to variables are int32/fp32 tensors in Triton, so
    # differing numbers merge at a runtime if, also inside tuples, and
    # tuples of numbers are loop-carried.
    if n > 3:
        x = 1
    else:
        x = 2
    tl.store(out_ptr + 0, x)
    y = 0
    if n > 0:
        y = n * 3
    tl.store(out_ptr + 1, y)
    if n % 2 == 1:
        t = (10, n, 0.5)
    else:
        t = (20, n, 1.5)
    tl.store(out_ptr + 2, t[0] + t[1] + (t[2] * 2).to(tl.int32))
    flag = False
    if n > 4:
        flag = True
    tl.store(out_ptr + 3, flag.to(tl.int32))
    u = (0, 1)
    for k in range(n):
        a, b = u
        u = (a + k, b)
    tl.store(out_ptr + 4, u[0] * 100 + u[1])
    v = (0, 1)
    while v[0] < n:
        v = (v[0] + 1, v[1] * 2)
    tl.store(out_ptr + 5, v[1])
    w = (0, 1, 2.0)
    for k in range(n):
        w = (w[0] + k, w[1] * 3, w[2] * 0.5)
    tl.store(out_ptr + 6, w[0] * 1000 + w[1])
    tl.store(out_ptr + 7, (w[2] * 1024).to(tl.int32))
    # Returned numbers are tensors too: early returns of 1 / -1 merge.
    tl.store(out_ptr + 8, _sign_code(n))
