# A block-scaled matmul for bench_dot_scaled.py (run under Triton 3.6 and
# under Tessera's drop-in): C[M, N] = sum over K of (A * 2^(sa-127)) (B *
# 2^(sb-127)), A and B e4m3 (mxfp8) or e2m1 (mxfp4, two per byte along K),
# e8m0 scales per 32 values of K (A's [M, K/32], B's [N, K/32]).
import triton
import triton.language as tl


@triton.jit
def mx_matmul(a_ptr, as_ptr, b_ptr, bs_ptr, c_ptr, M, N, K, FMT: tl.constexpr, BM: tl.constexpr,
              BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    grid_m = M // BM
    grid_n = N // BN
    width = GROUP_M * grid_n
    group = pid // width
    first_m = group * GROUP_M
    size_m = min(grid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % width) % size_m
    pid_n = (pid % width) // size_m
    PACK: tl.constexpr = 2 if FMT == "e2m1" else 1
    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = pid_n * BN + tl.arange(0, BN)
    a_rows = a_ptr + offs_m[:, None] * (K // PACK) + tl.arange(0, BK // PACK)[None, :]
    b_cols = b_ptr + tl.arange(0, BK // PACK)[:, None] * N + offs_n[None, :]
    sa_rows = as_ptr + offs_m[:, None] * (K // 32) + tl.arange(0, BK // 32)[None, :]
    sb_rows = bs_ptr + offs_n[:, None] * (K // 32) + tl.arange(0, BK // 32)[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_rows + k // PACK)
        b = tl.load(b_cols + (k // PACK) * N)
        sa = tl.load(sa_rows + k // 32)
        sb = tl.load(sb_rows + k // 32)
        acc = tl.dot_scaled(a, sa, FMT, b, sb, FMT, acc)
    tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc)
