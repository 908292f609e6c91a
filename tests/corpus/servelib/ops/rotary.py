"""Rotary embedding for the serving path: positions come from a tensor (each
token may sit anywhere in its sequence) and cos/sin from a precomputed cache
of shape [max_position, rot_dim] holding cos in the first half and sin in the
second.  NeoX style rotates the two halves of the rotary dims; GPT-J style
rotates interleaved (even, odd) pairs."""

import torch
import triton
import triton.language as tl


@triton.jit
def _rotate(x_ptr, token_stride, token, n_heads, cos, sin, BLOCK_H: tl.constexpr, HEAD_SIZE: tl.constexpr,
            ROT_DIM: tl.constexpr, IS_NEOX: tl.constexpr):
    heads = tl.arange(0, BLOCK_H)
    half = tl.arange(0, ROT_DIM // 2)
    head_ok = heads < n_heads
    base = x_ptr + token * token_stride + heads[:, None] * HEAD_SIZE
    if IS_NEOX:
        p1 = base + half[None, :]
        p2 = p1 + ROT_DIM // 2
        x1 = tl.load(p1, mask=head_ok[:, None], other=0.0).to(tl.float32)
        x2 = tl.load(p2, mask=head_ok[:, None], other=0.0).to(tl.float32)
        tl.store(p1, x1 * cos - x2 * sin, mask=head_ok[:, None])
        tl.store(p2, x2 * cos + x1 * sin, mask=head_ok[:, None])
    else:
        dims = tl.arange(0, ROT_DIM)
        p = base + dims[None, :]
        x = tl.load(p, mask=head_ok[:, None], other=0.0).to(tl.float32)
        # (even, odd) pairs -> two tensors of shape [BLOCK_H, ROT_DIM // 2]
        even, odd = tl.split(tl.reshape(x, (BLOCK_H, ROT_DIM // 2, 2)))
        out_even = even * cos - odd * sin
        out_odd = odd * cos + even * sin
        y = tl.reshape(tl.join(out_even, out_odd), (BLOCK_H, ROT_DIM))
        tl.store(p, y, mask=head_ok[:, None])


@triton.jit
def _rotary_embedding_kernel(
    positions_ptr,  # [num_tokens], int64
    q_ptr,  # [num_tokens, num_q_heads * HEAD_SIZE]
    k_ptr,  # [num_tokens, num_kv_heads * HEAD_SIZE]
    cos_sin_cache_ptr,  # [max_position, ROT_DIM]
    q_token_stride,
    k_token_stride,
    cache_stride,
    num_q_heads,
    num_kv_heads,
    HEAD_SIZE: tl.constexpr,
    ROT_DIM: tl.constexpr,
    BLOCK_Q: tl.constexpr,
    BLOCK_K: tl.constexpr,
    IS_NEOX: tl.constexpr,
):
    token = tl.program_id(0).to(tl.int64)
    pos = tl.load(positions_ptr + token)
    half = tl.arange(0, ROT_DIM // 2)
    row = cos_sin_cache_ptr + pos * cache_stride
    cos = tl.load(row + half).to(tl.float32)[None, :]
    sin = tl.load(row + ROT_DIM // 2 + half).to(tl.float32)[None, :]
    _rotate(q_ptr, q_token_stride, token, num_q_heads, cos, sin, BLOCK_Q, HEAD_SIZE, ROT_DIM, IS_NEOX)
    _rotate(k_ptr, k_token_stride, token, num_kv_heads, cos, sin, BLOCK_K, HEAD_SIZE, ROT_DIM, IS_NEOX)


def rotary_embedding(positions, query, key, head_size, cos_sin_cache, is_neox=True):
    num_tokens = positions.numel()
    rot_dim = cos_sin_cache.shape[-1]
    q = query.view(num_tokens, -1)
    k = key.view(num_tokens, -1)
    num_q_heads = q.shape[1] // head_size
    num_kv_heads = k.shape[1] // head_size
    _rotary_embedding_kernel[(num_tokens, )](
        positions, q, k, cos_sin_cache, q.stride(0), k.stride(0), cos_sin_cache.stride(0), num_q_heads,
        num_kv_heads, HEAD_SIZE=head_size, ROT_DIM=rot_dim, BLOCK_Q=triton.next_power_of_2(num_q_heads),
        BLOCK_K=triton.next_power_of_2(num_kv_heads), IS_NEOX=is_neox, num_warps=4)
    return query, key
