"""Counter-based random numbers (Philox 4x32-10)."""
import triton
import triton.language as tl


@triton.jit
def random_streams(seed, u_out, n_out, i_out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(u_out + offs, tl.rand(seed, offs), mask=m)
    tl.store(n_out + offs, tl.randn(seed, offs), mask=m)
    r = tl.randint(seed, offs)
    tl.static_assert(r.dtype == tl.uint32)
    tl.store(i_out + offs, r, mask=m)


@triton.jit
def random_four(seed, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    a, b, c, d = tl.randint4x(seed, offs)
    tl.store(out_ptr + 0 * n + offs, a, mask=m)
    tl.store(out_ptr + 1 * n + offs, b, mask=m)
    tl.store(out_ptr + 2 * n + offs, c, mask=m)
    tl.store(out_ptr + 3 * n + offs, d, mask=m)


@triton.jit
def random_wide_offsets(seed, base, out_ptr, BLOCK: tl.constexpr):
    # 64-bit offsets: the high word becomes the second counter.
    offs = base + tl.arange(0, BLOCK).to(tl.int64)
    tl.store(out_ptr + tl.arange(0, BLOCK), tl.randint(seed, offs))


@triton.jit
def philox_block(seed, ctr_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    c0 = tl.load(ctr_ptr + offs * 4 + 0)
    c1 = tl.load(ctr_ptr + offs * 4 + 1)
    c2 = tl.load(ctr_ptr + offs * 4 + 2)
    c3 = tl.load(ctr_ptr + offs * 4 + 3)
    r0, r1, r2, r3 = tl.philox(seed, c0, c1, c2, c3)
    tl.store(out_ptr + offs * 4 + 0, r0)
    tl.store(out_ptr + offs * 4 + 1, r1)
    tl.store(out_ptr + offs * 4 + 2, r2)
    tl.store(out_ptr + offs * 4 + 3, r3)
    s0, s1, s2, s3 = tl.philox(seed, c0, c1, c2, c3, n_rounds=7)
    tl.store(out_ptr + 4 * BLOCK + offs * 4 + 0, s0)
    tl.store(out_ptr + 4 * BLOCK + offs * 4 + 1, s1)
    tl.store(out_ptr + 4 * BLOCK + offs * 4 + 2, s2)
    tl.store(out_ptr + 4 * BLOCK + offs * 4 + 3, s3)
