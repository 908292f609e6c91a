"""
Vector addition
===============

The smallest useful kernel: every program instance adds one contiguous chunk
of two vectors.  A second kernel shows scalar arguments and alignment hints.
"""

import torch

import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def add_kernel(x_ptr,  # first input
               y_ptr,  # second input
               output_ptr,  # result, same shape as the inputs
               n_elements,  # number of valid elements
               BLOCK_SIZE: tl.constexpr,  # elements handled by one program
               ):
    pid = tl.program_id(axis=0)
    # Programs are laid out along the vector; the last one may run past the
    # end, so every access is guarded by a mask.
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    in_bounds = offsets < n_elements
    lhs = tl.load(x_ptr + offsets, mask=in_bounds)
    rhs = tl.load(y_ptr + offsets, mask=in_bounds)
    tl.store(output_ptr + offsets, lhs + rhs, mask=in_bounds)


@triton.jit
def axpy_kernel(x_ptr, y_ptr, n_elements, alpha, BLOCK_SIZE: tl.constexpr):
    """y <- alpha * x + y, in place."""
    start = tl.program_id(0) * BLOCK_SIZE
    offsets = start + tl.arange(0, BLOCK_SIZE)
    # Every block starts on a BLOCK_SIZE boundary and is contiguous; telling
    # the compiler lets it use vector loads.
    offsets = tl.max_contiguous(tl.multiple_of(offsets, BLOCK_SIZE), BLOCK_SIZE)
    in_bounds = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=in_bounds, eviction_policy="evict_first")
    y = tl.load(y_ptr + offsets, mask=in_bounds)
    tl.store(y_ptr + offsets, alpha * x + y, mask=in_bounds)


def add(x: torch.Tensor, y: torch.Tensor):
    output = torch.empty_like(x)
    assert x.device == DEVICE and y.device == DEVICE and output.device == DEVICE
    n_elements = output.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta['BLOCK_SIZE']), )
    add_kernel[grid](x, y, output, n_elements, BLOCK_SIZE=1024)
    return output


def axpy_(alpha: float, x: torch.Tensor, y: torch.Tensor):
    n = y.numel()
    axpy_kernel[(triton.cdiv(n, 2048), )](x, y, n, alpha, BLOCK_SIZE=2048, num_warps=8)
    return y


@triton.testing.perf_report(
    triton.testing.Benchmark(
        x_names=['size'],
        x_vals=[2**i for i in range(12, 28, 1)],
        x_log=True,
        line_arg='provider',
        line_vals=['triton', 'torch'],
        line_names=['Triton', 'Torch'],
        styles=[('blue', '-'), ('green', '-')],
        ylabel='GB/s',
        plot_name='vector-add-performance',
        args={},
    ))
def benchmark(size, provider):
    x = torch.rand(size, device=DEVICE, dtype=torch.float32)
    y = torch.rand(size, device=DEVICE, dtype=torch.float32)
    quantiles = [0.5, 0.2, 0.8]
    if provider == 'torch':
        ms, min_ms, max_ms = triton.testing.do_bench(lambda: x + y, quantiles=quantiles)
    else:
        ms, min_ms, max_ms = triton.testing.do_bench(lambda: add(x, y), quantiles=quantiles)
    gbps = lambda ms: 3 * x.numel() * x.element_size() * 1e-9 / (ms * 1e-3)
    return gbps(ms), gbps(max_ms), gbps(min_ms)


if __name__ == "__main__":
    torch.manual_seed(0)
    a = torch.rand(98432, device=DEVICE)
    b = torch.rand(98432, device=DEVICE)
    print(f'max difference: {torch.max(torch.abs(add(a, b) - (a + b)))}')
    benchmark.run(print_data=True, show_plots=False)
