"""PyTorch tensors through the tessera package: CUDA tensors on the GPU (on
torch's current stream, any strides), CPU tensors on the interpreter, CUDA
graph capture, autograd and torch.library.custom_op. Needs PyTorch (and a
GPU for the CUDA tests): run on the device machine by tests/gpu/run; skipped
where PyTorch is not installed (CI has no PyPI, so no PyTorch)."""

import os

import pytest

torch = pytest.importorskip("torch")

import tessera  # noqa: E402
import tessera.language as tl  # noqa: E402

cuda = pytest.mark.skipif(not torch.cuda.is_available() or os.environ.get("TESSERA_INTERPRET") == "1",
                          reason="needs a CUDA GPU")


@tessera.jit
def axpy(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    tl.store(out_ptr + offs, alpha * x + y, mask=m)


@tessera.jit
def copy2d(src, dst, M, N, s_m, s_n, d_m, d_n, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    v = tl.load(src + rm[:, None] * s_m + rn[None, :] * s_n, mask=mask)
    tl.store(dst + rm[:, None] * d_m + rn[None, :] * d_n, v, mask=mask)


def launch_axpy(x, y, alpha):
    out = torch.empty_like(x)
    n = x.numel()
    axpy[lambda meta: (tessera.cdiv(n, meta["BLOCK"]),)](x, y, out, n, alpha, BLOCK=256)
    return out


def test_cpu_tensors_run_on_the_interpreter():
    g = torch.Generator().manual_seed(1)
    x = torch.randn(1001, generator=g)
    y = torch.randn(1001, generator=g)
    torch.testing.assert_close(launch_axpy(x, y, 0.5), 0.5 * x + y)


@cuda
@pytest.mark.parametrize("n", [1, 17, 1000, 98_431])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_cuda_tensors(n, dtype):
    x = torch.randn(n, device="cuda", dtype=dtype)
    y = torch.randn(n, device="cuda", dtype=dtype)
    out = launch_axpy(x, y, 2.0)
    ref = (2.0 * x.float() + y.float()).to(dtype)
    torch.testing.assert_close(out, ref, atol=1e-2, rtol=1e-2)


@cuda
def test_strided_views_and_offsets():
    base = torch.randn(301, 517, device="cuda")
    src = base.t()[3:, 7:]  # strides (1, 517), storage offset
    dst = torch.empty(src.shape, device="cuda")
    M, N = src.shape
    copy2d[(tessera.cdiv(M, 32), tessera.cdiv(N, 32))](src, dst, M, N, *src.stride(), *dst.stride(), BM=32, BN=32)
    assert torch.equal(dst, src)


@cuda
def test_runs_on_the_current_stream():
    s = torch.cuda.Stream()
    x = torch.randn(1 << 20, device="cuda")
    y = torch.randn(1 << 20, device="cuda")
    torch.cuda.synchronize()
    with torch.cuda.stream(s):
        # A long kernel first on s: a launch on the default stream would race it.
        big = torch.randn(4096, 4096, device="cuda")
        for _ in range(4):
            big = big @ big
            big = big / big.norm()
        x.mul_(3.0)
        out = launch_axpy(x, y, 1.0)
    s.synchronize()
    torch.testing.assert_close(out, x + y)


@cuda
def test_cuda_graph_capture_and_replay():
    x = torch.randn(4097, device="cuda")
    y = torch.randn(4097, device="cuda")
    out = launch_axpy(x, y, 3.0)  # compiled and cached before capture
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    static_out = torch.empty_like(x)
    n = x.numel()
    with torch.cuda.graph(g):
        axpy[(tessera.cdiv(n, 256),)](x, y, static_out, n, 3.0, BLOCK=256)
    for _ in range(3):
        x.copy_(torch.randn_like(x))
        g.replay()
        torch.cuda.synchronize()
        torch.testing.assert_close(static_out, 3.0 * x + y)
    assert out.shape == x.shape


@tessera.autotune(configs=[tessera.Config({"BLOCK": 128}), tessera.Config({"BLOCK": 1024}, num_warps=8)], key=["n"])
@tessera.jit
def tuned_add(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(y_ptr + offs, mask=m) + tl.load(x_ptr + offs, mask=m), mask=m)


@tessera.jit
def affine(x_ptr, out_ptr, n, a, b, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * a + b, mask=m)


@cuda
def test_cuda_graph_capture_of_autotuned_and_first_launches():
    # torch.cuda.graph captures in global mode on a side stream: the
    # autotuned launch (tuned on that stream, y restored after the sweep)
    # replays its winner, and a kernel compiled and loaded inside the capture
    # records too.
    n = 50_003
    x = torch.randint(-1000, 1000, (n,), device="cuda").float() / 8  # sums exact in fp32
    y0 = torch.randint(-1000, 1000, (n,), device="cuda").float() / 8
    y = y0.clone()
    grid = lambda meta: (tessera.cdiv(n, meta["BLOCK"]),)  # noqa: E731
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        tuned_add[grid](y, x, n)
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    assert torch.equal(y, y0 + x), "the sweep's runs were not undone"
    assert tuned_add.best_config is not None
    w = torch.empty_like(x)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        tuned_add[grid](y, x, n)
        affine[(tessera.cdiv(n, 512),)](x, w, n, -2.0, 0.25, BLOCK=512)  # first launch: compiled here
    for _ in range(2):
        g.replay()
    torch.cuda.synchronize()
    assert torch.equal(y, y0 + 3 * x)
    assert torch.equal(w, x * -2.0 + 0.25)


@cuda
def test_an_untuned_launch_inside_a_capture_is_refused():
    x = torch.zeros(77, device="cuda")
    y = torch.zeros(77, device="cuda")
    grid = lambda meta: (tessera.cdiv(77, meta["BLOCK"]),)  # noqa: E731
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with pytest.raises(Exception, match="being captured into a CUDA graph"):
        with torch.cuda.graph(g):
            tuned_add[grid](y, x, 77)  # a new key: nothing may be timed while capturing
    tuned_add[grid](y, x, 77)  # outside: tunes and runs
    torch.cuda.synchronize()


class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha
        return launch_axpy(x, torch.zeros_like(x), alpha)

    @staticmethod
    def backward(ctx, grad):
        return launch_axpy(grad.contiguous(), torch.zeros_like(grad), ctx.alpha), None


@cuda
def test_autograd_function():
    x = torch.randn(777, device="cuda", requires_grad=True)
    y = Scale.apply(x, 1.5)
    (y * y).sum().backward()
    torch.testing.assert_close(x.grad, 2 * 1.5 * 1.5 * x.detach())


@cuda
def test_custom_op_with_autograd():
    from_examples = pytest.importorskip("custom_op_example")
    x = torch.randn(1234, device="cuda", requires_grad=True)
    y = from_examples.scaled(x, 0.25)
    y.sum().backward()
    torch.testing.assert_close(y, 0.25 * x.detach())
    torch.testing.assert_close(x.grad, torch.full_like(x, 0.25))


@cuda
def test_cuda_array_interface_and_dlpack_inputs():
    class CAI:
        def __init__(self, t):
            self.t = t
            self.__cuda_array_interface__ = t.__cuda_array_interface__

    x = torch.randn(999, device="cuda")
    y = torch.randn(999, device="cuda")
    out = torch.empty_like(x)
    axpy[(4,)](CAI(x), y, out, 999, 1.0, BLOCK=256)
    torch.testing.assert_close(out, x + y)
    t = tessera.Tensor.from_dlpack(torch.utils.dlpack.to_dlpack(x))
    out2 = torch.empty_like(x)
    axpy[(4,)](t, y, out2, 999, 1.0, BLOCK=256)
    torch.testing.assert_close(out2, x + y)


@cuda
def test_warmup_metadata_and_asm():
    x = torch.randn(1000, device="cuda")
    out = torch.empty_like(x)
    k = axpy.warmup(x, x, out, 1000, 1.0, BLOCK=256, grid=(1,), num_warps=4)
    k._init_handles()
    assert k.n_regs > 0
    assert k.metadata.num_warps == 4
    assert ".entry axpy" in k.asm["ptx"] or ".entry" in k.asm["ptx"]
    assert isinstance(k.asm["cubin"], bytes) and len(k.asm["cubin"]) > 100


@cuda
def test_interpret_mode_copies_cuda_tensors(monkeypatch):
    # As in Triton, the mode is read when the kernel is defined.
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    interpreted = tessera.jit(axpy.fn)
    x = torch.randn(300, device="cuda")
    y = torch.randn(300, device="cuda")
    out = torch.empty_like(x)
    interpreted[(2,)](x, y, out, 300, 2.0, BLOCK=256)
    torch.testing.assert_close(out, 2.0 * x + y)


@cuda
def test_warmup_is_cached_by_what_specializes():
    x = torch.randn(1024, device="cuda")
    out = torch.empty_like(x)
    a = axpy.warmup(x, x, out, 1024, 1.0, BLOCK=256, grid=(1,))
    assert axpy.warmup(x, x, out, 1024, 1.0, BLOCK=256, grid=(1,)) is a
    y = torch.randn(1024, device="cuda")
    assert axpy.warmup(y, y, out, 1024, 2.5, BLOCK=256, grid=(1,)) is a  # other data, same specialization
    misaligned = axpy.warmup(x[1:], x[1:], out[1:], 1023, 1.0, BLOCK=256, grid=(1,))
    assert misaligned is not a
    assert axpy.warmup(x, x, out, 1024, 1.0, BLOCK=512, grid=(1,)) is not a
    half = x.half()
    assert axpy.warmup(half, half, half, 1024, 1.0, BLOCK=256, grid=(1,)) is not a


def test_cpu_warmup_gives_the_same_compiled_kernel():
    x = torch.randn(64)
    out = torch.empty_like(x)
    a = axpy.warmup(x, x, out, 64, 1.0, BLOCK=64, grid=(1,))
    assert axpy.warmup(x, x, out, 64, 1.0, BLOCK=64, grid=(1,)) is a
    assert "tt.func" in a.asm["ttir"]
