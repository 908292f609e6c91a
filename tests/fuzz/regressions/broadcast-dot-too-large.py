import triton
import triton.language as tl

@triton.jit
def k(x_ptr):
    x = tl.zeros((1 << 20, 1), tl.int8) + tl.zeros((1, 1 << 20), tl.int8)
    tl.device_print("x", x)

@triton.jit
def d(x_ptr):
    y = tl.dot(tl.zeros((65536, 16), tl.float16), tl.zeros((16, 65536), tl.float16))
    tl.device_print("y", y)
