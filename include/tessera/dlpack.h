//===- tessera/dlpack.h - Tensors shared with PyTorch, CuPy, JAX -*- C++ -*-===//
//
// DLPack (the ABI of dlpack.h's DLManagedTensor and, since DLPack 1.0,
// DLManagedTensorVersioned) without copies: a tensor
// another framework exported becomes a tessera::Tensor over the same memory,
// and a tessera::Tensor can be exported to it. The structs below follow the
// DLPack ABI so that no dlpack.h is needed; a DLManagedTensor* from any
// dlpack.h is passed as void*.
//
//   // PyTorch C++: at::toDLPack(t) gives a DLManagedTensor*
//   tessera::Tensor x = tessera::from_dlpack(at::toDLPack(t));
//   void* back = tessera::to_dlpack(y);   // at::fromDLPack((DLManagedTensor*)back)
//
// Supported: CPU memory (a tensor of the interpreter) and CUDA device memory
// (a tensor of Device::cuda(device_id)); any non-negative strides (views,
// transposes, expanded dimensions), in and out; the int, uint, float,
// bfloat and bool dtypes Tessera has. Anything else is a tessera::Error
// saying what.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

#include "tessera/tessera.h"

#include "tessera/Export.h"

TESSERA_API_BEGIN
namespace tessera {

namespace dlpack {
struct Device {
  int32_t device_type;  ///< 1: CPU, 2: CUDA
  int32_t device_id;
};
struct DataType {
  uint8_t code;  ///< 0: int, 1: uint, 2: float, 4: bfloat, 6: bool
  uint8_t bits;
  uint16_t lanes;
};
struct Tensor {
  void* data;
  Device device;
  int32_t ndim;
  DataType dtype;
  int64_t* shape;
  int64_t* strides;  ///< in elements; null: row-major contiguous
  uint64_t byte_offset;
};
struct ManagedTensor {
  Tensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(ManagedTensor* self);
};
/// DLPack 1.x (DLManagedTensorVersioned): a version first, flags, and the
/// tensor last.
struct Version {
  uint32_t major;
  uint32_t minor;
};
struct ManagedTensorVersioned {
  Version version;
  void* manager_ctx;
  void (*deleter)(ManagedTensorVersioned* self);
  uint64_t flags;
  Tensor dl_tensor;
};
constexpr uint64_t kFlagReadOnly = 1;  ///< the consumer must not write the memory
constexpr uint64_t kFlagIsCopied = 2;  ///< the producer copied the data for this export
/// The DLPack version the versioned structs follow.
constexpr Version kVersion = {1, 0};
}  // namespace dlpack

/// A Tensor over the memory of `dl_managed_tensor` (a DLManagedTensor*),
/// which it owns from here on: its deleter runs when the last Tensor sharing
/// the memory is gone (also when this throws).
tessera::Tensor from_dlpack(void* dl_managed_tensor);

/// A DLManagedTensor* over `tensor`'s memory, which stays alive until the
/// consumer calls its deleter (exactly once).
void* to_dlpack(const tessera::Tensor& tensor);

/// DLPack 1.x: a Tensor over a DLManagedTensorVersioned*, owned from here on
/// like from_dlpack's. A major version other than 1 is an Error (its layout
/// may differ; the deleter still runs). With the read-only flag the Tensor
/// is_read_only(): launches refuse to pass it where a kernel may store.
tessera::Tensor from_dlpack_versioned(void* dl_managed_tensor_versioned);

/// A DLManagedTensorVersioned* (version 1.0; the read-only flag set for a
/// read-only tensor) over `tensor`'s memory, alive until its deleter runs.
void* to_dlpack_versioned(const tessera::Tensor& tensor);

}  // namespace tessera
TESSERA_API_END
