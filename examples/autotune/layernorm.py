"""A LayerNorm forward tuned by @triton.autotune: the worked example of the
user guide's "Autotuning" chapter (examples/autotune/main.cpp runs it)."""
import triton
import triton.language as tl


@triton.autotune(
    # Every num_warps for each row block; BLOCK is the launch's (a power of
    # two at least the row length), so it is not tuned here.
    configs=[triton.Config({}, num_warps=w) for w in (1, 2, 4, 8, 16)],
    key=["n_cols"],
)
@triton.jit
def layer_norm(x_ptr, w_ptr, b_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    inside = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=inside, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n_cols
    centered = tl.where(inside, x - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(centered * centered, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=inside, other=0.0)
    b = tl.load(b_ptr + cols, mask=inside, other=0.0)
    tl.store(y_ptr + row * n_cols + cols, centered * rstd * w + b, mask=inside)
