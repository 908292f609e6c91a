"""Kernels the way models use them: softmax, layer norm, dropout, attention."""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_row_per_program(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    valid = cols < n_cols
    logits = tl.load(in_ptr + row * in_stride + cols, mask=valid, other=-float("inf"))
    shifted = logits - tl.max(logits, axis=0)
    e = tl.exp(shifted)
    tl.store(out_ptr + row * out_stride + cols, e / tl.sum(e, axis=0), mask=valid)


@triton.jit
def softmax_wide_rows(out_ptr, in_ptr, stride, n_cols, CHUNK: tl.constexpr):
    # One pass for the running max and normalizer, one pass to write.
    row_in = in_ptr + tl.program_id(0) * stride
    row_out = out_ptr + tl.program_id(0) * stride
    running_max = -float("inf")
    normalizer = 0.0
    for start in range(0, n_cols, CHUNK):
        cols = start + tl.arange(0, CHUNK)
        chunk = tl.load(row_in + cols, mask=cols < n_cols, other=-float("inf"))
        new_max = tl.maximum(running_max, tl.max(chunk, axis=0))
        normalizer = normalizer * tl.exp(running_max - new_max) + tl.sum(tl.exp(chunk - new_max), axis=0)
        running_max = new_max
    for start in range(0, n_cols, CHUNK):
        cols = start + tl.arange(0, CHUNK)
        chunk = tl.load(row_in + cols, mask=cols < n_cols, other=0.0)
        tl.store(row_out + cols, tl.exp(chunk - running_max) / normalizer, mask=cols < n_cols)


@triton.jit
def layernorm_forward(x_ptr, w_ptr, b_ptr, y_ptr, mean_ptr, rstd_ptr, n_cols, eps, BLOCK: tl.constexpr):
    # fp16 activations, fp32 statistics and parameters.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    valid = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=valid, other=0.0).to(tl.float32)
    mu = tl.sum(x, axis=0) / n_cols
    centered = tl.where(valid, x - mu, 0.0)
    inv_std = tl.rsqrt(tl.sum(centered * centered, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=valid)
    b = tl.load(b_ptr + cols, mask=valid)
    y = centered * inv_std * w + b
    tl.store(y_ptr + row * n_cols + cols, y.to(tl.float16), mask=valid)
    tl.store(mean_ptr + row, mu)
    tl.store(rstd_ptr + row, inv_std)


@triton.jit
def layernorm_backward(dy_ptr, x_ptr, w_ptr, mean_ptr, rstd_ptr, dx_ptr, dw_ptr, db_ptr, n_cols,
                       BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    valid = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=valid, other=0.0)
    dy = tl.load(dy_ptr + row * n_cols + cols, mask=valid, other=0.0)
    w = tl.load(w_ptr + cols, mask=valid, other=0.0)
    mu = tl.load(mean_ptr + row)
    rs = tl.load(rstd_ptr + row)
    xhat = tl.where(valid, (x - mu) * rs, 0.0)
    g = dy * w
    c1 = tl.sum(xhat * g, axis=0) / n_cols
    c2 = tl.sum(g, axis=0) / n_cols
    dx = (g - (xhat * c1 + c2)) * rs
    tl.store(dx_ptr + row * n_cols + cols, dx, mask=valid)
    tl.atomic_add(dw_ptr + cols, dy * xhat, mask=valid)
    tl.atomic_add(db_ptr + cols, dy, mask=valid)


@triton.jit
def residual_layernorm_dropout(x_ptr, res_ptr, w_ptr, b_ptr, sum_ptr, out_ptr, n_cols, eps, p, seed,
                               BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    valid = cols < n_cols
    idx = row * n_cols + cols
    h = tl.load(x_ptr + idx, mask=valid, other=0.0) + tl.load(res_ptr + idx, mask=valid, other=0.0)
    tl.store(sum_ptr + idx, h, mask=valid)
    mu = tl.sum(h, axis=0) / n_cols
    d = tl.where(valid, h - mu, 0.0)
    y = d * tl.rsqrt(tl.sum(d * d, axis=0) / n_cols + eps)
    y = y * tl.load(w_ptr + cols, mask=valid) + tl.load(b_ptr + cols, mask=valid)
    keep = tl.rand(seed, idx) > p
    tl.store(out_ptr + idx, tl.where(keep, y / (1 - p), 0.0), mask=valid)


@triton.jit
def attention_forward(q_ptr, k_ptr, v_ptr, o_ptr, seq_len, sm_scale,
                      HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                      CAUSAL: tl.constexpr):
    block_m = tl.program_id(0)
    head = tl.program_id(1)
    base = head * seq_len * HEAD_DIM
    rows = block_m * BLOCK_M + tl.arange(0, BLOCK_M)
    dims = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + base + rows[:, None] * HEAD_DIM + dims[None, :], mask=rows[:, None] < seq_len, other=0.0)
    row_max = tl.full([BLOCK_M], -float("inf"), tl.float32)
    row_sum = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    end = seq_len
    if CAUSAL:
        end = tl.minimum(seq_len, (block_m + 1) * BLOCK_M)
    for start in range(0, end, BLOCK_N):
        keys = start + tl.arange(0, BLOCK_N)
        kv_mask = keys[:, None] < seq_len
        k = tl.load(k_ptr + base + keys[:, None] * HEAD_DIM + dims[None, :], mask=kv_mask, other=0.0)
        v = tl.load(v_ptr + base + keys[:, None] * HEAD_DIM + dims[None, :], mask=kv_mask, other=0.0)
        scores = tl.dot(q, tl.trans(k), input_precision="ieee") * sm_scale
        allowed = keys[None, :] < seq_len
        if CAUSAL:
            allowed = allowed & (rows[:, None] >= keys[None, :])
        scores = tl.where(allowed, scores, -float("inf"))
        new_max = tl.maximum(row_max, tl.max(scores, axis=1))
        rescale = tl.exp(row_max - new_max)
        probs = tl.exp(scores - new_max[:, None])
        row_sum = row_sum * rescale + tl.sum(probs, axis=1)
        acc = acc * rescale[:, None] + tl.dot(probs, v, input_precision="ieee")
        row_max = new_max
    out = acc / row_sum[:, None]
    tl.store(o_ptr + base + rows[:, None] * HEAD_DIM + dims[None, :], out, mask=rows[:, None] < seq_len)


@triton.jit
def persistent_tiles(x_ptr, out_ptr, visits_ptr, numel, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    num_tiles = tl.cdiv(numel, BLOCK)
    for tile in range(pid, num_tiles, tl.num_programs(0)):
        offs = tile * BLOCK + tl.arange(0, BLOCK)
        m = offs < numel
        x = tl.load(x_ptr + offs, mask=m)
        tl.store(out_ptr + offs, x * 2.0 + tile, mask=m)
        tl.atomic_add(visits_ptr + tile, pid + 1)


def softmax(x: torch.Tensor) -> torch.Tensor:
    rows, cols = x.shape
    y = torch.empty_like(x)
    block = triton.next_power_of_2(cols)
    softmax_row_per_program[(rows,)](y, x, x.stride(0), y.stride(0), cols, BLOCK=block)
    return y


if __name__ == "__main__":
    x = torch.randn(128, 781, device="cuda")
    print(torch.allclose(softmax(x), torch.softmax(x, dim=1), atol=1e-6), math.pi)
