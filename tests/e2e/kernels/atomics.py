"""Atomic read-modify-write operations and a spin lock."""
import triton
import triton.language as tl


@triton.jit
def atomic_bins(vals_ptr, bins_i, bins_f, n, NBINS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(vals_ptr + offs, mask=m, other=0)
    b = offs % NBINS
    tl.atomic_add(bins_i + b, v, mask=m)
    tl.atomic_add(bins_f + b, v.to(tl.float32) * 0.5, mask=m, sem="relaxed")


@triton.jit
def atomic_reducers(vals_ptr, fvals_ptr, out_ptr, fout_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(vals_ptr + offs, mask=m, other=0)
    same = tl.zeros_like(offs)  # every lane hits the same address
    tl.atomic_max(out_ptr + 0 + same, v, mask=m)
    tl.atomic_min(out_ptr + 1 + same, v, mask=m)
    tl.atomic_and(out_ptr + 2 + same, v, mask=m)
    tl.atomic_or(out_ptr + 3 + same, v, mask=m, scope="gpu")
    tl.atomic_xor(out_ptr + 4 + same, v, mask=m, sem="acq_rel")
    f = tl.load(fvals_ptr + offs, mask=m, other=0.0)
    tl.atomic_max(fout_ptr + same, f, mask=m)
    (fout_ptr + 1 + same).atomic_min(f, mask=m)


@triton.jit
def atomic_xchg_chain(slot_ptr, olds_ptr):
    pid = tl.program_id(0)
    old = tl.atomic_xchg(slot_ptr, pid + 1)
    tl.store(olds_ptr + pid, old)


@triton.jit
def atomic_add_returns(counter_ptr, tickets_ptr, BLOCK: tl.constexpr):
    # Every lane takes a ticket; the tickets of all programs are distinct.
    offs = tl.arange(0, BLOCK)
    ones = tl.full((BLOCK,), 1, tl.int32)
    ticket = tl.atomic_add(counter_ptr + offs * 0, ones)
    tl.store(tickets_ptr + tl.program_id(0) * BLOCK + offs, ticket)


@triton.jit
def atomic_cas_claim(slots_ptr, won_ptr, NSLOTS: tl.constexpr):
    pid = tl.program_id(0)
    prev = tl.atomic_cas(slots_ptr + pid % NSLOTS, 0, pid + 1)
    tl.store(won_ptr + pid, (prev == 0).to(tl.int32))


@triton.jit
def locked_increment(lock_ptr, counter_ptr, order_ptr, ROUNDS: tl.constexpr):
    pid = tl.program_id(0)
    for r in range(ROUNDS):
        while tl.atomic_cas(lock_ptr, 0, 1) == 1:
            pass
        count = tl.load(counter_ptr, volatile=True)
        tl.store(counter_ptr, count + 1)
        tl.store(order_ptr + count, pid)
        tl.debug_barrier()
        tl.atomic_xchg(lock_ptr, 0)


@triton.jit
def atomic_xchg_masked(buf_ptr, old_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    old = tl.atomic_xchg(buf_ptr + offs, offs * 10, mask=m)
    tl.store(old_ptr + offs, old, mask=m)


@triton.jit
def atomic_add_tile(acc_ptr, vals_ptr, olds_ptr, rows, COLS: tl.constexpr, BLOCK_R: tl.constexpr,
                    RETURN_OLD: tl.constexpr):
    # Program (p, b) adds vals[p]'s rows of block b into acc (rows x COLS,
    # contiguous rows: vector atomics on sm_90); with RETURN_OLD it also
    # keeps the old values, unmasked (0 in the rows past the end).
    p = tl.program_id(0)
    r = tl.program_id(1) * BLOCK_R + tl.arange(0, BLOCK_R)
    c = tl.arange(0, COLS)
    offs = r[:, None] * COLS + c[None, :]
    m = (r < rows)[:, None]
    v = tl.load(vals_ptr + p * rows * COLS + offs, mask=m, other=0.0)
    if RETURN_OLD:
        old = tl.atomic_add(acc_ptr + offs, v, mask=m)
        padded = tl.num_programs(1) * BLOCK_R
        tl.store(olds_ptr + p * padded * COLS + offs, old)
    else:
        tl.atomic_add(acc_ptr + offs, v, mask=m, sem="relaxed")


@triton.jit
def atomic_old_to_copies(facc_ptr, iacc_ptr, fout_ptr, iout_ptr, ROWS: tl.constexpr, COLS: tl.constexpr,
                         REP: tl.constexpr):
    # A ROWS x COLS tile smaller than the program's threads cover: threads
    # hold copies of an element, and only its owner runs the atomic. The old
    # values, repeated REP times along a new last dim (a layout change that
    # reads every copy), must be the owner's in every copy.
    offs = tl.arange(0, ROWS)[:, None] * COLS + tl.arange(0, COLS)[None, :]
    fold = tl.atomic_add(facc_ptr + offs, 1.0)
    iold = tl.atomic_add(iacc_ptr + offs, 1)
    out = offs[:, :, None] * REP + tl.arange(0, REP)[None, None, :]
    tl.store(fout_ptr + out, fold[:, :, None] + tl.zeros((ROWS, COLS, REP), dtype=tl.float32))
    tl.store(iout_ptr + out, iold[:, :, None] + tl.zeros((ROWS, COLS, REP), dtype=tl.int32))
