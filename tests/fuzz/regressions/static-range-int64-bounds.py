import triton
import triton.language as tl

@triton.jit
def k(x_ptr):
    for i in tl.static_range(-9223372036854775808, 9223372036854775807, 9223372036854775807):
        tl.store(x_ptr + (i % 7), 1.0)
    for j in tl.static_range(-9223372036854775808, 9223372036854775807):
        pass
