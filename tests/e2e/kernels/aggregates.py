# Structured values of Triton 3.8-3.9: @triton.aggregate classes (fields,
# a constructor of their own or the generated one, inheritance, defaults,
# @jit methods, operator methods, aggregate_replace) and namedtuples
# (collections.namedtuple and typing.NamedTuple), made in kernels, passed to
# and returned from @jit functions, carried through loops and runtime ifs.
# Used by tests/e2e/AggregatesTest.cpp.
import collections
from typing import NamedTuple

import triton
import triton.language as tl
from triton.language.core import _aggregate


@triton.aggregate
class Pair:
    first: tl.tensor
    second: tl.tensor

    def __init__(self, first, second):
        self.first = first
        self.second = second

    @triton.jit
    def total(self):
        return self.first + self.second

    @triton.jit
    def scaled(self, k):
        return tl.aggregate_replace(self, first=self.first * k)

    @triton.jit
    def __add__(self, other):
        return Pair(self.first + other.first, self.second + other.second)

    @triton.jit
    def __neg__(self):
        return Pair(-self.first, -self.second)

    @triton.jit
    def __getitem__(self, i):
        if i == 0:
            return self.first
        else:
            return self.second

    @triton.jit
    def __lt__(self, other):
        return self.total() < other.total()

    @triton.constexpr_function
    def scaled_const(self, k):
        return k * 3


@triton.jit
def swap(p):
    return Pair(p.second, p.first)


@triton.aggregate
class Twice:
    v: tl.tensor

    @staticmethod
    @triton.jit
    def make(x):
        return Twice(x * 2)


@triton.aggregate
class Thrice:
    v: tl.tensor

    @staticmethod
    @triton.jit
    def make(x):  # the same name and argument types as Twice.make
        return Thrice(x * 3)


@triton.jit
def aggregate_methods(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0)
    y = tl.load(y_ptr + offs, mask=m, other=0)
    p = Pair(x, y)
    q = p + swap(Pair(y, x * 2))       # (x + 2x, y + y)
    r = -q.scaled(3)                    # (-9x, -2y)
    s = r[0] * 10 + r[1]
    less = tl.where(p < q, 1, 0)        # x + y < 3x + 2y
    tl.static_assert(p.scaled_const(4) == 12)
    same_name = Thrice.make(y).v - Twice.make(y).v - y  # 0: each `make` is its own function
    tl.store(out_ptr + offs, s + r.total() * 1000 + less * 1000000 + same_name, mask=m)


@_aggregate
class Accum:
    acc: tl.tensor
    count: tl.tensor
    BLOCK: tl.constexpr

    @triton.jit
    def add(self, x, mask):
        # (a copy of the same class: a ScaledAccum stays one)
        return tl.aggregate_replace(self, acc=self.acc + tl.where(mask, x, 0),
                                    count=self.count + tl.sum(mask.to(tl.int32), 0))

    @triton.jit
    def mean(self):
        return tl.sum(self.acc, 0) / self.count


@triton.aggregate
class ScaledAccum(Accum):
    scale: tl.constexpr = 2

    @triton.jit
    def result(self):
        return self.mean() * self.scale


@triton.jit
def make_accum(BLOCK: tl.constexpr):
    return ScaledAccum(tl.zeros((BLOCK,), tl.float32), 0, BLOCK)


@triton.jit
def aggregate_loop(x_ptr, out_ptr, n, flag, BLOCK: tl.constexpr):
    # One program: means over the tiles of x, carried in an aggregate (with
    # an inherited method, a default constexpr field and a constexpr BLOCK)
    # through a loop and a runtime if.
    st = make_accum(BLOCK)
    # isinstance sees the class and its aggregate bases
    tl.static_assert(isinstance(st, ScaledAccum) and isinstance(st, Accum) and not isinstance(st, Pair))
    tl.static_assert(not isinstance(Pair(n, n), Accum) and isinstance((n, n), tuple))
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        m = offs < n
        x = tl.load(x_ptr + offs, mask=m, other=0.0)
        st = st.add(x, m)
        if flag > 0:
            st = tl.aggregate_replace(st, acc=st.acc + tl.where(m, 1.0, 0.0))
    tl.store(out_ptr, st.result())
    tl.store(out_ptr + 1, st.count.to(tl.float32))
    tl.store(out_ptr + 2, st.scale + st.BLOCK + 0.0)


Point = collections.namedtuple("Point", ["x", "y"])


class Span(NamedTuple):
    lo: tl.tensor
    hi: tl.tensor
    step: int = 1


class Sizes(NamedTuple):
    n: int
    scale: int

    @triton.jit
    def scaled(self, v):
        return v * self.scale


@triton.jit
def widen(s, k):
    return s._replace(lo=s.lo - k, hi=s.hi + k)


@triton.jit
def namedtuple_values(x_ptr, out_ptr, n, flag, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0)
    p = Point(x, y=x * 3)
    a, b = p                         # unpacking
    tl.static_assert(Point(1, 2) == (1, 2) and len(Point(1, 2) * 2) == 4)  # as Python: a plain tuple
    s = widen(Span(p.x, p[1]), 5)    # (x - 5, 3x + 5), step 1 (the default)
    if flag > 0:                     # a runtime if merging namedtuples
        s = Span(s.lo * 2, s.hi, 4)
    else:
        s = Span(s.lo, s.hi * 2, 4)
    tl.store(out_ptr + offs, (a + b) * 100000 + s.lo * 1000 + s.hi + s.step * len(p) + len(Span._fields), mask=m)


@triton.jit
def tuple_arguments(ptrs, sizes, out_ptr, BLOCK: tl.constexpr):
    # ptrs: (x_ptr, (y_ptr, z_ptr)), a nested tuple; sizes: a namedtuple
    # (n, scale) whose scale may be 1 (specialized to a constexpr).
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < sizes.n
    x_ptr, (y_ptr, z_ptr) = ptrs
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(ptrs[1][0] + offs, mask=m)
    z = tl.load(z_ptr + offs, mask=m)
    tl.static_assert(isinstance(sizes, Sizes))  # the module's class, with its methods
    tl.store(out_ptr + offs, sizes.scaled(x) + y - z * sizes[1], mask=m)


@triton.jit
def tuple_descriptor_arguments(descs, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # Host tensor descriptors inside a tuple argument.
    a_desc, b_desc = descs
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a = a_desc.load([pid_m * BLOCK_M, pid_n * BLOCK_N])
    b = b_desc.load([pid_m * BLOCK_M, pid_n * BLOCK_N])
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]
    tl.store(out_ptr + rows * N + cols, a * 2 + b, mask=(rows < M) & (cols < N))
