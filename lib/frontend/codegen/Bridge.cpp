//===- Bridge.cpp - Programs of several modules, seen by the code generator ===//
//
// SourceProgram::load runs the entry module on the host evaluator
// (lib/frontend/host), which imports what it imports, and makes one
// SourceProgram per user module. This file is the bridge between the two
// worlds:
//
//   module globals   converted from host values to code-generator Vals on
//                    first use (Globals::lookup): constants, dtypes, tuples
//                    of them, @jit functions (FuncRef into the module that
//                    defines them), user modules (Val::Kind::Module),
//                    Triton's namespaces and builtins. Everything else is
//                    an Opaque Val whose text says why it cannot be used.
//   jit functions    one JitFunction per host JitFn value, with its
//                    parameters; autotune and heuristics are evaluated on
//                    first use (JitFunction::autotune / heuristics), each
//                    in a session of its own, and a failure is kept and
//                    rethrown unchanged.
//   heuristics       run as host calls over the launch arguments.
//
// All host evaluation is serialized on the evaluator's mutex; the code
// generator's lookups take it only on a cache miss.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <sstream>

#include "CodeGen.h"
#include "frontend/host/Interp.h"
#include "frontend/python/SourceText.h"
#include "tessera/support/Env.h"

namespace tessera::frontend {

using host::Kind;
using host::Ref;

struct SourceProgram::Shared : std::enable_shared_from_this<SourceProgram::Shared> {
  explicit Shared(host::Environment env) : interp(std::move(env)) {}
  host::Interp interp;
  /// LoadOptions::autotuneConfigs.
  std::map<std::string, std::vector<AutotuneConfig>> autotuneConfigs;
  std::map<const host::ModuleObj*, std::unique_ptr<SourceProgram>> programs;
  /// One JitFunction per host JitFn value (kept alive here).
  std::map<const host::JitData*, std::pair<Ref, std::unique_ptr<JitFunction>>> jits;
  /// Plain functions that kernels run as code: methods and __init__ of
  /// aggregate classes.
  std::map<const host::FunctionData*, std::pair<Ref, std::unique_ptr<JitFunction>>> plains;
  /// One StructType per aggregate or namedtuple class.
  std::map<const host::Object*, std::pair<Ref, std::shared_ptr<StructType>>> structs;
};

/// A @triton.constexpr_function seen from a kernel (Val::host).
struct HostConstexprFunction {
  Ref fn;
  SourceProgram::Shared* shared = nullptr;
  std::string name;  ///< the name it was reached by
};

struct JitLazy {
  Ref value;  ///< the host JitFn
  SourceProgram::Shared* shared = nullptr;
  bool autotuneDone = false, heuristicsDone = false;
  std::optional<AutotuneSpec> autotune;
  std::vector<HeuristicSpec> heuristics;
  std::exception_ptr autotuneError, heuristicsError;
};

struct Bridge {
  static SourceProgram& programFor(SourceProgram::Shared& sh, const host::ModuleObj* m) {
    auto& slot = sh.programs[m];
    if (!slot) {
      slot.reset(new SourceProgram());
      slot->source_ = m->source;
      slot->ast_ = m->ast.get();
      slot->moduleName_ = m->name;
      slot->shared_ = &sh;
      slot->module_ = const_cast<host::ModuleObj*>(m);
      slot->globals_ = std::make_unique<SourceProgram::Globals>();
      slot->globals_->program = slot.get();
      slot->globals_->isPrelude = m->source && m->source->name() == "<triton prelude>";
    }
    return *slot;
  }

  static std::shared_ptr<SourceProgram> handle(SourceProgram::Shared& sh, SourceProgram& p) {
    return std::shared_ptr<SourceProgram>(sh.shared_from_this(), &p);
  }

  static std::string where(const SourceLoc& at) {
    return at.file ? " (" + at.file->name() + ":" + std::to_string(at.line) + ")" : "";
  }

  static std::optional<ConstValue> toConst(const host::Object& v) {
    switch (v.kind) {
      case Kind::None: return ConstValue{std::monostate{}};
      case Kind::Bool: return ConstValue{v.b};
      case Kind::Int:
        if (v.i.fitsInt64()) return ConstValue{v.i.toInt64()};
        return std::nullopt;
      case Kind::Float: return ConstValue{v.f};
      case Kind::Str: return ConstValue{v.s};
      case Kind::DType: return ConstValue{v.s};
      default: return std::nullopt;
    }
  }

  static Ref fromConst(const ConstValue& c) {
    return std::visit([](const auto& x) -> Ref {
      using T = std::decay_t<decltype(x)>;
      if constexpr (std::is_same_v<T, std::monostate>) return host::none();
      else if constexpr (std::is_same_v<T, bool>) return host::boolean(x);
      else if constexpr (std::is_same_v<T, int64_t>) return host::integer(BigInt(x));
      else if constexpr (std::is_same_v<T, double>) return host::flt(x);
      else return host::str(x);
    }, c);
  }

  static Val message(std::string text) {
    Val v = Val::opaque(std::move(text));
    v.b = true;  // the text is the whole message
    return v;
  }

  /// A host function kernels call at compile time on constexprs.
  static Val hostConstexprFunction(SourceProgram::Shared& sh, const Ref& fn, const std::string& name) {
    Val f = Val::builtin("host.constexpr_function");
    f.host = std::make_shared<HostConstexprFunction>(HostConstexprFunction{fn, &sh, name});
    return f;
  }

  /// The Val of a Triton name known to the host as a dotted path.
  static std::optional<Val> tritonVal(const std::string& path) {
    if (auto v = resolveModule(path)) return v;
    size_t dot = path.rfind('.');
    if (dot == std::string::npos) return std::nullopt;
    std::string parent = path.substr(0, dot), attr = path.substr(dot + 1);
    if (auto ns = resolveModule(parent); ns && ns->kind == Val::Kind::Namespace) return namespaceAttr(ns->s, attr);
    if (auto ns = tritonVal(parent); ns && ns->kind == Val::Kind::Namespace) return namespaceAttr(ns->s, attr);
    return std::nullopt;
  }

  /// What the code generator sees of host value `v`, bound to `name`.
  static Val toVal(SourceProgram::Shared& sh, const Ref& v, const std::string& name, int depth = 0) {
    switch (v->kind) {
      case Kind::None: return Val::none();
      case Kind::Bool: return Val::boolean(v->b);
      case Kind::Int: return Val::integer(v->i);
      case Kind::Float: return Val::flt(v->f);
      case Kind::Str: return Val::str(v->s);
      case Kind::DType:
        if (auto t = DType::fromName(v->s)) return Val::dtypeOf(*t);
        return message("'" + name + "' is the dtype " + v->s + ", which kernels do not support");
      case Kind::Tuple: {
        if (depth > 16) return Val::opaque("global variable '" + name + "'");
        std::vector<Val> elems;
        for (const auto& e : v->items) {
          Val x = toVal(sh, e, name, depth + 1);
          if (x.kind == Val::Kind::Opaque) return x;
          elems.push_back(std::move(x));
        }
        Val t = Val::tuple(std::move(elems));
        if (v->self) t.st = structFor(sh, v->self);  // a namedtuple
        return t;
      }
      case Kind::Module: {
        Val m;
        m.kind = Val::Kind::Module;
        m.fn.program = &programFor(sh, v->module);
        m.s = v->module->name;
        return m;
      }
      case Kind::JitFn: {
        const JitFunction* fn = jitFor(sh, v);
        return fn ? Val::func(FuncRef{fn->program, fn})
                  : message("'" + name + "' is a @triton.jit function Tessera cannot read" + where(v->jit->loc));
      }
      case Kind::Builtin:
        if (auto t = tritonVal(v->s)) return *t;
        if (auto b = pythonBuiltin(v->s)) return *b;
        // Triton's own constexpr_function (core.get_int_dtype, under any
        // name) or a builtin the program wrapped in triton.constexpr_function.
        if (v->attrs.count(host::kConstexprFunctionAttr) || v->s == "triton.language.core.get_int_dtype")
          return hostConstexprFunction(sh, v, name);
        return message("'" + name + "' is " + v->s + ", a host function, which kernels cannot call");
      case Kind::Native: {
        if (v->s == "dataclasses.replace") return Val::builtin("tl.aggregate_replace");
        if (v->s.rfind("triton", 0) == 0)
          if (auto t = tritonVal(v->s)) return *t;
        std::string root = v->s.substr(0, v->s.find('.'));
        if (v->b && !host::isModeledRoot(root)) {
          std::string dirs;
          for (const auto& d : sh.interp.environment().searchPath) dirs += (dirs.empty() ? "" : ", ") + d;
          return message("'" + name + "' comes from module '" + root + "', which is not on the search path [" + dirs +
                         "]; kernels can only use what Tessera can read (add its directory with -I or TESSERA_PATH)");
        }
        if (host::Interp::inTorchSourceModule(v->s))
          return message("'" + name + "' is " + v->s + ", which Tessera reads from torch's source: add the "
                         "directory that holds the torch package (its site-packages) with -I or TESSERA_PATH");
        return message("'" + name + "' is " + v->s + ", which kernels cannot use");
      }
      case Kind::Function:
        if (v->fn->constexprFunction) return hostConstexprFunction(sh, v, name);
        return message("'" + name + "' is a host function (not @triton.jit)" + where(v->fn->def ? SourceLoc{
                           v->fn->module && v->fn->module->source ? v->fn->module->source.get() : nullptr,
                           v->fn->def->line, v->fn->def->col} : SourceLoc{}) + "; kernels can only call @triton.jit functions");
      case Kind::Opaque:
        return message("cannot access global variable '" + name +
                       "' from within a @jit function: it could not be evaluated on the host: " + v->s +
                       where(v->where) + "; kernels can use constexpr globals (ints, floats, bools, strings, dtypes)");
      case Kind::Instance:
        if (v->s.rfind("class ", 0) == 0 && v->attrs.count("__fields__")) {
          Val c;
          c.kind = Val::Kind::Class;
          c.st = structFor(sh, v);
          return c;
        }
        if (v->s.rfind("class ", 0) == 0) return Val::opaque("class '" + v->s.substr(6) + "'");
        [[fallthrough]];
      default: return Val::opaque("global variable '" + name + "'");
    }
  }

  static const JitFunction* jitFor(SourceProgram::Shared& sh, Ref v) {
    std::lock_guard<std::recursive_mutex> lock(sh.interp.mutex());
    auto& slot = sh.jits[v->jit.get()];  // (std::map: the slot survives later insertions)
    if (slot.second) return slot.second.get();
    // Evaluating annotations runs host code, which may rebind globals: what
    // is read here is held by value.
    std::shared_ptr<host::JitData> jdRef = v->jit;
    Ref function = jdRef->function;
    std::shared_ptr<host::FunctionData> fdRef = function->fn;
    const host::JitData& jd = *jdRef;
    const host::FunctionData& fd = *fdRef;
    if (!fd.def) return nullptr;  // a lambda
    auto fn = std::make_unique<JitFunction>();
    fn->name = fd.def->name;
    fn->def = fd.def;
    fn->program = &programFor(sh, fd.module);
    fn->loc = SourceLoc{fd.module->source.get(), fd.def->line, fd.def->col};
    fn->madeBy = jd.madeBy;
    fn->transparentDecorators = jd.transparent;
    for (const auto& option : jd.options) {
      const std::string& k = option.first;
      const Ref& val = option.second;  // (a structured binding cannot be captured before C++20 in clang 14)
      auto names = [&](const char* what) {
        std::vector<std::string> out;
        std::vector<Ref> items = val->kind == Kind::Tuple || val->kind == Kind::List ? val->items : std::vector<Ref>{val};
        for (const auto& x : items) {
          if (x->kind == Kind::Str) out.push_back(x->s);
          else if (x->kind == Kind::Int) out.push_back("#" + x->i.toString());
          else if (x->kind != Kind::None) reportError(jd.loc, std::string(what) + " must be a list of names");
        }
        return out;
      };
      if (k == "noinline") fn->noinline = host::truthy(*val) && val->kind != Kind::Opaque;
      else if (k == "debug") fn->debug = host::truthy(*val) && val->kind != Kind::Opaque;
      else if (k == "do_not_specialize") fn->doNotSpecialize = names("do_not_specialize");
      else if (k == "do_not_specialize_on_alignment") fn->doNotSpecializeOnAlignment = names("do_not_specialize_on_alignment");
    }
    for (const auto& d : jd.decorators) {
      fn->hasAutotune = fn->hasAutotune || d.what == host::LazyDecorator::What::Autotune;
      fn->hasHeuristics = fn->hasHeuristics || d.what == host::LazyDecorator::What::Heuristics;
    }
    // Parameters: constexpr from the annotation's text, types and defaults
    // from their host values.
    const py::Arguments& a = fd.def->args;
    std::vector<const py::Arg*> args;
    for (const auto& p : a.posonlyargs) args.push_back(&p);
    for (const auto& p : a.args) args.push_back(&p);
    size_t firstDefault = args.size() - std::min(args.size(), a.defaults.size());
    for (size_t k = 0; k < args.size(); ++k) {
      Parameter p;
      p.name = args[k]->name;
      p.loc = SourceLoc{fd.module->source.get(), args[k]->line, args[k]->col};
      p.isConstexpr = isConstexprAnnotation(sh, fd, args[k]->annotation.get());
      p.annotatedType = annotationType(sh, fd, args[k]->annotation.get());
      if (k >= firstDefault) {
        p.hasDefault = true;
        size_t d = k - firstDefault;
        if (d < fd.defaults.size()) p.defaultValue = toConst(*fd.defaults[d]);
      }
      fn->params.push_back(std::move(p));
    }
    // Keyword-only parameters (after a bare `*`, Triton 3.9): by name only.
    for (size_t k = 0; k < a.kwonlyargs.size(); ++k) {
      const py::Arg& arg = a.kwonlyargs[k];
      Parameter p;
      p.name = arg.name;
      p.loc = SourceLoc{fd.module->source.get(), arg.line, arg.col};
      p.isConstexpr = isConstexprAnnotation(sh, fd, arg.annotation.get());
      p.annotatedType = annotationType(sh, fd, arg.annotation.get());
      p.keywordOnly = true;
      if (k < fd.kwDefaults.size() && fd.kwDefaults[k]) {
        p.hasDefault = true;
        p.defaultValue = toConst(*fd.kwDefaults[k]);
      }
      fn->params.push_back(std::move(p));
    }
    fn->lazy = std::make_shared<JitLazy>();
    fn->lazy->value = v;
    fn->lazy->shared = &sh;
    slot = {v, std::move(fn)};
    return slot.second.get();
  }

  /// A plain function as code the generator runs (a method of an aggregate).
  static const JitFunction* plainFor(SourceProgram::Shared& sh, const Ref& v) {
    std::lock_guard<std::recursive_mutex> lock(sh.interp.mutex());
    auto& slot = sh.plains[v->fn.get()];
    if (slot.second) return slot.second.get();
    const host::FunctionData& fd = *v->fn;
    if (!fd.def || !fd.module) return nullptr;  // a lambda
    auto fn = std::make_unique<JitFunction>();
    fn->name = fd.def->name;
    fn->def = fd.def;
    fn->program = &programFor(sh, fd.module);
    fn->loc = SourceLoc{fd.module->source.get(), fd.def->line, fd.def->col};
    slot = {v, std::move(fn)};
    return slot.second.get();
  }

  /// The class of aggregate or namedtuple objects (fields recorded by the
  /// host evaluator's classDef / collections.namedtuple).
  static std::shared_ptr<const StructType> structFor(SourceProgram::Shared& sh, const Ref& cls) {
    std::lock_guard<std::recursive_mutex> lock(sh.interp.mutex());
    auto& slot = sh.structs[cls.get()];
    if (slot.second) return slot.second;
    auto st = std::make_shared<StructType>();
    slot = {cls, st};  // before the members: a method may name the class
    st->name = cls->s.substr(6);
    st->uid = static_cast<int>(sh.structs.size());
    st->aggregate = cls->attrs.count("__aggregate__") > 0;
    if (auto c = cls->attrs.find("__classes__"); c != cls->attrs.end())
      for (const auto& n : c->second->items)
        if (n->kind == Kind::Str) st->classNames.push_back(n->s);
    const auto& fields = cls->attrs.at("__fields__")->items;
    const auto& constexprs = cls->attrs.at("__field_constexpr__")->items;
    for (size_t k = 0; k < fields.size(); ++k) {
      st->fields.push_back(fields[k]->s);
      st->constexprField.push_back(k < constexprs.size() && constexprs[k]->b);
      auto d = cls->attrs.find(fields[k]->s);
      st->defaults.push_back(d == cls->attrs.end() ? std::nullopt
                                                   : std::optional<Val>(toVal(sh, d->second, st->name + "." + fields[k]->s, 1)));
    }
    for (const auto& [name, a] : cls->attrs) {
      if (st->field(name) >= 0 || (name.size() > 4 && name.rfind("__", 0) == 0 && name.substr(name.size() - 2) == "__" &&
                                   a->kind != Kind::Function && a->kind != Kind::JitFn))
        continue;
      if (a->kind == Kind::Function) {
        if (const JitFunction* f = plainFor(sh, a)) st->members[name] = Val::func(FuncRef{f->program, f});
      } else if (a->kind == Kind::Instance && a->s == "staticmethod") {
        const Ref& f = a->attrs.at("fn");
        const JitFunction* plain = f->kind == Kind::Function ? plainFor(sh, f) : nullptr;
        Val m = plain ? Val::func(FuncRef{plain->program, plain}) : toVal(sh, f, st->name + "." + name, 1);
        m.b = true;  // a static method: objects do not bind it
        st->members[name] = m;
      } else {
        st->members[name] = toVal(sh, a, st->name + "." + name, 1);
      }
    }
    if (auto it = cls->attrs.find("__init__"); it != cls->attrs.end() && it->second->kind == Kind::JitFn)
      st->members["__init__"] = message(st->name + ".__init__ cannot be a @triton.jit function (it runs when the "
                                        "object is made; make it a plain def)");
    return st;
  }

  static bool mentionsConstexpr(const py::Expr* e) {
    if (!e) return false;
    if (auto* a = e->as<py::Attribute>()) return a->attr == "constexpr";
    if (auto* n = e->as<py::Name>()) return n->id == "constexpr";
    if (auto* c = e->as<py::Constant>())
      return c->type == py::Constant::Type::Str && c->strValue.find("constexpr") != std::string::npos;
    return false;
  }

  /// `tl.constexpr` by its spelling, or by its value: an alias
  /// (`tl_constexpr = tl.constexpr`, `from triton.language import constexpr
  /// as C`) is constexpr too, as Triton decides from the annotation object.
  static bool isConstexprAnnotation(SourceProgram::Shared& sh, const host::FunctionData& fd, const py::Expr* e) {
    if (mentionsConstexpr(e)) return true;
    if (!e || (!e->as<py::Name>() && !e->as<py::Attribute>())) return false;
    try {
      sh.interp.beginSession();
      Ref v = sh.interp.eval(*e, fd.module->globals);
      return v->kind == Kind::Builtin && v->s == "triton.language.constexpr";
    } catch (const host::PyException&) {
    }
    return false;
  }

  static std::optional<std::string> annotationType(SourceProgram::Shared& sh, const host::FunctionData& fd,
                                                   const py::Expr* e) {
    if (!e || isConstexprAnnotation(sh, fd, e)) return std::nullopt;
    if (auto* c = e->as<py::Constant>(); c && c->type == py::Constant::Type::Str) {
      // "const" marks a const pointer (handled by the code generator), not a type.
      if (c->strValue.find("const") != std::string::npos) return std::nullopt;
      return c->strValue;
    }
    try {
      sh.interp.beginSession();
      Ref v = sh.interp.eval(*e, fd.module->globals);
      if (v->kind == Kind::DType) return v->s;
    } catch (const host::PyException&) {
    }
    return std::nullopt;
  }

  // ---- lazily evaluated decorators ---------------------------------------

  /// The arguments a lazy decorator was (or is now) called with.
  static void decoratorArgs(SourceProgram::Shared& sh, const host::LazyDecorator& d, std::vector<Ref>& args,
                            host::Kwargs& kw) {
    if (d.args) {
      args = *d.args;
      kw = *d.kwargs;
      return;
    }
    if (Ref unknown = sh.interp.callArguments(*d.call, d.scope, args, kw))
      fail(d.loc, "the decorator's * or ** arguments", unknown);
  }

  /// @triton.autotune's arguments when the host language gave the configs:
  /// one by one, so that a `configs` argument only CPython can evaluate
  /// (NumPy, ...) becomes the unknown value it is instead of failing the
  /// decorator. Calls with * or ** arguments go through decoratorArgs.
  static void autotuneArgs(SourceProgram::Shared& sh, const host::LazyDecorator& d, std::vector<Ref>& args,
                           host::Kwargs& kw) {
    bool plain = d.call && std::none_of(d.call->args.begin(), d.call->args.end(), [](const py::ExprPtr& e) {
      return e->kind == py::ExprKind::Starred;
    }) && std::all_of(d.call->keywords.begin(), d.call->keywords.end(), [](const py::Keyword& k) { return k.arg.has_value(); });
    if (d.args || !plain) return decoratorArgs(sh, d, args, kw);
    for (size_t i = 0; i < d.call->args.size(); ++i) {
      Ref v = sh.interp.eval(*d.call->args[i], d.scope);
      if (host::isUnknown(*v) && i != 0) fail(d.loc, "triton.autotune's argument " + std::to_string(i + 1), v);
      args.push_back(v);
    }
    for (const py::Keyword& k : d.call->keywords) {
      Ref v = sh.interp.eval(*k.value, d.scope);
      if (host::isUnknown(*v) && *k.arg != "configs") fail(d.loc, "triton.autotune's argument '" + *k.arg + "'", v);
      kw.emplace_back(*k.arg, v);
    }
  }

  [[noreturn]] static void fail(const SourceLoc& at, const std::string& what, const Ref& v) {
    std::string why = v->kind == Kind::Opaque ? v->s + where(v->where)
                      : host::isUnknown(*v) ? v->s + ", from a module Tessera did not find"
                                            : "it is " + host::typeName(*v);
    reportError(at, what + " could not be evaluated: " + why);
  }

  static AutotuneConfig config(const Ref& c, const SourceLoc& at, size_t index) {
    std::string what = "triton.autotune: config " + std::to_string(index);
    if (c->kind != Kind::Instance || c->s != "triton.Config") {
      if (host::isUnknown(*c)) fail(at, what, c);
      reportError(at, what + " is a " + host::typeName(*c) + ", not a triton.Config");
    }
    AutotuneConfig out;
    const Ref& kw = c->attrs.at("kwargs");
    if (kw->kind != Kind::Dict) fail(at, what + " (its meta-parameters)", kw);
    for (size_t k = 0; k < kw->keys.size(); ++k) {
      const Ref& key = kw->keys[k];
      if (key->kind != Kind::Str) reportError(at, what + ": meta-parameter names must be strings, got " + host::repr(*key));
      std::optional<ConstValue> v = toConst(*kw->items[k]);
      if (!v) fail(at, what + ": meta-parameter '" + key->s + "'", kw->items[k]);
      out.kwargs[key->s] = *v;
    }
    auto intAttr = [&](const char* name, int& dst) {
      const Ref& v = c->attrs.at(name);
      if (v->kind == Kind::None) return;
      if (v->kind != Kind::Int || !v->i.fitsInt64()) fail(at, what + ": " + name, v);
      dst = static_cast<int>(v->i.toInt64());
    };
    intAttr("num_warps", out.numWarps);
    intAttr("num_stages", out.numStages);
    intAttr("num_ctas", out.numCtas);
    if (c->attrs.at("maxnreg")->kind != Kind::None) {
      int r = 0;
      intAttr("maxnreg", r);
      out.maxnreg = r;
    }
    out.hasPreHook = c->attrs.at("pre_hook")->kind != Kind::None;
    return out;
  }

  static std::vector<std::string> names(SourceProgram::Shared& sh, const Ref& v, const SourceLoc& at, const char* what) {
    if (v->kind == Kind::Str) return {v->s};
    if (host::isUnknown(*v)) fail(at, what, v);
    std::vector<std::string> out;
    for (const Ref& x : sh.interp.iterate(v, at)) {
      if (x->kind != Kind::Str) reportError(at, std::string(what) + " must be a list of parameter names, got " + host::repr(*x));
      out.push_back(x->s);
    }
    return out;
  }

  /// `given`: the configs as the host language evaluated them (LoadOptions::
  /// autotuneConfigs), used instead of the `configs` argument's.
  static AutotuneSpec autotune(SourceProgram::Shared& sh, const host::LazyDecorator& d,
                               const std::vector<AutotuneConfig>* given = nullptr) {
    std::vector<Ref> args;
    host::Kwargs kw;
    if (given) autotuneArgs(sh, d, args, kw);
    else decoratorArgs(sh, d, args, kw);
    static const char* positional[] = {"configs", "key", "prune_configs_by", "reset_to_zero", "restore_value"};
    std::vector<std::pair<std::string, Ref>> all;
    for (size_t k = 0; k < args.size() && k < 5; ++k) all.emplace_back(positional[k], args[k]);
    for (auto& x : kw) all.push_back(x);
    AutotuneSpec spec;
    spec.loc = d.loc;
    for (const auto& [name, v] : all) {
      bool isNone = v->kind == Kind::None;
      if (name == "configs" && given) {
        // Python's own values. The host evaluator's config objects are kept
        // for prune_configs_by when they are the same configs.
        spec.configs = *given;
        if (!host::isUnknown(*v) && (v->kind == Kind::List || v->kind == Kind::Tuple)) {
          std::vector<AutotuneConfig> mine;
          try {
            for (size_t k = 0; k < v->items.size(); ++k) mine.push_back(config(v->items[k], d.loc, k));
          } catch (...) {
            mine.clear();  // Python's configs stand; prune_configs_by will say it lacks the objects
          }
          bool same = mine.size() == given->size();
          for (size_t k = 0; same && k < mine.size(); ++k)
            same = mine[k].kwargs == (*given)[k].kwargs && mine[k].numWarps == (*given)[k].numWarps &&
                   mine[k].numStages == (*given)[k].numStages && mine[k].numCtas == (*given)[k].numCtas &&
                   mine[k].maxnreg == (*given)[k].maxnreg;
          if (same) spec.configObjects = std::make_shared<Ref>(host::list(v->items));
        }
      } else if (name == "configs") {
        if (host::isUnknown(*v)) fail(d.loc, "triton.autotune: configs", v);
        std::vector<Ref> items = sh.interp.iterate(v, d.loc);
        if (items.size() > 4096) reportError(d.loc, "triton.autotune: more than 4096 configs");
        for (size_t k = 0; k < items.size(); ++k) spec.configs.push_back(config(items[k], d.loc, k));
        spec.configObjects = std::make_shared<Ref>(host::list(items));
      } else if (name == "key") {
        spec.key = names(sh, v, d.loc, "triton.autotune: key");
      } else if (name == "reset_to_zero" && !isNone) {
        spec.resetToZero = names(sh, v, d.loc, "triton.autotune: reset_to_zero");
      } else if (name == "restore_value" && !isNone) {
        spec.restoreValue = names(sh, v, d.loc, "triton.autotune: restore_value");
      } else if (name == "warmup" || name == "rep") {
        if (v->kind == Kind::Int || v->kind == Kind::Float)
          (name == "warmup" ? spec.warmup : spec.rep) = v->kind == Kind::Int ? v->i.toDouble() : v->f;
      } else if (name == "prune_configs_by") {
        spec.hasPruneConfigsBy = !isNone;
        pruneConfigsBy(v, d.loc, spec);
      }
      else if (name == "pre_hook") spec.hasPreHook = !isNone;
      else if (name == "post_hook") spec.hasPostHook = !isNone;
      else if (name == "do_bench") spec.hasDoBench = !isNone;
      else if (name == "cache_results") spec.cacheResults = host::truthy(*v) && v->kind != Kind::Opaque;
    }
    if (spec.configs.empty()) spec.configs.push_back(AutotuneConfig{});  // Triton: one default config
    return spec;
  }

  /// prune_configs_by={"early_config_prune": f, "perf_model": g, "top_k": k}:
  /// keeps the callables for evalEarlyConfigPrune / evalPerfModel. A dict
  /// that is not known leaves them null (the runtime then asks for C++ hooks).
  static void pruneConfigsBy(const Ref& v, const SourceLoc& at, AutotuneSpec& spec) {
    if (v->kind != Kind::Dict) return;
    for (size_t k = 0; k < v->keys.size(); ++k) {
      const Ref& key = v->keys[k];
      const Ref& value = v->items[k];
      if (key->kind != Kind::Str || value->kind == Kind::None) continue;
      bool callable = value->kind == Kind::Function || value->kind == Kind::Builtin ||
                      (value->kind == Kind::Instance && value->s == "functools.partial");
      if (key->s == "early_config_prune" || key->s == "perf_model") {
        if (!callable) {
          if (host::isUnknown(*value)) fail(at, "triton.autotune: prune_configs_by['" + key->s + "']", value);
          reportError(at, "triton.autotune: prune_configs_by['" + key->s + "'] must be a callable, got " +
                              host::typeName(*value));
        }
        (key->s == "early_config_prune" ? spec.earlyConfigPrune : spec.perfModel) = std::make_shared<Ref>(value);
      } else if (key->s == "top_k") {
        if (value->kind == Kind::Int && value->i.fitsInt64()) spec.topK = static_cast<double>(value->i.toInt64());
        else if (value->kind == Kind::Float) spec.topK = value->f, spec.topKFraction = value->f <= 1.0;
        else fail(at, "triton.autotune: prune_configs_by['top_k']", value);
      }
    }
  }

  /// One launch argument as host code sees it (a tuple's elements too).
  static Ref hostArg(const HostArg& a) {
    if (a.isTuple) {
      std::vector<Ref> items;
      for (const HostArg& e : a.elems) items.push_back(hostArg(e));
      return host::tuple(std::move(items));
    }
    return a.isTensor ? host::tensorValue(a.dtype, a.shape, a.strides, a.dataPtr) : fromConst(a.value);
  }

  /// The host values of a launch's arguments (HostArg) as a dict.
  static Ref hostArgs(const HostArgs& args, Ref into = nullptr) {
    Ref d = into ? into : host::dict();
    for (const auto& [name, a] : args) host::dictSet(*d, host::str(name), hostArg(a));
    return d;
  }

  static void heuristics(SourceProgram::Shared& sh, const host::LazyDecorator& d, std::vector<HeuristicSpec>& out) {
    std::vector<Ref> args;
    host::Kwargs kw;
    decoratorArgs(sh, d, args, kw);
    Ref values = args.empty() ? nullptr : args[0];
    for (auto& [k, v] : kw)
      if (k == "values") values = v;
    if (!values) reportError(d.loc, "triton.heuristics: expected a dict {name: callable}");
    if (host::isUnknown(*values)) fail(d.loc, "triton.heuristics: the dict of heuristics", values);
    if (values->kind != Kind::Dict)
      reportError(d.loc, "triton.heuristics: expected a dict {name: callable}, got " + host::typeName(*values));
    for (size_t k = 0; k < values->keys.size(); ++k) {
      const Ref& key = values->keys[k];
      const Ref& fn = values->items[k];
      if (key->kind != Kind::Str) reportError(d.loc, "triton.heuristics: names must be strings, got " + host::repr(*key));
      if (host::isUnknown(*fn)) fail(d.loc, "triton.heuristics: '" + key->s + "'", fn);
      if (fn->kind != Kind::Function && fn->kind != Kind::Builtin)
        reportError(d.loc, "triton.heuristics: '" + key->s + "' must be a callable, got " + host::typeName(*fn));
      HeuristicSpec h;
      h.name = key->s;
      h.fn = std::make_shared<Ref>(fn);
      h.loc = d.loc;
      out.push_back(std::move(h));
    }
  }
};

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

namespace {

/// `dir/pkg/sub/mod.py` inside packages (each level with __init__.py):
/// ("pkg.sub.mod", "dir"). A file in no package, or in a package named
/// `triton` (a project's own, which Triton's would shadow), under a
/// search-path directory is named by its path from there, as Python imports
/// it with that directory on sys.path through namespace packages (PEP 420:
/// directories without __init__.py), when that name is the longer one.
std::pair<std::string, std::string> moduleNameOf(const std::string& path, const std::vector<std::string>& searchPath) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p = fs::absolute(fs::path(path), ec).lexically_normal();
  std::string name = p.stem().string();
  bool isInit = name == "__init__";
  fs::path dir = p.parent_path();
  if (isInit) {
    name = dir.filename().string();
    dir = dir.parent_path();
    if (!fs::exists(p, ec)) return {name, dir.string()};
  }
  while (fs::exists(dir / "__init__.py", ec) && dir.has_parent_path() && dir != dir.parent_path()) {
    name = dir.filename().string() + "." + name;
    dir = dir.parent_path();
  }
  auto identifier = [](const std::string& part) {
    if (part.empty() || std::isdigit(static_cast<unsigned char>(part[0]))) return false;
    return std::all_of(part.begin(), part.end(),
                       [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
  };
  size_t parts = std::count(name.begin(), name.end(), '.') + 1;
  std::string topPackage = name.substr(0, name.find('.'));
  bool inPackage = parts > 1 || isInit;
  if (inPackage && topPackage != "triton") return {name, dir.string()};
  for (const std::string& entry : searchPath) {
    fs::path root = fs::absolute(fs::path(entry), ec).lexically_normal();
    fs::path rel = p.lexically_relative(root);
    if (rel.empty() || *rel.begin() == "..") continue;
    std::vector<std::string> names;
    for (const auto& part : rel.parent_path()) names.push_back(part.string());
    if (!isInit) names.push_back(p.stem().string());
    if (names.size() <= parts || !std::all_of(names.begin(), names.end(), identifier)) continue;
    std::string dotted;
    for (const auto& n : names) dotted += (dotted.empty() ? "" : ".") + n;
    return {dotted, root.string()};
  }
  return {name, dir.string()};
}

/// The search path the user gave: LoadOptions::searchPath, then TESSERA_PATH.
std::vector<std::string> userSearchPath(const LoadOptions& options) {
  std::vector<std::string> path = options.searchPath;
  if (std::optional<std::string> extra = env::text("TESSERA_PATH")) {
    std::stringstream dirs(*extra);
    for (std::string d; std::getline(dirs, d, ':');)
      if (!d.empty()) path.push_back(d);
  }
  return path;
}

host::Environment environment(const std::vector<std::string>& dirs, const LoadOptions& options) {
  host::Environment env;
  env.searchPath = userSearchPath(options);
  env.moduleFiles = options.moduleFiles;
  for (const std::string& d : dirs)
    if (std::find(env.searchPath.begin(), env.searchPath.end(), d) == env.searchPath.end()) env.searchPath.push_back(d);
  env.device = options.device;
  env.triton.isModule = [](const std::string& path) { return resolveModule(path).has_value(); };
  env.triton.hasAttr = [](const std::string& module, const std::string& attr) {
    auto ns = Bridge::tritonVal(module);
    return ns && ns->kind == Val::Kind::Namespace && namespaceAttr(ns->s, attr).has_value();
  };
  return env;
}

}  // namespace

SourceProgram::~SourceProgram() = default;

std::shared_ptr<SourceProgram> SourceProgram::load(SourceFileRef source, const std::string& path,
                                                   const LoadOptions& options) {
  std::string name, root;
  bool isPackage = false;
  std::vector<std::string> dirs;
  if (!path.empty()) {
    std::tie(name, root) = moduleNameOf(path, userSearchPath(options));
    isPackage = std::filesystem::path(path).filename() == "__init__.py";
    std::error_code ec;
    std::string own = std::filesystem::absolute(std::filesystem::path(path), ec).parent_path().lexically_normal().string();
    dirs = {own, root};
  } else {
    std::string stem = std::filesystem::path(source->name()).stem().string();
    name = stem.empty() || stem[0] == '<' ? "__main__" : stem;
  }
  auto shared = std::make_shared<Shared>(environment(dirs, options));
  shared->autotuneConfigs = options.autotuneConfigs;
  std::lock_guard<std::recursive_mutex> lock(shared->interp.mutex());
  shared->interp.beginSession();
  try {
    host::ModuleObj* m = shared->interp.runEntry(source, path, name, isPackage);
    return Bridge::handle(*shared, Bridge::programFor(*shared, m));
  } catch (const std::bad_alloc&) {
    reportError(shared->interp.here(), "host Python ran out of memory while loading the program");
  }
}

std::shared_ptr<SourceProgram> SourceProgram::loadFile(const std::string& path, const LoadOptions& options) {
  std::string text = py::readSourceFile(path);
  return load(std::make_shared<SourceFile>(path, py::pythonSourceText(text, path)), path, options);
}

/// A class that is neither an aggregate nor a namedtuple: a namespace of
/// functions (`class Ops:` holding @staticmethod @triton.jit functions).
static bool isPlainClass(const host::Object& v) {
  return v.kind == Kind::Instance && v.s.rfind("class ", 0) == 0 && !v.attrs.count("__fields__") &&
         !v.attrs.count("__enum__");
}

std::vector<std::pair<std::string, const JitFunction*>> SourceProgram::kernels() const {
  std::lock_guard<std::recursive_mutex> lock(shared_->interp.mutex());
  auto* m = static_cast<host::ModuleObj*>(module_);
  struct Found {
    std::pair<int, int> at;  ///< the def, then the binding, order the list
    std::string name;
    const JitFunction* fn;
  };
  std::vector<Found> found;
  std::set<const JitFunction*> seen;
  const std::vector<std::string> order = m->order;  // (a copy: jitFor may run host code)
  auto add = [&](const std::string& n, Ref value) {
    std::shared_ptr<host::FunctionData> fd = value->jit->function->fn;
    if (fd->module != m || !fd->def) return;
    const JitFunction* fn = Bridge::jitFor(*shared_, value);
    if (fn && seen.insert(fn).second) found.push_back({{fd->def->line, fd->def->col}, n, fn});
  };
  for (const std::string& n : order) {
    auto it = m->globals->vars.find(n);
    if (it == m->globals->vars.end()) continue;
    Ref value = it->second;
    if (value->kind == Kind::JitFn) add(n, value);
    // A plain class's @staticmethod @triton.jit functions: "Ops.kernel".
    if (isPlainClass(*value)) {
      std::map<std::string, Ref> attrs = value->attrs;  // (a copy: jitFor may run host code)
      for (const auto& [attr, v] : attrs)
        if (v->kind == Kind::JitFn) add(n + "." + attr, v);
    }
  }
  std::stable_sort(found.begin(), found.end(), [](const Found& a, const Found& b) { return a.at < b.at; });
  std::vector<std::pair<std::string, const JitFunction*>> out;
  for (auto& f : found) out.emplace_back(f.name, f.fn);
  return out;
}

const JitFunction* SourceProgram::find(std::string_view name) const {
  std::lock_guard<std::recursive_mutex> lock(shared_->interp.mutex());
  auto* m = static_cast<host::ModuleObj*>(module_);
  // A dotted path walks module and class attributes: "ops.add_kernel",
  // "Ops.kernel".
  Ref cur;
  std::string_view rest = name;
  const host::Scope* scope = m->globals.get();
  const host::Object* cls = nullptr;  // walking a class's attributes instead
  while (true) {
    size_t dot = rest.find('.');
    std::string part(rest.substr(0, dot));
    Ref next;
    if (cls) {
      if (auto it = cls->attrs.find(part); it != cls->attrs.end()) next = it->second;
    } else if (auto it = scope->vars.find(part); it != scope->vars.end()) {
      next = it->second;
    }
    if (!next) break;
    if (dot == std::string_view::npos) {
      cur = next;
      break;
    }
    if (next->kind == Kind::Module) scope = next->module->globals.get(), cls = nullptr;
    else if (isPlainClass(*next)) cls = next.get();
    else break;
    rest = rest.substr(dot + 1);
  }
  if (cur && cur->kind == Kind::JitFn) return Bridge::jitFor(*shared_, cur);  // (cur: a Ref copy)
  for (const auto& [bound, fn] : kernels())
    if (fn->name == name) return fn;
  return nullptr;
}

std::string SourceProgram::whyNotAKernel(std::string_view name) const {
  std::lock_guard<std::recursive_mutex> lock(shared_->interp.mutex());
  auto* m = static_cast<host::ModuleObj*>(module_);
  auto it = m->globals->vars.find(std::string(name));
  if (it == m->globals->vars.end()) return "";
  const Ref& v = it->second;
  if (v->kind == Kind::Opaque)
    return "'" + std::string(name) + "' could not be evaluated on the host: " + v->s + Bridge::where(v->where);
  std::string why = "'" + std::string(name) + "' is " + host::typeName(*v) + ", not a @triton.jit function";
  if (v->kind == Kind::Function && !v->fn->undecidedDecorator.empty()) why += ": " + v->fn->undecidedDecorator;
  return why;
}

std::vector<std::shared_ptr<const SourceProgram>> SourceProgram::modules() const {
  std::lock_guard<std::recursive_mutex> lock(shared_->interp.mutex());
  std::vector<std::shared_ptr<const SourceProgram>> out;
  for (const auto& m : shared_->interp.modules()) out.push_back(Bridge::handle(*shared_, Bridge::programFor(*shared_, m.get())));
  return out;
}

const std::vector<std::string>& SourceProgram::searchPath() const { return shared_->interp.environment().searchPath; }

CompileResult SourceProgram::compile(const JitFunction& fn, const std::vector<ParamSpec>& params,
                                     const CompileOptions& options) const {
  auto module = std::make_unique<ir::Module>();
  CodeGen cg(options, module.get());
  CompileResult r = cg.compileKernel(*fn.program, fn, params);
  r.module = std::move(module);
  return r;
}

CompileResult SourceProgram::compile(std::string_view name, const std::vector<ParamSpec>& params,
                                     const CompileOptions& options) const {
  const JitFunction* fn = find(name);
  if (!fn) {
    std::string names;
    for (const auto& [bound, f] : kernels()) names += (names.empty() ? "" : ", ") + bound;
    std::string why = whyNotAKernel(name);
    throw Error(source_->name() + ": error: no @triton.jit function named '" + std::string(name) +
                "' (the file defines: " + (names.empty() ? "none" : names) + ")" + (why.empty() ? "" : ": " + why));
  }
  return compile(*fn, params, options);
}

/// A constexpr Val as the host evaluator's value; null for a tensor (or a
/// tuple holding one).
static Ref hostValueOf(const Val& v) {
  switch (v.kind) {
    case Val::Kind::None: return host::none();
    case Val::Kind::Bool: return host::boolean(v.b);
    case Val::Kind::Int: return host::integer(v.i);
    case Val::Kind::Float: return host::flt(v.f);
    case Val::Kind::Str: return host::str(v.s);
    case Val::Kind::DType: return host::dtype(v.dtype.name());
    case Val::Kind::Tuple: {
      std::vector<Ref> items;
      for (const Val& e : v.elems) {
        Ref r = hostValueOf(e);
        if (!r) return nullptr;
        items.push_back(std::move(r));
      }
      return host::tuple(std::move(items));
    }
    default: return nullptr;
  }
}

std::string constexprFunctionKey(const Val& callee) {
  const auto& f = *static_cast<const HostConstexprFunction*>(callee.host.get());
  const host::Object& h = *f.fn;
  if (h.kind != Kind::Function || !h.fn) return h.s;  // a builtin made a constexpr_function: its name
  int line = h.fn->def ? h.fn->def->line : h.fn->lambda ? h.fn->lambda->line : 0;
  return h.fn->name + "_" + (h.fn->module ? h.fn->module->name : std::string()) + "_" + std::to_string(line);
}

Val callConstexprFunction(CodeGen& cg, const Val& callee, const std::vector<Val>& args, const CodeGen::KwArgs& kwargs) {
  const auto& f = *static_cast<const HostConstexprFunction*>(callee.host.get());
  std::string what = "constexpr_function '" + f.name + "'";
  auto convert = [&](const Val& v, const std::string& arg) {
    Ref r = hostValueOf(v);
    if (!r)
      cg.fail(what + ": argument " + arg + " is " + v.typeName() +
              "; a constexpr_function runs at compile time and takes constexprs only");
    return r;
  };
  std::vector<Ref> hostArgs;
  for (size_t k = 0; k < args.size(); ++k) hostArgs.push_back(convert(args[k], std::to_string(k + 1)));
  host::Kwargs hostKwargs;
  for (const auto& [name, v] : kwargs) hostKwargs.emplace_back(name, convert(v, "'" + name + "'"));
  SourceLoc at = cg.current() ? cg.locOf(*cg.current()) : SourceLoc{};
  SourceProgram::Shared& sh = *f.shared;
  std::lock_guard<std::recursive_mutex> lock(sh.interp.mutex());
  sh.interp.beginSession();
  Ref r;
  try {
    r = sh.interp.call(f.fn, std::move(hostArgs), std::move(hostKwargs), at);
  } catch (const host::PyException& e) {
    cg.fail(what + " raised " + host::repr(*e.exc) + Bridge::where(e.exc->where));
  }
  Val out = Bridge::toVal(sh, r, f.name + "(...)");
  if (out.kind == Val::Kind::Opaque || out.kind == Val::Kind::Func || out.kind == Val::Kind::Module)
    cg.fail(what + " returned " + host::typeName(*r) +
            "; kernels can use what it returns when it is None, a bool, an int, a float, a string, a dtype or a "
            "tuple of those");
  return out;
}

std::optional<Val> SourceProgram::Globals::constexprAttr(const Val& v, const std::string& attr) const {
  Ref value = hostValueOf(v);
  if (!value) return std::nullopt;
  SourceProgram::Shared& sh = *program->shared_;
  std::lock_guard<std::recursive_mutex> lock(sh.interp.mutex());
  sh.interp.beginSession();
  Ref a;
  try {
    a = sh.interp.getAttr(value, attr, SourceLoc{});
  } catch (const host::PyException&) {
    return std::nullopt;
  }
  if (a->kind == Kind::Builtin) return Bridge::hostConstexprFunction(sh, a, attr);
  Val out = Bridge::toVal(sh, a, attr);
  if (out.kind == Val::Kind::Opaque) return std::nullopt;
  return out;
}

DeviceQueries SourceProgram::device() const {
  std::lock_guard<std::recursive_mutex> lock(shared_->interp.mutex());
  return shared_->interp.device();
}

ConstValue SourceProgram::evalHeuristic(const HeuristicSpec& h, const std::map<std::string, ConstValue>& args) const {
  HostArgs host;
  for (const auto& [k, v] : args) host.emplace_back(k, HostArg{v});
  return evalHeuristic(h, host);
}

ConstValue SourceProgram::evalHeuristic(const HeuristicSpec& h, const HostArgs& args) const {
  std::lock_guard<std::recursive_mutex> lock(shared_->interp.mutex());
  Ref d = Bridge::hostArgs(args);
  Ref fn = *static_cast<const Ref*>(h.fn.get());
  shared_->interp.beginSession();
  Ref r;
  try {
    r = shared_->interp.call(fn, {d}, {}, h.loc);
  } catch (const host::PyException& e) {
    reportError(h.loc, "triton.heuristics: '" + h.name + "' raised " + host::repr(*e.exc) + Bridge::where(e.exc->where));
  }
  std::optional<ConstValue> c = Bridge::toConst(*r);
  if (!c) {
    if (host::isUnknown(*r)) Bridge::fail(h.loc, "triton.heuristics: '" + h.name + "'", r);
    reportError(h.loc, "triton.heuristics: '" + h.name +
                           "' must give None, a bool, an int, a float, a string or a dtype, got " + host::typeName(*r));
  }
  return *c;
}

/// Runs one prune_configs_by callable under the evaluator's lock and budget;
/// its exceptions become located errors naming the hook.
static Ref runPruneHook(SourceProgram::Shared& sh, const std::shared_ptr<const void>& fn, const char* hook,
                        std::vector<Ref> args, host::Kwargs kwargs, const SourceLoc& at) {
  Ref callable = *static_cast<const Ref*>(fn.get());
  sh.interp.beginSession();
  try {
    return sh.interp.call(callable, std::move(args), std::move(kwargs), at);
  } catch (const host::PyException& e) {
    reportError(at, std::string("triton.autotune: prune_configs_by['") + hook + "'] raised " + host::repr(*e.exc) +
                        Bridge::where(e.exc->where));
  }
}

static host::Kwargs asKwargs(const Ref& dict) {
  host::Kwargs kw;
  for (size_t k = 0; k < dict->keys.size(); ++k) kw.emplace_back(dict->keys[k]->s, dict->items[k]);
  return kw;
}

std::vector<size_t> SourceProgram::evalEarlyConfigPrune(const AutotuneSpec& spec, const HostArgs& named,
                                                        const HostArgs& kwargs) const {
  std::lock_guard<std::recursive_mutex> lock(shared_->interp.mutex());
  if (!spec.configObjects)
    reportError(spec.loc, "triton.autotune: prune_configs_by['early_config_prune'] needs the decorator's configs as "
                          "Python objects, and Tessera's host evaluator did not evaluate them to the configs Python "
                          "gave; drop prune_configs_by, or give its C++ form with Kernel::set_autotune_hooks");
  const Ref& objects = *static_cast<const Ref*>(spec.configObjects.get());
  Ref configs = host::list(objects->items);  // the hook may change its list
  Ref kept = runPruneHook(*shared_, spec.earlyConfigPrune, "early_config_prune",
                          {configs, Bridge::hostArgs(named)}, asKwargs(Bridge::hostArgs(kwargs)), spec.loc);
  if (host::isUnknown(*kept)) Bridge::fail(spec.loc, "triton.autotune: prune_configs_by['early_config_prune']", kept);
  std::vector<size_t> out;
  for (const Ref& c : shared_->interp.iterate(kept, spec.loc)) {
    size_t found = objects->items.size();
    for (size_t i = 0; i < objects->items.size() && found == objects->items.size(); ++i)
      if (objects->items[i] == c) found = i;
    if (found == objects->items.size()) {
      // A new triton.Config equal to one of the decorator's is that one.
      AutotuneConfig made = Bridge::config(c, spec.loc, out.size());
      for (size_t i = 0; i < spec.configs.size() && found == objects->items.size(); ++i) {
        const AutotuneConfig& x = spec.configs[i];
        if (x.kwargs == made.kwargs && x.numWarps == made.numWarps && x.numStages == made.numStages &&
            x.numCtas == made.numCtas && x.maxnreg == made.maxnreg)
          found = i;
      }
      if (found == objects->items.size())
        reportError(spec.loc, "triton.autotune: prune_configs_by['early_config_prune'] returned a config that is "
                              "not one of the decorator's: " + host::repr(*c->attrs.at("kwargs")) +
                              " (Tessera times only the decorator's configs)");
    }
    out.push_back(found);
  }
  if (out.empty())
    reportError(spec.loc, "triton.autotune: no valid autotuner configs after pruning: early_config_prune should "
                          "return at least one config");
  return out;
}

double SourceProgram::evalPerfModel(const AutotuneSpec& spec, size_t index, const HostArgs& named,
                                    const HostArgs& kwargs) const {
  std::lock_guard<std::recursive_mutex> lock(shared_->interp.mutex());
  // perf_model(**named_args, **kwargs, **config.all_kwargs()), later names winning.
  Ref all = Bridge::hostArgs(kwargs, Bridge::hostArgs(named));
  const AutotuneConfig& c = spec.configs.at(index);
  for (const auto& [name, v] : c.kwargs) host::dictSet(*all, host::str(name), Bridge::fromConst(v));
  host::dictSet(*all, host::str("num_warps"), host::integer(c.numWarps));
  host::dictSet(*all, host::str("num_stages"), host::integer(c.numStages));
  host::dictSet(*all, host::str("num_ctas"), host::integer(c.numCtas));
  if (c.maxnreg) host::dictSet(*all, host::str("maxnreg"), host::integer(*c.maxnreg));
  Ref r = runPruneHook(*shared_, spec.perfModel, "perf_model", {}, asKwargs(all), spec.loc);
  if (r->kind == Kind::Int || r->kind == Kind::Bool) return r->kind == Kind::Bool ? r->b : r->i.toDouble();
  if (r->kind == Kind::Float) return r->f;
  if (host::isUnknown(*r)) Bridge::fail(spec.loc, "triton.autotune: prune_configs_by['perf_model']", r);
  reportError(spec.loc, "triton.autotune: prune_configs_by['perf_model'] must return a number, got " +
                            host::typeName(*r));
}

//===----------------------------------------------------------------------===//
// Lazily evaluated decorators and globals
//===----------------------------------------------------------------------===//

const AutotuneSpec* JitFunction::autotune() const {
  if (!hasAutotune || !lazy) return nullptr;
  SourceProgram::Shared& sh = *lazy->shared;
  std::lock_guard<std::recursive_mutex> lock(sh.interp.mutex());
  if (!lazy->autotuneDone) {
    lazy->autotuneDone = true;
    try {
      sh.interp.beginSession();
      // The outermost autotune decides (decorators are innermost first).
      const auto& decs = lazy->value->jit->decorators;
      for (auto it = decs.rbegin(); it != decs.rend(); ++it)
        if (it->what == host::LazyDecorator::What::Autotune) {
          auto given = sh.autotuneConfigs.find(name);
          lazy->autotune = Bridge::autotune(sh, *it, given == sh.autotuneConfigs.end() ? nullptr : &given->second);
          break;
        }
    } catch (const host::PyException& e) {
      lazy->autotuneError = std::make_exception_ptr(
          Error(formatDiagnostic(e.exc->where, "triton.autotune of kernel '" + name + "' raised " + host::repr(*e.exc))));
    } catch (...) {
      lazy->autotuneError = std::current_exception();
    }
  }
  if (lazy->autotuneError) std::rethrow_exception(lazy->autotuneError);
  return lazy->autotune ? &*lazy->autotune : nullptr;
}

const std::vector<HeuristicSpec>& JitFunction::heuristics() const {
  static const std::vector<HeuristicSpec> none;
  if (!hasHeuristics || !lazy) return none;
  SourceProgram::Shared& sh = *lazy->shared;
  std::lock_guard<std::recursive_mutex> lock(sh.interp.mutex());
  if (!lazy->heuristicsDone) {
    lazy->heuristicsDone = true;
    try {
      sh.interp.beginSession();
      // Triton runs the outermost heuristics first.
      const auto& decs = lazy->value->jit->decorators;
      for (auto it = decs.rbegin(); it != decs.rend(); ++it)
        if (it->what == host::LazyDecorator::What::Heuristics) Bridge::heuristics(sh, *it, lazy->heuristics);
    } catch (const host::PyException& e) {
      lazy->heuristicsError = std::make_exception_ptr(
          Error(formatDiagnostic(e.exc->where, "triton.heuristics of kernel '" + name + "' raised " + host::repr(*e.exc))));
    } catch (...) {
      lazy->heuristicsError = std::current_exception();
    }
  }
  if (lazy->heuristicsError) std::rethrow_exception(lazy->heuristicsError);
  return lazy->heuristics;
}

template <class Find>
std::optional<Val> SourceProgram::Globals::cached(const std::string& key, Find find) const {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  SourceProgram::Shared& sh = *program->shared_;
  std::optional<Val> v;
  {
    std::lock_guard<std::recursive_mutex> lock(sh.interp.mutex());
    Ref value = find(*static_cast<host::ModuleObj*>(program->module_));  // (by value: the conversion may run host code)
    if (!value) return std::nullopt;
    v = Bridge::toVal(sh, value, key);
  }
  std::lock_guard<std::mutex> lock(mutex);
  cache.emplace(key, *v);
  return v;
}

std::optional<Val> SourceProgram::Globals::lookupClassAttr(const std::string& name, const std::string& attr) const {
  // Only a global bound to a plain class (Bridge::toVal's "class 'X'"),
  // known from the cached lookup: `tl.arange` and the like take no lock.
  std::optional<Val> g = lookup(name);
  if (!g || g->kind != Val::Kind::Opaque || g->s.rfind("class '", 0) != 0) return std::nullopt;
  return cached(name + "." + attr, [&](host::ModuleObj& m) -> Ref {
    auto it = m.globals->vars.find(name);
    if (it == m.globals->vars.end() || !isPlainClass(*it->second)) return nullptr;
    auto a = it->second->attrs.find(attr);
    return a == it->second->attrs.end() ? nullptr : a->second;
  });
}

std::optional<Val> SourceProgram::Globals::lookup(const std::string& name) const {
  return cached(name, [&](host::ModuleObj& m) -> Ref {
    auto it = m.globals->vars.find(name);
    return it == m.globals->vars.end() ? nullptr : it->second;
  });
}

}  // namespace tessera::frontend
