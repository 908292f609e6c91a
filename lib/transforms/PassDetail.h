//===- PassDetail.h - Shared pieces of the Tile IR passes -------*- C++ -*-===//
//
// Internal to lib/transforms: the factory of every pass (the registry in
// PassRegistry.cpp is the only caller), the option reader they share, and the
// few IR queries more than one pass asks (is this op free of side effects,
// is this value a constant).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "tessera/ir/IR.h"
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

/// True if the op may be moved, merged or dropped: the Pure trait, or an
/// extern_elementwise / elementwise_inline_asm marked `pure = true`.
/// Terminators are never "removable" even when Pure.
bool isSideEffectFree(const ir::Operation* op);

/// The scalar payload of an arith.constant (int64 bits or double), or
/// nullopt when `v` is not defined by one.
using ConstantValue = std::variant<int64_t, double>;
std::optional<ConstantValue> constantOf(ir::Value v);
/// The integer payload of an integer arith.constant (sign-extended bits).
std::optional<int64_t> intConstantOf(ir::Value v);
/// The payload of a float arith.constant.
std::optional<double> floatConstantOf(ir::Value v);
/// True for an integer or float arith.constant (scalar or splat) equal to 0.
bool isZeroConstant(ir::Value v);

}  // namespace tessera::transforms
