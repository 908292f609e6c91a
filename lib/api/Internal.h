//===- Internal.h - Shared state behind the public API ----------*- C++ -*-===//
//
// The pimpl structs of tessera.h. Kept in one header so Tensor, Device,
// Program and Kernel can see each other's internals; users never include it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "tessera/frontend/Frontend.h"
#include "tessera/runtime/Driver.h"
#include "tessera/tessera.h"

namespace tessera::detail {

enum class DeviceKind { Interpreter, Cuda };

struct DeviceImpl {
  DeviceKind kind = DeviceKind::Interpreter;
  int ordinal = 0;
  runtime::CudaDevice* cuda = nullptr;  ///< Cuda kind: the driver's device (lives until exit)
};

/// One allocation. For the interpreter: 64-byte aligned host memory
/// registered with the interpreter's bounds checker. For CUDA: device memory
/// (cuMemAlloc); `data` holds the CUdeviceptr.
struct TensorStorage {
  DeviceKind kind = DeviceKind::Interpreter;
  void* data = nullptr;
  size_t bytes = 0;
  runtime::CudaDevice* cuda = nullptr;  ///< Cuda kind: where the memory lives
  /// Interpreter memory (kind must be DeviceKind::Interpreter).
  TensorStorage(DeviceKind kind, size_t bytes);
  /// Device memory on `device`.
  TensorStorage(runtime::CudaDevice& device, size_t bytes);
  ~TensorStorage();
  runtime::DevicePtr devicePtr() const { return reinterpret_cast<runtime::DevicePtr>(data); }
  TensorStorage(const TensorStorage&) = delete;
  TensorStorage& operator=(const TensorStorage&) = delete;
};

struct CompiledKernelImpl;

/// The compiled specializations of one kernel (DESIGN.md §8, in memory),
/// keyed by detail::specializationKey.
struct KernelCache {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<CompiledKernelImpl>> entries;
};

struct ProgramImpl {
  std::shared_ptr<frontend::SourceProgram> source;
  /// One cache per kernel name, shared by every Kernel handle of the program
  /// (kernels point at their program, never the other way round).
  std::mutex cachesMutex;
  std::map<std::string, std::shared_ptr<KernelCache>, std::less<>> caches;
};

/// A compiled specialization: the optimized Tile IR and how to pass args.
struct CompiledKernelImpl {
  std::string name;
  std::shared_ptr<ir::Module> module;
  std::vector<int> argToParam;
  std::string ttir;  ///< printed once at compile time
  int numWarps = 4;
  int numStages = 3;
};

struct KernelImpl {
  std::shared_ptr<ProgramImpl> program;
  const frontend::JitFunction* fn = nullptr;
  std::shared_ptr<KernelCache> cache;
};

/// Frontend DType spelling for pointer/scalar signatures ("fp32", "i32", ...).
const char* signatureName(DType dtype);

}  // namespace tessera::detail
