"""Decode-time attention over a paged KV cache.

The cache is split into fixed-size pages; `block_tables[seq, i]` is the page
holding tokens [i * PAGE_SIZE, (i + 1) * PAGE_SIZE) of sequence `seq`.
Layout of both caches: [num_pages, PAGE_SIZE, num_kv_heads, HEAD_DIM].

Two algorithms:
  * v1: one program per (sequence, query head) walks the whole sequence.
  * v2: the sequence is split into partitions processed in parallel
    (stage 1, all query heads of one KV head per program, on tensor cores),
    then the partial results are merged (stage 2).
"""

import math
from dataclasses import dataclass, field
from typing import Optional

import torch

from servelib.ops import configs
from servelib.triton_utils import tl, triton

_PARTITION_SIZE = 512


@dataclass
class DecodeMetadata:
    seq_lens: torch.Tensor
    block_tables: torch.Tensor
    max_seq_len: int
    scale: Optional[float] = None
    extra: dict = field(default_factory=dict)

    @property
    def num_seqs(self) -> int:
        return self.seq_lens.shape[0]


def _paged_decode_v1_impl(
    out_ptr,  # [num_seqs, num_q_heads, HEAD_DIM]
    q_ptr,  # [num_seqs, num_q_heads, HEAD_DIM]
    k_cache_ptr,
    v_cache_ptr,
    block_tables_ptr,  # [num_seqs, max_pages_per_seq]
    seq_lens_ptr,  # [num_seqs]
    scale,
    max_seq_len,
    stride_q_seq,
    stride_o_seq,
    stride_cache_page,
    stride_cache_tok,
    stride_bt_seq,
    num_queries_per_kv: tl.constexpr,
    PAGE_SIZE: tl.constexpr,
    HEAD_DIM: tl.constexpr,
):
    seq = tl.program_id(0)
    q_head = tl.program_id(1)
    kv_head = q_head // num_queries_per_kv
    seq_len = tl.load(seq_lens_ptr + seq)
    tl.device_assert(seq_len <= max_seq_len, "sequence longer than max_seq_len")
    dims = tl.arange(0, HEAD_DIM)
    toks = tl.arange(0, PAGE_SIZE)

    q = tl.load(q_ptr + seq * stride_q_seq + q_head * HEAD_DIM + dims).to(tl.float32)
    q = q * scale
    m_i: tl.float32 = float("-inf")
    l_i: tl.float32 = 0.0
    acc = tl.zeros([HEAD_DIM], dtype=tl.float32)

    n_pages = tl.cdiv(seq_len, PAGE_SIZE)
    for page_idx in range(0, n_pages):
        page = tl.load(block_tables_ptr + seq * stride_bt_seq + page_idx).to(tl.int64)
        tok_ok = page_idx * PAGE_SIZE + toks < seq_len
        kv_off = (page * stride_cache_page + toks[:, None] * stride_cache_tok + kv_head * HEAD_DIM + dims[None, :])
        k = tl.load(k_cache_ptr + kv_off, mask=tok_ok[:, None], other=0.0).to(tl.float32)
        scores = tl.sum(q[None, :] * k, axis=1)
        scores = tl.where(tok_ok, scores, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(scores, axis=0))
        p = tl.exp(scores - m_new)
        alpha = tl.exp(m_i - m_new)
        v = tl.load(v_cache_ptr + kv_off, mask=tok_ok[:, None], other=0.0).to(tl.float32)
        acc = acc * alpha + tl.sum(p[:, None] * v, axis=0)
        l_i = l_i * alpha + tl.sum(p, axis=0)
        m_i = m_new

    out = acc / l_i
    tl.store(out_ptr + seq * stride_o_seq + q_head * HEAD_DIM + dims, out.to(out_ptr.dtype.element_ty))


# max_seq_len changes every step; do not recompile for its divisibility.
paged_decode_v1_kernel = triton.jit(do_not_specialize=["max_seq_len"])(_paged_decode_v1_impl)


@triton.autotune(configs=configs.decode_configs(), key=["num_queries_per_kv", "HEAD_DIM"])
@triton.jit
def _paged_decode_stage1_kernel(
    partial_out_ptr,  # [num_seqs, num_q_heads, max_partitions, HEAD_DIM], fp32
    partial_lse_ptr,  # [num_seqs, num_q_heads, max_partitions], fp32
    q_ptr,
    k_cache_ptr,
    v_cache_ptr,
    block_tables_ptr,
    seq_lens_ptr,
    scale,
    stride_q_seq,
    stride_q_head,
    stride_cache_page,
    stride_cache_tok,
    stride_cache_head,
    stride_bt_seq,
    stride_po_seq,
    stride_po_head,
    stride_po_part,
    stride_pl_seq,
    stride_pl_head,
    num_queries_per_kv: tl.constexpr,
    QUERY_GROUP: tl.constexpr,  # num_queries_per_kv rounded up to a tensor-core tile
    PAGE_SIZE: tl.constexpr,
    HEAD_DIM: tl.constexpr,
    PARTITION_SIZE: tl.constexpr,
):
    tl.static_assert(PARTITION_SIZE % PAGE_SIZE == 0)
    seq = tl.program_id(0)
    kv_head = tl.program_id(1)
    part = tl.program_id(2)
    seq_len = tl.load(seq_lens_ptr + seq)
    part_start = part * PARTITION_SIZE
    if part_start >= seq_len:
        return
    part_end = tl.minimum(part_start + PARTITION_SIZE, seq_len)

    group = tl.arange(0, QUERY_GROUP)
    group_ok = group < num_queries_per_kv
    q_heads = kv_head * num_queries_per_kv + group
    dims = tl.arange(0, HEAD_DIM)
    toks = tl.arange(0, PAGE_SIZE)
    q = tl.load(q_ptr + seq * stride_q_seq + q_heads[:, None] * stride_q_head + dims[None, :],
                mask=group_ok[:, None], other=0.0)

    m_i = tl.full([QUERY_GROUP], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([QUERY_GROUP], dtype=tl.float32)
    acc = tl.zeros([QUERY_GROUP, HEAD_DIM], dtype=tl.float32)
    for tok0 in range(part_start, part_end, PAGE_SIZE):
        page = tl.load(block_tables_ptr + seq * stride_bt_seq + tok0 // PAGE_SIZE).to(tl.int64)
        tok_ok = tok0 + toks < part_end
        base = page * stride_cache_page + kv_head * stride_cache_head
        k = tl.load(k_cache_ptr + base + toks[None, :] * stride_cache_tok + dims[:, None],
                    mask=tok_ok[None, :], other=0.0)  # [HEAD_DIM, PAGE_SIZE]
        s = tl.dot(q, k) * scale
        s = tl.where(tok_ok[None, :], s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        v = tl.load(v_cache_ptr + base + toks[:, None] * stride_cache_tok + dims[None, :],
                    mask=tok_ok[:, None], other=0.0)  # [PAGE_SIZE, HEAD_DIM]
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        l_i = l_i * alpha + tl.sum(p, axis=1)
        m_i = m_new

    po = (partial_out_ptr + seq * stride_po_seq + q_heads[:, None] * stride_po_head + part * stride_po_part +
          dims[None, :])
    tl.store(po, acc / l_i[:, None], mask=group_ok[:, None])
    pl = partial_lse_ptr + seq * stride_pl_seq + q_heads * stride_pl_head + part
    tl.store(pl, m_i + tl.log(l_i), mask=group_ok)


def _paged_decode_stage2_impl(
    out_ptr,
    partial_out_ptr,
    partial_lse_ptr,
    seq_lens_ptr,
    stride_o_seq,
    stride_o_head,
    stride_po_seq,
    stride_po_head,
    stride_po_part,
    stride_pl_seq,
    stride_pl_head,
    HEAD_DIM: tl.constexpr,
    PARTITION_SIZE: tl.constexpr,
    MAX_PARTITIONS: tl.constexpr,  # power of two >= the largest partition count
):
    seq = tl.program_id(0)
    head = tl.program_id(1)
    seq_len = tl.load(seq_lens_ptr + seq)
    n_parts = tl.cdiv(seq_len, PARTITION_SIZE)
    parts = tl.arange(0, MAX_PARTITIONS)
    part_ok = parts < n_parts
    lse = tl.load(partial_lse_ptr + seq * stride_pl_seq + head * stride_pl_head + parts, mask=part_ok,
                  other=float("-inf"))
    top = tl.max(lse, axis=0)
    weights = tl.where(part_ok, tl.exp(lse - top), 0.0)
    dims = tl.arange(0, HEAD_DIM)
    partial = tl.load(partial_out_ptr + seq * stride_po_seq + head * stride_po_head + parts[:, None] * stride_po_part +
                      dims[None, :], mask=part_ok[:, None], other=0.0)
    merged = tl.sum(partial * weights[:, None], axis=0) / tl.sum(weights, axis=0)
    tl.store(out_ptr + seq * stride_o_seq + head * stride_o_head + dims, merged.to(out_ptr.dtype.element_ty))


paged_decode_stage2_kernel = triton.jit(_paged_decode_stage2_impl)


def paged_attention_decode(out, q, k_cache, v_cache, block_tables, seq_lens, max_seq_len, scale=None):
    num_seqs, num_q_heads, head_dim = q.shape
    _, page_size, num_kv_heads, _ = k_cache.shape
    group = num_q_heads // num_kv_heads
    scale = scale if scale is not None else 1.0 / math.sqrt(head_dim)
    max_parts = triton.cdiv(max_seq_len, _PARTITION_SIZE)
    if max_parts <= 1 or group < 4:
        paged_decode_v1_kernel[(num_seqs, num_q_heads)](
            out, q, k_cache, v_cache, block_tables, seq_lens, scale, max_seq_len, q.stride(0), out.stride(0),
            k_cache.stride(0), k_cache.stride(1), block_tables.stride(0),
            num_queries_per_kv=group, PAGE_SIZE=page_size, HEAD_DIM=head_dim)
        return out
    partial_out = torch.empty((num_seqs, num_q_heads, max_parts, head_dim), dtype=torch.float32, device=q.device)
    partial_lse = torch.empty((num_seqs, num_q_heads, max_parts), dtype=torch.float32, device=q.device)
    _paged_decode_stage1_kernel[(num_seqs, num_kv_heads, max_parts)](
        partial_out, partial_lse, q, k_cache, v_cache, block_tables, seq_lens, scale, q.stride(0), q.stride(1),
        k_cache.stride(0), k_cache.stride(1), k_cache.stride(2), block_tables.stride(0), *partial_out.stride()[:3],
        *partial_lse.stride()[:2], num_queries_per_kv=group, QUERY_GROUP=max(16, triton.next_power_of_2(group)),
        PAGE_SIZE=page_size, HEAD_DIM=head_dim, PARTITION_SIZE=_PARTITION_SIZE)
    paged_decode_stage2_kernel[(num_seqs, num_q_heads)](
        out, partial_out, partial_lse, seq_lens, out.stride(0), out.stride(1), *partial_out.stride()[:3],
        *partial_lse.stride()[:2], HEAD_DIM=head_dim, PARTITION_SIZE=_PARTITION_SIZE,
        MAX_PARTITIONS=triton.next_power_of_2(max_parts))
    return out
