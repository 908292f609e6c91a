"""Normalization kernels of Tessera's kernel library (kernels/README.md).

RMSNorm over the last dimension, forward and backward, one program per row
(n_cols <= BLOCK): y = x / sqrt(mean(x^2) + eps) * w. The forward saves
1/rms per row for the backward. Inputs of any float dtype; math in fp32.
"""
import triton
import triton.language as tl


@triton.jit
def rms_norm_fwd(x_ptr, w_ptr, y_ptr, rstd_ptr, x_stride, y_stride, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    inside = cols < n_cols
    x = tl.load(x_ptr + row * x_stride + cols, mask=inside, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=inside, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    tl.store(y_ptr + row * y_stride + cols, x * rstd * w, mask=inside)
    tl.store(rstd_ptr + row, rstd)


@triton.jit
def rms_norm_bwd(dy_ptr, x_ptr, w_ptr, rstd_ptr, dx_ptr, dw_partial_ptr, stride, n_rows, n_cols,
                 BLOCK: tl.constexpr, ROWS_PER_PROGRAM: tl.constexpr):
    """dx for ROWS_PER_PROGRAM rows, and this program's partial sum of dw
    (row dw_partial[program_id]; the caller adds the partials up):
      xhat = x * rstd,  dx = rstd * (dy * w - xhat * mean(dy * w * xhat)),
      dw = sum over rows of dy * xhat."""
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    inside = cols < n_cols
    w = tl.load(w_ptr + cols, mask=inside, other=0.0).to(tl.float32)
    dw = tl.zeros((BLOCK,), dtype=tl.float32)
    for r in tl.range(0, ROWS_PER_PROGRAM):
        row = pid * ROWS_PER_PROGRAM + r
        if row < n_rows:
            x = tl.load(x_ptr + row * stride + cols, mask=inside, other=0.0).to(tl.float32)
            dy = tl.load(dy_ptr + row * stride + cols, mask=inside, other=0.0).to(tl.float32)
            rstd = tl.load(rstd_ptr + row)
            xhat = x * rstd
            wdy = dy * w
            c = tl.sum(wdy * xhat, axis=0) / n_cols
            tl.store(dx_ptr + row * stride + cols, rstd * (wdy - xhat * c), mask=inside)
            dw += dy * xhat
    tl.store(dw_partial_ptr + pid * n_cols + cols, dw, mask=inside)


@triton.jit
def sum_rows(partial_ptr, out_ptr, n_rows, n_cols, BLOCK: tl.constexpr):
    """out[c] = sum over r of partial[r, c], BLOCK columns per program."""
    cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inside = cols < n_cols
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for r in tl.range(0, n_rows):
        acc += tl.load(partial_ptr + r * n_cols + cols, mask=inside, other=0.0)
    tl.store(out_ptr + cols, acc, mask=inside)
