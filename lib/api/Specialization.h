//===- Specialization.h - Launch arguments -> parameter specs ---*- C++ -*-===//
//
// Binds a launch's positional Args and named constexprs to a kernel's
// parameters and derives Triton's specialization for each (pointer dtype and
// 16-byte alignment, integer width, divisibility by 16, ints equal to 1 and
// None become constexprs). Also parses Triton's AOT signature notation
// ("*fp32:16, i32, i32:16, 1024") for Kernel::compile and the CLI.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <vector>

#include "tessera/frontend/Frontend.h"
#include "tessera/tessera.h"

namespace tessera::detail {

/// Whether an integer argument specializes as divisible by 16 (":16"): a
/// positive multiple of 16. Unlike Triton, 0 and negative multiples do not:
/// code compiled for ":16" may copy with TMA, whose strides and extents
/// must be positive (pointer-tiles-to-tma), and a kernel called with a
/// zero (broadcast) or negative stride gets its own specialization.
inline bool intDivisibleBy16(int64_t v, bool isUnsigned64) {
  return (isUnsigned64 ? v != 0 : v > 0) && static_cast<uint64_t>(v) % 16 == 0;
}

/// One parameter after binding: its spec plus the runtime value (for Scalar
/// and Pointer kinds).
struct BoundParam {
  frontend::ParamSpec spec;
  const Tensor* tensor = nullptr;  ///< Pointer kind; a descriptor's base
  const TensorDescriptor* desc = nullptr;  ///< TensorDesc kind
  int64_t intValue = 0;            ///< Scalar ints / bools
  double floatValue = 0;           ///< Scalar floats
  std::vector<BoundParam> elems;   ///< Tuple kind: its elements
};

/// The bound value of tt.func argument `i` of `compiled` (a tuple
/// parameter's element where CompiledKernelImpl::argPath says).
template <class Compiled>
const BoundParam& boundLeaf(const std::vector<BoundParam>& bound, const Compiled& compiled, size_t i) {
  const BoundParam* b = &bound[static_cast<size_t>(compiled.argToParam[i])];
  if (i < compiled.argPath.size())
    for (int k : compiled.argPath[i]) b = &b->elems[static_cast<size_t>(k)];
  return *b;
}

/// Binds args/constexprs to fn's parameters (positional first, then by name,
/// then `extra` (autotune/heuristics values), then defaults). Throws Error
/// naming the kernel and the argument on a mismatch.
std::vector<BoundParam> bindArguments(const frontend::JitFunction& fn, const std::vector<Arg>& args,
                                      const Meta& constexprs, const Meta& extra);

/// The meta-parameters a grid callable sees: every bound constexpr and scalar.
Meta metaOf(const frontend::JitFunction& fn, const std::vector<BoundParam>& bound);

/// Parses an AOT signature into one spec per parameter of fn. Entries list
/// the non-constexpr parameters in order, or every parameter with constexpr
/// values inline (Triton's form); constexprs fill the rest.
std::vector<frontend::ParamSpec> parseSignature(const frontend::JitFunction& fn, const std::string& signature,
                                                const Meta& constexprs);

/// A stable text key of everything that changes the generated code.
std::string specializationKey(const std::vector<frontend::ParamSpec>& specs, const frontend::CompileOptions& options);

frontend::ConstValue toConstValue(const Value& v);
Value toMetaValue(const frontend::ConstValue& v);

}  // namespace tessera::detail
