import triton
import triton.language as tl


@triton.jit
def missing_colon(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    if n > 0
        tl.store(y_ptr + offs, tl.load(x_ptr + offs))
