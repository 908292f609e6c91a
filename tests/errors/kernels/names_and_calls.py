import triton
import triton.language as tl

SCALE = object()  # a host object: not usable inside a kernel
LIMIT = tl.constexpr(8)


@triton.jit
def _pair(a, b):
    return a + b


@triton.jit(noinline=True)
def _scalar_only(v):
    return v * 2


@triton.jit
def unknown_tl_function(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.lod(x_ptr + offs)
    tl.store(y_ptr + offs, x)


@triton.jit
def undefined_name(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, offs + undefined_thing)


@triton.jit
def too_many_args(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    s = _pair(offs, 1, 2)
    tl.store(y_ptr + offs, s)


@triton.jit
def wrong_keyword(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, maks=offs < n)
    tl.store(y_ptr + offs, x)


@triton.jit
def non_constexpr_global(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, offs * SCALE + LIMIT)


@triton.jit
def unknown_method(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, x.frobnicate())


@triton.jit
def bad_program_axis(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(3)
    tl.store(y_ptr + pid, 1.0)


@triton.jit
def other_without_mask(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, other=0.0)
    tl.store(y_ptr + offs, x)
