"""fp8 conversions of every fp8 kind, from and to every wider float type."""
import triton
import triton.language as tl


@triton.jit
def fp8_encode_from(x_ptr, out_ptr, n, DT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(out_ptr + offs, x.to(DT).to(tl.uint8, bitcast=True), mask=m)


@triton.jit
def fp8_decode_to(b_ptr, out_ptr, n, DT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    b = tl.load(b_ptr + offs, mask=m)
    tl.store(out_ptr + offs, b.to(DT, bitcast=True).to(out_ptr.dtype.element_ty), mask=m)
