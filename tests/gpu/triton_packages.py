"""Runs the e2e test package (tests/e2e/kernels/fusedpkg) and
python_semantics.py under the real Triton on the GPU, each kernel against a
PyTorch reference: the test kernels are genuine Triton code, and the results
Tessera's e2e tests check (against C++ references) are Triton's too.

    python3 tests/gpu/triton_packages.py        # last line: "triton packages: P passed, F failed"
"""
import os
import sys
import traceback

import torch
import triton

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(root, "tests", "e2e", "kernels"))

import fusedpkg  # noqa: E402
from fusedpkg.ops import elementwise, norm  # noqa: E402
from fusedpkg import launch  # noqa: E402
import python_semantics as ps  # noqa: E402

dev = "cuda"
torch.manual_seed(0)
# Tensor descriptors made inside kernels need scratch memory.
triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device=dev))
results = []


def check(name, fn):
    try:
        fn()
        results.append((name, None))
    except Exception:  # noqa: BLE001
        results.append((name, traceback.format_exc(limit=3)))


def close(got, want, rtol=1e-5, atol=1e-6):
    torch.testing.assert_close(got, want, rtol=rtol, atol=atol)


def add_kernel():
    for n in (1, 1000, 4099):
        x, y = torch.randn(n, device=dev), torch.randn(n, device=dev)
        out = torch.empty_like(x)
        fusedpkg.add_kernel[(triton.cdiv(n, 128),)](x, y, out, n, BLOCK=128)
        close(out, 2 * x + y, 0, 0)


def scaled_add():
    assert len(elementwise.scaled_add.configs) == 10
    for n in (2048, 2051):
        x, y = torch.randn(n, device=dev), torch.randn(n, device=dev)
        out = torch.empty_like(x)
        even = torch.full((1,), -1, dtype=torch.int32, device=dev)
        elementwise.scaled_add[lambda m: (triton.cdiv(n, m["BLOCK"]),)](x, y, out, even, n, 1.5)
        close(out, x * 1.5 + y)
        block = elementwise.scaled_add.best_config.kwargs["BLOCK"]
        assert even.item() == (1 if n % block == 0 else 0), (even.item(), block)


def axpby():
    n = 777
    x, y = torch.randn(n, device=dev), torch.randn(n, device=dev)
    for k in (elementwise.axpby, elementwise.axpby_nospec, launch.axpby):
        out = torch.empty_like(x)
        k[(triton.cdiv(n, 64),)](x, y, out, n, 0.5, -2.0, BLOCK=64)
        close(out, 0.5 * x - 2.0 * y)


def rms_norm():
    rows, cols, eps = 37, 100, 1e-5
    x, w = torch.randn(rows, cols, device=dev) * 3, torch.rand(cols, device=dev) + 0.5
    want = x * torch.rsqrt((x * x).mean(dim=1, keepdim=True) + eps) * w
    for k in (norm.rms_norm_rows, launch.rms):
        out = torch.empty_like(x)
        k[lambda m: (m["NUM_PROGRAMS"],)](x, w, out, rows, cols, eps, BLOCK=128)
        close(out, want, 2e-5, 1e-5)


def row_max():
    rows, cols = 9, 50
    x = -torch.rand(rows, cols, device=dev) * 1e30 - 1
    out = torch.empty(rows, device=dev)
    norm.row_max[(rows,)](x, out, cols, BLOCK=64)
    close(out, x.max(dim=1).values, 0, 0)


# Triton's tensor descriptors need 16-byte aligned strides (Tessera's do
# not): rows of 72 and 52 fp32 here, where the e2e tests use 70 and 50.
def descriptor_across_runtime_if():
    M, N, BM, BN = 45, 72, 16, 32
    x, y = torch.randn(M, N, device=dev), torch.randn(M, N, device=dev)
    rows = (torch.arange(M, device=dev) // BM) % 2 == 0
    for use_y in (0, 1):
        src = y if use_y else x
        out = torch.zeros_like(x)
        ps.descriptor_across_runtime_if[(triton.cdiv(M, BM), triton.cdiv(N, BN))](x, y, out, M, N, use_y, BM=BM, BN=BN)
        close(out, torch.where(rows[:, None], src * 2, src + 1), 0, 0)


def pointer_or_descriptor():
    M, N = 33, 52
    x, y = torch.randn(M, N, device=dev), torch.randn(M, N, device=dev)
    out = torch.zeros_like(x)
    ps.pointer_or_descriptor[(triton.cdiv(M, 16), triton.cdiv(N, 16))](x, y, out, M, N, BM=16, BN=16)
    close(out, x - y, 0, 0)


def kernels_in_classes():
    for n in (1, 777):
        x = torch.randn(n, device=dev)
        out = torch.empty_like(x)
        elementwise.Kernels.scale_offset[(1,)](x, out, n, 0.5, BLOCK=128)
        close(out, x * 0.5 + 3, 0, 0)


def number_locals():
    n = 1000
    x = -torch.rand(n, device=dev) * 1e6 - 1
    out = torch.zeros(3, device=dev)
    ps.number_locals_as_tensors[(3,)](x, out, n, BLOCK=128)
    close(out, x.max().expand(3), 0, 0)


for name, fn in [("fusedpkg add_kernel", add_kernel), ("fusedpkg scaled_add (autotune + heuristics)", scaled_add),
                 ("fusedpkg axpby (made by calls)", axpby), ("fusedpkg rms_norm_rows", rms_norm),
                 ("fusedpkg row_max", row_max), ("descriptor_across_runtime_if", descriptor_across_runtime_if),
                 ("pointer_or_descriptor", pointer_or_descriptor), ("number_locals_as_tensors", number_locals),
                 ("fusedpkg Kernels.scale_offset (classes as namespaces)", kernels_in_classes)]:
    check(name, fn)
failed = [(n, e) for n, e in results if e]
for n, e in results:
    print(("FAIL " if e else "ok   ") + n)
    if e:
        print("    " + e.strip().replace("\n", "\n    "))
print("triton %s: %d passed, %d failed (the e2e test package and python_semantics.py under Triton)"
      % (triton.__version__, len(results) - len(failed), len(failed)))
sys.exit(1 if failed else 0)
