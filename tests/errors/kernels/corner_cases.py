"""Kernels that Triton 3.6 rejects for its typing rules (LANGUAGE_CHECKLIST.md
§2-§3); each function has exactly one mistake. Launched by
CornerCaseErrorsTest.cpp with (x: fp32[4096], y: fp32[4096], n = 100, BLOCK = 64)."""
import triton
import triton.language as tl


@triton.jit
def scalar_out_of_range(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    a = tl.load(x_ptr + tl.arange(0, BLOCK)).to(tl.int8)
    b = a + 300


@triton.jit
def negative_literal_with_unsigned(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    u = tl.load(x_ptr + tl.arange(0, BLOCK)).to(tl.uint32)
    b = u * -2


@triton.jit
def floordiv_mixed_signedness(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    u = offs.to(tl.uint32)
    b = u // offs


@triton.jit
def mod_int1_by_int32(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    b = (offs > 3) % offs


@triton.jit
def fp8_compared_with_literal(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    f8 = tl.load(x_ptr + tl.arange(0, BLOCK)).to(tl.float8e5)
    b = f8 > 0


@triton.jit
def not_on_int32(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    b = not offs


@triton.jit
def bitwise_literal_out_of_range(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    a = tl.load(x_ptr + tl.arange(0, BLOCK)).to(tl.int8)
    b = a & 0xFF


@triton.jit
def rounding_on_float_to_int(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    b = x.to(tl.int32, fp_downcast_rounding="rtz")


@triton.jit
def transpose_of_1d(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    b = offs.T


@triton.jit
def arange_beyond_int32(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(2**32, 2**32 + BLOCK)


@triton.jit
def block_stored_to_scalar_pointer(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(y_ptr, x)


@triton.jit
def expand_dims_duplicate_axes(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    b = tl.expand_dims(offs, (0, 0))


@triton.jit
def permute_not_a_permutation(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    x = tl.reshape(tl.arange(0, BLOCK), (8, BLOCK // 8))
    b = tl.permute(x, (1, 1))


@triton.jit
def split_last_dim_not_two(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a, b = tl.split(offs)


@triton.jit
def fp8_plus_int_tensor(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    f8 = tl.load(x_ptr + offs).to(tl.float8e4nv)
    b = f8 + offs


@triton.jit
def int_to_fp8_cast(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    b = offs.to(tl.float8e5)


@triton.jit
def weak_int64_literal_with_int32(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    b = offs + 2**40


@triton.jit
def full_not_power_of_two(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    b = tl.full((3, ), 0, tl.int32)


@triton.jit
def invert_float(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    b = ~x


@triton.jit
def negate_pointer(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    p = -x_ptr


@triton.jit
def where_negative_literal_unsigned(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    u = tl.arange(0, BLOCK).to(tl.uint32)
    b = tl.where(u > 3, u, -1)


@triton.jit
def store_mask_not_boolean(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, 1.0, mask=offs)


@triton.jit
def number_then_float_in_if(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    v = 0
    if n > 5:
        v = 1.5
    tl.store(y_ptr, v)


@triton.jit
def static_range_runtime_bound(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    for i in tl.static_range(n):
        tl.store(y_ptr + i, 1.0)


@triton.jit
def dot_out_dtype_bf16(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    a = tl.zeros((16, 16), tl.float16)
    c = tl.dot(a, a, out_dtype=tl.bfloat16)


@triton.jit
def descriptor_offsets_count(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    d = tl.make_tensor_descriptor(x_ptr, [n, n], [n, 1], [16, 16])
    t = d.load([0])


@triton.jit
def descriptor_last_stride(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    d = tl.make_tensor_descriptor(x_ptr, [n, n], [1, 2], [16, 16])


@triton.jit
def descriptor_unknown_method(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    d = tl.make_tensor_descriptor(x_ptr, [n, n], [n, 1], [16, 16])
    d.prefetch([0, 0])


# ---- aggregates (Triton 3.8-3.9) --------------------------------------------


@triton.aggregate
class Half:
    lo: tl.tensor
    hi: tl.tensor
    N: tl.constexpr

    def __init__(self, lo, N):
        self.lo = lo
        self.N = N


@triton.aggregate
class Duo:
    a: tl.tensor
    b: tl.tensor
    K: tl.constexpr = 4

    @triton.jit
    def bump(self):
        self.a = self.a + 1
        return self


@triton.jit
def aggregate_unset_field(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    h = Half(tl.load(x_ptr), 3)


@triton.jit
def aggregate_mutated(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    d = Duo(tl.load(x_ptr), tl.load(y_ptr))
    d.a = d.b


@triton.jit
def aggregate_constexpr_field(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    d = Duo(tl.load(x_ptr), tl.load(y_ptr), K=tl.load(y_ptr))


@triton.jit
def aggregate_unknown_attribute(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    d = Duo(tl.load(x_ptr), tl.load(y_ptr))
    tl.store(y_ptr, d.c)


@triton.jit
def aggregate_no_operator(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    d = Duo(tl.load(x_ptr), tl.load(y_ptr))
    e = d * 2


@triton.jit
def aggregate_missing_argument(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    d = Duo(tl.load(x_ptr))


@triton.jit
def aggregate_replace_unknown_field(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    d = tl.aggregate_replace(Duo(tl.load(x_ptr), tl.load(y_ptr)), z=1)


@triton.aggregate
class JitInit:
    v: tl.tensor

    @triton.jit
    def __init__(self, v):
        self.v = v


@triton.jit
def aggregate_mutated_in_method(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    d = Duo(tl.load(x_ptr), tl.load(y_ptr)).bump()


@triton.jit
def aggregate_jit_init(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    j = JitInit(tl.load(x_ptr))


# ---- tl.map_elementwise --------------------------------------------------------


@triton.jit
def _three_values(a0, a1):
    return a0, a1, a0


@triton.jit
def map_elementwise_bad_pack(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    r = tl.map_elementwise(_three_values, x, pack=3)


@triton.jit
def map_elementwise_pack_results(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    r = tl.map_elementwise(_three_values, x, pack=2)
