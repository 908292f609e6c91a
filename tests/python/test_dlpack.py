"""DLPack from Python: tessera.Tensor exports and imports legacy and 1.x
("dltensor_versioned") capsules, NumPy consumes its exports, objects that
only speak the legacy protocol still pass to kernels, and a capsule is
consumed once."""

import ctypes

import numpy as np
import pytest

import tessera
import tessera.language as tl

from _testutil import rng

# Interpreter tensors and binders (skipped with TESSERA_TEST_ARRAYS=cuda).
pytestmark = pytest.mark.interpreter_only


@tessera.jit
def twice(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=m) * 2.0, mask=m)


def _capsule_name(capsule):
    get = ctypes.pythonapi.PyCapsule_GetName
    get.restype = ctypes.c_char_p
    get.argtypes = [ctypes.py_object]
    return get(capsule).decode()


def _tensor(values):
    dev = tessera.Device.interpreter()
    return dev.upload(values.tobytes(), "fp32", list(values.shape))


@pytest.mark.parametrize("max_version", [None, (0, 8), (1, 0), (1, 3)])
def test_round_trip_through_both_capsule_kinds(max_version):
    values = rng("dlpack", max_version).standard_normal(333).astype(np.float32)
    t = _tensor(values)
    capsule = t.__dlpack__() if max_version is None else t.__dlpack__(max_version=max_version)
    versioned = max_version is not None and max_version[0] >= 1
    assert _capsule_name(capsule) == ("dltensor_versioned" if versioned else "dltensor")
    back = tessera.Tensor.from_dlpack(capsule)
    assert _capsule_name(capsule) == ("used_dltensor_versioned" if versioned else "used_dltensor")
    assert not back.is_read_only
    assert back.data_ptr() == t.data_ptr()
    np.testing.assert_array_equal(np.frombuffer(back.to_bytes(), dtype=np.float32), values)
    with pytest.raises(tessera.TesseraError, match="already consumed"):
        tessera.Tensor.from_dlpack(capsule)


def test_numpy_reads_an_export_without_a_copy():
    values = rng("dlpack-numpy").standard_normal((7, 5)).astype(np.float32)
    t = _tensor(values)
    view = np.from_dlpack(t)
    np.testing.assert_array_equal(view, values)
    assert view.__array_interface__["data"][0] == t.data_ptr()
    view_t = np.from_dlpack(t.transpose(0, 1))
    np.testing.assert_array_equal(view_t, values.T)


class LegacyProducer:
    """Speaks only DLPack's legacy protocol: __dlpack__ takes no max_version."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, stream=None):
        return self.array.__dlpack__()

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


class VersionedProducer:
    """Answers max_version with a 1.x capsule (here: tessera's own)."""

    def __init__(self, tensor):
        self.tensor = tensor
        self.asked = None

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        self.asked = max_version
        return self.tensor.__dlpack__(max_version=max_version)

    def __dlpack_device__(self):
        return self.tensor.__dlpack_device__()


@pytest.mark.parametrize("n", [1, 17, 1000])
def test_kernels_take_legacy_and_versioned_producers(n):
    g = rng("dlpack-producers", n)
    x = g.standard_normal(n).astype(np.float32)
    out = np.zeros(n, dtype=np.float32)
    twice[(tessera.cdiv(n, 128),)](LegacyProducer(x), out, n, BLOCK=128)
    np.testing.assert_array_equal(out, x * 2)
    src = VersionedProducer(_tensor(x))
    out2 = np.zeros(n, dtype=np.float32)
    twice[(tessera.cdiv(n, 128),)](src, out2, n, BLOCK=128)
    assert src.asked == (1, 0)
    np.testing.assert_array_equal(out2, x * 2)
