//===- DLPack.cpp - from_dlpack / to_dlpack --------------------------------===//
//
// See tessera/dlpack.h. Imported memory becomes a TensorStorage that does
// not free it but calls the producer's deleter (CPU memory is registered
// with the interpreter's bounds checker like its own allocations); an
// exported tensor's DLManagedTensor holds a reference to the storage, its
// shape and its strides.
//
//===----------------------------------------------------------------------===//

#include "tessera/dlpack.h"

#include <memory>
#include <vector>

#include "Internal.h"

namespace tessera {

namespace {

/// Tessera dtypes and their DLPack (code, bits); lanes are always 1.
struct DTypeCode {
  DType dtype;
  uint8_t code, bits;
};
constexpr DTypeCode kDTypeCodes[] = {
    {DType::i1, 6, 8},   {DType::i8, 0, 8},   {DType::i16, 0, 16},  {DType::i32, 0, 32},  {DType::i64, 0, 64},
    {DType::u8, 1, 8},   {DType::u16, 1, 16}, {DType::u32, 1, 32},  {DType::u64, 1, 64},  {DType::fp16, 2, 16},
    {DType::bf16, 4, 16}, {DType::fp32, 2, 32}, {DType::fp64, 2, 64},
};

DType fromDataType(const dlpack::DataType& t) {
  if (t.lanes != 1) throw Error("from_dlpack: vector dtypes (lanes = " + std::to_string(t.lanes) + ") are not supported");
  for (const DTypeCode& c : kDTypeCodes)
    if (c.code == t.code && c.bits == t.bits) return c.dtype;
  throw Error("from_dlpack: the dtype (code " + std::to_string(t.code) + ", " + std::to_string(t.bits) +
              " bits) has no Tessera dtype");
}

dlpack::DataType toDataType(DType d) {
  for (const DTypeCode& c : kDTypeCodes)
    if (c.dtype == d) return {c.code, c.bits, 1};
  throw Error(std::string("to_dlpack: ") + dtype_name(d) + " has no DLPack dtype");
}

/// What an exported DLManagedTensor(Versioned) keeps alive.
template <class Managed>
struct Export {
  Managed managed;
  std::shared_ptr<detail::TensorStorage> storage;
  std::vector<int64_t> shape, strides;
};

/// The Tensor over a DLTensor whose producer's deleter `owner` runs when the
/// last view is gone.
Tensor importTensor(const dlpack::Tensor& t, std::shared_ptr<void> owner, bool readOnly) {
  DType dtype = fromDataType(t.dtype);
  if (t.ndim < 0) throw Error("from_dlpack: negative ndim");
  if (t.ndim > 0 && !t.shape) throw Error("from_dlpack: the tensor has no shape array");
  std::vector<int64_t> shape(t.shape, t.shape + t.ndim);
  try {
    detail::checkedNumel(shape, dtype);
  } catch (const Error& e) {
    throw Error(std::string("from_dlpack: ") + e.what());
  }
  std::vector<int64_t> strides;
  if (t.strides) {
    strides.assign(t.strides, t.strides + t.ndim);
    for (int d = 0; d < t.ndim; ++d)
      if (strides[d] < 0)
        throw Error("from_dlpack: dimension " + std::to_string(d) + " has a negative stride (" +
                    std::to_string(strides[d]) + "); Tessera tensors take strides >= 0");
  } else {
    strides.assign(shape.size(), 1);
    for (int d = t.ndim - 2; d >= 0; --d) strides[d] = strides[d + 1] * shape[d + 1];
  }
  // The storage is the span the elements reach, from the first one.
  void* data = static_cast<char*>(t.data) + t.byte_offset;
  size_t bytes = static_cast<size_t>(detail::spanElements(shape, strides)) * dtype_size(dtype);
  std::shared_ptr<detail::TensorStorage> storage;
  auto release = [owner]() mutable { owner.reset(); };
  if (t.device.device_type == 1) {
    storage = std::make_shared<detail::TensorStorage>(detail::DeviceKind::Interpreter, data, bytes, nullptr, release);
  } else if (t.device.device_type == 2) {
    runtime::CudaDevice& cuda = runtime::CudaDevice::get(t.device.device_id);
    storage = std::make_shared<detail::TensorStorage>(detail::DeviceKind::Cuda, data, bytes, &cuda, release);
  } else {
    throw Error("from_dlpack: device type " + std::to_string(t.device.device_type) +
                " is neither CPU (1) nor CUDA (2)");
  }
  storage->readOnly = readOnly;
  return Tensor(std::move(storage), dtype, std::move(shape), std::move(strides), 0);
}

/// Fills `t` to describe `tensor` (shape and strides point into `shape`,
/// `strides`, which the export keeps).
void describe(const Tensor& tensor, const detail::TensorStorage& storage, std::vector<int64_t>& shape,
              std::vector<int64_t>& strides, dlpack::Tensor& t) {
  shape = tensor.shape();
  strides = tensor.strides();
  t.data = reinterpret_cast<void*>(tensor.data_ptr());  // a view's first element
  t.device = storage.kind == detail::DeviceKind::Cuda ? dlpack::Device{2, storage.cuda->ordinal()}
                                                       : dlpack::Device{1, 0};
  t.ndim = static_cast<int32_t>(shape.size());
  t.dtype = toDataType(tensor.dtype());
  t.shape = shape.data();
  t.strides = strides.data();
  t.byte_offset = 0;
}

}  // namespace

Tensor from_dlpack(void* dl_managed_tensor) {
  auto* m = static_cast<dlpack::ManagedTensor*>(dl_managed_tensor);
  if (!m) throw Error("from_dlpack: null DLManagedTensor");
  // Owned from here on, whatever happens below.
  std::shared_ptr<void> owner(m, [](void* p) {
    auto* managed = static_cast<dlpack::ManagedTensor*>(p);
    if (managed->deleter) managed->deleter(managed);
  });
  return importTensor(m->dl_tensor, std::move(owner), false);
}

Tensor from_dlpack_versioned(void* dl_managed_tensor_versioned) {
  auto* m = static_cast<dlpack::ManagedTensorVersioned*>(dl_managed_tensor_versioned);
  if (!m) throw Error("from_dlpack: null DLManagedTensorVersioned");
  std::shared_ptr<void> owner(m, [](void* p) {
    auto* managed = static_cast<dlpack::ManagedTensorVersioned*>(p);
    if (managed->deleter) managed->deleter(managed);
  });
  if (m->version.major != dlpack::kVersion.major)
    throw Error("from_dlpack: DLPack " + std::to_string(m->version.major) + "." + std::to_string(m->version.minor) +
                " tensor; Tessera reads DLPack 1.x");
  return importTensor(m->dl_tensor, std::move(owner), (m->flags & dlpack::kFlagReadOnly) != 0);
}

void* to_dlpack(const Tensor& tensor) {
  if (!tensor.defined()) throw Error("to_dlpack: undefined tensor");
  using E = Export<dlpack::ManagedTensor>;
  auto e = std::make_unique<E>();
  e->storage = tensor.storage();
  describe(tensor, *e->storage, e->shape, e->strides, e->managed.dl_tensor);
  e->managed.manager_ctx = e.get();
  e->managed.deleter = [](dlpack::ManagedTensor* self) { delete static_cast<E*>(self->manager_ctx); };
  return &e.release()->managed;
}

void* to_dlpack_versioned(const Tensor& tensor) {
  if (!tensor.defined()) throw Error("to_dlpack: undefined tensor");
  using E = Export<dlpack::ManagedTensorVersioned>;
  auto e = std::make_unique<E>();
  e->storage = tensor.storage();
  describe(tensor, *e->storage, e->shape, e->strides, e->managed.dl_tensor);
  e->managed.version = dlpack::kVersion;
  e->managed.flags = tensor.is_read_only() ? dlpack::kFlagReadOnly : 0;
  e->managed.manager_ctx = e.get();
  e->managed.deleter = [](dlpack::ManagedTensorVersioned* self) { delete static_cast<E*>(self->manager_ctx); };
  return &e.release()->managed;
}

}  // namespace tessera
