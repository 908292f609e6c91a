//===- Kernel.cpp - Programs, kernels, compilation and launches -----------===//
//
// Program wraps a parsed source file; Kernel binds launch arguments to a
// @triton.jit function, specializes, compiles (frontend + Tile IR pipeline)
// through an in-memory cache keyed by the specialization, and runs the result
// on the device.
//
//===----------------------------------------------------------------------===//

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "Internal.h"
#include "Specialization.h"
#include "tessera/interpreter/Interpreter.h"
#include "tessera/transforms/Passes.h"

namespace tessera {

using detail::BoundParam;
using frontend::ParamSpec;

//===----------------------------------------------------------------------===//
// Program
//===----------------------------------------------------------------------===//

Program Program::from_source(const std::string& text, const std::string& filename) {
  auto impl = std::make_shared<detail::ProgramImpl>();
  impl->source = frontend::SourceProgram::load(std::make_shared<SourceFile>(filename, text));
  return Program(std::move(impl));
}

Program Program::from_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open kernel file '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  return from_source(ss.str(), path);
}

std::vector<std::string> Program::kernel_names() const {
  std::vector<std::string> names;
  for (const auto& fn : impl_->source->functions()) names.push_back(fn.name);
  return names;
}

Kernel Program::kernel(const std::string& name) const {
  const frontend::JitFunction* fn = impl_->source->find(name);
  if (!fn) {
    std::string known;
    for (const auto& n : kernel_names()) known += (known.empty() ? "" : ", ") + n;
    throw Error("no @triton.jit function named '" + name + "' in " + impl_->source->source()->name() +
                (known.empty() ? std::string(" (the file has no @triton.jit functions)")
                               : " (it has: " + known + ")"));
  }
  auto impl = std::make_shared<detail::KernelImpl>();
  impl->program = impl_;
  impl->fn = fn;
  std::lock_guard<std::mutex> lock(impl_->cachesMutex);
  std::shared_ptr<detail::KernelCache>& cache = impl_->caches[name];
  if (!cache) cache = std::make_shared<detail::KernelCache>();
  impl->cache = cache;
  return Kernel(std::move(impl));
}

//===----------------------------------------------------------------------===//
// Compilation
//===----------------------------------------------------------------------===//

static bool envFlag(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::string(v) != "0";
}

/// Prints the stages named in TESSERA_DUMP (comma-separated) to stderr.
static void dumpStages(const detail::CompiledKernelImpl& k) {
  const char* dump = std::getenv("TESSERA_DUMP");
  if (!dump) return;
  std::string stages = std::string(",") + dump + ",";
  if (stages.find(",ttir,") != std::string::npos || stages.find(",all,") != std::string::npos)
    std::cerr << "// ----- ttir: " << k.name << " -----\n" << k.ttir << std::flush;
}

/// "note: while compiling kernel 'k' for 'x' *fp32:16, 'n' i32, 'BLOCK' = 128":
/// appended to compile errors so a wrongly typed argument is easy to spot.
static std::string specializationNote(const frontend::JitFunction& fn, const std::vector<ParamSpec>& specs) {
  std::string note = "note: while compiling kernel '" + fn.name + "' for ";
  for (size_t i = 0; i < specs.size() && i < fn.params.size(); ++i) {
    const ParamSpec& s = specs[i];
    note += (i ? ", '" : "'") + fn.params[i].name + "' ";
    if (s.kind == ParamSpec::Kind::Constexpr)
      note += "= " + frontend::toString(s.value);
    else
      note += s.type + (s.divisibleBy16 ? ":16" : "") + (s.kind == ParamSpec::Kind::Pointer ? " (a tensor)" : "");
  }
  return note;
}

static std::shared_ptr<detail::CompiledKernelImpl> compileSpecialization(detail::KernelImpl& kernel,
                                                                         const std::vector<ParamSpec>& specs,
                                                                         const frontend::CompileOptions& options) {
  std::string key = detail::specializationKey(specs, options);
  {
    std::lock_guard<std::mutex> lock(kernel.cache->mutex);
    auto it = kernel.cache->entries.find(key);
    if (it != kernel.cache->entries.end()) return it->second;
  }
  frontend::CompileResult result;
  try {
    result = kernel.program->source->compile(kernel.fn->name, specs, options);
  } catch (const Error& e) {
    throw Error(std::string(e.what()) + "\n" + specializationNote(*kernel.fn, specs));
  }
  transforms::runTileIRPipeline(*result.module);
  auto compiled = std::make_shared<detail::CompiledKernelImpl>();
  compiled->name = result.kernelName;
  compiled->ttir = ir::print(*result.module);
  compiled->module = std::move(result.module);
  compiled->argToParam = std::move(result.argToParam);
  compiled->numWarps = options.numWarps;
  compiled->numStages = options.numStages;
  dumpStages(*compiled);
  std::lock_guard<std::mutex> lock(kernel.cache->mutex);
  return kernel.cache->entries.emplace(key, compiled).first->second;
}

static frontend::CompileOptions compileOptions(const frontend::JitFunction& fn, const LaunchOptions& options) {
  frontend::CompileOptions o;
  o.debug = fn.debug || envFlag("TESSERA_DEBUG") || envFlag("TRITON_DEBUG");
  o.numWarps = options.num_warps;
  o.numStages = options.num_stages;
  if (o.numWarps < 1 || o.numWarps > 32 || (o.numWarps & (o.numWarps - 1)))
    throw Error("kernel '" + fn.name + "': num_warps must be a power of 2 between 1 and 32, got " +
                std::to_string(o.numWarps));
  if (o.numStages < 1) throw Error("kernel '" + fn.name + "': num_stages must be at least 1");
  return o;
}

CompiledKernel Kernel::compile(const std::string& signature, const Meta& constexprs, const LaunchOptions& options,
                               const std::string& arch) {
  std::vector<ParamSpec> specs = detail::parseSignature(*impl_->fn, signature, constexprs);
  return CompiledKernel(compileSpecialization(*impl_, specs, compileOptions(*impl_->fn, options)));
}

const std::string& Kernel::name() const { return impl_->fn->name; }

std::vector<std::string> Kernel::parameter_names() const {
  std::vector<std::string> names;
  for (const auto& p : impl_->fn->params) names.push_back(p.name);
  return names;
}

std::string CompiledKernel::asm_text(const std::string& stage) const {
  if (stage == "ttir") return impl_->ttir;
  if (stage == "ttgir" || stage == "ptx" || stage == "sass" || stage == "cubin")
    throw Error("stage '" + stage + "' needs the GPU backend, which this build does not have yet");
  throw Error("unknown stage '" + stage + "' (expected ttir, ttgir, ptx or sass)");
}

const std::string& CompiledKernel::name() const { return impl_->name; }

//===----------------------------------------------------------------------===//
// Launch
//===----------------------------------------------------------------------===//

/// Values injected by @triton.heuristics and @triton.autotune for this launch.
static Meta injectedMeta(const detail::KernelImpl& kernel, const std::vector<Arg>& args, const Meta& constexprs,
                         LaunchOptions& options) {
  const frontend::JitFunction& fn = *kernel.fn;
  Meta extra;
  if (fn.autotune && !fn.autotune->configs.empty()) {
    // The interpreter has no timing model: every config computes the same
    // result, so the first one is used. The GPU runtime benchmarks them.
    const frontend::AutotuneConfig& cfg = fn.autotune->configs.front();
    for (const auto& [name, value] : cfg.kwargs) {
      if (constexprs.count(name))
        throw Error("kernel '" + fn.name + "': conflicting meta-parameters: '" + name +
                    "' is given at launch and also tuned by @triton.autotune");
      extra[name] = detail::toMetaValue(value);
    }
    options.num_warps = cfg.numWarps;
    options.num_stages = cfg.numStages;
  }
  if (!fn.heuristics.empty()) {
    std::map<std::string, frontend::ConstValue> named;
    for (size_t i = 0; i < args.size() && i < fn.params.size(); ++i) {
      const Arg& a = args[i];
      switch (a.kind) {
        case Arg::Kind::Int: named[fn.params[i].name] = a.i; break;
        case Arg::Kind::Float: named[fn.params[i].name] = a.f; break;
        case Arg::Kind::Bool: named[fn.params[i].name] = a.b; break;
        case Arg::Kind::Null: named[fn.params[i].name] = std::monostate{}; break;
        case Arg::Kind::Tensor: named[fn.params[i].name] = static_cast<int64_t>(a.tensor.data_ptr()); break;
      }
    }
    for (const auto& [name, value] : constexprs) named[name] = detail::toConstValue(value);
    for (const auto& [name, value] : extra) named[name] = detail::toConstValue(value);
    for (const auto& p : fn.params)
      if (!named.count(p.name) && p.hasDefault && p.defaultValue) named[p.name] = *p.defaultValue;
    for (const auto& h : fn.heuristics) {
      frontend::ConstValue v = kernel.program->source->evalHostExpr(*h.body, h.argName, named);
      named[h.name] = v;
      extra[h.name] = detail::toMetaValue(v);
    }
  }
  return extra;
}

/// With TESSERA_RECORD_LAUNCHES=FILE, appends one line per compiled
/// specialization: "source<TAB>kernel<TAB>AOT signature<TAB>-D NAME=VALUE ...".
/// The CLI tests replay these lines through `tessera compile`.
static void recordLaunch(const detail::KernelImpl& kernel, const std::vector<ParamSpec>& specs) {
  const char* path = std::getenv("TESSERA_RECORD_LAUNCHES");
  if (!path || !*path) return;
  std::string sig, defines;
  const auto& params = kernel.fn->params;
  for (size_t i = 0; i < specs.size(); ++i) {
    const ParamSpec& s = specs[i];
    if (s.kind == ParamSpec::Kind::Constexpr) {
      const auto& v = s.value;
      if (params[i].isConstexpr) {
        defines += " -D" + params[i].name + "=" + frontend::toString(v);
        continue;
      }
      // A runtime parameter specialized to a constant (1 or None).
      if (!std::holds_alternative<int64_t>(v) || std::get<int64_t>(v) != 1) return;  // not expressible
      sig += std::string(sig.empty() ? "" : ", ") + "i32:1";
      continue;
    }
    sig += (sig.empty() ? "" : ", ") + s.type + (s.divisibleBy16 ? ":16" : "");
  }
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  std::ofstream out(path, std::ios::app);
  out << kernel.program->source->source()->name() << '\t' << kernel.fn->name << '\t' << sig << '\t'
      << defines << '\n';
}

void Kernel::launch(Device& device, const Grid& grid, const std::vector<Arg>& args, const Meta& constexprs,
                    const LaunchOptions& launchOptions) {
  const frontend::JitFunction& fn = *impl_->fn;
  LaunchOptions options = launchOptions;
  Meta extra = injectedMeta(*impl_, args, constexprs, options);
  std::vector<BoundParam> bound = detail::bindArguments(fn, args, constexprs, extra);
  std::vector<ParamSpec> specs;
  specs.reserve(bound.size());
  for (const auto& b : bound) specs.push_back(b.spec);
  auto compiled = compileSpecialization(*impl_, specs, compileOptions(fn, options));
  recordLaunch(*impl_, specs);
  std::vector<int64_t> dims = grid.resolve(detail::metaOf(fn, bound));
  if (dims[0] * dims[1] * dims[2] == 0) return;

  if (!device.is_interpreter()) throw Error("kernel '" + fn.name + "': GPU launches are not available yet");
  std::vector<interp::RuntimeArg> runtimeArgs;
  runtimeArgs.reserve(compiled->argToParam.size());
  for (int paramIndex : compiled->argToParam) {
    const BoundParam& b = bound[paramIndex];
    if (b.spec.kind == ParamSpec::Kind::Pointer) {
      if (!b.tensor->storage() || b.tensor->storage()->kind != detail::DeviceKind::Interpreter)
        throw Error("kernel '" + fn.name + "': tensor argument '" + fn.params[paramIndex].name +
                    "' does not live on the interpreter device");
      runtimeArgs.push_back(interp::RuntimeArg::ptr(reinterpret_cast<void*>(b.tensor->data_ptr())));
    } else if (b.spec.type.rfind("fp", 0) == 0 || b.spec.type == "bf16") {
      runtimeArgs.push_back(interp::RuntimeArg::floating(b.floatValue));
    } else {
      runtimeArgs.push_back(interp::RuntimeArg::integer(b.intValue));
    }
  }
  interp::LaunchConfig config;
  for (int i = 0; i < 3; ++i) config.grid[i] = dims[i];
  config.numWarps = options.num_warps;
  if (const char* limit = std::getenv("TESSERA_INTERPRETER_LOOP_LIMIT"))
    config.loopIterationLimit = std::strtoull(limit, nullptr, 10);
  interp::run(*compiled->module, compiled->name, runtimeArgs, config);
}

}  // namespace tessera
