import triton
import triton.language as tl

@triton.jit
def k(x_ptr, num):
    b = tl.make_block_ptr(x_ptr, (1024, 1024), (9223372036854775807, 1), (0, 0), (16, 16), (1, 0))
    v = tl.load(b, boundary_check=(0, 1))
    tl.store(b, v, boundary_check=(0, 1))
