import triton
import triton.language as tl

@triton.jit
def k(x_ptr):
    b = tl.make_block_ptr(x_ptr, (16,), (1,), (0,), (16,), (0,))
    tl.device_print("b", b)
