# Ops Triton 3.7-3.9 added or changed (issue #27): tl.topk (descending or
# not), tl.bitonic_merge, tl.atomic_load / atomic_store / atomic_poll,
# tl.fdiv(approx=True), `while tl.condition(...)`, fp8 constants.
import triton
import triton.language as tl


@triton.jit
def topk_rows(x_ptr, out_ptr, N: tl.constexpr, K: tl.constexpr, DESC: tl.constexpr):
    row = tl.program_id(0)
    x = tl.load(x_ptr + row * N + tl.arange(0, N))
    if DESC:
        y = tl.topk(x, K)
    else:
        y = tl.topk(x, K, dim=-1, descending=False)
    tl.store(out_ptr + row * K + tl.arange(0, K), y)


@triton.jit
def topk_2d(x_ptr, out_ptr, R: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    # One program, a 2-D tile: top-k of each row at once.
    rows = tl.arange(0, R)[:, None]
    x = tl.load(x_ptr + rows * N + tl.arange(0, N)[None, :])
    y = tl.topk(x, K, dim=1)
    tl.store(out_ptr + rows * K + tl.arange(0, K)[None, :], y)


@triton.jit
def bitonic_rows(x_ptr, out_ptr, N: tl.constexpr, DESC: tl.constexpr):
    row = tl.program_id(0)
    offs = row * N + tl.arange(0, N)
    tl.store(out_ptr + offs, tl.bitonic_merge(tl.load(x_ptr + offs), descending=DESC))


@triton.jit
def handoff(data_ptr, flag_ptr, seen_ptr, n, BLOCK: tl.constexpr):
    # Program 0 writes the data, then releases the flag; program 1 polls the
    # flag (acquire) and copies what it then sees. On the interpreter the
    # programs run in order; on a GPU both are resident at once.
    offs = tl.arange(0, BLOCK)
    m = offs < n
    if tl.program_id(0) == 0:
        tl.store(data_ptr + offs, offs * 7 + 3, mask=m)
        tl.atomic_store(flag_ptr, 1)
    else:
        ok = tl.atomic_poll(flag_ptr, 1)
        d = tl.load(data_ptr + offs, mask=m, volatile=True)
        tl.store(seen_ptr + offs, tl.where(ok, d, -1), mask=m)


@triton.jit
def poll_forms(flags_ptr, out_ptr, B: tl.constexpr):
    # A tensor of flags polled with a timeout (some never become 1), a
    # scalar flag already set, relaxed and cta-scope loads, a masked
    # atomic_load and a relaxed atomic_store.
    offs = tl.arange(0, B)
    ok = tl.atomic_poll(flags_ptr + offs, 1, timeout_ns=20000)
    tl.store(out_ptr + offs, ok.to(tl.int32))
    one = tl.atomic_poll(flags_ptr + 1, 1, sem="relaxed", scope="cta", timeout_ns=0)
    v = tl.atomic_load(flags_ptr + offs, mask=offs % 2 == 1, sem="relaxed", scope="sys")
    tl.atomic_store(out_ptr + B + offs, tl.where(offs % 2 == 1, v, 5) * 10 + one.to(tl.int32), sem="relaxed")


@triton.jit
def approx_div(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1.0)
    y = tl.load(y_ptr + offs, mask=m, other=1.0)
    tl.store(out_ptr + offs, tl.fdiv(x, y, approx=True), mask=m)


@triton.jit
def condition_loop(out_ptr, n, LICM: tl.constexpr):
    i = 0
    acc = 0
    while tl.condition(i < n, disable_licm=LICM):
        acc += i * 3
        i += 1
    tl.store(out_ptr, acc)


@triton.jit
def fp8_constants(out_ptr, B: tl.constexpr):
    offs = tl.arange(0, B)
    a = tl.full((B,), 1.1, tl.float8e4nv)  # inexact: rounds to nearest (1.125)
    b = tl.full((B,), -3.3, tl.float8e5)   # -3.5
    c = tl.full((B,), 0.3, tl.float8e4nv)  # 0.3125
    tl.store(out_ptr + offs, a.to(tl.float32) + b.to(tl.float32) * 10.0 + c.to(tl.float32) * 100.0)


@triton.jit
def desc_atomics(x_ptr, add_ptr, max_ptr, xor_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    # Tile by tile through descriptors, the edges of an odd M masked by the
    # descriptor's bounds: add, max and xor the tile of x into three arrays.
    om = tl.program_id(0) * BM
    on = tl.program_id(1) * BN
    v = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [BM, BN]).load([om, on])
    tl.make_tensor_descriptor(add_ptr, [M, N], [N, 1], [BM, BN]).atomic_add([om, on], v)
    tl.make_tensor_descriptor(max_ptr, [M, N], [N, 1], [BM, BN]).atomic_max([om, on], v)
    tl.make_tensor_descriptor(xor_ptr, [M, N], [N, 1], [BM, BN]).atomic_xor([om, on], v)


@triton.jit
def desc_gather_scatter(x_ptr, rows_ptr, out_ptr, y_ptr, R, C, Y_OFF, B: tl.constexpr, BC: tl.constexpr):
    # Rows `rows` (some beyond R: zeros) of x, BC columns from Y_OFF, gathered;
    # then scattered, doubled, into y at the same places.
    xd = tl.make_tensor_descriptor(x_ptr, [R, C], [C, 1], [1, BC])
    yd = tl.make_tensor_descriptor(y_ptr, [R, C], [C, 1], [1, BC])
    rows = tl.load(rows_ptr + tl.arange(0, B))
    g = xd.gather(rows, Y_OFF)
    tl.store(out_ptr + tl.arange(0, B)[:, None] * BC + tl.arange(0, BC)[None, :], g)
    yd.scatter(g * 2, rows, Y_OFF)


@triton.jit
def _make_rows_desc(ptr, R, C, BR: tl.constexpr, BC: tl.constexpr):
    return tl.make_tensor_descriptor(ptr, [R, C], [C, 1], [BR, BC])


@triton.jit
def _load_block(desc, i, BR: tl.constexpr):
    return desc.load([i * BR, 0])


@triton.jit
def desc_flow(a_ptr, b_ptr, out_ptr, R, C, PICK, BR: tl.constexpr, BC: tl.constexpr):
    # Descriptors returned from a jit function, passed to one, chosen by a
    # runtime `if`, and swapped through a loop (loop-carried).
    a = _make_rows_desc(a_ptr, R, C, BR, BC)
    b = _make_rows_desc(b_ptr, R, C, BR, BC)
    o = _make_rows_desc(out_ptr, R, C, BR, BC)
    if PICK > 0:
        cur = a
    else:
        cur = b
    other = b if PICK > 0 else a  # a conditional expression between descriptors
    for i in range(0, tl.cdiv(R, BR)):
        o.store([i * BR, 0], _load_block(cur, i, BR) * 10 + i)
        cur, other = other, cur


# ---- tl.map_elementwise ------------------------------------------------------


@triton.jit
def _piecewise(x, y):
    # Per-element branches: an if/else with a return on both sides, an if
    # without else changing a variable, a conditional expression.
    if x < 0:
        r = -x * 2
        if y > x:
            r = r + y
    else:
        r = x + 1
    if r > 100:
        return r - 100, y
    s = y if y > 0 else 0
    return r + s, _helper(y)


@triton.jit
def _helper(v):
    if v % 2 == 0:
        return v // 2
    return v * 3 + 1


@triton.jit
def map_elementwise_kernel(x_ptr, y_ptr, out_ptr, out2_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0)
    y = tl.load(y_ptr + offs, mask=m, other=0)
    a, b = tl.map_elementwise(_piecewise, x, y)
    c = tl.map_elementwise(_helper, x)
    tl.store(out_ptr + offs, a, mask=m)
    tl.store(out2_ptr + offs, b * 1000 + c, mask=m)


@triton.jit
def _divmod_pack2(a0, a1, b0, b1):
    return a0 // b0, a1 // b1, a0 % b0, a1 % b1


@triton.jit
def _reverse_pack4(x0, x1, x2, x3):
    return x3, x2, x1, x0


@triton.jit
def _doublings(x, d):
    # A per-element while inside a per-element if: elements that skip the
    # if (x <= 0 would double forever) must not keep the loop going; a
    # conditional expression divides only where its divisor is not 0.
    if x > 0:
        while x < 100:
            x = x * 2
    return x, (x // d if d != 0 else -1)


@triton.jit
def _collatz_steps(x):
    # A per-element while loop (with a per-element if inside).
    steps = 0
    while x > 1:
        if x % 2 == 0:
            x = x // 2
        else:
            x = 3 * x + 1
        steps += 1
    return steps


@triton.jit
def map_elementwise_pack_kernel(a_ptr, b_ptr, q_ptr, r_ptr, s_ptr, w_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    a = tl.load(a_ptr + offs, mask=m, other=1)
    b = tl.load(b_ptr + offs, mask=m, other=1)
    q, r = tl.map_elementwise(_divmod_pack2, a, b, pack=2)
    steps = tl.map_elementwise(_collatz_steps, a)
    dbl, quo = tl.map_elementwise(_doublings, a - 150, b - 20)
    w = tl.map_elementwise(_reverse_pack4, tl.reshape(a, (BLOCK // 16, 16)), pack=4)[0]
    tl.store(q_ptr + offs, q, mask=m)
    tl.store(r_ptr + offs, r, mask=m)
    tl.store(s_ptr + offs, steps * 1000000 + dbl * 1000 + (quo & 511), mask=m)
    tl.store(w_ptr + offs, tl.reshape(w, (BLOCK,)), mask=m)


@triton.jit
def _guarded(p, b, flag_p):
    # A load, an integer division and a store in a branch: where it is not
    # taken, the pointer is far out of bounds and the divisor is 0.
    if b != 0:
        v = tl.load(p) // b
        tl.store(flag_p, 1)
    else:
        v = -1
    return v


@triton.jit
def map_elementwise_guarded_kernel(x_ptr, b_ptr, out_ptr, flags_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    b = tl.load(b_ptr + offs, mask=m, other=0)
    p = x_ptr + tl.where(b != 0, offs, offs + 100000000)
    v = tl.map_elementwise(_guarded, p, b, flags_ptr + offs)
    tl.store(out_ptr + offs, v, mask=m)


# ---- round_f32_to_tf32 (host tensor descriptors) ---------------------------------


@triton.jit
def tf32_descriptor_copy(desc, rows_desc, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    tile = desc.load([pid_m * BLOCK_M, pid_n * BLOCK_N])
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    m = (rows < M) & (cols < N)
    tl.store(out_ptr + rows * N + cols, tile, mask=m)
    # gather (rows_desc: [1, BLOCK_N] blocks) rounds too
    g = rows_desc.gather(pid_m * BLOCK_M + tl.arange(0, BLOCK_M), pid_n * BLOCK_N)
    tl.store(out_ptr + M * N + rows * N + cols, g, mask=m)


@triton.jit
def desc_gather_rows(desc, rows_ptr, out_ptr, Y_OFF, B: tl.constexpr, BC: tl.constexpr):
    # Rows of a host descriptor (padding "nan": rows beyond the tensor are NaN).
    g = desc.gather(tl.load(rows_ptr + tl.arange(0, B)), Y_OFF)
    tl.store(out_ptr + tl.arange(0, B)[:, None] * BC + tl.arange(0, BC)[None, :], g)


@triton.jit
def _power_and_odd_sum(x, n):
    # Per-element range loops: x ** n, and the sum of the odd i in [n, 2n)
    # stepping by 1 with an if inside.
    r = 1
    for i in range(n):
        r = r * x
    s = 0
    for i in range(n, 2 * n):
        if i % 2 == 1:
            s += i
    return r, s


@triton.jit
def map_elementwise_for_kernel(x_ptr, n_ptr, out_ptr, out2_ptr, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(x_ptr + offs, mask=m, other=0)
    n = tl.load(n_ptr + offs, mask=m, other=0)
    r, s = tl.map_elementwise(_power_and_odd_sum, x, n)
    tl.store(out_ptr + offs, r, mask=m)
    tl.store(out2_ptr + offs, s, mask=m)


@triton.jit
def _low_bits_expected_zero(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # Triton 3.8's tl.expect_zero: the low bits are expected to be 0 in
    # even elements; the value itself passes through unchanged.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0)
    low = tl.expect_zero(x & 15, (offs % 2 == 0) & m)
    tl.store(out_ptr + offs, low * 100 + (x >> 4), mask=m)


@triton.jit(debug=True)
def expect_zero_checked(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    _low_bits_expected_zero(x_ptr, out_ptr, n, BLOCK)


@triton.jit
def expect_zero_unchecked(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    _low_bits_expected_zero(x_ptr, out_ptr, n, BLOCK)


@triton.jit
def to_tensor_types(out_ptr):
    # Triton 3.8's tl.to_tensor: a Python number becomes a 0-d tensor of
    # the smallest type that holds it.
    a = tl.to_tensor(7)
    b = tl.to_tensor(3000000000)
    c = tl.to_tensor(-3000000000)
    d = tl.to_tensor(True)
    e = tl.to_tensor(1.5)
    tl.static_assert(a.dtype == tl.int32)
    tl.static_assert(b.dtype == tl.uint32)
    tl.static_assert(c.dtype == tl.int64)
    tl.static_assert(d.dtype == tl.int1)
    tl.static_assert(e.dtype == tl.float32)
    tl.store(out_ptr, (a + c + b.to(tl.int64) + d.to(tl.int64)).to(tl.float64) + e.to(tl.float64))
