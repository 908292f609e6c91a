"""@tessera.autotune and @tessera.heuristics from Python (on the interpreter,
the first config runs), and a masked tl.dot matmul against NumPy."""

import numpy as np
import pytest

import tessera
import tessera.language as tl

from _testutil import ON_GPU, assert_fp32_dot_close, rng

ADD_CONFIGS = [
    tessera.Config({"BLOCK": 64}, num_warps=2),
    tessera.Config({"BLOCK": 128}, num_warps=4),
    tessera.Config({"BLOCK": 256}, num_warps=8, num_stages=2),
]


@tessera.autotune(configs=ADD_CONFIGS, key=["n"])
@tessera.jit
def tuned_add(x_ptr, y_ptr, out_ptr, block_out, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)
    if pid == 0:
        tl.store(block_out, BLOCK)


def _prune_small(configs, named_args, **kwargs):
    return [c for c in configs if c.kwargs["BLOCK"] >= 128]


@tessera.autotune(
    configs=[tessera.Config({"BLOCK": 32}), tessera.Config({"BLOCK": 128}), tessera.Config({"BLOCK": 512})],
    key=["n"],
    prune_configs_by={"early_config_prune": _prune_small},
)
@tessera.jit
def pruned_add(x_ptr, y_ptr, out_ptr, block_out, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)
    if pid == 0:
        tl.store(block_out, BLOCK)


@tessera.heuristics({
    "BLOCK": lambda args: tessera.next_power_of_2(args["n"]),
    "EVEN": lambda args: args["n"] % 2 == 0,
})
@tessera.jit
def heuristic_kernel(x_ptr, out_ptr, facts_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    if EVEN:
        x = x * 2.0
    else:
        x = x * 3.0
    tl.store(out_ptr + offs, x, mask=m)
    tl.store(facts_ptr, BLOCK)
    tl.store(facts_ptr + 1, 1 if EVEN else 0)


@tessera.heuristics({
    "ELEM": lambda args: args["x_ptr"].element_size(),
    "NUMEL": lambda args: args["x_ptr"].numel(),
    "NDIM": lambda args: args["x_ptr"].dim(),
    "ROW_STRIDE": lambda args: args["x_ptr"].stride(0),
    "LAST": lambda args: args["x_ptr"].shape[-1],
})
@tessera.jit
def tensor_facts_kernel(x_ptr, facts_ptr, ELEM: tl.constexpr, NUMEL: tl.constexpr, NDIM: tl.constexpr,
                        ROW_STRIDE: tl.constexpr, LAST: tl.constexpr):
    tl.store(facts_ptr, ELEM)
    tl.store(facts_ptr + 1, NUMEL)
    tl.store(facts_ptr + 2, NDIM)
    tl.store(facts_ptr + 3, ROW_STRIDE)
    tl.store(facts_ptr + 4, LAST)


def _keep_element_size(configs, named_args, **kwargs):
    return [c for c in configs if c.kwargs["SIZE"] == named_args["x_ptr"].element_size()]


@tessera.autotune(configs=[tessera.Config({"SIZE": s}) for s in (1, 2, 4, 8)], key=["n"],
                  prune_configs_by={"early_config_prune": _keep_element_size})
@tessera.jit
def element_size_kernel(x_ptr, out_ptr, n, SIZE: tl.constexpr):
    tl.store(out_ptr, SIZE + n * 0)


@tessera.heuristics({"NV": lambda args: args["n"] * 10 + 1})
@tessera.jit
def constexpr_first_kernel(x_ptr, D: tl.constexpr, n, out_ptr, NV: tl.constexpr):
    tl.store(out_ptr, NV + tl.load(x_ptr) * 0)
    tl.store(out_ptr + 1, n * D)


@tessera.heuristics({"ROWS_BLOCK": lambda args: max(1, 1024 // args["BLOCK_N"])})
@tessera.jit
def heuristic_from_constexpr(x_ptr, out_ptr, n_rows, n_cols, BLOCK_N: tl.constexpr, ROWS_BLOCK: tl.constexpr):
    rows = tl.program_id(0) * ROWS_BLOCK + tl.arange(0, ROWS_BLOCK)
    cols = tl.arange(0, BLOCK_N)
    m = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * n_cols + cols[None, :], mask=m, other=0.0)
    tl.store(out_ptr + rows, tl.sum(x, axis=1), mask=rows < n_rows)


@tessera.autotune(configs=[tessera.Config({"BLOCK": 64}), tessera.Config({"BLOCK": 128})], key=["n"])
@tessera.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@tessera.jit
def tuned_heuristic_kernel(x_ptr, out_ptr, facts_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        x = tl.load(x_ptr + offs)
        tl.store(out_ptr + offs, x + 1.0)
    else:
        m = offs < n
        x = tl.load(x_ptr + offs, mask=m)
        tl.store(out_ptr + offs, x + 1.0, mask=m)
    if pid == 0:
        tl.store(facts_ptr, BLOCK)
        tl.store(facts_ptr + 1, 1 if EVEN else 0)


@tessera.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, s_am, s_ak, s_bk, s_bn, s_cm, s_cn,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k0 in range(0, K, BK):
        a_mask = (rm[:, None] < M) & (k0 + rk[None, :] < K)
        b_mask = (k0 + rk[:, None] < K) & (rn[None, :] < N)
        a = tl.load(a_ptr + rm[:, None] * s_am + (k0 + rk[None, :]) * s_ak, mask=a_mask, other=0.0)
        b = tl.load(b_ptr + (k0 + rk[:, None]) * s_bk + rn[None, :] * s_bn, mask=b_mask, other=0.0)
        acc += tl.dot(a, b)
    c_mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(c_ptr + rm[:, None] * s_cm + rn[None, :] * s_cn, acc.to(c_ptr.dtype.element_ty), mask=c_mask)


@tessera.autotune(
    configs=[tessera.Config({"BM": 32, "BN": 16, "BK": 32}, num_warps=4),
             tessera.Config({"BM": 16, "BN": 32, "BK": 16}, num_warps=2)],
    key=["M", "N", "K"],
)
@tessera.jit
def tuned_matmul(a_ptr, b_ptr, c_ptr, M, N, K, s_am, s_ak, s_bk, s_bn, s_cm, s_cn,
                 BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * s_am + (k0 + rk[None, :]) * s_ak,
                    mask=(rm[:, None] < M) & (k0 + rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k0 + rk[:, None]) * s_bk + rn[None, :] * s_bn,
                    mask=(k0 + rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * s_cm + rn[None, :] * s_cn, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def _grid_1d(meta):
    return (tessera.cdiv(meta["n"], meta["BLOCK"]),)


def _elements(a):
    return [s // a.itemsize for s in a.strides]


# ----------------------------------------------------------------- autotune

@pytest.mark.interpreter_only
@pytest.mark.parametrize("n", [1, 17, 1000, 5003])
def test_autotuned_kernel_is_correct_and_runs_the_first_config(n):
    g = rng("tuned_add", n)
    x = g.standard_normal(n).astype(np.float32)
    y = g.standard_normal(n).astype(np.float32)
    out = np.zeros(n, dtype=np.float32)
    block = np.zeros(1, dtype=np.int32)
    tuned_add[_grid_1d](x, y, out, block, n)
    np.testing.assert_array_equal(out, x + y)
    assert block[0] == ADD_CONFIGS[0].kwargs["BLOCK"]  # the interpreter runs the first config


def test_autotuner_keeps_what_python_gave_it():
    assert isinstance(tuned_add, tessera.Autotuner)
    assert tuned_add.configs == ADD_CONFIGS
    assert tuned_add.keys == ["n"]
    assert tuned_add.__name__ == "tuned_add"


@pytest.mark.interpreter_only
def test_best_config_after_a_launch():
    n = 700
    x = np.ones(n, dtype=np.float32)
    out = np.zeros(n, dtype=np.float32)
    block = np.zeros(1, dtype=np.int32)
    tuned_add[_grid_1d](x, x, out, block, n)
    best = tuned_add.best_config
    assert type(best) is tessera.Config
    assert best in ADD_CONFIGS
    assert best.kwargs == {"BLOCK": int(block[0])}
    assert best == ADD_CONFIGS[0]
    assert best.num_warps == 2 and best.num_stages == 3 and best.num_ctas == 1
    np.testing.assert_array_equal(out, 2.0)


def test_pinned_meta_parameters_run_as_given():
    n = 300
    g = rng("pinned")
    x = g.standard_normal(n).astype(np.float32)
    y = g.standard_normal(n).astype(np.float32)
    out = np.zeros(n, dtype=np.float32)
    block = np.zeros(1, dtype=np.int32)
    tuned_add[_grid_1d](x, y, out, block, n, BLOCK=32)
    np.testing.assert_array_equal(out, x + y)
    assert block[0] == 32


@pytest.mark.interpreter_only
def test_pruned_configs_are_not_run():
    n = 1000
    g = rng("pruned")
    x = g.standard_normal(n).astype(np.float32)
    y = g.standard_normal(n).astype(np.float32)
    out = np.zeros(n, dtype=np.float32)
    block = np.zeros(1, dtype=np.int32)
    pruned_add[_grid_1d](x, y, out, block, n)
    np.testing.assert_array_equal(out, x + y)
    assert block[0] in (128, 512), "config BLOCK=%d ran though early_config_prune dropped it" % block[0]


def test_autotuned_launch_with_a_tuple_grid():
    n = 256
    x = np.arange(n, dtype=np.float32)
    out = np.zeros(n, dtype=np.float32)
    block = np.zeros(1, dtype=np.int32)
    tuned_add[(4,)](x, x, out, block, n)  # 4 programs of the first config's 64 elements
    np.testing.assert_array_equal(out, 2 * x)


# --------------------------------------------------------------- heuristics

@pytest.mark.parametrize("n", [1, 17, 100, 1000])
def test_heuristics_compute_constexprs_from_arguments(n):
    g = rng("heuristics", n)
    x = g.standard_normal(n).astype(np.float32)
    out = np.zeros(n, dtype=np.float32)
    facts = np.zeros(2, dtype=np.int32)
    heuristic_kernel[(1,)](x, out, facts, n)
    even = n % 2 == 0
    assert facts[0] == tessera.next_power_of_2(n)
    assert facts[1] == int(even)
    np.testing.assert_allclose(out, x * (2.0 if even else 3.0), rtol=1e-6)


def test_heuristics_object():
    assert isinstance(heuristic_kernel, tessera.Heuristics)
    assert set(heuristic_kernel.values) == {"BLOCK", "EVEN"}
    assert heuristic_kernel.values["BLOCK"]({"n": 100}) == 128


@pytest.mark.parametrize("shape,dtype,transpose", [((7,), np.float16, False), ((5, 9), np.float32, False),
                                                   ((5, 9), np.float64, True), ((2, 3, 4), np.int8, False)])
def test_heuristics_see_tensor_facts(shape, dtype, transpose):
    x = np.zeros(shape, dtype=dtype)
    if transpose:
        x = x.T
    facts = np.zeros(5, dtype=np.int64)
    tensor_facts_kernel[(1,)](x, facts)
    expected = [x.itemsize, x.size, x.ndim, x.strides[0] // x.itemsize, x.shape[-1]]
    np.testing.assert_array_equal(facts, expected)


@pytest.mark.parametrize("dtype", [np.int8, np.float16, np.float32, np.int64])
def test_prune_sees_tensor_arguments(dtype):
    x = np.zeros(3, dtype=dtype)
    out = np.zeros(1, dtype=np.int32)
    element_size_kernel[(1,)](x, out, 3)
    assert out[0] == np.dtype(dtype).itemsize


@pytest.mark.parametrize("n", [3, 7, 64])
def test_heuristics_with_a_constexpr_declared_before_runtime_parameters(n):
    x = np.zeros(2, dtype=np.int64)
    out = np.zeros(2, dtype=np.int64)
    constexpr_first_kernel[(1,)](x, 4, n, out)
    np.testing.assert_array_equal(out, [n * 10 + 1, n * 4])
    out[:] = 0
    constexpr_first_kernel[(1,)](x, n=n, out_ptr=out, D=2)
    np.testing.assert_array_equal(out, [n * 10 + 1, n * 2])


@pytest.mark.parametrize("n_rows,n_cols,block_n", [(1, 3, 4), (37, 50, 64), (300, 7, 8)])
def test_heuristic_reads_a_constexpr_argument(n_rows, n_cols, block_n):
    g = rng("row_sums", n_rows, n_cols)
    x = g.standard_normal((n_rows, n_cols)).astype(np.float32)
    out = np.zeros(n_rows, dtype=np.float32)
    rows_block = max(1, 1024 // block_n)
    heuristic_from_constexpr[(tessera.cdiv(n_rows, rows_block),)](x, out, n_rows, n_cols, BLOCK_N=block_n)
    np.testing.assert_allclose(out, x.astype(np.float64).sum(axis=1), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("n", [128, 100, 64, 1])
def test_autotune_and_heuristics_stacked(n):
    g = rng("stacked", n)
    x = g.standard_normal(n).astype(np.float32)
    out = np.zeros(n, dtype=np.float32)
    facts = np.full(2, -1, dtype=np.int32)
    tuned_heuristic_kernel[_grid_1d](x, out, facts, n)
    np.testing.assert_array_equal(out, x + 1.0)
    # The config ran: the first on the interpreter, the faster on the GPU;
    # the heuristic saw the chosen BLOCK.
    assert facts[0] == 64 or (ON_GPU and facts[0] == 128)
    assert facts[1] == int(n % facts[0] == 0)


# ------------------------------------------------------------------- matmul

@pytest.mark.parametrize("M,N,K", [(33, 47, 65), (1, 1, 1), (17, 5, 40), (64, 64, 64)])
def test_matmul_fp32(M, N, K):
    g = rng("matmul", M, N, K)
    a = g.standard_normal((M, K)).astype(np.float32)
    b = g.standard_normal((K, N)).astype(np.float32)
    c = np.full((M, N), np.nan, dtype=np.float32)
    BM, BN, BK = 16, 16, 16
    matmul_kernel[(tessera.cdiv(M, BM), tessera.cdiv(N, BN))](
        a, b, c, M, N, K, *_elements(a), *_elements(b), *_elements(c), BM=BM, BN=BN, BK=BK)
    assert_fp32_dot_close(c, a, b)


def test_matmul_fp16_inputs_transposed_b_fp16_output():
    M, N, K = 33, 47, 65
    g = rng("matmul16")
    a = g.standard_normal((M, K)).astype(np.float16)
    b_store = g.standard_normal((N, K)).astype(np.float16)
    b = b_store.T  # (K, N), column-major
    c = np.zeros((M, N), dtype=np.float16)
    matmul_kernel[(tessera.cdiv(M, 32), tessera.cdiv(N, 32))](
        a, b, c, M, N, K, *_elements(a), *_elements(b), *_elements(c), BM=32, BN=32, BK=16)
    ref = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(c.astype(np.float32), ref, rtol=2e-3, atol=2e-3 * np.abs(ref).max())


@pytest.mark.parametrize("M,N,K", [(33, 47, 65), (2, 70, 3)])
def test_autotuned_matmul(M, N, K):
    g = rng("tuned_matmul", M, N, K)
    a = g.standard_normal((M, K)).astype(np.float32)
    b = g.standard_normal((K, N)).astype(np.float32)
    c = np.zeros((M, N), dtype=np.float32)
    grid = lambda meta: (tessera.cdiv(M, meta["BM"]), tessera.cdiv(N, meta["BN"]))  # noqa: E731
    tuned_matmul[grid](a, b, c, M, N, K, *_elements(a), *_elements(b), *_elements(c))
    assert_fp32_dot_close(c, a, b)


# Configs only CPython can compute (NumPy is not modeled by Tessera's host
# evaluator): Python's Config objects reach the C++ core
# (ProgramOptions::autotune_configs), and the interpreter runs the first.
_NUMPY_BLOCKS = np.array([64, 16, 32]).astype(np.int64) * 2


@tessera.autotune(configs=[tessera.Config({"BLOCK": int(b)}, num_warps=4) for b in _NUMPY_BLOCKS], key=["n"])
@tessera.jit
def numpy_configured(x_ptr, out_ptr, block_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * 2.0, mask=m)
    if tl.program_id(0) == 0:
        tl.store(block_ptr, BLOCK)


@pytest.mark.interpreter_only
@pytest.mark.parametrize("n", [1, 97, 1000])
def test_configs_python_computed_reach_the_compiler(n):
    g = rng("numpy-configs", n)
    x = g.standard_normal(n).astype(np.float32)
    out = np.zeros(n, dtype=np.float32)
    block = np.zeros(1, dtype=np.int32)
    numpy_configured[lambda meta: (tessera.cdiv(n, meta["BLOCK"]),)](x, out, block, n)
    np.testing.assert_array_equal(out, x * 2)
    assert block[0] == 128
    assert numpy_configured.best_config.kwargs == {"BLOCK": 128}
    assert [c.kwargs["BLOCK"] for c in numpy_configured.configs] == [128, 32, 64]


# A Config's pre_hook runs before the launch with that config, with the
# launch's arguments and the config's values (Triton's full_nargs): here it
# seeds the output the kernel accumulates into.
_hook_calls = []


def _seed_output(nargs):
    _hook_calls.append((nargs["BLOCK"], nargs["n"]))
    nargs["out_ptr"][:] = 10.0 * nargs["BLOCK"]


@tessera.autotune(configs=[tessera.Config({"BLOCK": 64}, pre_hook=_seed_output),
                           tessera.Config({"BLOCK": 128}, num_warps=8, pre_hook=_seed_output)],
                  key=["n"])
@tessera.jit
def accumulate_into(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(out_ptr + offs, mask=m) + tl.load(x_ptr + offs, mask=m), mask=m)


@pytest.mark.interpreter_only
@pytest.mark.parametrize("n", [1, 333])
def test_config_pre_hook_runs_before_the_launch(n):
    g = rng("pre-hook", n)
    x = g.standard_normal(n).astype(np.float32)
    out = np.zeros(n, dtype=np.float32)
    _hook_calls.clear()
    accumulate_into[lambda meta: (tessera.cdiv(n, meta["BLOCK"]),)](x, out, n)
    np.testing.assert_array_equal(out, x + 640.0)  # the interpreter runs the first config (BLOCK 64)
    assert _hook_calls == [(64, n)]
    assert accumulate_into.best_config.kwargs == {"BLOCK": 64}


def _keep_big(configs, nargs, **kwargs):
    return [c for c in configs if c.kwargs["BLOCK"] >= 128]


@tessera.autotune(configs=[tessera.Config({"BLOCK": 64}, pre_hook=_seed_output),
                           tessera.Config({"BLOCK": 128}, pre_hook=_seed_output)],
                  key=["n"], prune_configs_by={"early_config_prune": _keep_big})
@tessera.jit
def accumulate_pruned(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(out_ptr + offs, mask=m) + tl.load(x_ptr + offs, mask=m), mask=m)


@pytest.mark.interpreter_only
def test_hooked_configs_are_pruned_by_python():
    n = 200
    x = rng("pre-hook-pruned").standard_normal(n).astype(np.float32)
    out = np.zeros(n, dtype=np.float32)
    _hook_calls.clear()
    accumulate_pruned[lambda meta: (tessera.cdiv(n, meta["BLOCK"]),)](x, out, n)
    np.testing.assert_array_equal(out, x + 1280.0)
    assert _hook_calls == [(128, n)]


# --------------------------------------------- heuristics evaluated by CPython
# The decorators' callables run in CPython on the call's real arguments, as
# under Triton: NumPy, helper functions, attributes of the arrays passed.

def _pow2_at_least(n):
    return int(2 ** np.ceil(np.log2(max(n, 1))))


@tessera.heuristics({"BLOCK": lambda a: _pow2_at_least(a["n"]),
                     "SCALE": lambda a: np.float32(a["x_ptr"].shape[0] / a["n"])})
@tessera.jit
def numpy_heuristics(x_ptr, out_ptr, facts_ptr, n, BLOCK: tl.constexpr, SCALE: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * SCALE, mask=m)
    tl.store(facts_ptr, BLOCK)


@pytest.mark.parametrize("n,extra", [(37, 0), (64, 64), (1, 3)])
def test_heuristics_run_in_cpython_with_numpy_and_the_arrays(n, extra):
    g = rng("numpy_heuristics", n)
    x = g.standard_normal(n + extra).astype(np.float32)  # SCALE = x.shape[0] / n
    out = np.zeros(n, dtype=np.float32)
    facts = np.zeros(1, dtype=np.int32)
    numpy_heuristics[(1,)](x, out, facts, n)
    assert facts[0] == _pow2_at_least(n)
    np.testing.assert_array_equal(out, x[:n] * np.float32((n + extra) / n))


@tessera.heuristics({"HALF": lambda a: a["FULL"] // 2})  # outer: evaluated first
@tessera.heuristics({"FULL": lambda a: int(np.int64(a["n"]) * 2), "QUARTER": lambda a: a["HALF"] // 2})
@tessera.jit
def stacked_heuristics(facts_ptr, n, FULL: tl.constexpr = 0, HALF: tl.constexpr = 0, QUARTER: tl.constexpr = 0):
    tl.store(facts_ptr, FULL)
    tl.store(facts_ptr + 1, HALF)
    tl.store(facts_ptr + 2, QUARTER)


def test_stacked_heuristics_see_the_values_before_them_in_triton_order():
    # Triton evaluates the outer decorator first: HALF sees FULL's default
    # (0), then FULL = 2n and QUARTER = HALF // 2.
    facts = np.full(3, -1, dtype=np.int64)
    stacked_heuristics[(1,)](facts, 21)
    assert list(facts) == [42, 0, 0]


@tessera.autotune(configs=[tessera.Config({"BLOCK": 64}), tessera.Config({"BLOCK": 128})], key=["n"])
@tessera.heuristics({"TILES": lambda a: np.int64(np.ceil(a["n"] / a["BLOCK"]))})
@tessera.jit
def tuned_numpy_heuristic(x_ptr, out_ptr, facts_ptr, n, BLOCK: tl.constexpr, TILES: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)
    if pid == 0:
        tl.store(facts_ptr, BLOCK)
        tl.store(facts_ptr + 1, TILES)


@pytest.mark.parametrize("n", [300, 64, 5])
def test_a_cpython_heuristic_under_autotune_sees_the_config(n):
    g = rng("tuned_numpy_heuristic", n)
    x = g.standard_normal(n).astype(np.float32)
    out = np.zeros(n, dtype=np.float32)
    facts = np.full(2, -1, dtype=np.int32)
    tuned_numpy_heuristic[_grid_1d](x, out, facts, n)
    np.testing.assert_array_equal(out, x * 2.0)
    assert facts[0] == 64 or (ON_GPU and facts[0] == 128)
    assert facts[1] == -(-n // facts[0])


class _HeuristicFailure(Exception):
    pass


def _failing(args):
    raise _HeuristicFailure("no block for n=%d" % args["n"])


@tessera.heuristics({"BLOCK": _failing})
@tessera.jit
def failing_heuristic(out_ptr, n, BLOCK: tl.constexpr):
    tl.store(out_ptr + tl.arange(0, BLOCK), tl.zeros((BLOCK,), tl.float32))


def test_an_exception_in_a_heuristic_reaches_the_caller():
    with pytest.raises(_HeuristicFailure, match="no block for n=7"):
        failing_heuristic[(1,)](np.zeros(8, dtype=np.float32), 7)


# ------------------------------------------ prune_configs_by evaluated by CPython

def _numpy_early_prune(configs, named_args, **kwargs):
    # Keeps the blocks at least half the array's length (a NumPy array here).
    n = named_args["x_ptr"].shape[0]
    return [c for c in configs if np.int64(c.kwargs["BLOCK"]) * 2 >= n]


def _numpy_perf_model(**kw):
    return float(np.abs(np.log2(kw["BLOCK"]) - np.log2(kw["n"])))  # the block nearest n is "fastest"


_PRUNE_CONFIGS = [tessera.Config({"BLOCK": b}) for b in (16, 32, 64, 128, 256)]


@tessera.autotune(configs=_PRUNE_CONFIGS, key=["n"], prune_configs_by={"early_config_prune": _numpy_early_prune})
@tessera.jit
def early_pruned(x_ptr, facts_ptr, n, BLOCK: tl.constexpr):
    tl.store(facts_ptr, BLOCK)


@tessera.autotune(configs=_PRUNE_CONFIGS, key=["n"],
                  prune_configs_by={"perf_model": _numpy_perf_model, "top_k": 1})
@tessera.jit
def modeled(x_ptr, facts_ptr, n, BLOCK: tl.constexpr):
    tl.store(facts_ptr, BLOCK)


@pytest.mark.parametrize("n,first_kept", [(100, 64), (20, 16), (500, 256)])
def test_early_config_prune_runs_in_cpython(n, first_kept):
    facts = np.zeros(1, dtype=np.int32)
    early_pruned[(1,)](np.zeros(n, dtype=np.float32), facts, n)
    if ON_GPU:  # timed among the kept ones
        assert facts[0] in [b for b in (16, 32, 64, 128, 256) if b * 2 >= n]
    else:  # the interpreter runs the first config kept
        assert facts[0] == first_kept


@pytest.mark.parametrize("n,best", [(100, 128), (17, 16), (40, 32), (1000, 256)])
def test_perf_model_and_top_k_run_in_cpython(n, best):
    facts = np.zeros(1, dtype=np.int32)
    modeled[(1,)](np.zeros(n, dtype=np.float32), facts, n)
    assert facts[0] == best  # top_k=1: the one config left is timed alone, on either device


@tessera.autotune(configs=[tessera.Config({"BLOCK": 64}, num_warps=2), tessera.Config({"BLOCK": 128}, num_warps=8),
                           tessera.Config({"BLOCK": 256}, num_warps=4)],
                  key=["n"], prune_configs_by={"early_config_prune": lambda configs, nargs, **kw: configs[:2]})
@tessera.jit
def tuned_copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def test_autotuner_warmup_compiles_every_kept_config():
    """Triton's Autotuner.warmup: a CompiledKernel per config that pruning
    keeps, each with its own meta-parameters and num_warps; nothing runs."""
    x = np.ones(100, np.float32)
    out = np.zeros(100, np.float32)
    compiled = tuned_copy.warmup(x, out, 100, grid=(1,))
    assert len(compiled) == 2
    ptx = [c.asm["ptx"] for c in compiled]
    assert ".maxntid 64," in ptx[0] and ".maxntid 256," in ptx[1]
    assert "64" in compiled[0].asm["ttir"] and "128" in compiled[1].asm["ttir"]
    assert not out.any()


@tessera.autotune(configs=[tessera.Config({"BLOCK": 64}), tessera.Config({"BLOCK": 128})], key=["n"],
                  reset_to_zero=["acc_ptr"])
@tessera.jit
def tuned_total(x_ptr, acc_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.atomic_add(acc_ptr, tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0), axis=0))


def test_reset_to_zero_tensors_start_at_zero_after_tuning_a_key():
    """As Triton: the launch that tunes a key starts from zeroed reset_to_zero
    tensors (whatever they held); a launch of a key tuned before does not."""
    x = rng("reset_to_zero").integers(1, 4, 300).astype(np.float32)
    acc = np.full(1, 5.0, np.float32)
    grid = lambda m: (tessera.cdiv(300, m["BLOCK"]),)  # noqa: E731
    tuned_total[grid](x, acc, 300)
    assert acc[0] == x.sum()
    tuned_total[grid](x, acc, 300)  # the same key: nothing zeroed
    assert acc[0] == 2 * x.sum()
    acc[0] = 7.0
    tuned_total[lambda m: (tessera.cdiv(299, m["BLOCK"]),)](x, acc, 299)  # a new key: zeroed again
    assert acc[0] == x[:299].sum()
