import triton
import triton.language as tl


@triton.jit
def add_one(x_ptr, y_ptr, n: tl.int32, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) + 1, mask=m)


@triton.jit
def unmasked_overrun(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    # Programs 0 and 1 stay in bounds; program 2 reads far past the end.
    offs = pid * BLOCK + (pid // 2) * 5000000 + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, x, mask=offs < n)


@triton.jit
def divide_by_zero(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    d = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, 1000 // d)


@triton.jit(debug=True)
def assert_in_range(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs)
    tl.device_assert(v < n, "value out of range")
    tl.store(y_ptr + offs, v)
