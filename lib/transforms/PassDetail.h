//===- PassDetail.h - Shared pieces of the Tile IR passes -------*- C++ -*-===//
//
// Internal to lib/transforms: the factory of every pass (the registry in
// PassRegistry.cpp is the only caller) and the option reader they share.
// The IR queries they share (constants, side effects) are
// tessera/ir/Matchers.h.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "tessera/ir/IR.h"
#include "tessera/ir/Matchers.h"
#include "tessera/transforms/Passes.h"

namespace tessera::transforms {

using PassOptions = std::map<std::string, std::string>;

std::unique_ptr<Pass> createInlinerPass(const PassOptions& options);
/// The inliner's default budget: no function grows past this many ops.
inline constexpr int64_t kDefaultInlineBudget = 250000;
std::unique_ptr<Pass> createCanonicalizePass(const PassOptions& options);
std::unique_ptr<Pass> createCSEPass(const PassOptions& options);
std::unique_ptr<Pass> createDCEPass(const PassOptions& options);
std::unique_ptr<Pass> createLICMPass(const PassOptions& options);

/// Reads a boolean option ("true"/"false"/"1"/"0"), `dflt` when absent (the
/// registry passes every default; factories called directly may not).
/// Throws tessera::Error naming the pass on anything else.
bool boolOption(const PassOptions& options, const std::string& pass, const std::string& name, bool dflt);
/// Reads an integer option; throws tessera::Error naming the pass on junk.
int64_t intOption(const PassOptions& options, const std::string& pass, const std::string& name,
                  int64_t dflt);


}  // namespace tessera::transforms
