//===- tessera/frontend/Frontend.h - Triton source -> Tile IR --*- C++ -*-===//
//
// The frontend's contract with the runtime:
//
//   auto program = frontend::SourceProgram::loadFile(path, options);  // run the modules
//   const frontend::JitFunction* fn = program->find("softmax_kernel");
//   std::vector<frontend::ParamSpec> specs = ...;             // one per parameter
//   frontend::CompileResult r = fn->program->compile(*fn, specs, {});
//   // r.module: Tile IR with one kernel function (callees inlined unless
//   // noinline), not yet optimised (the caller runs the pass pipeline).
//
// A program is a set of modules: the entry file and the modules it imports,
// found on a search path (LoadOptions). Each module's top level runs on the
// host-Python evaluator (lib/frontend/host): imports, constants, configs,
// version switches, device queries. A SourceProgram is one module; its
// kernels are the @triton.jit functions it defines. The autotune and
// heuristics decorators of a kernel are evaluated when first asked for
// (JitFunction::autotune / heuristics), so one kernel's bad decorator never
// breaks another.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "tessera/frontend/DeviceQueries.h"
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
  bool keywordOnly = false;  ///< after a bare `*`: given by name only
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

/// `@triton.autotune(...)` as written. prune_configs_by's callables are host
/// Python values run by SourceProgram::evalEarlyConfigPrune / evalPerfModel;
/// the other hooks (pre_hook, post_hook, do_bench) are only recorded.
struct AutotuneSpec {
  std::vector<AutotuneConfig> configs;
  std::vector<std::string> key;
  std::vector<std::string> resetToZero;
  std::vector<std::string> restoreValue;
  std::optional<double> warmup, rep;
  bool hasPruneConfigsBy = false, hasPreHook = false, hasPostHook = false, hasDoBench = false;
  /// prune_configs_by's callables (host::Ref, kept opaque here; null when
  /// absent) and the config objects early_config_prune receives.
  std::shared_ptr<const void> earlyConfigPrune, perfModel, configObjects;
  double topK = 10;          ///< prune_configs_by's top_k (Triton's default: 10)
  bool topKFraction = false;  ///< top_k was a float <= 1: a fraction of the configs
  bool cacheResults = false;
  SourceLoc loc;
};

/// One entry of `@triton.heuristics({name: callable})`: the callable is a
/// host-Python value (a lambda, a def, a partial) run over the launch
/// arguments by SourceProgram::evalHeuristic.
struct HeuristicSpec {
  std::string name;
  std::shared_ptr<const void> fn;  ///< the host callable (a host::Ref, kept opaque here)
  SourceLoc loc;
};

/// A launch argument as host Python sees it (prune_configs_by's callables
/// receive the launch's arguments): a value, or a tensor's dtype, shape,
/// strides and address (a torch.Tensor to the host code).
struct HostArg {
  ConstValue value;
  bool isTensor = false;
  std::string dtype;  ///< tensors: "fp16", ...
  std::vector<int64_t> shape, strides;
  uint64_t dataPtr = 0;
  bool isTuple = false;         ///< a tuple argument: `elems`
  std::vector<HostArg> elems;
};
using HostArgs = std::vector<std::pair<std::string, HostArg>>;

class SourceProgram;
struct JitLazy;

/// A @triton.jit function.
struct JitFunction {
  std::string name;                        ///< the def's name (the kernel symbol)
  const SourceProgram* program = nullptr;  ///< the module that defines it
  const py::FunctionDef* def = nullptr;    ///< owned by the program's module
  std::vector<Parameter> params;
  bool noinline = false;
  bool debug = false;
  std::vector<std::string> doNotSpecialize;
  std::vector<std::string> doNotSpecializeOnAlignment;
  bool hasAutotune = false;    ///< an @triton.autotune applies (its arguments are evaluated lazily)
  bool hasHeuristics = false;  ///< an @triton.heuristics applies
  /// Decorators above @triton.jit that Tessera does not know, taken as
  /// transparent wrappers (a project's own cache or registry).
  std::vector<std::string> transparentDecorators;
  /// "triton.jit(f) at file:line" when made by a call, not a decorator.
  std::string madeBy;
  SourceLoc loc;

  /// The autotune decorator's arguments, evaluated on first use (null when
  /// there is none). Throws tessera::Error, located at the decorator, when
  /// they cannot be evaluated; the error is the same on every call.
  const AutotuneSpec* autotune() const;
  /// The heuristics, outermost decorator first, evaluated on first use.
  const std::vector<HeuristicSpec>& heuristics() const;

  std::shared_ptr<JitLazy> lazy;  ///< internal: what autotune()/heuristics() evaluate
};

/// The type of a specialized parameter, as Triton's signature writes it: a
/// scalar ("i1", "i8".."i64", "u8".."u64", "fp8e4nv", "fp16", "bf16",
/// "fp32", "fp64"), a pointer to one ("*fp32"; "*kfp16" is const) or a host
/// tensor descriptor ("tensordesc<fp16[64, 64]>", TensorDescType). The
/// text is the specialization key's; the queries replace string tests.
class ArgType {
 public:
  ArgType() = default;
  ArgType(std::string text) : text_(std::move(text)) {}  // NOLINT: the signature text
  ArgType(const char* text) : text_(text) {}              // NOLINT
  const std::string& str() const { return text_; }
  bool empty() const { return text_.empty(); }
  bool isPointer() const { return text_.size() > 1 && text_[0] == '*'; }
  bool isConstPointer() const { return text_.size() > 2 && text_[0] == '*' && text_[1] == 'k'; }
  bool isTensorDesc() const { return text_.rfind("tensordesc<", 0) == 0; }
  /// A scalar's own type, a pointer's pointee: "fp16" for "*kfp16" ("" for
  /// a descriptor, whose element TensorDescType gives).
  std::string element() const;
  /// A float scalar (fp8 formats, fp16, bf16, fp32, fp64), not a pointer.
  bool isFloat() const;
  /// An unsigned integer scalar (u8..u64; i1 counts as unsigned, as in Triton).
  bool isUnsigned() const;
  bool operator==(const ArgType& o) const { return text_ == o.text_; }
  bool operator==(const char* o) const { return text_ == o; }
  bool operator==(const std::string& o) const { return text_ == o; }

 private:
  std::string text_;
};
std::ostream& operator<<(std::ostream& os, const ArgType& t);

/// How one parameter is specialized for a compilation (Triton's key).
struct ParamSpec {
  enum class Kind {
    Pointer,    ///< `type` = "*fp32", "*kfp16" (const), ...
    Scalar,     ///< `type` = "i1" "i8".."i64" "u8".."u64" "fp16" "bf16" "fp32" "fp64"
    Constexpr,  ///< `value` holds it (also ints specialized to 1 and None args)
    TensorDesc,  ///< a host tensor descriptor: `type` = "tensordesc<fp16[64, 64]>" (TensorDescType)
    Tuple,       ///< a tuple argument: `elems`, one spec each (Triton's tuple arguments)
  };
  Kind kind = Kind::Scalar;
  ArgType type;
  bool divisibleBy16 = false;  ///< "D": pointer 16-byte aligned / int % 16 == 0
  ConstValue value;
  std::vector<ParamSpec> elems;     ///< Tuple
  std::vector<std::string> fields;  ///< Tuple: a namedtuple's field names (empty: a plain tuple)
  std::string typeName;             ///< Tuple: a namedtuple's class name
};

/// The parameter type of a host tensor descriptor: "tensordesc<fp16[64, 64]>",
/// "tensordesc<fp32[16, 32], nan>" with NaN padding (Triton's signature form).
/// The kernel receives it as tt.func arguments: the base pointer, the shape
/// (i64 per dim) and the strides but the last (i64; the last is 1).
struct TensorDescType {
  std::string dtype;            ///< element type, "fp16"
  std::vector<int64_t> block;   ///< the block each load and store moves
  std::string padding = "zero";
  bool roundTf32 = false;  ///< ", tf32": loads round fp32 to tf32 (round_f32_to_tf32)
  /// std::nullopt when `type` is not of this form.
  static std::optional<TensorDescType> parse(const std::string& type);
  std::string str() const;
};

struct CompileOptions {
  bool debug = false;  ///< device_assert enabled (TRITON_DEBUG / @jit(debug=True))
  int numWarps = 4;
  int numStages = 3;
  int maxNumRegisters = 0;  ///< `.maxnreg` (GPU code only; 0: none); part of the specialization
  int numCtas = 1;          ///< LaunchOptions::num_ctas (tl.extra.cuda.num_ctas()); part of the specialization
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
  /// For each argument, where in its tuple parameter it is: the element
  /// index at each level (empty for parameters that are not tuples).
  std::vector<std::vector<int>> argPath;
};

struct LoadOptions {
  /// Directories searched first for the modules kernel files import (CLI
  /// -I); then TESSERA_PATH, then the entry file's directory and its
  /// package root.
  std::vector<std::string> searchPath;
  /// Modules whose files are known (dotted name -> .py file; a package's is
  /// its __init__.py), consulted before the search path: what CPython
  /// already imported, handed over by the Python package.
  std::map<std::string, std::string> moduleFiles;
  /// Autotune configs the host language already evaluated, by kernel name:
  /// used for that kernel's @triton.autotune instead of evaluating its
  /// `configs` argument (which is still evaluated, for prune_configs_by's
  /// config objects, when it can be).
  std::map<std::string, std::vector<AutotuneConfig>> autotuneConfigs;
  /// Answers device queries of host code; called at most once, when host
  /// code first asks. Unset: an H100 (sm_90, 132 SMs).
  std::function<DeviceQueries()> device;
};

class SourceProgram {
 public:
  struct Shared;  ///< the program's modules and evaluator (Bridge.cpp)

  /// Runs `source` as a program's entry module. `path` is its file ("" for
  /// text with no file: relative imports are then errors); a syntax error
  /// in it or in a module it imports throws tessera::Error.
  static std::shared_ptr<SourceProgram> load(SourceFileRef source, const std::string& path = "",
                                             const LoadOptions& options = {});
  /// Reads and runs the file at `path`.
  static std::shared_ptr<SourceProgram> loadFile(const std::string& path, const LoadOptions& options = {});
  ~SourceProgram();

  const SourceFileRef& source() const { return source_; }
  const py::Module& ast() const { return *ast_; }
  /// The device the program is loaded for (LoadOptions::device; the host
  /// queries of torch.cuda and triton.language.target_info answer from it).
  DeviceQueries device() const;
  /// The module's dotted name ("pkg.ops", or the file's stem).
  const std::string& moduleName() const { return moduleName_; }
  /// The @triton.jit functions this module defines and binds at its top
  /// level, in source order, each with the first name it is bound to (the
  /// def's name, or `axpby` of `axpby = triton.jit(_axpby)`).
  std::vector<std::pair<std::string, const JitFunction*>> kernels() const;
  /// A kernel by the name it is bound to at the module's top level (or its
  /// def's name), or by a dotted path into an imported module
  /// ("ops.add_kernel"); null when none.
  const JitFunction* find(std::string_view name) const;
  /// Why `name`, bound at the module's top level, is not a kernel (what it
  /// is, or why the host could not evaluate it); "" when it is not bound.
  std::string whyNotAKernel(std::string_view name) const;
  /// The user modules of the program loaded so far, this one among them.
  std::vector<std::shared_ptr<const SourceProgram>> modules() const;
  /// The directories imports are searched in, in order.
  const std::vector<std::string>& searchPath() const;

  /// Compiles `fn` for `params` (one spec per parameter of the function, in
  /// order). Throws tessera::Error with file:line:col for every user error.
  CompileResult compile(const JitFunction& fn, const std::vector<ParamSpec>& params,
                        const CompileOptions& options) const;
  CompileResult compile(std::string_view name, const std::vector<ParamSpec>& params,
                        const CompileOptions& options) const;

  /// Runs heuristic `h` over the launch arguments (the dict its callable
  /// receives); the result must be None, a bool, an int, a float, a string
  /// or a dtype (given as its name).
  ConstValue evalHeuristic(const HeuristicSpec& h, const std::map<std::string, ConstValue>& args) const;
  /// The same, with tensors among the arguments (as torch.Tensor values:
  /// dtype, shape, element_size(), ...), as launches call it.
  ConstValue evalHeuristic(const HeuristicSpec& h, const HostArgs& args) const;
  /// prune_configs_by's early_config_prune(configs, named_args, **kwargs),
  /// as Triton calls it: `named` are the positional launch arguments by
  /// name, `kwargs` the ones given by name. Returns the indices of the
  /// configs it keeps (at least one). Throws tessera::Error at the function
  /// when it raises or needs a value host Python cannot know.
  std::vector<size_t> evalEarlyConfigPrune(const AutotuneSpec& spec, const HostArgs& named,
                                           const HostArgs& kwargs) const;
  /// prune_configs_by's perf_model(**named_args, **kwargs,
  /// **config.all_kwargs()): the estimate for config `index`.
  double evalPerfModel(const AutotuneSpec& spec, size_t index, const HostArgs& named, const HostArgs& kwargs) const;

  /// Internal state of the code generator (module-level names).
  struct Globals;
  const Globals& globals() const { return *globals_; }

 private:
  friend struct Bridge;
  SourceProgram() = default;
  SourceFileRef source_;
  const py::Module* ast_ = nullptr;
  std::string moduleName_;
  Shared* shared_ = nullptr;  ///< owned by the program (aliasing handles keep it alive)
  void* module_ = nullptr;  ///< the host::ModuleObj of this module
  std::unique_ptr<Globals> globals_;
};

}  // namespace tessera::frontend
