"""Result specs for the servelib/ package (an LLM serving library): paged
decode attention (v1, split-KV stage 1 and the merge stage 2), KV-cache
writes and page copies, rotary embedding, gated activations, fp8/int8
quantization, the fused-MoE grouped GEMM, the two fp8 GEMMs, and the
penalty / Gumbel-max sampling kernels.  Each spec builds inputs shaped the
way the host wrappers in servelib/ops/*.py build them (same argument order,
strides from tensor.stride(), page tables and slot mappings in range) and
launches the kernel once; sizes are chosen so that the integer arguments
keep the divisibility the manifest's SIGNATURE records (":16")."""

import math

import torch
import triton
import triton.language as tl
from spec import entry, exact, tol

FP8 = torch.float8_e4m3fn
FP8_MAX = 448.0


# ---------------------------------------------------------------------------
# paged_attention.py
# ---------------------------------------------------------------------------

# v1 path: group = 4 query heads per KV head, max_seq_len <= 512 (one
# partition); block table rows of 32 pages so stride_bt_seq is a multiple of 16.
@entry("servelib/ops/paged_attention.py", "paged_decode_v1_kernel")
def _(run, g):
    num_seqs, kv_heads, group, head_dim, page = 5, 2, 4, 128, 16
    q_heads = kv_heads * group
    max_seq_len, pages_per_seq = 500, 32
    num_pages = num_seqs * pages_per_seq
    q = g.randn(num_seqs, q_heads, head_dim, dtype=torch.float16)
    k_cache = g.randn(num_pages, page, kv_heads, head_dim, dtype=torch.float16)
    v_cache = g.randn(num_pages, page, kv_heads, head_dim, dtype=torch.float16)
    block_tables = g.perm(num_pages, dtype=torch.int32).view(num_seqs, pages_per_seq).contiguous()
    seq_lens = g.randint(1, max_seq_len + 1, num_seqs, dtype=torch.int32)
    seq_lens[0] = max_seq_len
    seq_lens[1] = 32  # ends exactly on a page boundary
    seq_lens[2] = 1
    out = g.empty(num_seqs, q_heads, head_dim, dtype=torch.float16)
    run((num_seqs, q_heads), out, q, k_cache, v_cache, block_tables, seq_lens, 1.0 / math.sqrt(head_dim),
        max_seq_len, q.stride(0), out.stride(0), k_cache.stride(0), k_cache.stride(1), block_tables.stride(0),
        num_queries_per_kv=group, PAGE_SIZE=page, HEAD_DIM=head_dim)
    return {"out": out}


# v2 stage 1: 16 partitions of 512 tokens (max_parts = 16 keeps the lse head
# stride a multiple of 16, as in the manifest); the block table may share
# pages between sequences (prefix sharing), so entries are random in range.
# Partitions past a sequence's end are not written (sentinel on both sides).
# Tolerances: two tensor-core dots of K=128/16 per page with p rounded to fp16
# before the P@V dot, accumulated over up to 32 pages.
@entry("servelib/ops/paged_attention.py", "_paged_decode_stage1_kernel")
def _(run, g):
    num_seqs, kv_heads, group, head_dim, page, part = 4, 2, 8, 128, 16, 512
    q_heads = kv_heads * group
    max_seq_len = 8000
    max_parts = triton.cdiv(max_seq_len, part)  # 16
    pages_per_seq = triton.cdiv(max_seq_len, page)  # 500
    num_pages = 600
    q = g.randn(num_seqs, q_heads, head_dim, dtype=torch.float16)
    k_cache = g.randn(num_pages, page, kv_heads, head_dim, dtype=torch.float16)
    v_cache = g.randn(num_pages, page, kv_heads, head_dim, dtype=torch.float16)
    block_tables = g.randint(0, num_pages, num_seqs, pages_per_seq + 12, dtype=torch.int32)  # row stride 512
    seq_lens = g.tensor([max_seq_len, 1, 1024, 2777], torch.int32)
    partial_out = g.empty(num_seqs, q_heads, max_parts, head_dim)
    partial_lse = g.empty(num_seqs, q_heads, max_parts)
    run((num_seqs, kv_heads, max_parts), partial_out, partial_lse, q, k_cache, v_cache, block_tables, seq_lens,
        1.0 / math.sqrt(head_dim), q.stride(0), q.stride(1), k_cache.stride(0), k_cache.stride(1),
        k_cache.stride(2), block_tables.stride(0), *partial_out.stride()[:3], *partial_lse.stride()[:2],
        num_queries_per_kv=group, QUERY_GROUP=16, PAGE_SIZE=page, HEAD_DIM=head_dim, PARTITION_SIZE=part)
    return {
        "partial_out": tol(partial_out, atol=2e-3, rtol=2e-3),
        "partial_lse": tol(partial_lse, atol=1e-4, rtol=1e-4),
    }


# v2 stage 2 on synthetic partials; max_parts = 16 = MAX_PARTITIONS (seq_lens
# <= 8192), so only the first cdiv(seq_len, 512) partitions of each row are read.
@entry("servelib/ops/paged_attention.py", "paged_decode_stage2_kernel")
def _(run, g):
    num_seqs, heads, head_dim, part, max_parts = 6, 32, 128, 512, 16
    seq_lens = g.randint(1, max_parts * part + 1, num_seqs, dtype=torch.int32)
    seq_lens[0] = max_parts * part
    seq_lens[1] = 1
    seq_lens[2] = 3 * part
    partial_out = g.randn(num_seqs, heads, max_parts, head_dim)
    partial_lse = g.randn(num_seqs, heads, max_parts, scale=2.0) + 5.0
    out = g.empty(num_seqs, heads, head_dim, dtype=torch.float16)
    run((num_seqs, heads), out, partial_out, partial_lse, seq_lens, out.stride(0), out.stride(1),
        *partial_out.stride()[:3], *partial_lse.stride()[:2], HEAD_DIM=head_dim, PARTITION_SIZE=part,
        MAX_PARTITIONS=16)
    return {"out": out}


# ---------------------------------------------------------------------------
# rotary.py
# ---------------------------------------------------------------------------

# GPT-J (interleaved) style, in place on q and k; BLOCK_Q=32 >= 28 query
# heads and BLOCK_K=8 >= 4 KV heads (the head masks are exercised).
@entry("servelib/ops/rotary.py", "_rotary_embedding_kernel")
def _(run, g):
    tokens, q_heads, kv_heads, head, rot, max_pos = 37, 28, 4, 128, 128, 4096
    inv_freq = 1.0 / (10000.0 ** (torch.arange(0, rot, 2, device=g.dev, dtype=torch.float32) / rot))
    freqs = torch.outer(torch.arange(max_pos, device=g.dev, dtype=torch.float32), inv_freq)
    cos_sin_cache = torch.cat([freqs.cos(), freqs.sin()], dim=-1).contiguous()  # [max_pos, rot]
    positions = g.randint(0, max_pos, tokens, dtype=torch.int64)
    q = g.randn(tokens, q_heads * head, dtype=torch.bfloat16)
    k = g.randn(tokens, kv_heads * head, dtype=torch.bfloat16)
    run((tokens, ), positions, q, k, cos_sin_cache, q.stride(0), k.stride(0), cos_sin_cache.stride(0), q_heads,
        kv_heads, HEAD_SIZE=head, ROT_DIM=rot, BLOCK_Q=32, BLOCK_K=8, IS_NEOX=False, num_warps=4)
    return {"q": q, "k": k}


# ---------------------------------------------------------------------------
# activation.py
# ---------------------------------------------------------------------------

# d = 2816 is a multiple of 16 (manifest i32:16) but not of BLOCK_SIZE.
@entry("servelib/ops/activation.py", "act_and_mul_kernel")
def _(run, g):
    tokens, d = 37, 2816
    x = g.randn(tokens, 2 * d, dtype=torch.bfloat16, scale=2.0)
    out = g.empty(tokens, d, dtype=torch.bfloat16)
    run((tokens, triton.cdiv(d, 1024)), out, x, d, x.stride(0), out.stride(0), ACTIVATION="gelu_tanh",
        BLOCK_SIZE=1024)
    return {"out": out}


# do_not_specialize variant: an odd hidden size.
@entry("servelib/ops/activation.py", "act_and_mul_kernel_nospec")
def _(run, g):
    tokens, d = 37, 1375
    x = g.randn(tokens, 2 * d, dtype=torch.bfloat16, scale=2.0)
    out = g.empty(tokens, d, dtype=torch.bfloat16)
    run((tokens, triton.cdiv(d, 1024)), out, x, d, x.stride(0), out.stride(0), ACTIVATION="silu",
        BLOCK_SIZE=1024)
    return {"out": out}


# BLOCK_SIZE comes from the heuristic: min(8192, next_pow2(11008)) = 8192,
# two masked passes per row.
@entry("servelib/ops/activation.py", "_silu_and_mul_rows_kernel")
def _(run, g):
    tokens, d = 37, 11008
    x = g.randn(tokens, 2 * d, dtype=torch.bfloat16, scale=2.0)
    out = g.empty(tokens, d, dtype=torch.bfloat16)
    run((tokens, ), out, x, d)
    return {"out": out}


# ---------------------------------------------------------------------------
# quant.py
# ---------------------------------------------------------------------------

# Single-block rows: N = 4000 <= BLOCK = 4096 (and a multiple of 16).
@entry("servelib/ops/quant.py", "_per_token_quant_fp8_kernel")
def _(run, g):
    m, n = 37, 4000
    x = g.randn(m, n, dtype=torch.bfloat16, scale=3.0)
    xq = g.empty(m, n, dtype=FP8)
    scales = g.empty(m, 1)
    run((m, ), x, xq, scales, x.stride(0), xq.stride(0), n, -FP8_MAX, FP8_MAX, 1e-10, BLOCK=4096, num_warps=8)
    return {"xq": xq, "scales": scales}


# scale 0.01 makes the largest inputs (|x| > 4.48) clamp at +-448.
@entry("servelib/ops/quant.py", "_static_scaled_fp8_quant_kernel")
def _(run, g):
    n = 98_437
    x = g.randn(n, dtype=torch.bfloat16)
    scale = g.tensor([0.01], torch.float32)
    out = g.empty(n, dtype=FP8)
    run((triton.cdiv(n, 1024), ), x, out, scale, n, BLOCK=1024)
    return {"out": out}


# Groups of 128 along rows of 2048 columns read through a row stride of 2304
# (x is a column slice of a wider buffer); outputs are contiguous.
@entry("servelib/ops/quant.py", "_per_token_group_quant_fp8")
def _(run, g):
    rows, cols, group = 37, 2048, 128
    x = g.randn(rows, 2304, dtype=torch.bfloat16, scale=2.0)[:, :cols]
    x_q = g.empty(rows, cols, dtype=FP8)
    x_s = g.empty(rows, cols // group)
    run((rows * cols // group, ), x, x_q, x_s, group, cols, x.stride(-2), 1e-10, -FP8_MAX, FP8_MAX, BLOCK=128,
        num_warps=1, num_stages=1)
    return {"x_q": x_q, "x_s": x_s}


# n_cols = 4001 (odd, <= BLOCK); both row strides padded to 4016 to keep the
# manifest's i32:16 strides.  The padding columns of out are never written.
@entry("servelib/ops/quant.py", "_dynamic_int8_quant_kernel")
def _(run, g):
    rows, n_cols, padded = 37, 4001, 4016
    x = g.randn(rows, padded, dtype=torch.float16, scale=2.0)[:, :n_cols]
    x[3].zero_()  # an all-zero row takes the amax == 0 branch
    out = g.empty(rows, padded, dtype=torch.int8)
    scales = g.empty(rows, 1)
    run((rows, ), x, out, scales, x.stride(0), out.stride(0), n_cols, BLOCK=4096)
    return {"out": out, "scales": scales}


# ---------------------------------------------------------------------------
# kv_cache.py
# ---------------------------------------------------------------------------

# key/value are head-slices of a fused qkv buffer (row stride 5376); slots are
# distinct, the last three tokens are padding (-1).  7 KV heads x 128 = 896
# <= BLOCK = 1024.  Unwritten cache slots keep the sentinel.
@entry("servelib/ops/kv_cache.py", "_reshape_and_cache_kernel")
def _(run, g):
    tokens, q_heads, kv_heads, head, page, num_pages = 37, 28, 7, 128, 16, 12
    qkv = g.randn(tokens, (q_heads + 2 * kv_heads) * head, dtype=torch.bfloat16)
    key = qkv[:, q_heads * head:(q_heads + kv_heads) * head].view(tokens, kv_heads, head)
    value = qkv[:, (q_heads + kv_heads) * head:].view(tokens, kv_heads, head)
    key_cache = g.empty(num_pages, page, kv_heads, head, dtype=torch.bfloat16)
    value_cache = g.empty(num_pages, page, kv_heads, head, dtype=torch.bfloat16)
    slot_mapping = g.perm(num_pages * page, dtype=torch.int64)[:tokens].contiguous()
    slot_mapping[-3:] = -1
    k_scale = g.full(1.0, 1)
    v_scale = k_scale
    run((tokens, ), key, value, key_cache, value_cache, slot_mapping, k_scale, v_scale, key.stride(0),
        value.stride(0), key_cache.stride(0), key_cache.stride(1), kv_heads, head, PAGE_SIZE=page, BLOCK=1024,
        KV_FP8=False)
    return {"key_cache": key_cache, "value_cache": value_cache}


# Six (src, dst) pairs with all pages distinct, so no page is both read and
# written; page_numel = 16 * 7 * 128 = 14336 = 3.5 blocks of 4096.
@entry("servelib/ops/kv_cache.py", "_copy_pages_kernel")
def _(run, g):
    num_pages, pairs = 24, 6
    cache = g.randn(num_pages, 16, 7, 128, dtype=torch.bfloat16)
    pages = g.perm(num_pages, dtype=torch.int64)
    mapping = torch.stack([pages[:pairs], pages[pairs:2 * pairs]], dim=1).contiguous()
    page_numel = cache[0].numel()
    run((pairs, triton.cdiv(page_numel, 4096)), cache, mapping, page_numel, BLOCK=4096)
    return {"cache": cache}


# ---------------------------------------------------------------------------
# fused_moe.py
# ---------------------------------------------------------------------------

# Routing built as the serving engine does: top-2 distinct experts per token,
# rows sorted by expert and padded to BLOCK_SIZE_M with num_valid_tokens;
# sorted_token_ids sized for the worst case (EM = 74 + 8 * 63 = 578).
# K = 304 is not a multiple of BLOCK_SIZE_K (K tail masked), N = 480 not of
# BLOCK_SIZE_N.  bf16 GEMM, fp32 accumulation over K = 304: 5e-2.
@entry("servelib/ops/fused_moe.py", "fused_moe_kernel")
def _(run, g):
    T, E, top_k, N, K, BM = 37, 8, 2, 480, 304, 64
    a = g.randn(T, K, dtype=torch.bfloat16)
    b = g.randn(E, N, K, dtype=torch.bfloat16, scale=0.05)
    topk_ids = torch.topk(g.rand(T, E), top_k, dim=1).indices
    topk_weights = g.rand(T * top_k, lo=0.1, hi=1.0)
    num_valid = T * top_k
    flat = topk_ids.flatten().tolist()
    sorted_ids, expert_ids = [], []
    for e in range(E):
        rows = [i for i, x in enumerate(flat) if x == e]
        if not rows:
            continue
        padded = triton.cdiv(len(rows), BM) * BM
        sorted_ids += rows + [num_valid] * (padded - len(rows))
        expert_ids += [e] * (padded // BM)
    post_padded = len(sorted_ids)
    EM = num_valid + E * (BM - 1)
    sorted_ids += [num_valid] * (EM - post_padded)
    expert_ids += [0] * (triton.cdiv(EM, BM) - len(expert_ids))
    sorted_token_ids = g.tensor(sorted_ids, torch.int32)
    expert_ids_t = g.tensor(expert_ids, torch.int32)
    num_tokens_post_padded = g.tensor([post_padded], torch.int32)
    c = g.empty(T * top_k, N, dtype=torch.bfloat16)
    run(lambda m: (triton.cdiv(EM, m["BLOCK_SIZE_M"]) * triton.cdiv(N, m["BLOCK_SIZE_N"]), ), a, b, c,
        topk_weights, sorted_token_ids, expert_ids_t, num_tokens_post_padded, N, K, EM, num_valid, a.stride(0),
        a.stride(1), b.stride(0), b.stride(2), b.stride(1), c.stride(-2), c.stride(-1), BLOCK_SIZE_M=BM,
        BLOCK_SIZE_N=64, BLOCK_SIZE_K=32, GROUP_SIZE_M=8, MUL_ROUTED_WEIGHT=True, top_k=top_k,
        compute_type=tl.bfloat16)
    return {"c": tol(c, atol=5e-2, rtol=5e-2)}


# ---------------------------------------------------------------------------
# fp8_gemm.py
# ---------------------------------------------------------------------------

# 128x128 block scales; K = 2048 so EVEN_K (heuristic) is True and the A-scale
# row stride K / 128 = 16 keeps the manifest's i32:16.  M = 137 and N = 320 are
# ragged (rows/cols wrap through % M / % N, the store is masked).
# bf16 output of an fp32-accumulated K = 2048 GEMM: 5e-2.
@entry("servelib/ops/fp8_gemm.py", "_w8a8_block_fp8_matmul")
def _(run, g):
    M, N, K, blk = 137, 320, 2048, 128
    A = g.randn(M, K, dtype=FP8)
    B = g.randn(N, K, dtype=FP8)  # stored [N, K], read through transposed strides
    As = g.rand(M, K // blk, lo=0.1, hi=0.3)
    Bs = g.rand(triton.cdiv(N, blk), K // blk, lo=0.1, hi=0.3)
    C = g.empty(M, N, dtype=torch.bfloat16)
    run(lambda m: (triton.cdiv(M, m["BLOCK_SIZE_M"]) * triton.cdiv(N, m["BLOCK_SIZE_N"]), ), A, B, C, As, Bs, M,
        N, K, blk, blk, A.stride(-2), A.stride(-1), B.stride(1), B.stride(0), C.stride(-2), C.stride(-1),
        As.stride(-2), As.stride(-1), Bs.stride(1), Bs.stride(0), BLOCK_SIZE_M=64, BLOCK_SIZE_N=blk,
        BLOCK_SIZE_K=blk, GROUP_SIZE_M=32, num_warps=4, num_stages=3)
    return {"C": tol(C, atol=5e-2, rtol=5e-2)}


# Autotuned (block sizes come from the pinned config); B is [K, N]
# row-major; K = 720 is not a multiple of BLOCK_SIZE_K, M and N are ragged.
# bf16 output of an fp32-accumulated K = 720 GEMM: 5e-2.
@entry("servelib/ops/fp8_gemm.py", "_scaled_mm_kernel")
def _(run, g):
    M, N, K = 137, 496, 720
    a = g.randn(M, K, dtype=FP8)
    b = g.randn(K, N, dtype=FP8)
    scale_a = g.rand(M, lo=0.05, hi=0.15)
    scale_b = g.rand(N, lo=0.05, hi=0.15)
    bias = g.randn(N, dtype=torch.bfloat16, scale=0.5)
    c = g.empty(M, N, dtype=torch.bfloat16)
    run(lambda m: (triton.cdiv(M, m["BLOCK_SIZE_M"]) * triton.cdiv(N, m["BLOCK_SIZE_N"]), ), a, b, c, scale_a,
        scale_b, bias, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
        HAS_BIAS=True)
    return {"c": tol(c, atol=5e-2, rtol=5e-2)}


# ---------------------------------------------------------------------------
# sampling.py
# ---------------------------------------------------------------------------

# vocab 32000 = 3.9 blocks of 8192; sparse output counts and prompt mask.
@entry("servelib/ops/sampling.py", "_apply_penalties_kernel")
def _(run, g):
    seqs, vocab = 9, 32000
    logits = g.randn(seqs, vocab, scale=3.0)
    counts = g.randint(1, 4, seqs, vocab, dtype=torch.int32) * (g.rand(seqs, vocab) < 0.05).to(torch.int32)
    prompt_mask = g.rand(seqs, vocab) < 0.02
    repetition = g.rand(seqs, lo=1.0, hi=1.5)
    frequency = g.rand(seqs, lo=0.0, hi=0.5)
    presence = g.rand(seqs, lo=0.0, hi=0.5)
    run((seqs, triton.cdiv(vocab, 8192)), logits, logits.stride(0), counts, counts.stride(0), prompt_mask,
        prompt_mask.stride(0), repetition, frequency, presence, vocab, BLOCK=8192)
    return {"logits": logits}


# tl.rand with per-request seeds: bit-exact.  Rows 0 and 4 are greedy
# (temperature 0); step = 7 (not 1, which Triton would specialize).
@entry("servelib/ops/sampling.py", "_gumbel_sample_kernel")
def _(run, g):
    seqs, vocab, step = 9, 32000, 7
    logits = g.randn(seqs, vocab, scale=2.0)
    temperature = g.rand(seqs, lo=0.5, hi=1.5)
    temperature[0] = 0.0
    temperature[4] = 0.0
    seeds = g.randint(0, 2**31 - 1, seqs, dtype=torch.int64)
    sampled = g.empty(seqs, dtype=torch.int64)
    run((seqs, ), sampled, logits, logits.stride(0), temperature, seeds, step, vocab, BLOCK=1024, num_warps=8)
    return {"sampled": exact(sampled)}
