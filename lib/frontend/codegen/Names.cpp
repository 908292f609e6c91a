//===- Names.cpp - Modules and namespaces visible to kernels --------------===//
//
// Kernels reach Triton through module objects: `triton`, `triton.language`
// (tl, also as `core`/`standard`/`random`), `tl.math`, `tl.extra`,
// `libdevice` (from extra or extra.cuda), `tl.extra.cuda`. Each is a
// namespace Val whose attributes resolve here: builtins (Builtins.cpp),
// dtypes, prelude functions (tl.sum, tl.softmax, ... from tl_prelude.py) and
// a few special objects (tl.constexpr, tl.range, tl.PropagateNan).
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

namespace tessera::frontend {

/// Set while the prelude itself is being loaded (its names are not ready).
/// Per thread: prelude names resolve to nothing only on the thread parsing
/// the prelude (inside preludeProgram's call_once); other threads compiling
/// at the same time wait in call_once for it. (A global flag made them see
/// "tl.max is not a Triton language function" during parallel autotuning.)
thread_local bool gLoadingPrelude = false;

std::optional<Val> resolveModule(const std::string& path) {
  if (path == "triton") return Val::ns("triton");
  if (path == "triton.language" || path == "triton.language.core" || path == "triton.language.standard" ||
      path == "triton.language.semantic" || path == "triton.language.random")
    return Val::ns("tl");
  if (path == "triton.language.math") return Val::ns("math");
  if (path == "triton.language.target_info") return Val::ns("target_info");
  if (path == "triton.language.extra") return Val::ns("extra");
  if (path == "triton.language.extra.cuda" || path == "triton.language.extra.cuda.gdc" ||
      path == "triton.language.extra.cuda.utils")
    return Val::ns("cuda");
  if (path == "triton.language.extra.libdevice" || path == "triton.language.extra.cuda.libdevice" ||
      path == "triton.language.libdevice" || path == "triton.language.math.libdevice")
    return Val::ns("libdevice");
  return std::nullopt;
}

static std::optional<Val> preludeFunction(const std::string& name) {
  if (gLoadingPrelude) return std::nullopt;
  const SourceProgram& p = preludeProgram();
  if (const JitFunction* fn = p.find(name); fn && name[0] != '_') return Val::func(FuncRef{&p, fn});
  return std::nullopt;
}

/// Names of tl.math (which are also in tl).
static bool isMathName(const std::string& n) {
  static const char* names[] = {"abs", "ceil", "cos", "div_rn", "erf", "exp", "exp2", "fdiv", "floor", "fma",
                                "log", "log2", "rsqrt", "sin", "sqrt", "sqrt_rn", "umulhi", "maximum",
                                "minimum", "clamp", "cdiv", "sigmoid", "softmax"};
  for (const char* x : names)
    if (n == x) return true;
  return false;
}

std::optional<Val> namespaceAttr(const std::string& ns, const std::string& attr) {
  if (ns == "triton") {
    if (attr == "language") return Val::ns("tl");
    if (attr == "jit" || attr == "autotune" || attr == "heuristics" || attr == "Config" || attr == "cdiv" ||
        attr == "next_power_of_2" || attr == "constexpr_function" || attr == "must_use_result")
      return Val::builtin("triton." + attr);
    if (attr == "aggregate_replace") return Val::builtin("tl.aggregate_replace");
    if (attr == "testing" || attr == "runtime" || attr == "compiler" || attr == "tools")
      return Val::opaque("module 'triton." + attr + "'");
    return std::nullopt;
  }
  if (ns == "tl") {
    if (attr == "math") return Val::ns("math");
    if (attr == "extra") return Val::ns("extra");
    if (attr == "core" || attr == "standard" || attr == "semantic" || attr == "random") return Val::ns("tl");
    if (attr == "PropagateNan") return Val::ns("PropagateNan");
    if (attr == "target_info") return Val::ns("target_info");
    if (attr == "aggregate_replace") return Val::builtin("tl.aggregate_replace");
    if (attr == "TRITON_MAX_TENSOR_NUMEL") return Val::integer(BigInt(kMaxTensorNumel));
    if (attr == "pi32_t") return Val::dtypeOf(DType::pointer(ScalarKind::I32));
    if (attr == "void") return Val::dtypeOf(ScalarKind::Void);
    if (attr != "float" && attr != "double" && attr != "half" && attr != "bool")
      if (auto t = DType::fromName(attr)) return Val::dtypeOf(*t);
    if (findBuiltin("tl." + attr)) return Val::builtin("tl." + attr);
    if (auto f = preludeFunction(attr)) return f;
    return std::nullopt;
  }
  if (ns == "math") {
    if (findBuiltin("math." + attr)) return Val::builtin("math." + attr);
    if (isMathName(attr)) return namespaceAttr("tl", attr);
    return std::nullopt;
  }
  if (ns == "extra") {
    if (attr == "libdevice") return Val::ns("libdevice");
    if (attr == "cuda") return Val::ns("cuda");
    return std::nullopt;
  }
  if (ns == "cuda") {
    if (attr == "libdevice") return Val::ns("libdevice");
    if (findBuiltin("cuda." + attr)) return Val::builtin("cuda." + attr);
    return std::nullopt;
  }
  if (ns == "libdevice") {
    if (findBuiltin("libdevice." + attr)) return Val::builtin("libdevice." + attr);
    return std::nullopt;
  }
  if (ns == "target_info") {  // `tl.target_info.X`, and names imported from it
    if (findBuiltin("target_info." + attr)) return Val::builtin("target_info." + attr);
    return std::nullopt;
  }
  if (ns == "PropagateNan") {
    if (attr == "NONE") return Val::integer(BigInt(0));
    if (attr == "ALL") return Val::integer(BigInt(0xFFFF));
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<Val> pythonBuiltin(const std::string& name) {
  static const char* names[] = {"len", "min", "max", "range", "float", "int", "bool", "isinstance", "print",
                                "getattr", "hasattr", "list", "tuple", "str", "abs", "round"};
  for (const char* n : names)
    if (name == n) return Val::builtin(std::string("py.") + n);
  return std::nullopt;
}

}  // namespace tessera::frontend
