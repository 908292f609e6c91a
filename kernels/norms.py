"""Normalization kernels of Tessera's kernel library (kernels/README.md).

Over the last dimension, one program per row (n_cols <= BLOCK), forward and
backward; the forwards save per-row statistics (fp32) for the backwards:
  RMSNorm:   y = x / sqrt(mean(x^2) + eps) * w            (saves 1/rms)
  LayerNorm: y = (x - mean) / sqrt(var + eps) * w + b     (saves mean, 1/std)
and a fused forward for transformer blocks: h = x + residual (kept for the
next residual branch), then LayerNorm(h), then dropout. Backwards write dx
per row and one partial sum of dw (and db) per program, which sum_rows adds
up in two steps. Inputs of any float dtype; math in fp32; variance biased, as in torch.
"""
import triton
import triton.language as tl


@triton.jit
def rms_norm_fwd(x_ptr, w_ptr, y_ptr, rstd_ptr, x_stride, y_stride, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)  # row * stride overflows i32 past 2^31 elements
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
    pid = tl.program_id(0).to(tl.int64)
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
def sum_rows(partial_ptr, out_ptr, n_rows, n_cols, rows_per_program, BLOCK: tl.constexpr):
    """out[pid1, c] = sum of partial[r, c] over the rows r of slice pid1
    (rows_per_program of them), BLOCK columns per program along axis 0.
    Two launches reduce the backwards' partial sums: many slices first,
    then their sums, so the GPU is busy and the order is fixed."""
    cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inside = cols < n_cols
    first = tl.program_id(1).to(tl.int64) * rows_per_program
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for r in tl.range(first, tl.minimum(first + rows_per_program, n_rows)):
        acc += tl.load(partial_ptr + r * n_cols + cols, mask=inside, other=0.0)
    tl.store(out_ptr + tl.program_id(1).to(tl.int64) * n_cols + cols, acc, mask=inside)


@triton.jit
def _layer_norm_row(x, inside, n_cols, eps):
    """(x - mean) * rstd of one fp32 row, with mean and rstd."""
    mean = tl.sum(x, axis=0) / n_cols
    centered = tl.where(inside, x - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(centered * centered, axis=0) / n_cols + eps)
    return centered * rstd, mean, rstd


@triton.jit
def layer_norm_fwd(x_ptr, w_ptr, b_ptr, y_ptr, mean_ptr, rstd_ptr, x_stride, y_stride, n_cols, eps,
                   BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)  # row * stride overflows i32 past 2^31 elements
    cols = tl.arange(0, BLOCK)
    inside = cols < n_cols
    x = tl.load(x_ptr + row * x_stride + cols, mask=inside, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=inside, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=inside, other=0.0).to(tl.float32)
    xhat, mean, rstd = _layer_norm_row(x, inside, n_cols, eps)
    tl.store(y_ptr + row * y_stride + cols, xhat * w + b, mask=inside)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)


@triton.jit
def layer_norm_bwd(dy_ptr, x_ptr, w_ptr, mean_ptr, rstd_ptr, dx_ptr, dw_partial_ptr, db_partial_ptr, stride,
                   n_rows, n_cols, BLOCK: tl.constexpr, ROWS_PER_PROGRAM: tl.constexpr):
    """dx for ROWS_PER_PROGRAM rows and this program's partial dw and db:
      xhat = (x - mean) * rstd,  g = dy * w,
      dx = rstd * (g - mean(g) - xhat * mean(g * xhat)),
      dw = sum over rows of dy * xhat,  db = sum over rows of dy."""
    pid = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    inside = cols < n_cols
    w = tl.load(w_ptr + cols, mask=inside, other=0.0).to(tl.float32)
    dw = tl.zeros((BLOCK,), dtype=tl.float32)
    db = tl.zeros((BLOCK,), dtype=tl.float32)
    for r in tl.range(0, ROWS_PER_PROGRAM):
        row = pid * ROWS_PER_PROGRAM + r
        if row < n_rows:
            x = tl.load(x_ptr + row * stride + cols, mask=inside, other=0.0).to(tl.float32)
            dy = tl.load(dy_ptr + row * stride + cols, mask=inside, other=0.0).to(tl.float32)
            mean = tl.load(mean_ptr + row)
            rstd = tl.load(rstd_ptr + row)
            xhat = tl.where(inside, (x - mean) * rstd, 0.0)
            g = dy * w
            c1 = tl.sum(g * xhat, axis=0) / n_cols
            c2 = tl.sum(g, axis=0) / n_cols
            tl.store(dx_ptr + row * stride + cols, rstd * (g - c2 - xhat * c1), mask=inside)
            dw += dy * xhat
            db += dy
    tl.store(dw_partial_ptr + pid * n_cols + cols, dw, mask=inside)
    tl.store(db_partial_ptr + pid * n_cols + cols, db, mask=inside)


@triton.jit
def add_layer_norm_dropout(x_ptr, res_ptr, w_ptr, b_ptr, y_ptr, h_ptr, stride, n_cols, eps, p, seed,
                           BLOCK: tl.constexpr):
    """h = x + residual (stored to h_ptr), y = dropout(LayerNorm(h) * w + b):
    an element survives when tl.rand(seed, row * n_cols + col) >= p and is
    then scaled by 1 / (1 - p). The LayerNorm reads the fp32 sum, before
    it is rounded for storage."""
    row = tl.program_id(0).to(tl.int64)  # row * stride overflows i32 past 2^31 elements
    cols = tl.arange(0, BLOCK)
    inside = cols < n_cols
    offs = row * stride + cols
    h = (tl.load(x_ptr + offs, mask=inside, other=0.0).to(tl.float32)
         + tl.load(res_ptr + offs, mask=inside, other=0.0).to(tl.float32))
    tl.store(h_ptr + offs, h, mask=inside)
    w = tl.load(w_ptr + cols, mask=inside, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=inside, other=0.0).to(tl.float32)
    xhat, mean, rstd = _layer_norm_row(h, inside, n_cols, eps)
    keep = tl.rand(seed, row * n_cols + cols) >= p
    y = tl.where(keep, (xhat * w + b) * (1.0 / (1.0 - p)), 0.0)
    tl.store(y_ptr + offs, y, mask=inside)
