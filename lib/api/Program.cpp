//===- Program.cpp - Programs: a kernel file and the modules it imports ---===//
//
// Program::from_file / from_source load a program through the frontend
// (SourceProgram: the host evaluator runs the module-level code of the file
// and of what it imports) and hand out Kernels by name: the name a kernel
// is bound to in the file, its def's name, or a dotted path into a module
// ("ops.add_kernel", "pkg.ops.add_kernel").
//
// Device queries of host code are answered from ProgramOptions::arch, else
// CUDA device 0 when one is usable, else TESSERA_CUDA_ARCH, else an H100;
// the driver is asked only when host code asks.
//
//===----------------------------------------------------------------------===//

#include <algorithm>

#include "Internal.h"
#include "Specialization.h"
#include "frontend/python/SourceText.h"
#include "tessera/runtime/Hash.h"
#include "tessera/support/Env.h"

namespace tessera {

namespace detail {

/// The device queries of a GPU we only know by its architecture: the SM
/// counts of the parts Tessera is measured on.
static frontend::DeviceQueries queriesOf(const gpu::Target& t) {
  frontend::DeviceQueries q;
  q.major = t.capability / 10;
  q.minor = t.capability % 10;
  if (t.capability == 80) q.multiprocessors = 108, q.sharedMemPerBlockOptin = 166912, q.name = "NVIDIA A100-SXM4-80GB";
  else if (t.capability == 89) q.multiprocessors = 128, q.sharedMemPerBlockOptin = 101376, q.name = "NVIDIA L40S";
  else if (t.capability == 86) q.multiprocessors = 84, q.sharedMemPerBlockOptin = 101376, q.name = "NVIDIA RTX A6000";
  return q;
}

frontend::LoadOptions loadOptions(const ProgramOptions& options) {
  frontend::LoadOptions o;
  o.searchPath = options.search_path;
  o.moduleFiles = options.module_files;
  for (const auto& [kernel, configs] : options.autotune_configs)
    for (const AutotuneConfig& c : configs) {
      frontend::AutotuneConfig f;
      for (const auto& [name, value] : c.kwargs) f.kwargs[name] = detail::toConstValue(value);
      f.numWarps = c.num_warps;
      f.numStages = c.num_stages;
      f.numCtas = c.num_ctas;
      f.maxnreg = c.maxnreg;
      o.autotuneConfigs[kernel].push_back(std::move(f));
    }
  std::string arch = options.arch;
  o.device = [arch]() -> frontend::DeviceQueries {
    if (!arch.empty()) return queriesOf(gpu::Target::parse(arch));
    if (runtime::cudaAvailable()) {
      const runtime::CudaDevice& d = runtime::CudaDevice::get(0);
      frontend::DeviceQueries q = queriesOf(d.target());
      q.multiprocessors = d.multiprocessorCount();
      q.sharedMemPerBlockOptin = d.maxSharedBytesPerBlock();
      q.name = d.name();
      return q;
    }
    if (std::optional<std::string> a = env::text("TESSERA_CUDA_ARCH")) return queriesOf(gpu::Target::parse(*a));
    return frontend::DeviceQueries{};
  };
  return o;
}

std::string programDigest(const frontend::JitFunction& fn) {
  std::vector<std::shared_ptr<const frontend::SourceProgram>> mods = fn.program->modules();
  std::sort(mods.begin(), mods.end(), [](const auto& a, const auto& b) { return a->moduleName() < b->moduleName(); });
  runtime::Sha256 h;
  h.field("tessera program modules");
  for (const auto& m : mods) h.field(m->moduleName()).field(m->source() ? m->source()->text() : "");
  return h.hexDigest();
}

}  // namespace detail

Program Program::from_source(const std::string& text, const std::string& filename, const ProgramOptions& options) {
  auto impl = std::make_shared<detail::ProgramImpl>();
  impl->source = frontend::SourceProgram::load(
      std::make_shared<SourceFile>(filename, py::pythonSourceText(text, filename)), "", detail::loadOptions(options));
  return Program(std::move(impl));
}

Program Program::from_file(const std::string& path, const ProgramOptions& options) {
  auto impl = std::make_shared<detail::ProgramImpl>();
  impl->source = frontend::SourceProgram::loadFile(path, detail::loadOptions(options));
  return Program(std::move(impl));
}

std::vector<std::string> Program::kernel_names() const {
  std::vector<std::string> names;
  for (const auto& [bound, fn] : impl_->source->kernels()) names.push_back(bound);
  return names;
}

std::vector<std::pair<std::string, std::vector<std::string>>> Program::modules() const {
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  for (const auto& m : impl_->source->modules()) {
    std::vector<std::string> names;
    for (const auto& [bound, fn] : m->kernels()) names.push_back(bound);
    out.emplace_back(m->moduleName(), std::move(names));
  }
  // The file's own module first, the others as they were imported.
  std::stable_partition(out.begin(), out.end(),
                        [&](const auto& m) { return m.first == impl_->source->moduleName(); });
  return out;
}

/// `name` in the program: in the file's module, else "module.kernel" (or
/// "module.Class.kernel") with the module's full dotted name.
static const frontend::JitFunction* findKernel(const frontend::SourceProgram& entry, const std::string& name) {
  if (const frontend::JitFunction* fn = entry.find(name)) return fn;
  for (const auto& m : entry.modules()) {
    const std::string& module = m->moduleName();
    if (name.size() > module.size() + 1 && name.compare(0, module.size(), module) == 0 && name[module.size()] == '.')
      if (const frontend::JitFunction* fn = m->find(name.substr(module.size() + 1))) return fn;
  }
  return nullptr;
}

Kernel Program::kernel(const std::string& name) const {
  const frontend::JitFunction* fn = findKernel(*impl_->source, name);
  if (!fn) {
    std::string known;
    for (const auto& n : kernel_names()) known += (known.empty() ? "" : ", ") + n;
    std::string why = impl_->source->whyNotAKernel(name);
    throw Error("no @triton.jit function named '" + name + "' in " + impl_->source->source()->name() +
                (why.empty() ? "" : ": " + why) +
                (known.empty() ? std::string(why.empty() ? " (the file has no @triton.jit functions)" : "")
                               : " (it has: " + known + ")"));
  }
  if (!fn->transparentDecorators.empty() && env::flag("TESSERA_PRINT_AUTOTUNING")) {
    std::string list;
    for (const auto& d : fn->transparentDecorators) list += (list.empty() ? "" : ", ") + d;
    env::warnOnce("transparent:" + std::to_string(reinterpret_cast<uintptr_t>(fn)),
                  "kernel '" + name + "' (" + fn->loc.file->name() + ":" + std::to_string(fn->loc.line) +
                      "): decorators Tessera does not know are taken as transparent: " + list);
  }
  auto impl = std::make_shared<detail::KernelImpl>();
  impl->program = impl_;
  impl->fn = fn;
  std::lock_guard<std::mutex> lock(impl_->cachesMutex);
  // One cache per kernel, whatever name found it.
  std::shared_ptr<detail::KernelCache>& cache = impl_->caches[std::to_string(reinterpret_cast<uintptr_t>(fn))];
  if (!cache) cache = std::make_shared<detail::KernelCache>();
  impl->cache = cache;
  return Kernel(std::move(impl));
}

std::vector<Kernel::Parameter> Kernel::parameters() const {
  std::vector<Parameter> out;
  for (const auto& p : impl_->fn->params) {
    Parameter q;
    q.name = p.name;
    q.is_constexpr = p.isConstexpr;
    q.annotation = p.annotatedType;
    if (p.hasDefault) q.default_value = p.defaultValue ? frontend::toString(*p.defaultValue) : "...";
    out.push_back(std::move(q));
  }
  return out;
}

std::string Kernel::defined_at() const {
  const frontend::JitFunction& fn = *impl_->fn;
  std::string at = (fn.loc.file ? fn.loc.file->name() : std::string("?")) + ":" + std::to_string(fn.loc.line);
  return fn.madeBy.empty() ? at : at + ", made by " + fn.madeBy;
}

}  // namespace tessera
