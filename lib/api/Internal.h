//===- Internal.h - Shared state behind the public API ----------*- C++ -*-===//
//
// The pimpl structs of tessera.h. Kept in one header so Tensor, Device,
// Program and Kernel can see each other's internals; users never include it.
// The GPU half (GpuBinary, DeviceKernel, GpuStages) hangs off a compiled
// specialization: one PTX/cubin per target, one loaded module per device.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/frontend/Frontend.h"
#include "tessera/ptx/Backend.h"
#include "tessera/runtime/Assembler.h"
#include "tessera/runtime/Driver.h"
#include "tessera/tessera.h"
#include "tessera/testing.h"

namespace tessera::detail {

enum class DeviceKind { Interpreter, Cuda };

/// A tensor's shape, strides (elements) and the element its first one is in
/// its storage; immutable, shared by copies of the tensor.
struct TensorLayout {
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  int64_t offset = 0;
};

/// Elements from a view's first element to its last one, inclusive (0 for
/// an empty shape); strides are non-negative.
int64_t spanElements(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides);
/// "[2, 3]".
std::string shapeText(const std::vector<int64_t>& shape);

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
  /// Memory someone else owns (DLPack): `release` runs instead of freeing
  /// it. Interpreter memory is registered with the bounds checker.
  TensorStorage(DeviceKind kind, void* data, size_t bytes, runtime::CudaDevice* cuda, std::function<void()> release);
  std::function<void()> release;  ///< set for borrowed memory
  /// Kernels may not write it (DLPack 1.x's read-only flag).
  bool readOnly = false;
  ~TensorStorage();
  runtime::DevicePtr devicePtr() const { return reinterpret_cast<runtime::DevicePtr>(data); }
  TensorStorage(const TensorStorage&) = delete;
  TensorStorage& operator=(const TensorStorage&) = delete;
};

struct CompiledKernelImpl;

struct LaunchMemoEntry;

/// Everything that changes the code compiled for one specialization on one
/// target, by name, in one list (STYLE.md §12): the disk-cache key is the
/// hash of these (cacheKeyOf).
using CacheKeyInputs = std::vector<std::pair<std::string, std::string>>;
CacheKeyInputs cacheKeyInputs(const CompiledKernelImpl& k, const gpu::Target& target);
/// The part of every key that is not the kernel's: compiler, prelude,
/// assembler, libdevice, code-changing knobs (the autotuner's keys too).
CacheKeyInputs toolchainKeyInputs();
/// A digest of every module of `fn`'s program (names and texts): a kernel's
/// code depends on the helpers and constants it imports.
std::string programDigest(const frontend::JitFunction& fn);
/// The frontend's load options for a Program's (Program.cpp).
frontend::LoadOptions loadOptions(const ProgramOptions& options);
std::string cacheKeyOf(const CacheKeyInputs& inputs);

/// "[2, 3]": a shape or grid in messages.
std::string shapeText(const std::vector<int64_t>& shape);
/// The number of elements of `shape`; throws Error for a negative dimension
/// or when the elements or their bytes overflow int64.
int64_t checkedNumel(const std::vector<int64_t>& shape, DType dtype);
/// CUDA's grid limits (cuLaunchKernel): x < 2^31, y and z < 65536.
inline constexpr int64_t kGridLimit[3] = {(int64_t{1} << 31) - 1, 65535, 65535};
/// Throws Error naming the dims and the limit for a grid dimension that is
/// negative or beyond kGridLimit.
void checkGridDims(const std::vector<int64_t>& dims);

/// The launch shapes a kernel was last launched with on a GPU, each with its
/// device function and packing plan (LaunchMemo.cpp): the warm launch path.
/// Readers (every warm launch) take no lock and no reference: they scan
/// `recent`, whose entries stay alive in `owned` as long as the kernel.
struct LaunchMemo {
  static constexpr size_t kRecent = 8;    ///< shapes looked up by a launch
  static constexpr size_t kOwned = 256;   ///< shapes remembered in all
  LaunchMemo();
  ~LaunchMemo();
  std::mutex mutex;  ///< writers
  std::array<std::atomic<const LaunchMemoEntry*>, kRecent> recent;
  std::vector<std::unique_ptr<const LaunchMemoEntry>> owned;
  size_t next = 0;  ///< the `recent` slot to replace next once full
  /// Arguments a launch may give by position and still take the memo: the
  /// parameters before the first constexpr; kUnknown not computed yet,
  /// kNever for kernels that never take it (autotuned, heuristics: their
  /// hooks and choices run on every launch).
  static constexpr int kUnknown = -1, kNever = -2;
  std::atomic<int> positionalLimit{kUnknown};
};

/// The autotuner's choices for one kernel: tuning key -> config index.
struct AutotuneMemory {
  std::mutex mutex;
  std::map<std::string, size_t> best;
  std::optional<size_t> last;          ///< the config of the latest autotuned launch (Kernel::best_config)
  std::optional<AutotuneHooks> hooks;  ///< Kernel::set_autotune_hooks
};

/// The public view of a frontend config (Autotuner.cpp).
AutotuneConfig publicConfig(const frontend::AutotuneConfig& c);
/// A launch's arguments as host Python sees them (prune_configs_by,
/// heuristics): the positional ones by name, tensors as torch.Tensor
/// values, and the constexprs given by name.
void hostArgs(const frontend::JitFunction& fn, const std::vector<Arg>& args, const Meta& constexprs,
              frontend::HostArgs& named, frontend::HostArgs& kwargs);

/// The compiled specializations of one kernel (DESIGN.md §8, in memory),
/// keyed by detail::specializationKey (plus "|target=sm_XX" for the handles
/// Kernel::compile returns for a target other than the default).
struct KernelCache {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<CompiledKernelImpl>> entries;
  LaunchMemo memo;
  AutotuneMemory autotune;
  /// Kernel::set_heuristics_hook (null: the host evaluator); guarded by `mutex`.
  std::shared_ptr<const std::function<Meta(const Meta&)>> heuristicsHook;
};

struct ProgramImpl {
  std::shared_ptr<frontend::SourceProgram> source;
  /// One cache per kernel name, shared by every Kernel handle of the program
  /// (kernels point at their program, never the other way round).
  std::mutex cachesMutex;
  std::map<std::string, std::shared_ptr<KernelCache>, std::less<>> caches;
};

/// The GPU stages of one specialization for one target, built on demand:
/// the PTX stage first (ptx::compileToPtx, or a disk-cache hit), the cubin
/// when something needs it (runtime::assemble).
struct GpuBinary {
  gpu::Target target;
  std::string diskKey;  ///< DESIGN.md §8 key of this (specialization, target)
  gpu::PtxKernel ptx;
  std::optional<runtime::Cubin> cubin;
  std::optional<std::string> sass;
};

/// A specialization loaded on one CUDA device: what a warm launch needs.
struct DeviceKernel {
  runtime::LoadedKernel loaded;
  std::shared_ptr<GpuBinary> binary;
  runtime::CudaDevice* device = nullptr;
  int blockThreads = 128;
  int sharedBytes = 0;
};

/// GPU state shared by every target view of one specialization.
struct GpuStages {
  std::mutex mutex;  ///< guards the maps; held while a stage compiles
  std::map<std::string, std::shared_ptr<GpuBinary>> byTarget;
  std::vector<std::shared_ptr<DeviceKernel>> byDevice;  ///< index: CUDA ordinal
};

/// A compiled specialization: the optimized Tile IR and how to pass args,
/// plus (lazily) its GPU stages. `target` is what asm_text/metadata of a
/// CompiledKernel describe; launches on a device use the device's target.
/// "*fp32:16", "i32", "= 128", "Sizes(n=i32, k=fp32)": one parameter's
/// specialization as notes, recompile reports and AOT headers show it.
std::string specText(const frontend::ParamSpec& s);

/// The driver's launch attributes of these launch options.
inline runtime::LaunchAttributes launchAttributes(const LaunchOptions& o) {
  return runtime::LaunchAttributes{o.launch_pdl, o.launch_cooperative_grid, static_cast<unsigned>(o.num_ctas)};
}

struct CompiledKernelImpl {
  std::string name;
  /// What it was compiled for (TESSERA_PRINT_RECOMPILES compares them).
  std::vector<frontend::ParamSpec> specs;
  std::vector<std::string> paramNames;  ///< the kernel's parameters, as `specs`
  frontend::CompileOptions options;
  std::shared_ptr<ir::Module> module;
  std::vector<int> argToParam;
  std::vector<int> argComponent;  ///< per argument: its part of a descriptor parameter (CompileResult)
  std::vector<std::vector<int>> argPath;  ///< per argument: where in a tuple parameter (CompileResult)
  std::string ttir;  ///< printed once at compile time
  int numWarps = 4;
  int numStages = 3;
  int maxNumRegisters = 0;  ///< `.maxnreg`; 0: the assembler decides
  bool debug = false;
  std::string specializationKey;  ///< detail::specializationKey
  SourceFileRef source;           ///< the kernel's file (disk cache key)
  std::string modulesDigest;      ///< detail::programDigest of the kernel's program (disk cache key)
  gpu::Target target;             ///< default: sm_90a
  std::shared_ptr<GpuStages> gpu = std::make_shared<GpuStages>();
};

/// The parameters (by index, numParams of them) whose memory `kernel` may
/// write: stores, atomics, calls and inline asm through pointers derived
/// from them (WrittenParams.cpp). std::nullopt when a pointer cannot be
/// traced (then assume every tensor may be written).
std::optional<std::vector<bool>> writtenParams(const CompiledKernelImpl& kernel, size_t numParams);
/// The same per tt.func argument of the kernel (a tuple's elements apart).
std::optional<std::vector<bool>> writtenArguments(const CompiledKernelImpl& kernel);

/// The PTX stage compiler: ptx::compileToPtx, or a test's replacement.
using PtxCompiler =
    std::function<gpu::PtxKernel(const ir::Module&, const std::string&, const gpu::GpuOptions&)>;
/// Test hook: replaces ptx::compileToPtx for every later compilation (an
/// empty function restores it). Lets the runtime tests drive the GPU stages
/// and the disk cache with hand-written PTX.
void setPtxCompilerForTesting(PtxCompiler compiler);

struct KernelImpl {
  std::shared_ptr<ProgramImpl> program;
  const frontend::JitFunction* fn = nullptr;
  std::shared_ptr<KernelCache> cache;
};

struct BoundParam;

/// TESSERA_PROFILE (Profile.cpp): spans of compiles, sweeps and launches,
/// and GPU execution times from CUDA events, written as a Chrome trace.
namespace profile {
bool enabled();
/// A timed span on the calling thread; recorded when it ends (no-op when
/// profiling is off: nothing is copied or allocated then, as it sits on
/// the launch path). Its name is `prefix` followed by `name`.
class Span {
 public:
  Span(const char* category, std::string_view name) : Span(category, {}, name) {}
  Span(const char* category, std::string_view prefix, std::string_view name);
  /// `*name` is read only when profiling is on (a kernel's name on the
  /// launch path: no cache line of the kernel's function is touched).
  Span(const char* category, const std::string* name);
  ~Span();
  Span(const Span&) = delete;
  Span& operator=(const Span&) = delete;
  /// Adds "key": "value" to the event's args.
  void arg(const std::string& key, const std::string& value);
  /// Adds raw JSON members to the event's args.
  void rawArgs(const std::string& members) {
    if (active_) args_ += (args_.empty() ? "" : ", ") + members;
  }

 private:
  bool active_;
  const char* category_ = "";
  std::string name_, args_;
  std::chrono::steady_clock::time_point start_;
};
/// "kernel", "grid" and "threads" JSON members of a launch.
std::string launchArgs(const std::string& kernel, const int64_t grid[3], int threads);
/// CUDA events around one GPU launch (nothing when profiling is off).
struct GpuMark {
  runtime::CudaDevice* device = nullptr;
  void* start = nullptr;
  void* end = nullptr;
};
GpuMark beginGpu(runtime::CudaDevice& device, void* stream);
/// Records the launch; inside a SweepScope it is marked `"autotune": true`
/// (a timed run of a sweep, which `tessera bench` counts apart).
void endGpu(const GpuMark& mark, void* stream, const std::string& name, const std::string& args);
/// While alive, this thread's GPU launches are an autotuning sweep's runs.
class SweepScope {
 public:
  SweepScope();
  ~SweepScope();
  SweepScope(const SweepScope&) = delete;
  SweepScope& operator=(const SweepScope&) = delete;
};
}  // namespace profile

/// CompiledKernel::ir_after_pass: the Tile GPU IR after `pass` ("NAME" or
/// "NAME:N", its N-th run) of `k`'s lowering for its target (Kernel.cpp).
std::string irAfterPass(const CompiledKernelImpl& k, const std::string& pass);

// Dumps.cpp: TESSERA_DUMP (stderr) and TESSERA_DUMP_DIR (files).
/// Whether TESSERA_DUMP asks for `stage` (ttir, ttgir, ptx, sass,
/// after-all); with only TESSERA_DUMP_DIR set, ttir, ttgir and ptx.
bool dumpWanted(const char* stage);
/// Writes `stage` of `k` (for `target`, "" for the Tile IR) where the dump
/// goes, when it is wanted.
void dumpStage(const char* stage, const CompiledKernelImpl& k, const std::string& target, const std::string& text);
/// The GpuOptions::afterPass of TESSERA_DUMP=after-all, or null.
std::function<void(const std::string&, const ir::Module&)> afterPassDumper(const CompiledKernelImpl& k,
                                                                           const std::string& target);
/// The SASS of `b`'s cubin when TESSERA_DUMP asks (a note when it cannot be
/// disassembled: a launch never fails for a dump).
void dumpSass(const CompiledKernelImpl& k, GpuBinary& b);

/// The PTX (and with needCubin the cubin) of `k` for `target`, compiled or
/// found in the caches (Kernel.cpp).
std::shared_ptr<GpuBinary> gpuBinary(const CompiledKernelImpl& k, const gpu::Target& target, bool needCubin);
/// The kernel loaded on `device` (compiled for the device's target on first
/// use). The warm path is one mutex and one vector index (GpuStages.cpp).
DeviceKernel& deviceKernel(const CompiledKernelImpl& k, DeviceImpl& device);
/// `base` (a specialization's Tile IR) retargeted to `target`: base itself
/// when that is its target, else a copy cached next to it (GpuStages.cpp).
std::shared_ptr<CompiledKernelImpl> withTarget(KernelImpl& kernel, const std::shared_ptr<CompiledKernelImpl>& base,
                                               const gpu::Target& target);
/// What Kernel::compile targets without an architecture: GPU 0's, else
/// sm_90a (GpuStages.cpp).
gpu::Target defaultCompileTarget();

// InterpreterLaunch.cpp.
/// The integer a host tensor descriptor's argument `component` (1..r its
/// shape, r+1.. its strides but the last; CompileResult::argComponent) is.
int64_t descriptorComponent(const TensorDescriptor& d, int component);
/// Runs `compiled` on the CPU interpreter over the grid `dims` with the
/// bound arguments.
void launchOnInterpreter(const frontend::JitFunction& fn, const CompiledKernelImpl& compiled,
                         const std::vector<BoundParam>& bound, const std::vector<int64_t>& dims,
                         const LaunchOptions& options);

// Compile.cpp: specializations.
/// The Tile IR of `kernel` for `specs` under `options`: from the kernel's
/// cache, else compiled (frontend and Tile IR pipeline) and cached.
std::shared_ptr<CompiledKernelImpl> compileSpecialization(KernelImpl& kernel, const std::vector<frontend::ParamSpec>& specs,
                                                          const frontend::CompileOptions& options);
/// The frontend's options for a launch's, checked (num_warps, maxnreg, ...).
frontend::CompileOptions compileOptions(const frontend::JitFunction& fn, const LaunchOptions& options);

/// A launch's constexprs as given: a Meta, or a braced list of names and
/// values (Kernel::launch's NamedValue overload), compared in place.
struct MetaView {
  MetaView(const Meta& m) : map(&m) {}  // NOLINT(google-explicit-constructor): every Meta is one
  MetaView(const NamedValue* list, size_t n) : items(list), count(n) {}
  /// Whether these are exactly the names and values of `flat` (a Meta's
  /// items, in name order).
  bool equals(const std::vector<std::pair<std::string, Value>>& flat) const;
  const Meta* map = nullptr;
  const NamedValue* items = nullptr;
  size_t count = 0;
};

/// Launches from a remembered launch shape (LaunchMemo.cpp); false when this
/// launch has none (the caller then takes the full path and remembers it).
bool launchFromMemo(KernelImpl& kernel, DeviceImpl& device, const Grid& grid, const Arg* args, size_t nargs,
                    const MetaView& constexprs, const LaunchOptions& options);
/// The same for a braced list, read in place.
bool launchFromMemo(KernelImpl& kernel, DeviceImpl& device, const Grid& grid, const ArgRef* args, size_t nargs,
                    const MetaView& constexprs, const LaunchOptions& options);
/// Remembers the shape of a launch that took the full path on a GPU.
void rememberLaunch(KernelImpl& kernel, DeviceImpl& device, const Grid& grid, const Arg* args, size_t nargs,
                    const Meta& constexprs, const LaunchOptions& options,
                    const std::shared_ptr<CompiledKernelImpl>& compiled, DeviceKernel& dk,
                    const std::vector<BoundParam>& bound);
/// The index of the @triton.autotune config to launch with (Autotuner.cpp):
/// remembered per tuning key, read from the disk cache, or found by timing
/// every config with `launchConfig(i)` on `stream` after compiling them all
/// in parallel with `prepareConfig(i)`, which returns the parameters config
/// i may write (writtenParams). 0 on the interpreter.
/// `beforeCompile(candidates)` runs on the calling thread before the
/// candidates compile in parallel (to evaluate what must not run elsewhere).
size_t autotunedConfig(KernelImpl& kernel, Device& device, const std::vector<Arg>& args, const Meta& constexprs,
                       void* stream, const std::function<void(const std::vector<size_t>&)>& beforeCompile,
                       const std::function<std::optional<std::vector<bool>>(size_t)>& prepareConfig,
                       const std::function<void(size_t)>& launchConfig);
/// A scalar argument (an Arg or an ArgRef) as an integer and as a float (an
/// annotated parameter may take the other kind: `scale: tl.float32` given 2
/// packs 2.0).
template <class A>
std::pair<int64_t, double> scalarValues(const A& a) {
  switch (a.kind) {
    case Arg::Kind::Int: return {a.i, a.isUnsigned64 ? double(uint64_t(a.i)) : double(a.i)};
    case Arg::Kind::Float: return {int64_t(a.f), a.f};
    case Arg::Kind::Bool: return {a.b ? 1 : 0, a.b ? 1.0 : 0.0};
    default: return {0, 0.0};
  }
}
/// Writes one scalar kernel parameter as the PTX entry declares it.
void packScalarParam(ir::TypeKind kind, int bytes, int64_t intValue, double floatValue, bool isFloatArg,
                     uint64_t& slot);
/// One host-encoded TMA descriptor parameter (gpu::HostTensorMap).
struct alignas(64) TensorMapBytes {
  unsigned char bytes[128];
};
/// Encodes the host tensor maps of `ptx` (compiled from `fn` as
/// `compiled`) from the packed values of the other parameters (`slots`, as
/// packParams wrote them) into `maps` (resized to one per map) and points
/// each map parameter's `ptrs` entry at its bytes. Throws Error, naming the
/// argument, when the driver refuses a descriptor (a misaligned base...).
void encodeHostTensorMaps(const frontend::JitFunction& fn, const CompiledKernelImpl& compiled,
                          const gpu::PtxKernel& ptx, const uint64_t* slots, void** ptrs,
                          std::vector<TensorMapBytes>& maps);
/// The error for a tensor argument that does not live on the launch's device.
std::string wrongDeviceMessage(const frontend::JitFunction& fn, int paramIndex, const TensorStorage* storage,
                               int deviceOrdinal);

/// do_bench's statistics over per-run times (ms), as torch computes them:
/// lower median, linear-interpolated quantiles. Throws Error for a quantile
/// outside [0, 1].
testing::BenchResult summarizeTimes(std::vector<double> times, const std::vector<double>& quantiles);

/// Frontend DType spelling for pointer/scalar signatures ("fp32", "i32", ...).
const char* signatureName(DType dtype);

}  // namespace tessera::detail
