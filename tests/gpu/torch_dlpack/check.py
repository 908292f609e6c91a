"""PyTorch and Tessera sharing CUDA memory through DLPack, no copies.

    python3 check.py LIBSHIM

LIBSHIM is shim.cpp built as a shared library against libtessera (run.sh
does it). PyTorch tensors of odd shapes go to Tessera (torch.utils.dlpack
.to_dlpack -> tessera::from_dlpack), which writes a * x + y into a PyTorch
output in place; the result is checked against PyTorch's own a * x + y, and
the pointer Tessera wrote through against the output's data_ptr(). Then a
tensor Tessera made comes back (tessera::to_dlpack -> from_dlpack) and is
checked the same way. Prints one line per check; exit status 0 when all pass.
"""
import ctypes
import sys

import torch
from torch.utils import dlpack

lib = ctypes.CDLL(sys.argv[1])
lib.tessera_axpy.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_float, ctypes.POINTER(ctypes.c_uint64),
                                                     ctypes.c_char_p, ctypes.c_int]
lib.tessera_ramp.argtypes = [ctypes.c_int64, ctypes.c_int64, ctypes.POINTER(ctypes.c_uint64), ctypes.c_char_p,
                             ctypes.c_int]
lib.tessera_ramp.restype = ctypes.c_void_p
api = ctypes.pythonapi
api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
api.PyCapsule_GetPointer.restype = ctypes.c_void_p
api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
api.PyCapsule_New.restype = ctypes.py_object

failures = 0


def report(ok, what):
    global failures
    failures += not ok
    print(("ok   " if ok else "FAIL ") + what, flush=True)


def hand_over(t):
    """The DLManagedTensor* of `t`, consumed (as a DLPack consumer does: the
    capsule is renamed so that PyTorch does not free it; Tessera calls the
    deleter)."""
    capsule = dlpack.to_dlpack(t)
    pointer = api.PyCapsule_GetPointer(capsule, b"dltensor")
    api.PyCapsule_SetName(capsule, b"used_dltensor")
    return pointer


error = ctypes.create_string_buffer(4096)
gen = torch.Generator(device="cuda").manual_seed(20261125)
for shape, dtype in [((333, 77), torch.float32), ((1001,), torch.float16), ((3, 5, 257), torch.bfloat16)]:
    x = torch.randn(shape, device="cuda", dtype=dtype, generator=gen)
    y = torch.randn(shape, device="cuda", dtype=dtype, generator=gen)
    out = torch.full(shape, float("nan"), device="cuda", dtype=dtype)
    torch.cuda.synchronize()
    seen = ctypes.c_uint64(0)
    rc = lib.tessera_axpy(hand_over(x), hand_over(y), hand_over(out), 1.5, ctypes.byref(seen), error, len(error))
    what = f"PyTorch -> Tessera, {dtype} {shape}"
    if rc != 0:
        report(False, f"{what}: {error.value.decode()}")
        continue
    want = (1.5 * x.float() + y.float()).to(dtype)
    tol = {torch.float32: 1e-6, torch.float16: 1e-3, torch.bfloat16: 8e-3}[dtype]
    close = torch.allclose(out.float(), want.float(), rtol=tol, atol=tol)
    same = seen.value == out.data_ptr()
    report(close and same, f"{what}: a*x+y written in place (same pointer: {same}, "
           f"max error {(out.float() - want.float()).abs().max().item():.3g})")

rows, cols = 123, 457
data = ctypes.c_uint64(0)
managed = lib.tessera_ramp(rows, cols, ctypes.byref(data), error, len(error))
if not managed:
    report(False, f"Tessera -> PyTorch: {error.value.decode()}")
else:
    t = dlpack.from_dlpack(api.PyCapsule_New(managed, b"dltensor", None))
    want = (torch.arange(rows * cols, device="cuda") % 1000).float().mul(0.5).reshape(rows, cols)
    ok = t.shape == (rows, cols) and t.dtype == torch.float32 and t.is_cuda and torch.equal(t, want)
    same = t.data_ptr() == data.value
    report(ok and same, f"Tessera -> PyTorch, float32 ({rows}, {cols}): values exact, same pointer: {same}")
    del t
    torch.cuda.synchronize()

# Strides both ways: a transposed, sliced PyTorch tensor in, a Tessera view
# of it (odd rows, transposed) out, compared with PyTorch's own view.
lib.tessera_view.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_uint64),
                             ctypes.c_char_p, ctypes.c_int]
lib.tessera_view.restype = ctypes.c_void_p
base = torch.randn(41, 67, device="cuda", generator=gen)
x = base[:, 3:60].t()  # [57, 41], strides (1, 67)
strides = (ctypes.c_int64 * 2)()
data = ctypes.c_uint64(0)
managed = lib.tessera_view(hand_over(x), strides, ctypes.byref(data), error, len(error))
if not managed:
    report(False, f"strided views: {error.value.decode()}")
else:
    got = dlpack.from_dlpack(api.PyCapsule_New(managed, b"dltensor", None))
    want = x[1::2].t()
    ok = (got.shape == want.shape and got.stride() == want.stride() and got.data_ptr() == want.data_ptr() ==
          data.value and tuple(strides) == want.stride() and torch.equal(got, want))
    report(ok, f"strided views: torch {tuple(x.shape)} strides {x.stride()} -> Tessera view strides "
           f"{tuple(strides)} -> torch {tuple(got.shape)} strides {got.stride()}, same memory and values")
    del got

print(f"torch DLPack: {'passed' if failures == 0 else f'{failures} FAILED'}")
sys.exit(1 if failures else 0)
