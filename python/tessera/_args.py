"""Kernel arguments from Python objects: tensors of any library, scalars.

A launch's tensors become tessera._C.Tensor views of the same memory, with
no copy:
  - PyTorch tensors (any strides): CUDA ones on that GPU, CPU ones on the
    interpreter;
  - NumPy arrays, on the interpreter;
  - objects with __cuda_array_interface__ (CuPy, Numba, ...), on the GPU;
  - objects with __dlpack__ (JAX, ...), wherever DLPack says.
The caller keeps the objects alive for the launch (as Triton does, the
memory is not owned by the view). Every tensor of a launch must be on one
device; the launch runs there. With TRITON_INTERPRET=1 (or
TESSERA_INTERPRET=1) CUDA tensors are copied to the host, the kernel runs on
the interpreter, and what it wrote is copied back, as Triton's interpreter
does.
"""

import os

from . import _C

_TORCH_DTYPES = {
    "float32": "fp32", "float16": "fp16", "bfloat16": "bf16", "float64": "fp64",
    "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64", "bool": "i1",
    "float8_e4m3fn": "fp8e4nv", "float8_e5m2": "fp8e5",
}
_NUMPY_DTYPES = {
    "float32": "fp32", "float16": "fp16", "float64": "fp64", "int8": "i8", "int16": "i16",
    "int32": "i32", "int64": "i64", "uint8": "u8", "uint16": "u16", "uint32": "u32",
    "uint64": "u64", "bool": "i1",
}
# __cuda_array_interface__ typestrs (byte order and kind, then size).
_TYPESTR = {
    "f4": "fp32", "f2": "fp16", "f8": "fp64", "i1": "i8", "i2": "i16", "i4": "i32", "i8": "i64",
    "u1": "u8", "u2": "u16", "u4": "u32", "u8": "u64", "b1": "i1",
}

_devices = {}


def interpreting():
    return os.environ.get("TRITON_INTERPRET", "0") not in ("", "0") or \
        os.environ.get("TESSERA_INTERPRET", "0") not in ("", "0")


def interpreter():
    d = _devices.get(-1)
    if d is None:
        d = _devices[-1] = _C.Device.interpreter()
    return d


def cuda(index):
    d = _devices.get(index)
    if d is None:
        d = _devices[index] = _C.Device.cuda(index)
    return d


def default_device():
    d = _devices.get("default")
    if d is None:
        d = interpreter() if interpreting() else _C.Device.default_device()
        _devices["default"] = d
    return d


class Converted:
    """One launch's converted arguments: the device, and copies to write back
    (interpreting CUDA tensors)."""

    __slots__ = ("device", "stream_device", "write_back")

    def __init__(self):
        self.device = None
        self.stream_device = None  # the torch CUDA device index whose current stream is used
        self.write_back = None


def _elements(strides, itemsize, what):
    out = []
    for s in strides:
        if s % itemsize:
            raise TypeError("tessera: %s has a stride of %d bytes, not a multiple of its %d-byte elements" %
                            (what, s, itemsize))
        out.append(s // itemsize)
    return out


def _place(conv, device, what):
    if conv.device is None:
        conv.device = device
    elif conv.device is not device:
        raise ValueError("tessera: %s is on %s but an earlier tensor argument is on %s; all of a launch's "
                         "tensors must be on one device" % (what, device.name, conv.device.name))


def _torch(t, conv, what):
    dtype = _TORCH_DTYPES.get(str(t.dtype)[6:])
    if dtype is None:
        raise TypeError("tessera: %s has dtype %s, which kernels cannot take" % (what, t.dtype))
    if t.is_cuda:
        if interpreting():
            host = t.detach().cpu()
            if conv.write_back is None:
                conv.write_back = []
            conv.write_back.append((t, host))
            t = host
        else:
            index = t.device.index
            _place(conv, cuda(index), what)
            conv.stream_device = index
            return _C.Tensor.from_blob(conv.device, t.data_ptr(), dtype, tuple(t.shape), t.stride())
    elif t.device.type != "cpu":
        raise TypeError("tessera: %s is a tensor on '%s'; Tessera runs on CUDA devices and the CPU interpreter" %
                        (what, t.device))
    _place(conv, interpreter(), what)
    return _C.Tensor.from_blob(conv.device, t.data_ptr(), dtype, tuple(t.shape), t.stride())


def _numpy(a, conv, what):
    dtype = _NUMPY_DTYPES.get(a.dtype.name)
    if dtype is None:
        raise TypeError("tessera: %s has dtype %s, which kernels cannot take" % (what, a.dtype))
    if not a.dtype.isnative:
        raise TypeError("tessera: %s is %s-endian; kernels read native byte order (pass a.astype(a.dtype.newbyteorder('='))"
                        % (what, "big" if a.dtype.byteorder == ">" else "little"))
    if any(s < 0 for s in a.strides):
        raise ValueError("tessera: %s has a negative stride; pass a copy (numpy.ascontiguousarray)" % what)
    _place(conv, interpreter(), what)
    # A read-only array (of bytes, a read-only mapped file): the launch
    # refuses it for a parameter the kernel stores through.
    return _C.Tensor.from_blob(conv.device, a.__array_interface__["data"][0], dtype, a.shape,
                               _elements(a.strides, a.itemsize, what), read_only=not a.flags.writeable)


def _cuda_array(obj, conv, what):
    cai = obj.__cuda_array_interface__
    typestr = cai["typestr"]
    dtype = _TYPESTR.get(typestr[1:])
    if dtype is None:
        raise TypeError("tessera: %s has typestr %r, which kernels cannot take" % (what, typestr))
    shape = tuple(cai["shape"])
    strides = cai.get("strides")
    if strides is not None:
        strides = _elements(strides, int(typestr[2:]), what)
    if interpreting():
        raise TypeError("tessera: %s is CUDA memory without a host copy path; the interpreter takes PyTorch or "
                        "NumPy tensors" % what)
    # The current device: CUDA array interface producers allocate there.
    _place(conv, conv.device or default_device(), what)
    return _C.Tensor.from_blob(conv.device, cai["data"][0], dtype, shape, strides)


def _dlpack(obj, conv, what):
    kind, index = obj.__dlpack_device__()
    device = cuda(index) if kind == 2 else interpreter() if kind == 1 else None
    if device is None:
        raise TypeError("tessera: %s lives on DLPack device type %d; Tessera takes CPU (1) and CUDA (2) memory" %
                        (what, kind))
    _place(conv, device, what)
    try:
        capsule = obj.__dlpack__(max_version=(1, 0))  # DLPack 1.x: the read-only flag comes along
    except TypeError:
        capsule = obj.__dlpack__()  # a producer of the legacy protocol
    return _C.Tensor.from_dlpack(capsule)


def _tessera(t, conv, what):
    kind, index = t.__dlpack_device__()
    _place(conv, cuda(index) if kind == 2 else interpreter(), what)
    return t


def _descriptor(d, conv, what):
    from .tools.tensor_descriptor import TensorDescriptor
    assert isinstance(d, TensorDescriptor)
    base = convert(d.base, conv, what)
    return _C.TensorDescriptor.make(base, list(d.shape), list(d.strides), list(d.block_shape), d.padding,
                                    bool(getattr(d, "round_f32_to_tf32", False)))


def _converter(obj):
    cls = type(obj)
    module = cls.__module__
    if module == "torch" and cls.__name__ in ("Tensor", "Parameter") or module.startswith("torch") and \
            hasattr(obj, "data_ptr") and hasattr(obj, "stride"):
        return _torch
    if any(c.__module__ == "numpy" and c.__name__ == "ndarray" for c in cls.__mro__):  # numpy.memmap too
        return _numpy
    if cls is _C.Tensor:
        return _tessera
    if cls.__name__ == "TensorDescriptor" and hasattr(obj, "block_shape"):
        return _descriptor
    if hasattr(obj, "__cuda_array_interface__"):
        return _cuda_array
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        return _dlpack
    return None


_converters = {}
_SCALARS = (int, float, bool, type(None))


def convert(obj, conv, what):
    """`obj` as a _C kernel argument (a tensor view, or the scalar itself)."""
    cls = type(obj)
    if cls in _SCALARS:
        return obj
    if isinstance(obj, tuple):  # a tuple argument (a namedtuple keeps its class: its field names)
        items = [convert(x, conv, "%s[%d]" % (what, k)) for k, x in enumerate(obj)]
        return cls(*items) if hasattr(cls, "_fields") else tuple(items)
    fn = _converters.get(cls)
    if fn is None:
        fn = _converter(obj)
        if fn is None:
            if hasattr(obj, "__index__"):
                return int(obj.__index__())
            if hasattr(obj, "__float__") and cls.__module__ == "numpy":
                return float(obj)
            raise TypeError("tessera: %s is a %s, which kernels cannot take (tensors, numbers, bools and None can "
                            "be passed)" % (what, cls.__name__))
        _converters[cls] = fn
    return fn(obj, conv, what)


def convert_for_launcher(obj, name):
    """The C++ launcher's converter (src/Launcher.cpp) for what it does not
    read itself: (the argument, its device or None)."""
    conv = Converted()
    value = convert(obj, conv, "argument '%s'" % name)
    return value, conv.device


def finish(conv):
    """After an interpreted launch: copies what the kernel wrote back to CUDA tensors."""
    if conv.write_back:
        for original, host in conv.write_back:
            original.copy_(host)
