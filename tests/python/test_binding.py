"""How `kernel[grid](...)` binds its arguments (Python's rules) and the
errors it gives: TypeError for binding mistakes, tessera.TesseraError naming
file:line:col for a bug in the kernel."""

import os

import numpy as np
import pytest

import tessera
import tessera.language as tl

from _testutil import line_of, rng


@tessera.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * 2, mask=m)


@tessera.jit
def between_kernel(x_ptr, out_ptr, n, D: tl.constexpr, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * D * scale, mask=m)


@tessera.jit
def gather_kernel(src_ptr, idx_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    idx = tl.load(idx_ptr + offs, mask=m, other=0)
    v = tl.load(src_ptr + idx, mask=m)
    tl.store(out_ptr + offs, v.to(tl.float32) * 0.5, mask=m)


@tessera.jit
def shape_bug_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    rows = tl.load(x_ptr + offs[:, None] * BLOCK + offs[None, :])
    tl.store(out_ptr + offs, rows)  # a [BLOCK, BLOCK] value stored through [BLOCK] pointers


@tessera.jit
def arange_bug_kernel(out_ptr, n):
    offs = tl.arange(0, 10)  # not a power of two
    tl.store(out_ptr + offs, offs, mask=offs < n)


@tessera.jit
def oob_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs))  # unmasked: reads past a short x


@tessera.jit(debug=True)
def assert_kernel(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.device_assert(x > 0, "x must be positive")


def _arrays(n=40, seed="binding"):
    g = rng(seed, n)
    return g.standard_normal(n).astype(np.float32), np.zeros(n, dtype=np.float32)


# ------------------------------------------------------------ TypeErrors

def test_too_many_arguments():
    x, out = _arrays()
    with pytest.raises(TypeError, match=r"scale_kernel\(\) takes 4 .*6 were given"):
        scale_kernel[(1,)](x, out, 40, 64, 1, 2)
    np.testing.assert_array_equal(out, 0.0)


def test_unexpected_keyword():
    x, out = _arrays()
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        scale_kernel[(1,)](x, out, 40, BLOCK=64, bogus=1)


def test_missing_argument_in_the_middle():
    x, out = _arrays()
    with pytest.raises(TypeError, match="missing .*'out_ptr'"):
        scale_kernel[(1,)](x, n=40, BLOCK=64)


def test_missing_last_runtime_argument():
    x, out = _arrays()
    with pytest.raises(TypeError, match="missing .*'n'"):
        scale_kernel[(1,)](x, out, BLOCK=64)


def test_missing_constexpr_without_default():
    x, out = _arrays()
    with pytest.raises(TypeError, match="BLOCK"):
        scale_kernel[(1,)](x, out, 40)


def test_same_argument_twice():
    x, out = _arrays()
    with pytest.raises(TypeError, match="multiple values for argument 'n'"):
        scale_kernel[(1,)](x, out, 40, n=40, BLOCK=64)
    with pytest.raises(TypeError, match="multiple values for argument 'BLOCK'"):
        scale_kernel[(1,)](x, out, 40, 64, BLOCK=64)


@pytest.mark.parametrize("bad", [[1.0, 2.0], object(), "x", {"a": 1}, b"bytes"])
def test_non_tensor_object(bad):
    _, out = _arrays()
    with pytest.raises(TypeError, match="x_ptr"):
        scale_kernel[(1,)](bad, out, 40, BLOCK=64)


def test_array_of_an_unsupported_dtype():
    x, out = _arrays()
    with pytest.raises(TypeError, match="complex64"):
        scale_kernel[(1,)](x.astype(np.complex64), out, 40, BLOCK=64)


def test_negative_strides_are_refused():
    x, out = _arrays()
    with pytest.raises(ValueError, match="negative stride"):
        scale_kernel[(1,)](x[::-1], out, 40, BLOCK=64)
    np.testing.assert_array_equal(out, 0.0)


def test_none_for_a_constexpr_without_default():
    # As in Triton, a constexpr may be None; using it as a number is the
    # compiler's error, at the line that does.
    x, out = _arrays()
    with pytest.raises(tessera.TesseraError, match=r"test_binding.py:\d+:\d+: error: .*constexpr\[None\]"):
        scale_kernel[(1,)](x, out, 40, BLOCK=None)
    np.testing.assert_array_equal(out, 0.0)


def test_calling_a_kernel_directly_raises():
    x, out = _arrays()
    with pytest.raises(RuntimeError, match="scale_kernel"):
        scale_kernel(x, out, 40, BLOCK=64)


def test_num_ctas_clusters_are_accepted_and_checked():
    """num_ctas=2 (thread-block clusters on sm_90a; the interpreter ignores
    them) gives the same result; a cluster size other than 1, 2, 4, 8 is an
    error naming it."""
    x, out = _arrays()
    scale_kernel[(1,)](x, out, 40, BLOCK=64, num_ctas=2)
    want = out.copy()
    out[:] = 0
    scale_kernel[(1,)](x, out, 40, BLOCK=64)
    np.testing.assert_array_equal(out, want)
    with pytest.raises(Exception, match="num_ctas must be 1, 2, 4 or 8"):
        scale_kernel[(1,)](x, out, 40, BLOCK=64, num_ctas=3)


def test_stride_not_a_multiple_of_the_element_size():
    raw = np.zeros(64, dtype=np.uint8)
    x = np.lib.stride_tricks.as_strided(raw.view(np.float32), shape=(4,), strides=(6,))
    out = np.zeros(4, dtype=np.float32)
    with pytest.raises(TypeError, match="stride"):
        scale_kernel[(1,)](x, out, 4, BLOCK=4)


def test_non_native_byte_order_is_refused_or_read_correctly():
    x = np.arange(1, 9, dtype=">f4")  # big-endian float32: dtype.name is still 'float32'
    out = np.zeros(8, dtype=np.float32)
    try:
        scale_kernel[(1,)](x, out, 8, BLOCK=8)
    except (TypeError, ValueError):
        return  # refusing it is fine
    np.testing.assert_array_equal(out, x.astype(np.float32) * 2)


@tessera.jit
def int_kernel(out_ptr, base, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, base + offs.to(tl.int64), mask=offs < n)


def test_integer_beyond_64_bits_names_the_parameter():
    out = np.zeros(4, dtype=np.int64)
    with pytest.raises((ValueError, OverflowError, TypeError)) as info:
        int_kernel[(1,)](out, 2**70, 4, BLOCK=4)
    assert "'base'" in str(info.value) and "64 bits" in str(info.value), str(info.value)


@pytest.mark.parametrize("grid", ["ab", (1.5,), None, {"x": 1}])
def test_grid_of_the_wrong_type_is_a_type_error(grid):
    out = np.zeros(4, dtype=np.int64)
    with pytest.raises(TypeError):
        int_kernel[grid](out, 1, 4, BLOCK=4)


@pytest.mark.parametrize("grid,words", [((1, 1, 1, 1), "1 to 3"), ((), "1 to 3"), ((-1,), "negative"),
                                        ((2, -3), "negative")])
def test_grid_of_the_wrong_shape(grid, words):
    out = np.zeros(4, dtype=np.int64)
    with pytest.raises((ValueError, tessera.TesseraError), match=words):
        int_kernel[grid](out, 1, 4, BLOCK=4)
    np.testing.assert_array_equal(out, 0)


class _GridFailure(Exception):
    pass


def test_exceptions_of_a_grid_callable_propagate():
    out = np.zeros(4, dtype=np.int64)
    with pytest.raises(KeyError, match="nope"):
        int_kernel[lambda meta: (meta["nope"],)](out, 1, 4, BLOCK=4)

    def failing(meta):
        raise _GridFailure("boom %d" % meta["BLOCK"])

    with pytest.raises(_GridFailure, match="boom 4"):
        int_kernel[failing](out, 1, 4, BLOCK=4)
    np.testing.assert_array_equal(out, 0)
    int_kernel[lambda meta: (1,)](out, 10, 4, BLOCK=4)
    np.testing.assert_array_equal(out, [10, 11, 12, 13])


# ------------------------------------------------------ what binds fine

@pytest.mark.parametrize("form", ["keywords", "positional", "shuffled"])
def test_constexpr_between_runtime_parameters(form):
    g = rng("between", form)
    n = 301
    x = g.standard_normal(n).astype(np.float32)
    out = np.zeros(n, dtype=np.float32)
    grid = (tessera.cdiv(n, 128),)
    if form == "keywords":
        between_kernel[grid](x, out, n, D=4, scale=0.25, BLOCK=128)
    elif form == "positional":
        between_kernel[grid](x, out, n, 4, 0.25, 128)  # Triton's rule: every parameter in order
    else:
        between_kernel[grid](BLOCK=128, scale=0.25, n=n, D=4, out_ptr=out, x_ptr=x)
    np.testing.assert_allclose(out, x * 4 * 0.25, rtol=1e-6)


def test_constexpr_between_runtime_parameters_gets_each_value():
    # D and scale must not be swapped: 3 * 0.5 and 0.5 * 3 agree, 3 and 7 do not.
    g = rng("between_values")
    n = 64
    x = g.standard_normal(n).astype(np.float32)
    out = np.zeros(n, dtype=np.float32)
    between_kernel[(1,)](x, out, n, D=3, scale=7.0, BLOCK=64)
    np.testing.assert_allclose(out, x * 21.0, rtol=1e-6)
    between_kernel[(1,)](x, out, n, D=7, scale=0.5, BLOCK=64)
    np.testing.assert_allclose(out, x * 3.5, rtol=1e-6)


def test_mixing_arrays_of_several_dtypes_and_layouts():
    g = rng("mixing")
    src = (g.standard_normal(500) * 10).astype(np.float16)
    n = 333
    idx32 = g.integers(0, 500, size=n).astype(np.int32)
    idx64_store = g.integers(0, 500, size=(2, n)).astype(np.int64)
    out = np.zeros(n, dtype=np.float32)
    gather_kernel[(tessera.cdiv(n, 128),)](src, idx32, out, n, BLOCK=128)
    np.testing.assert_array_equal(out, src[idx32].astype(np.float32) * 0.5)
    idx64 = idx64_store[1]  # int64 indices, a row of a 2-D array (an offset view)
    out2 = np.zeros(n, dtype=np.float32)
    gather_kernel[(tessera.cdiv(n, 128),)](src, idx64, out2, n, BLOCK=128)
    np.testing.assert_array_equal(out2, src[idx64].astype(np.float32) * 0.5)


def test_one_array_passed_for_two_parameters():
    g = rng("aliasing")
    n = 100
    x = g.standard_normal(n).astype(np.float32)
    expected = x * 2
    scale_kernel[(1,)](x, x, n, BLOCK=128)  # in place
    np.testing.assert_array_equal(x, expected)


# ---------------------------------------------------- compiler diagnostics

def _where(kernel, text):
    return "%s:%d:" % (os.path.basename(kernel.fn.__code__.co_filename), line_of(kernel, text))


def test_kernel_bug_names_file_and_line():
    x = np.zeros(16 * 16, dtype=np.float32)
    out = np.zeros(16, dtype=np.float32)
    with pytest.raises(tessera.TesseraError) as info:
        shape_bug_kernel[(1,)](x, out, BLOCK=16)
    msg = str(info.value)
    assert isinstance(info.value, RuntimeError)
    assert _where(shape_bug_kernel, "tl.store(out_ptr + offs, rows)") in msg, msg
    assert "test_binding.py" in msg
    np.testing.assert_array_equal(out, 0.0)


def test_arange_of_a_non_power_of_two_names_file_line_and_column():
    out = np.zeros(16, dtype=np.int32)
    with pytest.raises(tessera.TesseraError) as info:
        arange_bug_kernel[(1,)](out, 10)
    msg = str(info.value)
    where = _where(arange_bug_kernel, "tl.arange(0, 10)")
    assert where in msg, msg
    # file:line:col, the column pointing into that line
    col = int(msg.split(where, 1)[1].split(":", 1)[0])
    line = open(arange_bug_kernel.fn.__code__.co_filename).read().splitlines()[line_of(arange_bug_kernel, "tl.arange(0, 10)") - 1]
    assert 1 <= col <= len(line)


def test_compile_error_is_the_compilation_error_type():
    out = np.zeros(16, dtype=np.int32)
    with pytest.raises(tessera.CompilationError):
        arange_bug_kernel[(1,)](out, 10)


@pytest.mark.interpreter_only
def test_out_of_bounds_access_on_the_interpreter():
    x = np.ones(10, dtype=np.float32)
    out = np.zeros(64, dtype=np.float32)
    with pytest.raises(tessera.TesseraError) as info:
        oob_kernel[(1,)](x, out, BLOCK=64)
    msg = str(info.value)
    assert "oob_kernel" in msg, msg
    assert _where(oob_kernel, "tl.load(x_ptr + offs)") in msg, msg


@pytest.mark.interpreter_only
def test_errors_do_not_poison_later_launches():
    x, out = _arrays()
    with pytest.raises(TypeError):
        scale_kernel[(1,)](x, out, 40, BLOCK=64, bogus=1)
    with pytest.raises(TypeError):
        scale_kernel[(1,)](x, object(), 40, BLOCK=64)  # fails after x is bound
    with pytest.raises(TypeError):
        scale_kernel[(1,)](x, out, "40", BLOCK=64)
    with pytest.raises(tessera.TesseraError):
        arange_bug_kernel[(1,)](np.zeros(16, dtype=np.int32), 10)
    scale_kernel[(1,)](x, out, 40, BLOCK=64)
    np.testing.assert_array_equal(out, x * 2)


@pytest.mark.interpreter_only
def test_failed_device_assert_names_the_message_and_line():
    x = np.array([1.0, -1.0, 2.0, 3.0], dtype=np.float32)
    with pytest.raises(tessera.TesseraError) as info:
        assert_kernel[(1,)](x, BLOCK=4)
    msg = str(info.value)
    assert "x must be positive" in msg, msg
    assert _where(assert_kernel, "tl.device_assert") in msg, msg
    assert_kernel[(1,)](np.abs(x) + 1, BLOCK=4)  # all positive: no error
