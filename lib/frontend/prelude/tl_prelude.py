# Tessera prelude: the parts of triton.language that Triton implements as
# @jit functions (tl.sum, tl.max, tl.softmax, tl.cdiv, the Philox PRNG, ...),
# written in the Triton language. The code generator resolves `tl.<name>` to
# these functions; names starting with '_' are private helpers.
import triton
import triton.language as tl

# ---------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------


@triton.jit
def cdiv(x, div):
    """Ceiling division for integers: (x + div - 1) // div."""
    return (x + div - 1) // div


@triton.jit
def add(x, y, sanitize_overflow: tl.constexpr = True):
    # The function forms of + - *. Triton's sanitize_overflow adds an
    # integer-overflow assert in debug mode; Tessera's integers wrap in
    # every mode (no such assert), so the flag changes nothing here.
    return x + y


@triton.jit
def sub(x, y, sanitize_overflow: tl.constexpr = True):
    return x - y


@triton.jit
def mul(x, y, sanitize_overflow: tl.constexpr = True):
    return x * y


@triton.jit
def zeros(shape, dtype):
    return tl.full(shape, 0, dtype)


@triton.jit
def zeros_like(input):
    return tl.full(input.shape, 0, input.dtype)


@triton.jit
def ravel(x, can_reorder=False):
    return tl.reshape(x, [x.numel], can_reorder=can_reorder)


@triton.jit
def unsqueeze(x, dim: tl.constexpr):
    # Triton 3.7: a length-1 dim inserted at `dim`, as expand_dims.
    return tl.expand_dims(x, dim)


@triton.jit
def squeeze(x, dim: tl.constexpr):
    # Triton 3.7: the length-1 dim `dim` removed (checked at compile time).
    d: tl.constexpr = dim if dim >= 0 else dim + len(x.shape)
    tl.static_assert(0 <= d < len(x.shape), "tl.squeeze: dim is out of range")
    tl.static_assert(x.shape[d] == 1, "tl.squeeze: the dimension must have length 1")
    return tl.reshape(x, [x.shape[i] for i in range(len(x.shape)) if i != d])


@triton.jit
def expect_zero(x, mask):
    # Triton 3.8: x is expected to be 0 where mask holds (say, a value that
    # underflowed). x is returned as it is; in debug mode that is checked.
    tl.device_assert((x == 0) | (mask == 0), "tl.expect_zero: a value expected to be zero is not zero")
    return x


@triton.jit
def interleave(a, b):
    c = tl.join(a, b)
    if len(c.shape) == 1:
        return c
    return tl.reshape(c, c.shape[:-2] + (2 * c.shape[-2],))


@triton.jit
def sigmoid(x):
    return 1 / (1 + tl.exp(-x))


@triton.jit
def swizzle2d(i, j, size_i, size_j, size_g):
    ij = i * size_j + j
    size_gj = size_g * size_j
    group_id = ij // size_gj
    off_i = group_id * size_g
    size_g = tl.minimum(size_i - off_i, size_g)
    ij = ij % size_gj
    new_i = off_i + ij % size_g
    new_j = ij // size_g
    return new_i, new_j


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------


@triton.jit
def _sum_combine(a, b):
    return a + b


@triton.jit
def _prod_combine(a, b):
    return a * b


@triton.jit
def _max_combine(a, b):
    return tl.maximum(a, b)


@triton.jit
def _min_combine(a, b):
    return tl.minimum(a, b)


@triton.jit
def _xor_combine(a, b):
    return a ^ b


@triton.jit
def _or_combine(a, b):
    return a | b


@triton.jit
def _argmax_combine_left(v1, i1, v2, i2):
    take_first = (v1 > v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(take_first, v1, v2), tl.where(take_first, i1, i2)


@triton.jit
def _argmax_combine_any(v1, i1, v2, i2):
    take_first = v1 > v2
    return tl.where(take_first, v1, v2), tl.where(take_first, i1, i2)


@triton.jit
def _argmin_combine_left(v1, i1, v2, i2):
    take_first = (v1 < v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(take_first, v1, v2), tl.where(take_first, i1, i2)


@triton.jit
def _argmin_combine_any(v1, i1, v2, i2):
    take_first = v1 < v2
    return tl.where(take_first, v1, v2), tl.where(take_first, i1, i2)


@triton.jit
def _promote_bf16(x):
    if x.dtype.is_bf16():
        return x.to(tl.float32)
    return x


@triton.jit
def _widen_small_sum(x):
    # Integer sums narrower than 32 bits accumulate in (u)int32.
    if x.dtype.is_int():
        if x.dtype.primitive_bitwidth < 32:
            if x.dtype.is_int_signed():
                return x.to(tl.int32)
            return x.to(tl.uint32)
    return x


@triton.jit
def _widen_small_minmax(x):
    # max/min upcast any type narrower than 32 bits.
    if x.dtype.primitive_bitwidth < 32:
        if x.dtype.is_floating():
            return x.to(tl.float32)
        return x.to(tl.int32)
    return x


@triton.jit
def sum(input, axis=None, keep_dims=False, dtype: tl.constexpr = None):
    if dtype is not None:
        input = input.to(dtype)
    else:
        input = _widen_small_sum(input)
    return tl.reduce(input, axis, _sum_combine, keep_dims=keep_dims)


@triton.jit
def _reduce_with_indices(input, axis, combine_fn, keep_dims):
    if axis is None:
        flat = tl.reshape(input, [input.numel])
        index = tl.arange(0, input.numel)
        values, indices = tl.reduce((flat, index), 0, combine_fn)
        if keep_dims:
            ones = ()
            for d in tl.static_range(len(input.shape)):
                ones = ones + (1,)
            values = tl.reshape(values, ones)
            indices = tl.reshape(indices, ones)
        return values, indices
    else:
        rank: tl.constexpr = len(input.shape)
        ax: tl.constexpr = axis % rank if axis < 0 else axis
        n: tl.constexpr = input.shape[ax]
        index = tl.arange(0, n)
        if rank > 1:
            shape = ()
            for d in tl.static_range(rank):
                if d == ax:
                    shape = shape + (n,)
                else:
                    shape = shape + (1,)
            index = tl.broadcast_to(tl.reshape(index, shape), input.shape)
        return tl.reduce((input, index), ax, combine_fn, keep_dims=keep_dims)


@triton.jit
def max(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False):
    input = _promote_bf16(input)
    if return_indices:
        if return_indices_tie_break_left:
            return _reduce_with_indices(input, axis, _argmax_combine_left, keep_dims)
        else:
            return _reduce_with_indices(input, axis, _argmax_combine_any, keep_dims)
    else:
        input = _widen_small_minmax(input)
        return tl.reduce(input, axis, _max_combine, keep_dims=keep_dims)


@triton.jit
def min(input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False):
    input = _promote_bf16(input)
    if return_indices:
        if return_indices_tie_break_left:
            return _reduce_with_indices(input, axis, _argmin_combine_left, keep_dims)
        else:
            return _reduce_with_indices(input, axis, _argmin_combine_any, keep_dims)
    else:
        input = _widen_small_minmax(input)
        return tl.reduce(input, axis, _min_combine, keep_dims=keep_dims)


@triton.jit
def argmax(input, axis, tie_break_left=True, keep_dims=False):
    _, indices = max(input, axis, return_indices=True, return_indices_tie_break_left=tie_break_left,
                     keep_dims=keep_dims)
    return indices


@triton.jit
def argmin(input, axis, tie_break_left=True, keep_dims=False):
    _, indices = min(input, axis, return_indices=True, return_indices_tie_break_left=tie_break_left,
                     keep_dims=keep_dims)
    return indices


@triton.jit
def xor_sum(input, axis=None, keep_dims=False):
    tl.static_assert(input.dtype.is_int(), "xor_sum is only supported for integers")
    return tl.reduce(input, axis, _xor_combine, keep_dims=keep_dims)


@triton.jit
def reduce_or(input, axis, keep_dims=False):
    tl.static_assert(input.dtype.is_int(), "reduce_or is only supported for integers")
    return tl.reduce(input, axis, _or_combine, keep_dims=keep_dims)


@triton.jit
def cumsum(input, axis=0, reverse=False, dtype: tl.constexpr = None):
    input = _promote_bf16(input)
    if dtype is not None:
        input = input.to(dtype)
    else:
        input = _widen_small_sum(input)
    return tl.associative_scan(input, axis, _sum_combine, reverse)


@triton.jit
def cumprod(input, axis=0, reverse=False):
    input = _promote_bf16(input)
    return tl.associative_scan(input, axis, _prod_combine, reverse)


@triton.jit
def softmax(x, dim=None, keep_dims=False, ieee_rounding=False):
    if dim is None:
        d: tl.constexpr = 0
    else:
        d: tl.constexpr = dim
    z = x - max(x, d, keep_dims=True)
    num = tl.exp(z)
    den = sum(num, d, keep_dims=True)
    return tl.fdiv(num, den, ieee_rounding)


# ---------------------------------------------------------------------------
# Philox 4x32-10 counter-based PRNG (same constants and rounds as Triton, so
# the same seed and offsets give the same bits).
# ---------------------------------------------------------------------------

N_ROUNDS_DEFAULT = tl.constexpr(10)


@triton.jit
def philox_impl(c0, c1, c2, c3, k0, k1, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    if c0.dtype == tl.uint32:
        KEY_A: tl.constexpr = 0x9E3779B9
        KEY_B: tl.constexpr = 0xBB67AE85
        ROUND_A: tl.constexpr = 0xD2511F53
        ROUND_B: tl.constexpr = 0xCD9E8D57
    else:
        tl.static_assert(c0.dtype == tl.uint64, "philox_impl: counters must be uint32 or uint64")
        KEY_A: tl.constexpr = 0x9E3779B97F4A7C15
        KEY_B: tl.constexpr = 0xBB67AE8584CAA73B
        ROUND_A: tl.constexpr = 0xD2E7470EE14C6C93
        ROUND_B: tl.constexpr = 0xCA5A826395121157
    for _ in tl.static_range(n_rounds):
        prev_c0 = c0
        prev_c2 = c2
        c0 = tl.umulhi(ROUND_B, prev_c2) ^ c1 ^ k0
        c2 = tl.umulhi(ROUND_A, prev_c0) ^ c3 ^ k1
        c1 = ROUND_B * prev_c2
        c3 = ROUND_A * prev_c0
        k0 = k0 + KEY_A
        k1 = k1 + KEY_B
    return c0, c1, c2, c3


@triton.jit
def philox(seed, c0, c1, c2, c3, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    seed = tl.to_tensor(seed)
    tl.static_assert(seed.dtype.is_int(), "philox: the seed must be an integer")
    seed = seed.to(tl.uint64)
    c0 = tl.to_tensor(c0)
    c1 = tl.to_tensor(c1)
    c2 = tl.to_tensor(c2)
    c3 = tl.to_tensor(c3)
    if c0.dtype.primitive_bitwidth == 32:
        counter_dtype: tl.constexpr = tl.uint32
        key_hi = ((seed >> 32) & 0xFFFFFFFF).to(tl.uint32)
        key_lo = (seed & 0xFFFFFFFF).to(tl.uint32)
    else:
        tl.static_assert(c0.dtype.primitive_bitwidth == 64, "philox: counters must be 32 or 64 bits wide")
        counter_dtype: tl.constexpr = tl.uint64
        key_hi = tl.full((1,), 0, dtype=tl.uint64)
        key_lo = seed
    c0 = c0.to(counter_dtype, bitcast=True)
    c1 = c1.to(counter_dtype, bitcast=True)
    c2 = c2.to(counter_dtype, bitcast=True)
    c3 = c3.to(counter_dtype, bitcast=True)
    return philox_impl(c0, c1, c2, c3, key_lo, key_hi, n_rounds)


@triton.jit
def randint4x(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    offset = tl.to_tensor(offset)
    offset_lo = offset.to(tl.uint32)
    zero = offset_lo * 0
    if offset.dtype.primitive_bitwidth > 32:
        offset_hi = (offset >> 32).to(tl.uint32)
        return philox(seed, offset_lo, offset_hi, zero, zero, n_rounds)
    else:
        return philox(seed, offset_lo, zero, zero, zero, n_rounds)


@triton.jit
def randint(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    r0, r1, r2, r3 = randint4x(seed, offset, n_rounds)
    return r0


@triton.jit
def uint_to_uniform_float(x):
    # Reinterpret as signed, fold negatives onto non-negatives, scale to [0, 1).
    if x.dtype == tl.uint32 or x.dtype == tl.int32:
        x = x.to(tl.int32, bitcast=True)
        scale = 4.6566127342e-10
    else:
        tl.static_assert(x.dtype == tl.uint64 or x.dtype == tl.int64, "uint_to_uniform_float: expected a 32- or 64-bit integer")
        x = x.to(tl.int64, bitcast=True)
        scale = 1.0842020432385337e-19
    x = tl.where(x < 0, -x - 1, x)
    return x * scale


@triton.jit
def rand(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    offset = tl.to_tensor(offset)
    source = randint(seed, offset, n_rounds)
    return uint_to_uniform_float(source)


@triton.jit
def rand4x(seed, offsets, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    offsets = tl.to_tensor(offsets)
    i1, i2, i3, i4 = randint4x(seed, offsets, n_rounds)
    u1 = uint_to_uniform_float(i1)
    u2 = uint_to_uniform_float(i2)
    u3 = uint_to_uniform_float(i3)
    u4 = uint_to_uniform_float(i4)
    return u1, u2, u3, u4


@triton.jit
def pair_uniform_to_normal(u1, u2):
    # Box-Muller transform.
    u1 = tl.maximum(1.0e-7, u1)
    th = 6.283185307179586 * u2
    r = tl.sqrt(-2.0 * tl.log(u1))
    return r * tl.cos(th), r * tl.sin(th)


@triton.jit
def randn(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    i1, i2, _, _ = randint4x(seed, offset, n_rounds)
    u1 = uint_to_uniform_float(i1)
    u2 = uint_to_uniform_float(i2)
    n1, _ = pair_uniform_to_normal(u1, u2)
    return n1


@triton.jit
def randn4x(seed, offset, n_rounds: tl.constexpr = N_ROUNDS_DEFAULT):
    u1, u2, u3, u4 = rand4x(seed, offset, n_rounds)
    n1, n2 = pair_uniform_to_normal(u1, u2)
    n3, n4 = pair_uniform_to_normal(u3, u4)
    return n1, n2, n3, n4


# ---------------------------------------------------------------------------
# Sorting networks (Triton 3.7-3.9): topk, bitonic_merge
# ---------------------------------------------------------------------------


@triton.jit
def _minor_dim(x, dim, what: tl.constexpr):
    # The dim these functions work along: only the last one, as in Triton.
    n_dims: tl.constexpr = len(x.shape)
    d: tl.constexpr = n_dims - 1 if dim is None else (dim if dim >= 0 else dim + n_dims)
    tl.static_assert(d == n_dims - 1, what + ": only the last dimension is supported")
    n: tl.constexpr = x.shape[d]
    tl.static_assert(n > 0 and (n & (n - 1)) == 0, what + ": the dimension's length must be a power of 2")
    return n


@triton.jit
def _compare_swap(x2, half: tl.constexpr, descending: tl.constexpr):
    # One layer of a sorting network over the rows of x2 [M, N]: element i of
    # each block of 2 * half is compared with element i + half and the pair
    # ordered (the larger first when descending). A comparison that is false
    # (NaN) leaves the pair as it is.
    M: tl.constexpr = x2.shape[0]
    N: tl.constexpr = x2.shape[1]
    y = tl.permute(tl.reshape(x2, (M, N // (2 * half), 2, half)), (0, 1, 3, 2))
    a, b = tl.split(y)
    if descending:
        swap = a < b
    else:
        swap = a > b
    lo = tl.where(swap, b, a)
    hi = tl.where(swap, a, b)
    return tl.reshape(tl.permute(tl.join(lo, hi), (0, 1, 3, 2)), (M, N))


@triton.jit
def bitonic_merge(x, dim: tl.constexpr = None, descending: tl.constexpr = 0):
    """Sorts rows that are bitonic (ascending then descending, or the
    reverse) along the last dim: log2(n) compare-and-swap layers of halving
    distance. Other rows come out reordered but not sorted, as in Triton."""
    n: tl.constexpr = _minor_dim(x, dim, "tl.bitonic_merge")
    x2 = tl.reshape(x, (x.numel // n, n))
    for i in tl.static_range(20):
        if (n >> (i + 1)) >= 1:
            x2 = _compare_swap(x2, n >> (i + 1), descending)
    return tl.reshape(x2, x.shape)


@triton.jit
def topk(x, k: tl.constexpr, dim: tl.constexpr = None, descending: tl.constexpr = True):
    """The k largest values along the last dim (the k smallest when not
    descending), sorted, as shape x.shape[:-1] + (k,). Values only."""
    n: tl.constexpr = _minor_dim(x, dim, "tl.topk")
    tl.static_assert(k > 0 and (k & (k - 1)) == 0 and k <= n,
                     "tl.topk: k must be a power of 2 between 1 and the dimension's length")
    s = tl.reshape(tl.sort(x, descending=descending), (x.numel // n, n))
    first = tl.broadcast_to(tl.arange(0, k)[None, :], (x.numel // n, k))
    return tl.reshape(tl.gather(s, first, 1), x.shape[:-1] + (k,))


# ---------------------------------------------------------------------------
# Atomic polling (Triton 3.9)
# ---------------------------------------------------------------------------


@triton.jit
def _all_true(ok):
    if len(ok.shape) == 0:
        return ok
    return tl.min(tl.ravel(ok.to(tl.int32)), axis=0) != 0


@triton.jit
def atomic_poll(pointer, expected_value, sem=None, scope=None, timeout_ns=None):
    """Waits until *pointer == expected_value (every element of a tensor of
    pointers) or, with timeout_ns, until that many nanoseconds of the GPU's
    timer have passed. The first load always happens. Returns, per element,
    whether the value was seen (int1); after a timeout nothing is acquired."""
    tl.static_assert(pointer.dtype.element_ty.is_int() and pointer.dtype.element_ty.primitive_bitwidth >= 16,
                     "tl.atomic_poll: the pointer must point to 16-, 32- or 64-bit integers")
    ok = tl.atomic_load(pointer, sem=sem, scope=scope) == expected_value
    if timeout_ns is None:
        while not _all_true(ok):
            ok = ok | (tl.atomic_load(pointer, mask=ok == 0, sem=sem, scope=scope) == expected_value)
    else:
        start = tl.extra.cuda.globaltimer()
        while (not _all_true(ok)) and tl.extra.cuda.globaltimer() - start < timeout_ns:
            ok = ok | (tl.atomic_load(pointer, mask=ok == 0, sem=sem, scope=scope) == expected_value)
    return ok


# ---------------------------------------------------------------------------
# Block-scaled dot (tl.dot_scaled): microscaling formats upcast, then tl.dot
# ---------------------------------------------------------------------------


@triton.jit
def _e2m1_decode(code, dtype: tl.constexpr):
    # One e2m1 code (0..15: sign, 2 exponent bits of bias 1, 1 mantissa bit)
    # as `dtype` (bf16 or fp16): 0, 0.5, 1, 1.5, 2, 3, 4, 6 and their
    # negatives, built as the 16-bit pattern (exact, and one integer per
    # value instead of float arithmetic).
    e = (code >> 1) & 3
    m = code & 1
    if dtype == tl.bfloat16:
        bits = tl.where(e == 0, m * 0x3F00, ((e + 126) << 7) | (m << 6))
    else:
        tl.static_assert(dtype == tl.float16, "e2m1 values are decoded to bf16 or fp16")
        bits = tl.where(e == 0, m * 0x3800, ((e + 14) << 10) | (m << 9))
    bits = bits | ((code & 8) << 12)
    return bits.to(tl.int16).to(dtype, bitcast=True)


@triton.jit
def _e2m1_unpack(packed, along_last: tl.constexpr, dtype: tl.constexpr):
    # Two e2m1 values per uint8, the first in the low nibble, along the last
    # dim or the one before it.
    tl.static_assert(packed.dtype == tl.uint8, "tl.dot_scaled: e2m1 operands are uint8 tensors (two values per byte)")
    p = packed.to(tl.int32)
    both = tl.join(_e2m1_decode(p & 15, dtype), _e2m1_decode(p >> 4, dtype))
    s = packed.shape
    if along_last:
        return tl.reshape(both, s[:-1] + (2 * s[len(s) - 1],))
    if len(s) == 2:
        return tl.reshape(tl.permute(both, (0, 2, 1)), (2 * s[0], s[1]))
    return tl.reshape(tl.permute(both, (0, 1, 3, 2)), (s[0], 2 * s[1], s[2]))


@triton.jit
def _mx_values(x, fmt: tl.constexpr, k_pack: tl.constexpr, is_lhs: tl.constexpr, dtype: tl.constexpr):
    # An operand in its format, as `dtype` (exact for every format but fp16
    # <-> bf16 between the two 16-bit ones).
    if fmt == "e2m1":
        return _e2m1_unpack(x, k_pack == is_lhs, dtype)
    tl.static_assert(k_pack, "tl.dot_scaled: only e2m1 operands may be packed along M or N (k_pack=False)")
    if fmt == "e4m3":
        if x.dtype == tl.uint8:
            x = x.to(tl.float8e4nv, bitcast=True)
        tl.static_assert(x.dtype == tl.float8e4nv, "tl.dot_scaled: e4m3 operands are float8e4nv or uint8 tensors")
    elif fmt == "e5m2":
        if x.dtype == tl.uint8:
            x = x.to(tl.float8e5, bitcast=True)
        tl.static_assert(x.dtype == tl.float8e5, "tl.dot_scaled: e5m2 operands are float8e5 or uint8 tensors")
    elif fmt == "bf16":
        if x.dtype == tl.uint16:
            x = x.to(tl.bfloat16, bitcast=True)
        tl.static_assert(x.dtype == tl.bfloat16, "tl.dot_scaled: bf16 operands are bfloat16 or uint16 tensors")
    else:
        tl.static_assert(fmt == "fp16", "tl.dot_scaled: formats are 'e2m1', 'e4m3', 'e5m2', 'bf16' and 'fp16'")
        if x.dtype == tl.uint16:
            x = x.to(tl.float16, bitcast=True)
        tl.static_assert(x.dtype == tl.float16, "tl.dot_scaled: fp16 operands are float16 or uint16 tensors")
    return x.to(dtype)


@triton.jit
def _mx_scaled(v, scale, is_lhs: tl.constexpr, fast_math: tl.constexpr, dtype: tl.constexpr):
    # v * 2^(scale - 127) per group of K, rounded to `dtype` as the product of
    # two `dtype` values (Triton's decomposition on GPUs without block-scaled
    # MMA). Scale 0 is 2^-127; 255 is NaN unless fast_math (then inf): the
    # factor itself, so that NaN * 0 is NaN as Triton's select gives.
    if scale is None:
        return v
    tl.static_assert(scale.dtype == tl.uint8, "tl.dot_scaled: scales are uint8 tensors (e8m0)")
    s = scale.to(tl.int32)
    f = tl.where(s == 0, 5.877471754111438e-39, (s << 23).to(tl.float32, bitcast=True))
    if not fast_math:
        f = tl.where(s == 255, float("nan"), f)  # every value of the group becomes NaN
    f = f.to(dtype)
    vs = v.shape
    ss = scale.shape
    rank: tl.constexpr = len(vs)
    K: tl.constexpr = vs[rank - 1] if is_lhs else vs[rank - 2]
    G: tl.constexpr = ss[rank - 1]
    tl.static_assert(G > 0 and K % G == 0 and (K // G == 16 or K // G == 32),
                     "tl.dot_scaled: a scale must cover a group of 16 or 32 values of K")
    if is_lhs:
        out = tl.reshape(tl.reshape(v, vs[:-1] + (G, K // G)) * tl.expand_dims(f, rank), vs)
    else:
        # The rhs scale is [N, K/g] (N-major): its groups run down the columns.
        if rank == 2:
            ft = tl.permute(f, (1, 0))
        else:
            ft = tl.permute(f, (0, 2, 1))
        out = tl.reshape(tl.reshape(v, vs[:-2] + (G, K // G, vs[rank - 1])) * tl.expand_dims(ft, rank - 1), vs)
    return out


@triton.jit
def dot_scaled(lhs, lhs_scale, lhs_format, rhs, rhs_scale, rhs_format, acc=None, fast_math=False, lhs_k_pack=True,
               rhs_k_pack=True, out_dtype=tl.float32):
    """lhs @ rhs with microscaling operands (OCP MX): each operand in its
    format (e2m1 packed two per uint8, e4m3, e5m2, bf16, fp16), each group of
    K values times 2^(e8m0 scale - 127), then a dot with fp32 accumulation,
    plus acc. As Triton does without block-scaled MMA (Hopper, Ampere): the
    operands are upcast to bf16 (fp16 when either format is fp16), scaled in
    that type, and multiplied by tl.dot. 2-D and batched 3-D."""
    tl.static_assert(out_dtype == tl.float32, "tl.dot_scaled: only out_dtype=tl.float32 is supported")
    tl.static_assert(len(lhs.shape) == len(rhs.shape) and (len(lhs.shape) == 2 or len(lhs.shape) == 3),
                     "tl.dot_scaled: the operands must both be 2-D or both 3-D")
    if lhs_format == "fp16" or rhs_format == "fp16":
        a = _mx_values(lhs, lhs_format, lhs_k_pack, True, tl.float16)
        b = _mx_values(rhs, rhs_format, rhs_k_pack, False, tl.float16)
        a = _mx_scaled(a, lhs_scale, True, fast_math, tl.float16)
        b = _mx_scaled(b, rhs_scale, False, fast_math, tl.float16)
    else:
        a = _mx_values(lhs, lhs_format, lhs_k_pack, True, tl.bfloat16)
        b = _mx_values(rhs, rhs_format, rhs_k_pack, False, tl.bfloat16)
        a = _mx_scaled(a, lhs_scale, True, fast_math, tl.bfloat16)
        b = _mx_scaled(b, rhs_scale, False, fast_math, tl.bfloat16)
    tl.static_assert(a.shape[len(a.shape) - 1] == b.shape[len(b.shape) - 2],
                     "tl.dot_scaled: the operands' K (after unpacking) must agree")
    return tl.dot(a, b, acc, out_dtype=tl.float32)


# ---------------------------------------------------------------------------
# Tensor descriptor methods beyond load/store (desc.atomic_*, gather,
# scatter): element pointers and bounds masks from the descriptor's base,
# shape and strides, then per-element memory ops (TMA's reduce, gather4 and
# scatter4 copies are not used yet; the results are the same).
# ---------------------------------------------------------------------------


@triton.jit
def _desc_block(desc, offsets):
    bs = desc.block_shape
    r: tl.constexpr = len(bs)
    tl.static_assert(len(offsets) == r, "tensor_descriptor: expected one offset per dim of the block")
    ptrs = desc.base
    mask = True
    for d in tl.static_range(r):
        idx = tl.reshape(offsets[d] + tl.arange(0, bs[d]), [bs[j] if j == d else 1 for j in range(r)])
        ptrs = ptrs + idx.to(tl.int64) * desc.strides[d]
        mask = mask & (idx >= 0) & (idx < desc.shape[d])
    return tl.broadcast_to(ptrs, bs), tl.broadcast_to(mask, bs)


@triton.jit
def _desc_atomic(desc, offsets, value, op: tl.constexpr):
    # Triton lowers these to TMA reductions, which order nothing: relaxed.
    ptrs, mask = _desc_block(desc, offsets)
    if op == "add":
        tl.atomic_add(ptrs, value, mask=mask, sem="relaxed")
    elif op == "min":
        tl.atomic_min(ptrs, value, mask=mask, sem="relaxed")
    elif op == "max":
        tl.atomic_max(ptrs, value, mask=mask, sem="relaxed")
    elif op == "and":
        tl.atomic_and(ptrs, value, mask=mask, sem="relaxed")
    elif op == "or":
        tl.atomic_or(ptrs, value, mask=mask, sem="relaxed")
    else:
        tl.atomic_xor(ptrs, value, mask=mask, sem="relaxed")


@triton.jit
def _desc_rows(desc, x_offsets, y_offset):
    # Rows x_offsets (a 1-D tensor) of a 2-D descriptor, block_shape[1]
    # columns from y_offset.
    bs = desc.block_shape
    tl.static_assert(len(bs) == 2 and bs[0] == 1, "tensor_descriptor.gather/scatter: the block shape must be [1, C]")
    tl.static_assert(len(x_offsets.shape) == 1, "tensor_descriptor.gather/scatter: x_offsets must be a 1-D tensor")
    rows = x_offsets[:, None]
    cols = y_offset + tl.arange(0, bs[1])[None, :]
    ptrs = desc.base + rows.to(tl.int64) * desc.strides[0] + cols.to(tl.int64) * desc.strides[1]
    mask = (rows >= 0) & (rows < desc.shape[0]) & (cols >= 0) & (cols < desc.shape[1])
    return ptrs, mask


@triton.jit
def _desc_gather(desc, x_offsets, y_offset):
    ptrs, mask = _desc_rows(desc, x_offsets, y_offset)
    if desc.padding == "nan":  # what a NaN-padded descriptor gives outside the tensor
        v = tl.load(ptrs, mask=mask, other=float("nan"))
    else:
        v = tl.load(ptrs, mask=mask, other=0)
    if desc.round_f32_to_tf32:
        v = _round_f32_to_tf32(v)
    return v


@triton.jit
def _round_f32_to_tf32(x):
    # A host descriptor's round_f32_to_tf32: fp32 rounded to tf32 as TMA
    # loads it, to nearest even at 10 mantissa bits; Inf and NaN unchanged
    # (a carry out of the mantissa correctly bumps the exponent).
    bits = x.to(tl.uint32, bitcast=True)
    special = (bits & 0x7F800000) == 0x7F800000
    rounded = (bits + 0xFFF + ((bits >> 13) & 1)) & 0xFFFFE000
    return tl.where(special, bits, rounded).to(tl.float32, bitcast=True)


@triton.jit
def _desc_scatter(desc, value, x_offsets, y_offset):
    ptrs, mask = _desc_rows(desc, x_offsets, y_offset)
    tl.store(ptrs, value, mask=mask)


@triton.jit
def _desc_atomic_add(desc, offsets, value):
    _desc_atomic(desc, offsets, value, "add")


@triton.jit
def _desc_atomic_min(desc, offsets, value):
    _desc_atomic(desc, offsets, value, "min")


@triton.jit
def _desc_atomic_max(desc, offsets, value):
    _desc_atomic(desc, offsets, value, "max")


@triton.jit
def _desc_atomic_and(desc, offsets, value):
    _desc_atomic(desc, offsets, value, "and")


@triton.jit
def _desc_atomic_or(desc, offsets, value):
    _desc_atomic(desc, offsets, value, "or")


@triton.jit
def _desc_atomic_xor(desc, offsets, value):
    _desc_atomic(desc, offsets, value, "xor")
