import triton
import triton.language as tl


@triton.jit
def unclosed(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, offs
