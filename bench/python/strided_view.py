"""A kernel on a transposed (strided) view: out = x.T * scale + bias, where
x.T is passed as it is, its strides given to the kernel."""
import torch
import triton
import triton.language as tl

import common


@triton.jit
def scale_bias_kernel(x_ptr, b_ptr, out_ptr, M, N, stride_xm, stride_xn, stride_om, stride_on, scale,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * stride_xm + rn[None, :] * stride_xn, mask=mask)
    b = tl.load(b_ptr + rn, mask=rn < N)
    y = x.to(tl.float32) * scale + b[None, :].to(tl.float32)
    tl.store(out_ptr + rm[:, None] * stride_om + rn[None, :] * stride_on, y.to(out_ptr.dtype.element_ty), mask=mask)


def scale_bias(x, b, scale):
    M, N = x.shape
    out = torch.empty((M, N), device=x.device, dtype=x.dtype)
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]), triton.cdiv(N, meta["BLOCK_N"]))
    scale_bias_kernel[grid](x, b, out, M, N, x.stride(0), x.stride(1), out.stride(0), out.stride(1), scale,
                            BLOCK_M=64, BLOCK_N=64)
    return out


def main():
    a = common.args()
    torch.manual_seed(0)
    base = torch.randn(3001, 2049, device="cuda", dtype=torch.float16)
    x = base.t()[5:, 3:]  # strides (1, 2049), an offset into the storage
    b = torch.randn(x.shape[1], device="cuda", dtype=torch.float16)
    out, first = common.first_launch(lambda: scale_bias(x, b, 0.5))
    ref = (x.float() * 0.5 + b.float()).half()
    torch.testing.assert_close(out, ref, atol=2e-3, rtol=2e-3)
    ms = common.bench(lambda: scale_bias(x, b, 0.5), a.quick)
    common.report("strided_view", a.out, {"out": out}, first, ms)


if __name__ == "__main__":
    main()
