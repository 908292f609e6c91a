import triton
import triton.language as tl


@triton.jit
def no_body(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
offs = tl.arange(0, BLOCK)
