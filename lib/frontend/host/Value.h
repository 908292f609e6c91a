//===- Value.h - Objects of the host-Python evaluator -----------*- C++ -*-===//
//
// The host evaluator (Interp.h) runs the module-level and decorator code of
// kernel files: imports, constants, autotune config lists, version switches,
// device queries. Its values are Python objects with reference semantics
// (lists and dicts are shared and mutable), held by Ref:
//
//   None Bool Int Float Str Tuple List Dict Set Slice Range   Python's own
//   Function      a `def` or `lambda` with its closure and module
//   Builtin       a native callable: `len`, `triton.cdiv`, a bound method
//                 (`self` set: `xs.append`, `"{}".format`)
//   Module        a user module (a file on the search path)
//   Native        a modeled outside name by its dotted path: `triton.language`,
//                 `torch.float16` resolves to DType, `torch.cuda`, `math`
//   DType         a Triton element type by its Tessera name ("fp16", "i32");
//                 tl.float16 and torch.float16 are both this
//   Instance      a modeled object with attributes: triton.Config, a
//                 version, device properties, finfo, a class body
//   JitFn         a @triton.jit function (JitData), with the autotune and
//                 heuristics decorators applied to it, not yet evaluated
//   Exception     a Python exception object (raised through PyException)
//   Opaque        what the evaluator does not model; it carries why and
//                 where, and is an error only where a kernel needs it
//
//===----------------------------------------------------------------------===//
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "frontend/python/AST.h"
#include "frontend/python/BigInt.h"

namespace tessera::host {

using frontend::BigInt;

struct Object;
using Ref = std::shared_ptr<Object>;
struct Scope;
struct ModuleObj;

enum class Kind {
  None, Bool, Int, Float, Str, Tuple, List, Dict, Set, Slice, Range, Ellipsis,
  Function, Builtin, Module, Native, DType, Instance, JitFn, Exception, Opaque,
};

/// A `def` or `lambda`: the code, the scope it closes over, its defaults.
struct FunctionData {
  const py::FunctionDef* def = nullptr;  ///< one of def / lambda
  const py::Lambda* lambda = nullptr;
  std::shared_ptr<Scope> closure;        ///< the enclosing function's scope (null at module level)
  ModuleObj* module = nullptr;
  std::vector<Ref> defaults;             ///< for the last defaults.size() positional parameters
  std::vector<Ref> kwDefaults;           ///< parallel to kwonlyargs (null: none)
  std::string name;
  /// Decorated with @triton.constexpr_function: kernels call it at compile
  /// time on constexpr arguments (Bridge.cpp).
  bool constexprFunction = false;
  /// A decorator left out because it could not be evaluated (why, located):
  /// what the "not a @triton.jit function" error says.
  std::string undecidedDecorator;
  const py::Arguments& args() const { return def ? def->args : lambda->args; }
};

/// The attribute of a builtin wrapped by `triton.constexpr_function` (a
/// marked copy of the builtin): kernels may call it like a decorated def.
inline constexpr const char* kConstexprFunctionAttr = "__constexpr_function__";

/// An `@triton.autotune(...)` or `@triton.heuristics(...)` applied to a jit
/// function: its arguments are evaluated when the kernel first needs them.
struct LazyDecorator {
  enum class What { Autotune, Heuristics } what = What::Autotune;
  const py::Call* call = nullptr;  ///< the decorator, whose arguments are not evaluated yet
  std::shared_ptr<Scope> scope;    ///< where they are evaluated
  /// Or, when the decorator was made by a call (`triton.autotune(...)(f)`),
  /// the arguments it was called with.
  std::shared_ptr<std::vector<Ref>> args;
  std::shared_ptr<std::vector<std::pair<std::string, Ref>>> kwargs;
  SourceLoc loc;
};

/// A @triton.jit function: the host function it wraps, the jit options
/// (noinline, debug, do_not_specialize...) and the decorators over it,
/// innermost first.
struct JitData {
  Ref function;  ///< Kind::Function
  std::vector<std::pair<std::string, Ref>> options;
  std::vector<LazyDecorator> decorators;
  std::vector<std::string> transparent;  ///< unknown decorators stacked above, taken as transparent
  std::string madeBy;                    ///< "" (decorator) or "triton.jit(f) at file:line"
  SourceLoc loc;
};

struct Object {
  explicit Object(Kind k) : kind(k) {}
  /// Children are released iteratively: a list nested a million deep must
  /// not overflow the stack when it dies.
  ~Object();
  Kind kind;
  bool b = false;
  BigInt i;
  double f = 0;
  /// Str text; Builtin/Native dotted name; DType name; Instance class;
  /// Exception type; Opaque: what could not be evaluated.
  std::string s;
  std::vector<Ref> items;  ///< Tuple/List/Set elements; Dict values; Slice/Range (start, stop, step)
  std::vector<Ref> keys;   ///< Dict keys (parallel to items)
  std::map<std::string, Ref> attrs;  ///< Instance / Exception attributes
  Ref self;                          ///< Builtin: the bound receiver
  std::shared_ptr<FunctionData> fn;  ///< Function
  std::shared_ptr<JitData> jit;      ///< JitFn
  ModuleObj* module = nullptr;       ///< Module
  SourceLoc where;                   ///< Opaque / Exception: where it arose
};

// ---- constructors ---------------------------------------------------------
Ref none();
Ref boolean(bool v);
Ref integer(BigInt v);
Ref flt(double v);
Ref str(std::string v);
Ref tuple(std::vector<Ref> v);
Ref list(std::vector<Ref> v);
Ref dict();
Ref builtin(std::string name, Ref self = nullptr);
Ref native(std::string path);
Ref dtype(std::string name);
Ref instance(std::string cls);
Ref opaque(std::string why, SourceLoc where = {});
/// A launch's tensor argument as host code sees it (a torch.Tensor with
/// dtype, shape, ndim and the methods element_size, data_ptr, numel, dim,
/// size, stride): what prune_configs_by's callables receive.
Ref tensorValue(const std::string& dtypeName, const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                uint64_t dataPtr);

// ---- queries (Python semantics) ------------------------------------------
bool isNumber(const Object& o);  ///< bool, int or float
bool isSequence(const Object& o);  ///< tuple or list
/// A value the evaluator does not know: an Opaque, or a name from a module
/// it did not find (a Native with `b` set).
bool isUnknown(const Object& o);
/// Python's truth value; throws nothing (opaque values are handled by callers).
bool truthy(const Object& o);
/// `a == b` for values the evaluator can compare (numbers across types).
bool equal(const Object& a, const Object& b);
/// repr() and str() of the value.
std::string repr(const Object& o);
std::string strOf(const Object& o);
/// The Python type name, for messages: "int", "list", "triton.Config".
std::string typeName(const Object& o);
/// Dict lookup by Python equality; null when absent.
Ref dictGet(const Object& d, const Object& key);
void dictSet(Object& d, Ref key, Ref value);

}  // namespace tessera::host
