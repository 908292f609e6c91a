//===- python/src/Tensors.cpp - Device and Tensor for Python ----------------===//
//
// Binds tessera::Device and tessera::Tensor. Memory other libraries own
// comes in without a copy: Tensor.from_blob takes an address (NumPy arrays
// and PyTorch tensors are wrapped this way by tessera/_args.py, the owner kept
// alive by the caller for the launch) and Tensor.from_dlpack a "dltensor"
// capsule, which it consumes as the DLPack protocol requires (renamed
// "used_dltensor"; the producer's deleter runs when the last view is gone).
// Tensors go out through __dlpack__ / to_dlpack capsules.
//
//===----------------------------------------------------------------------===//

#include <cstring>

#include "Binding.h"
#include "tessera/dlpack.h"

namespace tessera::python {

DType dtypeNamed(const std::string& name) {
  std::string known;
  for (int d = 0; d <= static_cast<int>(DType::fp64); ++d) {
    DType t = static_cast<DType>(d);
    if (name == dtype_name(t)) return t;
    known += (known.empty() ? "" : ", ") + std::string(dtype_name(t));
  }
  throw Error("unknown dtype '" + name + "' (known: " + known + ")");
}

namespace {

constexpr const char* kCapsule = "dltensor";
constexpr const char* kUsedCapsule = "used_dltensor";
constexpr const char* kVersionedCapsule = "dltensor_versioned";
constexpr const char* kUsedVersionedCapsule = "used_dltensor_versioned";

void deleteUnusedCapsule(PyObject* capsule) {
  // A capsule nobody consumed still owns its tensor (DLPack's rule).
  if (!PyCapsule_IsValid(capsule, kCapsule)) return;
  auto* managed = static_cast<dlpack::ManagedTensor*>(PyCapsule_GetPointer(capsule, kCapsule));
  if (managed && managed->deleter) managed->deleter(managed);
}

void deleteUnusedVersionedCapsule(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, kVersionedCapsule)) return;
  auto* managed = static_cast<dlpack::ManagedTensorVersioned*>(PyCapsule_GetPointer(capsule, kVersionedCapsule));
  if (managed && managed->deleter) managed->deleter(managed);
}

Tensor fromCapsule(py::capsule capsule) {
  PyObject* raw = capsule.ptr();
  if (PyCapsule_IsValid(raw, kVersionedCapsule)) {
    void* managed = PyCapsule_GetPointer(raw, kVersionedCapsule);
    PyCapsule_SetName(raw, kUsedVersionedCapsule);  // consumed: from_dlpack_versioned owns it, even when it throws
    return from_dlpack_versioned(managed);
  }
  if (PyCapsule_IsValid(raw, kUsedCapsule) || PyCapsule_IsValid(raw, kUsedVersionedCapsule))
    throw Error("Tensor.from_dlpack: the DLPack capsule was already consumed (a capsule is used once)");
  if (!PyCapsule_IsValid(raw, kCapsule))
    throw Error("Tensor.from_dlpack: expected a \"dltensor\" or \"dltensor_versioned\" capsule");
  void* managed = PyCapsule_GetPointer(raw, kCapsule);
  PyCapsule_SetName(raw, kUsedCapsule);  // consumed: from_dlpack owns it, even when it throws
  return from_dlpack(managed);
}

py::capsule toCapsule(const Tensor& t) {
  void* managed = to_dlpack(t);
  return py::capsule(managed, kCapsule, &deleteUnusedCapsule);
}

/// The __dlpack__ protocol: a versioned capsule for consumers that ask for
/// DLPack 1.x (max_version >= (1, 0)), the legacy one otherwise.
py::capsule dlpackCapsule(const Tensor& t, py::object maxVersion) {
  if (!maxVersion.is_none() && py::len(maxVersion) >= 1 && maxVersion[py::int_(0)].cast<int>() >= 1)
    return py::capsule(to_dlpack_versioned(t), kVersionedCapsule, &deleteUnusedVersionedCapsule);
  return toCapsule(t);
}

std::vector<int64_t> toInts(py::handle seq, const char* what) {
  std::vector<int64_t> out;
  for (py::handle v : seq) {
    if (!PyLong_Check(v.ptr())) throw Error(std::string(what) + " must hold integers");
    out.push_back(v.cast<int64_t>());
  }
  return out;
}

}  // namespace

void bindTensors(py::module_& m) {
  py::class_<Device>(m, "Device")
      .def_static("interpreter", &Device::interpreter)
      .def_static("cuda", &Device::cuda, py::arg("ordinal") = 0)
      .def_static("default_device", &Device::default_device)
      .def_property_readonly("is_interpreter", &Device::is_interpreter)
      .def_property_readonly("name", &Device::name)
      .def_property_readonly("ordinal", &Device::ordinal)
      .def_property_readonly("arch", &Device::arch)
      .def_property_readonly("multiprocessor_count", &Device::multiprocessor_count)
      .def("synchronize", &Device::synchronize)
      .def("empty", [](Device& d, const std::string& dtype, py::sequence shape) {
             return d.empty(dtypeNamed(dtype), toInts(shape, "Device.empty: shape"));
           })
      .def("zeros", [](Device& d, const std::string& dtype, py::sequence shape) {
             return d.zeros(dtypeNamed(dtype), toInts(shape, "Device.zeros: shape"));
           })
      .def("upload", [](Device& d, py::bytes data, const std::string& dtype, py::sequence shape) {
             std::string_view bytes = data;
             DType t = dtypeNamed(dtype);
             std::vector<int64_t> s = toInts(shape, "Device.upload: shape");
             int64_t n = 1;
             for (int64_t e : s) n *= e;
             if (static_cast<size_t>(n) * dtype_size(t) != bytes.size())
               throw Error("Device.upload: " + std::to_string(bytes.size()) + " bytes for " + std::to_string(n) +
                           " elements of " + dtype);
             return d.upload(bytes.data(), t, std::move(s));
           })
      .def("__repr__", [](const Device& d) { return "<tessera.Device " + d.name() + ">"; })
      .def("__eq__", [](const Device& a, const Device& b) { return a.impl() == b.impl(); })
      .def("__hash__", [](const Device& d) { return std::hash<const void*>()(d.impl().get()); });

  py::class_<TensorDescriptor>(m, "TensorDescriptor")
      .def_static("make",
                  [](const Tensor& base, std::vector<int64_t> shape, std::vector<int64_t> strides,
                     std::vector<int64_t> block_shape, std::string padding, bool round_f32_to_tf32) {
                    return TensorDescriptor{base,  std::move(shape), std::move(strides), std::move(block_shape),
                                            std::move(padding), round_f32_to_tf32};
                  },
                  py::arg("base"), py::arg("shape"), py::arg("strides"), py::arg("block_shape"), py::arg("padding"),
                  py::arg("round_f32_to_tf32") = false);

  py::class_<Tensor>(m, "Tensor")
      .def_static(
          "from_blob",
          [](Device& device, uintptr_t ptr, const std::string& dtype, py::sequence shape, py::object strides,
             bool readOnly) {
            std::vector<int64_t> st;
            if (!strides.is_none()) st = toInts(strides, "Tensor.from_blob: strides");
            return Tensor::from_blob(device, reinterpret_cast<void*>(ptr), dtypeNamed(dtype),
                                     toInts(shape, "Tensor.from_blob: shape"), std::move(st), {}, readOnly);
          },
          py::arg("device"), py::arg("ptr"), py::arg("dtype"), py::arg("shape"), py::arg("strides") = py::none(),
          py::arg("read_only") = false)
      .def_static("from_dlpack", &fromCapsule)
      .def("to_dlpack", &toCapsule)
      .def("__dlpack__", [](const Tensor& t, py::kwargs kw) {
             return dlpackCapsule(t, kw.contains("max_version") ? py::object(kw["max_version"]) : py::object(py::none()));
           })
      .def_property_readonly("is_read_only", &Tensor::is_read_only)
      .def("__dlpack_device__",
           [](const Tensor& t) {
             // The device DLPack would name, read off a managed tensor made and dropped.
             auto* managed = static_cast<dlpack::ManagedTensor*>(to_dlpack(t));
             dlpack::Device d = managed->dl_tensor.device;
             if (managed->deleter) managed->deleter(managed);
             return py::make_tuple(d.device_type, d.device_id);
           })
      .def_property_readonly("dtype", [](const Tensor& t) { return std::string(dtype_name(t.dtype())); })
      .def_property_readonly("shape", [](const Tensor& t) { return py::tuple(py::cast(t.shape())); })
      .def("stride", [](const Tensor& t, py::object dim) -> py::object {
             if (dim.is_none()) return py::tuple(py::cast(t.strides()));
             return py::int_(t.stride(dim.cast<int>()));
           }, py::arg("dim") = py::none())
      .def("data_ptr", &Tensor::data_ptr)
      .def("numel", &Tensor::numel)
      .def_property_readonly("nbytes", &Tensor::nbytes)
      .def("is_contiguous", &Tensor::is_contiguous)
      .def("storage_offset", &Tensor::storage_offset)
      .def("slice", &Tensor::slice, py::arg("dim"), py::arg("start"), py::arg("stop"), py::arg("step") = 1)
      .def("transpose", &Tensor::transpose)
      .def("permute", &Tensor::permute)
      .def("reshape", &Tensor::reshape)
      .def("expand", &Tensor::expand)
      .def("contiguous", &Tensor::contiguous)
      .def("to_bytes", [](const Tensor& t) {
        std::vector<std::byte> b = t.download_bytes();
        return py::bytes(reinterpret_cast<const char*>(b.data()), b.size());
      })
      .def("__repr__", [](const Tensor& t) {
        std::string s = "<tessera.Tensor " + std::string(dtype_name(t.dtype())) + "[";
        for (size_t i = 0; i < t.shape().size(); ++i) s += (i ? ", " : "") + std::to_string(t.shape()[i]);
        return s + "]>";
      });
}

}  // namespace tessera::python
