"""Result specs for the benchsuite/ package (a kernel benchmark suite): the
addmm GEMM with a gelu epilogue and the split-K GEMM (autotuned from
tuning.py; the harness pins the config matching the manifest, so BLOCK_*,
GROUP_M and SPLIT_K are never passed here), the int4 weight-only GEMM,
jagged sum/mean over offset-delimited sequences (with an empty sequence and
one longer than max_seq_len), the row reductions (sum, argmax with
deliberate ties, Welford layer norm, scans), embedding forward (with
padding_idx rows) and its atomic backward, the multi-row softmax and the
log-softmax backward, and the launch.py re-exports of several of them. Each
spec launches the kernel as the operator's host wrapper does (grid, strides,
num_warps from num_warps_for). Row kernels that share one row stride among
their input and output get padded buffers: an odd column count inside rows
whose stride is a multiple of 16, as the manifest signatures specialise it;
the whole padded buffer is returned (the padding keeps its sentinel)."""

import torch
import triton
from spec import entry, exact, tol


def _padded(g, rows, cols, stride, dtype=torch.float32, kind="randn", scale=1.0):
    """(base, view): a [rows, stride] buffer and its [rows, cols] view."""
    if kind == "randn":
        base = g.randn(rows, stride, dtype=dtype, scale=scale)
    else:
        base = g.empty(rows, stride, dtype=dtype)
    return base, base[:, :cols]


def _offsets(g, B, max_len, empty=(), long=()):
    """int64 offsets [B + 1] of B random sequence lengths in [0, max_len)."""
    lengths = g.randint(0, max_len, B, dtype=torch.int64)
    for i in empty:
        lengths[i] = 0
    for i in long:
        lengths[i] = max_len - 1
    offsets = torch.cat([torch.zeros(1, dtype=torch.int64, device=g.dev), lengths.cumsum(0)])
    return offsets.contiguous(), int(offsets[-1].item())


# ---------------------------------------------------------------- GEMMs

# Pinned config BLOCK_M=BLOCK_N=128, BLOCK_K=64, GROUP_M=8. M, N, K are odd
# (partial tiles everywhere: rows are loaded modulo M, K masked, stores
# masked) inside padded buffers whose row strides are multiples of 16, as the
# manifest signature specialises them. fp16 GEMM with fp32 accumulation over
# K = 527 plus an erf-based gelu: 2e-2.
# The kernel hints rm % M and rn % N as BLOCK-contiguous runs
# (max_contiguous(multiple_of(...))), which holds only when M and N are
# multiples of the block sizes: with M = 333 Triton itself faults on a
# misaligned vector load. So M, N are multiples of 128 (every config's
# blocks divide them); K stays odd (masked).
@entry("benchsuite/operators/gemm.py", "addmm_kernel")
def _(run, g):
    M, N, K = 384, 256, 527
    ab, a = _padded(g, M, K, 528, dtype=torch.float16)
    bb, b = _padded(g, K, N, 256, dtype=torch.float16, scale=0.2)
    bias = g.randn(N, dtype=torch.float16)
    cb, c = _padded(g, M, N, 256, dtype=torch.float16, kind="empty")
    run(lambda m: (triton.cdiv(M, m["BLOCK_M"]) * triton.cdiv(N, m["BLOCK_N"]), ),
        a, b, bias, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
        ACTIVATION="gelu")
    return {"c": tol(cb, atol=2e-2, rtol=2e-2)}


# Pinned config 64x64x64, SPLIT_K=4 (K = 1007: 3 K tiles per split, the last
# one partial); odd M, N, K in padded buffers (row strides multiples of 16).
# C must start at zero: the splits atomic_add into it (the autotuner's
# reset_to_zero only runs while benchmarking). The four partial sums land in
# any order and MMA rounding may differ: 1e-2 on |C| ~ 10.
@entry("benchsuite/operators/gemm.py", "splitk_matmul_kernel")
def _(run, g):
    M, N, K = 333, 239, 1007
    ab, a = _padded(g, M, K, 1008, dtype=torch.float16, scale=0.5)
    bb, b = _padded(g, K, N, 240, dtype=torch.float16, scale=0.5)
    cb = g.zeros(M, 240)
    c = cb[:, :N]
    run(lambda m: (triton.cdiv(M, m["BLOCK_M"]) * triton.cdiv(N, m["BLOCK_N"]), m["SPLIT_K"]),
        a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1))
    return {"c": tol(cb, atol=1e-2, rtol=1e-2)}


# Pinned config 16x128x128. K = 576 with group_size 64 (9 groups): the last K
# tile is half masked. Packed bytes are any int8 (both nibbles in [0, 15]).
# bf16 GEMM, K = 576, fp32 accumulation, dequantised weights rounded to bf16
# (an FMA there may round differently): 5e-2.
@entry("benchsuite/operators/int4_gemm.py", "matmul_int4_kernel")
def _(run, g):
    M, N, K, group_size = 37, 400, 576, 64
    a = g.randn(M, K, dtype=torch.bfloat16)
    b_packed = g.randint(-128, 128, K // 2, N, dtype=torch.int8)
    scales = g.rand(K // group_size, N, dtype=torch.bfloat16, lo=0.01, hi=0.05)
    zeros = g.randn(K // group_size, N, dtype=torch.bfloat16, scale=0.01)
    c = g.empty(M, N, dtype=torch.bfloat16)
    run(lambda m: (triton.cdiv(M, m["BLOCK_M"]), triton.cdiv(N, m["BLOCK_N"])),
        a, b_packed, c, scales, zeros, M, N, K, a.stride(0), a.stride(1), b_packed.stride(0), b_packed.stride(1),
        c.stride(0), c.stride(1), scales.stride(0), scales.stride(1), group_size)
    return {"c": tol(c, atol=5e-2, rtol=5e-2)}


# --------------------------------------------------------------- jagged

# Pinned config BLOCK_SEQ=32, BLOCK_D=128. Sequence 3 is empty; sequences 5
# and 9 (length 149) are cut at max_seq_len = 100. The final tl.sum over the
# 32 sequence lanes may be ordered differently: 1e-4.
@entry("benchsuite/operators/jagged.py", "jagged_sum_kernel")
def _(run, g):
    B, D, max_seq_len = 13, 400, 100
    offsets, total = _offsets(g, B, 150, empty=(3, ), long=(5, 9))
    values = g.randn(total, D)
    out = g.empty(B, D)
    run(lambda m: (B, triton.cdiv(D, m["BLOCK_D"])), values, offsets, out, D, max_seq_len)
    return {"out": tol(out, atol=1e-4, rtol=1e-4)}


# Grid (B, cdiv(D, 4 * BLOCK_D)) as jagged_mean() launches it: D = 400 gives
# two programs per sequence, the second with fully masked column blocks.
# Sequence 4 is empty (mean 0). Sums reduced in another order: 1e-4.
@entry("benchsuite/operators/jagged.py", "jagged_mean_kernel")
def _(run, g):
    B, D, BLOCK_SEQ, BLOCK_D = 11, 400, 32, 64
    offsets, total = _offsets(g, B, 200, empty=(4, ))
    values = g.randn(total, D, dtype=torch.bfloat16)
    out = g.empty(B, D)
    run((B, triton.cdiv(D, 4 * BLOCK_D)), values, offsets, out, D, BLOCK_SEQ=BLOCK_SEQ, BLOCK_D=BLOCK_D)
    return {"out": tol(out, atol=1e-4, rtol=1e-4)}


# ----------------------------------------------------------- reductions

# Pinned config BLOCK_N=1024 (num_warps 4). N = 3001 in rows of stride 3008:
# three chunks, the last masked. 3001-element fp32 sums, another tree order
# moves them by ~1e-5.
@entry("benchsuite/operators/reductions.py", "row_sum_kernel")
def _(run, g):
    M, N = 53, 3001
    xb, x = _padded(g, M, N, 3008, dtype=torch.bfloat16)
    out = g.empty(M)
    run((M, ), x, out, x.stride(0), N)
    return {"out": tol(out, atol=1e-3, rtol=1e-4)}


# Single block: N = 3001 <= BLOCK_N = 4096. Every third row holds its maximum
# twice (columns 17 and 2900): tie_break_left must pick 17.
@entry("benchsuite/operators/reductions.py", "row_argmax_kernel")
def _(run, g):
    M, N, BLOCK_N = 37, 3001, 4096
    xb, x = _padded(g, M, N, 3008)
    x[::3, 17] = 10.0
    x[::3, 2900] = 10.0
    idx = g.empty(M, dtype=torch.int64)
    val = g.empty(M)
    run((M, ), x, idx, val, x.stride(0), N, BLOCK_N=BLOCK_N, num_warps=16)
    return {"idx": exact(idx), "val": exact(val)}


# N = 777 < BLOCK_N = 1024: lanes 777.. never see an element, so the tuple
# tl.reduce merges empty (count 0) summaries. x and y share the row stride
# (784). Mean/variance are 777-element fp32 reductions merged in a tree: 1e-4.
@entry("benchsuite/operators/reductions.py", "welford_layer_norm_kernel")
def _(run, g):
    M, N, stride, BLOCK_N = 45, 777, 784, 1024
    xb, x = _padded(g, M, N, stride, dtype=torch.float16, scale=2.0)
    x += 0.5
    w = (1.0 + g.randn(N, scale=0.1)).to(torch.float16)
    b = g.randn(N, dtype=torch.float16, scale=0.1)
    yb, y = _padded(g, M, N, stride, kind="empty")
    run((M, ), x, w, b, y, x.stride(0), N, 1e-5, BLOCK_N=BLOCK_N, num_warps=4)
    return {"y": tol(yb, atol=1e-4, rtol=1e-4)}


# N = 999 <= BLOCK_N = 1024 in rows of stride 1008 (shared by all three
# buffers). The prefix sum may be computed in another association order:
# 1e-4 on values ~30. The running max |x| is exact whatever the order.
@entry("benchsuite/operators/reductions.py", "row_scan_kernel")
def _(run, g):
    M, N, stride = 33, 999, 1008
    xb, x = _padded(g, M, N, stride)
    cb, csum = _padded(g, M, N, stride, kind="empty")
    rb, runmax = _padded(g, M, N, stride, kind="empty")
    run((M, ), x, csum, runmax, x.stride(0), N, BLOCK_N=1024, REVERSE=False)
    return {"cumsum": tol(cb, atol=1e-4, rtol=1e-4), "runmax": exact(rb)}


# ------------------------------------------------------------ embedding

# Grid (cdiv(n, 32), cdiv(D, 128)); num_warps_for(32 * 128, hi=8) = 8.
# Indices equal to padding_idx = 7 (every 50th) give zero rows.
@entry("benchsuite/operators/embedding.py", "embedding_forward_kernel")
def _(run, g):
    num_embeddings, D, n, padding_idx = 1000, 400, 1234, 7
    weight = g.randn(num_embeddings, D, dtype=torch.bfloat16)
    indices = g.randint(0, num_embeddings, n, dtype=torch.int64)
    indices[::50] = padding_idx
    out = g.empty(n, D, dtype=torch.bfloat16)
    run((triton.cdiv(n, 32), triton.cdiv(D, 128)), weight, indices, out, n, D, padding_idx,
        BLOCK_M=32, BLOCK_D=128, num_warps=8)
    return {"out": out}


# grad_weight starts at zero (the host allocates it with torch.zeros); each of
# the 100 rows gets ~12 atomic adds in a nondeterministic order: 1e-4.
@entry("benchsuite/operators/embedding.py", "embedding_backward_kernel")
def _(run, g):
    num_embeddings, D, n = 100, 400, 1234
    grad_out = g.randn(n, D, dtype=torch.bfloat16)
    indices = g.randint(0, num_embeddings, n, dtype=torch.int64)
    grad_weight = g.zeros(num_embeddings, D)
    run((n, ), grad_out, indices, grad_weight, n, D, BLOCK_D=256)
    return {"grad_weight": tol(grad_weight, atol=1e-4, rtol=1e-4)}


# -------------------------------------------------------------- softmax

# ROWS_PER_PROGRAM = 4 (a module constexpr): 37 rows give 10 programs, the
# last with one live row. n_cols = 999 <= BLOCK_N; in and out share stride 1008.
@entry("benchsuite/operators/softmax.py", "softmax_multirow_kernel")
def _(run, g):
    n_rows, n_cols, stride = 37, 999, 1008
    xb, x = _padded(g, n_rows, n_cols, stride, dtype=torch.float16, scale=3.0)
    ob, out = _padded(g, n_rows, n_cols, stride, dtype=torch.float16, kind="empty")
    run((triton.cdiv(n_rows, 4), ), out, x, x.stride(0), n_rows, n_cols, BLOCK_N=1024, num_warps=4)
    return {"out": ob}


# out is a real log-softmax; n_cols = 1999 <= BLOCK_N = 2048, all three
# buffers share stride 2000. sum(g) is a 1999-element fp32 reduction: 1e-4.
@entry("benchsuite/operators/softmax.py", "log_softmax_backward_kernel")
def _(run, g):
    M, N, stride = 45, 1999, 2000
    logits = g.randn(M, stride, scale=2.0)
    ys = g.empty(M, stride)
    ys[:, :N] = torch.log_softmax(logits[:, :N], dim=-1)
    y = ys[:, :N]
    gob, grad_out = _padded(g, M, N, stride)
    gib, grad_in = _padded(g, M, N, stride, kind="empty")
    run((M, ), grad_in, grad_out, y, y.stride(0), N, BLOCK_N=2048, num_warps=8)
    return {"grad_in": tol(gib, atol=1e-4, rtol=1e-4)}


# ------------------------------------------------------ launch.py re-exports

# row_sum_kernel through launch.py, fp32 input, pinned BLOCK_N=4096 (num_warps
# 16): N = 20011 in rows of stride 20016, five chunks. Long fp32 sums: 1e-4.
@entry("benchsuite/launch.py", "row_sum")
def _(run, g):
    M, N = 29, 20011
    xb, x = _padded(g, M, N, 20016)
    out = g.empty(M)
    run((M, ), x, out, x.stride(0), N)
    return {"out": tol(out, atol=1e-3, rtol=1e-4)}


# welford_layer_norm_kernel through launch.py, bf16 in, fp32 out, BLOCK_N =
# 2048 (num_warps_for(2048) = 8): N = 5000 takes three passes, the last
# masked. 5000-element fp32 statistics merged in a tree: 1e-4.
@entry("benchsuite/launch.py", "welford_ln")
def _(run, g):
    M, N, stride, BLOCK_N = 31, 5000, 5008, 2048
    xb, x = _padded(g, M, N, stride, dtype=torch.bfloat16, scale=2.0)
    x -= 0.25
    w = (1.0 + g.randn(N, scale=0.1)).to(torch.bfloat16)
    b = g.randn(N, dtype=torch.bfloat16, scale=0.1)
    yb, y = _padded(g, M, N, stride, kind="empty")
    run((M, ), x, w, b, y, x.stride(0), N, 1e-5, BLOCK_N=BLOCK_N, num_warps=8)
    return {"y": tol(yb, atol=1e-4, rtol=1e-4)}


# splitk_matmul_kernel through launch.py, bf16, pinned 128x64x32 with
# SPLIT_K=8 (K = 783: three K tiles per split, the last partial); odd M, N, K
# in padded buffers. C zeroed (atomic accumulation); eight partials in any
# order, bf16 MMA: 1e-2.
@entry("benchsuite/launch.py", "splitk_kernel")
def _(run, g):
    M, N, K = 257, 175, 783
    ab, a = _padded(g, M, K, 784, dtype=torch.bfloat16, scale=0.5)
    bb, b = _padded(g, K, N, 176, dtype=torch.bfloat16, scale=0.5)
    cb = g.zeros(M, 176)
    c = cb[:, :N]
    run(lambda m: (triton.cdiv(M, m["BLOCK_M"]) * triton.cdiv(N, m["BLOCK_N"]), m["SPLIT_K"]),
        a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1))
    return {"c": tol(cb, atol=1e-2, rtol=1e-2)}


# row_argmax_kernel reached as red.row_argmax_kernel, fp16: N = 1500 <=
# BLOCK_N = 2048 (num_warps 8), rows of stride 1504. Every fourth row has its
# maximum at columns 3 and 1400; tie_break_left must pick 3.
@entry("benchsuite/launch.py", "red.row_argmax_kernel")
def _(run, g):
    M, N, BLOCK_N = 41, 1500, 2048
    xb, x = _padded(g, M, N, 1504, dtype=torch.float16)
    x[::4, 3] = 8.0
    x[::4, 1400] = 8.0
    idx = g.empty(M, dtype=torch.int64)
    val = g.empty(M, dtype=torch.float16)
    run((M, ), x, idx, val, x.stride(0), N, BLOCK_N=BLOCK_N, num_warps=8)
    return {"idx": exact(idx), "val": exact(val)}


# jagged_mean_kernel reached as jagged.jagged_mean_kernel, fp32, BLOCK_SEQ=64,
# BLOCK_D=128: D = 1008 gives cdiv(1008, 512) = 2 programs per sequence.
# Sequences 0 and 6 are empty. Sums reduced in another order: 1e-4.
@entry("benchsuite/launch.py", "jagged.jagged_mean_kernel")
def _(run, g):
    B, D, BLOCK_SEQ, BLOCK_D = 9, 1008, 64, 128
    offsets, total = _offsets(g, B, 300, empty=(0, 6))
    values = g.randn(total, D)
    out = g.empty(B, D)
    run((B, triton.cdiv(D, 4 * BLOCK_D)), values, offsets, out, D, BLOCK_SEQ=BLOCK_SEQ, BLOCK_D=BLOCK_D)
    return {"out": tol(out, atol=1e-4, rtol=1e-4)}
