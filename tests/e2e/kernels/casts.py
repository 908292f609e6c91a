"""Conversions between dtypes, reinterpretation, promotion and integer division."""
import triton
import triton.language as tl


@triton.jit
def narrow_floats(x_ptr, h_rn, h_rz, b_rn, b_rz, back_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    h = x.to(tl.float16)
    tl.store(h_rn + offs, h, mask=m)
    tl.store(h_rz + offs, x.to(tl.float16, fp_downcast_rounding="rtz"), mask=m)
    tl.store(b_rn + offs, tl.cast(x, tl.bfloat16), mask=m)
    tl.store(b_rz + offs, tl.cast(x, tl.bfloat16, fp_downcast_rounding="rtz"), mask=m)
    tl.store(back_ptr + offs, h.to(tl.float32) * 2.0, mask=m)


@triton.jit
def fp8_conversions(x_ptr, e4_out, e5_out, e4_in, e5_in, e4_up, e5_up, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.store(e4_out + offs, x.to(tl.float8e4nv), mask=m)
    tl.store(e5_out + offs, x.to(tl.float8e5), mask=m)
    a = tl.load(e4_in + offs, mask=m, other=0.0)
    b = tl.load(e5_in + offs, mask=m, other=0.0)
    tl.store(e4_up + offs, a.to(tl.float32), mask=m)
    tl.store(e5_up + offs, b.to(tl.float32), mask=m)


@triton.jit
def reinterpret_bits(x_ptr, bits_out, neg_out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(bits_out + offs, x.to(tl.int32, bitcast=True), mask=m)
    u = tl.cast(x, tl.uint32, bitcast=True)
    flipped = u ^ 0x80000000
    tl.store(neg_out + offs, flipped.to(tl.float32, bitcast=True), mask=m)


@triton.jit
def integer_casts(v_ptr, f_ptr, i8_out, u8_ext, s8_ext, i2f_out, f2i_out, f2b_out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(v_ptr + offs, mask=m)
    tl.store(i8_out + offs, v.to(tl.int8), mask=m)
    tl.store(u8_ext + offs, v.to(tl.uint8).to(tl.int32), mask=m)
    tl.store(s8_ext + offs, v.to(tl.int8).to(tl.int32), mask=m)
    tl.store(i2f_out + offs, v.to(tl.float32), mask=m)
    f = tl.load(f_ptr + offs, mask=m)
    tl.store(f2i_out + offs, f.to(tl.int32), mask=m)
    tl.store(f2b_out + offs, f.to(tl.int1).to(tl.int32), mask=m)


@triton.jit
def promotion_rules(a8_ptr, u8_ptr, h_ptr, bf_ptr, w_ptr, out_i, out_f, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(a8_ptr + offs)  # int8
    u = tl.load(u8_ptr + offs)  # uint8
    h = tl.load(h_ptr + offs)  # fp16
    bf = tl.load(bf_ptr + offs)  # bf16
    w = tl.load(w_ptr + offs)  # int32
    # int8 with a python literal stays int8 and wraps.
    tl.store(out_i + 0 * BLOCK + offs, (a + 1).to(tl.int32))
    tl.store(out_i + 1 * BLOCK + offs, (a * 3).to(tl.int32))
    # int8 with int32 widens.
    tl.store(out_i + 2 * BLOCK + offs, a * w)
    # uint8 + int8 is uint8.
    tl.store(out_i + 3 * BLOCK + offs, (u + a).to(tl.int32))
    # shifts: logical on unsigned, arithmetic on signed.
    tl.store(out_i + 4 * BLOCK + offs, (u >> 1).to(tl.int32))
    tl.store(out_i + 5 * BLOCK + offs, (a >> 1).to(tl.int32))
    # fp16 with literals stays fp16; `/` of fp16 is fp32.
    tl.store(out_f + 0 * BLOCK + offs, (h + 1.0).to(tl.float32))
    tl.store(out_f + 1 * BLOCK + offs, (h * 2).to(tl.float32))
    tl.store(out_f + 2 * BLOCK + offs, h / 3)
    # int / int is a float division.
    tl.store(out_f + 3 * BLOCK + offs, w / 3)
    # bf16 with int32 is fp32.
    tl.store(out_f + 4 * BLOCK + offs, bf + w)


@triton.jit
def int_div_mod(a_ptr, b_ptr, q_out, r_out, qc_out, rc_out, fmod_out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    a = tl.load(a_ptr + offs, mask=m, other=1)
    b = tl.load(b_ptr + offs, mask=m, other=1)
    tl.store(q_out + offs, a // b, mask=m)
    tl.store(r_out + offs, a % b, mask=m)
    tl.store(qc_out + offs, a // -7, mask=m)
    tl.store(rc_out + offs, a % -7, mask=m)
    tl.store(fmod_out + offs, a.to(tl.float32) % b.to(tl.float32), mask=m)


@triton.jit
def int64_math(a_ptr, out_ptr, shift, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs)  # int64
    big = a * 1000003 + shift  # stays int64
    tl.store(out_ptr + offs, big // 97 - (big % 97))
