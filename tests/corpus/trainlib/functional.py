"""Functional entry points.  The loss helpers launch kernels that live in
other modules of the package, re-exported here under the names the model
patches use."""

import torch
import triton

from trainlib.cross_entropy import _cross_entropy_kernel as cross_entropy_kernel
from trainlib.cross_entropy import cross_entropy_forward
from trainlib.utils import element_mul_kernel
from trainlib import rms_norm as _rms
from trainlib.swiglu import SiLUMulFunction

rms_norm_fwd_kernel = _rms._rms_norm_forward_kernel


def fused_linear_cross_entropy(hidden, weight, target, ignore_index=-100, chunk_rows=1024):
    """Cross entropy of hidden @ weight.T, computed in row chunks so the
    logits of the whole batch never exist at once."""
    n_rows = hidden.shape[0]
    V = weight.shape[0]
    grad_hidden = torch.zeros_like(hidden)
    grad_weight = torch.zeros_like(weight)
    total = torch.zeros((), dtype=torch.float32, device=hidden.device)
    n_non_ignore = (target != ignore_index).sum().item()
    block = min(32768, triton.next_power_of_2(V))
    for start in range(0, n_rows, chunk_rows):
        end = min(start + chunk_rows, n_rows)
        h = hidden[start:end]
        logits = (h @ weight.t()).contiguous()
        losses = torch.zeros(end - start, dtype=torch.float32, device=hidden.device)
        cross_entropy_kernel[(end - start, )](logits, logits.stride(0), target[start:end], 1, losses, 1, losses,
                                              V, n_non_ignore, ignore_index, 0.0, 0.0, "mean", block, False, False,
                                              num_warps=32)
        total += losses.sum()
        grad_hidden[start:end] = logits.to(hidden.dtype) @ weight
        grad_weight += logits.t().to(weight.dtype) @ h
    return total, grad_hidden, grad_weight


def silu_mul(a, b):
    return SiLUMulFunction.apply(a, b)
