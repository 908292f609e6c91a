"""
Fused attention
===============

FlashAttention-2 style forward pass built on block pointers: one program owns
BLOCK_M query rows of one (batch, head) and streams over keys and values,
keeping a running maximum and normalizer in base 2.  Causal masking is split
into the fully visible blocks and the diagonal blocks so only the latter pay
for the mask.
"""

import torch

import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()
LOG2E = 1.4426950408889634


@triton.jit
def _attend(acc, row_sum, row_max, q, k_blocks, v_blocks, q_first, kv_lo, kv_hi, qk_scale,
            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, MASKED: tl.constexpr):
    k_blocks = tl.advance(k_blocks, (0, kv_lo))
    v_blocks = tl.advance(v_blocks, (kv_lo, 0))
    q_pos = q_first + tl.arange(0, BLOCK_M)
    for kv_start in range(kv_lo, kv_hi, BLOCK_N):
        k = tl.load(k_blocks)
        s = tl.dot(q, k) * qk_scale
        if MASKED:
            kv_pos = kv_start + tl.arange(0, BLOCK_N)
            s = tl.where(q_pos[:, None] >= kv_pos[None, :], s, float("-inf"))
        new_max = tl.maximum(row_max, tl.max(s, 1))
        p = tl.math.exp2(s - new_max[:, None])
        correction = tl.math.exp2(row_max - new_max)
        row_sum = row_sum * correction + tl.sum(p, 1)
        v = tl.load(v_blocks)
        acc = acc * correction[:, None]
        acc = tl.dot(p.to(v.dtype), v, acc)
        row_max = new_max
        k_blocks = tl.advance(k_blocks, (0, BLOCK_N))
        v_blocks = tl.advance(v_blocks, (BLOCK_N, 0))
    return acc, row_sum, row_max


@triton.jit
def _attn_fwd(Q, K, V, sm_scale, LSE, Out,  #
              stride_qz, stride_qh, stride_qm, stride_qk,  #
              stride_kz, stride_kh, stride_kn, stride_kk,  #
              stride_vz, stride_vh, stride_vk, stride_vn,  #
              stride_oz, stride_oh, stride_om, stride_on,  #
              H, N_CTX,  #
              HEAD_DIM: tl.constexpr,  #
              BLOCK_M: tl.constexpr,  #
              BLOCK_N: tl.constexpr,  #
              CAUSAL: tl.constexpr):
    tl.static_assert(BLOCK_N <= HEAD_DIM)
    tl.static_assert(BLOCK_M % BLOCK_N == 0)
    m_block = tl.program_id(0)
    zh = tl.program_id(1)
    z = zh // H
    h = zh % H
    q_base = Q + z.to(tl.int64) * stride_qz + h.to(tl.int64) * stride_qh
    k_base = K + z.to(tl.int64) * stride_kz + h.to(tl.int64) * stride_kh
    v_base = V + z.to(tl.int64) * stride_vz + h.to(tl.int64) * stride_vh
    o_base = Out + z.to(tl.int64) * stride_oz + h.to(tl.int64) * stride_oh

    q_first = m_block * BLOCK_M
    q_blocks = tl.make_block_ptr(base=q_base, shape=(N_CTX, HEAD_DIM), strides=(stride_qm, stride_qk),
                                 offsets=(q_first, 0), block_shape=(BLOCK_M, HEAD_DIM), order=(1, 0))
    # K is read transposed: a (HEAD_DIM, BLOCK_N) tile per step.
    k_blocks = tl.make_block_ptr(base=k_base, shape=(HEAD_DIM, N_CTX), strides=(stride_kk, stride_kn),
                                 offsets=(0, 0), block_shape=(HEAD_DIM, BLOCK_N), order=(0, 1))
    v_blocks = tl.make_block_ptr(base=v_base, shape=(N_CTX, HEAD_DIM), strides=(stride_vk, stride_vn),
                                 offsets=(0, 0), block_shape=(BLOCK_N, HEAD_DIM), order=(1, 0))
    o_blocks = tl.make_block_ptr(base=o_base, shape=(N_CTX, HEAD_DIM), strides=(stride_om, stride_on),
                                 offsets=(q_first, 0), block_shape=(BLOCK_M, HEAD_DIM), order=(1, 0))

    row_max = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    row_sum = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.4426950408889634  # fold log2(e) in: exp(x) == exp2(x * log2(e))
    q = tl.load(q_blocks)
    if CAUSAL:
        # Blocks strictly left of the diagonal need no mask.
        acc, row_sum, row_max = _attend(acc, row_sum, row_max, q, k_blocks, v_blocks, q_first, 0, q_first,
                                        qk_scale, BLOCK_M, BLOCK_N, False)
        acc, row_sum, row_max = _attend(acc, row_sum, row_max, q, k_blocks, v_blocks, q_first, q_first,
                                        q_first + BLOCK_M, qk_scale, BLOCK_M, BLOCK_N, True)
    else:
        acc, row_sum, row_max = _attend(acc, row_sum, row_max, q, k_blocks, v_blocks, q_first, 0, N_CTX,
                                        qk_scale, BLOCK_M, BLOCK_N, False)
    lse = row_max + tl.math.log2(row_sum)
    acc = acc / row_sum[:, None]
    rows = q_first + tl.arange(0, BLOCK_M)
    tl.store(LSE + zh * N_CTX + rows, lse)
    tl.store(o_blocks, acc.to(Out.type.element_ty))


def attention(q, k, v, causal, sm_scale, block_m=128, block_n=64):
    head_dim = q.shape[-1]
    assert head_dim in {16, 32, 64, 128, 256} and k.shape[-1] == head_dim and v.shape[-1] == head_dim
    o = torch.empty_like(q)
    lse = torch.empty((q.shape[0], q.shape[1], q.shape[2]), device=q.device, dtype=torch.float32)
    grid = (triton.cdiv(q.shape[2], block_m), q.shape[0] * q.shape[1], 1)
    _attn_fwd[grid](q, k, v, sm_scale, lse, o,  #
                    *q.stride(), *k.stride(), *v.stride(), *o.stride(),  #
                    q.shape[1], q.shape[2],  #
                    HEAD_DIM=head_dim, BLOCK_M=block_m, BLOCK_N=block_n, CAUSAL=causal,  #
                    num_warps=8 if head_dim > 64 else 4, num_stages=3)
    return o, lse
