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
this tile's epilogue. With CAUSAL the programs stride over pairs of query
blocks of equal work (j and the j-th from the last of a head's first
2 * (blocks // 2) blocks; an odd count's last block alone), heads in groups
of 8 (a balanced order). tessera::kernels::attention runs it without a mask.

Training: attention_fwd_lse is attention_fwd that also stores each query
row's log-sum-exp of its scaled scores (natural log, fp32 [batch * heads,
seq_len], as PyTorch's flash attention returns it); attention_fwd_lse_descriptor
the same in the descriptor form (tessera::kernels::attention_forward's
choice on sm_90a at head_dim 64 and 128). The backward pass
(FlashAttention-2's recomputation: no score matrix is stored) is three
kernels. attention_bwd_delta: delta = rowsum(dO * O) per query row.
attention_bwd_dkdv: one program per BLOCK_N keys of a head keeps dK and dV
in registers and walks the query blocks that see those keys (with CAUSAL,
from the keys' own block on), recomputing the probabilities transposed,
P^T = exp(K Q^T * scale - lse), so that dV += P^T dO and dK += dS^T Q with
dS^T = P^T * (V dO^T - delta) are plain dots with no transposed
accumulator. attention_bwd_dq: one program per BLOCK_M query rows keeps dQ
and walks the keys those rows see: dQ += dS K. Nothing is accumulated
across programs, so there are no atomics and the result does not depend on
scheduling. attention_bwd_fused is the one-pass alternative: the dK/dV
programs also add each query step's dQ share (dS K) to an fp32 dQ with
tl.atomic_add (5 products per step pair instead of the two kernels' 7, at
the price of atomics and of sums in arrival order: dQ's last bits vary
from run to run); attention_bwd_dq_scale then scales it into dQ's dtype.
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
def attend_query_block(q_ptr, k_ptr, v_ptr, base, block_m, seq_len, sm_scale,
                       HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    # Query rows block_m * BLOCK_M + [0, BLOCK_M) of the head at `base`
    # against its keys: returns the rows and their running maximum m, sum
    # l and unnormalized output acc (O = acc / l).
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
    return rows, m, l, acc


@triton.jit
def store_query_block(o_ptr, base, rows, l, acc, seq_len, HEAD_DIM: tl.constexpr):
    # O = acc / l for the query rows (those inside the sequence).
    dims = tl.arange(0, HEAD_DIM)
    out = acc / l[:, None]
    tl.store(o_ptr + base + rows[:, None] * HEAD_DIM + dims[None, :], out.to(o_ptr.dtype.element_ty),
             mask=rows[:, None] < seq_len)


@triton.jit
def row_lse(m, l):
    # m and log2(l) are in base 2 of the scaled scores: ln(sum e^s) = ln 2 * (m + log2 l).
    return (m + tl.math.log2(l)) * 0.6931471805599453


@triton.jit
def attention_fwd(q_ptr, k_ptr, v_ptr, o_ptr, sm_scale, seq_len,
                  HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  CAUSAL: tl.constexpr):
    block_m = query_block(CAUSAL)
    base = tl.program_id(1).to(tl.int64) * seq_len * HEAD_DIM
    rows, m, l, acc = attend_query_block(q_ptr, k_ptr, v_ptr, base, block_m, seq_len, sm_scale,
                                         HEAD_DIM, BLOCK_M, BLOCK_N, CAUSAL)
    store_query_block(o_ptr, base, rows, l, acc, seq_len, HEAD_DIM)


@triton.jit
def attend_tile_descriptor(q_ptr, k_ptr, v_ptr, o_ptr, head, block_m, scale, seq_len,
                           HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                           CAUSAL: tl.constexpr):
    # Query block block_m of head `head`, through tensor descriptors of the
    # head's [seq_len, HEAD_DIM] slices: returns O's descriptor, the block's
    # first row, and its rows' running maximum m, sum l and output acc.
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
    return o_desc, m0, rows, m, l, acc


@triton.jit
def attention_tile_descriptor(q_ptr, k_ptr, v_ptr, o_ptr, head, block_m, scale, seq_len,
                              HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                              CAUSAL: tl.constexpr):
    o_desc, m0, rows, m, l, acc = attend_tile_descriptor(q_ptr, k_ptr, v_ptr, o_ptr, head, block_m, scale, seq_len,
                                                         HEAD_DIM, BLOCK_M, BLOCK_N, CAUSAL)
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
    if CAUSAL:
        # Balanced: query blocks j and 2 * half - 1 - j together see
        # 2 * half + 1 key blocks, as many as an odd blocks_m's last block
        # alone, so a pair (or that block) is the unit the programs stride
        # over and every program's work is within one unit of the mean
        # (striding tile by tile over heaviest-first tiles, a program kept
        # the same few query blocks: 1.5x the mean at 2 programs per SM).
        # A pair takes two of the program's slots, heavier tile first; one
        # loop over slots, as the producer warpgroup serves one persistent
        # loop. The pairs of 8 heads side by side, so the tiles that run at
        # the same time read few heads' keys and values (they stay in L2
        # together); the lone last blocks after all pairs.
        half = blocks_m // 2
        pair_units = half * heads
        units = pair_units + (blocks_m % 2) * heads
        program = tl.program_id(0)
        programs = tl.num_programs(0)
        mine = (units - program + programs - 1) // programs  # units program, program + programs, ...
        mine_pairs = (pair_units - program + programs - 1) // programs  # the first mine_pairs are pairs
        span = tl.maximum(half, 1) * 8  # a group's pair units
        for slot in range(0, mine + mine_pairs):
            paired = slot < 2 * mine_pairs
            # (the maximum only proves the head's coordinate >= 0: slot >= mine_pairs on single slots)
            pair_unit = tl.where(paired, program + (slot // 2) * programs, 0)
            single_unit = program + tl.maximum(slot - mine_pairs, 0) * programs
            group = pair_unit // span
            within = pair_unit % span
            group_heads = tl.minimum(heads - group * 8, 8)
            j = within // group_heads
            head = tl.where(paired, group * 8 + within % group_heads, single_unit % heads)
            block_m = tl.where(paired, j + (1 - slot % 2) * (2 * half - 1 - 2 * j), blocks_m - 1)
            attention_tile_descriptor(q_ptr, k_ptr, v_ptr, o_ptr, head, block_m, scale, seq_len,
                                      HEAD_DIM, BLOCK_M, BLOCK_N, CAUSAL)
    else:
        for tile in range(tl.program_id(0), blocks_m * heads, tl.num_programs(0)):
            attention_tile_descriptor(q_ptr, k_ptr, v_ptr, o_ptr, tile // blocks_m, tile % blocks_m, scale, seq_len,
                                      HEAD_DIM, BLOCK_M, BLOCK_N, CAUSAL)


@triton.jit
def attention_fwd_lse(q_ptr, k_ptr, v_ptr, o_ptr, lse_ptr, sm_scale, seq_len,
                      HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                      CAUSAL: tl.constexpr):
    block_m = query_block(CAUSAL)
    head = tl.program_id(1).to(tl.int64)
    base = head * seq_len * HEAD_DIM
    rows, m, l, acc = attend_query_block(q_ptr, k_ptr, v_ptr, base, block_m, seq_len, sm_scale,
                                         HEAD_DIM, BLOCK_M, BLOCK_N, CAUSAL)
    store_query_block(o_ptr, base, rows, l, acc, seq_len, HEAD_DIM)
    tl.store(lse_ptr + head * seq_len + rows, row_lse(m, l), mask=rows < seq_len)


@triton.jit
def attention_bwd_delta(o_ptr, do_ptr, delta_ptr, seq_len, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr):
    head = tl.program_id(1).to(tl.int64)
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    dims = tl.arange(0, HEAD_DIM)
    offs = head * seq_len * HEAD_DIM + rows[:, None] * HEAD_DIM + dims[None, :]
    row_ok = rows < seq_len
    o = tl.load(o_ptr + offs, mask=row_ok[:, None], other=0.0).to(tl.float32)
    do = tl.load(do_ptr + offs, mask=row_ok[:, None], other=0.0).to(tl.float32)
    tl.store(delta_ptr + head * seq_len + rows, tl.sum(o * do, 1), mask=row_ok)


@triton.jit
def key_block_gradients(q_ptr, k_ptr, v_ptr, do_ptr, lse_ptr, delta_ptr, dk_ptr, dv_ptr, dq_acc_ptr, sm_scale,
                        seq_len, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                        CAUSAL: tl.constexpr, FUSED_DQ: tl.constexpr):
    # dK and dV of this program's BLOCK_N keys (attention_bwd_dkdv); with
    # FUSED_DQ also each query step's share of dQ, dS K, added to the fp32
    # dq_acc (attention_bwd_fused).
    head = tl.program_id(1).to(tl.int64)
    base = head * seq_len * HEAD_DIM
    stats = head * seq_len
    keys = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    dims = tl.arange(0, HEAD_DIM)
    key_ok = keys < seq_len
    kv_offs = base + keys[:, None] * HEAD_DIM + dims[None, :]
    k = tl.load(k_ptr + kv_offs, mask=key_ok[:, None], other=0.0)
    v = tl.load(v_ptr + kv_offs, mask=key_ok[:, None], other=0.0)
    dk = tl.zeros([BLOCK_N, HEAD_DIM], dtype=tl.float32)
    dv = tl.zeros([BLOCK_N, HEAD_DIM], dtype=tl.float32)
    scale = sm_scale * 1.4426950408889634  # base 2
    lo = 0
    if CAUSAL:
        lo = tl.program_id(0) * BLOCK_N  # earlier queries do not see these keys
    for start in range(lo, seq_len, BLOCK_M):
        rows = start + tl.arange(0, BLOCK_M)
        row_ok = rows < seq_len
        qt = tl.load(q_ptr + base + rows[None, :] * HEAD_DIM + dims[:, None], mask=row_ok[None, :], other=0.0)
        do = tl.load(do_ptr + base + rows[:, None] * HEAD_DIM + dims[None, :], mask=row_ok[:, None], other=0.0)
        lse = tl.load(lse_ptr + stats + rows, mask=row_ok, other=0.0) * 1.4426950408889634
        delta = tl.load(delta_ptr + stats + rows, mask=row_ok, other=0.0)
        # P^T: keys x queries, 0 where a query does not see a key.
        pt = tl.math.exp2(tl.dot(k, qt) * scale - lse[None, :])
        visible = row_ok[None, :]
        if CAUSAL:
            visible = visible & (keys[:, None] <= rows[None, :])
        pt = tl.where(visible, pt, 0.0)
        dv = tl.dot(pt.to(do.dtype), do, dv)
        dst = pt * (tl.dot(v, tl.trans(do)) - delta[None, :])
        dk = tl.dot(dst.to(qt.dtype), tl.trans(qt), dk)
        if FUSED_DQ:
            # dQ[rows] += dS K: other key blocks' programs add to the same rows.
            dq = tl.dot(tl.trans(dst.to(k.dtype)), k)
            tl.atomic_add(dq_acc_ptr + base + rows[:, None] * HEAD_DIM + dims[None, :], dq, mask=row_ok[:, None],
                          sem="relaxed")
    tl.store(dk_ptr + kv_offs, (dk * sm_scale).to(dk_ptr.dtype.element_ty), mask=key_ok[:, None])
    tl.store(dv_ptr + kv_offs, dv.to(dv_ptr.dtype.element_ty), mask=key_ok[:, None])


@triton.jit
def attention_bwd_dkdv(q_ptr, k_ptr, v_ptr, do_ptr, lse_ptr, delta_ptr, dk_ptr, dv_ptr, sm_scale, seq_len,
                       HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                       CAUSAL: tl.constexpr):
    key_block_gradients(q_ptr, k_ptr, v_ptr, do_ptr, lse_ptr, delta_ptr, dk_ptr, dv_ptr, dk_ptr, sm_scale, seq_len,
                        HEAD_DIM, BLOCK_M, BLOCK_N, CAUSAL, False)


@triton.jit
def attention_bwd_fused(q_ptr, k_ptr, v_ptr, do_ptr, lse_ptr, delta_ptr, dk_ptr, dv_ptr, dq_acc_ptr, sm_scale,
                        seq_len, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                        CAUSAL: tl.constexpr):
    key_block_gradients(q_ptr, k_ptr, v_ptr, do_ptr, lse_ptr, delta_ptr, dk_ptr, dv_ptr, dq_acc_ptr, sm_scale,
                        seq_len, HEAD_DIM, BLOCK_M, BLOCK_N, CAUSAL, True)


@triton.jit
def attention_bwd_dq_scale(dq_acc_ptr, dq_ptr, sm_scale, n, BLOCK: tl.constexpr):
    # dq = dq_acc * sm_scale in dq's dtype (after attention_bwd_fused).
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    ok = offs < n
    tl.store(dq_ptr + offs, (tl.load(dq_acc_ptr + offs, mask=ok) * sm_scale).to(dq_ptr.dtype.element_ty), mask=ok)


@triton.jit
def attention_bwd_dq(q_ptr, k_ptr, v_ptr, do_ptr, lse_ptr, delta_ptr, dq_ptr, sm_scale, seq_len,
                     HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                     CAUSAL: tl.constexpr):
    head = tl.program_id(1).to(tl.int64)
    base = head * seq_len * HEAD_DIM
    stats = head * seq_len
    block_m = tl.program_id(0)
    rows = block_m * BLOCK_M + tl.arange(0, BLOCK_M)
    dims = tl.arange(0, HEAD_DIM)
    row_ok = rows < seq_len
    q_offs = base + rows[:, None] * HEAD_DIM + dims[None, :]
    q = tl.load(q_ptr + q_offs, mask=row_ok[:, None], other=0.0)
    do = tl.load(do_ptr + q_offs, mask=row_ok[:, None], other=0.0)
    lse = tl.load(lse_ptr + stats + rows, mask=row_ok, other=0.0) * 1.4426950408889634
    delta = tl.load(delta_ptr + stats + rows, mask=row_ok, other=0.0)
    dq = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    scale = sm_scale * 1.4426950408889634  # base 2
    hi = seq_len
    if CAUSAL:
        hi = tl.minimum((block_m + 1) * BLOCK_M, seq_len)  # later keys are not seen
    for start in range(0, hi, BLOCK_N):
        keys = start + tl.arange(0, BLOCK_N)
        key_ok = keys < seq_len
        kt = tl.load(k_ptr + base + keys[None, :] * HEAD_DIM + dims[:, None], mask=key_ok[None, :], other=0.0)
        vt = tl.load(v_ptr + base + keys[None, :] * HEAD_DIM + dims[:, None], mask=key_ok[None, :], other=0.0)
        p = tl.math.exp2(tl.dot(q, kt) * scale - lse[:, None])
        visible = key_ok[None, :]
        if CAUSAL:
            visible = visible & (keys[None, :] <= rows[:, None])
        p = tl.where(visible, p, 0.0)
        ds = p * (tl.dot(do, vt) - delta[:, None])
        dq = tl.dot(ds.to(kt.dtype), tl.trans(kt), dq)
    tl.store(dq_ptr + q_offs, (dq * sm_scale).to(dq_ptr.dtype.element_ty), mask=row_ok[:, None])


@triton.jit
def attention_fwd_lse_descriptor(q_ptr, k_ptr, v_ptr, o_ptr, lse_ptr, sm_scale, seq_len,
                                 HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                                 CAUSAL: tl.constexpr):
    # attention_fwd_lse in the descriptor form (TMA on sm_90a).
    block_m = query_block(CAUSAL)
    head = tl.program_id(1)
    scale = sm_scale * 1.4426950408889634  # scores in base 2
    o_desc, m0, rows, m, l, acc = attend_tile_descriptor(q_ptr, k_ptr, v_ptr, o_ptr, head, block_m, scale, seq_len,
                                                         HEAD_DIM, BLOCK_M, BLOCK_N, CAUSAL)
    o_desc.store([m0, 0], (acc / l[:, None]).to(o_desc.dtype))
    tl.store(lse_ptr + head.to(tl.int64) * seq_len + rows, row_lse(m, l), mask=rows < seq_len)
