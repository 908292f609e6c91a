import triton
import triton.language as tl


@triton.jit
def mismatched_shapes(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    a = tl.arange(0, BLOCK)
    b = tl.arange(0, BLOCK // 2)
    tl.store(y_ptr + a, a + b)


@triton.jit
def mask_shape(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    half = tl.arange(0, BLOCK // 2)
    x = tl.load(x_ptr + offs, mask=half < n)
    tl.store(y_ptr + offs, x)


@triton.jit
def arange_not_pow2(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, 48)
    tl.store(y_ptr + offs, 1.0)


@triton.jit
def arange_runtime_bound(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, n)
    tl.store(y_ptr + offs, 1.0)


@triton.jit
def exp_fp16(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    h = tl.load(x_ptr + offs).to(tl.float16)
    tl.store(y_ptr + offs, tl.exp(h))


@triton.jit
def floordiv_float(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, x // 2.0)


@triton.jit
def bitwise_float(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, x & 1)


@triton.jit
def pointer_plus_float(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + 1.5))


@triton.jit
def pointer_times_int(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    p = x_ptr * 2
    tl.store(y_ptr + offs, tl.load(p + offs))


@triton.jit
def store_to_int(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(n, 1.0)


@triton.jit
def dot_mismatched_k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    r = tl.arange(0, 32)
    k16 = tl.arange(0, 16)
    a = tl.load(x_ptr + r[:, None] * 16 + k16[None, :])
    b = tl.load(x_ptr + r[:, None] * 32 + r[None, :])
    c = tl.dot(a, b)
    tl.store(y_ptr + r[:, None] * 32 + r[None, :], c)


@triton.jit
def integer_index(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr, x[0])


@triton.jit
def reduce_bad_axis(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr, tl.sum(x, axis=2))


@triton.jit
def bad_rounding(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, x.to(tl.float16, fp_downcast_rounding="up").to(tl.float32))


@triton.jit
def bitcast_width(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, x.to(tl.int8, bitcast=True))


@triton.jit
def static_assert_fails(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK >= 128, "BLOCK too small for this kernel")
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, 1.0)
