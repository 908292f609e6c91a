//===- Compile.cpp - Specializing and compiling a kernel --------------------===//
//
// A launch's specialization (argument types, divisibility, constexprs) goes
// through the frontend and the Tile IR pipeline once: compileSpecialization
// caches the result per kernel under the specialization key, says why a
// launch compiled again (TESSERA_PRINT_RECOMPILES) and names the
// specialization in compile errors. compileOptions turns launch options
// into the frontend's, checked. The GPU stages are GpuStages.cpp's.
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

namespace tessera::detail {

using frontend::ParamSpec;

/// "note: while compiling kernel 'k' for 'x' *fp32:16, 'n' i32, 'BLOCK' = 128":
/// appended to compile errors so a wrongly typed argument is easy to spot.
/// "*fp32:16", "i32", "= 128", "(*fp32:16, = 1)": one parameter's
/// specialization as notes and the recompile report show it.
std::string specText(const ParamSpec& s) {
  if (s.kind == ParamSpec::Kind::Constexpr) return "= " + frontend::toString(s.value);
  if (s.kind == ParamSpec::Kind::Tuple) {
    std::string t = s.typeName + "(";
    for (size_t k = 0; k < s.elems.size(); ++k)
      t += (k ? ", " : "") + (k < s.fields.size() ? s.fields[k] + "=" : std::string()) + specText(s.elems[k]);
    return t + ")";
  }
  return s.type.str() + (s.divisibleBy16 ? ":16" : "");
}

static std::string specializationNote(const frontend::JitFunction& fn, const std::vector<ParamSpec>& specs) {
  std::string note = "note: while compiling kernel '" + fn.name + "' for ";
  for (size_t i = 0; i < specs.size() && i < fn.params.size(); ++i) {
    const ParamSpec& s = specs[i];
    note += (i ? ", '" : "'") + fn.params[i].name + "' " + specText(s) +
            (s.kind == ParamSpec::Kind::Pointer ? " (a tensor)" : "");
  }
  return note;
}

/// TESSERA_PRINT_RECOMPILES=1: why a launch compiles again: what differs
/// from the closest specialization compiled before (the fewest parameters
/// and options that differ), or that it is the kernel's first.
static void reportRecompile(const KernelImpl& kernel, const std::vector<ParamSpec>& specs,
                            const frontend::CompileOptions& options) {
  if (!env::flag("TESSERA_PRINT_RECOMPILES")) return;
  const frontend::JitFunction& fn = *kernel.fn;
  std::vector<std::string> bestDiff;
  bool any = false;
  {
    std::lock_guard<std::mutex> lock(kernel.cache->mutex);
    for (const auto& [key, previous] : kernel.cache->entries) {
      if (previous->specs.size() != specs.size()) continue;
      std::vector<std::string> diff;
      for (size_t i = 0; i < specs.size(); ++i) {
        std::string now = specText(specs[i]), before = specText(previous->specs[i]);
        if (now != before)
          diff.push_back("'" + (i < fn.params.size() ? fn.params[i].name : std::to_string(i)) + "' " + now +
                         " (was " + before + ")");
      }
      if (previous->options.numWarps != options.numWarps)
        diff.push_back("num_warps " + std::to_string(options.numWarps) + " (was " +
                       std::to_string(previous->options.numWarps) + ")");
      if (previous->options.numStages != options.numStages)
        diff.push_back("num_stages " + std::to_string(options.numStages) + " (was " +
                       std::to_string(previous->options.numStages) + ")");
      if (previous->options.maxNumRegisters != options.maxNumRegisters)
        diff.push_back("maxnreg " + std::to_string(options.maxNumRegisters) + " (was " +
                       std::to_string(previous->options.maxNumRegisters) + ")");
      if (previous->options.debug != options.debug)
        diff.push_back(std::string("debug ") + (options.debug ? "on" : "off"));
      if (!any || diff.size() < bestDiff.size()) bestDiff = diff;
      any = true;
    }
  }
  std::string line = "tessera: compiling kernel '" + fn.name + "'";
  if (!any) {
    line += ": its first specialization";
  } else {
    line += " again:";
    for (size_t i = 0; i < bestDiff.size(); ++i) line += (i ? "; " : " ") + bestDiff[i];
  }
  std::cerr << line << "\n";
}

std::shared_ptr<CompiledKernelImpl> compileSpecialization(KernelImpl& kernel, const std::vector<ParamSpec>& specs,
                                                          const frontend::CompileOptions& options) {
  std::string key = specializationKey(specs, options);
  {
    std::lock_guard<std::mutex> lock(kernel.cache->mutex);
    auto it = kernel.cache->entries.find(key);
    if (it != kernel.cache->entries.end()) return it->second;
  }
  reportRecompile(kernel, specs, options);
  profile::Span span("compile", "ttir ", kernel.fn->name);
  frontend::CompileResult result;
  try {
    result = kernel.fn->program->compile(*kernel.fn, specs, options);
  } catch (const Error& e) {
    throw Error(std::string(e.what()) + "\n" + specializationNote(*kernel.fn, specs));
  }
  transforms::runTileIRPipeline(*result.module);
  auto compiled = std::make_shared<CompiledKernelImpl>();
  compiled->name = result.kernelName;
  compiled->ttir = ir::print(*result.module);
  compiled->module = std::move(result.module);
  compiled->argToParam = std::move(result.argToParam);
  compiled->argComponent = std::move(result.argComponent);
  compiled->argPath = std::move(result.argPath);
  compiled->numWarps = options.numWarps;
  compiled->numStages = options.numStages;
  compiled->maxNumRegisters = options.maxNumRegisters;
  compiled->debug = options.debug;
  compiled->specializationKey = key;
  compiled->specs = specs;
  for (const auto& p : kernel.fn->params) compiled->paramNames.push_back(p.name);
  compiled->options = options;
  compiled->source = kernel.fn->program->source();
  compiled->modulesDigest = programDigest(*kernel.fn);
  dumpStage("ttir", *compiled, "", compiled->ttir);
  std::lock_guard<std::mutex> lock(kernel.cache->mutex);
  return kernel.cache->entries.emplace(key, compiled).first->second;
}

frontend::CompileOptions compileOptions(const frontend::JitFunction& fn, const LaunchOptions& options) {
  frontend::CompileOptions o;
  o.debug = fn.debug || env::flag("TESSERA_DEBUG") || env::flag("TRITON_DEBUG");
  o.numWarps = options.num_warps;
  o.numStages = options.num_stages;
  // TESSERA_MAXNREG caps kernels launched without their own maxnreg; as
  // part of the options it is in the specialization and cache keys.
  o.maxNumRegisters = options.maxnreg ? options.maxnreg : static_cast<int>(env::integer("TESSERA_MAXNREG").value_or(0));
  if (o.maxNumRegisters != 0 && (o.maxNumRegisters < 16 || o.maxNumRegisters > 255))
    throw Error("kernel '" + fn.name + "': maxnreg must be between 16 and 255 registers per thread (0: no cap), got " +
                std::to_string(o.maxNumRegisters));
  if (o.numWarps < 1 || o.numWarps > 32 || (o.numWarps & (o.numWarps - 1)))
    throw Error("kernel '" + fn.name + "': num_warps must be a power of 2 between 1 and 32, got " +
                std::to_string(o.numWarps));
  if (o.numStages < 1) throw Error("kernel '" + fn.name + "': num_stages must be at least 1");
  o.numCtas = options.num_ctas;
  if (o.numCtas < 1 || o.numCtas > 8 || (o.numCtas & (o.numCtas - 1)))
    throw Error("kernel '" + fn.name + "': num_ctas must be 1, 2, 4 or 8 (a thread-block cluster's size), got " +
                std::to_string(o.numCtas));
  return o;
}

}  // namespace tessera::detail
