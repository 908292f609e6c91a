"""
Grouped GEMM
============

Several independent matrix products of different sizes in one launch.  The
host passes arrays of device addresses and sizes; a fixed number of programs
walks the combined list of output tiles of all problems.
"""

import torch

import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


def num_sms():
    return torch.cuda.get_device_properties("cuda").multi_processor_count


@triton.autotune(
    configs=[
        triton.Config({'BLOCK_SIZE_M': 128, 'BLOCK_SIZE_N': 128, 'BLOCK_SIZE_K': 32, 'NUM_SM': 84}),
        triton.Config({'BLOCK_SIZE_M': 128, 'BLOCK_SIZE_N': 128, 'BLOCK_SIZE_K': 32, 'NUM_SM': 128}),
        triton.Config({'BLOCK_SIZE_M': 64, 'BLOCK_SIZE_N': 64, 'BLOCK_SIZE_K': 32, 'NUM_SM': 84}),
        triton.Config({'BLOCK_SIZE_M': 64, 'BLOCK_SIZE_N': 64, 'BLOCK_SIZE_K': 32, 'NUM_SM': num_sms()}),
    ],
    key=['group_size'],
)
@triton.jit
def grouped_matmul_kernel(
    a_addrs,  # int64 device addresses of the A matrices (fp16)
    b_addrs,  # ... of the B matrices
    c_addrs,  # ... of the C matrices
    sizes,  # [group_size, 3]: M, N, K of each problem
    leading_dims,  # [group_size, 3]: row strides of A, B and C
    group_size,
    NUM_SM: tl.constexpr,
    BLOCK_SIZE_M: tl.constexpr,
    BLOCK_SIZE_N: tl.constexpr,
    BLOCK_SIZE_K: tl.constexpr,
):
    tile = tl.program_id(0)
    tiles_before = 0
    for g in range(group_size):
        m = tl.load(sizes + g * 3)
        n = tl.load(sizes + g * 3 + 1)
        k = tl.load(sizes + g * 3 + 2)
        tiles_m = tl.cdiv(m, BLOCK_SIZE_M)
        tiles_n = tl.cdiv(n, BLOCK_SIZE_N)
        tiles_here = tiles_m * tiles_n
        # Handle every tile of this problem that belongs to this program.
        while tile >= tiles_before and tile < tiles_before + tiles_here:
            lda = tl.load(leading_dims + g * 3)
            ldb = tl.load(leading_dims + g * 3 + 1)
            ldc = tl.load(leading_dims + g * 3 + 2)
            a_ptr = tl.load(a_addrs + g).to(tl.pointer_type(tl.float16))
            b_ptr = tl.load(b_addrs + g).to(tl.pointer_type(tl.float16))
            c_ptr = tl.load(c_addrs + g).to(tl.pointer_type(tl.float16))
            local = tile - tiles_before
            tm = local // tiles_n
            tn = local % tiles_n
            rows = tm * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
            cols = tn * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
            ks = tl.arange(0, BLOCK_SIZE_K)
            acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
            for k0 in range(0, tl.cdiv(k, BLOCK_SIZE_K)):
                kk = k0 * BLOCK_SIZE_K + ks
                a = tl.load(a_ptr + rows[:, None] * lda + kk[None, :],
                            mask=(rows[:, None] < m) & (kk[None, :] < k), other=0.0)
                b = tl.load(b_ptr + kk[:, None] * ldb + cols[None, :],
                            mask=(kk[:, None] < k) & (cols[None, :] < n), other=0.0)
                acc += tl.dot(a, b)
            c = acc.to(tl.float16)
            tl.store(c_ptr + rows[:, None] * ldc + cols[None, :], c,
                     mask=(rows[:, None] < m) & (cols[None, :] < n))
            tile += NUM_SM
        tiles_before = tiles_before + tiles_here


def group_gemm_fn(group_A, group_B):
    assert len(group_A) == len(group_B)
    group_size = len(group_A)
    a_addrs, b_addrs, c_addrs, sizes, lds, group_C = [], [], [], [], [], []
    for A, B in zip(group_A, group_B):
        M, K = A.shape
        K2, N = B.shape
        assert K == K2
        C = torch.empty((M, N), device=DEVICE, dtype=A.dtype)
        group_C.append(C)
        a_addrs.append(A.data_ptr())
        b_addrs.append(B.data_ptr())
        c_addrs.append(C.data_ptr())
        sizes += [M, N, K]
        lds += [A.stride(0), B.stride(0), C.stride(0)]
    d_a = torch.tensor(a_addrs, device=DEVICE)
    d_b = torch.tensor(b_addrs, device=DEVICE)
    d_c = torch.tensor(c_addrs, device=DEVICE)
    d_sizes = torch.tensor(sizes, dtype=torch.int32, device=DEVICE)
    d_lds = torch.tensor(lds, dtype=torch.int32, device=DEVICE)
    grid = lambda META: (META['NUM_SM'], )
    grouped_matmul_kernel[grid](d_a, d_b, d_c, d_sizes, d_lds, group_size)
    return group_C
