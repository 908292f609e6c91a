//===- Launch.cpp - Binding arguments and launching -------------------------===//
//
// Kernel::launch: the warm path first (LaunchMemo.cpp); else the arguments
// are bound to the parameters (Triton's rules, and the C++ API's named
// constexprs), heuristics and autotuning pick the meta-parameters, the
// specialization is compiled (Compile.cpp) and run: on a CUDA device with
// its parameters packed (host tensor maps encoded), on the interpreter with
// its arguments marshalled. PreparedLaunch keeps one resolved launch.
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
#include "tessera/support/Hot.h"
#include "Specialization.h"
#include "tessera/interpreter/Interpreter.h"
#include "tessera/runtime/DiskCache.h"
#include "tessera/runtime/Hash.h"
#include "tessera/support/Env.h"
#include "tessera/transforms/Passes.h"

namespace tessera {

using detail::BoundParam;
using frontend::ParamSpec;

//===----------------------------------------------------------------------===//
// Launch
//===----------------------------------------------------------------------===//

/// The configIndex of a launch that gives every meta-parameter its
/// @triton.autotune tunes: no config applies (see autotunePinned).
static constexpr size_t kPinned = static_cast<size_t>(-1);

/// True when a launch of an autotuned kernel gives, positionally or by name,
/// every meta-parameter that any of its configs sets: the caller has pinned
/// the config, so nothing is tuned and the launch runs as given (with the
/// caller's num_warps/num_stages). Triton raises "conflicting
/// meta-parameters" there; the issue of real code asks that given values
/// make the configs unnecessary. When the configs cannot be evaluated at
/// all, a launch that gives every constexpr without a default needs none.
/// A launch giving only some tuned names still conflicts (injectedMeta).
static bool autotunePinned(const frontend::JitFunction& fn, size_t nargs, const Meta& constexprs) {
  if (!fn.hasAutotune) return false;
  auto given = [&](const std::string& name) {
    if (constexprs.count(name)) return true;
    for (size_t i = 0; i < nargs && i < fn.params.size(); ++i)
      if (fn.params[i].name == name) return true;
    return false;
  };
  const frontend::AutotuneSpec* spec = nullptr;
  try {
    spec = fn.autotune();
  } catch (const Error&) {
    for (const auto& p : fn.params)
      if (p.isConstexpr && !p.hasDefault && !given(p.name)) return false;
    return true;
  }
  if (!spec || spec->configs.empty()) return false;
  bool any = false;
  for (const auto& cfg : spec->configs)
    for (const auto& kv : cfg.kwargs) {
      if (!given(kv.first)) return false;
      any = true;
    }
  if (any && env::flag("TESSERA_PRINT_AUTOTUNING"))
    env::warnOnce("pinned:" + std::to_string(reinterpret_cast<uintptr_t>(&fn)),
                  "kernel '" + fn.name + "': every meta-parameter its @triton.autotune tunes is given at launch: "
                  "nothing is tuned, the launch runs as given");
  return any;
}

/// The heuristics hook of a kernel, or null.
static std::shared_ptr<const std::function<Meta(const Meta&)>> heuristicsHook(const detail::KernelImpl& kernel) {
  if (!kernel.fn->hasHeuristics) return nullptr;
  std::lock_guard<std::mutex> lock(kernel.cache->mutex);
  return kernel.cache->heuristicsHook;
}

/// Asks the heuristics hook (Kernel::set_heuristics_hook) for a launch
/// with config `configIndex`; nullopt without a hook.
static std::optional<Meta> askHeuristicsHook(const detail::KernelImpl& kernel, const Meta& constexprs,
                                             size_t configIndex) {
  auto hook = heuristicsHook(kernel);
  if (!hook) return std::nullopt;
  Meta in = constexprs;
  if (const frontend::AutotuneSpec* spec = configIndex == kPinned ? nullptr : kernel.fn->autotune();
      spec && configIndex < spec->configs.size())
    for (const auto& [name, value] : spec->configs[configIndex].kwargs) in[name] = detail::toMetaValue(value);
  return (*hook)(in);
}

/// Values injected by @triton.heuristics and @triton.autotune for this
/// launch. The heuristics: `decided` when given (values settled on the
/// launching thread); else the host evaluator's, and when it cannot
/// evaluate one, the heuristics hook's for all of them (`mayAskHook`: only
/// on the launching thread).
static Meta injectedMeta(const detail::KernelImpl& kernel, const std::vector<Arg>& args, const Meta& constexprs,
                         LaunchOptions& options, size_t configIndex, const Meta* decided, bool mayAskHook) {
  const frontend::JitFunction& fn = *kernel.fn;
  Meta extra;
  if (const frontend::AutotuneSpec* spec = configIndex == kPinned ? nullptr : fn.autotune();
      spec && !spec->configs.empty()) {
    // The config the autotuner chose (Autotuner.cpp; the first one on the
    // interpreter, which has no timing model).
    const frontend::AutotuneConfig& cfg = spec->configs.at(configIndex);
    for (const auto& [name, value] : cfg.kwargs) {
      if (name == "launch_pdl" || name == "launch_cooperative_grid") {
        // A launch option, as Triton passes a config's kwargs to the launch.
        if (!std::holds_alternative<bool>(value))
          throw Error("kernel '" + fn.name + "': a config's " + name + " must be True or False, got " +
                      frontend::toString(value));
        (name == "launch_pdl" ? options.launch_pdl : options.launch_cooperative_grid) = std::get<bool>(value);
        continue;
      }
      if (constexprs.count(name))
        throw Error("kernel '" + fn.name + "': conflicting meta-parameters: '" + name +
                    "' is given at launch and also tuned by @triton.autotune");
      extra[name] = detail::toMetaValue(value);
    }
    options.num_ctas = cfg.numCtas;
    options.num_warps = cfg.numWarps;
    options.num_stages = cfg.numStages;
    options.maxnreg = cfg.maxnreg.value_or(0);
  }
  if (fn.hasHeuristics && decided) {
    for (const auto& h : fn.heuristics())
      if (auto it = decided->find(h.name); it != decided->end()) extra[h.name] = it->second;
  } else if (fn.hasHeuristics) {
    // Triton's `args` dict: the bound arguments by name (tensors as
    // torch.Tensor values), the config's values, defaults, and each
    // heuristic's result for the ones after it.
    frontend::HostArgs named, given;
    detail::hostArgs(fn, args, constexprs, named, given);
    auto set = [&](const std::string& name, frontend::ConstValue v) {
      for (auto& [n, h] : named)
        if (n == name) {
          h = frontend::HostArg{std::move(v)};
          return;
        }
      named.emplace_back(name, frontend::HostArg{std::move(v)});
    };
    auto has = [&](const std::string& name) {
      for (const auto& entry : named)
        if (entry.first == name) return true;
      return false;
    };
    for (auto& entry : given) named.push_back(std::move(entry));
    for (const auto& [name, value] : extra) set(name, detail::toConstValue(value));
    for (const auto& p : fn.params)
      if (!has(p.name) && p.hasDefault && p.defaultValue) set(p.name, *p.defaultValue);
    Meta fromConfig = extra;
    try {
      for (const auto& h : fn.heuristics()) {
        frontend::ConstValue v = fn.program->evalHeuristic(h, named);
        set(h.name, v);
        extra[h.name] = detail::toMetaValue(v);
      }
    } catch (const Error&) {
      // Python the host evaluator does not model (NumPy, a helper module,
      // an exception to raise): the hook's CPython evaluates all of them.
      std::optional<Meta> values = mayAskHook ? askHeuristicsHook(kernel, constexprs, configIndex) : std::nullopt;
      if (!values) throw;
      extra = std::move(fromConfig);
      for (const auto& h : fn.heuristics()) {
        auto it = values->find(h.name);
        if (it == values->end()) throw;
        extra[h.name] = it->second;
      }
    }
  }
  return extra;
}

/// With TESSERA_RECORD_LAUNCHES=FILE, appends one line per compiled
/// specialization: "source<TAB>kernel<TAB>AOT signature<TAB>-D NAME=VALUE ...".
/// The CLI tests replay these lines through `tessera compile`.
/// One runtime parameter's entry of an AOT signature ("*fp32:16", "i32:1",
/// "(*fp32:16, i32)"), or nullopt where the signature cannot say it.
static std::optional<std::string> signatureEntry(const ParamSpec& s) {
  switch (s.kind) {
    case ParamSpec::Kind::Constexpr:
      // A runtime parameter specialized to a constant (1 or None).
      if (std::holds_alternative<std::monostate>(s.value)) return "None";
      if (std::holds_alternative<int64_t>(s.value) && std::get<int64_t>(s.value) == 1) return "i32:1";
      return std::nullopt;
    case ParamSpec::Kind::Tuple: {
      std::string t = s.typeName == "namedtuple" ? "" : s.typeName;
      t += "(";
      for (size_t k = 0; k < s.elems.size(); ++k) {
        std::optional<std::string> e = signatureEntry(s.elems[k]);
        if (!e) return std::nullopt;
        t += (k ? ", " : "") + (k < s.fields.size() ? s.fields[k] + "=" : std::string()) + *e;
      }
      return t + (s.elems.size() == 1 && s.fields.empty() ? ",)" : ")");
    }
    default: return s.type.str() + (s.divisibleBy16 ? ":16" : "");
  }
}

static void recordLaunch(const detail::KernelImpl& kernel, const std::vector<ParamSpec>& specs) {
  std::optional<std::string> path = env::text("TESSERA_RECORD_LAUNCHES");
  if (!path) return;
  std::string sig, defines;
  const auto& params = kernel.fn->params;
  for (size_t i = 0; i < specs.size(); ++i) {
    const ParamSpec& s = specs[i];
    if (s.kind == ParamSpec::Kind::Constexpr && params[i].isConstexpr) {
      defines += " -D" + params[i].name + "=" + frontend::toString(s.value);
      continue;
    }
    std::optional<std::string> entry = signatureEntry(s);
    if (!entry) return;  // not expressible
    sig += (sig.empty() ? "" : ", ") + *entry;
  }
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  std::ofstream out(*path, std::ios::app);
  out << kernel.fn->program->source()->name() << '\t' << kernel.fn->name << '\t' << sig << '\t'
      << defines << '\n';
  if (!out.flush())
    env::warnOnce("TESSERA_RECORD_LAUNCHES", "TESSERA_RECORD_LAUNCHES: cannot write '" + *path + "' (" +
                                                 std::strerror(errno) + "): launches are not recorded");
}

/// Packs the arguments exactly as the PTX entry's parameters (one 8-byte
/// slot each; pointers are device addresses) and launches.
/// Packs the arguments exactly as the PTX entry's parameters (one 8-byte
/// slot each; pointers are device addresses) into `slots`.
static void packParams(const detail::KernelImpl& kernel, const detail::CompiledKernelImpl& compiled,
                       const detail::DeviceKernel& dk, const detail::DeviceImpl& device,
                       const std::vector<BoundParam>& bound, uint64_t* slots, void** ptrs,
                       std::vector<detail::TensorMapBytes>& maps) {
  const frontend::JitFunction& fn = *kernel.fn;
  const std::vector<gpu::KernelParam>& params = dk.binary->ptx.params;
  for (size_t i = 0; i < params.size(); ++i) {
    ptrs[i] = &slots[i];
    // The global scratch: CudaDevice::launch fills it in; tensor maps: below.
    if (params[i].globalScratch || params[i].tensorMap >= 0) {
      slots[i] = 0;
      continue;
    }
    int paramIndex = compiled.argToParam[i];
    const BoundParam& b = detail::boundLeaf(bound, compiled, i);
    if (params[i].type.isPointer()) {
      const detail::TensorStorage* storage = b.tensor ? b.tensor->storage().get() : nullptr;
      if (!storage || storage->kind != detail::DeviceKind::Cuda || storage->cuda != device.cuda)
        throw Error(detail::wrongDeviceMessage(fn, paramIndex, storage, device.ordinal));
      slots[i] = b.tensor->data_ptr();
      continue;
    }
    if (b.desc) {
      detail::packScalarParam(params[i].type.kind(), params[i].bytes, detail::descriptorComponent(*b.desc, compiled.argComponent[i]), 0, false, slots[i]);
      continue;
    }
    bool isFloatArg = b.spec.type.isFloat();
    detail::packScalarParam(params[i].type.kind(), params[i].bytes, b.intValue, b.floatValue, isFloatArg, slots[i]);
  }
  if (!dk.binary->ptx.tensorMaps.empty()) detail::encodeHostTensorMaps(fn, compiled, dk.binary->ptx, slots, ptrs, maps);
}

static void launchOnGpu(detail::KernelImpl& kernel, const detail::CompiledKernelImpl& compiled,
                        detail::DeviceKernel& dk, detail::DeviceImpl& device, const int64_t* grid,
                        const std::vector<BoundParam>& bound, const LaunchOptions& options) {
  void* stream = options.stream;
  size_t n = dk.binary->ptx.params.size();
  constexpr size_t kInline = 32;
  uint64_t inlineSlots[kInline];
  void* inlinePtrs[kInline];
  std::vector<uint64_t> heapSlots;
  std::vector<void*> heapPtrs;
  uint64_t* slots = inlineSlots;
  void** ptrs = inlinePtrs;
  if (n > kInline) {
    heapSlots.resize(n);
    heapPtrs.resize(n);
    slots = heapSlots.data();
    ptrs = heapPtrs.data();
  }
  std::vector<detail::TensorMapBytes> maps;
  packParams(kernel, compiled, dk, device, bound, slots, ptrs, maps);
  detail::profile::GpuMark mark = detail::profile::beginGpu(*dk.device, stream);
  dk.device->launch(dk.loaded, grid, dk.blockThreads, dk.sharedBytes, stream, ptrs,
                    detail::launchAttributes(options));
  if (mark.device)
    detail::profile::endGpu(mark, stream, kernel.fn->name, detail::profile::launchArgs(kernel.fn->name, grid, dk.blockThreads));
}

namespace {

/// A launch after binding, specialization and compilation.
struct ResolvedLaunch {
  LaunchOptions options;
  std::vector<BoundParam> bound;  ///< points into the launch's args
  std::shared_ptr<detail::CompiledKernelImpl> compiled;
  std::vector<int64_t> dims;
  bool empty() const { return dims[0] * dims[1] * dims[2] == 0; }
};

/// Read-only tensors (DLPack 1.x's flag) only go to parameters the kernel
/// cannot write (detail::writtenParams; when it cannot tell, it may write).
static void checkReadOnly(const frontend::JitFunction& fn, const ResolvedLaunch& r) {
  // Per kernel argument: a tuple's tensors each, a descriptor's base.
  const detail::CompiledKernelImpl& k = *r.compiled;
  std::optional<std::optional<std::vector<bool>>> written;
  for (size_t i = 0; i < k.argToParam.size(); ++i) {
    if (i < k.argComponent.size() && k.argComponent[i] != 0) continue;  // a descriptor's sizes
    const BoundParam& b = detail::boundLeaf(r.bound, k, i);
    const Tensor* t = b.tensor;
    if (!t || !t->is_read_only()) continue;
    if (!written) written = detail::writtenArguments(k);
    if (!*written || (i < (*written)->size() && (**written)[i])) {
      std::string name = fn.params[static_cast<size_t>(k.argToParam[i])].name;
      if (i < k.argPath.size())
        for (int e : k.argPath[i]) name.append("[").append(std::to_string(e)).append("]");
      throw Error("kernel '" + fn.name + "': argument '" + name +
                  "' is read-only memory (a read-only array, or its DLPack producer's flag) and the kernel " +
                  (*written ? "stores to it" : "may store to it (a pointer it writes through cannot be traced)"));
    }
  }
}

/// `withGrid` false: the grid is not evaluated (the autotuner's parallel
/// compiles must not call a user's grid callable from several threads).
/// `decided`: the heuristics' values, settled on the launching thread (the
/// parallel compiles must not call the heuristics hook either).
ResolvedLaunch resolveLaunch(detail::KernelImpl& kernel, const Grid& grid, const std::vector<Arg>& args,
                             const Meta& constexprs, const LaunchOptions& launchOptions, size_t configIndex = 0,
                             bool withGrid = true, const Meta* decided = nullptr) {
  const frontend::JitFunction& fn = *kernel.fn;
  ResolvedLaunch r;
  r.options = launchOptions;
  Meta extra = injectedMeta(kernel, args, constexprs, r.options, configIndex, decided,
                            /*mayAskHook=*/withGrid);  // the parallel compiles are off the launching thread
  r.bound = detail::bindArguments(fn, args, constexprs, extra);
  std::vector<ParamSpec> specs;
  specs.reserve(r.bound.size());
  for (const auto& b : r.bound) specs.push_back(b.spec);
  r.compiled = detail::compileSpecialization(kernel, specs, detail::compileOptions(fn, r.options));
  recordLaunch(kernel, specs);
  r.dims = !withGrid ? std::vector<int64_t>{1, 1, 1}
           : grid.fn  ? grid.resolve(detail::metaOf(fn, r.bound))
                      : grid.resolve({});
  return r;
}

}  // namespace

static void launchWithConfig(detail::KernelImpl& impl, Device& device, const Grid& grid, const std::vector<Arg>& args,
                             const Meta& constexprs, const LaunchOptions& launchOptions, size_t config,
                             const Meta* decided = nullptr);

/// The heuristics' values per config of a sweep, settled on the launching
/// thread before the configs compile in parallel, for kernels with a
/// heuristics hook (which only that thread may call).
struct SweepHeuristics {
  const detail::KernelImpl& kernel;
  const std::vector<Arg>& args;
  const Meta& constexprs;
  std::vector<std::optional<Meta>> values;
  void ask(const std::vector<size_t>& candidates) {
    if (!heuristicsHook(kernel)) return;
    values.resize(kernel.fn->autotune()->configs.size());
    for (size_t i : candidates) {
      LaunchOptions unused;
      Meta all = injectedMeta(kernel, args, constexprs, unused, i, nullptr, /*mayAskHook=*/true);
      Meta& v = values[i].emplace();
      for (const auto& h : kernel.fn->heuristics()) v[h.name] = all.at(h.name);
    }
  }
  const Meta* of(size_t i) const { return i < values.size() && values[i] ? &*values[i] : nullptr; }
};

/// Compiles config `configIndex` of an autotuned launch and loads it on the
/// device, without launching (the autotuner runs these in parallel);
/// returns the parameters it may write (detail::writtenParams).
static std::optional<std::vector<bool>> prepareConfig(detail::KernelImpl& impl, Device& device, const Grid& grid,
                                                      const std::vector<Arg>& args, const Meta& constexprs,
                                                      const LaunchOptions& launchOptions, size_t configIndex,
                                                      const Meta* decided) {
  ResolvedLaunch r =
      resolveLaunch(impl, grid, args, constexprs, launchOptions, configIndex, /*withGrid=*/false, decided);
  if (!device.is_interpreter()) detail::deviceKernel(*r.compiled, *device.impl());
  return detail::writtenParams(*r.compiled, impl.fn->params.size());
}

/// Python code the C++ core cannot run around a tuned launch: a config's
/// pre_hook, the autotuner's pre_hook / post_hook. Ignoring them could give
/// a wrong result (a pre_hook that zeroes an accumulator), so such a kernel
/// is launched pinned (every tuned meta-parameter given; the tessera Python
/// package tunes it that way, hooks included), or it is an Error.
static void refuseHooks(const frontend::JitFunction& fn) {
  if (!fn.hasAutotune) return;
  const frontend::AutotuneSpec& spec = *fn.autotune();
  std::string what = spec.hasPreHook ? "its pre_hook" : spec.hasPostHook ? "its post_hook" : "";
  for (size_t i = 0; what.empty() && i < spec.configs.size(); ++i)
    if (spec.configs[i].hasPreHook) what = "config " + std::to_string(i) + "'s pre_hook";
  if (!what.empty())
    throw Error("kernel '" + fn.name + "': @triton.autotune has Python hooks (" + what +
                ") the C++ core cannot run; launch it from the tessera Python package, or give every tuned "
                "meta-parameter (a pinned config) and run the hook yourself");
}

/// A launch the warm path did not serve: autotunes (first time per key),
/// binds, specializes, compiles or reuses, launches and remembers.
static void launchCold(detail::KernelImpl& impl, Device& device, const Grid& grid, const std::vector<Arg>& args,
                       const Meta& constexprs, const LaunchOptions& launchOptions) {
  const frontend::JitFunction& fn = *impl.fn;
  size_t config = autotunePinned(fn, args.size(), constexprs) ? kPinned : 0;
  if (config != kPinned) refuseHooks(fn);
  if (config != kPinned && fn.hasAutotune && fn.autotune()->configs.size() > 1) {
    // The sweep runs on the launch's stream (Autotuner.cpp).
    SweepHeuristics heuristics{impl, args, constexprs, {}};
    config = detail::autotunedConfig(
        impl, device, args, constexprs, launchOptions.stream,
        [&](const std::vector<size_t>& candidates) { heuristics.ask(candidates); },
        [&](size_t i) { return prepareConfig(impl, device, grid, args, constexprs, launchOptions, i, heuristics.of(i)); },
        [&](size_t i) { launchWithConfig(impl, device, grid, args, constexprs, launchOptions, i, heuristics.of(i)); });
  } else if (config != kPinned && fn.hasAutotune) {
    // Nothing to time (one config, or the interpreter, which runs the
    // first): best_config() reports the config that runs.
    std::lock_guard<std::mutex> lock(impl.cache->autotune.mutex);
    impl.cache->autotune.last = config;
  }
  launchWithConfig(impl, device, grid, args, constexprs, launchOptions, config);
}

void Kernel::launch(Device& device, const Grid& grid, const std::vector<Arg>& args, const Meta& constexprs,
                    const LaunchOptions& launchOptions) {
  launch(device, grid, args.data(), args.size(), constexprs, launchOptions);
}

static void launchWithConfig(detail::KernelImpl& impl, Device& device, const Grid& grid, const std::vector<Arg>& args,
                             const Meta& constexprs, const LaunchOptions& launchOptions, size_t configIndex,
                             const Meta* decided) {
  detail::KernelImpl* impl_ = &impl;
  const frontend::JitFunction& fn = *impl_->fn;
  ResolvedLaunch r = resolveLaunch(*impl_, grid, args, constexprs, launchOptions, configIndex, true, decided);
  checkReadOnly(fn, r);
  const LaunchOptions& options = r.options;
  const std::vector<BoundParam>& bound = r.bound;
  const auto& compiled = r.compiled;
  const std::vector<int64_t>& dims = r.dims;
  if (r.empty()) return;

  if (!device.is_interpreter()) {
    detail::DeviceKernel& dk = detail::deviceKernel(*compiled, *device.impl());
    launchOnGpu(*impl_, *compiled, dk, *device.impl(), dims.data(), bound, options);
    detail::rememberLaunch(*impl_, *device.impl(), grid, args.data(), args.size(), constexprs, launchOptions,
                           compiled, dk, bound);
    return;
  }
  detail::launchOnInterpreter(fn, *compiled, bound, dims, options);
}


struct PreparedLaunch::Impl {
  Impl(Kernel k, Device d, Grid g, std::vector<Arg> a, Meta c, LaunchOptions o)
      : kernel(std::move(k)), device(std::move(d)), grid(std::move(g)), args(std::move(a)), constexprs(std::move(c)),
        options(o) {}
  Kernel kernel;
  Device device;
  Grid grid;
  std::vector<Arg> args;  ///< owned: BoundParam pointers and tensors stay valid
  Meta constexprs;
  LaunchOptions options;
  // GPU
  std::shared_ptr<detail::CompiledKernelImpl> compiled;
  detail::DeviceKernel* dk = nullptr;
  std::vector<uint64_t> slots;
  std::vector<void*> ptrs;
  std::vector<detail::TensorMapBytes> maps;  ///< host tensor maps, encoded once
  int64_t dims[3] = {0, 0, 0};
};

/// The C++ API's binding rule on top of Triton's: positional arguments fill
/// the parameters *not named* in `constexprs`, in declaration order, so a
/// kernel declaring a constexpr between runtime parameters is called with
/// the runtime values in order and the constexpr by name. When that differs
/// from Triton's rule (a named parameter among the first positional slots),
/// rewrites the launch into Triton's form: the positional list up to the last
/// tensor (or None) argument, named values placed in their slots, and the
/// scalars after it given by name. Returns false when there is nothing to do.
static bool skipNamedParameters(const frontend::JitFunction& fn, const Arg* args, size_t nargs, const Meta& constexprs,
                                std::vector<Arg>& outArgs, Meta& outMeta) {
  const auto& params = fn.params;
  if (constexprs.empty() || nargs > params.size()) return false;
  bool collides = false;
  for (size_t i = 0; i < nargs && !collides; ++i) collides = constexprs.count(params[i].name) > 0;
  if (!collides) return false;
  std::vector<size_t> target;  // parameter index of each positional argument
  for (size_t p = 0; p < params.size() && target.size() < nargs; ++p)
    if (!constexprs.count(params[p].name)) target.push_back(p);
  if (target.size() < nargs) return false;  // too many arguments: bindArguments says so
  outMeta = constexprs;
  std::optional<size_t> lastPositional;
  for (size_t j = 0; j < nargs; ++j)
    if (args[j].kind == Arg::Kind::Tensor || args[j].kind == Arg::Kind::TensorDesc || args[j].kind == Arg::Kind::Null ||
        args[j].kind == Arg::Kind::Tuple)
      lastPositional = target[j];
  outArgs.clear();
  size_t j = 0;
  for (size_t p = 0; lastPositional && p <= *lastPositional; ++p) {
    auto named = outMeta.find(params[p].name);
    if (named == outMeta.end()) {
      outArgs.push_back(args[j++]);
      continue;
    }
    const Value& v = named->second;
    if (std::holds_alternative<std::string>(v))
      throw Error("kernel '" + fn.name + "': the string constexpr '" + params[p].name +
                  "' is declared before the positional argument for '" + params[target.back()].name +
                  "'; pass the arguments in declaration order (with the string among them)");
    outArgs.push_back(std::holds_alternative<bool>(v)      ? Arg(std::get<bool>(v))
                      : std::holds_alternative<int64_t>(v) ? Arg(std::get<int64_t>(v))
                      : std::holds_alternative<double>(v)  ? Arg(std::get<double>(v))
                                                           : Arg(nullptr));
    outMeta.erase(named);
  }
  for (; j < nargs; ++j) {
    const Arg& a = args[j];
    const std::string& name = params[target[j]].name;
    if (a.kind == Arg::Kind::Bool) outMeta[name] = a.b;
    else if (a.kind == Arg::Kind::Float) outMeta[name] = a.f;
    else if (a.isUnsigned64)
      throw Error("kernel '" + fn.name + "': argument '" + name + "' (an unsigned 64-bit value) follows a parameter "
                  "given by name; pass the arguments in declaration order");
    else outMeta[name] = a.i;
  }
  return true;
}

/// A launch the memo did not take: bound, specialized, compiled if need be.
static void launchFull(detail::KernelImpl& impl, Device& device, const Grid& grid, const Arg* args, size_t nargs,
                       const Meta& constexprs, const LaunchOptions& options) {
  std::vector<Arg> bound;
  Meta named;
  if (skipNamedParameters(*impl.fn, args, nargs, constexprs, bound, named)) {
    launchCold(impl, device, grid, bound, named, options);
    return;
  }
  launchCold(impl, device, grid, std::vector<Arg>(args, args + nargs), constexprs, options);
}

TESSERA_HOT void Kernel::launch(Device& device, const Grid& grid, const Arg* args, size_t nargs, const Meta& constexprs,
                    const LaunchOptions& options) {
  detail::profile::Span span("launch", &impl_->fn->name);
  // The warm path: a launch shaped like an earlier one (LaunchMemo.cpp).
  if (detail::launchFromMemo(*impl_, *device.impl(), grid, args, nargs, constexprs, options)) return;
  launchFull(*impl_, device, grid, args, nargs, constexprs, options);
}

/// A braced argument list as Args (the full path's, which own their tensors).
static std::vector<Arg> owned(std::initializer_list<ArgRef> args) {
  std::vector<Arg> out;
  out.reserve(args.size());
  for (const ArgRef& a : args) out.push_back(a.to_arg());
  return out;
}

Arg ArgRef::to_arg() const {
  if (whole) return *whole;
  if (descriptor) return Arg(*descriptor);
  switch (kind) {
    case Arg::Kind::Tensor: return Arg(*tensor);
    case Arg::Kind::Int: return isUnsigned64 ? Arg(static_cast<uint64_t>(i)) : Arg(i);
    case Arg::Kind::Float: return Arg(f);
    case Arg::Kind::Bool: return Arg(b);
    default: return Arg(nullptr);
  }
}

TESSERA_HOT void Kernel::launch(Device& device, const Grid& grid, std::initializer_list<ArgRef> args, const Meta& constexprs,
                    const LaunchOptions& options) {
  detail::profile::Span span("launch", &impl_->fn->name);
  if (detail::launchFromMemo(*impl_, *device.impl(), grid, args.begin(), args.size(), constexprs, options)) return;
  std::vector<Arg> full = owned(args);
  launchFull(*impl_, device, grid, full.data(), full.size(), constexprs, options);
}

TESSERA_HOT void Kernel::launch(Device& device, const Grid& grid, std::initializer_list<ArgRef> args,
                    std::initializer_list<NamedValue> constexprs, const LaunchOptions& options) {
  detail::profile::Span span("launch", &impl_->fn->name);
  if (detail::launchFromMemo(*impl_, *device.impl(), grid, args.begin(), args.size(),
                             detail::MetaView(constexprs.begin(), constexprs.size()), options))
    return;
  // Not warm: as a Meta, a repeated name keeping its first value (as a
  // braced Meta does).
  Meta meta;
  for (const NamedValue& c : constexprs) meta.emplace(std::string(c.name), c.value);
  std::vector<Arg> full = owned(args);
  launchFull(*impl_, device, grid, full.data(), full.size(), meta, options);
}

bool Kernel::launch_if_warm(Device& device, const Grid& grid, const Arg* args, size_t nargs, const Meta& constexprs,
                            const LaunchOptions& options) {
  detail::profile::Span span("launch", &impl_->fn->name);
  return detail::launchFromMemo(*impl_, *device.impl(), grid, args, nargs, constexprs, options);
}

void GridLaunch::launch(const Arg* args, size_t n) {
  static Device defaultDevice = Device::default_device();
  kernel_.launch(device_ ? *device_ : defaultDevice, grid_, args, n, constexprs_, options_);
}

PreparedLaunch Kernel::prepare(Device& device, const Grid& grid, const std::vector<Arg>& args, const Meta& constexprs,
                               const LaunchOptions& options) {
  std::vector<Arg> rebound;
  Meta renamed;
  bool skipped = skipNamedParameters(*impl_->fn, args.data(), args.size(), constexprs, rebound, renamed);
  auto p = std::make_shared<PreparedLaunch::Impl>(*this, device, grid, skipped ? rebound : args,
                                                  skipped ? renamed : constexprs, options);
  const frontend::JitFunction& fn = *impl_->fn;
  size_t config = autotunePinned(fn, p->args.size(), p->constexprs) ? kPinned : 0;
  if (config != kPinned) refuseHooks(fn);
  if (config != kPinned && fn.hasAutotune && fn.autotune()->configs.size() > 1) {
    SweepHeuristics heuristics{*impl_, p->args, p->constexprs, {}};
    config = detail::autotunedConfig(  // on the options' stream, as in launch()
        *impl_, device, p->args, p->constexprs, options.stream,
        [&](const std::vector<size_t>& candidates) { heuristics.ask(candidates); },
        [&](size_t i) {
          return prepareConfig(*impl_, device, grid, p->args, p->constexprs, options, i, heuristics.of(i));
        },
        [&](size_t i) { launchWithConfig(*impl_, device, grid, p->args, p->constexprs, options, i, heuristics.of(i)); });
  }
  ResolvedLaunch r = resolveLaunch(*impl_, grid, p->args, p->constexprs, options, config);  // checks and compiles
  if (device.is_interpreter()) return PreparedLaunch(std::move(p));
  p->options = r.options;
  p->compiled = r.compiled;
  for (int d = 0; d < 3; ++d) p->dims[d] = r.dims[d];
  p->dk = &detail::deviceKernel(*r.compiled, *device.impl());
  size_t n = p->dk->binary->ptx.params.size();
  p->slots.resize(n);
  p->ptrs.resize(n);
  packParams(*impl_, *r.compiled, *p->dk, *device.impl(), r.bound, p->slots.data(), p->ptrs.data(), p->maps);
  return PreparedLaunch(std::move(p));
}

TESSERA_HOT void PreparedLaunch::launch(void* stream) const {
  Impl& p = *impl_;
  if (!p.dk) {
    p.kernel.launch(p.device, p.grid, p.args, p.constexprs, p.options);
    return;
  }
  if (p.dims[0] * p.dims[1] * p.dims[2] == 0) return;
  void* s = stream ? stream : p.options.stream;
  detail::profile::GpuMark mark = detail::profile::beginGpu(*p.dk->device, s);
  p.dk->device->launch(p.dk->loaded, p.dims, p.dk->blockThreads, p.dk->sharedBytes, s, p.ptrs.data(),
                       detail::launchAttributes(p.options));
  if (mark.device)
    detail::profile::endGpu(mark, s, p.kernel.name(), detail::profile::launchArgs(p.kernel.name(), p.dims, p.dk->blockThreads));
}

void* PreparedLaunch::cu_function() const { return impl_->dk ? impl_->dk->loaded.function : nullptr; }
void** PreparedLaunch::cu_params() const {
  if (impl_->dk && impl_->dk->loaded.globalScratchBytes > 0)
    throw Error("kernel '" + impl_->kernel.name() +
                "': makes TMA descriptors on the device, which need global scratch allocated per launch; launch it "
                "with PreparedLaunch::launch, not with cu_params()");
  return impl_->dk ? impl_->ptrs.data() : nullptr;
}
std::vector<int64_t> PreparedLaunch::grid() const { return {impl_->dims[0], impl_->dims[1], impl_->dims[2]}; }
int PreparedLaunch::block_threads() const { return impl_->dk ? impl_->dk->blockThreads : 0; }
int PreparedLaunch::shared_bytes() const { return impl_->dk ? impl_->dk->sharedBytes : 0; }

}  // namespace tessera
