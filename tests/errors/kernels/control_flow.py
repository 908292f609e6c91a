import triton
import triton.language as tl


@triton.jit
def branch_types(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    if n > 4:
        v = 1
    else:
        v = 2.5
    tl.store(y_ptr, v)


@triton.jit
def loop_carried_type(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    acc = 0
    for i in range(n):
        acc = acc + 0.5
    tl.store(y_ptr, acc)


@triton.jit
def return_in_loop(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    for i in range(n):
        if i == 3:
            return
        tl.store(y_ptr + i, 1.0)


@triton.jit
def uses_break(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    for i in range(n):
        break


@triton.jit
def uses_continue(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    i = 0
    while i < n:
        i += 1
        continue


@triton.jit
def uses_lambda(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    twice = lambda v: v * 2
    tl.store(y_ptr + offs, twice(offs))


@triton.jit
def iterate_list(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    for i in [1, 2, 3]:
        tl.store(y_ptr + i, 1.0)
