"""Gated activations of MLP blocks: out = act(x[:, :d]) * x[:, d:]."""

import torch
import triton
import triton.language as tl

from servelib.ops.configs import USE_FAST_TANH
from servelib.ops.configs import block_size_heuristics

_FAST_TANH = tl.constexpr(USE_FAST_TANH)


@triton.jit
def _tanh_approx(x):
    # One MUFU instruction instead of the libdevice sequence; x is fp32.
    return tl.inline_asm_elementwise("tanh.approx.f32 $0, $1;", "=f,f", [x], dtype=tl.float32, is_pure=True,
                                     pack=1)


@triton.jit
def _tanh_exact(x):
    # tanh(x) = 2 * sigmoid(2x) - 1
    return 2 * tl.sigmoid(2 * x) - 1


@triton.jit
def _apply_act(x, ACTIVATION: tl.constexpr):
    if ACTIVATION == "silu":
        y = x / (1.0 + tl.exp(-x))
    elif ACTIVATION == "gelu":
        y = 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476))
    elif ACTIVATION == "gelu_tanh":
        inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
        if _FAST_TANH:
            t = _tanh_approx(inner)
        else:
            t = _tanh_exact(inner)
        y = 0.5 * x * (1.0 + t)
    else:
        tl.static_assert(ACTIVATION == "relu2", "unknown activation")
        r = tl.maximum(x, 0.0)
        y = r * r
    return y


def _act_and_mul_impl(out_ptr, in_ptr, d, in_stride, out_stride, ACTIVATION: tl.constexpr,
                      BLOCK_SIZE: tl.constexpr):
    token = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    ok = cols < d
    gate = tl.load(in_ptr + token * in_stride + cols, mask=ok, other=0.0).to(tl.float32)
    up = tl.load(in_ptr + token * in_stride + d + cols, mask=ok, other=0.0)
    y = _apply_act(gate, ACTIVATION).to(up.dtype) * up
    tl.store(out_ptr + token * out_stride + cols, y, mask=ok)


act_and_mul_kernel = triton.jit(_act_and_mul_impl)
# The hidden size is fixed per model but the engine serves several models
# from one process; avoid recompiling when it changes divisibility.
act_and_mul_kernel_nospec = triton.jit(do_not_specialize=["d", "in_stride", "out_stride"])(_act_and_mul_impl)


@triton.heuristics(block_size_heuristics())
@triton.jit
def _silu_and_mul_rows_kernel(out_ptr, in_ptr, hidden_size, BLOCK_SIZE: tl.constexpr):
    # One program per token; the heuristic sizes the block to the whole row.
    token = tl.program_id(0).to(tl.int64)
    for start in range(0, hidden_size, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        ok = cols < hidden_size
        gate = tl.load(in_ptr + token * 2 * hidden_size + cols, mask=ok, other=0.0).to(tl.float32)
        up = tl.load(in_ptr + token * 2 * hidden_size + hidden_size + cols, mask=ok, other=0.0).to(tl.float32)
        y = gate * tl.sigmoid(gate) * up
        tl.store(out_ptr + token * hidden_size + cols, y, mask=ok)


def act_and_mul(x: torch.Tensor, activation: str = "silu") -> torch.Tensor:
    d = x.shape[-1] // 2
    x2 = x.view(-1, 2 * d)
    out = torch.empty((x2.shape[0], d), dtype=x.dtype, device=x.device)
    block = min(1024, triton.next_power_of_2(d))
    grid = (x2.shape[0], triton.cdiv(d, block))
    act_and_mul_kernel[grid](out, x2, d, x2.stride(0), out.stride(0), ACTIVATION=activation, BLOCK_SIZE=block)
    return out.view(*x.shape[:-1], d)


@torch.library.custom_op("servelib::silu_and_mul", mutates_args=("out", ))
def silu_and_mul_(out: torch.Tensor, x: torch.Tensor) -> None:
    d = x.shape[-1] // 2
    _silu_and_mul_rows_kernel[(x.numel() // (2 * d), )](out, x, d)


@silu_and_mul_.register_fake
def _(out: torch.Tensor, x: torch.Tensor) -> None:
    return None


def silu_and_mul(x: torch.Tensor) -> torch.Tensor:
    d = x.shape[-1] // 2
    out = torch.empty((*x.shape[:-1], d), dtype=x.dtype, device=x.device)
    silu_and_mul_(out, x)
    return out
