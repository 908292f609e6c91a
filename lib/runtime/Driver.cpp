//===- Driver.cpp - The CUDA driver API through dlopen --------------------===//
//
// Resolves the driver entry points from libcuda.so.1 by name (declaring the
// few types we need ourselves: no cuda.h), retains each device's primary
// context and turns every failing CUresult into a tessera::Error that says
// what was being done, on which device, and, for faults a kernel leaves
// behind, which kernel ran last. See tessera/runtime/Driver.h.
//
//===----------------------------------------------------------------------===//

#include "tessera/runtime/Driver.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>

#include "runtime/DynamicLibrary.h"
#include "tessera/support/Hot.h"
#include "tessera/Error.h"
#include "tessera/support/Env.h"

namespace tessera::runtime {
namespace {

// The driver API's types, as the ABI defines them.
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = void*;
using CUmodule = void*;
using CUfunction = void*;
using CUstream = void*;
using CUevent = void*;

constexpr CUresult kSuccess = 0;
constexpr CUresult kErrorNotReady = 600;
// Device attributes (CUdevice_attribute).
constexpr int kAttrMultiprocessorCount = 16;
constexpr int kAttrL2CacheSize = 38;
constexpr int kAttrCapabilityMajor = 75;
constexpr int kAttrCapabilityMinor = 76;
constexpr int kAttrMaxSharedPerBlockOptin = 97;
// Function attributes (CUfunction_attribute).
constexpr int kFuncAttrMaxDynamicShared = 8;
// Event flags.
constexpr unsigned kEventDefault = 0;

// cuLaunchKernelEx's configuration (CUlaunchConfig, CUlaunchAttribute).
constexpr unsigned kLaunchAttrCooperative = 2;
constexpr unsigned kLaunchAttrClusterDimension = 4;
constexpr unsigned kLaunchAttrProgrammaticStreamSerialization = 6;
struct CUlaunchAttribute {
  unsigned id;
  char pad[4];
  alignas(8) char value[64];  ///< CUlaunchAttributeValue
};
static_assert(sizeof(CUlaunchAttribute) == 72, "CUlaunchAttribute's ABI");
struct CUlaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute* attrs;
  unsigned numAttrs;
};

/// The entry points Tessera uses, resolved once.
struct DriverApi {
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuDriverGetVersion)(int*) = nullptr;
  CUresult (*cuGetErrorName)(CUresult, const char**) = nullptr;
  CUresult (*cuGetErrorString)(CUresult, const char**) = nullptr;
  CUresult (*cuDeviceGetCount)(int*) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice*, int) = nullptr;
  CUresult (*cuDeviceGetName)(char*, int, CUdevice) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*cuCtxGetCurrent)(CUcontext*) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr) = nullptr;
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t) = nullptr;
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t) = nullptr;
  CUresult (*cuMemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t) = nullptr;
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream) = nullptr;
  CUresult (*cuStreamSynchronize)(CUstream) = nullptr;
  CUresult (*cuStreamIsCapturing)(CUstream, int*) = nullptr;  // optional (CUDA 10+)
  CUresult (*cuThreadExchangeStreamCaptureMode)(int*) = nullptr;  // optional (CUDA 10.1+)
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t) = nullptr;
  CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream) = nullptr;
  CUresult (*cuModuleLoadData)(CUmodule*, const void*) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*) = nullptr;
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             CUstream, void**, void**) = nullptr;
  // Launches with attributes (CUDA 12.0+), optional.
  CUresult (*cuLaunchKernelEx)(const CUlaunchConfig*, CUfunction, void**, void**) = nullptr;
  CUresult (*cuEventCreate)(CUevent*, unsigned) = nullptr;
  CUresult (*cuEventDestroy)(CUevent) = nullptr;
  CUresult (*cuEventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent) = nullptr;
  // Stream-ordered allocation (CUDA 11.2+), optional: without them tensors
  // use cuMemAlloc / cuMemFree.
  CUresult (*cuMemPoolCreate)(void**, const void*) = nullptr;
  CUresult (*cuMemPoolSetAttribute)(void*, int, void*) = nullptr;
  CUresult (*cuMemAllocFromPoolAsync)(CUdeviceptr*, size_t, void*, CUstream) = nullptr;
  CUresult (*cuMemFreeAsync)(CUdeviceptr, CUstream) = nullptr;
  CUresult (*cuMemPoolTrimTo)(void*, size_t) = nullptr;
  // Host-encoded TMA descriptors (CUDA 12.0+), optional.
  CUresult (*cuTensorMapEncodeTiled)(void*, int, unsigned, void*, const uint64_t*, const uint64_t*, const unsigned*,
                                     const unsigned*, int, int, int, int) = nullptr;
  // Stream capture into graphs (CUDA 10+ / 11.4+), optional: Graph needs them.
  CUresult (*cuStreamCreate)(CUstream*, unsigned) = nullptr;
  CUresult (*cuStreamDestroy)(CUstream) = nullptr;
  CUresult (*cuStreamBeginCapture)(CUstream, int) = nullptr;
  CUresult (*cuStreamEndCapture)(CUstream, void**) = nullptr;
  CUresult (*cuGraphInstantiateWithFlags)(void**, void*, unsigned long long) = nullptr;
  CUresult (*cuGraphLaunch)(void*, CUstream) = nullptr;
  CUresult (*cuGraphExecDestroy)(void*) = nullptr;
  CUresult (*cuGraphDestroy)(void*) = nullptr;

  std::string error;  ///< why the driver is unusable ("" when usable)
  int deviceCount = 0;
};

const char* kNoDriverHint = "; use Device::interpreter() or TESSERA_INTERPRET=1";

/// Opens and initialises the driver once per process (never closed).
TESSERA_HOT const DriverApi& driverApi() {
  static const DriverApi* api = [] {
    auto* a = new DriverApi();
    static DynamicLibrary lib({"libcuda.so.1"});
    if (!lib.isOpen()) {
      a->error = "no CUDA driver: libcuda.so.1 could not be opened (" + lib.error() + ")" + kNoDriverHint;
      return a;
    }
    struct Entry {
      const char* name;
      void** slot;
    };
    auto slot = [](auto& fn) { return reinterpret_cast<void**>(&fn); };
    const Entry required[] = {
        {"cuInit", slot(a->cuInit)},
        {"cuDriverGetVersion", slot(a->cuDriverGetVersion)},
        {"cuGetErrorName", slot(a->cuGetErrorName)},
        {"cuGetErrorString", slot(a->cuGetErrorString)},
        {"cuDeviceGetCount", slot(a->cuDeviceGetCount)},
        {"cuDeviceGet", slot(a->cuDeviceGet)},
        {"cuDeviceGetName", slot(a->cuDeviceGetName)},
        {"cuDeviceGetAttribute", slot(a->cuDeviceGetAttribute)},
        {"cuDevicePrimaryCtxRetain", slot(a->cuDevicePrimaryCtxRetain)},
        {"cuCtxGetCurrent", slot(a->cuCtxGetCurrent)},
        {"cuCtxSetCurrent", slot(a->cuCtxSetCurrent)},
        {"cuCtxSynchronize", slot(a->cuCtxSynchronize)},
        {"cuMemAlloc_v2", slot(a->cuMemAlloc)},
        {"cuMemFree_v2", slot(a->cuMemFree)},
        {"cuMemcpyHtoD_v2", slot(a->cuMemcpyHtoD)},
        {"cuMemcpyDtoD_v2", slot(a->cuMemcpyDtoD)},
        {"cuMemcpyDtoDAsync_v2", slot(a->cuMemcpyDtoDAsync)},
        {"cuStreamSynchronize", slot(a->cuStreamSynchronize)},
        {"cuMemcpyDtoH_v2", slot(a->cuMemcpyDtoH)},
        {"cuMemsetD8_v2", slot(a->cuMemsetD8)},
        {"cuMemsetD8Async", slot(a->cuMemsetD8Async)},
        {"cuModuleLoadData", slot(a->cuModuleLoadData)},
        {"cuModuleUnload", slot(a->cuModuleUnload)},
        {"cuModuleGetFunction", slot(a->cuModuleGetFunction)},
        {"cuFuncSetAttribute", slot(a->cuFuncSetAttribute)},
        {"cuLaunchKernel", slot(a->cuLaunchKernel)},
        {"cuEventCreate", slot(a->cuEventCreate)},
        {"cuEventDestroy_v2", slot(a->cuEventDestroy)},
        {"cuEventRecord", slot(a->cuEventRecord)},
        {"cuEventElapsedTime", slot(a->cuEventElapsedTime)},
    };
    for (const Entry& e : required) {
      *e.slot = lib.symbol(e.name);
      if (!*e.slot) {
        a->error = std::string("the CUDA driver (") + lib.path() + ") lacks " + e.name +
                   " (driver too old?)" + kNoDriverHint;
        return a;
      }
    }
    for (const Entry& e : {Entry{"cuMemPoolCreate", slot(a->cuMemPoolCreate)},
                           Entry{"cuMemPoolSetAttribute", slot(a->cuMemPoolSetAttribute)},
                           Entry{"cuMemAllocFromPoolAsync", slot(a->cuMemAllocFromPoolAsync)},
                           Entry{"cuMemFreeAsync", slot(a->cuMemFreeAsync)},
                           Entry{"cuMemPoolTrimTo", slot(a->cuMemPoolTrimTo)},
                           Entry{"cuStreamIsCapturing", slot(a->cuStreamIsCapturing)},
                           Entry{"cuThreadExchangeStreamCaptureMode", slot(a->cuThreadExchangeStreamCaptureMode)},
                           Entry{"cuTensorMapEncodeTiled", slot(a->cuTensorMapEncodeTiled)},
                           Entry{"cuLaunchKernelEx", slot(a->cuLaunchKernelEx)},
                           Entry{"cuStreamCreate", slot(a->cuStreamCreate)},
                           Entry{"cuStreamDestroy_v2", slot(a->cuStreamDestroy)},
                           Entry{"cuStreamBeginCapture_v2", slot(a->cuStreamBeginCapture)},
                           Entry{"cuStreamEndCapture", slot(a->cuStreamEndCapture)},
                           Entry{"cuGraphInstantiateWithFlags", slot(a->cuGraphInstantiateWithFlags)},
                           Entry{"cuGraphLaunch", slot(a->cuGraphLaunch)},
                           Entry{"cuGraphExecDestroy", slot(a->cuGraphExecDestroy)},
                           Entry{"cuGraphDestroy", slot(a->cuGraphDestroy)}})
      *e.slot = lib.symbol(e.name);
    // CUDA 12.8+ has cuEventElapsedTime_v2 (same signature); prefer it.
    if (void* v2 = lib.symbol("cuEventElapsedTime_v2")) *slot(a->cuEventElapsedTime) = v2;

    CUresult r = a->cuInit(0);
    if (r != kSuccess) {
      const char* name = nullptr;
      const char* text = nullptr;
      a->cuGetErrorName(r, &name);
      a->cuGetErrorString(r, &text);
      a->error = std::string("CUDA driver initialisation (cuInit) failed: ") + (name ? name : "?") + " (" +
                 (text ? text : "unknown error") + ")" + kNoDriverHint;
      return a;
    }
    if (a->cuDeviceGetCount(&a->deviceCount) != kSuccess || a->deviceCount == 0)
      a->error = std::string("the CUDA driver reports no GPU") + kNoDriverHint;
    return a;
  }();
  return *api;
}

const DriverApi& usableDriver() {
  const DriverApi& api = driverApi();
  if (!api.error.empty()) throw Error(api.error);
  return api;
}

std::string describe(CUresult r) {
  const DriverApi& api = driverApi();
  const char* name = nullptr;
  const char* text = nullptr;
  if (api.cuGetErrorName) api.cuGetErrorName(r, &name);
  if (api.cuGetErrorString) api.cuGetErrorString(r, &text);
  return std::string(name ? name : "CUDA error " + std::to_string(r)) + " (" + (text ? text : "unknown error") + ")";
}

/// Errors a faulting kernel leaves in the context; they surface at the next
/// synchronizing call and make the context unusable.
bool isKernelFault(CUresult r) {
  switch (r) {
    case 700:  // ILLEGAL_ADDRESS
    case 702:  // LAUNCH_TIMEOUT
    case 710:  // ASSERT
    case 714:  // HARDWARE_STACK_ERROR
    case 715:  // ILLEGAL_INSTRUCTION
    case 716:  // MISALIGNED_ADDRESS
    case 717:  // INVALID_ADDRESS_SPACE
    case 718:  // INVALID_PC
    case 719:  // LAUNCH_FAILED
      return true;
    default:
      return false;
  }
}

/// Interned kernel names (and checks notes): LoadedKernel and lastKernel_
/// point into this set, so a launch records its kernel with one atomic store.
const std::string* internName(const std::string& name) {
  static std::mutex mutex;
  static auto* names = new std::set<std::string>();
  std::lock_guard<std::mutex> lock(mutex);
  return &*names->insert(name).first;
}

}  // namespace

bool cudaAvailable(std::string* why) {
  const DriverApi& api = driverApi();
  if (why) *why = api.error;
  return api.error.empty();
}

int cudaDeviceCount() { return usableDriver().deviceCount; }

std::string encodeTiledTensorMap(void* out, int dataType, int rank, uint64_t base, const uint64_t* dims,
                                 const uint64_t* strideBytes, const uint32_t* box, int swizzleBytes, bool nanFill) {
  const DriverApi& api = usableDriver();
  if (!api.cuTensorMapEncodeTiled) return "the CUDA driver lacks cuTensorMapEncodeTiled (driver too old?)";
  const unsigned elementStrides[5] = {1, 1, 1, 1, 1};
  int swizzle = swizzleBytes == 128 ? 3 : swizzleBytes == 64 ? 2 : swizzleBytes == 32 ? 1 : 0;
  constexpr int kInterleaveNone = 0, kL2Promotion128B = 2;
  CUresult r = api.cuTensorMapEncodeTiled(out, dataType, static_cast<unsigned>(rank), reinterpret_cast<void*>(base),
                                          dims, strideBytes, box, elementStrides, kInterleaveNone, swizzle,
                                          kL2Promotion128B, nanFill ? 1 : 0);
  return r == kSuccess ? "" : describe(r);
}

namespace {

void checkOrdinal(const DriverApi& api, int ordinal) {
  if (ordinal < 0 || ordinal >= api.deviceCount)
    throw Error("Device::cuda(" + std::to_string(ordinal) + "): no such device (this machine has " +
                std::to_string(api.deviceCount) + " CUDA device" + (api.deviceCount == 1 ? "" : "s") + ")");
}

/// sm_XY from the compute capability; "a" (wgmma, setmaxnreg) from 9.0 on:
/// a cubin for sm_90a runs only on 9.0, the very device we compile for.
/// The architecture of a device of compute capability major.minor.
gpu::Target nativeTargetOf(int major, int minor) {
  gpu::Target t;
  t.capability = major * 10 + minor;
  t.archSpecific = t.capability >= 90;
  return t;
}

/// The target kernels are compiled for on a device of compute capability
/// major.minor: its own (sm_90a on an H100), or TESSERA_CUDA_ARCH when that
/// names an older one the device also runs (sm_80 on an H100 runs the
/// mma.sync code of the same kernels: how that path is tested there).
gpu::Target targetOf(int major, int minor) {
  gpu::Target t = nativeTargetOf(major, minor);
  std::optional<std::string> forced = env::text("TESSERA_CUDA_ARCH");
  if (!forced) return t;
  gpu::Target f = gpu::Target::parse(*forced);
  if (f.capability > t.capability || (f.archSpecific && f.capability != t.capability))
    throw Error("TESSERA_CUDA_ARCH=" + *forced + ": a device of compute capability " +
                std::to_string(major) + "." + std::to_string(minor) + " cannot run code for it (its own is " +
                t.name() + ")");
  return f;
}

}  // namespace

namespace {

std::pair<int, int> capabilityOf(int ordinal) {
  const DriverApi& api = usableDriver();
  checkOrdinal(api, ordinal);
  CUdevice device = 0;
  int major = 0, minor = 0;
  if (api.cuDeviceGet(&device, ordinal) != kSuccess ||
      api.cuDeviceGetAttribute(&major, kAttrCapabilityMajor, device) != kSuccess ||
      api.cuDeviceGetAttribute(&minor, kAttrCapabilityMinor, device) != kSuccess)
    throw Error("cuda:" + std::to_string(ordinal) + ": cannot read the compute capability");
  return {major, minor};
}

}  // namespace

gpu::Target cudaDeviceTarget(int ordinal) {
  auto [major, minor] = capabilityOf(ordinal);
  return targetOf(major, minor);
}

gpu::Target cudaDeviceNativeTarget(int ordinal) {
  auto [major, minor] = capabilityOf(ordinal);
  return nativeTargetOf(major, minor);
}

//===----------------------------------------------------------------------===//
// CudaDevice
//===----------------------------------------------------------------------===//

CudaDevice& CudaDevice::get(int ordinal) {
  const DriverApi& api = usableDriver();
  checkOrdinal(api, ordinal);
  static std::mutex mutex;
  static auto* devices = new std::vector<CudaDevice*>(api.deviceCount, nullptr);
  std::lock_guard<std::mutex> lock(mutex);
  CudaDevice*& d = (*devices)[ordinal];
  if (!d) d = new CudaDevice(ordinal);  // lives until exit: tensors may be freed during static destruction
  return *d;
}

CudaDevice::CudaDevice(int ordinal) : ordinal_(ordinal) {
  const DriverApi& api = usableDriver();
  check(api.cuDeviceGet(&device_, ordinal), "getting the device handle");
  char name[256] = {0};
  check(api.cuDeviceGetName(name, sizeof(name) - 1, device_), "reading the device name");
  name_ = name;
  int major = 0, minor = 0;
  check(api.cuDeviceGetAttribute(&major, kAttrCapabilityMajor, device_), "reading the compute capability");
  check(api.cuDeviceGetAttribute(&minor, kAttrCapabilityMinor, device_), "reading the compute capability");
  target_ = targetOf(major, minor);
  check(api.cuDeviceGetAttribute(&multiprocessors_, kAttrMultiprocessorCount, device_), "reading the SM count");
  check(api.cuDeviceGetAttribute(&maxSharedOptin_, kAttrMaxSharedPerBlockOptin, device_),
        "reading the shared memory limit");
  check(api.cuDeviceGetAttribute(&l2Bytes_, kAttrL2CacheSize, device_), "reading the L2 cache size");
  check(api.cuDevicePrimaryCtxRetain(&context_, device_), "retaining the primary context");
  capability_ = target_.capability;
  ctxGetCurrent_ = api.cuCtxGetCurrent;
  launchKernel_ = api.cuLaunchKernel;
}

void CudaDevice::check(int result, const std::string& what, const std::string* kernel) {
  if (result == kSuccess) return;
  std::string msg = what + " on cuda:" + std::to_string(ordinal_) + ": " + describe(result);
  if (kernel) msg = "kernel '" + *kernel + "': " + msg;
  if (isKernelFault(result)) {
    const std::string* last = lastKernel_.load(std::memory_order_relaxed);
    if (!kernel && last)
      msg += "\nnote: a kernel fault is reported by the next synchronizing call; the last kernel launched on cuda:" +
             std::to_string(ordinal_) + " was '" + *last + "'";
    if (const std::string* note = lastChecksNote_.load(std::memory_order_relaxed)) msg += *note;
    msg += "\nnote: the CUDA context is unusable after this error; restart the process to use the GPU again";
  }
  throw Error(msg);
}

TESSERA_HOT void CudaDevice::makeCurrent() {
  CUcontext current = nullptr;
  if (ctxGetCurrent_(&current) == kSuccess && current == context_) return;
  check(driverApi().cuCtxSetCurrent(context_), "making the primary context current");
}

/// The device's memory pool for tensors: stream-ordered allocations on the
/// default (legacy) stream from a pool of Tessera's own that keeps freed
/// memory for reuse (release threshold: unlimited; trimmed when an
/// allocation fails), so allocating and freeing tensors neither
/// synchronizes the device (cuMemFree does) nor returns to the driver each
/// time: what PyTorch's caching allocator gives its users. Once work has
/// been launched on a stream of the user's (which the default stream does
/// not order: non-blocking streams), a free first waits for the device, as
/// cuMemFree did, so no kernel on any stream still uses memory the pool
/// hands out again. nullptr when the driver lacks the pool API or
/// TESSERA_CUDA_ALLOCATOR=plain asks for cuMemAlloc / cuMemFree.
void* CudaDevice::pool() {
  std::call_once(poolOnce_, [this] {
    const DriverApi& api = driverApi();
    if (env::choice("TESSERA_CUDA_ALLOCATOR", "pool") == "plain") return;
    if (!api.cuMemPoolCreate || !api.cuMemPoolSetAttribute || !api.cuMemAllocFromPoolAsync || !api.cuMemFreeAsync ||
        !api.cuMemPoolTrimTo)
      return;
    // CUmemPoolProps: allocType (1: pinned device memory), handleTypes
    // (0: none), location {type 1: device, id: the ordinal}; the rest
    // (win32 attributes, maxSize, usage, reserved: 72 bytes) zero.
    struct alignas(8) {
      int allocType = 1, handleTypes = 0, locationType = 1, locationId = 0;
      unsigned char rest[72] = {};
    } props;
    props.locationId = ordinal_;
    void* created = nullptr;
    if (api.cuMemPoolCreate(&created, &props) != kSuccess) return;
    uint64_t keepAll = ~uint64_t(0);
    constexpr int kReleaseThreshold = 4;  // CU_MEMPOOL_ATTR_RELEASE_THRESHOLD
    api.cuMemPoolSetAttribute(created, kReleaseThreshold, &keepAll);
    pool_ = created;
  });
  return pool_;
}

DevicePtr CudaDevice::allocate(size_t bytes) { return allocate(bytes, nullptr); }

DevicePtr CudaDevice::allocate(size_t bytes, void* stream) {
  makeCurrent();
  CUdeviceptr ptr = 0;
  // cuMemAlloc rejects 0 bytes; an empty tensor still gets a distinct address.
  size_t size = bytes ? bytes : 1;
  if (void* p = pool()) {
    const DriverApi& api = driverApi();
    CUresult r = api.cuMemAllocFromPoolAsync(&ptr, size, p, stream);
    // Out of memory: give the pool's cached memory back to the driver and
    // try once more (not while capturing, where waiting is not allowed).
    if (r != kSuccess && !capturing(stream)) {
      api.cuCtxSynchronize();
      api.cuMemPoolTrimTo(p, 0);
      r = api.cuMemAllocFromPoolAsync(&ptr, size, p, stream);
    }
    check(r, "allocating " + std::to_string(bytes) + " bytes of device memory");
  } else {
    check(driverApi().cuMemAlloc(&ptr, size), "allocating " + std::to_string(bytes) + " bytes of device memory");
  }
  return ptr;
}

void CudaDevice::release(DevicePtr ptr) noexcept { release(ptr, nullptr); }

void CudaDevice::release(DevicePtr ptr, void* stream) noexcept {
  const DriverApi& api = driverApi();
  CUcontext current = nullptr;
  if (api.cuCtxGetCurrent(&current) != kSuccess || current != context_) api.cuCtxSetCurrent(context_);
  if (!pool_) {
    api.cuMemFree(ptr);
    return;
  }
  // On the default stream, once other streams are in use, the free waits
  // for the device (see pool()); on a stream it is ordered behind that
  // stream's work.
  if (!stream && userStreams_.load(std::memory_order_relaxed)) api.cuCtxSynchronize();
  api.cuMemFreeAsync(ptr, stream);
}

void CudaDevice::copyToDevice(DevicePtr dst, const void* src, size_t bytes) {
  if (!bytes) return;
  makeCurrent();
  check(driverApi().cuMemcpyHtoD(dst, src, bytes), "copying " + std::to_string(bytes) + " bytes to the device");
}

void CudaDevice::copyWithinDevice(DevicePtr dst, DevicePtr src, size_t bytes) {
  if (!bytes) return;
  makeCurrent();
  check(driverApi().cuMemcpyDtoD(dst, src, bytes), "copying " + std::to_string(bytes) + " bytes on the device");
}

void CudaDevice::copyWithinDeviceAsync(DevicePtr dst, DevicePtr src, size_t bytes, void* stream) {
  if (!bytes) return;
  makeCurrent();
  if (stream) userStreams_.store(true, std::memory_order_relaxed);
  check(driverApi().cuMemcpyDtoDAsync(dst, src, bytes, stream),
        "copying " + std::to_string(bytes) + " bytes on the device");
}

void CudaDevice::copyToHost(void* dst, DevicePtr src, size_t bytes) {
  if (!bytes) return;
  makeCurrent();
  check(driverApi().cuMemcpyDtoH(dst, src, bytes), "copying " + std::to_string(bytes) + " bytes from the device");
}

void CudaDevice::memset8(DevicePtr dst, uint8_t value, size_t bytes) {
  if (!bytes) return;
  makeCurrent();
  check(driverApi().cuMemsetD8(dst, value, bytes), "clearing " + std::to_string(bytes) + " bytes of device memory");
}

void CudaDevice::memset8Async(DevicePtr dst, uint8_t value, size_t bytes, void* stream) {
  if (!bytes) return;
  makeCurrent();
  if (stream) userStreams_.store(true, std::memory_order_relaxed);
  check(driverApi().cuMemsetD8Async(dst, value, bytes, stream),
        "clearing " + std::to_string(bytes) + " bytes of device memory");
}

void CudaDevice::synchronize() {
  makeCurrent();
  check(driverApi().cuCtxSynchronize(), "synchronizing");
}

void CudaDevice::synchronize(void* stream) {
  if (!stream) return synchronize();
  makeCurrent();
  check(driverApi().cuStreamSynchronize(stream), "synchronizing a stream");
}

bool CudaDevice::capturing(void* stream) {
  const DriverApi& api = driverApi();
  if (!api.cuStreamIsCapturing) return false;
  makeCurrent();
  int status = 0;  // CUstreamCaptureStatus: 0 none, 1 active, 2 invalidated
  CUresult r = api.cuStreamIsCapturing(stream, &status);
  // The legacy stream cannot be queried while another stream captures in
  // global mode (CUDA_ERROR_STREAM_CAPTURE_IMPLICIT): a capture is going on.
  constexpr CUresult kErrorStreamCaptureImplicit = 906;
  return r == kErrorStreamCaptureImplicit || (r == kSuccess && status != 0);
}

void* CudaDevice::beginCapture() {
  const DriverApi& api = driverApi();
  if (!api.cuStreamCreate || !api.cuStreamBeginCapture || !api.cuStreamEndCapture ||
      !api.cuGraphInstantiateWithFlags || !api.cuGraphLaunch)
    throw Error("CUDA graphs need stream capture (cuStreamBeginCapture_v2, cuGraphInstantiateWithFlags), which the "
                "CUDA driver lacks (driver older than CUDA 11.4)");
  makeCurrent();
  CUstream stream = nullptr;
  check(api.cuStreamCreate(&stream, /*CU_STREAM_NON_BLOCKING*/ 1), "creating a stream to capture a graph on");
  userStreams_.store(true, std::memory_order_relaxed);
  // Thread-local mode: other threads' work is not disturbed, and this
  // thread's own unsafe calls (a module load for a first launch) are made
  // in relaxed mode by loadKernel.
  CUresult r = api.cuStreamBeginCapture(stream, /*CU_STREAM_CAPTURE_MODE_THREAD_LOCAL*/ 1);
  if (r != kSuccess) {
    api.cuStreamDestroy(stream);
    check(r, "beginning a stream capture");
  }
  return stream;
}

void* CudaDevice::endCapture(void* stream, bool keep) {
  const DriverApi& api = driverApi();
  makeCurrent();
  void* graph = nullptr;
  CUresult r = api.cuStreamEndCapture(stream, &graph);
  api.cuStreamDestroy(stream);
  void* exec = nullptr;
  if (r == kSuccess && keep) r = api.cuGraphInstantiateWithFlags(&exec, graph, 0);
  if (graph) api.cuGraphDestroy(graph);
  if (keep) check(r, "capturing a graph (a launch in it was not capturable, or another thread's unsafe call "
                     "invalidated the capture)");
  return exec;
}

void CudaDevice::launchGraph(void* exec, void* stream) {
  makeCurrent();
  check(driverApi().cuGraphLaunch(exec, stream), "launching a graph");
}

void CudaDevice::destroyGraph(void* exec) noexcept {
  if (exec && driverApi().cuGraphExecDestroy) driverApi().cuGraphExecDestroy(exec);
}

void CudaDevice::loadKernel(LoadedKernel& out, const std::vector<char>& cubin, const std::string& kernelName,
                            int dynamicSharedBytes, int staticSharedBytes,
                            const std::vector<std::string>& runtimeChecks) {
  const DriverApi& api = driverApi();
  const std::string* name = internName(kernelName);
  if (!runtimeChecks.empty()) {
    std::string note = "\nnote: '" + kernelName + "' stops with a trap when a check Tessera added fails:";
    for (const std::string& check : runtimeChecks) note += "\n  - " + check;
    out.checksNote = internName(note);
  }
  if (staticSharedBytes + dynamicSharedBytes > maxSharedOptin_)
    throw Error("kernel '" + kernelName + "': out of resources: shared memory, required " +
                std::to_string(staticSharedBytes + dynamicSharedBytes) + " bytes, the device (cuda:" +
                std::to_string(ordinal_) + ", " + name_ + ") allows " + std::to_string(maxSharedOptin_) +
                "; smaller blocks or fewer num_stages may help");
  makeCurrent();
  // A first launch may come while a stream is being captured into a CUDA
  // graph (torch.cuda.graph captures in global mode, which forbids module
  // loads on every thread): loading is not work on the stream, so this
  // thread loads in relaxed mode, as PyTorch's allocator does for cudaMalloc.
  struct RelaxedCapture {
    const DriverApi& api;
    int mode = 2;  // CU_STREAM_CAPTURE_MODE_RELAXED
    explicit RelaxedCapture(const DriverApi& a) : api(a) {
      if (api.cuThreadExchangeStreamCaptureMode) api.cuThreadExchangeStreamCaptureMode(&mode);
    }
    ~RelaxedCapture() {
      if (api.cuThreadExchangeStreamCaptureMode) api.cuThreadExchangeStreamCaptureMode(&mode);
    }
  } relaxed(api);
  CUmodule module = nullptr;
  check(api.cuModuleLoadData(&module, cubin.data()), "loading the cubin", name);
  out.module = module;  // owned from here on: unloaded by ~LoadedKernel
  out.ordinal = ordinal_;
  out.name = name;
  CUfunction fn = nullptr;
  check(api.cuModuleGetFunction(&fn, module, kernelName.c_str()), "looking up the kernel in its cubin", name);
  if (dynamicSharedBytes > 48 * 1024)
    check(api.cuFuncSetAttribute(fn, kFuncAttrMaxDynamicShared, dynamicSharedBytes),
          "allowing " + std::to_string(dynamicSharedBytes) + " bytes of dynamic shared memory", name);
  out.function = fn;
}

TESSERA_HOT void CudaDevice::launch(const KernelHandle& kernel, const int64_t grid[3], int blockThreads, int sharedBytes,
                        void* stream, void** params, LaunchAttributes attributes) {
  if (grid[0] > 0x7fffffff || grid[1] > 65535 || grid[2] > 65535)
    throw Error("kernel '" + *kernel.name + "': grid (" + std::to_string(grid[0]) + ", " + std::to_string(grid[1]) +
                ", " + std::to_string(grid[2]) + ") exceeds the CUDA limits (2^31-1, 65535, 65535)");
  makeCurrent();
  lastKernel_.store(kernel.name, std::memory_order_relaxed);
  lastChecksNote_.store(kernel.checksNote, std::memory_order_relaxed);
  if (stream && !userStreams_.load(std::memory_order_relaxed)) userStreams_.store(true, std::memory_order_relaxed);
  // Global scratch: this launch's own, passed through a copy of the
  // parameter pointers (the caller's array may be shared by threads).
  CUdeviceptr scratch = 0;
  std::vector<void*> withScratch;
  if (kernel.globalScratchBytes > 0) {
    const DriverApi& api = driverApi();
    size_t bytes = static_cast<size_t>(kernel.globalScratchBytes * grid[0] * grid[1] * grid[2]);
    void* p = pool();
    CUresult a = kSuccess;
    if (p) {
      a = api.cuMemAllocFromPoolAsync(&scratch, bytes, p, stream);
      if (a != kSuccess && !capturing(stream)) {  // give the pool's cached memory back and try once more
        api.cuCtxSynchronize();
        api.cuMemPoolTrimTo(p, 0);
        a = api.cuMemAllocFromPoolAsync(&scratch, bytes, p, stream);
      }
    } else {
      a = api.cuMemAlloc(&scratch, bytes);
    }
    check(a, "allocating " + std::to_string(bytes) + " bytes of global scratch (TMA descriptors)", kernel.name);
    withScratch.assign(params, params + kernel.globalScratchParam + 1);
    withScratch.back() = &scratch;
    params = withScratch.data();
  }
  // Programmatic dependent launch needs sm_90; before it a launch never
  // overlaps its predecessor, which is what the attribute relaxes.
  bool pdl = attributes.programmaticSerialization && capability_ >= 90;
  // Clusters need sm_90 and a grid x that is a multiple of their size.
  unsigned cluster = attributes.clusterSize > 1 && capability_ >= 90 &&
                             grid[0] % static_cast<int64_t>(attributes.clusterSize) == 0
                         ? attributes.clusterSize
                         : 1;
  CUresult r;
  if (!pdl && !attributes.cooperative && cluster == 1) {
    r = launchKernel_(kernel.function, static_cast<unsigned>(grid[0]), static_cast<unsigned>(grid[1]),
                      static_cast<unsigned>(grid[2]), static_cast<unsigned>(blockThreads), 1, 1,
                      static_cast<unsigned>(sharedBytes), stream, params, nullptr);
  } else {
    const DriverApi& api = driverApi();
    if (!api.cuLaunchKernelEx)
      throw Error("kernel '" + *kernel.name + "': " +
                  (pdl ? "launch_pdl" : attributes.cooperative ? "launch_cooperative_grid" : "num_ctas > 1") +
                  " needs cuLaunchKernelEx, which the CUDA driver lacks (driver older than CUDA 12.0)");
    CUlaunchAttribute attrs[3]{};
    unsigned numAttrs = 0;
    const int on = 1;  // programmaticStreamSerializationAllowed / cooperative
    for (auto [wanted, id] : {std::pair{pdl, kLaunchAttrProgrammaticStreamSerialization},
                              std::pair{attributes.cooperative, kLaunchAttrCooperative}})
      if (wanted) {
        attrs[numAttrs].id = id;
        std::memcpy(attrs[numAttrs].value, &on, sizeof on);
        ++numAttrs;
      }
    if (cluster > 1) {
      const unsigned dims[3] = {cluster, 1, 1};  // CUlaunchAttributeValue::clusterDim
      attrs[numAttrs].id = kLaunchAttrClusterDimension;
      std::memcpy(attrs[numAttrs].value, dims, sizeof dims);
      ++numAttrs;
    }
    CUlaunchConfig config{static_cast<unsigned>(grid[0]), static_cast<unsigned>(grid[1]),
                          static_cast<unsigned>(grid[2]), static_cast<unsigned>(blockThreads), 1, 1,
                          static_cast<unsigned>(sharedBytes), stream, attrs, numAttrs};
    r = api.cuLaunchKernelEx(&config, kernel.function, params, nullptr);
  }
  if (scratch) {
    if (pool_) driverApi().cuMemFreeAsync(scratch, stream);
    else driverApi().cuMemFree(scratch);  // waits for the kernel
  }
  if (r != kSuccess) check(r, "launching", kernel.name);
}

void* CudaDevice::createEvent() {
  makeCurrent();
  CUevent event = nullptr;
  check(driverApi().cuEventCreate(&event, kEventDefault), "creating an event");
  return event;
}

void CudaDevice::destroyEvent(void* event) noexcept {
  if (event) driverApi().cuEventDestroy(event);
}

void CudaDevice::recordEvent(void* event, void* stream) {
  check(driverApi().cuEventRecord(event, stream), "recording an event");
}

float CudaDevice::elapsedMs(void* start, void* end) {
  makeCurrent();
  float ms = 0;
  CUresult r = driverApi().cuEventElapsedTime(&ms, start, end);
  if (r == kErrorNotReady) {
    synchronize();
    r = driverApi().cuEventElapsedTime(&ms, start, end);
  }
  check(r, "reading the time between two events");
  return ms;
}

std::string CudaDevice::lastKernel() const {
  const std::string* last = lastKernel_.load(std::memory_order_relaxed);
  return last ? *last : std::string();
}

LoadedKernel::~LoadedKernel() {
  if (!module) return;
  // Errors are ignored: this may run during exit, after the driver's teardown.
  try {
    CudaDevice::get(ordinal).makeCurrent();
    driverApi().cuModuleUnload(module);
  } catch (const Error&) {
  }
}

}  // namespace tessera::runtime
