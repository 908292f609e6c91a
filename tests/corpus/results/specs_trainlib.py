"""Result specs for the trainlib/ package (an LLM-training kernel library):
RMSNorm forward/backward (also reached through functional.py's re-export),
fused add+RMSNorm, SwiGLU and GEGLU forward/backward (in place), cross
entropy with the online log-sum-exp (softcapping, label smoothing, string
`reduction`; also through functional.py), the scale-by-upstream-gradient
kernel, RoPE (in place), LayerNorm forward/backward and KL divergence. Each
spec launches the kernel as the package's own host code does (grid of one
program per row, or a fixed number of programs with per-program partial dW
rows for the backward norms; num_warps from calculate_settings or the
wrapper's fixed value), with odd row counts and, where the kernel masks,
column counts that are not powers of two."""

import torch
import triton
import triton.language as tl
from spec import entry, exact, tol

IGNORE_INDEX = -100


def _rows_rstd(x, eps):
    """rstd of RMSNorm per row, as the forward pass would have saved it."""
    return torch.rsqrt(x.float().pow(2).mean(dim=-1) + eps).contiguous()


# rstd is a 3000-element fp32 reduction; another summation order moves it by ~1e-6.
@entry("trainlib/rms_norm.py", "_rms_norm_forward_kernel")
def _(run, g):
    n_rows, n_cols = 67, 3000
    X = g.randn(n_rows, n_cols, dtype=torch.bfloat16)
    W = (1.0 + g.randn(n_cols, scale=0.1)).to(torch.bfloat16)
    Y = g.empty(n_rows, n_cols, dtype=torch.bfloat16)
    RSTD = g.empty(n_rows)  # fp32 for the llama casting mode
    run((n_rows, ), Y, Y.stride(0), X, X.stride(0), W, RSTD, RSTD.stride(0), n_cols, 1e-6, 0.0,
        casting_mode=0, BLOCK_SIZE=4096, num_warps=8)
    return {"Y": Y, "RSTD": tol(RSTD, atol=1e-4, rtol=1e-4)}


# Gemma casting mode (weights stored as w - 1, offset 1.0). 40 programs of
# ceil(301 / 40) = 8 rows each: the last ones get a partial or empty range.
@entry("trainlib/rms_norm.py", "_rms_norm_backward_kernel")
def _(run, g):
    n_rows, n_cols, n_programs = 301, 3000, 40
    rows_per_program = triton.cdiv(n_rows, n_programs)
    X = g.randn(n_rows, n_cols, dtype=torch.bfloat16)
    W = g.randn(n_cols, dtype=torch.bfloat16, scale=0.1)
    RSTD = _rows_rstd(X, 1e-6)
    dY = g.randn(n_rows, n_cols, dtype=torch.bfloat16)
    dX = g.empty(n_rows, n_cols, dtype=torch.bfloat16)
    dW = g.empty(n_programs, n_cols)
    run((n_programs, ), dY, dY.stride(0), dX, dX.stride(0), X, X.stride(0), W, RSTD, RSTD.stride(0),
        dW, dW.stride(0), n_rows, n_cols, 1.0, rows_per_program,
        casting_mode=1, BLOCK_SIZE=4096, num_warps=8)
    return {"dX": dX, "dW": dW}


# rstd: 3000-element fp32 reduction (see the forward spec).
@entry("trainlib/fused_add_rms_norm.py", "_fused_add_rms_norm_forward_kernel")
def _(run, g):
    n_rows, n_cols = 53, 3000
    X = g.randn(n_rows, n_cols, dtype=torch.bfloat16)
    R = g.randn(n_rows, n_cols, dtype=torch.bfloat16)
    W = g.randn(n_cols, dtype=torch.bfloat16, scale=0.1)  # Gemma: w - 1, offset 1.0
    Y = g.empty(n_rows, n_cols, dtype=torch.bfloat16)
    S = g.empty(n_rows, n_cols, dtype=torch.bfloat16)
    RSTD = g.empty(n_rows)
    run((n_rows, ), Y, Y.stride(0), S, S.stride(0), X, X.stride(0), R, R.stride(0), W, RSTD, n_cols, 1e-6, 1.0,
        casting_mode=1, BLOCK_SIZE=4096, num_warps=8)
    return {"Y": Y, "S": S, "RSTD": tol(RSTD, atol=1e-4, rtol=1e-4)}


@entry("trainlib/swiglu.py", "_swiglu_forward_kernel")
def _(run, g):
    n_rows, n_cols = 45, 11008
    a = g.randn(n_rows, n_cols, dtype=torch.bfloat16)
    b = g.randn(n_rows, n_cols, dtype=torch.bfloat16)
    c = g.empty(n_rows, n_cols, dtype=torch.bfloat16)
    run((n_rows, ), a, b, c, c.stride(-2), n_cols=n_cols, BLOCK_SIZE=16384, num_warps=16)
    return {"c": c}


# a and b are overwritten with their gradients.
@entry("trainlib/swiglu.py", "_swiglu_backward_kernel")
def _(run, g):
    n_rows, n_cols = 45, 11008
    a = g.randn(n_rows, n_cols, dtype=torch.bfloat16)
    b = g.randn(n_rows, n_cols, dtype=torch.bfloat16)
    dc = g.randn(n_rows, n_cols, dtype=torch.bfloat16)
    run((n_rows, ), dc, a, b, dc.stride(-2), n_cols=n_cols, BLOCK_SIZE=16384, num_warps=16)
    return {"da": a, "db": b}


# APPROXIMATE keeps its default ("tanh").
@entry("trainlib/geglu.py", "_geglu_forward_kernel")
def _(run, g):
    n_rows, n_cols = 29, 16384
    a = g.randn(n_rows, n_cols, dtype=torch.bfloat16)
    b = g.randn(n_rows, n_cols, dtype=torch.bfloat16)
    c = g.empty(n_rows, n_cols, dtype=torch.bfloat16)
    run((n_rows, ), a, b, c, c.stride(-2), n_cols=n_cols, BLOCK_SIZE=16384, num_warps=16)
    return {"c": c}


# a and b are overwritten with their gradients.
@entry("trainlib/geglu.py", "_geglu_backward_kernel")
def _(run, g):
    n_rows, n_cols = 29, 16384
    a = g.randn(n_rows, n_cols, dtype=torch.bfloat16)
    b = g.randn(n_rows, n_cols, dtype=torch.bfloat16)
    dc = g.randn(n_rows, n_cols, dtype=torch.bfloat16)
    run((n_rows, ), dc, a, b, dc.stride(-2), n_cols=n_cols, BLOCK_SIZE=16384, num_warps=16)
    return {"da": a, "db": b}


# V = 50257 gives two 32768-wide chunks, the second one masked. Some rows are
# ignore_index: their logits row is zeroed and loss (zero-initialised, as the
# host does) and lse stay unwritten. loss/lse reduce 50257 exps in fp32.
@entry("trainlib/cross_entropy.py", "_cross_entropy_kernel")
def _(run, g):
    BT, V = 37, 50257
    X = g.randn(BT, V, dtype=torch.bfloat16, scale=4.0)
    target = g.randint(0, V, BT, dtype=torch.int64)
    target[5::9] = IGNORE_INDEX
    n_non_ignore = int((target != IGNORE_INDEX).sum().item())
    loss = g.zeros(BT)
    lse = g.empty(BT)
    run((BT, ), X, X.stride(-2), target, target.stride(-1), loss, loss.stride(-1), lse,
        V, n_non_ignore, IGNORE_INDEX,
        label_smoothing=0.1, softcap=30.0, reduction="mean", BLOCK_SIZE=32768,
        HAS_SOFTCAPPING=True, RETURN_LSE=True, num_warps=32)
    return {
        "X_grad": X,
        "loss": tol(loss, atol=1e-4, rtol=1e-4),
        "lse": tol(lse, atol=1e-4, rtol=1e-4),
    }


# Scales each row of X in place by the 0-dim upstream gradient.
@entry("trainlib/utils.py", "element_mul_kernel")
def _(run, g):
    BT, V = 23, 50257
    X = g.randn(BT, V, dtype=torch.bfloat16)
    grad_output = g.tensor(0.37, torch.float32)
    run((BT, ), X, X.stride(-2), grad_output, V, BLOCK_SIZE=32768, num_warps=32)
    return {"X": X}


# q (bsz, seq, 32, 128) and k (bsz, seq, 8, 128) rotated in place; cos/sin are
# (1, seq, hd // 2) fp32 as the kernel's comment documents (cos_bs = 1).
@entry("trainlib/rope.py", "_triton_rope")
def _(run, g):
    bsz, sl, n_qh, n_kh, hd = 2, 75, 32, 8, 128
    q = g.randn(bsz, sl, n_qh, hd, dtype=torch.bfloat16)
    k = g.randn(bsz, sl, n_kh, hd, dtype=torch.bfloat16)
    inv_freq = 1.0 / (10000.0 ** (torch.arange(0, hd, 2, device=g.dev, dtype=torch.float32) / hd))
    angles = torch.outer(torch.arange(sl, device=g.dev, dtype=torch.float32), inv_freq)
    cos = angles.cos()[None].contiguous()
    sin = angles.sin()[None].contiguous()
    run((bsz * sl, ), q, q.stride(1), k, k.stride(1), cos, cos.stride(-2), sin, sin.stride(-2), sl,
        cos_bs=1, n_qh=n_qh, n_kh=n_kh, hd=hd, pad_n_qh=32, pad_n_kh=8, pad_hd=128, BACKWARD_PASS=False)
    return {"q": q, "k": k}


# Mean/RSTD are 2900-element fp32 reductions.
@entry("trainlib/layer_norm.py", "_layer_norm_forward_kernel")
def _(run, g):
    n_rows, n_cols = 61, 2900
    X = (g.randn(n_rows, n_cols) + 0.5).to(torch.bfloat16)
    W = (1.0 + g.randn(n_cols, scale=0.1)).to(torch.bfloat16)
    B = g.randn(n_cols, dtype=torch.bfloat16, scale=0.1)
    Y = g.empty(n_rows, n_cols, dtype=torch.bfloat16)
    Mean = g.empty(n_rows)
    RSTD = g.empty(n_rows)
    run((n_rows, ), Y, Y.stride(0), X, X.stride(0), W, B, Mean, RSTD, n_cols, 1e-5,
        BLOCK_SIZE=4096, num_warps=8)
    return {"Y": Y, "Mean": tol(Mean, atol=1e-4, rtol=1e-4), "RSTD": tol(RSTD, atol=1e-4, rtol=1e-4)}


# rows_per_program = 8 (constexpr): cdiv(301, 8) = 38 programs, the last with
# 5 rows. DB shares DW's row stride, so both are (programs, n_cols).
@entry("trainlib/layer_norm.py", "_layer_norm_backward_kernel")
def _(run, g):
    n_rows, n_cols, rows_per_program = 301, 2900, 8
    n_programs = triton.cdiv(n_rows, rows_per_program)
    X = (g.randn(n_rows, n_cols) + 0.5).to(torch.bfloat16)
    W = (1.0 + g.randn(n_cols, scale=0.1)).to(torch.bfloat16)
    xf = X.float()
    Mean = xf.mean(dim=-1).contiguous()
    RSTD = torch.rsqrt(xf.var(dim=-1, unbiased=False) + 1e-5).contiguous()
    dY = g.randn(n_rows, n_cols, dtype=torch.bfloat16)
    DX = g.empty(n_rows, n_cols, dtype=torch.bfloat16)
    DW = g.empty(n_programs, n_cols)
    DB = g.empty(n_programs, n_cols)
    run((n_programs, ), X, W, Mean, RSTD, DX, DW, DB, dY, X.stride(0), DX.stride(0), DW.stride(0), dY.stride(0),
        n_rows, n_cols, rows_per_program=rows_per_program, BLOCK_SIZE=4096, dtype=tl.bfloat16, num_warps=8)
    return {"DX": DX, "DW": DW, "DB": DB}


# batchmean (reduction=3): one 40000-element fp32 sum per row (3 chunks of
# 16384, the last masked), so another summation order moves it by ~1e-6.
# Some target probabilities are exactly 0 to reach the eps clamp.
@entry("trainlib/kl_div.py", "_kldiv_kernel_forward")
def _(run, g):
    B, V = 19, 40000
    y_pred = torch.log_softmax(g.randn(B, V), dim=-1).contiguous()
    y_true = torch.softmax(g.randn(B, V), dim=-1)
    y_true = torch.where(y_true < 2e-6, torch.zeros_like(y_true), y_true).contiguous()
    loss = g.zeros(B)
    run((B, ), y_pred, y_pred.stride(0), y_true, y_true.stride(0), loss, loss.stride(0), V, 1e-10,
        BLOCK_SIZE=16384, log_target=False, reduction=3, num_warps=32)
    return {"loss": tol(loss, atol=1e-4, rtol=1e-4)}


@entry("trainlib/kl_div.py", "_kldiv_kernel_backward")
def _(run, g):
    B, V = 19, 40000
    y_true = torch.log_softmax(g.randn(B, V), dim=-1).contiguous()  # log_target=True
    new_grads = g.empty(B, V)
    run((B, ), y_true, y_true.stride(0), new_grads, new_grads.stride(0), V,
        BLOCK_SIZE=16384, log_target=True, num_warps=32)
    return {"new_grads": new_grads}


# The RMSNorm forward reached through functional.py's alias, all fp32 with
# casting mode "none". 2000-element fp32 reduction: RSTD and Y at 1e-4.
@entry("trainlib/functional.py", "rms_norm_fwd_kernel")
def _(run, g):
    n_rows, n_cols = 41, 2000
    X = g.randn(n_rows, n_cols)
    W = 1.0 + g.randn(n_cols, scale=0.1)
    Y = g.empty(n_rows, n_cols)
    RSTD = g.empty(n_rows)
    run((n_rows, ), Y, Y.stride(0), X, X.stride(0), W, RSTD, RSTD.stride(0), n_cols, 1e-6, 0.0,
        casting_mode=-1, BLOCK_SIZE=2048, num_warps=8)
    return {"Y": tol(Y, atol=1e-4, rtol=1e-4), "RSTD": tol(RSTD, atol=1e-4, rtol=1e-4)}


# The cross entropy kernel through functional.py's alias, launched as
# fused_linear_cross_entropy does: fp32 logits, sum reduction, no smoothing or
# softcap, the loss buffer passed again as the (unused) lse pointer.
# V = 32001: one 32768-wide masked chunk. Gradients and loss come from a
# 32001-element fp32 sum of exps.
@entry("trainlib/functional.py", "cross_entropy_kernel")
def _(run, g):
    BT, V = 31, 32001
    X = g.randn(BT, V, scale=3.0)
    target = g.randint(0, V, BT, dtype=torch.int64)
    target[2::7] = IGNORE_INDEX
    n_non_ignore = int((target != IGNORE_INDEX).sum().item())
    loss = g.zeros(BT)
    run((BT, ), X, X.stride(0), target, 1, loss, 1, loss, V, n_non_ignore, IGNORE_INDEX,
        label_smoothing=0.0, softcap=0.0, reduction="sum", BLOCK_SIZE=32768,
        HAS_SOFTCAPPING=False, RETURN_LSE=False, num_warps=32)
    return {"X_grad": tol(X, atol=1e-4, rtol=1e-4), "loss": tol(loss, atol=1e-4, rtol=1e-4)}
