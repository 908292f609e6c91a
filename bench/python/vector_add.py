"""Vector addition, as Triton's first tutorial writes it."""
import torch
import triton
import triton.language as tl

import common


@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(output_ptr + offsets, x + y, mask=mask)


def add(x, y):
    output = torch.empty_like(x)
    n_elements = output.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]), )
    add_kernel[grid](x, y, output, n_elements, BLOCK_SIZE=1024)
    return output


def main():
    a = common.args()
    torch.manual_seed(0)
    size = 98_432_013
    x = torch.rand(size, device="cuda")
    y = torch.rand(size, device="cuda")
    out, first = common.first_launch(lambda: add(x, y))
    assert torch.equal(out, x + y)
    ms = common.bench(lambda: add(x, y), a.quick)
    gbps = 3 * x.numel() * x.element_size() / ms * 1e-6
    common.report("vector_add", a.out, {"out": out}, first, ms, gbps=gbps)


if __name__ == "__main__":
    main()
