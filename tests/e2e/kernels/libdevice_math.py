"""libdevice float functions. Each kernel stores one result row of n elements
per function (out[j * n + i]); LibdeviceTest.cpp lists the rows in the same
order. The kernels are generic in the float type: fp32 pointers select the
__nv_<fn>f overloads, fp64 pointers the __nv_<fn> ones."""
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def unary_any(x_ptr, out, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(out + 0 * n + offs, libdevice.sin(x), mask=m)
    tl.store(out + 1 * n + offs, libdevice.cos(x), mask=m)
    tl.store(out + 2 * n + offs, libdevice.tan(x), mask=m)
    tl.store(out + 3 * n + offs, libdevice.sinpi(x), mask=m)
    tl.store(out + 4 * n + offs, libdevice.cospi(x), mask=m)
    tl.store(out + 5 * n + offs, libdevice.atan(x), mask=m)
    tl.store(out + 6 * n + offs, libdevice.sinh(x), mask=m)
    tl.store(out + 7 * n + offs, libdevice.cosh(x), mask=m)
    tl.store(out + 8 * n + offs, libdevice.tanh(x), mask=m)
    tl.store(out + 9 * n + offs, libdevice.asinh(x), mask=m)
    tl.store(out + 10 * n + offs, libdevice.exp(x), mask=m)
    tl.store(out + 11 * n + offs, libdevice.exp2(x), mask=m)
    tl.store(out + 12 * n + offs, libdevice.exp10(x), mask=m)
    tl.store(out + 13 * n + offs, libdevice.expm1(x), mask=m)
    tl.store(out + 14 * n + offs, libdevice.cbrt(x), mask=m)
    tl.store(out + 15 * n + offs, libdevice.erf(x), mask=m)
    tl.store(out + 16 * n + offs, libdevice.erfc(x), mask=m)
    tl.store(out + 17 * n + offs, libdevice.erfcx(x), mask=m)
    tl.store(out + 18 * n + offs, libdevice.floor(x), mask=m)
    tl.store(out + 19 * n + offs, libdevice.ceil(x), mask=m)
    tl.store(out + 20 * n + offs, libdevice.trunc(x), mask=m)
    tl.store(out + 21 * n + offs, libdevice.rint(x), mask=m)
    tl.store(out + 22 * n + offs, libdevice.nearbyint(x), mask=m)
    tl.store(out + 23 * n + offs, libdevice.round(x), mask=m)
    tl.store(out + 24 * n + offs, libdevice.abs(x), mask=m)
    tl.store(out + 25 * n + offs, libdevice.j0(x), mask=m)
    tl.store(out + 26 * n + offs, libdevice.j1(x), mask=m)
    tl.store(out + 27 * n + offs, libdevice.cyl_bessel_i0(x), mask=m)
    tl.store(out + 28 * n + offs, libdevice.cyl_bessel_i1(x), mask=m)
    tl.store(out + 29 * n + offs, libdevice.normcdf(x), mask=m)
    tl.store(out + 30 * n + offs, libdevice.lgamma(x), mask=m)
    tl.store(out + 31 * n + offs, libdevice.tgamma(x), mask=m)
    tl.store(out + 32 * n + offs, libdevice.logb(x), mask=m)


@triton.jit
def unary_positive(p_ptr, out, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    p = tl.load(p_ptr + offs, mask=m, other=1.0)
    tl.store(out + 0 * n + offs, libdevice.log(p), mask=m)
    tl.store(out + 1 * n + offs, libdevice.log2(p), mask=m)
    tl.store(out + 2 * n + offs, libdevice.log10(p), mask=m)
    tl.store(out + 3 * n + offs, libdevice.log1p(p), mask=m)
    tl.store(out + 4 * n + offs, libdevice.sqrt(p), mask=m)
    tl.store(out + 5 * n + offs, libdevice.rsqrt(p), mask=m)
    tl.store(out + 6 * n + offs, libdevice.rcbrt(p), mask=m)
    tl.store(out + 7 * n + offs, libdevice.y0(p), mask=m)
    tl.store(out + 8 * n + offs, libdevice.y1(p), mask=m)
    tl.store(out + 9 * n + offs, libdevice.acosh(p + 1.0), mask=m)


@triton.jit
def unary_unit(u_ptr, out, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    u = tl.load(u_ptr + offs, mask=m, other=0.0)
    tl.store(out + 0 * n + offs, libdevice.asin(u), mask=m)
    tl.store(out + 1 * n + offs, libdevice.acos(u), mask=m)
    tl.store(out + 2 * n + offs, libdevice.atanh(u), mask=m)
    tl.store(out + 3 * n + offs, libdevice.erfinv(u), mask=m)
    tl.store(out + 4 * n + offs, libdevice.erfcinv(u + 1.0), mask=m)
    tl.store(out + 5 * n + offs, libdevice.normcdfinv(u * 0.5 + 0.5), mask=m)


@triton.jit
def multi_arg(x_ptr, y_ptr, p_ptr, k_ptr, out, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1.0)
    y = tl.load(y_ptr + offs, mask=m, other=1.0)
    p = tl.load(p_ptr + offs, mask=m, other=1.0)
    k = tl.load(k_ptr + offs, mask=m, other=1)
    tl.store(out + 0 * n + offs, libdevice.atan2(x, y), mask=m)
    tl.store(out + 1 * n + offs, libdevice.hypot(x, y), mask=m)
    tl.store(out + 2 * n + offs, libdevice.rhypot(x, y), mask=m)
    tl.store(out + 3 * n + offs, libdevice.fmod(x, y), mask=m)
    tl.store(out + 4 * n + offs, libdevice.remainder(x, y), mask=m)
    tl.store(out + 5 * n + offs, libdevice.fdim(x, y), mask=m)
    tl.store(out + 6 * n + offs, libdevice.copysign(x, y), mask=m)
    tl.store(out + 7 * n + offs, libdevice.nextafter(x, y), mask=m)
    tl.store(out + 8 * n + offs, libdevice.pow(p, x), mask=m)
    tl.store(out + 9 * n + offs, libdevice.pow(x, k), mask=m)
    tl.store(out + 10 * n + offs, libdevice.ldexp(x, k), mask=m)
    tl.store(out + 11 * n + offs, libdevice.scalbn(x, k), mask=m)
    tl.store(out + 12 * n + offs, libdevice.jn(k, p), mask=m)
    tl.store(out + 13 * n + offs, libdevice.yn(k, p), mask=m)
    tl.store(out + 14 * n + offs, libdevice.fma(x, y, p), mask=m)
    tl.store(out + 15 * n + offs, libdevice.norm3d(x, y, p), mask=m)
    tl.store(out + 16 * n + offs, libdevice.rnorm3d(x, y, p), mask=m)
    tl.store(out + 17 * n + offs, libdevice.norm4d(x, y, p, x * 0.5), mask=m)
    tl.store(out + 18 * n + offs, libdevice.rnorm4d(x, y, p, x * 0.5), mask=m)


@triton.jit
def fp32_only(x_ptr, y_ptr, p_ptr, out, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1.0)
    y = tl.load(y_ptr + offs, mask=m, other=1.0)
    p = tl.load(p_ptr + offs, mask=m, other=1.0)
    tl.store(out + 0 * n + offs, libdevice.fast_sinf(x), mask=m)
    tl.store(out + 1 * n + offs, libdevice.fast_cosf(x), mask=m)
    tl.store(out + 2 * n + offs, libdevice.fast_tanf(x), mask=m)
    tl.store(out + 3 * n + offs, libdevice.fast_expf(x), mask=m)
    tl.store(out + 4 * n + offs, libdevice.fast_exp10f(x), mask=m)
    tl.store(out + 5 * n + offs, libdevice.fast_logf(p), mask=m)
    tl.store(out + 6 * n + offs, libdevice.fast_log2f(p), mask=m)
    tl.store(out + 7 * n + offs, libdevice.fast_log10f(p), mask=m)
    tl.store(out + 8 * n + offs, libdevice.tanh(x), mask=m)
    tl.store(out + 9 * n + offs, libdevice.fast_powf(p, x), mask=m)
    tl.store(out + 10 * n + offs, libdevice.fast_dividef(x, y), mask=m)
    tl.store(out + 11 * n + offs, libdevice.saturatef(x), mask=m)
    tl.store(out + 12 * n + offs, libdevice.rsqrt_rn(p), mask=m)


@triton.jit
def classify32(x_ptr, out_i32, out_i64, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(out_i32 + 0 * n + offs, libdevice.isnan(x).to(tl.int32), mask=m)
    tl.store(out_i32 + 1 * n + offs, libdevice.isinf(x).to(tl.int32), mask=m)
    tl.store(out_i32 + 2 * n + offs, libdevice.finitef(x).to(tl.int32), mask=m)
    tl.store(out_i32 + 3 * n + offs, libdevice.signbit(x), mask=m)
    tl.store(out_i32 + 4 * n + offs, libdevice.ilogb(x), mask=m)
    tl.store(out_i64 + 0 * n + offs, libdevice.llrint(x), mask=m)
    tl.store(out_i64 + 1 * n + offs, libdevice.llround(x), mask=m)


@triton.jit
def classify64(x_ptr, out_i32, out_i64, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(out_i32 + 0 * n + offs, libdevice.isnan(x).to(tl.int32), mask=m)
    tl.store(out_i32 + 1 * n + offs, libdevice.isinf(x).to(tl.int32), mask=m)
    tl.store(out_i32 + 2 * n + offs, libdevice.isfinited(x).to(tl.int32), mask=m)
    tl.store(out_i32 + 3 * n + offs, libdevice.signbit(x), mask=m)
    tl.store(out_i32 + 4 * n + offs, libdevice.ilogb(x), mask=m)
    tl.store(out_i64 + 0 * n + offs, libdevice.llrint(x), mask=m)
    tl.store(out_i64 + 1 * n + offs, libdevice.llround(x), mask=m)
