//===- Interp.h - The host-Python evaluator ---------------------*- C++ -*-===//
//
// A small, bounded interpreter for the Python around kernels: module bodies
// (imports, assignments, if/for/while/try, def, class), decorator arguments,
// and the host functions they call. It is not a Python implementation: the
// subset is the one docs/user-guide.md ("What host Python Tessera evaluates")
// lists, and whatever falls outside it becomes an Opaque value that records
// what could not be evaluated and where. An Opaque is an error only when a
// kernel needs it (Bridge.cpp turns it into a located message then).
//
// Module statements that raise do not stop the module: the names they would
// bind become Opaque with the exception as the reason, as one kernel's
// trouble must never break another kernel of the file.
//
// Bounds: every evaluation session (one module import chain, one decorator)
// has a step budget (TESSERA_HOST_STEPS) and the call depth a recursion
// limit; exhausting either is a tessera::Error at the current location,
// which try/except does not catch. Sizes of strings, lists and ints are
// capped as well.
//
// One Interp serves one program (all its modules); callers serialize on
// mutex().
//
//===----------------------------------------------------------------------===//
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "Value.h"
#include "tessera/frontend/DeviceQueries.h"

namespace tessera::host {

/// A Python exception in flight (caught by `try`/`except`).
struct PyException {
  Ref exc;  ///< Kind::Exception: s = type name, attrs["message"]
};

/// A variable scope: a module's globals, a function call's locals, a
/// comprehension's or a class body's names.
struct Scope {
  std::unordered_map<std::string, Ref> vars;
  std::shared_ptr<Scope> parent;  ///< enclosing function scope (closures); null at module level
  ModuleObj* module = nullptr;
  std::set<std::string> globalNames;    ///< `global x` inside a function
  std::set<std::string> nonlocalNames;  ///< `nonlocal x`: stored where an enclosing scope binds it
  bool isModule = false;
  bool isClass = false;  ///< a class body: functions defined in it do not close over it
};

/// A user module: one file on the search path.
struct ModuleObj {
  std::string name;  ///< dotted: "pkg.utils"; the entry file's own name for a lone file
  std::string path;  ///< the file ("" for source given as text)
  bool isPackage = false;  ///< an __init__.py
  SourceFileRef source;
  std::unique_ptr<py::Module> ast;
  std::shared_ptr<Scope> globals;
  /// Module-level names in the order first bound (kernels are listed so).
  std::vector<std::string> order;
  enum class State { Loading, Loaded } state = State::Loading;
};

/// What the device queries of host code answer (`torch.cuda.*`,
/// `triton.runtime.driver.active.*`).
using DeviceInfo = frontend::DeviceQueries;

/// What the kernel language offers, answered by the code generator's tables
/// (the host layer does not depend on it): whether `triton.*` module `path`
/// exists, and whether Triton namespace `module` has `attr`.
struct TritonNames {
  std::function<bool(const std::string& path)> isModule;
  std::function<bool(const std::string& module, const std::string& attr)> hasAttr;
};

struct Environment {
  TritonNames triton;
  /// Directories searched for absolute imports, in order.
  std::vector<std::string> searchPath;
  /// Modules with known files (dotted name -> file), found before the search path.
  std::map<std::string, std::string> moduleFiles;
  /// Answers device queries; called at most once per Interp, when host code
  /// first asks.
  std::function<DeviceInfo()> device;
};

using Kwargs = std::vector<std::pair<std::string, Ref>>;

class Interp {
 public:
  explicit Interp(Environment env);
  ~Interp();
  std::recursive_mutex& mutex() { return mutex_; }
  const Environment& environment() const { return env_; }

  /// Runs a file as the program's entry module `name` (dotted, "" for a
  /// lone file: named after the file stem).
  ModuleObj* runEntry(SourceFileRef source, const std::string& path, const std::string& name, bool isPackage);
  /// `import name` (absolute); throws PyException(ModuleNotFoundError) when
  /// it is neither a user module nor a modeled one; returns null for a
  /// modeled (native) module.
  ModuleObj* importUser(const std::string& name, const SourceLoc& at);
  /// The modules of torch that hold the Triton helpers Inductor's generated
  /// kernels call (torch._inductor.runtime, its triton_helpers and
  /// triton_compat; torch._inductor.triton_helpers before torch 2.3) load
  /// from source when the search path has them, each on its own: their
  /// parent packages are not run, and torch itself and its other modules
  /// stay modeled.
  static bool isTorchSourceModule(const std::string& name) {
    return name == "torch._inductor.runtime" || name == "torch._inductor.runtime.triton_helpers" ||
           name == "torch._inductor.runtime.triton_compat" || name == "torch._inductor.triton_helpers";
  }
  /// `path` is one of those modules or a name in one.
  static bool inTorchSourceModule(const std::string& path) {
    for (size_t end = path.size(); end != std::string::npos && end > 0; end = path.rfind('.', end - 1))
      if (isTorchSourceModule(path.substr(0, end))) return true;
    return false;
  }
  /// Every user module loaded so far.
  const std::vector<std::unique_ptr<ModuleObj>>& modules() const { return modules_; }

  /// Starts an evaluation session with a fresh step budget.
  void beginSession();

  // ---- evaluation ----------------------------------------------------------
  Ref eval(const py::Expr& e, const std::shared_ptr<Scope>& scope);
  Ref call(const Ref& callee, std::vector<Ref> args, Kwargs kwargs, const SourceLoc& at);
  /// The arguments of `call` evaluated in `scope`, `*` and `**` unpacked;
  /// returns the unknown value a `*`/`**` would unpack (null when none).
  Ref callArguments(const py::Call& call, const std::shared_ptr<Scope>& scope, std::vector<Ref>& args, Kwargs& kwargs);
  Ref getAttr(const Ref& v, const std::string& attr, const SourceLoc& at);
  /// Python iteration: the items of a sequence, set, dict (keys), range,
  /// string; throws PyException(TypeError) for others. Callers outside the
  /// evaluator must not pass an unknown value (isUnknown).
  std::vector<Ref> iterate(const Ref& v, const SourceLoc& at);
  /// Python's bool(); nullopt for an opaque value.
  std::optional<bool> truth(const Ref& v);
  /// How many `try` statements around the code running now catch an
  /// ImportError (their handlers are the program's fallback for a package
  /// that is not installed). Inside one, importing a module that is neither
  /// modeled nor on the search path raises ModuleNotFoundError, as CPython
  /// does where the package is missing; elsewhere it is an unknown module
  /// (its values undecided), so that a file importing packages Tessera
  /// cannot see still compiles the kernels that do not depend on them.
  int importFallbacks() const { return importFallbacks_; }

  // ---- errors -------------------------------------------------------------
  [[noreturn]] void raise(const std::string& type, const std::string& message, const SourceLoc& at);
  [[noreturn]] void fatal(const SourceLoc& at, const std::string& message);
  SourceLoc locOf(const py::Node& n, const ModuleObj* m) const;
  /// The location being evaluated (for builtins).
  const SourceLoc& here() const { return here_; }

  DeviceInfo device();
  /// Counts one step; a fatal error past the budget.
  void step() {
    if (++steps_ > budget_) budgetExceeded();
  }
  /// Caps on sizes (elements of a list / characters of a string).
  void checkSize(size_t n, const char* what);
  /// Counts `n` steps of one operation (a copy of n elements).
  void steps(size_t n) {
    steps_ += static_cast<int64_t>(n);
    if (steps_ > budget_) budgetExceeded();
  }
  /// Scopes closed over and classes, emptied when the Interp dies: closures
  /// and class members can refer back to themselves (shared_ptr cycles).
  void keepScope(const std::shared_ptr<Scope>& s) {
    if (kept_.empty() || kept_.back().lock() != s) kept_.push_back(s);
  }
  void keepClass(const Ref& cls) { classes_.push_back(cls); }
  /// An object of namedtuple class `cls` (fields bound like a call's).
  Ref makeNamedTuple(const Ref& cls, const std::vector<Ref>& args, const Kwargs& kwargs, const SourceLoc& at);

 private:
  friend struct Exec;
  [[noreturn]] void budgetExceeded();
  Ref callUnchecked(const Ref& callee, std::vector<Ref> args, Kwargs kwargs, const SourceLoc& at);
  ModuleObj* loadFile(const std::string& name, const std::string& path, bool isPackage, SourceFileRef source);
  std::optional<std::pair<std::string, bool>> findModuleFile(const std::string& name) const;
  void execModule(ModuleObj& m);

  Environment env_;
  std::recursive_mutex mutex_;
  std::vector<std::unique_ptr<ModuleObj>> modules_;
  std::map<std::string, ModuleObj*> byName_;
  std::optional<DeviceInfo> device_;
  std::vector<std::weak_ptr<Scope>> kept_;
  std::vector<std::weak_ptr<Object>> classes_;
  int64_t steps_ = 0, budget_ = 0;
  int depth_ = 0;
  int importFallbacks_ = 0;
  SourceLoc here_;
};

/// Module-level helpers shared by the parts of the evaluator.
/// Modeled outside modules: the value of `import path` (null: not modeled),
/// and an attribute of a modeled name (Natives.cpp).
Ref importNative(Interp& in, const std::string& path);
/// Whether `root` is a top-level module the evaluator models (triton, torch,
/// math, os, ...): those are never searched for on the path.
bool isModeledRoot(const std::string& root);
/// The value of `import name` for an absolute name: a modeled module, a user
/// module from the search path, else ModuleNotFoundError inside a try that
/// catches it (Interp::importFallbacks) or an unknown module.
Ref importModule(Interp& in, const std::string& name, const SourceLoc& at);
/// A module found neither among the modeled ones nor on the search path:
/// a Native with `b` set, whose attributes and calls are unknown.
Ref unknownModule(Interp& in, const std::string& path);
Ref nativeAttr(Interp& in, const std::string& path, const std::string& attr);
/// Calls a builtin or a native callable (Builtins.cpp / Natives.cpp).
Ref callBuiltin(Interp& in, const Object& fn, std::vector<Ref>& args, Kwargs& kwargs);
/// Python builtins by name (`len`, `range`, `ImportError`...); null if none.
Ref pythonBuiltin(const std::string& name);
/// Whether exception type `type` is `handler` or derives from it.
bool exceptionMatches(const std::string& type, const std::string& handler);
/// Binary and comparison operators with Python semantics (Ops.cpp).
Ref binaryOp(Interp& in, py::BinOpKind op, const Ref& a, const Ref& b);
Ref compareOp(Interp& in, py::CmpOpKind op, const Ref& a, const Ref& b);
Ref unaryOp(Interp& in, py::UnaryOpKind op, const Ref& a);
Ref subscript(Interp& in, const Ref& base, const Ref& index);
/// Methods of builtin types (`xs.append`, `d.get`, `s.format`) bound to `self`.
Ref methodOf(Interp& in, const Ref& self, const std::string& name);
/// Triton's version string, and the versions modeled for other packages.
const char* tritonVersion();

}  // namespace tessera::host
