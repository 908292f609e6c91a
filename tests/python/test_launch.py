"""Launching @tessera.jit kernels from Python with NumPy arrays (the CPU
interpreter): results against NumPy on fresh seeded inputs, strided views
written in place, scalar kinds, keywords and defaults, dtypes, grids and
constexpr values."""

import collections
import numpy as np
import pytest

import tessera
import tessera.language as tl

from _testutil import rng

SHIFT = tl.constexpr(3)


@tessera.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    tl.store(out_ptr + offs, x + y, mask=m)


@tessera.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < n_cols
    x = tl.load(in_ptr + row * in_row_stride + offs, mask=m, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(out_ptr + row * out_row_stride + offs, e / tl.sum(e, axis=0), mask=m)


@tessera.jit
def axpby_2d(a_ptr, b_ptr, out_ptr, M, N, sa0, sa1, sb0, sb1, so0, so1, alpha,
             BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    a = tl.load(a_ptr + rm[:, None] * sa0 + rn[None, :] * sa1, mask=mask)
    b = tl.load(b_ptr + rm[:, None] * sb0 + rn[None, :] * sb1, mask=mask)
    tl.store(out_ptr + rm[:, None] * so0 + rn[None, :] * so1, alpha * a + b, mask=mask)


@tessera.jit
def scalar_kernel(out_ptr, i, f, flag, maybe_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.zeros([BLOCK], dtype=tl.float32) + i * f + offs
    if flag:
        v = v + 1000.0
    if maybe_ptr is not None:
        v = v + 100000.0
    tl.store(out_ptr + offs, v, mask=offs < n)


@tessera.jit
def int_scalar_kernel(out_ptr, base, step, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, base + offs.to(tl.int64) * step, mask=offs < n)


@tessera.jit
def defaults_kernel(out_ptr, n, scale=3.0, BLOCK: tl.constexpr = 64, ADD: tl.constexpr = 5):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, offs * scale + ADD, mask=offs < n)


@tessera.jit
def copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=m), mask=m)


@tessera.jit
def affine_kernel(src_ptr, dst_ptr, n, MUL: tl.constexpr, ADD: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(src_ptr + offs, mask=m)
    tl.store(dst_ptr + offs, x * MUL + ADD, mask=m)


@tessera.jit
def not_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(src_ptr + offs, mask=m)
    tl.store(dst_ptr + offs, x == 0, mask=m)


@tessera.jit
def cast_kernel(src_ptr, dst_ptr, n, DT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=m).to(DT), mask=m)


@tessera.jit
def grid_ids_kernel(out_ptr):
    p0 = tl.program_id(0)
    p1 = tl.program_id(1)
    p2 = tl.program_id(2)
    n0 = tl.num_programs(0)
    n1 = tl.num_programs(1)
    tl.store(out_ptr + (p2 * n1 + p1) * n0 + p0, p0 + 10 * p1 + 100 * p2)


@tessera.jit
def shift_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=m) << SHIFT, mask=m)


@tessera.jit
def optional_kernel(x_ptr, out_ptr, n, bias_ptr=None, BLOCK: tl.constexpr = 64, ACT: tl.constexpr = None):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    if bias_ptr is not None:
        x = x + tl.load(bias_ptr + offs, mask=m)
    if ACT == "relu":
        x = tl.maximum(x, 0.0)
    elif ACT == "square":
        x = x * x
    tl.store(out_ptr + offs, x, mask=m)


@tessera.jit
def num_warps_param_kernel(out_ptr, num_warps: tl.constexpr):
    tl.store(out_ptr, num_warps)


@tessera.jit(do_not_specialize=["n"])
def unspecialized_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * 2 + 1, mask=m)


@tessera.jit
def print_kernel(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.device_print("tessera_val", x)


@tessera.jit
def add_scalar_from(x_ptr, out_ptr, s_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(s_ptr), mask=m)


def _ref_softmax(x):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


# ---------------------------------------------------------------- vector add

@pytest.mark.parametrize("n", [1, 17, 1000, 98_431])
def test_vector_add(n):
    g = rng("vector_add", n)
    x = g.standard_normal(n).astype(np.float32)
    y = g.standard_normal(n).astype(np.float32)
    out = np.full(n, np.nan, dtype=np.float32)
    add_kernel[(tessera.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    np.testing.assert_array_equal(out, x + y)


def test_vector_add_leaves_memory_past_n_alone():
    g = rng("vector_add_tail")
    x = g.standard_normal(300).astype(np.float32)
    y = g.standard_normal(300).astype(np.float32)
    out = np.full(300, -7.0, dtype=np.float32)
    add_kernel[(tessera.cdiv(250, 64),)](x, y, out, 250, BLOCK=64)
    np.testing.assert_array_equal(out[:250], x[:250] + y[:250])
    np.testing.assert_array_equal(out[250:], np.float32(-7.0))


def test_unaligned_views_and_repeated_specializations():
    # x[1:] is 4 bytes past a 16-byte boundary; n alternates between a
    # multiple of 16 and not: each launch specializes anew and stays correct.
    g = rng("unaligned")
    base_x = g.standard_normal(1001).astype(np.float32)
    base_y = g.standard_normal(1001).astype(np.float32)
    for start, n in [(0, 1000), (1, 999), (3, 992), (0, 17), (2, 16)]:
        x, y = base_x[start:start + n], base_y[start:start + n]
        out = np.zeros(n, dtype=np.float32)
        add_kernel[(tessera.cdiv(n, 128),)](x, y, out, n, BLOCK=128)
        np.testing.assert_array_equal(out, x + y, err_msg="start=%d n=%d" % (start, n))


def test_same_kernel_with_several_dtypes():
    g = rng("several_dtypes")
    n = 257
    for dt in (np.float32, np.float16, np.int32, np.float64):
        x = (g.standard_normal(n) * 100).astype(dt)
        y = (g.standard_normal(n) * 100).astype(dt)
        out = np.zeros(n, dtype=dt)
        add_kernel[(3,)](x, y, out, n, BLOCK=128)
        np.testing.assert_array_equal(out, x + y, err_msg=str(dt))


def test_run_method_with_grid_keyword():
    g = rng("run_method")
    n = 500
    x = g.standard_normal(n).astype(np.float32)
    y = g.standard_normal(n).astype(np.float32)
    out = np.zeros(n, dtype=np.float32)
    add_kernel.run(x, y, out, n, BLOCK=128, grid=(4,), warmup=False)
    np.testing.assert_array_equal(out, x + y)


@pytest.mark.interpreter_only
def test_prepared_launch_runs_again():
    g = rng("prepared")
    n = 777
    x = g.standard_normal(n).astype(np.float32)
    y = g.standard_normal(n).astype(np.float32)
    out = np.zeros(n, dtype=np.float32)
    step = add_kernel.prepare(x, y, out, n, BLOCK=256, grid=(tessera.cdiv(n, 256),))
    np.testing.assert_array_equal(out, 0.0)  # prepared, not launched
    step.launch()
    np.testing.assert_array_equal(out, x + y)
    x += 1.0  # same memory: the next launch reads the new values
    step.launch()
    np.testing.assert_array_equal(out, x + y)


# ------------------------------------------------------------------ softmax

@pytest.mark.parametrize("rows,cols", [(1, 1), (7, 17), (3, 1000), (4, 781), (2, 1024)])
def test_fused_softmax(rows, cols):
    g = rng("softmax", rows, cols)
    # Rows of a wider buffer: the row stride is not the column count.
    src = (g.standard_normal((rows, cols + 5)) * 4).astype(np.float32)[:, 2:cols + 2]
    out = np.zeros((rows, cols + 3), dtype=np.float32)
    block = tessera.next_power_of_2(cols)
    softmax_kernel[(rows,)](out, src, src.strides[0] // 4, out.strides[0] // 4, cols, BLOCK=block)
    np.testing.assert_allclose(out[:, :cols], _ref_softmax(src), rtol=1e-5, atol=1e-7)
    np.testing.assert_array_equal(out[:, cols:], 0.0)
    np.testing.assert_allclose(out[:, :cols].sum(axis=1), 1.0, rtol=1e-5)


# ------------------------------------------------------------ strided views

@pytest.mark.parametrize("M,N", [(1, 1), (17, 5), (33, 47)])
def test_2d_kernel_on_transposed_view(M, N):
    g = rng("transposed", M, N)
    a_store = g.standard_normal((N, M)).astype(np.float32)
    a = a_store.T  # (M, N) view with strides (1, M)
    assert not a.flags.c_contiguous or M == 1 or N == 1
    b = g.standard_normal((M, N)).astype(np.float32)
    out = np.zeros((M, N), dtype=np.float32)
    grid = (tessera.cdiv(M, 16), tessera.cdiv(N, 16))
    axpby_2d[grid](a, b, out, M, N, *(s // 4 for s in a.strides), *(s // 4 for s in b.strides),
                   *(s // 4 for s in out.strides), 2.5, BM=16, BN=16)
    np.testing.assert_allclose(out, 2.5 * a + b, rtol=1e-6, atol=1e-6)


def test_writes_land_in_a_transposed_and_offset_output_view():
    g = rng("strided_out")
    M, N = 19, 23
    a = g.standard_normal((M, N)).astype(np.float32)
    b = g.standard_normal((M, N)).astype(np.float32)
    out_store = np.full((N + 3, M + 2), -1.0, dtype=np.float32)
    out = out_store[2:N + 2, 1:M + 1].T  # (M, N) view: strides (1, M + 2), offset
    assert out.shape == (M, N) and out.base is not None
    axpby_2d[(2, 2)](a, b, out, M, N, N, 1, N, 1, *(s // 4 for s in out.strides), -1.0, BM=16, BN=16)
    np.testing.assert_allclose(out, b - a, rtol=1e-6, atol=1e-6)
    expected = np.full_like(out_store, -1.0)
    expected[2:N + 2, 1:M + 1] = (b - a).T
    np.testing.assert_allclose(out_store, expected, rtol=1e-6, atol=1e-6)


def test_every_other_row_of_a_sliced_view():
    g = rng("sliced")
    base = g.standard_normal((41, 30)).astype(np.float32)
    a = base[1::2, 3:]  # rows 1, 3, 5...: strides (60, 1) elements
    M, N = a.shape
    b = np.zeros((M, N), dtype=np.float32)
    out = np.empty((M, N), dtype=np.float32)
    axpby_2d[(tessera.cdiv(M, 8), tessera.cdiv(N, 8))](a, b, out, M, N, a.strides[0] // 4, a.strides[1] // 4,
                                                       N, 1, N, 1, 1.0, BM=8, BN=8)
    np.testing.assert_array_equal(out, a)


# ------------------------------------------------------------------ scalars

@pytest.mark.parametrize("i,f,flag,ptr", [(3, 2.5, True, None), (-4, 0.25, False, "array"), (0, -1.5, True, "array"),
                                          (7, 1.0, False, None), (1, 3.0, True, "array")])
def test_int_float_bool_none_scalars(i, f, flag, ptr):
    out = np.zeros(16, dtype=np.float32)
    maybe = np.zeros(4, dtype=np.float32) if ptr == "array" else None
    scalar_kernel[(1,)](out, i, f, flag, maybe, 16, BLOCK=16)
    expected = i * f + np.arange(16) + (1000.0 if flag else 0.0) + (100000.0 if ptr else 0.0)
    np.testing.assert_array_equal(out, expected.astype(np.float32))


def test_numpy_scalars_are_numbers():
    out = np.zeros(16, dtype=np.float32)
    scalar_kernel[(1,)](out, np.int32(6), np.float32(0.5), True, None, np.int64(16), BLOCK=16)
    np.testing.assert_array_equal(out, (3.0 + np.arange(16) + 1000.0).astype(np.float32))


@pytest.mark.parametrize("base,step", [(2**40 + 3, -7), (-(2**33), 2**31), (5, 2**35)])
def test_integer_scalars_wider_than_32_bits(base, step):
    out = np.zeros(13, dtype=np.int64)
    int_scalar_kernel[(1,)](out, base, step, 13, BLOCK=16)
    np.testing.assert_array_equal(out, base + np.arange(13, dtype=np.int64) * step)


def test_unsigned_64_bit_scalar():
    out = np.zeros(13, dtype=np.int64)
    base = 2**63 + 5  # beyond int64: passed as u64
    int_scalar_kernel[(1,)](out, base, 3, 13, BLOCK=16)
    np.testing.assert_array_equal(out.view(np.uint64), np.uint64(base) + np.arange(13, dtype=np.uint64) * 3)


# ------------------------------------------------------ keywords, defaults

def test_keyword_arguments_in_any_order():
    g = rng("keywords")
    n = 123
    x = g.standard_normal(n).astype(np.float32)
    y = g.standard_normal(n).astype(np.float32)
    out = np.zeros(n, dtype=np.float32)
    add_kernel[(2,)](BLOCK=64, out_ptr=out, n=n, y_ptr=y, x_ptr=x)
    np.testing.assert_array_equal(out, x + y)
    out2 = np.zeros(n, dtype=np.float32)
    add_kernel[(1,)](x, y, n=n, out_ptr=out2, BLOCK=128, num_warps=2)
    np.testing.assert_array_equal(out2, x + y)


def test_default_parameter_values():
    n = 50
    idx = np.arange(n, dtype=np.float32)

    out = np.zeros(n, dtype=np.float32)
    defaults_kernel[(1,)](out, n)  # scale=3.0, BLOCK=64, ADD=5 from the declaration
    np.testing.assert_array_equal(out, idx * 3.0 + 5)

    out = np.zeros(n, dtype=np.float32)
    defaults_kernel[(1,)](out, n, 0.5)  # runtime default overridden positionally
    np.testing.assert_array_equal(out, idx * 0.5 + 5)

    out = np.zeros(n, dtype=np.float32)
    defaults_kernel[(1,)](out, n, ADD=-2)  # constexpr default overridden, runtime default kept
    np.testing.assert_array_equal(out, idx * 3.0 - 2)

    out = np.zeros(n, dtype=np.float32)
    defaults_kernel[(4,)](out, n, scale=2.0, BLOCK=16)  # a smaller block on a larger grid
    np.testing.assert_array_equal(out, idx * 2.0 + 5)

    out = np.zeros(n, dtype=np.float32)
    defaults_kernel[(2,)](out, n, 1.0, 32, 7)  # every parameter positionally
    np.testing.assert_array_equal(out, idx + 7)


# -------------------------------------------------------------------- dtypes

def _sample(g, dt, n):
    if dt == np.bool_:
        return g.random(n) < 0.5
    if np.dtype(dt).kind == "f":
        return (g.standard_normal(n) * 10).astype(dt)
    info = np.iinfo(dt)
    return g.integers(info.min, info.max, size=n, dtype=dt, endpoint=True)


@pytest.mark.parametrize("dt", [np.float16, np.int32, np.int64, np.bool_, np.uint8, np.int8, np.int16, np.float64])
@pytest.mark.parametrize("n", [1, 1000])
def test_dtype_round_trip(dt, n):
    g = rng("round_trip", np.dtype(dt).name, n)
    src = _sample(g, dt, n)
    if n > 4:
        src[:4] = np.array([0, 1, 0, 1]).astype(dt) if dt == np.bool_ else np.array(
            [0, 1, np.finfo(dt).max if np.dtype(dt).kind == "f" else np.iinfo(dt).max,
             np.finfo(dt).min if np.dtype(dt).kind == "f" else np.iinfo(dt).min]).astype(dt)
    dst = np.zeros_like(src)
    copy_kernel[(tessera.cdiv(n, 256),)](src, dst, n, BLOCK=256)
    assert dst.dtype == src.dtype
    np.testing.assert_array_equal(dst, src)


@pytest.mark.parametrize("dt,mul,add", [(np.float16, 2, 1), (np.int32, 3, -7), (np.int64, 5, 2**33),
                                        (np.uint8, 1, 1), (np.int8, 1, 1)])
def test_dtype_arithmetic(dt, mul, add):
    g = rng("arith", np.dtype(dt).name)
    n = 333
    if dt == np.float16:
        src = (g.standard_normal(n) * 50).astype(np.float16)
        expected = (src * np.float16(mul) + np.float16(add)).astype(np.float16)
    elif dt in (np.uint8, np.int8):
        src = _sample(g, dt, n)
        src[:2] = [np.iinfo(dt).max, np.iinfo(dt).min]
        expected = (src.astype(np.int64) * mul + add).astype(dt)  # wraps around, as Triton's integers do
    else:
        src = g.integers(-2**20, 2**20, size=n).astype(dt)
        expected = (src.astype(np.int64) * mul + add).astype(dt)
    dst = np.zeros_like(src)
    affine_kernel[(tessera.cdiv(n, 128),)](src, dst, n, MUL=mul, ADD=add, BLOCK=128)
    np.testing.assert_array_equal(dst, expected)


def test_bool_arrays_in_and_out():
    g = rng("bools")
    n = 1000
    src = g.random(n) < 0.3
    dst = np.ones(n, dtype=np.bool_)
    not_kernel[(tessera.cdiv(n, 256),)](src, dst, n, BLOCK=256)
    np.testing.assert_array_equal(dst, ~src)


@pytest.mark.parametrize("dt,np_dt", [(tl.float16, np.float16), (tl.int32, np.int32), (tl.float64, np.float64),
                                      (tl.uint8, np.uint8)])
def test_dtype_constexpr(dt, np_dt):
    g = rng("dtype_constexpr", str(dt))
    n = 517
    src = (g.standard_normal(n) * 60).astype(np.float32)
    if np_dt == np.uint8:
        src = np.abs(src) % 255  # float -> uint8 outside [0, 256) is undefined
    dst = np.zeros(n, dtype=np_dt)
    cast_kernel[(tessera.cdiv(n, 256),)](src, dst, n, DT=dt, BLOCK=256)
    np.testing.assert_array_equal(dst, src.astype(np_dt))


# --------------------------------------------------------------------- grids

def test_grid_as_tuple_list_int_and_numpy_ints():
    g = rng("grids")
    n = 1000
    x = g.standard_normal(n).astype(np.float32)
    y = g.standard_normal(n).astype(np.float32)
    for grid in [(8,), [8], (np.int64(8),), (np.int32(8), 1), (8, 1, 1), 8]:
        out = np.zeros(n, dtype=np.float32)
        add_kernel[grid](x, y, out, n, BLOCK=128)
        np.testing.assert_array_equal(out, x + y, err_msg=repr(grid))


def test_grid_callable_sees_arguments_and_constexprs():
    g = rng("grid_callable")
    n = 2049
    x = g.standard_normal(n).astype(np.float32)
    y = g.standard_normal(n).astype(np.float32)
    seen = []

    def grid(meta):
        seen.append(dict(meta))
        return (tessera.cdiv(meta["n"], meta["BLOCK"]),)

    out = np.zeros(n, dtype=np.float32)
    add_kernel[grid](x, y, out, n, BLOCK=256)
    np.testing.assert_array_equal(out, x + y)
    assert seen, "the grid callable was not called"
    assert seen[-1]["BLOCK"] == 256 and seen[-1]["n"] == n

    out = np.zeros(n, dtype=np.float32)
    add_kernel[lambda meta: (tessera.cdiv(n, meta["BLOCK"]),)](x, y, out, n=n, BLOCK=512)
    np.testing.assert_array_equal(out, x + y)


def test_grid_callable_sees_declared_constexpr_defaults():
    n = 300
    out = np.zeros(n, dtype=np.float32)
    seen = []

    def grid(meta):
        seen.append(dict(meta))
        return (tessera.cdiv(meta["n"], meta["BLOCK"]),)

    defaults_kernel[grid](out, n)
    np.testing.assert_array_equal(out, np.arange(n, dtype=np.float32) * 3.0 + 5)
    assert seen and seen[-1]["BLOCK"] == 64


@pytest.mark.parametrize("grid", [(5,), (3, 4), (2, 3, 4), (1, 1, 7)])
def test_grid_dimensions_and_program_ids(grid):
    dims = tuple(grid) + (1,) * (3 - len(grid))
    out = np.full(dims[0] * dims[1] * dims[2], -1, dtype=np.int32)
    grid_ids_kernel[grid](out)
    p0, p1, p2 = np.meshgrid(np.arange(dims[0]), np.arange(dims[1]), np.arange(dims[2]), indexing="ij")
    expected = np.zeros(dims[::-1], dtype=np.int32)
    expected[p2, p1, p0] = p0 + 10 * p1 + 100 * p2
    np.testing.assert_array_equal(out, expected.ravel())


def test_callable_grid_of_two_dimensions():
    g = rng("grid2d")
    M, N = 37, 45
    a = g.standard_normal((M, N)).astype(np.float32)
    b = g.standard_normal((M, N)).astype(np.float32)
    out = np.zeros((M, N), dtype=np.float32)
    axpby_2d[lambda meta: (tessera.cdiv(meta["M"], meta["BM"]), tessera.cdiv(meta["N"], meta["BN"]))](
        a, b, out, M, N, N, 1, N, 1, N, 1, 0.5, BM=16, BN=32)
    np.testing.assert_allclose(out, 0.5 * a + b, rtol=1e-6, atol=1e-6)


# ---------------------------------------------------------------- constexprs

def test_constexpr_given_as_tl_constexpr():
    g = rng("tl_constexpr")
    n = 999
    x = g.standard_normal(n).astype(np.float32)
    y = g.standard_normal(n).astype(np.float32)
    out = np.zeros(n, dtype=np.float32)
    add_kernel[(tessera.cdiv(n, 256),)](x, y, out, n, BLOCK=tl.constexpr(256))
    np.testing.assert_array_equal(out, x + y)
    out = np.zeros(n, dtype=np.float32)
    add_kernel[(tessera.cdiv(n, 512),)](x, y, out, tl.constexpr(n), tl.constexpr(512))
    np.testing.assert_array_equal(out, x + y)


def test_module_level_constexpr_global():
    g = rng("global_constexpr")
    n = 100
    src = g.integers(-1000, 1000, size=n).astype(np.int32)
    dst = np.zeros_like(src)
    shift_kernel[(1,)](src, dst, n, BLOCK=128)
    np.testing.assert_array_equal(dst, src << 3)


def test_bool_and_float_constexprs():
    g = rng("bool_float_constexpr")
    n = 200
    src = g.standard_normal(n).astype(np.float32)
    dst = np.zeros_like(src)
    affine_kernel[(2,)](src, dst, n, MUL=0.5, ADD=True, BLOCK=128)
    np.testing.assert_allclose(dst, src * 0.5 + 1.0, rtol=1e-6)


# ------------------------------------------------- optional arguments, misc

@pytest.mark.parametrize("with_bias", [False, True])
@pytest.mark.parametrize("act", [None, "relu", "square"])
def test_optional_pointer_and_string_constexpr(with_bias, act):
    g = rng("optional", with_bias, act)
    n = 130
    x = g.standard_normal(n).astype(np.float32)
    bias = g.standard_normal(n).astype(np.float32)
    out = np.zeros(n, dtype=np.float32)
    kwargs = {}
    if with_bias:
        kwargs["bias_ptr"] = bias
    if act is not None:
        kwargs["ACT"] = act
    optional_kernel[(tessera.cdiv(n, 64),)](x, out, n, **kwargs)
    expected = x + bias if with_bias else x.copy()
    if act == "relu":
        expected = np.maximum(expected, 0)
    elif act == "square":
        expected = expected * expected
    np.testing.assert_allclose(out, expected, rtol=1e-6)


def test_none_given_explicitly_for_optional_arguments():
    g = rng("optional_none")
    n = 64
    x = g.standard_normal(n).astype(np.float32)
    out = np.zeros(n, dtype=np.float32)
    optional_kernel[(1,)](x, out, n, None, 64, None)
    np.testing.assert_array_equal(out, x)


@pytest.mark.parametrize("warps", [1, 2, 8])
def test_parameter_named_num_warps_receives_the_option(warps):
    out = np.zeros(1, dtype=np.int32)
    num_warps_param_kernel[(1,)](out, num_warps=warps)
    assert out[0] == warps


@pytest.mark.parametrize("n", [1, 16, 17, 1000])
def test_do_not_specialize(n):
    g = rng("do_not_specialize", n)
    x = g.standard_normal(n + 5).astype(np.float32)
    out = np.zeros(n + 5, dtype=np.float32)
    unspecialized_kernel[(tessera.cdiv(n, 128),)](x, out, n, BLOCK=128)
    np.testing.assert_array_equal(out[:n], x[:n] * 2 + 1)
    np.testing.assert_array_equal(out[n:], 0.0)


def test_zero_stride_broadcast_input():
    g = rng("broadcast")
    M, N = 9, 21
    row = g.standard_normal(N).astype(np.float32)
    a = np.broadcast_to(row, (M, N))  # strides (0, 4): every row is the same memory
    col = g.standard_normal((M, 1)).astype(np.float32)
    b = np.broadcast_to(col, (M, N))  # strides (4, 0)
    out = np.zeros((M, N), dtype=np.float32)
    axpby_2d[(1, 2)](a, b, out, M, N, *(s // 4 for s in a.strides), *(s // 4 for s in b.strides), N, 1, 3.0,
                     BM=16, BN=16)
    np.testing.assert_allclose(out, 3.0 * row[None, :] + col, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("grid", [(0,), (1,)])
def test_empty_arrays(grid):
    x = np.zeros(0, dtype=np.float32)
    out = np.zeros(0, dtype=np.float32)
    add_kernel[grid](x, x, out, 0, BLOCK=64)
    assert out.shape == (0,)


def test_launches_from_several_threads():
    from concurrent.futures import ThreadPoolExecutor

    def work(i):
        g = rng("threads", i)
        n = int(g.integers(1, 5000))
        x = g.standard_normal(n).astype(np.float32)
        y = g.standard_normal(n).astype(np.float32)
        out = np.zeros(n, dtype=np.float32)
        block = (64, 128, 256)[i % 3]
        add_kernel[(tessera.cdiv(n, block),)](x, y, out, n, BLOCK=block)
        return np.array_equal(out, x + y)

    with ThreadPoolExecutor(6) as pool:
        results = list(pool.map(work, range(120)))
    assert all(results), [i for i, ok in enumerate(results) if not ok]


@pytest.mark.interpreter_only
def test_device_print(capfd):
    x = np.array([1.5, -2.0, 0.25, 8.0], dtype=np.float32)
    print_kernel[(1,)](x, BLOCK=4)
    out, err = capfd.readouterr()
    lines = [line for line in (out + err).splitlines() if "tessera_val" in line]
    assert len(lines) == 4, out + err
    values = sorted(float(line.rsplit(":", 1)[1]) for line in lines)
    assert values == sorted(x.tolist())


def test_kernel_with_many_parameters(tmp_path):
    # 1 pointer, 70 runtime scalars and 20 constexprs (Triton has no limit).
    import importlib.util
    n_rt, n_cx = 70, 20
    params = ["out_ptr"] + ["a%d" % i for i in range(n_rt)] + ["C%d: tl.constexpr" % i for i in range(n_cx)]
    total = " + ".join(["a%d" % i for i in range(n_rt)] + ["C%d" % i for i in range(n_cx)])
    path = tmp_path / "many_params_kernels.py"
    path.write_text("import tessera\nimport tessera.language as tl\n\n\n@tessera.jit\n"
                    "def many(%s):\n    offs = tl.arange(0, 16)\n    tl.store(out_ptr + offs, offs + (%s))\n"
                    % (", ".join(params), total))
    spec = importlib.util.spec_from_file_location("many_params_kernels", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    g = rng("many_params")
    values = [int(v) for v in g.integers(-1000, 1000, size=n_rt)]
    cx = {"C%d" % i: int(v) for i, v in enumerate(g.integers(0, 100, size=n_cx))}
    out = np.zeros(16, dtype=np.int32)
    module.many[(1,)](out, *values, **cx)
    np.testing.assert_array_equal(out, np.arange(16) + sum(values) + sum(cx.values()))


def test_launch_options():
    g = rng("options")
    n = 100
    x = g.standard_normal(n).astype(np.float32)
    y = g.standard_normal(n).astype(np.float32)
    for options in [{"num_warps": None, "num_stages": None}, {"num_warps": 1}, {"num_warps": 32, "num_stages": 1},
                    {"maxnreg": 128}, {"num_ctas": 1}, {"enable_fp_fusion": False}, {"stream": 0}]:
        out = np.zeros(n, dtype=np.float32)
        add_kernel[(1,)](x, y, out, n, BLOCK=128, **options)
        np.testing.assert_array_equal(out, x + y, err_msg=repr(options))
    for bad in (0, 3, 64):
        with pytest.raises((ValueError, tessera.TesseraError), match="num_warps"):
            add_kernel[(1,)](x, y, np.zeros(n, dtype=np.float32), n, BLOCK=128, num_warps=bad)


def test_grid_callable_that_launches_another_kernel():
    g = rng("nested")
    n = 300
    x = g.standard_normal(n).astype(np.float32)
    y = g.standard_normal(n).astype(np.float32)
    inner = np.zeros(n, dtype=np.float32)

    def grid(meta):
        add_kernel[(tessera.cdiv(n, 64),)](y, y, inner, n, BLOCK=64)
        return (tessera.cdiv(n, meta["BLOCK"]),)

    out = np.zeros(n, dtype=np.float32)
    add_kernel[grid](x, y, out, n, BLOCK=128)
    np.testing.assert_array_equal(out, x + y)
    np.testing.assert_array_equal(inner, y + y)


def test_interleaved_specializations_of_one_kernel():
    # The launcher remembers its last launch; alternating constexprs, dtypes,
    # scalar kinds and None/array must each still run their own code.
    g = rng("interleaved")
    n = 90
    x = g.standard_normal(n).astype(np.float32)
    b = g.standard_normal(n).astype(np.float32)
    for step in range(3):
        for act, bias in [("relu", None), (None, b), ("square", b), (None, None)]:
            out = np.zeros(n, dtype=np.float32)
            optional_kernel[(tessera.cdiv(n, 32),)](x, out, n, bias, BLOCK=32, ACT=act)
            expected = x + b if bias is not None else x
            expected = np.maximum(expected, 0) if act == "relu" else expected * expected if act == "square" else expected
            np.testing.assert_allclose(out, expected, rtol=1e-6, err_msg="%s %s" % (act, bias is not None))
        for dt, np_dt in [(tl.float16, np.float16), (tl.int32, np.int32)]:
            dst = np.zeros(n, dtype=np_dt)
            cast_kernel[(1,)](x * 100, dst, n, DT=dt, BLOCK=128)
            np.testing.assert_array_equal(dst, (x * 100).astype(np_dt))


# ------------------------------------------------ views sharing one buffer

def test_an_array_and_a_window_into_it_in_one_launch():
    # s_ptr is x[10:20]; the kernel reads all of x and x[10]. Both views are
    # inside x's memory: no access is out of bounds.
    g = rng("window_same_launch")
    x = g.standard_normal(64).astype(np.float32)
    out = np.zeros(64, dtype=np.float32)
    add_scalar_from[(4,)](x, out, x[10:20], 64, BLOCK=16)
    np.testing.assert_array_equal(out, x + x[10])


def test_a_launch_over_an_array_after_a_launch_on_a_window_of_it():
    g = rng("window_then_whole")
    x = g.standard_normal(64).astype(np.float32)
    window = x[10:20]
    copy_kernel[(1,)](window.copy(), window, 10, BLOCK=16)  # writes x[10:20] (unchanged values)
    out = np.zeros(64, dtype=np.float32)
    add_kernel[(4,)](x, x, out, 64, BLOCK=16)  # another kernel over all of x
    np.testing.assert_array_equal(out, x + x)


@tessera.jit
def maybe_scaled(x_ptr, out_ptr, n, SCALE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    if SCALE is not None:
        x = x * SCALE
    tl.store(out_ptr + offs, x, mask=m)


@pytest.mark.parametrize("scale", [None, 3.0, tl.constexpr(None)])
def test_none_is_a_constexpr_value(scale):
    n = 77
    x = rng("none-constexpr", str(scale)).standard_normal(n).astype(np.float32)
    out = np.zeros(n, dtype=np.float32)
    maybe_scaled[(1,)](x, out, n, scale, BLOCK=128)
    value = scale.value if isinstance(scale, tl.constexpr) else scale
    np.testing.assert_array_equal(out, x if value is None else x * np.float32(value))
    out2 = np.zeros(n, dtype=np.float32)
    maybe_scaled[(1,)](x, out2, n, BLOCK=128, SCALE=scale)  # by keyword
    np.testing.assert_array_equal(out2, out)


@tessera.jit
def keyword_only_kernel(x_ptr, out_ptr, n, *, scale, BLOCK: tl.constexpr, SHIFT: tl.constexpr = 5):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * scale + SHIFT, mask=m)


def test_keyword_only_parameters():
    """Triton 3.9's keyword-only kernel parameters: given by name, with a
    default; a positional value for one is refused."""
    r = rng(39)
    n = 333
    x = r.integers(-1000, 1000, n).astype(np.int32)
    out = np.zeros(n, np.int32)
    keyword_only_kernel[(3,)](x, out, n, scale=-4, BLOCK=128)
    np.testing.assert_array_equal(out, x * -4 + 5)
    keyword_only_kernel[(3,)](x, out, n, scale=7, BLOCK=128, SHIFT=-2)
    np.testing.assert_array_equal(out, x * 7 - 2)
    with pytest.raises(Exception, match="keyword-only"):
        keyword_only_kernel[(3,)](x, out, n, 3, BLOCK=128)


@tessera.jit
def pdl_step(prev_ptr, out_ptr, n, k, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.extra.cuda.gdc_wait()
    x = tl.load(prev_ptr + offs, mask=m)
    tl.extra.cuda.gdc_launch_dependents()
    tl.store(out_ptr + offs, x * 3 + k, mask=m)


def test_launch_pdl():
    """launch_pdl=True and the gdc functions: a chain of dependent launches
    (on the interpreter they run one after another, as the waits ask)."""
    from tessera.language.extra.cuda import gdc_wait, gdc_launch_dependents  # noqa: F401
    r = rng(27)
    n = 1001
    x = r.integers(-1000, 1000, n).astype(np.int64)
    a, b = x.copy(), np.zeros(n, np.int64)
    want = x.copy()
    for k in range(1, 6):
        pdl_step[(triton_cdiv(n, 256),)](a, b, n, k, BLOCK=256, launch_pdl=True)
        want = want * 3 + k
        a, b = b, a
    np.testing.assert_array_equal(a, want)


def triton_cdiv(a, b):
    return (a + b - 1) // b


@tessera.constexpr_function
def _block_for(n):
    p = 1
    while p < n:
        p *= 2
    return p


@tessera.jit
def constexpr_function_kernel(x_ptr, out_ptr, n, N: tl.constexpr):
    B: tl.constexpr = _block_for(N)
    offs = tl.arange(0, B)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + B, mask=m)


def test_constexpr_function():
    """@triton.constexpr_function: run by the compiler on constexprs inside a
    kernel, and on the host as a plain function (constexprs unwrapped)."""
    assert _block_for(100) == 128
    assert _block_for(tl.constexpr(5)) == 8
    r = rng(5)
    x = r.integers(-100, 100, 37).astype(np.int32)
    out = np.zeros(37, np.int32)
    constexpr_function_kernel[(1,)](x, out, 37, N=37)
    np.testing.assert_array_equal(out, x + 64)


@tessera.jit
def _triple_values(x):
    return x * 3


@tessera.jit
def apply_activation(x_ptr, out_ptr, n, ACTIVATION: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0) + 1
    tl.store(out_ptr + offs, x if ACTIVATION is None else ACTIVATION(x), mask=offs < n)


def test_jit_function_as_a_constexpr():
    """A @jit function passed as a constexpr (jax-triton's ACTIVATION=relu) is
    called by the kernel; None skips it."""
    x = rng(7).integers(-100, 100, 37).astype(np.int32)
    out = np.zeros(37, np.int32)
    apply_activation[(3,)](x, out, 37, ACTIVATION=_triple_values, BLOCK=16)
    np.testing.assert_array_equal(out, (x + 1) * 3)
    apply_activation[(3,)](x, out, 37, ACTIVATION=None, BLOCK=16)
    np.testing.assert_array_equal(out, x + 1)

    # Called by name in the kernel's module: a function bound there under
    # another name (or not at all) is refused, never mistaken for another.
    @tessera.jit
    def _triple_values_elsewhere(x):
        return x * 3
    with pytest.raises(TypeError, match="must be bound under that name in the kernel's module"):
        apply_activation[(3,)](x, out, 37, ACTIVATION=_triple_values_elsewhere, BLOCK=16)


def test_launch_cooperative_grid_is_accepted():
    """launch_cooperative_grid=True (a launch attribute) with the other options."""
    x = np.arange(300, dtype=np.int64)
    out = np.zeros(300, np.int64)
    pdl_step[(2,)](x, out, 300, 4, BLOCK=256, launch_cooperative_grid=True, launch_pdl=True, num_warps=2)
    np.testing.assert_array_equal(out, x * 3 + 4)


@tessera.aggregate
class _Window:
    lo: tl.tensor
    hi: tl.tensor
    SCALE: tl.constexpr = 3

    @tessera.jit
    def width(self):
        return (self.hi - self.lo) * self.SCALE

    @tessera.jit
    def __add__(self, other):
        return tl.aggregate_replace(self, lo=self.lo + other.lo, hi=self.hi + other.hi)


_Bounds = collections.namedtuple("_Bounds", "lo hi")


@tessera.jit
def aggregate_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0)
    w = _Window(x, x * 4) + _Window(lo=x, hi=x)
    b = _Bounds(w.lo, hi=w.width())
    tl.store(out_ptr + offs, b.hi * 10 + b[0], mask=m)


def test_aggregate_and_namedtuple():
    """@triton.aggregate objects (a default constexpr field, a jit method, an
    operator method, aggregate_replace) and a namedtuple, made in a kernel."""
    assert _Window.__triton_aggregate__
    r = rng(11)
    x = r.integers(-100, 100, 45).astype(np.int32)
    out = np.zeros(45, np.int32)
    aggregate_kernel[(1,)](x, out, 45, BLOCK=64)
    np.testing.assert_array_equal(out, (5 * x - 2 * x) * 3 * 10 + 2 * x)


_Sizes = collections.namedtuple("_Sizes", ["n", "scale"])


@tessera.jit
def tuple_args_kernel(ptrs, sizes, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < sizes.n
    x_ptr, y_ptr = ptrs
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * sizes.scale + tl.load(y_ptr + offs, mask=m), mask=m)


def test_tuple_and_namedtuple_arguments():
    """Tuple kernel arguments (Triton's): a tuple of arrays and a namedtuple
    of scalars read by field; a scale of 1 specializes like a plain int."""
    r = rng(12)
    x = r.integers(-100, 100, 50).astype(np.int32)
    y = r.integers(-100, 100, 50).astype(np.int32)
    for scale in (1, 7):
        out = np.zeros(50, np.int32)
        tuple_args_kernel[(1,)]((x, y), _Sizes(50, scale), out, BLOCK=64)
        np.testing.assert_array_equal(out, x * scale + y)


@tessera.jit
def tf32_descriptor_kernel(desc, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + offs, tl.reshape(desc.load([0, 0]), (N,)))


def test_tensor_descriptor_round_f32_to_tf32():
    """TensorDescriptor(..., round_f32_to_tf32=True): loads round each fp32
    to tf32 (nearest even at 10 mantissa bits); without it, the bits pass."""
    from tessera.tools.tensor_descriptor import TensorDescriptor
    r = rng(13)
    x = r.standard_normal((1, 64)).astype(np.float32)
    x[0, :3] = np.array([0x3F801000, 0x3F803000, 0x7F800000], np.uint32).view(np.float32)
    bits = x.view(np.uint32).astype(np.uint64)
    want = ((bits + 0xFFF + ((bits >> 13) & 1)) & 0xFFFFE000).astype(np.uint32)
    want = np.where((bits & 0x7F800000) == 0x7F800000, bits, want).astype(np.uint32)
    for rounding in (True, False):
        out = np.zeros(64, np.float32)
        tf32_descriptor_kernel[(1,)](TensorDescriptor.from_tensor(x, [1, 64], round_f32_to_tf32=rounding), out, N=64)
        np.testing.assert_array_equal(out.view(np.uint32), want[0] if rounding else x[0].view(np.uint32))


def test_warmup_with_tuple_arguments_and_clusters():
    """warmup types tuple and namedtuple arguments and keeps num_ctas; the
    compiled kernel then launches with them."""
    r = rng(14)
    x = r.integers(-100, 100, 50).astype(np.int32)
    y = r.integers(-100, 100, 50).astype(np.int32)
    ck = tuple_args_kernel.warmup((x, y), _Sizes(50, 3), np.zeros(50, np.int32), BLOCK=64, grid=(1,), num_ctas=2)
    assert "tt.func @tuple_args_kernel" in ck.asm["ttir"]
    assert ck.metadata.num_ctas == 2
    out = np.zeros(50, np.int32)
    ck[(1,)]((x, y), _Sizes(50, 3), out, BLOCK=64)
    np.testing.assert_array_equal(out, x * 3 + y)


def test_read_only_arrays_are_read_but_never_written():
    """A read-only array (of bytes, a read-only memory map, writeable=False)
    may be read; passing it where the kernel stores is an error naming the
    argument, not a write into memory that must not change (or a segfault)."""
    n = 37
    x = rng(9).standard_normal(n).astype(np.float32)
    ro = np.frombuffer(x.tobytes(), dtype=np.float32)  # a view of immutable bytes
    assert not ro.flags.writeable
    out = np.full(n, np.nan, np.float32)
    add_kernel[(1,)](ro, ro, out, n, BLOCK=64)
    np.testing.assert_array_equal(out, 2 * x)
    frozen = np.zeros(n, np.float32)
    frozen.setflags(write=False)
    for target in (ro, frozen):
        with pytest.raises(tessera.TesseraError, match="argument 'out_ptr' is read-only memory"):
            add_kernel[(1,)](x, x, target, n, BLOCK=64)
    assert np.frombuffer(x.tobytes(), dtype=np.float32).tolist() == ro.tolist() and not frozen.any()


def test_launch_mistakes_name_what_is_wrong():
    """Mistakes Triton also refuses (or that Tessera cannot do) say so,
    naming the kernel and the argument, instead of a NumPy or lookup error."""
    x = np.zeros(8, np.float32)

    def outer():
        @tessera.jit
        def inner(o_ptr, v):
            tl.store(o_ptr, v)
        return inner
    with pytest.raises(TypeError, match=r"kernel 'inner' is defined inside .*outer\(\)"):
        outer()[(1,)](x, 5.0)
    with pytest.raises(TypeError, match="argument 'BLOCK' of add_kernel\\(\\) is a constexpr"):
        add_kernel[(1,)](x, x, x, 8, BLOCK=np.zeros(1, np.int32))
    with pytest.raises(TypeError, match="num_warps of add_kernel\\(\\) must be an integer, got '4'"):
        add_kernel[(1,)](x, x, x, 8, BLOCK=8, num_warps="4")
    with pytest.raises(ValueError, match="do_not_specialize of k\\(\\) names 'nope'"):
        def k(o_ptr, n):
            pass
        tessera.jit(do_not_specialize=["nope"])(k)
    add_kernel[(1,)](x, x, x, 8, BLOCK=8, num_warps=np.int64(4))  # any integer type
    with pytest.raises(TypeError, match="the grid must be a tuple of 1 to 3 integers or a callable"):
        add_kernel[None](x, x, x, 8, BLOCK=8)
    for not_a_function in (42, int):
        with pytest.raises(TypeError, match="tessera.jit: expected a Python function"):
            tessera.jit(not_a_function)


@tessera.jit
def spin_kernel(out_ptr, n):
    i = 0
    while i != n:
        i += 1
    tl.store(out_ptr, i)


def test_ctrl_c_stops_an_endless_kernel_on_the_interpreter():
    """Ctrl-C (SIGINT) during a launch that loops forever is a KeyboardInterrupt
    (the C++ interpreter checks for it every 1024 iterations), and the next
    launch runs normally."""
    import os
    import subprocess
    import time
    out = np.zeros(1, np.int32)
    spin_kernel[(1,)](out, 10)  # compiled before the signal is on its way
    assert out[0] == 10
    # From another process: a Python thread would wait for the launch's GIL.
    sender = subprocess.Popen(["/bin/sh", "-c", "sleep 0.5; kill -INT %d" % os.getpid()])
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        spin_kernel[(1,)](out, -1)  # 2^32 iterations: minutes
    sender.wait()
    assert time.monotonic() - start < 30
    spin_kernel[(1,)](out, 7)
    assert out[0] == 7
