import triton
import triton.language as tl


@triton.jit
def bad_string(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    tl.static_print("offsets are
    offs = tl.arange(0, BLOCK)
