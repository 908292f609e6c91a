//===- tessera/transforms/Passes.h - Tile IR passes -------------*- C++ -*-===//
//
// One registry (STYLE.md §3): every pass has a command-line name, a summary,
// options with defaults, and a factory. `tessera-opt --pass=inline,cse` runs
// any pass alone; the compiler runs tileIRPipeline(). Layers above this one
// (lib/gpu) keep their own table and add it with registerPasses(), so this
// library never depends on them.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tessera/ir/IR.h"

namespace tessera::transforms {

class Pass {
 public:
  virtual ~Pass() = default;
  /// Rewrites the module in place. Throws tessera::Error for user errors.
  virtual void run(ir::Module& module) = 0;
};

struct PassInfo {
  std::string name;     ///< "cse"
  std::string summary;  ///< one sentence
  std::map<std::string, std::string> defaultOptions;
  std::function<std::unique_ptr<Pass>(const std::map<std::string, std::string>& options)> create;
};

/// All registered passes, in a stable order: the Tile IR passes, then those
/// added by registerPasses() in the order they were added.
const std::vector<PassInfo>& passRegistry();
const PassInfo* findPass(std::string_view name);

/// Appends the passes of a higher layer (e.g. gpu::gpuPasses()) to the
/// registry so runPasses() and findPass() know them. Call it explicitly at
/// start-up (tessera-opt's main does), before passes run: it is not
/// synchronized with concurrent runPasses() and invalidates references into
/// passRegistry(). Adding a pass whose name is taken by a pass with the same
/// summary does nothing (registering twice is harmless); a different pass
/// under a taken name throws tessera::Error.
void registerPasses(const std::vector<PassInfo>& passes);

/// Runs passes by spec "a,b{opt=1},c" with the verifier after each one.
/// Throws tessera::Error on unknown passes or verification failures.
void runPasses(ir::Module& module, std::string_view spec);

/// What runPasses can do beyond the registry's passes.
struct PassRunOptions {
  /// Passes looked up before the registry's: a higher layer's table (e.g.
  /// gpu::gpuPasses()) used without registering it, so compiler threads
  /// never write the registry.
  const std::vector<PassInfo>* extraPasses = nullptr;
  /// Called after each pass has run and the module verified, with the
  /// pass's name (TESSERA_DUMP=after-all, tessera-opt --print-ir-after-all).
  std::function<void(const std::string& pass, const ir::Module& module)> afterPass;
};
void runPasses(ir::Module& module, std::string_view spec, const PassRunOptions& run);

/// The Tile IR pipeline the compiler runs after code generation:
/// inline, canonicalize, cse, licm, dce (with the verifier between passes).
void runTileIRPipeline(ir::Module& module);

}  // namespace tessera::transforms
