"""Fused attention forward (flash attention: online softmax in base 2, one
program per query block and head), causal and not, fp16 in, fp32 statistics."""
import math

import torch
import triton
import triton.language as tl

import common


@triton.jit
def _attn_fwd(Q, K, V, Out, sm_scale, stride_qz, stride_qh, stride_qm, stride_qk, stride_kz, stride_kh, stride_kn,
              stride_kk, stride_vz, stride_vh, stride_vn, stride_vk, stride_oz, stride_oh, stride_om, stride_ok,
              H, N_CTX, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
              CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    q_base = Q + off_z.to(tl.int64) * stride_qz + off_h.to(tl.int64) * stride_qh
    k_base = K + off_z.to(tl.int64) * stride_kz + off_h.to(tl.int64) * stride_kh
    v_base = V + off_z.to(tl.int64) * stride_vz + off_h.to(tl.int64) * stride_vh
    o_base = Out + off_z.to(tl.int64) * stride_oz + off_h.to(tl.int64) * stride_oh
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_base + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qk, mask=offs_m[:, None] < N_CTX,
                other=0.0)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    hi = tl.minimum((start_m + 1) * BLOCK_M, N_CTX) if CAUSAL else N_CTX
    for start_n in range(0, hi, BLOCK_N):
        cols = start_n + offs_n
        k = tl.load(k_base + cols[None, :] * stride_kn + offs_d[:, None] * stride_kk, mask=cols[None, :] < N_CTX,
                    other=0.0)
        qk = tl.dot(q, k)
        valid = cols[None, :] < N_CTX
        if CAUSAL:
            valid = valid & (offs_m[:, None] >= cols[None, :])
        qk = tl.where(valid, qk * qk_scale, -1.0e6)
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        l_ij = tl.sum(p, 1)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha[:, None]
        v = tl.load(v_base + cols[:, None] * stride_vn + offs_d[None, :] * stride_vk, mask=cols[:, None] < N_CTX,
                    other=0.0)
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(o_base + offs_m[:, None] * stride_om + offs_d[None, :] * stride_ok, acc.to(Out.type.element_ty),
             mask=offs_m[:, None] < N_CTX)


def attention(q, k, v, causal, sm_scale):
    Z, H, N_CTX, HEAD_DIM = q.shape
    o = torch.empty_like(q)
    BLOCK_M, BLOCK_N = 128, 64
    grid = (triton.cdiv(N_CTX, BLOCK_M), Z * H, 1)
    _attn_fwd[grid](q, k, v, o, sm_scale, *q.stride(), *k.stride(), *v.stride(), *o.stride(), H, N_CTX,
                    HEAD_DIM=HEAD_DIM, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, CAUSAL=causal, num_warps=8, num_stages=3)
    return o


def reference(q, k, v, causal, sm_scale):
    s = torch.matmul(q.float(), k.float().transpose(2, 3)) * sm_scale
    if causal:
        n = q.shape[2]
        s = s.masked_fill(torch.triu(torch.ones(n, n, device=q.device, dtype=torch.bool), 1), float("-inf"))
    return torch.matmul(torch.softmax(s, dim=-1), v.float()).half()


def main():
    a = common.args()
    torch.manual_seed(0)
    Z, H, N, D = 4, 16, 4096, 64
    q, k, v = (torch.randn((Z, H, N, D), dtype=torch.float16, device="cuda") for _ in range(3))
    scale = 1 / math.sqrt(D)
    o, first = common.first_launch(lambda: attention(q, k, v, False, scale))
    qs, ks, vs = (torch.randn((2, 3, 1000, D), dtype=torch.float16, device="cuda") for _ in range(3))
    o_causal = attention(qs, ks, vs, True, scale)
    torch.testing.assert_close(o_causal, reference(qs, ks, vs, True, scale), atol=1e-2, rtol=0)
    torch.testing.assert_close(o[:, :2], reference(q[:, :2], k[:, :2], v[:, :2], False, scale), atol=1e-2, rtol=0)
    ms = common.bench(lambda: attention(q, k, v, False, scale), a.quick)
    sdpa_ms = common.bench(lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v), a.quick)
    common.report("attention_fwd", a.out, {"o": o, "o_causal": o_causal}, first, ms, sdpa_ms=sdpa_ms,
                  tflops=4 * Z * H * N * N * D / ms * 1e-9)


if __name__ == "__main__":
    main()
