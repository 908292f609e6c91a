"""Result specs for the tutorials/ package of the corpus.

One spec per manifest line whose FILE starts with "tutorials/" (18 entries):
each builds inputs with the seeded generator g and launches the kernel the
way the file's own host wrapper does (same grid, strides from the tensors,
the manifest's DEFINES for constexprs that are neither autotuned nor
computed by heuristics). Sizes are modest and, where the kernel masks, odd;
strides are kept multiples of 16 elements where the manifest's signature
specialises them so (i32:16), and TMA-facing strides are 16-byte aligned.
"""

import torch
import triton

from spec import entry, exact, tol


# ---------------------------------------------------------------- vector_add

@entry("tutorials/vector_add.py", "add_kernel")
def _(run, g):
    n = 98_437
    x, y, out = g.randn(n), g.randn(n), g.empty(n)
    run(lambda m: (triton.cdiv(n, m["BLOCK_SIZE"]),), x, y, out, n, BLOCK_SIZE=1024)
    return {"out": out}


# y is updated in place: y <- alpha * x + y.
@entry("tutorials/vector_add.py", "axpy_kernel")
def _(run, g):
    n = 98_437
    x, y = g.randn(n), g.randn(n)
    run((triton.cdiv(n, 2048),), x, y, n, 0.37, BLOCK_SIZE=2048, num_warps=8)
    return {"y": y}


# ------------------------------------------------------------- fused_softmax

# Single-block rows: n_cols <= BLOCK_SIZE (1024). BLOCK_SIZE and num_stages
# are passed positionally, as the wrapper does (num_stages is a kernel
# parameter here, not only a launch option). Fewer programs than rows so the
# persistent loop takes several rows per program. Input rows are padded to a
# stride of 800 elements.
@entry("tutorials/fused_softmax.py", "softmax_kernel")
def _(run, g):
    n_rows, n_cols = 1823, 781
    x = g.randn(n_rows, 800, scale=2.0)[:, :n_cols]
    y = g.empty(n_rows, n_cols)
    run((160, 1, 1), y, x, x.stride(0), y.stride(0), n_rows, n_cols, 1024, 4, num_warps=8)
    return {"y": y}


# Rows wider than TILE (4096): three tiles, the last one masked. The same
# row_stride is used for input and output, so both are contiguous.
@entry("tutorials/fused_softmax.py", "softmax_online_kernel")
def _(run, g):
    n_rows, n_cols = 37, 10_000
    x = g.randn(n_rows, n_cols, dtype=torch.bfloat16, scale=3.0)
    y = g.empty(n_rows, n_cols, dtype=torch.bfloat16)
    run((n_rows,), y, x, x.stride(0), n_cols, TILE=4096)
    return {"y": y}


# -------------------------------------------------------------------- matmul

# Autotuned (BLOCK_SIZE_M/N/K, GROUP_SIZE_M pinned by the harness);
# ACTIVATION is the only constexpr passed. M odd (rows wrap, store masked),
# N and K multiples of 16 but not of the tile sizes (K tail masked).
# fp16 GEMM with fp32 accumulation, K = 336: tolerance 2e-2.
@entry("tutorials/matmul.py", "matmul_kernel")
def _(run, g):
    M, N, K = 517, 400, 336
    a = g.randn(M, K, dtype=torch.float16)
    b = g.randn(K, N, dtype=torch.float16)
    c = g.empty(M, N, dtype=torch.float16)
    run(lambda m: (triton.cdiv(M, m["BLOCK_SIZE_M"]) * triton.cdiv(N, m["BLOCK_SIZE_N"]),),
        a, b, c, M, N, K,
        a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
        ACTIVATION="leaky_relu")
    return {"c": tol(c, atol=2e-2, rtol=2e-2)}


# ------------------------------------------------------------------- dropout

@entry("tutorials/dropout.py", "_dropout")
def _(run, g):
    n, p = 98_437, 0.3
    x = g.randn(n)
    keep = g.rand(n) > p  # torch.bool -> *i1
    out = g.empty(n)
    run(lambda m: (triton.cdiv(n, m["BLOCK_SIZE"]),), x, keep, out, n, p, BLOCK_SIZE=1024)
    return {"out": out}


@entry("tutorials/dropout.py", "_seeded_dropout")
def _(run, g):
    n, p, seed = 98_437, 0.3, 123
    x = g.randn(n)
    out = g.empty(n)
    run(lambda m: (triton.cdiv(n, m["BLOCK_SIZE"]),), x, out, n, p, seed, BLOCK_SIZE=1024)
    return {"out": out}


# One program per row, n_cols <= BLOCK_SIZE (1024); x and out share row_stride.
@entry("tutorials/dropout.py", "_row_seeded_dropout")
def _(run, g):
    rows, cols, p = 37, 784, 0.25
    x = g.randn(rows, cols, dtype=torch.float16)
    out = g.empty(rows, cols, dtype=torch.float16)
    seeds = g.randint(0, 2**31 - 1, rows, dtype=torch.int32)
    run((rows,), x, out, seeds, x.stride(0), cols, p, BLOCK_SIZE=1024)
    return {"out": out}


# ---------------------------------------------------------------- layer_norm

# BLOCK_SIZE = 1024 from the manifest; N = 2896 > BLOCK_SIZE so each pass
# loops over three chunks, the last masked. Mean/rstd are long fp32
# reductions whose order may differ between compilers: 1e-4.
@entry("tutorials/layer_norm.py", "_layer_norm_fwd_fused")
def _(run, g):
    rows, N = 37, 2896
    x = (g.randn(rows, N, scale=2.0) + 0.5).to(torch.float16)
    w = g.rand(N, dtype=torch.float16, lo=0.5, hi=1.5)
    b = g.randn(N, dtype=torch.float16, scale=0.1)
    y = g.empty(rows, N, dtype=torch.float16)
    mean, rstd = g.empty(rows), g.empty(rows)
    run((rows,), x, y, w, b, mean, rstd, x.stride(0), N, 1e-5, BLOCK_SIZE=1024, num_warps=4)
    return {"y": y, "mean": tol(mean, atol=1e-4, rtol=1e-4), "rstd": tol(rstd, atol=1e-4, rtol=1e-4)}


# Single-block rows: N <= BLOCK_SIZE_N (1024). Lock holds GROUP_SIZE_M (64)
# locks then 64 counters, zeroed; DW/DB partial buffers [64, N] zeroed.
# Rows reach a slot's buffer in a nondeterministic order and are summed in
# fp16, so DW/DB get 1e-2. With rows >= 64 every slot is used, so Lock ends
# as 64 zeros followed by 64 ones on both sides.
@entry("tutorials/layer_norm.py", "_layer_norm_bwd_dx_fused")
def _(run, g):
    rows, N, groups, eps = 300, 976, 64, 1e-5
    x = g.randn(rows, N, dtype=torch.float16)
    dy = g.randn(rows, N, dtype=torch.float16)
    w = g.rand(N, dtype=torch.float16, lo=0.5, hi=1.5)
    xf = x.float()
    mean = xf.mean(dim=1)
    rstd = 1.0 / torch.sqrt(xf.var(dim=1, unbiased=False) + eps)
    dx = g.empty(rows, N, dtype=torch.float16)
    dw = g.zeros(groups, N, dtype=torch.float16)
    db = g.zeros(groups, N, dtype=torch.float16)
    lock = g.zeros(2 * groups, dtype=torch.int32)
    run((rows,), dx, dy, dw, db, x, w, mean, rstd, lock, x.stride(0), N,
        GROUP_SIZE_M=groups, BLOCK_SIZE_N=1024, num_warps=4)
    return {"dx": dx, "dw": tol(dw, atol=1e-2, rtol=1e-2), "db": tol(db, atol=1e-2, rtol=1e-2),
            "lock": exact(lock)}


# M = 77 partial rows (not a multiple of BLOCK_SIZE_M = 32), N = 976 (not a
# multiple of BLOCK_SIZE_N = 128): both masks exercised.
@entry("tutorials/layer_norm.py", "_layer_norm_bwd_dwdb")
def _(run, g):
    M, N = 77, 976
    dw = g.randn(M, N, dtype=torch.float16)
    db = g.randn(M, N, dtype=torch.float16)
    final_dw = g.empty(N, dtype=torch.float16)
    final_db = g.empty(N, dtype=torch.float16)
    run(lambda m: (triton.cdiv(N, m["BLOCK_SIZE_N"]),), dw, db, final_dw, final_db, M, N,
        BLOCK_SIZE_M=32, BLOCK_SIZE_N=128)
    return {"final_dw": final_dw, "final_db": final_db}


# ----------------------------------------------------------------- attention

# Block pointers are read and LSE stored without masks: N_CTX must be a
# multiple of BLOCK_M (128). Tolerances: fp16 P @ V and fp32 exp2/log2 whose
# MMA accumulation order and approximations may differ between compilers.
@entry("tutorials/attention.py", "_attn_fwd")
def _(run, g):
    Z, H, N_CTX, D = 2, 3, 512, 64
    q = g.randn(Z, H, N_CTX, D, dtype=torch.float16)
    k = g.randn(Z, H, N_CTX, D, dtype=torch.float16)
    v = g.randn(Z, H, N_CTX, D, dtype=torch.float16)
    sm_scale = 1.0 / (D ** 0.5)
    lse = g.empty(Z, H, N_CTX)
    o = g.empty(Z, H, N_CTX, D, dtype=torch.float16)
    run((triton.cdiv(N_CTX, 128), Z * H, 1), q, k, v, sm_scale, lse, o,
        *q.stride(), *k.stride(), *v.stride(), *o.stride(),
        H, N_CTX,
        HEAD_DIM=D, BLOCK_M=128, BLOCK_N=64, CAUSAL=True, num_warps=4, num_stages=3)
    return {"out": tol(o, atol=1e-2, rtol=1e-2), "lse": tol(lse, atol=1e-3, rtol=1e-3)}


# --------------------------------------------------------- persistent_matmul

# The grid must be min(NUM_SMS, tiles) with the same NUM_SMS the kernel
# strides by (132 from the manifest, independent of the GPU). 16 x 10 = 160
# tiles > 132, so some programs take two tiles. fp16 GEMM, K = 208: 2e-2.
@entry("tutorials/persistent_matmul.py", "matmul_kernel_persistent")
def _(run, g):
    M, N, K, sms = 2000, 1200, 208, 132
    a = g.randn(M, K, dtype=torch.float16)
    b = g.randn(K, N, dtype=torch.float16)
    c = g.empty(M, N, dtype=torch.float16)
    tiles = triton.cdiv(M, 128) * triton.cdiv(N, 128)
    run((min(sms, tiles),), a, b, c, M, N, K,
        a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
        BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=64, GROUP_SIZE_M=8, NUM_SMS=sms,
        num_stages=3, num_warps=8)
    return {"c": tol(c, atol=2e-2, rtol=2e-2)}


# In-kernel tensor descriptors need a global-scratch allocator (set as the
# wrapper does). Row strides K and N are multiples of 8 fp16 (16 bytes) for
# TMA; edge tiles are zero-filled on load and clipped on store. Grid as for
# matmul_kernel_persistent. fp16 GEMM, K = 208: 2e-2.
@entry("tutorials/persistent_matmul.py", "matmul_kernel_descriptor_persistent")
def _(run, g):
    M, N, K, sms = 2000, 1200, 208, 132

    def alloc(size, alignment, stream):
        return torch.empty(size, device=g.dev, dtype=torch.int8)

    triton.set_allocator(alloc)
    a = g.randn(M, K, dtype=torch.float16)
    b = g.randn(K, N, dtype=torch.float16)
    c = g.empty(M, N, dtype=torch.float16)
    tiles = triton.cdiv(M, 128) * triton.cdiv(N, 128)
    run((min(sms, tiles),), a, b, c, M, N, K,
        BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=64, GROUP_SIZE_M=8, NUM_SMS=sms)
    return {"c": tol(c, atol=2e-2, rtol=2e-2)}


# Autotuned: nothing but the descriptors and sizes is passed; the config's
# pre_hook resets the descriptors' block shapes (created here with the
# shapes of the pinned config, 128/128/64, as the wrapper does). Row
# strides K and N are 16-byte aligned; M is odd (TMA clips the edge).
# fp16 GEMM, K = 336: 2e-2.
@entry("tutorials/persistent_matmul.py", "matmul_kernel_host_descriptors")
def _(run, g):
    from triton.tools.tensor_descriptor import TensorDescriptor

    M, N, K = 517, 392, 336
    a = g.randn(M, K, dtype=torch.float16)
    b = g.randn(K, N, dtype=torch.float16)
    c = g.empty(M, N, dtype=torch.float16)
    a_desc = TensorDescriptor.from_tensor(a, [128, 64])
    b_desc = TensorDescriptor.from_tensor(b, [64, 128])
    c_desc = TensorDescriptor.from_tensor(c, [128, 128])
    run(lambda m: (triton.cdiv(M, m["BLOCK_SIZE_M"]) * triton.cdiv(N, m["BLOCK_SIZE_N"]),),
        a_desc, b_desc, c_desc, M, N, K)
    return {"c": tol(c, atol=2e-2, rtol=2e-2)}


# -------------------------------------------------------------- grouped_gemm

# Autotuned (NUM_SM and block sizes pinned); the grid is NUM_SM programs.
# Five problems with odd M/N/K (all masked), 109 tiles in all at 128x128 so
# some programs take two tiles. Address arrays are int64 data_ptr()s of
# row-major fp16 matrices; sizes and leading dims are flat int32 [G*3].
# fp16 GEMMs with K up to 512: 2e-2.
@entry("tutorials/grouped_gemm.py", "grouped_matmul_kernel")
def _(run, g):
    shapes = [(517, 389, 300), (256, 512, 128), (100, 77, 45), (1024, 256, 512), (1024, 1024, 256)]
    As, Bs, Cs = [], [], []
    for M, N, K in shapes:
        As.append(g.randn(M, K, dtype=torch.float16))
        Bs.append(g.randn(K, N, dtype=torch.float16))
        Cs.append(g.empty(M, N, dtype=torch.float16))
    a_addrs = g.tensor([t.data_ptr() for t in As], torch.int64)
    b_addrs = g.tensor([t.data_ptr() for t in Bs], torch.int64)
    c_addrs = g.tensor([t.data_ptr() for t in Cs], torch.int64)
    sizes = g.tensor([d for s in shapes for d in s], torch.int32)
    lds = g.tensor([v for A, B, C in zip(As, Bs, Cs) for v in (A.stride(0), B.stride(0), C.stride(0))],
                   torch.int32)
    run(lambda m: (m["NUM_SM"],), a_addrs, b_addrs, c_addrs, sizes, lds, len(shapes))
    return {f"c{i}": tol(c, atol=2e-2, rtol=2e-2) for i, c in enumerate(Cs)}


# ------------------------------------------------------------ libdevice_asin

@entry("tutorials/libdevice_asin.py", "asin_kernel")
def _(run, g):
    n = 98_437
    x = g.rand(n, lo=-1.0, hi=1.0)
    y = g.empty(n)
    run((triton.cdiv(n, 1024),), x, y, n, BLOCK_SIZE=1024)
    return {"y": y}


# Uniforms kept away from 0 and 1, where erfinv goes to +-inf.
@entry("tutorials/libdevice_asin.py", "erfinv_kernel")
def _(run, g):
    n = 98_437
    u = g.rand(n, lo=1e-3, hi=1.0 - 1e-3)
    z = g.empty(n)
    run(lambda m: (triton.cdiv(n, m["BLOCK_SIZE"]),), u, z, n, BLOCK_SIZE=1024)
    return {"z": z}
