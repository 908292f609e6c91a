"""pytest setup for tests/python.

- examples/python is importable (the custom_op example).
- TESSERA_TEST_ARRAYS=cuda (tests/gpu/python's second pass) runs the NumPy
  tests on the GPU: every NumPy array a launch receives becomes a PyTorch CUDA
  tensor over a device copy of its whole buffer (views keep their offset and
  strides, views of one buffer share one copy), and after the launch the
  buffers are copied back into the arrays, so each test's NumPy assertions
  check what the GPU computed. Tests of what only the interpreter does (its
  bounds checks, device_assert and device_print as it reports them, the
  first config instead of a timed one) are marked interpreter_only and
  skipped in that mode.
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python"))

CUDA_ARRAYS = os.environ.get("TESSERA_TEST_ARRAYS") == "cuda"


def pytest_configure(config):
    config.addinivalue_line("markers", "interpreter_only: checks what only the interpreter does "
                                       "(skipped with TESSERA_TEST_ARRAYS=cuda)")
    if CUDA_ARRAYS:
        _install_cuda_arrays()


def pytest_collection_modifyitems(config, items):
    if not CUDA_ARRAYS:
        return
    skip = pytest.mark.skip(reason="interpreter only (TESSERA_TEST_ARRAYS=cuda)")
    for item in items:
        if item.get_closest_marker("interpreter_only"):
            item.add_marker(skip)


class _CudaCopies:
    """NumPy arrays of one launch as CUDA tensors, written back afterwards."""

    def __init__(self):
        import numpy as np
        import torch
        self.np, self.torch = np, torch
        self.buffers = {}  # id(root) -> (root, CUDA bytes)

    def tensor(self, a):
        np, torch = self.np, self.torch
        root = a
        while isinstance(root.base, np.ndarray):
            root = root.base
        dtype = getattr(torch, {"bool": "bool"}.get(a.dtype.name, a.dtype.name), None)
        if not root.flags.c_contiguous or not isinstance(dtype, torch.dtype) or not a.dtype.isnative:
            return a  # stays a NumPy array: the launch reports what it reports on the interpreter
        if a.size == 0:
            return torch.empty(a.shape, dtype=dtype, device="cuda")  # nothing to copy either way
        entry = self.buffers.get(id(root))
        if entry is None:
            raw = root.reshape(-1).view(np.uint8)
            entry = self.buffers[id(root)] = (root, torch.from_numpy(raw.copy()).cuda())
        data = entry[1]
        offset = a.__array_interface__["data"][0] - root.__array_interface__["data"][0]
        size = a.itemsize
        if data.numel() % size or offset % size or any(s % size or s < 0 for s in a.strides):
            return a
        return torch.as_strided(data.view(dtype), a.shape, [s // size for s in a.strides], offset // size)

    def convert(self, value):
        if isinstance(value, self.np.ndarray):
            return self.tensor(value)
        if isinstance(value, tuple):  # tuple kernel arguments: their arrays too
            items = [self.convert(v) for v in value]
            return type(value)(*items) if hasattr(type(value), "_fields") else tuple(items)
        if type(value).__name__ == "TensorDescriptor" and isinstance(getattr(value, "base", None), self.np.ndarray):
            import copy
            d = copy.copy(value)  # a host descriptor: its base array too
            d.base = self.tensor(value.base)
            return d
        return value

    def write_back(self):
        if not self.buffers:
            return
        self.torch.cuda.synchronize()
        for root, data in self.buffers.values():
            if root.flags.writeable:
                root.reshape(-1).view(self.np.uint8)[:] = data.cpu().numpy()


def _install_cuda_arrays():
    from tessera.jit import JITFunction

    def on_cuda(call):
        def wrapped(*args, **kwargs):
            copies = _CudaCopies()
            args = tuple(copies.convert(a) for a in args)
            kwargs = {k: copies.convert(v) for k, v in kwargs.items()}
            try:
                return call(*args, **kwargs)
            finally:
                copies.write_back()
        return wrapped

    getitem, run, warmup = JITFunction.__getitem__, JITFunction.run, JITFunction.warmup

    def __getitem__(self, grid):
        return on_cuda(getitem(self, grid))

    def run_(self, *args, **kwargs):
        return on_cuda(lambda *a, **k: run(self, *a, **k))(*args, **kwargs)

    def warmup_(self, *args, **kwargs):
        return on_cuda(lambda *a, **k: warmup(self, *a, **k))(*args, **kwargs)

    JITFunction.__getitem__ = __getitem__
    JITFunction.run = run_
    JITFunction.warmup = warmup_
