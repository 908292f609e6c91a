"""Residual add followed by RMSNorm, in one pass over the row:
s = x + residual; y = rmsnorm(s).  Both s and y are written."""

import torch
import triton
import triton.language as tl

from .rms_norm import _rms_normalize
from .utils import _str_to_casting_mode
from .utils import calculate_settings
from .utils import ensure_contiguous


@triton.jit
def _fused_add_rms_norm_forward_kernel(
    Y_ptr,
    Y_row_stride,
    S_ptr,  # x + residual, returned as the new residual stream
    S_row_stride,
    X_ptr,
    X_row_stride,
    R_ptr,
    R_row_stride,
    W_ptr,
    RSTD_ptr,
    n_cols,
    eps,
    offset,
    casting_mode: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_SIZE)
    ok = cols < n_cols
    x = tl.load(X_ptr + row * X_row_stride + cols, mask=ok, other=0.0)
    r = tl.load(R_ptr + row * R_row_stride + cols, mask=ok, other=0.0)
    s = x + r
    tl.store(S_ptr + row * S_row_stride + cols, s, mask=ok)
    w = tl.load(W_ptr + cols, mask=ok, other=0.0)
    y, rstd = _rms_normalize(s, w, n_cols, eps, offset, casting_mode)
    tl.store(RSTD_ptr + row, rstd)
    tl.store(Y_ptr + row * Y_row_stride + cols, y, mask=ok)


class FusedAddRMSNormFunction(torch.autograd.Function):

    @staticmethod
    @ensure_contiguous
    def forward(ctx, X, R, W, eps, offset=0.0, casting_mode="llama"):
        mode = _str_to_casting_mode[casting_mode]
        shape = X.shape
        X2 = X.view(-1, shape[-1])
        R2 = R.view(-1, shape[-1])
        n_rows, n_cols = X2.shape
        BLOCK_SIZE, num_warps = calculate_settings(n_cols)
        Y = torch.empty_like(X2)
        S = torch.empty_like(X2)
        RSTD = torch.empty(n_rows, dtype=torch.float32, device=X.device)
        _fused_add_rms_norm_forward_kernel[(n_rows, )](
            Y, Y.stride(0), S, S.stride(0), X2, X2.stride(0), R2, R2.stride(0), W, RSTD, n_cols, eps, offset,
            casting_mode=mode, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
        ctx.save_for_backward(S, W, RSTD)
        return Y.view(*shape), S.view(*shape)
