//===- Kernel.cpp - The Kernel and CompiledKernel API ----------------------===//
//
// The public methods of Kernel (compile, the autotuning and heuristics
// hooks) and CompiledKernel (its stages and metadata). What they stand on:
// Compile.cpp (specializations), GpuStages.cpp (PTX, cubin, caches),
// Launch.cpp (launches), Dumps.cpp (TESSERA_DUMP).
//
//===----------------------------------------------------------------------===//

#include "Internal.h"
#include "Specialization.h"
#include "runtime/Toolkit.h"
#include "tessera/runtime/Assembler.h"

namespace tessera {

using frontend::ParamSpec;


CompiledKernel Kernel::compile(const std::string& signature, const Meta& constexprs, const LaunchOptions& options,
                               const std::string& arch) {
  std::vector<ParamSpec> specs = detail::parseSignature(*impl_->fn, signature, constexprs);
  gpu::Target target = arch.empty() ? detail::defaultCompileTarget() : gpu::Target::parse(arch);
  auto base = detail::compileSpecialization(*impl_, specs, detail::compileOptions(*impl_->fn, options));
  return CompiledKernel(detail::withTarget(*impl_, base, target));
}

const std::string& Kernel::name() const { return impl_->fn->name; }

std::vector<std::string> Kernel::parameter_names() const {
  std::vector<std::string> names;
  for (const auto& p : impl_->fn->params) names.push_back(p.name);
  return names;
}

std::string CompiledKernel::asm_text(const std::string& stage) const {
  if (stage == "ttir") return impl_->ttir;
  if (stage == "ttgir") return detail::gpuBinary(*impl_, impl_->target, false)->ptx.ttgir;
  if (stage == "ptx") {
    std::shared_ptr<detail::GpuBinary> b = detail::gpuBinary(*impl_, impl_->target, false);
    const gpu::PtxKernel& k = b->ptx;
    if (!runtime::toolkitAvailable()) return k.ptx;
    // Self-contained, as Triton's: the libdevice wrappers the assembler
    // links merged in, so ptxas assembles the text alone (without NVRTC,
    // the kernel's PTX with its .extern declarations); with inline asm, the
    // assembler's PTX version, as it assembles it.
    std::string ptx = k.ptx;
    try {
      if (!k.externs.empty()) ptx = runtime::wholeProgramPtx(k.ptx, runtime::libdevicePtx(k.externs, b->target, k.name));
    } catch (const Error&) {
    }
    return runtime::withAssemblerPtxVersion(ptx);
  }
  if (stage == "cubin") {
    const std::vector<char>& bytes = detail::gpuBinary(*impl_, impl_->target, true)->cubin->bytes;
    return std::string(bytes.begin(), bytes.end());
  }
  if (stage == "sass") {
    std::shared_ptr<detail::GpuBinary> b = detail::gpuBinary(*impl_, impl_->target, true);
    std::lock_guard<std::mutex> lock(impl_->gpu->mutex);
    if (!b->sass) b->sass = runtime::disassemble(*b->cubin, runtime::sassTarget(b->target));
    return *b->sass;
  }
  throw Error("unknown stage '" + stage + "' (expected ttir, ttgir, ptx, cubin or sass)");
}

std::string CompiledKernel::ir_after_pass(const std::string& pass) const { return detail::irAfterPass(*impl_, pass); }

const std::string& CompiledKernel::name() const { return impl_->name; }

std::string CompiledKernel::target() const { return impl_->target.name(); }

KernelMetadata CompiledKernel::metadata() const {
  std::shared_ptr<detail::GpuBinary> b = detail::gpuBinary(*impl_, impl_->target, true);
  KernelMetadata m;
  m.name = impl_->name;
  m.target = impl_->target.name();
  m.num_warps = b->ptx.numWarps;
  m.num_stages = impl_->numStages;
  m.shared_bytes = b->ptx.sharedBytes;
  m.static_shared_bytes = b->cubin->staticSharedBytes;
  m.registers = b->cubin->registers;
  m.spill_store_bytes = b->cubin->spillStoreBytes;
  m.spill_load_bytes = b->cubin->spillLoadBytes;
  m.stack_frame_bytes = b->cubin->stackFrameBytes;
  return m;
}

std::vector<AutotuneConfig> Kernel::autotune_configs() const {
  std::vector<AutotuneConfig> out;
  if (const frontend::AutotuneSpec* spec = impl_->fn->autotune())
    for (const auto& c : spec->configs) out.push_back(detail::publicConfig(c));
  return out;
}

std::optional<AutotuneConfig> Kernel::best_config() const {
  std::lock_guard<std::mutex> lock(impl_->cache->autotune.mutex);
  if (!impl_->fn->hasAutotune || !impl_->cache->autotune.last) return std::nullopt;
  return detail::publicConfig(impl_->fn->autotune()->configs.at(*impl_->cache->autotune.last));
}

void Kernel::set_heuristics_hook(std::function<Meta(const Meta& meta)> hook) {
  if (!impl_->fn->hasHeuristics)
    throw Error("kernel '" + impl_->fn->name + "' has no @triton.heuristics: set_heuristics_hook does not apply");
  auto shared = hook ? std::make_shared<const std::function<Meta(const Meta&)>>(std::move(hook)) : nullptr;
  std::lock_guard<std::mutex> lock(impl_->cache->mutex);
  impl_->cache->heuristicsHook = std::move(shared);
}

void Kernel::set_autotune_hooks(AutotuneHooks hooks) {
  if (!impl_->fn->hasAutotune)
    throw Error("kernel '" + impl_->fn->name + "' has no @triton.autotune: set_autotune_hooks does not apply");
  std::lock_guard<std::mutex> lock(impl_->cache->autotune.mutex);
  impl_->cache->autotune.hooks = std::move(hooks);
  impl_->cache->autotune.best.clear();  // the hooks may change the winners
  impl_->cache->autotune.last.reset();
}

}  // namespace tessera
