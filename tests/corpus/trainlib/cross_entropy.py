"""Cross entropy over a large vocabulary without materializing softmax.

One program per row makes two passes over the logits: the first computes the
log-sum-exp online, the second overwrites the logits with the gradient of
the loss, so backward is a scale by the upstream gradient."""

import operator
from typing import Optional

import torch
import triton
import triton.language as tl

from trainlib.utils import compare_version
from trainlib.utils import element_mul_kernel
from trainlib.utils import is_hip

if compare_version("triton", operator.ge, "3.0.0"):
    try:
        from triton.language.extra.libdevice import tanh
    except ModuleNotFoundError:
        from triton.language.extra.cuda.libdevice import tanh
else:
    from triton.language.math import tanh

# Rows are processed in chunks no wider than this (registers per program).
MAX_FUSED_SIZE = 65536 // 2


@triton.jit
def _cross_entropy_kernel(
    X_ptr,
    X_stride,
    Y_ptr,
    Y_stride,
    loss_ptr,
    loss_stride,
    lse_ptr,
    n_cols,
    n_non_ignore,
    ignore_index,
    label_smoothing: tl.constexpr,
    softcap,
    reduction: tl.constexpr,  # "mean" or "sum" (or "none")
    BLOCK_SIZE: tl.constexpr,
    HAS_SOFTCAPPING: tl.constexpr,
    RETURN_LSE: tl.constexpr,
):
    row = tl.program_id(0).to(tl.int64)
    Y_ptr += row * Y_stride
    y = tl.load(Y_ptr)
    X_ptr += row * X_stride

    if y == ignore_index:
        # No loss and no gradient for padding positions.
        for start in range(0, n_cols, BLOCK_SIZE):
            cols = start + tl.arange(0, BLOCK_SIZE)
            tl.store(X_ptr + cols, 0.0, mask=cols < n_cols)
        return

    loss_ptr += row * loss_stride

    # Pass 1: running max m and running normalizer d of exp(x - m).
    m = float("-inf")
    d = 0.0
    x_y = tl.load(X_ptr + y).cast(tl.float32)
    if HAS_SOFTCAPPING:
        x_y = softcap * tanh(x_y / softcap)
    smooth_eps = label_smoothing / n_cols
    smooth_sum = 0.0
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X_ptr + cols, mask=cols < n_cols, other=float("-inf")).cast(tl.float32)
        if HAS_SOFTCAPPING:
            x = softcap * tanh(x / softcap)
        block_max = tl.max(x)
        if label_smoothing > 0:
            smooth_sum += tl.sum(tl.where(cols < n_cols, -smooth_eps * x, 0.0))
        m_new = tl.maximum(m, block_max)
        d = d * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new))
        m = m_new
    lse = m + tl.log(d)
    if RETURN_LSE:
        tl.store(lse_ptr + row, lse)

    # Pass 2: gradient of the loss w.r.t. the logits, written in place.
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X_ptr + cols, mask=cols < n_cols, other=float("-inf")).cast(tl.float32)
        if HAS_SOFTCAPPING:
            capped = tanh(x / softcap)
            x = softcap * capped
        grad = tl.exp(x - m) / d
        grad = grad - smooth_eps
        if reduction == "mean":
            grad = grad / n_non_ignore
        if HAS_SOFTCAPPING:
            grad = grad * (1 - capped * capped)
        tl.store(X_ptr + cols, grad, mask=cols < n_cols)

    # Make sure the whole row is written before the target column is fixed up.
    tl.debug_barrier()

    loss = lse - x_y
    if label_smoothing > 0:
        loss = loss * (1 - label_smoothing) + (smooth_sum + label_smoothing * lse)
    x_y_grad = tl.load(X_ptr + y).cast(tl.float32)
    if reduction == "mean":
        loss = loss / n_non_ignore
        x_y_grad += -(1 - label_smoothing) / n_non_ignore
    else:
        x_y_grad += -(1 - label_smoothing)
    tl.store(loss_ptr, loss)
    tl.store(X_ptr + y, x_y_grad)


def cross_entropy_forward(_input, target, ignore_index=-100, label_smoothing=0.0, reduction="mean",
                          softcap: Optional[float] = None, return_lse=False):
    BT, V = _input.shape
    BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(V))
    loss_1d = torch.zeros(BT, dtype=torch.float32, device=_input.device)
    lse = torch.empty(BT, dtype=torch.float32, device=_input.device) if return_lse else loss_1d
    n_non_ignore = (target != ignore_index).sum().item()
    if _input.stride(-1) != 1:
        _input = _input.contiguous()
    if target.stride(-1) != 1:
        target = target.contiguous()
    _cross_entropy_kernel[(BT, )](
        X_ptr=_input,
        X_stride=_input.stride(-2),
        Y_ptr=target,
        Y_stride=target.stride(-1),
        loss_ptr=loss_1d,
        loss_stride=loss_1d.stride(-1),
        lse_ptr=lse,
        n_cols=V,
        n_non_ignore=n_non_ignore,
        ignore_index=ignore_index,
        label_smoothing=label_smoothing,
        softcap=softcap if softcap is not None else 0.0,
        reduction=reduction,
        BLOCK_SIZE=BLOCK_SIZE,
        HAS_SOFTCAPPING=softcap is not None,
        RETURN_LSE=return_lse,
        num_warps=16 if is_hip() else 32,
    )
    loss = loss_1d if reduction == "none" else torch.sum(loss_1d)
    return loss, _input


def cross_entropy_backward(_input, grad_output):
    if torch.equal(grad_output, torch.tensor(1.0, device=grad_output.device)):
        return _input
    BT, V = _input.shape
    element_mul_kernel[(BT, )](_input, _input.stride(-2), grad_output, V,
                               BLOCK_SIZE=min(MAX_FUSED_SIZE, triton.next_power_of_2(V)),
                               num_warps=16 if is_hip() else 32)
    return _input


class CrossEntropyFunction(torch.autograd.Function):

    @staticmethod
    def forward(ctx, _input, target, ignore_index=-100, label_smoothing=0.0, reduction="mean", softcap=None):
        loss, grad = cross_entropy_forward(_input, target, ignore_index, label_smoothing, reduction, softcap)
        ctx.save_for_backward(grad.detach())
        return loss

    @staticmethod
    def backward(ctx, grad_output):
        (grad, ) = ctx.saved_tensors
        return cross_entropy_backward(grad, grad_output), None, None, None, None, None
