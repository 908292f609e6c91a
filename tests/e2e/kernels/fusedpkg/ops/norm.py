"""Row kernels using device queries and torch-derived constants of utils."""
import triton
import triton.language as tl

from fusedpkg import utils
from fusedpkg.utils import rsqrt, FP32_MIN, NUM_SMS


@triton.heuristics({"NUM_PROGRAMS": lambda args: min(NUM_SMS, args["rows"])})
@triton.jit
def rms_norm_rows(x_ptr, w_ptr, out_ptr, rows, cols, eps, BLOCK: tl.constexpr, NUM_PROGRAMS: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < cols
    w = tl.load(w_ptr + offs, mask=m, other=0.0)
    for row in range(tl.program_id(0), rows, NUM_PROGRAMS):
        x = tl.load(x_ptr + row * cols + offs, mask=m, other=0.0).to(tl.float32)
        ms = tl.sum(x * x, axis=0) / cols
        r = rsqrt(ms + eps) * utils.ROW_SCALE
        tl.store(out_ptr + row * cols + offs, x * r * w, mask=m)


@triton.jit
def row_max(x_ptr, out_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * cols + offs, mask=offs < cols, other=FP32_MIN)
    tl.store(out_ptr + row, tl.max(x, axis=0))
