"""A Tessera kernel as a PyTorch custom operator with autograd:
torch.library.custom_op registers `tessera_examples::scaled` (x * alpha),
its fake (meta) implementation lets torch.compile trace it, and
register_autograd gives its backward (itself, with the same alpha)."""

import torch

import tessera
import tessera.language as tl


@tessera.jit
def _scale_kernel(x_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * alpha, mask=mask)


@torch.library.custom_op("tessera_examples::scaled", mutates_args=())
def scaled(x: torch.Tensor, alpha: float) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _scale_kernel[(tessera.cdiv(n, 1024),)](x, out, n, alpha, BLOCK=1024)
    return out


@scaled.register_fake
def _(x, alpha):
    return torch.empty_like(x)


def _setup_context(ctx, inputs, output):
    ctx.alpha = inputs[1]


def _backward(ctx, grad):
    return scaled(grad, ctx.alpha), None


scaled.register_autograd(_backward, setup_context=_setup_context)
