import triton
import triton.language as tl


@triton.jit
def over_indented(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, x)
