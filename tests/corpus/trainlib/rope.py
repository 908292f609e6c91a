"""Rotary position embedding applied to q and k in place (rotate-half form).

One program handles one (batch, position) row: all query heads and all key
heads of that token at once, padded to powers of two."""

import torch
import triton
import triton.language as tl


@triton.jit
def _rotate_heads(ptr, n_heads: tl.constexpr, pad_heads: tl.constexpr, hd: tl.constexpr, pad_hd: tl.constexpr,
                  cos_row, sin_row, BACKWARD_PASS: tl.constexpr):
    heads = tl.arange(0, pad_heads)[:, None]
    half = tl.arange(0, pad_hd // 2)[None, :]
    mask = (heads < n_heads) & (half < hd // 2)
    first = ptr + heads * hd + half
    second = first + hd // 2
    x1 = tl.load(first, mask=mask, other=0).to(cos_row.dtype)
    x2 = tl.load(second, mask=mask, other=0).to(cos_row.dtype)
    if not BACKWARD_PASS:
        y1 = x1 * cos_row - x2 * sin_row
        y2 = x2 * cos_row + x1 * sin_row
    else:
        # The transpose of a rotation is the rotation by the opposite angle.
        y1 = x1 * cos_row + x2 * sin_row
        y2 = x2 * cos_row - x1 * sin_row
    tl.store(first, y1, mask=mask)
    tl.store(second, y2, mask=mask)


@triton.jit
def _triton_rope(
    q_ptr,
    q_row_stride,
    k_ptr,
    k_row_stride,
    cos,
    cos_row_stride,
    sin,
    sin_row_stride,
    sl,
    cos_bs: tl.constexpr,
    n_qh: tl.constexpr,
    n_kh: tl.constexpr,
    hd: tl.constexpr,
    pad_n_qh: tl.constexpr,
    pad_n_kh: tl.constexpr,
    pad_hd: tl.constexpr,
    BACKWARD_PASS: tl.constexpr = False,
):
    # q: (bsz, seq_len, n_qh, hd) contiguous in the last two dims; same for k.
    # cos/sin: (cos_bs, seq_len, hd // 2), shared across the batch when cos_bs == 1.
    pid = tl.program_id(0).to(tl.int64)
    q_ptr = q_ptr + pid * q_row_stride
    k_ptr = k_ptr + pid * k_row_stride
    pos = pid % sl
    if cos_bs == 1:
        cos = cos + pos * cos_row_stride
        sin = sin + pos * sin_row_stride
    else:
        cos = cos + pid * cos_row_stride
        sin = sin + pid * sin_row_stride
    half = tl.arange(0, pad_hd // 2)
    half_ok = half < hd // 2
    cos_row = tl.load(cos + half, mask=half_ok, other=0)[None, :]
    sin_row = tl.load(sin + half, mask=half_ok, other=0)[None, :]
    _rotate_heads(q_ptr, n_qh, pad_n_qh, hd, pad_hd, cos_row, sin_row, BACKWARD_PASS)
    _rotate_heads(k_ptr, n_kh, pad_n_kh, hd, pad_hd, cos_row, sin_row, BACKWARD_PASS)


def rope_forward(q, k, cos, sin, backward=False):
    # (bsz, n_head, seq_len, head_dim) -> (bsz, seq_len, n_head, head_dim)
    q = q.transpose(1, 2)
    k = k.transpose(1, 2)
    batch_size, seq_len, n_q_head, head_dim = q.shape
    n_kv_head = k.shape[2]
    q = q.contiguous()
    k = k.contiguous()
    cos = cos.contiguous()
    sin = sin.contiguous()
    cos_batch_size = cos.shape[0]
    _triton_rope[(batch_size * seq_len, )](
        q, q.stride(1), k, k.stride(1), cos, cos.stride(-2), sin, sin.stride(-2), seq_len,
        cos_batch_size, n_q_head, n_kv_head, head_dim,
        triton.next_power_of_2(n_q_head), triton.next_power_of_2(n_kv_head), triton.next_power_of_2(head_dim),
        BACKWARD_PASS=backward,
    )
    return q.transpose(1, 2), k.transpose(1, 2)


class RopeFunction(torch.autograd.Function):

    @staticmethod
    def forward(ctx, q, k, cos, sin):
        q, k = rope_forward(q, k, cos, sin)
        ctx.save_for_backward(cos, sin)
        return q, k

    @staticmethod
    def backward(ctx, dq, dk):
        cos, sin = ctx.saved_tensors
        dq, dk = rope_forward(dq, dk, cos, sin, backward=True)
        return dq, dk, None, None
