"""
Libdevice functions
===================

Triton exposes CUDA's libdevice math library; the right overload (float or
double) is picked from the argument's dtype.
"""

import torch

import triton
import triton.language as tl
from triton.language.extra import libdevice

DEVICE = triton.runtime.driver.active.get_active_torch_device()


@triton.jit
def asin_kernel(
    x_ptr,
    y_ptr,
    n_elements,
    BLOCK_SIZE: tl.constexpr,
):
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(y_ptr + offsets, libdevice.asin(x), mask=mask)


@triton.jit
def erfinv_kernel(u_ptr, z_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # Inverse-CDF sampling of a standard normal from uniforms in (0, 1).
    offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    u = tl.load(u_ptr + offsets, mask=mask, other=0.5)
    z = 1.4142135623730951 * libdevice.erfinv(2.0 * u - 1.0)
    tl.store(z_ptr + offsets, z, mask=mask)


def asin(x):
    y = torch.empty_like(x)
    n = x.numel()
    asin_kernel[(triton.cdiv(n, 1024), )](x, y, n, BLOCK_SIZE=1024)
    return y
