"""KL divergence loss between log-probabilities and targets given either as
probabilities or as log-probabilities, with the usual reductions."""

import torch
import triton
import triton.language as tl

from .utils import _REDUCTION_MODE_BATCHMEAN
from .utils import _REDUCTION_MODE_NONE
from .utils import _str_to_reduction_mode
from .utils import ensure_contiguous
from .utils import is_hip

MAX_FUSED_SIZE = 65536 // 4


def _num_warps():
    return 16 if is_hip() else 32


@triton.jit
def _kldiv_kernel_forward(
    y_ptr,  # [B, S], log-probabilities of the prediction
    y_stride,
    gt_ptr,  # [B, S], target (probabilities, or log-probabilities if log_target)
    gt_stride,
    loss_ptr,  # [B] or [B, S]
    loss_stride,
    n_cols,
    eps,
    BLOCK_SIZE: tl.constexpr,
    log_target: tl.constexpr = False,
    reduction: tl.constexpr = _REDUCTION_MODE_BATCHMEAN,
):
    row = tl.program_id(0).to(tl.int64)
    y_ptr += row * y_stride
    gt_ptr += row * gt_stride
    loss_ptr += row * loss_stride
    total = 0.0
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        ok = cols < n_cols
        y = tl.load(y_ptr + cols, mask=ok, other=0.0)
        gt = tl.load(gt_ptr + cols, mask=ok, other=0.0)
        if not log_target:
            pointwise = gt * (tl.log(tl.maximum(gt, eps)) - y)
        else:
            pointwise = tl.exp(gt) * (gt - y)
        if reduction == _REDUCTION_MODE_NONE:
            tl.store(loss_ptr + cols, pointwise, mask=ok)
        else:
            total += tl.sum(pointwise, axis=0)
    if reduction != _REDUCTION_MODE_NONE:
        tl.store(loss_ptr, total)


@triton.jit
def _kldiv_kernel_backward(
    target_ptr,
    target_stride,
    new_grads_ptr,
    new_grads_stride,
    n_cols,
    BLOCK_SIZE: tl.constexpr,
    log_target: tl.constexpr = False,
):
    row = tl.program_id(0).to(tl.int64)
    target_ptr += row * target_stride
    new_grads_ptr += row * new_grads_stride
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        ok = cols < n_cols
        t = tl.load(target_ptr + cols, mask=ok, other=0.0)
        if not log_target:
            g = -t
        else:
            g = -tl.exp(t)
        tl.store(new_grads_ptr + cols, g, mask=ok)


class KLDivFunction(torch.autograd.Function):

    @staticmethod
    @ensure_contiguous
    def forward(ctx, y_pred, y_true, reduction="batchmean", log_target=False, eps=1e-10):
        B, V = y_pred.shape
        mode = _str_to_reduction_mode[reduction]
        out_shape = (B, V) if mode == _REDUCTION_MODE_NONE.value else (B, )
        loss = torch.zeros(out_shape, device=y_pred.device, dtype=torch.float32)
        BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(V))
        _kldiv_kernel_forward[(B, )](y_pred, y_pred.stride(0), y_true, y_true.stride(0), loss, loss.stride(0), V,
                                     eps, BLOCK_SIZE=BLOCK_SIZE, num_warps=_num_warps(), log_target=log_target,
                                     reduction=mode)
        ctx.save_for_backward(y_true)
        ctx.reduction = reduction
        ctx.log_target = log_target
        if reduction == "batchmean":
            return loss.sum() / B
        if reduction == "sum":
            return loss.sum(dim=0)
        if reduction == "mean":
            return loss.sum() / (B * V)
        return loss

    @staticmethod
    @ensure_contiguous
    def backward(ctx, grad_output):
        (y_true, ) = ctx.saved_tensors
        B, V = y_true.shape
        new_grads = torch.empty_like(y_true)
        BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(V))
        _kldiv_kernel_backward[(B, )](y_true, y_true.stride(0), new_grads, new_grads.stride(0), V,
                                      BLOCK_SIZE=BLOCK_SIZE, num_warps=_num_warps(), log_target=ctx.log_target)
        if ctx.reduction == "batchmean":
            new_grads = new_grads / B
        elif ctx.reduction == "mean":
            new_grads = new_grads / (B * V)
        return new_grads * grad_output, None, None, None, None
