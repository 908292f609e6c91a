//===- Autotuner.cpp - @triton.autotune on the GPU -------------------------===//
//
// The configs of a kernel's @triton.autotune are benchmarked on the GPU the
// first time a launch brings a new tuning key, like Triton's Autotuner:
//
//   key       the values of the `key` arguments, plus the dtype of every
//             tensor argument, plus the device: a new key tunes again;
//   compiling every config at once, one thread each, before any is timed;
//   timing    testing::do_bench (CUDA events, L2 flush, median), with the
//             decorator's warmup/rep when it gives them; otherwise a race:
//             a short round for every config, a full one for those within
//             5% of the best (see below);
//   pruning   prune_configs_by's early_config_prune, then perf_model keeping
//             top_k, before anything is timed: the C++ hooks of
//             Kernel::set_autotune_hooks when set, else the decorator's own
//             Python callables run by the host evaluator;
//   failures  a config that does not compile or does not fit the device
//             (shared memory, registers) is skipped with the reason;
//   reset_to_zero  these tensors are zeroed before every timed run, and
//             after the sweep for the launch (as Triton; contiguous ones);
//   stream    everything runs on the launch's stream (LaunchOptions::stream):
//             ordered after the caller's work there, waiting for nothing
//             else; a launch whose stream is capturing a CUDA graph cannot
//             time anything and is an Error unless its choice is known;
//   clobbering every tensor argument is saved before the sweep and put back
//             after it (Triton restores only `restore_value`; a sweep must
//             not leave results clobbered), unless TESSERA_AUTOTUNE_RESTORE=0;
//   caching   the winner is kept in memory per kernel and key, and on disk
//             with the compile cache (key: the kernel's source, the configs,
//             the tuning key, the device, the compiler and assembler), so a
//             second process reuses it without benchmarking;
//   printing  TESSERA_PRINT_AUTOTUNING=1 prints every config's time and the
//             winner, as Triton does; otherwise, on a terminal, one line of
//             progress while the configs are timed.
//
// On the interpreter there is no timing model: the first config that
// prune_configs_by keeps is used.
//
//===----------------------------------------------------------------------===//

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <thread>

#include "Internal.h"
#include "Specialization.h"
#include "tessera/runtime/DiskCache.h"
#include "tessera/runtime/Hash.h"
#include "tessera/support/Env.h"
#include "tessera/support/ThreadPool.h"

namespace tessera::detail {

namespace {

std::string describeConfig(const frontend::AutotuneConfig& c) {
  std::ostringstream o;
  bool first = true;
  for (const auto& [name, value] : c.kwargs) {
    o << (first ? "" : ", ") << name << ": " << frontend::toString(value);
    first = false;
  }
  o << (first ? "" : ", ") << "num_warps: " << c.numWarps << ", num_stages: " << c.numStages;
  if (c.numCtas != 1) o << ", num_ctas: " << c.numCtas;
  if (c.maxnreg) o << ", maxnreg: " << *c.maxnreg;
  return o.str();
}

std::string metaValueText(const Value& v) { return frontend::toString(toConstValue(v)); }

/// The tuning key of a launch: the `key` arguments' values and the dtypes of
/// the tensor arguments (Triton keys on both).
std::string tuningKey(const frontend::JitFunction& fn, const std::vector<Arg>& args, const Meta& constexprs) {
  std::ostringstream k;
  for (const std::string& name : fn.autotune()->key) {
    k << name << "=";
    bool found = false;
    for (size_t i = 0; i < fn.params.size() && i < args.size(); ++i) {
      if (fn.params[i].name != name) continue;
      const Arg& a = args[i];
      switch (a.kind) {
        case Arg::Kind::Int: k << a.i; break;
        case Arg::Kind::Float: k << a.f; break;
        case Arg::Kind::Bool: k << a.b; break;
        case Arg::Kind::Null: k << "None"; break;
        case Arg::Kind::Tensor: k << "tensor"; break;
        case Arg::Kind::TensorDesc:  // its sizes are the problem's
          k << "tensordesc";
          for (int64_t d : a.desc->shape) k << "x" << d;
          break;
        case Arg::Kind::Tuple: k << "tuple" << a.tuple_->elems.size(); break;
      }
      found = true;
    }
    if (!found)
      if (auto it = constexprs.find(name); it != constexprs.end()) {
        k << metaValueText(it->second);
        found = true;
      }
    // A parameter the launch leaves at its default: Triton leaves it out of
    // the key; here it keys as "default" (one value per kernel either way).
    if (!found && std::any_of(fn.params.begin(), fn.params.end(), [&](const auto& p) { return p.name == name; })) {
      k << "default";
      found = true;
    }
    if (!found)
      throw Error("kernel '" + fn.name + "': @triton.autotune key '" + name + "' is not a parameter of the kernel");
    k << ";";
  }
  for (const Arg& a : args)
    if ((a.kind == Arg::Kind::Tensor || a.kind == Arg::Kind::TensorDesc) && a.tensor.defined())
      k << dtype_name(a.tensor.dtype()) << ",";
  return k.str();
}

/// `cppHooks`: C++ prune hooks are set (Kernel::set_autotune_hooks); they
/// may keep other configs than the decorator's own prune_configs_by, so
/// their choices are kept apart.
std::string diskKey(const KernelImpl& kernel, const DeviceImpl& device, const std::string& key, bool cppHooks) {
  const frontend::JitFunction& fn = *kernel.fn;
  runtime::Sha256 h;
  h.field("tessera autotune choice");
  for (const auto& [name, value] : toolchainKeyInputs()) h.field(name).field(value);
  const auto& src = fn.program->source();
  h.field(src ? src->name() : "").field(src ? src->text() : "").field(programDigest(fn)).field(fn.name);
  h.field(device.cuda->name()).field(device.cuda->target().name()).field(key);
  for (const auto& c : fn.autotune()->configs) h.field(describeConfig(c));
  if (cppHooks) h.field("c++ prune hooks");
  return h.hexDigest();
}


/// Tensors put back after a sweep: copies of their memory on the device
/// (a copy at memory speed), or on the host when the device has no room.
struct Snapshot {
  void* stream = nullptr;  ///< the sweep's: copies, allocations and frees are ordered there
  struct Saved {
    std::shared_ptr<TensorStorage> storage;
    runtime::DevicePtr copy = 0;  ///< device copy, or 0
    std::vector<char> bytes;      ///< host copy when there is no device copy
  };
  std::vector<Saved> saved;

  /// Saves the CUDA tensors among `args`; with `written`, only those of
  /// the parameters it marks (the kernel may write no other).
  void take(const std::vector<Arg>& args, const std::optional<std::vector<bool>>& written) {
    for (size_t i = 0; i < args.size(); ++i) {
      if (written && i < written->size() && !(*written)[i]) continue;
      takeArg(args[i]);
    }
  }
  /// One argument's CUDA tensor (a descriptor's base; a tuple's, each).
  void takeArg(const Arg& a) {
    if (a.kind == Arg::Kind::Tuple) {
      for (const Arg& e : a.tuple_->elems) takeArg(e);
      return;
    }
    if ((a.kind != Arg::Kind::Tensor && a.kind != Arg::Kind::TensorDesc) || !a.tensor.defined()) return;
    const auto& storage = a.tensor.storage();
    if (storage->kind != DeviceKind::Cuda) return;
    bool seen = false;
    for (const Saved& s : saved) seen = seen || s.storage == storage;
    if (seen) return;
    Saved s{storage, 0, {}};
    try {
      s.copy = storage->cuda->allocate(storage->bytes, stream);
      storage->cuda->copyWithinDeviceAsync(s.copy, storage->devicePtr(), storage->bytes, stream);
    } catch (const Error&) {
      if (s.copy) storage->cuda->release(s.copy, stream);
      s.copy = 0;
      s.bytes.resize(storage->bytes);
      storage->cuda->synchronize(stream);  // the stream's writes are in
      storage->cuda->copyToHost(s.bytes.data(), storage->devicePtr(), storage->bytes);
    }
    saved.push_back(std::move(s));
  }
  void restore() {
    for (Saved& s : saved) {
      if (s.copy) {
        s.storage->cuda->copyWithinDeviceAsync(s.storage->devicePtr(), s.copy, s.storage->bytes, stream);
      } else {
        s.storage->cuda->synchronize(stream);  // the timed runs are done
        s.storage->cuda->copyToDevice(s.storage->devicePtr(), s.bytes.data(), s.bytes.size());
      }
    }
  }
  ~Snapshot() {
    for (const Saved& s : saved)
      if (s.copy) s.storage->cuda->release(s.copy, stream);
  }
};

/// The launch's scalar arguments and constexprs by name, for the hooks.
Meta namedArgs(const frontend::JitFunction& fn, const std::vector<Arg>& args, const Meta& constexprs) {
  Meta named = constexprs;
  for (size_t i = 0; i < args.size() && i < fn.params.size(); ++i) {
    const Arg& a = args[i];
    switch (a.kind) {
      case Arg::Kind::Int: named[fn.params[i].name] = a.i; break;
      case Arg::Kind::Float: named[fn.params[i].name] = a.f; break;
      case Arg::Kind::Bool: named[fn.params[i].name] = a.b; break;
      default: break;
    }
  }
  return named;
}

/// prune_configs_by's Python callables, run by the host evaluator, in
/// Triton's order: early_config_prune, then perf_model keeping top_k.
std::vector<size_t> hostPrunedConfigs(const frontend::JitFunction& fn, const frontend::AutotuneSpec& spec,
                                      const std::vector<Arg>& args, const Meta& constexprs) {
  frontend::HostArgs named, kwargs;
  hostArgs(fn, args, constexprs, named, kwargs);
  std::vector<size_t> keep(spec.configs.size());
  for (size_t i = 0; i < keep.size(); ++i) keep[i] = i;
  if (spec.earlyConfigPrune) keep = fn.program->evalEarlyConfigPrune(spec, named, kwargs);
  if (spec.perfModel) {
    size_t k = spec.topKFraction ? std::max<size_t>(1, static_cast<size_t>(spec.topK * keep.size()))
                                 : static_cast<size_t>(spec.topK);
    if (keep.size() > k) {
      std::vector<std::pair<double, size_t>> estimates;
      for (size_t i : keep) estimates.push_back({fn.program->evalPerfModel(spec, i, named, kwargs), i});
      std::stable_sort(estimates.begin(), estimates.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      keep.clear();
      for (size_t j = 0; j < k; ++j) keep.push_back(estimates[j].second);
    }
  }
  return keep;
}

/// prune_configs_by, in Triton's order: early_config_prune, then perf_model
/// with top_k. Returns the indices of the configs to time: C++ hooks
/// (Kernel::set_autotune_hooks) when given, else the decorator's own Python
/// callables on the host evaluator.
std::vector<size_t> prunedConfigs(const frontend::JitFunction& fn, const AutotuneHooks* hooks,
                                  const std::vector<Arg>& args, const Meta& constexprs) {
  const frontend::AutotuneSpec& spec = *fn.autotune();
  std::vector<size_t> keep(spec.configs.size());
  for (size_t i = 0; i < keep.size(); ++i) keep[i] = i;
  if (hooks && hooks->where_the_host_evaluator_cannot) {
    if (!spec.hasPruneConfigsBy) return keep;
    if (spec.earlyConfigPrune || spec.perfModel) {
      try {
        return hostPrunedConfigs(fn, spec, args, constexprs);
      } catch (const Error&) {
        // Python the host evaluator does not model: the hooks decide.
      }
    }
  } else if (!hooks) {
    if (!spec.hasPruneConfigsBy) return keep;
    if (!spec.earlyConfigPrune && !spec.perfModel)
      throw Error("kernel '" + fn.name +
                  "': @triton.autotune(prune_configs_by=...) could not be read as a dict of callables; "
                  "give its C++ form with Kernel::set_autotune_hooks (early_config_prune, perf_model, top_k), "
                  "or drop prune_configs_by to time every config");
    return hostPrunedConfigs(fn, spec, args, constexprs);
  }
  std::vector<AutotuneConfig> configs;
  for (const auto& c : spec.configs) configs.push_back(publicConfig(c));
  Meta named = namedArgs(fn, args, constexprs);
  if (hooks->early_config_prune) {
    keep = hooks->early_config_prune(configs, named);
    for (size_t i : keep)
      if (i >= configs.size())
        throw Error("kernel '" + fn.name + "': early_config_prune returned config " + std::to_string(i) + " of " +
                    std::to_string(configs.size()));
    if (keep.empty()) throw Error("kernel '" + fn.name + "': early_config_prune kept no config");
  }
  if (hooks->perf_model && hooks->top_k > 0) {
    size_t k = hooks->top_k < 1 ? std::max<size_t>(1, static_cast<size_t>(hooks->top_k * keep.size()))
                                : static_cast<size_t>(hooks->top_k);
    if (keep.size() > k) {
      std::vector<std::pair<double, size_t>> estimates;
      for (size_t i : keep) estimates.push_back({hooks->perf_model(configs[i], named), i});
      std::stable_sort(estimates.begin(), estimates.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      keep.clear();
      for (size_t j = 0; j < k; ++j) keep.push_back(estimates[j].second);
    }
  }
  return keep;
}

}  // namespace

/// A launch argument as host code (heuristics, prune hooks) sees it.
static frontend::HostArg hostArgOf(const Arg& a) {
  frontend::HostArg h;
  switch (a.kind) {
    case Arg::Kind::Int: h.value = a.i; break;
    case Arg::Kind::Float: h.value = a.f; break;
    case Arg::Kind::Bool: h.value = a.b; break;
    case Arg::Kind::Null: break;
    case Arg::Kind::Tuple:
      h.isTuple = true;
      for (const Arg& e : a.tuple_->elems) h.elems.push_back(hostArgOf(e));
      break;
    case Arg::Kind::Tensor: case Arg::Kind::TensorDesc:
      h.isTensor = true;
      h.dtype = dtype_name(a.tensor.dtype());
      h.shape = a.tensor.shape();
      h.strides = a.tensor.strides();
      h.dataPtr = a.tensor.data_ptr();
      break;
  }
  return h;
}

/// The launch's arguments as prune_configs_by's Python callables see them:
/// the positional ones by name (tensors included), and those given by name.
void hostArgs(const frontend::JitFunction& fn, const std::vector<Arg>& args, const Meta& constexprs,
              frontend::HostArgs& named, frontend::HostArgs& kwargs) {
  for (size_t i = 0; i < args.size() && i < fn.params.size(); ++i) {
    named.emplace_back(fn.params[i].name, hostArgOf(args[i]));
  }
  for (const auto& [name, v] : constexprs) {
    frontend::HostArg h;
    h.value = toConstValue(v);
    kwargs.emplace_back(name, std::move(h));
  }
}

AutotuneConfig publicConfig(const frontend::AutotuneConfig& c) {
  AutotuneConfig p;
  for (const auto& [name, value] : c.kwargs) p.kwargs[name] = toMetaValue(value);
  p.num_warps = c.numWarps;
  p.num_stages = c.numStages;
  p.num_ctas = c.numCtas;
  p.maxnreg = c.maxnreg;
  return p;
}

/// The arguments reset_to_zero names: tensors (a descriptor's base too).
static std::vector<size_t> resetArguments(const frontend::JitFunction& fn, const std::vector<Arg>& args) {
  std::vector<size_t> out;
  for (const std::string& name : fn.autotune()->resetToZero)
    for (size_t i = 0; i < fn.params.size() && i < args.size(); ++i)
      if (fn.params[i].name == name && (args[i].kind == Arg::Kind::Tensor || args[i].kind == Arg::Kind::TensorDesc) &&
          args[i].tensor.defined())
        out.push_back(i);
  return out;
}

/// As Triton after tuning a key (its pre_hook(reset_only=True)): the launch
/// that follows starts from zeroed reset_to_zero tensors. Contiguous views
/// only (a strided view is left as it was: zeroing its whole allocation
/// could clear memory it does not cover).
static void zeroResetTensors(const frontend::JitFunction& fn, const std::vector<Arg>& args, void* stream) {
  for (size_t i : resetArguments(fn, args)) {
    const Tensor& t = args[i].tensor;
    if (args[i].kind != Arg::Kind::Tensor || !t.is_contiguous() || t.numel() == 0) continue;
    size_t bytes = static_cast<size_t>(t.numel()) * dtype_size(t.dtype());
    const TensorStorage& s = *t.storage();
    if (s.kind == DeviceKind::Cuda) s.cuda->memset8Async(t.data_ptr(), 0, bytes, stream);
    else std::memset(reinterpret_cast<void*>(t.data_ptr()), 0, bytes);
  }
}

size_t autotunedConfig(KernelImpl& kernel, Device& device, const std::vector<Arg>& args, const Meta& constexprs,
                       void* stream, const std::function<void(const std::vector<size_t>&)>& beforeCompile,
                       const std::function<std::optional<std::vector<bool>>(size_t)>& prepareConfig,
                       const std::function<void(size_t)>& launchConfig) {
  const frontend::JitFunction& fn = *kernel.fn;
  const frontend::AutotuneSpec& spec = *fn.autotune();
  if (spec.configs.size() == 1) return 0;
  AutotuneMemory& memory = kernel.cache->autotune;
  if (device.is_interpreter()) {
    // Nothing is timed: the first config prune_configs_by keeps runs.
    std::optional<AutotuneHooks> hooks;
    {
      std::lock_guard<std::mutex> lock(memory.mutex);
      hooks = memory.hooks;
    }
    size_t first = prunedConfigs(fn, hooks ? &*hooks : nullptr, args, constexprs).front();
    // A key's first launch is where Triton tunes, and then zeroes the
    // reset_to_zero tensors: so here too.
    bool tunedNow;
    {
      std::lock_guard<std::mutex> lock(memory.mutex);
      tunedNow = memory.best.emplace(device.name() + "|" + tuningKey(fn, args, constexprs), first).second;
      memory.last = first;
    }
    if (tunedNow) zeroResetTensors(fn, args, stream);
    return first;
  }
  DeviceImpl& dev = *device.impl();
  std::string key = device.name() + "|" + tuningKey(fn, args, constexprs);
  std::optional<AutotuneHooks> hooks;
  {
    std::lock_guard<std::mutex> lock(memory.mutex);
    if (auto it = memory.best.find(key); it != memory.best.end()) return *(memory.last = it->second);
    hooks = memory.hooks;
  }
  bool print = env::flag("TESSERA_PRINT_AUTOTUNING");
  std::string dir = runtime::cacheDirectory();
  std::string entryKey = dir.empty() ? "" : diskKey(kernel, dev, key, hooks.has_value());
  // An entry is intact when its choice names one of this kernel's configs
  // as it is described now; any other is replaced by the next sweep's.
  auto parseChoice = [&](const runtime::CacheFiles& files) -> std::optional<size_t> {
    auto it = files.find("choice");
    if (it == files.end()) return std::nullopt;
    std::istringstream in(it->second);
    size_t index = 0;
    std::string description;
    if (!(in >> index) || !std::getline(in >> std::ws, description)) return std::nullopt;
    if (index >= spec.configs.size() || describeConfig(spec.configs[index]) != description) return std::nullopt;
    return index;
  };
  auto intact = [&](const runtime::CacheFiles& files) { return parseChoice(files).has_value(); };
  if (!dir.empty() && !env::flag("TESSERA_ALWAYS_COMPILE")) {
    if (auto files = runtime::loadCacheEntry(dir, entryKey, intact)) {
      size_t index = *parseChoice(*files);
      if (print)
        std::fprintf(stderr, "Tessera autotuning for function %s: cached on disk, best config selected: %s;\n",
                     fn.name.c_str(), describeConfig(spec.configs[index]).c_str());
      std::lock_guard<std::mutex> lock(memory.mutex);
      memory.best[key] = index;
      return *(memory.last = index);
    }
  }

  // The sweep, over the configs prune_configs_by keeps, on the launch's
  // stream: the snapshot, resets, timed runs and restore are ordered after
  // the caller's work there, and only that stream is waited for.
  if (dev.cuda->capturing(stream))
    throw Error("kernel '" + fn.name + "': @triton.autotune has no timed choice yet for this launch (key " + key +
                ") and its stream is being captured into a CUDA graph, where nothing can be timed; launch it once "
                "with arguments of the same key before the capture, or pin a config");
  profile::Span span("autotune", fn.name);
  span.arg("key", key);
  std::vector<size_t> candidates = prunedConfigs(fn, hooks ? &*hooks : nullptr, args, constexprs);
  auto start = std::chrono::steady_clock::now();
  testing::BenchOptions bench;
  if (spec.warmup) bench.warmup_ms = static_cast<int>(*spec.warmup);
  if (spec.rep) bench.rep_ms = static_cast<int>(*spec.rep);
  bench.stream = stream;
  std::vector<std::shared_ptr<TensorStorage>> zeroed;
  std::vector<bool> resetParams(fn.params.size(), false);  // cleared before every timed run
  for (size_t i : resetArguments(fn, args))
    if (args[i].tensor.storage()->kind == DeviceKind::Cuda) {
      zeroed.push_back(args[i].tensor.storage());
      resetParams[i] = true;
    }
  Snapshot snapshot;
  snapshot.stream = stream;
  bool restore = env::flag("TESSERA_AUTOTUNE_RESTORE", true);
  // Every config compiles and loads at once, one thread each (compilation
  // is pure C++ and the caches are thread-safe); timing then runs them one
  // by one on the GPU.
  size_t count = spec.configs.size();
  std::vector<std::string> prepareErrors(count);
  std::vector<std::optional<std::vector<bool>>> written(count);
  beforeCompile(candidates);
  ThreadPool::shared().parallelFor(candidates.size(), [&](size_t j) {
    size_t i = candidates[j];
    try {
      written[i] = prepareConfig(i);
    } catch (const std::exception& e) {
      prepareErrors[i] = e.what();
      if (prepareErrors[i].empty()) prepareErrors[i] = "failed to compile";
    }
  });
  auto compiled = std::chrono::steady_clock::now();
  // What the sweep may clobber: the reset_to_zero tensors and those any
  // compiled config may write (every tensor when one of them cannot tell),
  // saved before the first run.
  if (restore) {
    std::optional<std::vector<bool>> mayWrite = resetParams;
    for (size_t i : candidates) {
      if (!prepareErrors[i].empty()) continue;
      if (!written[i]) {
        mayWrite.reset();
        break;
      }
      for (size_t p = 0; p < mayWrite->size() && p < written[i]->size(); ++p)
        if ((*written[i])[p]) (*mayWrite)[p] = true;
    }
    snapshot.take(args, mayWrite);
  }
  auto saved = std::chrono::steady_clock::now();
  // Timing. With the decorator's warmup/rep, every config gets exactly that
  // budget, as in Triton. Without them, a race: every config for a short
  // round (5 ms warm-up, 10 ms of runs), then only those within 5% of the
  // best round's median again for a full one (25 ms of runs); the best
  // median of the last round it ran wins. The short round already tells a
  // clearly slower config apart (its median has hundreds of runs for a
  // memory-bound kernel), so the sweep spends its time where it matters.
  bool userBudget = spec.warmup.has_value() || spec.rep.has_value();
  testing::BenchOptions shortRound;
  shortRound.warmup_ms = 5;
  shortRound.rep_ms = 10;
  shortRound.stream = stream;
  testing::BenchOptions fullRound;
  fullRound.warmup_ms = 5;
  fullRound.rep_ms = 25;
  fullRound.stream = stream;
  std::vector<double> medians(count, -1);
  std::vector<std::string> report(count);
  auto time = [&](size_t i, const testing::BenchOptions& budget) {
    std::string what = describeConfig(spec.configs[i]);
    try {
      if (!prepareErrors[i].empty()) throw Error(prepareErrors[i]);
      auto run = [&] {
        for (const auto& z : zeroed) z->cuda->memset8Async(z->devicePtr(), 0, z->bytes, stream);
        launchConfig(i);
      };
      if (medians[i] < 0) {
        run();  // surfaces launch errors before timing
        dev.cuda->synchronize(stream);
      }
      medians[i] = testing::do_bench(device, run, budget).median_ms;
      report[i] = what + ": " + std::to_string(medians[i] * 1e3) + " us";
    } catch (const Error& e) {
      std::string why = e.what();
      if (size_t nl = why.find('\n'); nl != std::string::npos) why = why.substr(0, nl);
      medians[i] = -1;
      report[i] = what + ": skipped (" + why + ")";
      // Always said (Triton raises on errors other than running out of
      // resources; a silently skipped config would hide a broken kernel).
      std::fprintf(stderr, "Tessera autotuning for function %s: config %s skipped: %s\n", fn.name.c_str(),
                   what.c_str(), why.c_str());
      dev.cuda->synchronize(stream);  // a fault here poisons the context: let it surface as such
    }
  };
  profile::SweepScope sweepRuns;  // the runs below are the sweep's, not the program's launches
  // On a terminal, a line of progress while the configs are timed (erased
  // after; TESSERA_PRINT_AUTOTUNING prints the full report instead).
  bool tty = !print && isatty(STDERR_FILENO);
  size_t timed = 0;
  auto progress = [&] {
    if (tty) std::fprintf(stderr, "\rtessera: autotuning %s: %zu/%zu configs timed", fn.name.c_str(), ++timed,
                          candidates.size());
  };
  for (size_t i : candidates) {
    time(i, userBudget ? bench : shortRound);
    progress();
  }
  if (tty) std::fprintf(stderr, "\r\033[K");
  for (size_t i = 0; i < count; ++i)
    if (report[i].empty()) report[i] = describeConfig(spec.configs[i]) + ": pruned (prune_configs_by)";
  auto fastest = [&] {
    size_t b = count;
    for (size_t i = 0; i < count; ++i)
      if (medians[i] >= 0 && (b == count || medians[i] < medians[b])) b = i;
    return b;
  };
  size_t best = fastest();
  if (!userBudget && best < count) {
    double cut = medians[best] * 1.05;
    std::vector<size_t> contenders;
    for (size_t i = 0; i < count; ++i)
      if (medians[i] >= 0 && medians[i] <= cut) contenders.push_back(i);
    if (contenders.size() > 1) {
      for (size_t i = 0; i < count; ++i)
        if (medians[i] > cut) report[i] += " (short round only)";
      for (size_t i : contenders) time(i, fullRound);
      best = count;
      for (size_t i : contenders)
        if (medians[i] >= 0 && (best == count || medians[i] < medians[best])) best = i;
    }
  }
  if (restore) snapshot.restore();  // ordered before the winner's launch on the same stream
  zeroResetTensors(fn, args, stream);
  if (best >= count)
    throw Error("kernel '" + fn.name + "': @triton.autotune: no config compiled and ran on " + device.name() + ":\n  " +
                [&] {
                  std::string all;
                  for (const auto& r : report) all += (all.empty() ? "" : "\n  ") + r;
                  return all;
                }());
  auto finished = std::chrono::steady_clock::now();
  auto ms = [](auto from, auto to) { return std::chrono::duration<double, std::milli>(to - from).count(); };
  double seconds = ms(start, finished) / 1e3;
  span.arg("best", describeConfig(spec.configs[best]));
  // Where the time went: compiling (in parallel), saving the tensors, timing (and restoring).
  char phases[160];
  std::snprintf(phases, sizeof phases, "compile %.1f ms, save %.1f ms, time and restore %.1f ms", ms(start, compiled),
                ms(compiled, saved), ms(saved, finished));
  span.arg("phases", phases);
  if (print) {
    for (const auto& r : report) std::fprintf(stderr, "  %s\n", r.c_str());
    std::fprintf(stderr, "Tessera autotuning for function %s finished after %.2fs (%s); best config selected: %s;\n",
                 fn.name.c_str(), seconds, phases, describeConfig(spec.configs[best]).c_str());
  }
  if (!dir.empty())
    runtime::publishCacheEntry(dir, entryKey,
                               {{"choice", std::to_string(best) + " " + describeConfig(spec.configs[best]) + "\n"}},
                               intact);
  std::lock_guard<std::mutex> lock(memory.mutex);
  memory.best[key] = best;
  return *(memory.last = best);
}

}  // namespace tessera::detail
