//===- tessera/runtime/Driver.h - The CUDA driver, opened at run time -*- C++ -*-===//
//
// A thin, error-checked layer over the CUDA driver API. libcuda.so.1 is
// opened with dlopen on first use and its functions resolved by name (the
// `_v2` entry points), so Tessera builds without CUDA headers and a machine
// without a GPU gets a clear tessera::Error instead of a link failure
// (DESIGN.md decision 2).
//
// One CudaDevice per ordinal lives for the whole process; it retains the
// device's primary context (the one the CUDA runtime and PyTorch use, so
// pointers and streams interoperate) and makes it current on the calling
// thread before every call. Every failing CUresult becomes a tessera::Error
// with the driver's name and text for the code and what was being done;
// errors that a faulting kernel leaves behind (illegal address, trap, ...)
// also name the last kernel launched on that device, since such faults
// surface at the next synchronizing call, not at the launch.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "tessera/gpu/Target.h"

namespace tessera::runtime {

/// A device address (CUdeviceptr).
using DevicePtr = uint64_t;

/// True when libcuda.so.1 opens, cuInit succeeds and a device exists;
/// otherwise `why` (if given) says which step failed. Never throws.
bool cudaAvailable(std::string* why = nullptr);

/// Number of CUDA devices; throws tessera::Error without a usable driver.
int cudaDeviceCount();

/// Encodes a tiled TMA descriptor (cuTensorMapEncodeTiled: no swizzle or a
/// 32/64/128-byte one, zero or NaN fill, L2 promotion of 128 bytes) into
/// the 128 bytes at `out`, 64-byte aligned. `dims`, `box` (rank each) and
/// `strideBytes` (rank - 1) are innermost first. Returns "" or the
/// driver's error.
std::string encodeTiledTensorMap(void* out, int dataType, int rank, uint64_t base, const uint64_t* dims,
                                 const uint64_t* strideBytes, const uint32_t* box, int swizzleBytes, bool nanFill);

/// The target of device `ordinal` (as CudaDevice::target) without creating
/// its context. Throws tessera::Error like CudaDevice::get.
gpu::Target cudaDeviceTarget(int ordinal);
/// The device's own architecture, whatever TESSERA_CUDA_ARCH says: what
/// its SASS must be for.
gpu::Target cudaDeviceNativeTarget(int ordinal);

/// What a launch needs of a loaded kernel: plain values that stay valid as
/// long as the LoadedKernel they come from, so the warm launch memo keeps a
/// copy beside its other fields (one cache line less to reach at launch).
struct KernelHandle {
  void* function = nullptr;  ///< CUfunction
  const std::string* name = nullptr;  ///< interned: lives for the process
  /// Global scratch (TMA descriptors made on the device): each launch gets
  /// `globalScratchBytes` per program, its address in parameter
  /// `globalScratchParam`, the last one (launch() passes it; the caller's
  /// value for it is ignored).
  int64_t globalScratchBytes = 0;
  int globalScratchParam = -1;
  /// What the checks the compiler added to the kernel test (they trap
  /// when they fail), for the message of a fault; interned, or null.
  const std::string* checksNote = nullptr;
};

/// A kernel function loaded from a cubin into one device's context.
/// Unloads its module when destroyed.
struct LoadedKernel : KernelHandle {
  void* module = nullptr;    ///< CUmodule
  int ordinal = -1;
  LoadedKernel() = default;
  LoadedKernel(const LoadedKernel&) = delete;
  LoadedKernel& operator=(const LoadedKernel&) = delete;
  ~LoadedKernel();
};

/// What a launch asks of the driver beyond grid, block and parameters
/// (cuLaunchKernelEx's attributes).
struct LaunchAttributes {
  /// Programmatic dependent launch (LaunchOptions::launch_pdl): the launch
  /// may start before the previous kernel on its stream has finished; the
  /// kernel's griddepcontrol.wait (tl.extra.cuda.gdc_wait) waits for it.
  /// Ignored before sm_90, where the hardware has no such overlap.
  bool programmaticSerialization = false;
  /// A cooperative launch (LaunchOptions::launch_cooperative_grid): every
  /// program is resident at once, so programs may wait for each other; the
  /// driver refuses a grid that does not fit (COOPERATIVE_LAUNCH_TOO_LARGE).
  bool cooperative = false;
  /// Thread-block clusters of this many consecutive programs along grid x
  /// (LaunchOptions::num_ctas); sm_90+, and only when grid x is a multiple.
  unsigned clusterSize = 1;
};

class CudaDevice {
 public:
  /// The device `ordinal` (its primary context retained on first use).
  /// Throws tessera::Error without a driver, without devices, or for an
  /// ordinal out of range. The object lives until the process exits.
  static CudaDevice& get(int ordinal);

  int ordinal() const { return ordinal_; }
  /// The driver's name of the device, e.g. "NVIDIA H100 80GB HBM3".
  const std::string& name() const { return name_; }
  /// Compute capability as a target: sm_90a for 9.0 (arch-specific
  /// features are usable on the device itself), sm_80 for 8.0, ...
  gpu::Target target() const { return target_; }
  int multiprocessorCount() const { return multiprocessors_; }
  /// Largest shared memory one block may opt into (bytes).
  int maxSharedBytesPerBlock() const { return maxSharedOptin_; }
  int l2CacheBytes() const { return l2Bytes_; }

  /// Makes the primary context current on the calling thread (no-op when
  /// it already is).
  void makeCurrent();

  /// Device memory, stream-ordered on the default stream from the device's
  /// pool (see pool() in Driver.cpp): usable at once by the default stream,
  /// by synchronous copies and (frees wait for the device once other
  /// streams are in use) by work on any stream.
  DevicePtr allocate(size_t bytes);
  /// Frees (stream-ordered on the default stream when pooled); errors are
  /// ignored (called from destructors, also at exit).
  void release(DevicePtr ptr) noexcept;
  /// Device memory stream-ordered on `stream` (nullptr: as allocate(bytes)):
  /// usable at once by work on that stream; give it back with
  /// release(ptr, stream) once that stream's work with it is enqueued. No
  /// synchronization, so a launch being captured into a CUDA graph may use
  /// it (the allocation becomes a node of the graph).
  DevicePtr allocate(size_t bytes, void* stream);
  /// Frees stream-ordered on `stream`, behind the work enqueued there
  /// (nullptr: as release(ptr)); no synchronization.
  void release(DevicePtr ptr, void* stream) noexcept;
  void copyToDevice(DevicePtr dst, const void* src, size_t bytes);
  void copyToHost(void* dst, DevicePtr src, size_t bytes);
  /// Device-to-device copy (ordered with the default stream's work).
  void copyWithinDevice(DevicePtr dst, DevicePtr src, size_t bytes);
  /// Asynchronous device-to-device copy on `stream` (nullptr: the default stream).
  void copyWithinDeviceAsync(DevicePtr dst, DevicePtr src, size_t bytes, void* stream);
  void memset8(DevicePtr dst, uint8_t value, size_t bytes);
  /// Asynchronous memset on `stream` (nullptr: the default stream).
  void memset8Async(DevicePtr dst, uint8_t value, size_t bytes, void* stream);
  /// cuCtxSynchronize; a fault of an earlier kernel is reported naming the
  /// last kernel launched on this device.
  void synchronize();
  /// Waits for the work of `stream` only (cuStreamSynchronize; nullptr:
  /// the whole device, as synchronize()); faults reported the same way.
  void synchronize(void* stream);
  /// Whether `stream` (nullptr: the default stream) is being captured into
  /// a CUDA graph, where nothing may synchronize (cuStreamIsCapturing;
  /// false when the driver cannot tell).
  bool capturing(void* stream);
  /// A new non-blocking stream in capture mode (thread-local): launches on
  /// it are recorded, not run. Give it to endCapture.
  void* beginCapture();
  /// Ends the capture of `stream` (from beginCapture) and destroys the
  /// stream; returns the instantiated graph (a CUgraphExec) when `keep`,
  /// else discards what was recorded and returns nullptr.
  void* endCapture(void* stream, bool keep);
  /// Runs an instantiated graph on `stream` (nullptr: the default stream).
  void launchGraph(void* exec, void* stream);
  void destroyGraph(void* exec) noexcept;

  /// Loads `cubin` and looks up the entry `kernelName`. When the kernel
  /// needs more than 48 KiB of dynamic shared memory the function is allowed
  /// to use it (cuFuncSetAttribute); throws tessera::Error when the device
  /// has less than `staticSharedBytes + dynamicSharedBytes`.
  void loadKernel(LoadedKernel& out, const std::vector<char>& cubin, const std::string& kernelName,
                  int dynamicSharedBytes, int staticSharedBytes, const std::vector<std::string>& runtimeChecks = {});

  /// cuLaunchKernel. `params` points at one value per kernel parameter.
  /// A kernel with global scratch gets it allocated on `stream` for this
  /// launch (and freed behind it, stream-ordered); `params` is not written.
  /// With attributes, cuLaunchKernelEx.
  void launch(const KernelHandle& kernel, const int64_t grid[3], int blockThreads, int sharedBytes, void* stream,
              void** params, LaunchAttributes attributes = {});

  /// CUDA events (for timing).
  void* createEvent();
  void destroyEvent(void* event) noexcept;
  void recordEvent(void* event, void* stream);
  /// Milliseconds between two recorded events (waits for `end`).
  float elapsedMs(void* start, void* end);

  /// The last kernel launched on this device ("" before any launch).
  std::string lastKernel() const;

  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

 private:
  explicit CudaDevice(int ordinal);
  /// Throws an Error for a failing CUresult: "<what> on cuda:N: CUDA_ERROR_X (text)".
  void check(int result, const std::string& what, const std::string* kernel = nullptr);

  void* pool();

  // What every launch reads, on the object's first cache line: a launch
  // usually follows a driver call, which leaves little of the caller's data
  // in the caches.
  alignas(64) void* context_ = nullptr;  ///< CUcontext (primary)
  int (*ctxGetCurrent_)(void**) = nullptr;  ///< the driver's cuCtxGetCurrent
  int (*launchKernel_)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*, void**,
                       void**) = nullptr;  ///< the driver's cuLaunchKernel
  std::atomic<const std::string*> lastKernel_{nullptr};
  std::atomic<const std::string*> lastChecksNote_{nullptr};  ///< lastKernel_'s LoadedKernel::checksNote
  int capability_ = 0;  ///< target_.capability
  std::atomic<bool> userStreams_{false};  ///< a launch on a stream other than the default one happened

  int ordinal_ = 0;
  int device_ = 0;             ///< CUdevice
  std::once_flag poolOnce_;
  void* pool_ = nullptr;       ///< CUmemoryPool; nullptr: cuMemAlloc / cuMemFree
  std::string name_;
  gpu::Target target_;
  int multiprocessors_ = 0;
  int maxSharedOptin_ = 0;
  int l2Bytes_ = 0;
};

}  // namespace tessera::runtime
