//===- FakeDriver.cpp - A libcuda.so.1 that runs no kernel ----------------===//
//
// The runtime dlopens libcuda.so.1 and resolves the driver entry points it
// uses (lib/runtime/Driver.cpp). This library exports the same names with
// the same ABI, so that the whole launch path of a GPU device (argument
// binding, specialization, PTX, ptxas, module load, the warm memo, packing)
// runs on a machine without a GPU. It reports one sm_90 device with 132
// SMs; "device" memory is host memory (copies are memcpy); modules and
// functions are handles with no code; a launch records its configuration
// and copies its parameter values (the sizes come from fakecudaExpectParams)
// and runs nothing. Stream capture keeps a capturing stream's launches for
// a graph, and launching the graph replays them as launches.
//
// What it is for: tests and profiles of the host work of a launch
// (tests/hostpath): how many heap allocations a warm launch makes, what it
// passes to cuLaunchKernel, and where its CPU time goes (perf on the test),
// also with the caches cold (fakecudaTouch) as a real driver leaves them.
// It is not a simulator: no kernel's results can be checked with it.
//
//===----------------------------------------------------------------------===//

#include <atomic>
#include <chrono>
#include <cstdint>
#include <vector>
#include <cstdlib>
#include <cstring>

#include "FakeDriver.h"

namespace {

using CUresult = int;
constexpr CUresult kSuccess = 0;
constexpr CUresult kErrorInvalidValue = 1;

thread_local void* current = nullptr;
char contextObject;
// Modules are numbered handles, one per load, and a module's function is
// its handle + 1: a launch's function tells which loaded kernel it runs.
std::atomic<uintptr_t> modulesLoaded{0};
std::atomic<unsigned long long> launches{0};
FakeCudaLaunch last;
int expectedParams = 0;
int expectedBytes[FakeCudaLaunch::kMaxParams];

/// FAKECUDA_TOUCH_KB=N (or fakecudaTouch): each launch writes N KiB of
/// memory, as a real driver's launch disturbs the caches (for profiles of
/// the host path with cold caches).
std::vector<char> touchBuffer = [] {
  const char* v = std::getenv("FAKECUDA_TOUCH_KB");
  return std::vector<char>(v ? std::strtoul(v, nullptr, 10) * 1024 : 0);
}();
/// When the last launch entered the driver (steady_clock nanoseconds), kept
/// only while fakecudaStampEntries is on (reading the clock costs a launch
/// about 15 ns, which would blur the other timings).
std::atomic<long long> lastEntryNs{0};
std::atomic<bool> stampEntries{false};

/// Stream capture: launches on the capturing stream are kept for a graph.
void* capturingStream = nullptr;
std::vector<FakeCudaLaunch> captured;

void record(void* fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned shared, void* stream,
            void** params, unsigned cluster, int pdl) {
  if (stampEntries.load(std::memory_order_relaxed))
    lastEntryNs.store(std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::steady_clock::now().time_since_epoch()).count(),
                      std::memory_order_relaxed);
  bool capture = stream && stream == capturingStream;
  FakeCudaLaunch saved;
  if (capture) saved = last;
  last.function = fn;
  last.grid[0] = gx;
  last.grid[1] = gy;
  last.grid[2] = gz;
  last.blockThreads = bx;
  last.sharedBytes = shared;
  last.stream = stream;
  last.clusterSize = cluster;
  last.programmaticSerialization = pdl;
  last.numParams = expectedParams;
  for (int i = 0; i < expectedParams && params; ++i) {
    last.params[i] = 0;
    std::memcpy(&last.params[i], params[i], static_cast<size_t>(expectedBytes[i]));
  }
  if (capture) {  // recorded into the graph, not run
    captured.push_back(last);
    last = saved;
    return;
  }
  launches.fetch_add(1, std::memory_order_relaxed);
  for (size_t i = 0; i < touchBuffer.size(); i += 64) touchBuffer[i]++;
}

}  // namespace

extern "C" {

// Introspection for the tests.
unsigned long long fakecudaLaunches() { return launches.load(); }
const FakeCudaLaunch* fakecudaLastLaunch() { return &last; }
void fakecudaTouch(size_t kb) { touchBuffer.assign(kb * 1024, 0); }
void fakecudaStampEntries(int on) { stampEntries.store(on != 0, std::memory_order_relaxed); }
long long fakecudaLastEntryNs() { return lastEntryNs.load(std::memory_order_relaxed); }
void fakecudaExpectParams(int n, const int* bytes) {
  expectedParams = n < FakeCudaLaunch::kMaxParams ? n : FakeCudaLaunch::kMaxParams;
  for (int i = 0; i < expectedParams; ++i) expectedBytes[i] = bytes[i] > 8 ? 8 : bytes[i];
}

// The driver API, as far as Tessera uses it.
CUresult cuInit(unsigned) { return kSuccess; }
CUresult cuDriverGetVersion(int* v) { *v = 13000; return kSuccess; }
CUresult cuGetErrorName(CUresult, const char** s) { *s = "CUDA_ERROR_FAKE"; return kSuccess; }
CUresult cuGetErrorString(CUresult, const char** s) { *s = "an error of the fake driver"; return kSuccess; }
CUresult cuDeviceGetCount(int* n) { *n = 1; return kSuccess; }
CUresult cuDeviceGet(int* d, int ordinal) {
  if (ordinal != 0) return kErrorInvalidValue;
  *d = 0;
  return kSuccess;
}
CUresult cuDeviceGetName(char* name, int len, int) {
  std::strncpy(name, "Fake GPU (no kernels run)", static_cast<size_t>(len));
  return kSuccess;
}
CUresult cuDeviceGetAttribute(int* v, int attribute, int) {
  switch (attribute) {
    case 16: *v = 132; break;               // multiprocessors
    case 38: *v = 50 * 1024 * 1024; break;  // L2 bytes
    case 75: *v = 9; break;                 // compute capability
    case 76: *v = 0; break;
    case 97: *v = 232448; break;            // shared memory per block (opt-in)
    default: *v = 0;
  }
  return kSuccess;
}
CUresult cuDevicePrimaryCtxRetain(void** c, int) { *c = &contextObject; return kSuccess; }
CUresult cuCtxGetCurrent(void** c) { *c = current; return kSuccess; }
CUresult cuCtxSetCurrent(void* c) { current = c; return kSuccess; }
CUresult cuCtxSynchronize() { return kSuccess; }
CUresult cuMemAlloc_v2(uint64_t* p, size_t bytes) {
  void* m = std::aligned_alloc(256, (bytes + 255) / 256 * 256 + 256);
  if (!m) return 2;  // CUDA_ERROR_OUT_OF_MEMORY
  *p = reinterpret_cast<uint64_t>(m);
  return kSuccess;
}
CUresult cuMemFree_v2(uint64_t p) { std::free(reinterpret_cast<void*>(p)); return kSuccess; }
CUresult cuMemcpyHtoD_v2(uint64_t d, const void* s, size_t n) { std::memcpy(reinterpret_cast<void*>(d), s, n); return kSuccess; }
CUresult cuMemcpyDtoH_v2(void* d, uint64_t s, size_t n) { std::memcpy(d, reinterpret_cast<void*>(s), n); return kSuccess; }
CUresult cuMemcpyDtoD_v2(uint64_t d, uint64_t s, size_t n) {
  std::memmove(reinterpret_cast<void*>(d), reinterpret_cast<void*>(s), n);
  return kSuccess;
}
CUresult cuMemcpyDtoDAsync_v2(uint64_t d, uint64_t s, size_t n, void*) { return cuMemcpyDtoD_v2(d, s, n); }
CUresult cuStreamSynchronize(void*) { return kSuccess; }
CUresult cuStreamIsCapturing(void* stream, int* status) {
  *status = stream && stream == capturingStream ? 1 : 0;
  return kSuccess;
}
CUresult cuStreamCreate(void** stream, unsigned) {
  *stream = std::malloc(8);
  return kSuccess;
}
CUresult cuStreamDestroy_v2(void* stream) {
  std::free(stream);
  return kSuccess;
}
CUresult cuStreamBeginCapture_v2(void* stream, int) {
  if (capturingStream) return kErrorInvalidValue;
  capturingStream = stream;
  captured.clear();
  return kSuccess;
}
CUresult cuStreamEndCapture(void* stream, void** graph) {
  if (stream != capturingStream) return kErrorInvalidValue;
  capturingStream = nullptr;
  *graph = new std::vector<FakeCudaLaunch>(std::move(captured));
  captured.clear();
  return kSuccess;
}
CUresult cuGraphInstantiateWithFlags(void** exec, void* graph, unsigned long long) {
  *exec = new std::vector<FakeCudaLaunch>(*static_cast<std::vector<FakeCudaLaunch>*>(graph));
  return kSuccess;
}
CUresult cuGraphLaunch(void* exec, void*) {
  for (const FakeCudaLaunch& l : *static_cast<std::vector<FakeCudaLaunch>*>(exec)) {
    last = l;
    launches.fetch_add(1, std::memory_order_relaxed);
  }
  return kSuccess;
}
CUresult cuGraphExecDestroy(void* exec) {
  delete static_cast<std::vector<FakeCudaLaunch>*>(exec);
  return kSuccess;
}
CUresult cuGraphDestroy(void* graph) {
  delete static_cast<std::vector<FakeCudaLaunch>*>(graph);
  return kSuccess;
}
CUresult cuMemsetD8_v2(uint64_t d, unsigned char v, size_t n) { std::memset(reinterpret_cast<void*>(d), v, n); return kSuccess; }
CUresult cuMemsetD8Async(uint64_t d, unsigned char v, size_t n, void*) { return cuMemsetD8_v2(d, v, n); }
CUresult cuModuleLoadData(void** m, const void*) {
  *m = reinterpret_cast<void*>(0x10000 + 16 * modulesLoaded.fetch_add(1));
  return kSuccess;
}
CUresult cuModuleUnload(void*) { return kSuccess; }
CUresult cuModuleGetFunction(void** f, void* m, const char*) {
  *f = static_cast<char*>(m) + 1;
  return kSuccess;
}
CUresult cuFuncSetAttribute(void*, int, int) { return kSuccess; }
CUresult cuLaunchKernel(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned, unsigned,
                        unsigned shared, void* stream, void** params, void**) {
  record(f, gx, gy, gz, bx, shared, stream, params, 1, 0);
  return kSuccess;
}
// CUlaunchConfig / CUlaunchAttribute as Driver.cpp declares them.
struct LaunchAttribute {
  unsigned id;
  char pad[4];
  alignas(8) char value[64];
};
struct LaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
  void* hStream;
  LaunchAttribute* attrs;
  unsigned numAttrs;
};
CUresult cuLaunchKernelEx(const LaunchConfig* c, void* f, void** params, void**) {
  unsigned cluster = 1;
  int pdl = 0;
  for (unsigned i = 0; i < c->numAttrs; ++i) {
    if (c->attrs[i].id == 4) std::memcpy(&cluster, c->attrs[i].value, sizeof cluster);
    if (c->attrs[i].id == 6) pdl = 1;
  }
  record(f, c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX, c->sharedMemBytes, c->hStream, params, cluster, pdl);
  return kSuccess;
}
CUresult cuEventCreate(void** e, unsigned) { *e = std::malloc(8); return kSuccess; }
CUresult cuEventDestroy_v2(void* e) { std::free(e); return kSuccess; }
CUresult cuEventRecord(void*, void*) { return kSuccess; }
CUresult cuEventElapsedTime(float* ms, void*, void*) { *ms = 0.001f; return kSuccess; }
CUresult cuTensorMapEncodeTiled(void* map, int, unsigned, void*, const uint64_t*, const uint64_t*, const unsigned*,
                                const unsigned*, int, int, int, int) {
  std::memset(map, 0, 128);
  return kSuccess;
}

}  // extern "C"
