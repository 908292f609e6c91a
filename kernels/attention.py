"""Attention forward, FlashAttention style: O = softmax(Q K^T * sm_scale) V
without ever holding the seq_len x seq_len score matrix.

attention_fwd: Q, K, V and O are [batch * heads, seq_len, HEAD_DIM],
contiguous. One program per BLOCK_M query rows of one (batch, head): it
walks the keys BLOCK_N at a time, and keeps per query row the running
maximum m of the scaled scores seen so far, the running sum l of
exp(score - m), and the unnormalized output acc. A new block of scores s
rescales what came before by exp(m_old - m_new) and adds its own
exp(s - m_new) terms; O = acc / l at the end. Scores are kept in base 2
(scaled by log2(e)) so every exponential is one exp2. With CAUSAL, query
row i sees keys 0..i: the walk stops after the diagonal block, and scores
above the diagonal are -inf. Rows and keys past seq_len are masked, so any
seq_len works. As in Triton's tutorial, the walk has two loops: the key
blocks every row of the program sees whole (before its first row with
CAUSAL, else all whole blocks) without masks, then the diagonal or last
partial block with them. fp16 or bf16 in, fp32 statistics and accumulator, O in
Q's dtype. sm_scale must be positive (softmax scales are): the row maximum
is taken over the raw scores, and each score is scaled and shifted by one
fused multiply-add (+1-6% on the H100 over scaling first).

attention_fwd_descriptor: the same computation written with tensor
descriptors (Triton's newer tutorials): each program describes its head's
[seq_len, HEAD_DIM] slices of Q, K, V and O, so blocks past seq_len read
zeros and store nothing without masks; K is read as loaded and transposed
in the dot (q @ k.T). On sm_90a TMA copies the blocks.

attention_fwd_persistent: the descriptor form's tiles (query blocks of
heads) walked by a persistent grid, as many programs as fit on the GPU at
once; on sm_90a its producer warpgroup fetches the next tile's keys during
this tile's epilogue. tessera::kernels::attention runs it without a mask.
"""
import triton
import triton.language as tl


@triton.jit
def attend_block(q, kt, v, m, l, acc, rows, cols, seq_len, scale, CAUSAL: tl.constexpr, MASKED: tl.constexpr):
    # One block of keys: scores q kt, masked past seq_len (and above the
    # diagonal when CAUSAL) if MASKED, folded into the running maximum m
    # (of the scaled scores, base 2), sum l and output acc; returns the new
    # m, l, acc. scale > 0, so the maximum is taken before scaling and each
    # score is scaled and shifted in one fused multiply-add.
    s = tl.dot(q, kt)
    if MASKED:
        visible = cols[None, :] < seq_len
        if CAUSAL:
            visible = visible & (cols[None, :] <= rows[:, None])
        s = tl.where(visible, s, float("-inf"))
    m_new = tl.maximum(m, tl.max(s, 1) * scale)
    correction = tl.math.exp2(m - m_new)
    p = tl.math.exp2(s * scale - m_new[:, None])
    l = l * correction + tl.sum(p, 1)
    acc = tl.dot(p.to(v.dtype), v, acc * correction[:, None])
    return m_new, l, acc


@triton.jit
def attend_keys(q, k_ptr, v_ptr, base, m, l, acc, rows, lo, hi, seq_len, scale,
                HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr, MASKED: tl.constexpr):
    # Key blocks lo, lo + BLOCK_N, ... below hi; without MASKED every key
    # of them is below seq_len and visible to every row.
    dims = tl.arange(0, HEAD_DIM)
    for start in range(lo, hi, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        col_ok = cols < seq_len
        # K^T block: HEAD_DIM x BLOCK_N.
        kt_ptrs = k_ptr + base + cols[None, :] * HEAD_DIM + dims[:, None]
        v_ptrs = v_ptr + base + cols[:, None] * HEAD_DIM + dims[None, :]
        if MASKED:
            kt = tl.load(kt_ptrs, mask=col_ok[None, :], other=0.0)
            v = tl.load(v_ptrs, mask=col_ok[:, None], other=0.0)
        else:
            kt = tl.load(kt_ptrs)
            v = tl.load(v_ptrs)
        m, l, acc = attend_block(q, kt, v, m, l, acc, rows, cols, seq_len, scale, CAUSAL, MASKED)
    return m, l, acc


@triton.jit
def attend_keys_descriptor(q, k_desc, v_desc, m, l, acc, rows, lo, hi, seq_len, scale,
                           BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr, MASKED: tl.constexpr):
    # attend_keys on tensor descriptors: blocks past seq_len read zeros.
    for start in range(lo, hi, BLOCK_N):
        k = k_desc.load([start, 0])
        v = v_desc.load([start, 0])
        m, l, acc = attend_block(q, k.T, v, m, l, acc, rows, start + tl.arange(0, BLOCK_N), seq_len, scale,
                                 CAUSAL, MASKED)
    return m, l, acc


@triton.jit
def unmasked_end(block_m, seq_len, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    # Keys below this are inside the sequence and visible to every row of
    # the program (Triton's tutorial splits the loop the same way): with
    # CAUSAL those before the program's first row, else the whole blocks.
    # The causal split must fall on a key block's start.
    tl.static_assert(not CAUSAL or BLOCK_M % BLOCK_N == 0, "causal attention needs BLOCK_M a multiple of BLOCK_N")
    if CAUSAL:
        return block_m * BLOCK_M
    return seq_len // BLOCK_N * BLOCK_N


@triton.jit
def query_block(CAUSAL: tl.constexpr):
    # The program's query block: with CAUSAL, those with the most keys
    # first (the last ones see every key before them), so the short ones
    # fill the machine at the end.
    block_m = tl.program_id(0)
    if CAUSAL:
        block_m = tl.num_programs(0) - 1 - block_m
    return block_m


@triton.jit
def attention_fwd(q_ptr, k_ptr, v_ptr, o_ptr, sm_scale, seq_len,
                  HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  CAUSAL: tl.constexpr):
    block_m = query_block(CAUSAL)
    head = tl.program_id(1)
    base = head.to(tl.int64) * seq_len * HEAD_DIM
    rows = block_m * BLOCK_M + tl.arange(0, BLOCK_M)
    dims = tl.arange(0, HEAD_DIM)
    row_ok = rows[:, None] < seq_len

    q = tl.load(q_ptr + base + rows[:, None] * HEAD_DIM + dims[None, :], mask=row_ok, other=0.0)
    m = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    scale = sm_scale * 1.4426950408889634  # scores in base 2

    end = seq_len
    if CAUSAL:
        end = tl.minimum((block_m + 1) * BLOCK_M, seq_len)
    split = unmasked_end(block_m, seq_len, BLOCK_M, BLOCK_N, CAUSAL)
    m, l, acc = attend_keys(q, k_ptr, v_ptr, base, m, l, acc, rows, 0, split, seq_len, scale,
                            HEAD_DIM, BLOCK_N, CAUSAL, False)
    m, l, acc = attend_keys(q, k_ptr, v_ptr, base, m, l, acc, rows, split, end, seq_len, scale,
                            HEAD_DIM, BLOCK_N, CAUSAL, True)

    out = acc / l[:, None]
    tl.store(o_ptr + base + rows[:, None] * HEAD_DIM + dims[None, :], out.to(o_ptr.dtype.element_ty), mask=row_ok)


@triton.jit
def attention_tile_descriptor(q_ptr, k_ptr, v_ptr, o_ptr, head, block_m, scale, seq_len,
                              HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                              CAUSAL: tl.constexpr):
    # Query block block_m of head `head`, through tensor descriptors of the
    # head's [seq_len, HEAD_DIM] slices.
    base = head.to(tl.int64) * seq_len * HEAD_DIM
    q_desc = tl.make_tensor_descriptor(q_ptr + base, [seq_len, HEAD_DIM], [HEAD_DIM, 1], [BLOCK_M, HEAD_DIM])
    k_desc = tl.make_tensor_descriptor(k_ptr + base, [seq_len, HEAD_DIM], [HEAD_DIM, 1], [BLOCK_N, HEAD_DIM])
    v_desc = tl.make_tensor_descriptor(v_ptr + base, [seq_len, HEAD_DIM], [HEAD_DIM, 1], [BLOCK_N, HEAD_DIM])
    o_desc = tl.make_tensor_descriptor(o_ptr + base, [seq_len, HEAD_DIM], [HEAD_DIM, 1], [BLOCK_M, HEAD_DIM])
    m0 = block_m * BLOCK_M
    rows = m0 + tl.arange(0, BLOCK_M)

    q = q_desc.load([m0, 0])
    m = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)

    end = seq_len
    if CAUSAL:
        end = tl.minimum((block_m + 1) * BLOCK_M, seq_len)
    split = unmasked_end(block_m, seq_len, BLOCK_M, BLOCK_N, CAUSAL)
    m, l, acc = attend_keys_descriptor(q, k_desc, v_desc, m, l, acc, rows, 0, split, seq_len, scale,
                                       BLOCK_N, CAUSAL, False)
    m, l, acc = attend_keys_descriptor(q, k_desc, v_desc, m, l, acc, rows, split, end, seq_len, scale,
                                       BLOCK_N, CAUSAL, True)

    out = acc / l[:, None]
    o_desc.store([m0, 0], out.to(o_desc.dtype))


@triton.jit
def attention_fwd_descriptor(q_ptr, k_ptr, v_ptr, o_ptr, sm_scale, seq_len,
                             HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                             CAUSAL: tl.constexpr):
    block_m = query_block(CAUSAL)
    scale = sm_scale * 1.4426950408889634  # scores in base 2
    attention_tile_descriptor(q_ptr, k_ptr, v_ptr, o_ptr, tl.program_id(1), block_m, scale, seq_len,
                              HEAD_DIM, BLOCK_M, BLOCK_N, CAUSAL)


@triton.jit
def attention_fwd_persistent(q_ptr, k_ptr, v_ptr, o_ptr, sm_scale, seq_len, heads,
                             HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                             CAUSAL: tl.constexpr):
    # attention_fwd_descriptor on a persistent grid: the programs (about
    # as many as fit on the GPU at once) walk the heads x query blocks
    # tiles, program p taking tiles p, p + num_programs, ...; `heads` is
    # batch * heads. The assumptions let each head's descriptors be one
    # the launch encodes, the head its coordinate in an outer dim.
    tl.assume(seq_len > 0)
    tl.assume(heads > 0)
    blocks_m = tl.cdiv(seq_len, BLOCK_M)
    scale = sm_scale * 1.4426950408889634  # scores in base 2
    for tile in range(tl.program_id(0), blocks_m * heads, tl.num_programs(0)):
        head = tile // blocks_m
        block_m = tile % blocks_m
        if CAUSAL:
            # Each head's query blocks with the most keys first.
            block_m = blocks_m - 1 - block_m
        attention_tile_descriptor(q_ptr, k_ptr, v_ptr, o_ptr, head, block_m, scale, seq_len,
                                  HEAD_DIM, BLOCK_M, BLOCK_N, CAUSAL)
