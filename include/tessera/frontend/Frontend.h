//===- tessera/frontend/Frontend.h - Triton source -> Tile IR --*- C++ -*-===//
//
// The frontend's contract with the runtime:
//
//   auto program = frontend::SourceProgram::load(source);   // parse + index
//   const frontend::JitFunction* fn = program->find("softmax_kernel");
//   std::vector<frontend::ParamSpec> specs = ...;             // one per parameter
//   frontend::CompileResult r = program->compile("softmax_kernel", specs, {});
//   // r.module: Tile IR with one kernel function (callees inlined unless
//   // noinline), not yet optimised (the caller runs the pass pipeline).
//
// A SourceProgram parses the whole file (any valid Python 3.12) and indexes
// the @triton.jit functions, their decorators (@triton.autotune,
// @triton.heuristics, @triton.jit(...) arguments, kept for the runtime) and
// the module-level names they may use (constexpr globals, plain ints/floats,
// imports of triton / triton.language / libdevice).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "tessera/ir/IR.h"
#include "tessera/support/Diagnostics.h"

namespace tessera::py {
struct Module;
struct FunctionDef;
struct Expr;
}  // namespace tessera::py

namespace tessera::frontend {

/// A host-side constant: what a constexpr parameter, a decorator argument or
/// a module-level constant evaluates to. Strings that name a dtype
/// ("fp16", "tl.float16", "float16") are accepted where a dtype is expected.
using ConstValue = std::variant<std::monostate /*None*/, bool, int64_t, double, std::string>;
std::string toString(const ConstValue& v);

/// One parameter of a @triton.jit function.
struct Parameter {
  std::string name;
  bool isConstexpr = false;          ///< annotated tl.constexpr (object or string form)
  std::optional<std::string> annotatedType;  ///< e.g. "tl.int32" / "fp32" pins the type
  std::optional<ConstValue> defaultValue;    ///< evaluated default, if any
  bool hasDefault = false;
  SourceLoc loc;
};

/// `triton.Config(kwargs, num_warps=, num_stages=, num_ctas=, maxnreg=)`.
struct AutotuneConfig {
  std::map<std::string, ConstValue> kwargs;
  int numWarps = 4;
  int numStages = 3;
  int numCtas = 1;
  std::optional<int> maxnreg;
  bool hasPreHook = false;
};

/// `@triton.autotune(...)` as written (Python callables are not run; their
/// presence is recorded so the runtime can point users to the C++ hooks).
struct AutotuneSpec {
  std::vector<AutotuneConfig> configs;
  std::vector<std::string> key;
  std::vector<std::string> resetToZero;
  std::vector<std::string> restoreValue;
  std::optional<double> warmup, rep;
  bool hasPruneConfigsBy = false, hasPreHook = false, hasPostHook = false, hasDoBench = false;
  bool cacheResults = false;
  SourceLoc loc;
};

/// `@triton.heuristics({name: lambda args: expr})`: the lambda bodies are kept
/// as expressions the runtime evaluates over the launch arguments.
struct HeuristicSpec {
  std::string name;
  const py::Expr* body = nullptr;   ///< the lambda body (owned by the Module)
  std::string argName;              ///< the lambda's parameter name ("args")
  SourceLoc loc;
};

/// A @triton.jit function of the file.
struct JitFunction {
  std::string name;
  const py::FunctionDef* def = nullptr;  ///< owned by the SourceProgram's Module
  std::vector<Parameter> params;
  bool noinline = false;
  bool debug = false;
  std::vector<std::string> doNotSpecialize;
  std::vector<std::string> doNotSpecializeOnAlignment;
  std::optional<AutotuneSpec> autotune;
  std::vector<HeuristicSpec> heuristics;
  SourceLoc loc;
};

/// How one parameter is specialized for a compilation (Triton's key).
struct ParamSpec {
  enum class Kind {
    Pointer,    ///< `type` = "*fp32", "*kfp16" (const), ...
    Scalar,     ///< `type` = "i1" "i8".."i64" "u8".."u64" "fp16" "bf16" "fp32" "fp64"
    Constexpr,  ///< `value` holds it (also ints specialized to 1 and None args)
    TensorDesc,  ///< a host tensor descriptor: `type` = "tensordesc<fp16[64, 64]>" (TensorDescType)
  };
  Kind kind = Kind::Scalar;
  std::string type;
  bool divisibleBy16 = false;  ///< "D": pointer 16-byte aligned / int % 16 == 0
  ConstValue value;
};

/// The parameter type of a host tensor descriptor: "tensordesc<fp16[64, 64]>",
/// "tensordesc<fp32[16, 32], nan>" with NaN padding (Triton's signature form).
/// The kernel receives it as tt.func arguments: the base pointer, the shape
/// (i64 per dim) and the strides but the last (i64; the last is 1).
struct TensorDescType {
  std::string dtype;            ///< element type, "fp16"
  std::vector<int64_t> block;   ///< the block each load and store moves
  std::string padding = "zero";
  /// std::nullopt when `type` is not of this form.
  static std::optional<TensorDescType> parse(const std::string& type);
  std::string str() const;
};

struct CompileOptions {
  bool debug = false;  ///< device_assert enabled (TRITON_DEBUG / @jit(debug=True))
  int numWarps = 4;
  int numStages = 3;
  int maxNumRegisters = 0;  ///< `.maxnreg` (GPU code only; 0: none); part of the specialization
};

struct CompileResult {
  std::unique_ptr<ir::Module> module;
  std::string kernelName;
  /// For each tt.func argument of the kernel: the index of the Python parameter
  /// it comes from (constexpr and specialized parameters have no argument).
  std::vector<int> argToParam;
  /// For each argument, which part of its parameter it is: 0 for plain
  /// parameters; for a tensor descriptor 0 (base), 1..r (shape), r+1..2r-1
  /// (strides but the last).
  std::vector<int> argComponent;
};

class SourceProgram {
 public:
  /// Parses the file; throws tessera::Error for syntax errors and for
  /// malformed decorators.
  static std::shared_ptr<SourceProgram> load(SourceFileRef source);
  ~SourceProgram();

  const SourceFileRef& source() const { return source_; }
  const py::Module& ast() const { return *module_; }
  /// The @triton.jit functions in source order.
  const std::vector<JitFunction>& functions() const { return functions_; }
  const JitFunction* find(std::string_view name) const;

  /// Compiles `name` for `params` (one spec per parameter of the function, in
  /// order). Throws tessera::Error with file:line:col for every user error.
  CompileResult compile(std::string_view name, const std::vector<ParamSpec>& params,
                        const CompileOptions& options) const;

  /// Evaluates a host-side expression (heuristic lambda bodies, grid
  /// lambdas) with `names` bound (the lambda's dict param maps to `args`).
  ConstValue evalHostExpr(const py::Expr& expr, const std::string& argName,
                          const std::map<std::string, ConstValue>& args) const;

  /// Internal state of the code generator (module-level names).
  struct Globals;
  const Globals& globals() const { return *globals_; }

 private:
  SourceProgram() = default;
  SourceFileRef source_;
  std::unique_ptr<py::Module> module_;
  std::vector<JitFunction> functions_;
  std::unique_ptr<Globals> globals_;
};

}  // namespace tessera::frontend
