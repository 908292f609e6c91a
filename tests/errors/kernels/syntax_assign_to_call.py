import triton
import triton.language as tl


@triton.jit
def assign_call(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.load(x_ptr + offs) = 3
