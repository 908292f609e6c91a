"""Compile-time and run-time debugging aids."""
import triton
import triton.language as tl


@triton.jit
def static_checks(x_ptr, out_ptr, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK % 16 == 0, "BLOCK must be a multiple of 16")
    tl.static_print("static_checks compiled for BLOCK", BLOCK)
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) * 2)


@triton.jit
def print_values(x_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.device_print("val", x)
    tl.device_print("program", tl.program_id(0))


@triton.jit(debug=True)
def checked_positive(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1)
    tl.device_assert(x > 0, "x must be positive")
    tl.store(out_ptr + offs, x * 10, mask=m)


@triton.jit
def unchecked_positive(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1)
    tl.device_assert(x > 0, "x must be positive")
    tl.store(out_ptr + offs, x * 10, mask=m)


@triton.jit
def uses_inline_asm(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.inline_asm_elementwise("shf.l.wrap.b32 $0, $1, $1, 3;", "=r,r", [x], dtype=tl.int32, is_pure=True, pack=1)
    tl.store(y_ptr + offs, y)


@triton.jit
def inline_asm_packed_xor(x_ptr, y_ptr, z_ptr, BLOCK: tl.constexpr):
    # pack=4: four int8 lanes share one 32-bit register of each operand.
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    z = tl.inline_asm_elementwise("xor.b32 $0, $1, $2;", "=r,r,r", [x, y], dtype=tl.int8, is_pure=True, pack=4)
    tl.store(z_ptr + offs, z)


@triton.jit
def inline_asm_two_results(a_ptr, b_ptr, lo_ptr, hi_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    lo, hi = tl.inline_asm_elementwise("mul.lo.u32 $0, $2, $3;\n\tmul.hi.u32 $1, $2, $3;", "=r,=r,r,r", [a, b],
                                       dtype=(tl.uint32, tl.uint32), is_pure=True, pack=1)
    tl.store(lo_ptr + offs, lo)
    tl.store(hi_ptr + offs, hi)


@triton.jit
def inline_asm_widening(x_ptr, y_ptr, BLOCK: tl.constexpr):
    # pack=4 across widths (Triton's rule, as its fp8e4b15 conversion):
    # four uint8 share one input register ($2), their four uint16 results
    # fill two output registers ($0, $1), zero-extended byte by byte.
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.inline_asm_elementwise("prmt.b32 $0, $2, 0, 0x4140;\n\tprmt.b32 $1, $2, 0, 0x4342;", "=r,=r,r", [x],
                                  dtype=tl.uint16, is_pure=True, pack=4)
    tl.store(y_ptr + offs, y)


@triton.jit
def inline_asm_narrowing(x_ptr, y_ptr, BLOCK: tl.constexpr):
    # pack=4 the other way: four int32 inputs, one register each ($1-$4),
    # their low bytes packed into one output register ($0) of four int8.
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.inline_asm_elementwise("bfi.b32 $0, $2, $1, 8, 8;\n\tbfi.b32 $0, $3, $0, 16, 8;\n\tbfi.b32 $0, $4, $0, 24, 8;",
                                  "=r,r,r,r,r", [x], dtype=tl.int8, is_pure=True, pack=4)
    tl.store(y_ptr + offs, y)


@triton.jit
def inline_asm_immediates(x_ptr, y_ptr, BLOCK: tl.constexpr):
    # "n" operands are immediates in the asm text (lop3's LUT must be one):
    # y = (x & 0x000f000f) | 0x64006400, the int4-to-fp16 trick's first step.
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    LUT: tl.constexpr = (0xF0 & 0xCC) | 0xAA
    y = tl.inline_asm_elementwise("lop3.b32 $0, $1, $2, $3, $4;", "=r,r,n,n,n",
                                  [x, 0x000F000F, 0x64006400, LUT], dtype=tl.int32, is_pure=True, pack=1)
    tl.store(y_ptr + offs, y)


@triton.jit
def inline_asm_on_dot(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    # Inline asm on a dot's result, two elements per statement: the asm
    # computes in the tensor cores' layout (PropagateDotLayouts), y = x / 2 + 1.
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    s = tl.where(rn[None, :] < N - 3, tl.dot(a, b), -1.0)
    y = tl.inline_asm_elementwise("fma.rn.f32 $0, $2, 0f3F000000, 0f3F800000;\n\tfma.rn.f32 $1, $3, 0f3F000000, 0f3F800000;",
                                  "=f,=f,f,f", [s], dtype=tl.float32, is_pure=True, pack=2)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], y)
