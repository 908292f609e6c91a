import triton
import triton.language as tl

@triton.jit
def k(x_ptr):
    x = tl.reshape(tl.zeros((16,), tl.int8), (-(1 << 62), -4))
    y = tl.zeros((2, 1 << 62), tl.int8)
