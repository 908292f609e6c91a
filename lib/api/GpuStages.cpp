//===- GpuStages.cpp - PTX, cubin, the disk cache, loaded modules -----------===//
//
// The GPU stages of a compiled specialization: PTX (ptx::compileToPtx, or a
// test's replacement), the cubin (runtime::assemble), both cached on disk
// under a key of everything that changes the code (DESIGN.md §8) so a warm
// process start skips the PTX backend and the assembler, and the module
// loaded on each device. Serialized per specialization: concurrent launches
// of one kernel compile it once.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "Internal.h"
#include "Specialization.h"
#include "tessera/interpreter/Interpreter.h"
#include "tessera/runtime/DiskCache.h"
#include "tessera/runtime/Hash.h"
#include "tessera/support/Env.h"
#include "tessera/transforms/Passes.h"

namespace tessera::frontend {
extern const std::string_view kPreludeSource;  // generated from tl_prelude.py
}

namespace tessera {

namespace detail {

static std::mutex ptxCompilerMutex;
static PtxCompiler ptxCompilerOverride;

void setPtxCompilerForTesting(PtxCompiler compiler) {
  std::lock_guard<std::mutex> lock(ptxCompilerMutex);
  ptxCompilerOverride = std::move(compiler);
}

/// TESSERA_POINTER_TMA=0: pointer tiles keep their cp.async copies on sm_90a
/// (to compare with the TMA copies pointer-tiles-to-tma makes of them).
static bool pointerTmaEnabled() {
  return env::flag("TESSERA_POINTER_TMA", true);
}

/// TESSERA_WARP_SPECIALIZE=0: only loops that ask get a producer warpgroup.
static bool autoWarpSpecializeEnabled() {
  return env::flag("TESSERA_WARP_SPECIALIZE", true);
}

static gpu::PtxKernel compilePtx(const ir::Module& module, const std::string& name, const gpu::GpuOptions& options) {
  PtxCompiler override;
  {
    std::lock_guard<std::mutex> lock(ptxCompilerMutex);
    override = ptxCompilerOverride;
  }
  return override ? override(module, name, options) : ptx::compileToPtx(module, name, options);
}

CacheKeyInputs toolchainKeyInputs() {
  return {
      // The compiler: its version and build (so also the prelude it embeds,
      // hashed explicitly for builds that embed a new prelude alone).
      {"compiler", runtime::compilerVersion()},
      {"prelude", std::string(frontend::kPreludeSource)},
      // The toolkit: the assembler and libdevice, versions and files.
      {"assembler", runtime::assemblerIdentity()},
      {"libdevice", runtime::libdeviceIdentity()},
      // Every TESSERA_* variable that changes generated code (env::knobs()).
      {"knobs", env::codeKnobs()},
  };
}

CacheKeyInputs cacheKeyInputs(const CompiledKernelImpl& k, const gpu::Target& target) {
  CacheKeyInputs inputs = {
      // The kernel: the file's whole text covers it and every function it
      // calls; the file name is in device_assert messages.
      {"file", k.source ? k.source->name() : ""},
      {"source", k.source ? k.source->text() : ""},
      {"modules", k.modulesDigest},
      {"kernel", k.name},
      {"specialization", k.specializationKey},
      {"options", "num_warps=" + std::to_string(k.numWarps) + " num_stages=" + std::to_string(k.numStages) +
                      " debug=" + std::to_string(k.debug) + " maxnreg=" + std::to_string(k.maxNumRegisters) +
                      " pointer_tma=" + std::to_string(pointerTmaEnabled())},
      {"target", target.name()},
  };
  CacheKeyInputs toolchain = toolchainKeyInputs();
  inputs.insert(inputs.end(), toolchain.begin(), toolchain.end());
  return inputs;
}

std::string cacheKeyOf(const CacheKeyInputs& inputs) {
  runtime::Sha256 h;
  h.field("tessera kernel cache key");
  for (const auto& [name, value] : inputs) h.field(name).field(value);
  return h.hexDigest();
}

static std::string diskCacheKey(const CompiledKernelImpl& k, const gpu::Target& target) {
  return cacheKeyOf(cacheKeyInputs(k, target));
}

static bool alwaysCompile() {
  return env::flag("TESSERA_ALWAYS_COMPILE");
}

/// A kernel cache entry is intact when it decodes to the kernel `name`: an
/// entry whose manifest verifies but does not decode is replaced, not kept.
static runtime::CacheEntryCheck decodesAs(const std::string& name) {
  return [name](const runtime::CacheFiles& files) {
    std::optional<runtime::KernelBinary> b = runtime::deserializeKernelBinary(files);
    return b && b->ptx.name == name;
  };
}

/// What compiles `k` for `target`: the specialization's launch options and
/// the environment's code knobs.
static gpu::GpuOptions gpuOptionsOf(const CompiledKernelImpl& k, const gpu::Target& target) {
  gpu::GpuOptions options;
  options.numWarps = k.numWarps;
  options.numStages = k.numStages;
  options.maxNumRegisters = k.maxNumRegisters;
  options.target = target;
  options.debug = k.debug;
  options.pointerTma = pointerTmaEnabled();
  options.autoWarpSpecialize = autoWarpSpecializeEnabled();
  return options;
}

std::string irAfterPass(const CompiledKernelImpl& k, const std::string& pass) {
  std::string name = pass;
  int occurrence = 1;
  if (size_t colon = pass.find(':'); colon != std::string::npos) {
    name = pass.substr(0, colon);
    std::string n = pass.substr(colon + 1);
    occurrence = n.empty() || n.find_first_not_of("0123456789") != std::string::npos || n.size() > 6 ? 0 : std::stoi(n);
    if (occurrence < 1)
      throw Error("pass '" + pass + "': expected NAME or NAME:N, N a positive integer (the pass's N-th run)");
  }
  gpu::GpuOptions options = gpuOptionsOf(k, k.target);
  std::vector<std::string> ran;
  std::optional<std::string> found;
  // The pipeline stops at the pass asked for: what a later pass would
  // refuse does not hide the IR.
  struct Stop {};
  options.afterPass = [&](const std::string& p, const ir::Module& module) {
    ran.push_back(p);
    if (p == name && --occurrence == 0) {
      found = ir::print(module);
      throw Stop{};
    }
  };
  try {
    gpu::lowerToGpuIR(*k.module, k.name, options);
  } catch (const Stop&) {
    return *found;
  }
  std::string list;
  for (const std::string& p : ran) list += (list.empty() ? "" : ", ") + p;
  int runs = static_cast<int>(std::count(ran.begin(), ran.end(), name));
  throw Error("kernel '" + k.name + "': the GPU lowering for " + k.target.name() +
              (runs ? " runs '" + name + "' " + std::to_string(runs) + " time" + (runs == 1 ? "" : "s") + ", not " + pass
                    : " has no pass '" + name + "'") +
              " (its passes: " + list + ")");
}

/// The GPU stages of `k` for `target`: from memory, else from the disk
/// cache, else compiled; assembled too when `needCubin`. Serialized per
/// specialization (concurrent launches of one kernel compile it once).
std::shared_ptr<GpuBinary> gpuBinary(const CompiledKernelImpl& k, const gpu::Target& target, bool needCubin) {
  GpuStages& g = *k.gpu;
  std::lock_guard<std::mutex> lock(g.mutex);
  std::shared_ptr<GpuBinary>& slot = g.byTarget[target.name()];
  if (slot && (slot->cubin || !needCubin)) return slot;
  std::string dir = runtime::cacheDirectory();
  if (!slot) {
    auto b = std::make_shared<GpuBinary>();
    b->target = target;
    b->diskKey = diskCacheKey(k, target);
    std::optional<runtime::KernelBinary> hit;
    if (!alwaysCompile() && !dumpWanted("after-all"))
      if (auto files = runtime::loadCacheEntry(dir, b->diskKey, decodesAs(k.name)))
        hit = runtime::deserializeKernelBinary(*files);
    if (hit) {
      b->ptx = std::move(hit->ptx);
      b->cubin = std::move(hit->cubin);
    } else {
      profile::Span span("compile", "ptx ", k.name);
      span.arg("target", target.name());
      gpu::GpuOptions options = gpuOptionsOf(k, target);
      options.afterPass = afterPassDumper(k, target.name());
      b->ptx = compilePtx(*k.module, k.name, options);
    }
    dumpStage("ttgir", k, target.name(), b->ptx.ttgir);
    dumpStage("ptx", k, target.name(), b->ptx.ptx);
    if (b->cubin) dumpSass(k, *b);
    slot = std::move(b);
  }
  if (needCubin && !slot->cubin) {
    profile::Span span("compile", "cubin ", k.name);
    span.arg("target", target.name());
    slot->cubin = runtime::assemble(slot->ptx, target);
    runtime::publishCacheEntry(dir, slot->diskKey, runtime::serializeKernelBinary({slot->ptx, *slot->cubin}),
                               decodesAs(k.name));
    dumpSass(k, *slot);
  }
  return slot;
}

/// The kernel loaded on `device` (compiled for the device's target on first
/// use). The warm path is one mutex and one vector index.
DeviceKernel& deviceKernel(const CompiledKernelImpl& k, DeviceImpl& device) {
  GpuStages& g = *k.gpu;
  int ordinal = device.ordinal;
  {
    std::lock_guard<std::mutex> lock(g.mutex);
    if (ordinal < static_cast<int>(g.byDevice.size()) && g.byDevice[ordinal]) return *g.byDevice[ordinal];
  }
  runtime::CudaDevice& cuda = *device.cuda;
  std::shared_ptr<GpuBinary> binary = gpuBinary(k, cuda.target(), /*needCubin=*/true);
  profile::Span span("compile", "load ", k.name);
  size_t scratchParams = binary->ptx.globalScratchBytes > 0 ? 1 : 0;
  size_t mapParams = binary->ptx.tensorMaps.size();
  if (binary->ptx.params.size() != k.argToParam.size() + scratchParams + mapParams)
    throw Error("kernel '" + k.name + "': internal error: the PTX entry has " +
                std::to_string(binary->ptx.params.size()) + " parameters (" + std::to_string(scratchParams) +
                " of them global scratch, " + std::to_string(mapParams) + " tensor maps) but the kernel passes " +
                std::to_string(k.argToParam.size()) + " arguments");
  auto dk = std::make_shared<DeviceKernel>();
  dk->binary = binary;
  dk->device = &cuda;
  dk->blockThreads = binary->ptx.numWarps * 32;
  dk->sharedBytes = binary->ptx.sharedBytes;
  cuda.loadKernel(dk->loaded, binary->cubin->bytes, binary->ptx.name, binary->ptx.sharedBytes,
                  binary->cubin->staticSharedBytes, binary->ptx.runtimeChecks);
  if (scratchParams) {
    dk->loaded.globalScratchBytes = binary->ptx.globalScratchBytes;
    dk->loaded.globalScratchParam = static_cast<int>(binary->ptx.params.size()) - 1;
  }
  std::lock_guard<std::mutex> lock(g.mutex);
  if (ordinal >= static_cast<int>(g.byDevice.size())) g.byDevice.resize(ordinal + 1);
  if (!g.byDevice[ordinal]) g.byDevice[ordinal] = std::move(dk);  // else another thread won; ours unloads
  return *g.byDevice[ordinal];
}

/// `base` seen for another target: a shallow copy sharing the Tile IR and
/// the GPU stages, kept in the kernel's cache (next to `base`, under the
/// specialization key plus the target) so equal requests return one handle.
std::shared_ptr<CompiledKernelImpl> withTarget(KernelImpl& kernel, const std::shared_ptr<CompiledKernelImpl>& base,
                                               const gpu::Target& target) {
  if (target.name() == base->target.name()) return base;
  std::lock_guard<std::mutex> lock(kernel.cache->mutex);
  std::shared_ptr<CompiledKernelImpl>& view =
      kernel.cache->entries[base->specializationKey + "|target=" + target.name()];
  if (!view) {
    view = std::make_shared<CompiledKernelImpl>(*base);
    view->target = target;
  }
  return view;
}

/// compile()'s target when no arch is given: CUDA device 0's, else sm_90a.
gpu::Target defaultCompileTarget() {
  if (runtime::cudaAvailable()) return runtime::cudaDeviceTarget(0);
  return gpu::Target::parse("sm_90a");
}

}  // namespace detail

}  // namespace tessera
