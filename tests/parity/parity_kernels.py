"""Kernels whose results must agree bit for bit (or within a stated tolerance)
between Triton 3.6 on a GPU and Tessera's interpreter. Written for the parity
check in tests/parity/run; each kernel exercises one area of the language's
semantics."""
import triton
import triton.language as tl


@triton.jit
def prng(seed, out_int, out_uniform, out_normal, o0, o1, o2, o3, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = offs < n
    tl.store(out_int + offs, tl.randint(seed, offs), mask=keep)
    tl.store(out_uniform + offs, tl.rand(seed, offs), mask=keep)
    tl.store(out_normal + offs, tl.randn(seed, offs), mask=keep)
    a, b, c, d = tl.randint4x(seed, offs)
    tl.store(o0 + offs, a, mask=keep)
    tl.store(o1 + offs, b, mask=keep)
    tl.store(o2 + offs, c, mask=keep)
    tl.store(o3 + offs, d, mask=keep)


@triton.jit
def int_semantics(a_ptr, b_ptr, q_ptr, r_ptr, sh_ptr, mul_ptr, div_ptr, hi_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = offs < n
    a = tl.load(a_ptr + offs, mask=keep, other=1)
    b = tl.load(b_ptr + offs, mask=keep, other=1)
    tl.store(q_ptr + offs, a // b, mask=keep)
    tl.store(r_ptr + offs, a % b, mask=keep)
    tl.store(sh_ptr + offs, (a >> 3) ^ (b << 2), mask=keep)
    tl.store(mul_ptr + offs, a * b + 7, mask=keep)
    tl.store(div_ptr + offs, a / b, mask=keep)
    tl.store(hi_ptr + offs, tl.umulhi(a.to(tl.uint32), b.to(tl.uint32)).to(tl.int32, bitcast=True), mask=keep)


@triton.jit
def narrow_ints(x_ptr, wrap_ptr, small_sum_ptr, cmp_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    keep = offs < n
    x = tl.load(x_ptr + offs, mask=keep, other=0)          # int8
    tl.store(wrap_ptr + offs, x + 100, mask=keep)           # weak literal: stays int8, wraps
    tl.store(small_sum_ptr, tl.sum(x, axis=0))              # int8 sum -> int32
    u = x.to(tl.uint32)
    tl.store(cmp_ptr + offs, (u > 200).to(tl.int32), mask=keep)


@triton.jit
def float_casts(x_ptr, f16_ptr, bf16_ptr, rtz_ptr, e4_ptr, e5_ptr, i32_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = offs < n
    x = tl.load(x_ptr + offs, mask=keep, other=0.0)
    tl.store(f16_ptr + offs, x.to(tl.float16), mask=keep)
    tl.store(bf16_ptr + offs, x.to(tl.bfloat16), mask=keep)
    tl.store(rtz_ptr + offs, x.to(tl.float16, fp_downcast_rounding="rtz"), mask=keep)
    tl.store(e4_ptr + offs, x.to(tl.float8e4nv), mask=keep)
    tl.store(e5_ptr + offs, x.to(tl.float8e5), mask=keep)
    tl.store(i32_ptr + offs, x.to(tl.int32), mask=keep)


@triton.jit
def promotion(h_ptr, b_ptr, i_ptr, hb_ptr, bi_ptr, hi_ptr, hdiv_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = offs < n
    h = tl.load(h_ptr + offs, mask=keep, other=1.0)   # fp16
    b = tl.load(b_ptr + offs, mask=keep, other=1.0)   # bf16
    i = tl.load(i_ptr + offs, mask=keep, other=1)     # int32
    tl.store(hb_ptr + offs, h + b, mask=keep)         # fp16
    tl.store(bi_ptr + offs, b * i, mask=keep)         # fp32
    tl.store(hi_ptr + offs, h * 3 + i, mask=keep)     # fp16
    tl.store(hdiv_ptr + offs, h / 3, mask=keep)       # fp32


@triton.jit
def exact_math(x_ptr, y_ptr, fma_ptr, divrn_ptr, sqrtrn_ptr, floor_ptr, max_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = offs < n
    x = tl.load(x_ptr + offs, mask=keep, other=1.0)
    y = tl.load(y_ptr + offs, mask=keep, other=1.0)
    tl.store(fma_ptr + offs, tl.fma(x, y, x), mask=keep)
    tl.store(divrn_ptr + offs, tl.div_rn(x, y), mask=keep)
    tl.store(sqrtrn_ptr + offs, tl.sqrt_rn(tl.abs(x)), mask=keep)
    tl.store(floor_ptr + offs, tl.floor(x) + tl.ceil(y), mask=keep)
    tl.store(max_ptr + offs, tl.maximum(x, y) - tl.minimum(x, y), mask=keep)


@triton.jit
def approx_math(x_ptr, exp_ptr, log_ptr, sin_ptr, erf_ptr, sig_ptr, rsqrt_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = offs < n
    x = tl.load(x_ptr + offs, mask=keep, other=1.0)
    tl.store(exp_ptr + offs, tl.exp(x), mask=keep)
    tl.store(log_ptr + offs, tl.log(tl.abs(x) + 1.0), mask=keep)
    tl.store(sin_ptr + offs, tl.sin(x) + tl.cos(x), mask=keep)
    tl.store(erf_ptr + offs, tl.erf(x), mask=keep)
    tl.store(sig_ptr + offs, tl.sigmoid(x), mask=keep)
    tl.store(rsqrt_ptr + offs, tl.rsqrt(tl.abs(x) + 0.5), mask=keep)


@triton.jit
def row_reductions(x_ptr, i_ptr, sum_ptr, max_ptr, argmax_ptr, cumsum_ptr, xor_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    keep = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=keep, other=float("-inf"))
    v = tl.load(i_ptr + row * n_cols + cols, mask=keep, other=0)
    tl.store(sum_ptr + row, tl.sum(v, axis=0))
    tl.store(max_ptr + row, tl.max(x, axis=0))
    tl.store(argmax_ptr + row, tl.argmax(v, axis=0))
    tl.store(cumsum_ptr + row * n_cols + cols, tl.cumsum(v, axis=0), mask=keep)
    tl.store(xor_ptr + row, tl.xor_sum(v, axis=0))


from triton.language.extra import libdevice  # noqa: E402


@triton.jit
def libdevice_exact(x_ptr, y_ptr, i_ptr, j_ptr, f2i_rn, f2i_rz, f2u_rd, add_ru, mul_rd, div_rz, mul24, signbit,
                    ilogb, bits, ints, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = offs < n
    x = tl.load(x_ptr + offs, mask=keep, other=1.0)
    y = tl.load(y_ptr + offs, mask=keep, other=1.0)
    i = tl.load(i_ptr + offs, mask=keep, other=1)
    j = tl.load(j_ptr + offs, mask=keep, other=1)
    tl.store(f2i_rn + offs, libdevice.float2int_rn(x), mask=keep)
    tl.store(f2i_rz + offs, libdevice.float2int_rz(x), mask=keep)
    tl.store(f2u_rd + offs, libdevice.float2uint_rd(x), mask=keep)
    tl.store(add_ru + offs, libdevice.add_ru(x, y), mask=keep)
    tl.store(mul_rd + offs, libdevice.mul_rd(x, y), mask=keep)
    tl.store(div_rz + offs, libdevice.div_rz(x, y), mask=keep)
    tl.store(mul24 + offs, libdevice.mul24(i, j), mask=keep)
    tl.store(signbit + offs, libdevice.signbit(x), mask=keep)
    tl.store(ilogb + offs, libdevice.ilogb(x), mask=keep)
    tl.store(bits + offs, libdevice.float_as_int(x), mask=keep)
    tl.store(ints + offs, libdevice.popc(i) + libdevice.clz(j) * 64 + libdevice.brev(i) + libdevice.byte_perm(i, j, 0x3210 + (j & 7)), mask=keep)


@triton.jit
def libdevice_approx(x_ptr, y_ptr, tanh_ptr, pow_ptr, atan2_ptr, erfinv_ptr, lgamma_ptr, j0_ptr, cbrt_ptr, expm1_ptr,
                     n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = offs < n
    x = tl.load(x_ptr + offs, mask=keep, other=0.5)
    y = tl.load(y_ptr + offs, mask=keep, other=0.5)
    tl.store(tanh_ptr + offs, libdevice.tanh(x), mask=keep)
    tl.store(pow_ptr + offs, libdevice.pow(tl.abs(x), y), mask=keep)
    tl.store(atan2_ptr + offs, libdevice.atan2(x, y), mask=keep)
    tl.store(erfinv_ptr + offs, libdevice.erfinv(x * 0.99), mask=keep)
    tl.store(lgamma_ptr + offs, libdevice.lgamma(tl.abs(x) + 0.1), mask=keep)
    tl.store(j0_ptr + offs, libdevice.j0(x * 10.0), mask=keep)
    tl.store(cbrt_ptr + offs, libdevice.cbrt(x), mask=keep)
    tl.store(expm1_ptr + offs, libdevice.expm1(x), mask=keep)


@triton.jit
def libdevice_subnormal(xd_ptr, x_ptr, d2f_rn, d2f_rz, d2f_rd, d2f_ru, rsqrt_rn, ilogb, fast_log, logf, mul_rn,
                        sqrt_rn, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = offs < n
    xd = tl.load(xd_ptr + offs, mask=keep, other=1.0)
    x = tl.load(x_ptr + offs, mask=keep, other=1.0)
    tl.store(d2f_rn + offs, libdevice.double2float_rn(xd), mask=keep)
    tl.store(d2f_rz + offs, libdevice.double2float_rz(xd), mask=keep)
    tl.store(d2f_rd + offs, libdevice.double2float_rd(xd), mask=keep)
    tl.store(d2f_ru + offs, libdevice.double2float_ru(xd), mask=keep)
    tl.store(rsqrt_rn + offs, libdevice.rsqrt_rn(x), mask=keep)
    tl.store(ilogb + offs, libdevice.ilogb(x), mask=keep)
    tl.store(fast_log + offs, libdevice.fast_logf(x), mask=keep)
    tl.store(logf + offs, libdevice.log(x), mask=keep)
    tl.store(mul_rn + offs, libdevice.mul_rn(x, x), mask=keep)
    tl.store(sqrt_rn + offs, libdevice.sqrt_rn(x), mask=keep)
