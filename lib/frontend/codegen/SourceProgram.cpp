//===- SourceProgram.cpp - Parse a kernel file and index its @jit functions -===//
//
// SourceProgram::load parses the file and walks its top-level statements:
//
//   imports        bound to the namespaces Tessera models (triton, tl,
//                  tl.math, libdevice, ...) or to opaque host modules
//   @jit functions indexed with their parameters and decorators (autotune,
//                  heuristics, jit options) into JitFunction
//   assignments    `X = tl.constexpr(3)`, `X: tl.constexpr = 3`, `X = 3`,
//                  `X = 2.5`, `DT = tl.float16`, constant expressions: kept
//                  as constexpr globals. Tessera accepts plain int / float /
//                  bool / str / dtype globals as constexprs (Triton requires
//                  the tl.constexpr wrapper); anything else becomes an opaque
//                  global that kernels may not use.
//   anything else  (classes, host functions, `if __name__ == ...`) ignored.
//
//===----------------------------------------------------------------------===//

#include <cassert>
#include <set>

#include "CodeGen.h"

namespace tessera::frontend {

namespace {

ConstValue toConstValue(const Val& v, bool& ok) {
  ok = true;
  switch (v.kind) {
    case Val::Kind::None: return std::monostate{};
    case Val::Kind::Bool: return v.b;
    case Val::Kind::Int:
      if (v.i.fitsInt64()) return v.i.toInt64();
      if (v.i.fitsUInt64()) return static_cast<int64_t>(v.i.toUInt64());
      break;
    case Val::Kind::Float: return v.f;
    case Val::Kind::Str: return v.s;
    case Val::Kind::DType: return v.dtype.name();
    default: break;
  }
  ok = false;
  return std::monostate{};
}

/// Indexes one module; `prog` is the program being loaded.
class Indexer {
 public:
  Indexer(const SourceProgram& prog, SourceProgram::Globals& globals, std::vector<JitFunction>& fns)
      : prog_(prog), globals_(globals), fns_(fns), cg_(opts_, nullptr) {
    auto frame = std::make_unique<CodeGen::Frame>();
    frame->program = &prog;
    frame->isPrelude = globals.isPrelude;
    cg_.pushFrame(std::move(frame));
  }

  void run(const py::Module& m) {
    for (const auto& s : m.body) stmt(*s);
  }

 private:
  SourceLoc loc(const py::Node& n) const { return SourceLoc{prog_.source().get(), n.line, n.col}; }

  std::optional<Val> tryEval(const py::Expr& e) {
    try {
      return cg_.eval(e);
    } catch (const Error&) {
      return std::nullopt;
    }
  }

  void bindImport(const std::string& name, const std::string& path) {
    if (auto v = resolveModule(path)) globals_.names[name] = *v;
    else globals_.names[name] = Val::opaque("module '" + path + "'");
  }

  void stmt(const py::Stmt& s) {
    if (auto* imp = s.as<py::Import>()) {
      for (const auto& a : imp->names) {
        if (a.asname) bindImport(*a.asname, a.name);
        else bindImport(a.name.substr(0, a.name.find('.')), a.name.substr(0, a.name.find('.')));
      }
    } else if (auto* imp = s.as<py::ImportFrom>()) {
      for (const auto& a : imp->names) {
        std::string local = a.asname ? *a.asname : a.name;
        if (a.name == "*") continue;
        std::string full = imp->module + "." + a.name;
        if (auto v = resolveModule(full)) {
          globals_.names[local] = *v;
        } else if (auto mod = resolveModule(imp->module); mod && mod->kind == Val::Kind::Namespace) {
          auto attr = namespaceAttr(mod->s, a.name);
          globals_.names[local] = attr ? *attr : Val::opaque("'" + full + "'");
        } else {
          globals_.names[local] = Val::opaque("'" + full + "'");
        }
      }
    } else if (auto* as = s.as<py::Assign>()) {
      auto v = tryEval(*as->value);
      for (const auto& t : as->targets) {
        bindTarget(*t, v);
        if (auto* n = t->as<py::Name>()) assignedExprs_[n->id] = as->value.get();
      }
    } else if (auto* an = s.as<py::AnnAssign>()) {
      std::optional<Val> v;
      if (an->value) v = tryEval(*an->value);
      if (an->value) bindTarget(*an->target, v);
    } else if (auto* fd = s.as<py::FunctionDef>()) {
      functionDef(*fd);
    } else if (auto* cd = s.as<py::ClassDef>()) {
      globals_.names[cd->name] = Val::opaque("class '" + cd->name + "'");
    } else {
      noteMutations(s);
    }
  }

  /// Module-level names changed after their assignment (`x += ...`,
  /// `x.append(...)`, assignments in loops and branches): their assigned
  /// expression no longer says what they hold, so configs cannot name them.
  void noteMutations(const py::Stmt& s) {
    auto bodies = [&](const py::StmtList& list) {
      for (const auto& inner : list) noteMutations(*inner);
    };
    if (auto* aug = s.as<py::AugAssign>()) {
      if (auto* n = aug->target->as<py::Name>()) mutated_.insert(n->id);
    } else if (auto* as = s.as<py::Assign>()) {
      for (const auto& t : as->targets)
        if (auto* n = t->as<py::Name>()) mutated_.insert(n->id);
    } else if (auto* e = s.as<py::ExprStmt>()) {
      if (auto* call = e->value->as<py::Call>())
        if (auto* attr = call->func->as<py::Attribute>())
          if (auto* n = attr->value->as<py::Name>()) mutated_.insert(n->id);
    } else if (auto* f = s.as<py::For>()) {
      bodies(f->body);
      bodies(f->orelse);
    } else if (auto* w = s.as<py::While>()) {
      bodies(w->body);
      bodies(w->orelse);
    } else if (auto* i = s.as<py::If>()) {
      bodies(i->body);
      bodies(i->orelse);
    } else if (auto* wi = s.as<py::With>()) {
      bodies(wi->body);
    }
  }

  void bindTarget(const py::Expr& target, const std::optional<Val>& v) {
    if (auto* n = target.as<py::Name>()) {
      if (v && v->isConstexpr() && v->kind != Val::Kind::Opaque)
        globals_.names[n->id] = *v;
      else
        globals_.names[n->id] = Val::opaque("global variable '" + n->id + "'");
      return;
    }
    if (auto* t = target.as<py::Tuple>()) {
      for (size_t k = 0; k < t->elts.size(); ++k) {
        std::optional<Val> e;
        if (v && v->isTuple() && v->elems.size() == t->elts.size()) e = v->elems[k];
        bindTarget(*t->elts[k], e);
      }
    }
  }

  static bool mentionsConstexpr(const py::Expr* e) {
    if (!e) return false;
    if (auto* a = e->as<py::Attribute>()) return a->attr == "constexpr";
    if (auto* n = e->as<py::Name>()) return n->id == "constexpr";
    if (auto* c = e->as<py::Constant>()) return c->type == py::Constant::Type::Str && c->strValue.find("constexpr") != std::string::npos;
    return false;
  }

  std::optional<std::string> annotationType(const py::Expr* e) {
    if (!e || mentionsConstexpr(e)) return std::nullopt;
    if (auto* c = e->as<py::Constant>(); c && c->type == py::Constant::Type::Str) {
      // "const" marks a const pointer (handled by the code generator), not a type.
      if (c->strValue.find("const") != std::string::npos) return std::nullopt;
      return c->strValue;
    }
    auto v = tryEval(*e);
    if (v && v->kind == Val::Kind::DType) return v->dtype.name();
    return std::nullopt;
  }

  /// What a decorator expression names: "triton.jit", "triton.autotune", ...
  std::string decoratorName(const py::Expr& d) {
    const py::Expr* f = &d;
    if (auto* c = d.as<py::Call>()) f = c->func.get();
    auto v = tryEval(*f);
    if (v && v->kind == Val::Kind::Builtin) return v->s;
    return "";
  }

  void functionDef(const py::FunctionDef& fd) {
    JitFunction fn;
    fn.name = fd.name;
    fn.def = &fd;
    fn.loc = loc(fd);
    bool isJit = false;
    // Decorators apply bottom-up; autotune/heuristics wrap the jit function.
    for (const auto& d : fd.decorators) {
      std::string name = decoratorName(*d);
      auto* call = d->as<py::Call>();
      if (name == "triton.jit") {
        isJit = true;
        if (call) jitOptions(*call, fn);
      } else if (name == "triton.autotune" && call) {
        fn.autotune = autotune(*call);
      } else if (name == "triton.heuristics" && call) {
        heuristics(*call, fn);
      }
    }
    if (!isJit) {
      globals_.names[fd.name] = Val::opaque("host function '" + fd.name + "'");
      return;
    }
    std::vector<const py::Arg*> args;
    for (const auto& a : fd.args.posonlyargs) args.push_back(&a);
    for (const auto& a : fd.args.args) args.push_back(&a);
    size_t firstDefault = args.size() - std::min(args.size(), fd.args.defaults.size());
    for (size_t k = 0; k < args.size(); ++k) {
      Parameter p;
      p.name = args[k]->name;
      p.loc = loc(*args[k]);
      p.isConstexpr = mentionsConstexpr(args[k]->annotation.get());
      p.annotatedType = annotationType(args[k]->annotation.get());
      if (k >= firstDefault) {
        p.hasDefault = true;
        if (auto v = tryEval(*fd.args.defaults[k - firstDefault])) {
          bool ok = false;
          ConstValue cv = toConstValue(*v, ok);
          if (ok) p.defaultValue = cv;
        }
      }
      fn.params.push_back(std::move(p));
    }
    fns_.push_back(std::move(fn));
    globals_.names[fd.name] = Val::func(FuncRef{&prog_, nullptr});  // fn pointer fixed up later
  }

  std::vector<std::string> stringList(const py::Expr& e, const char* what) {
    std::vector<std::string> out;
    auto v = tryEval(e);
    if (!v) reportError(loc(e), std::string(what) + " must be a list of names");
    if (v->kind == Val::Kind::Str) return {v->s};
    if (!v->isTuple()) reportError(loc(e), std::string(what) + " must be a list of names");
    for (const auto& x : v->elems) {
      if (x.kind == Val::Kind::Str) out.push_back(x.s);
      else if (x.kind == Val::Kind::Int) out.push_back("#" + x.i.toString());
      else reportError(loc(e), std::string(what) + " must be a list of names");
    }
    return out;
  }

  void jitOptions(const py::Call& call, JitFunction& fn) {
    for (const auto& kw : call.keywords) {
      if (!kw.arg) continue;
      if (*kw.arg == "noinline") fn.noinline = constBool(*kw.value);
      else if (*kw.arg == "debug") fn.debug = constBool(*kw.value);
      else if (*kw.arg == "do_not_specialize") fn.doNotSpecialize = stringList(*kw.value, "do_not_specialize");
      else if (*kw.arg == "do_not_specialize_on_alignment")
        fn.doNotSpecializeOnAlignment = stringList(*kw.value, "do_not_specialize_on_alignment");
    }
  }

  bool constBool(const py::Expr& e) {
    auto v = tryEval(e);
    return v && v->truthy();
  }

  /// The configs of @triton.autotune(configs=...) as Triton users write
  /// them: a list or tuple of triton.Config, a comprehension over constant
  /// iterables (lists, tuples, range(...)) with `if` filters, a module-level
  /// name bound to one of these, or a sum of them.
  void configList(const py::Expr& e, std::vector<AutotuneConfig>& out, int depth) {
    if (depth > 16) reportError(loc(e), "triton.autotune: configs nest too deeply");
    if (auto* l = e.as<py::List>()) {
      for (const auto& c : l->elts) out.push_back(config(*c));
    } else if (auto* t = e.as<py::Tuple>()) {
      for (const auto& c : t->elts) out.push_back(config(*c));
    } else if (auto* comp = e.as<py::ListComp>()) {
      expandComprehension(*comp->elt, comp->generators, 0, out);
    } else if (auto* gen = e.as<py::GeneratorExp>()) {
      expandComprehension(*gen->elt, gen->generators, 0, out);
    } else if (auto* b = e.as<py::BinOp>(); b && b->op == py::BinOpKind::Add) {
      configList(*b->left, out, depth + 1);
      configList(*b->right, out, depth + 1);
    } else if (auto* n = e.as<py::Name>(); n && mutated_.count(n->id)) {
      reportError(loc(e), "triton.autotune: configs '" + n->id + "' are changed after they are assigned (+=, append, "
                          "a loop or a branch); Tessera reads configs without running Python: build them in one "
                          "expression (a list, a comprehension, or a sum of these)");
    } else if (auto* n = e.as<py::Name>(); n && assignedExprs_.count(n->id)) {
      configList(*assignedExprs_.at(n->id), out, depth + 1);
    } else {
      reportError(loc(e), "triton.autotune: configs must be a list of triton.Config (a literal, a comprehension, "
                          "or a module-level name bound to one)");
    }
  }

  /// The values a comprehension's `for` runs over: a constant list or
  /// tuple, or range(...) of constant integers.
  std::vector<Val> iterationValues(const py::Expr& iter) {
    if (auto* call = iter.as<py::Call>()) {
      auto* fn = call->func->as<py::Name>();
      if (fn && fn->id == "range" && call->keywords.empty() && !call->args.empty() && call->args.size() <= 3) {
        int64_t a[3] = {0, 0, 1};
        for (size_t k = 0; k < call->args.size(); ++k) a[call->args.size() == 1 ? 1 : k] = intOf(*call->args[k], "range");
        if (a[2] == 0) reportError(loc(iter), "range() step must not be zero");
        std::vector<Val> out;
        for (int64_t i = a[0]; a[2] > 0 ? i < a[1] : i > a[1];) {
          if (out.size() >= 4096) reportError(loc(iter), "triton.autotune: more than 4096 configs");
          out.push_back(Val::integer(BigInt(i)));
          if (__builtin_add_overflow(i, a[2], &i)) break;  // the next value is past any int64 bound
        }
        return out;
      }
    }
    auto v = tryEval(iter);
    if (!v || !v->isTuple())
      reportError(loc(iter), "triton.autotune: a configs comprehension must iterate over a constant list, tuple or "
                             "range(...)");
    return v->elems;
  }

  void expandComprehension(const py::Expr& elt, const std::vector<py::Comprehension>& gens, size_t level,
                           std::vector<AutotuneConfig>& out) {
    if (level == gens.size()) {
      if (out.size() >= 4096) reportError(loc(elt), "triton.autotune: more than 4096 configs");
      out.push_back(config(elt));
      return;
    }
    const py::Comprehension& g = gens[level];
    for (const Val& value : iterationValues(*g.iter)) {
      // Filters that reject nearly everything still cost their iterations.
      if (++comprehensionSteps_ > (1 << 20))
        reportError(loc(*g.iter), "triton.autotune: a configs comprehension runs over a million iterations");
      std::map<std::string, Val>& locals = cg_.frame().locals;
      std::map<std::string, Val> saved = locals;
      bindLocal(*g.target, value);
      bool keep = true;
      for (const auto& cond : g.ifs) {
        auto c = tryEval(*cond);
        if (!c) reportError(loc(*cond), "triton.autotune: a configs comprehension's `if` must be a constant condition");
        keep = keep && c->truthy();
      }
      if (keep) expandComprehension(elt, gens, level + 1, out);
      locals = std::move(saved);
    }
  }

  /// Binds a comprehension target (a name or a tuple of names) to `value`.
  void bindLocal(const py::Expr& target, const Val& value) {
    if (auto* n = target.as<py::Name>()) {
      cg_.frame().locals[n->id] = value;
    } else if (auto* t = target.as<py::Tuple>(); t && value.isTuple() && value.elems.size() == t->elts.size()) {
      for (size_t k = 0; k < t->elts.size(); ++k) bindLocal(*t->elts[k], value.elems[k]);
    } else {
      reportError(loc(target), "triton.autotune: cannot unpack this value in a configs comprehension");
    }
  }

  AutotuneConfig config(const py::Expr& e) {
    auto* call = e.as<py::Call>();
    if (!call) reportError(loc(e), "triton.autotune: configs must be triton.Config(...) objects");
    AutotuneConfig c;
    const py::Expr* kwargsExpr = call->args.empty() ? nullptr : call->args[0].get();
    for (const auto& kw : call->keywords) {
      if (!kw.arg) continue;
      if (*kw.arg == "kwargs") kwargsExpr = kw.value.get();
      else if (*kw.arg == "pre_hook") c.hasPreHook = !(kw.value->as<py::Constant>() && kw.value->as<py::Constant>()->type == py::Constant::Type::None);
      else if (*kw.arg == "num_warps") c.numWarps = static_cast<int>(intOf(*kw.value, "num_warps"));
      else if (*kw.arg == "num_stages") c.numStages = static_cast<int>(intOf(*kw.value, "num_stages"));
      else if (*kw.arg == "num_ctas") c.numCtas = static_cast<int>(intOf(*kw.value, "num_ctas"));
      else if (*kw.arg == "maxnreg") {
        auto v = tryEval(*kw.value);
        if (v && v->kind == Val::Kind::Int) c.maxnreg = static_cast<int>(v->i.toInt64());
      }
    }
    for (size_t k = 1; k < call->args.size() && k < 3; ++k)
      (k == 1 ? c.numWarps : c.numStages) = static_cast<int>(intOf(*call->args[k], "triton.Config"));
    if (kwargsExpr) {
      auto* dict = kwargsExpr->as<py::Dict>();
      if (!dict) reportError(loc(*kwargsExpr), "triton.Config: expected a dict literal of meta-parameters");
      for (size_t k = 0; k < dict->keys.size(); ++k) {
        if (!dict->keys[k]) continue;
        auto key = tryEval(*dict->keys[k]);
        auto val = tryEval(*dict->values[k]);
        bool ok = false;
        ConstValue cv;
        if (val) cv = toConstValue(*val, ok);
        if (!key || key->kind != Val::Kind::Str || !ok)
          reportError(loc(*dict->values[k]), "triton.Config: meta-parameters must be constants");
        c.kwargs[key->s] = cv;
      }
    }
    return c;
  }

  int64_t intOf(const py::Expr& e, const char* what) {
    auto v = tryEval(e);
    if (!v || v->kind != Val::Kind::Int || !v->i.fitsInt64())
      reportError(loc(e), std::string(what) + ": expected an integer");
    return v->i.toInt64();
  }

  AutotuneSpec autotune(const py::Call& call) {
    AutotuneSpec spec;
    spec.loc = loc(call);
    auto handle = [&](const std::string& name, const py::Expr& v) {
      bool isNone = v.as<py::Constant>() && v.as<py::Constant>()->type == py::Constant::Type::None;
      if (name == "configs") {
        configList(v, spec.configs, 0);
        if (spec.configs.empty()) spec.configs.push_back(AutotuneConfig{});  // Triton: one default config
      } else if (name == "key") {
        spec.key = stringList(v, "triton.autotune: key");
      } else if (name == "reset_to_zero" && !isNone) {
        spec.resetToZero = stringList(v, "triton.autotune: reset_to_zero");
      } else if (name == "restore_value" && !isNone) {
        spec.restoreValue = stringList(v, "triton.autotune: restore_value");
      } else if (name == "warmup" || name == "rep") {
        auto x = tryEval(v);
        if (x && (x->kind == Val::Kind::Int || x->kind == Val::Kind::Float))
          (name == "warmup" ? spec.warmup : spec.rep) = x->kind == Val::Kind::Int ? x->i.toDouble() : x->f;
      } else if (name == "prune_configs_by") spec.hasPruneConfigsBy = !isNone;
      else if (name == "pre_hook") spec.hasPreHook = !isNone;
      else if (name == "post_hook") spec.hasPostHook = !isNone;
      else if (name == "do_bench") spec.hasDoBench = !isNone;
      else if (name == "cache_results") spec.cacheResults = constBool(v);
    };
    static const char* positional[] = {"configs", "key", "prune_configs_by", "reset_to_zero", "restore_value"};
    for (size_t k = 0; k < call.args.size() && k < 5; ++k) handle(positional[k], *call.args[k]);
    for (const auto& kw : call.keywords)
      if (kw.arg) handle(*kw.arg, *kw.value);
    return spec;
  }

  void heuristics(const py::Call& call, JitFunction& fn) {
    const py::Expr* arg = call.args.empty() ? nullptr : call.args[0].get();
    for (const auto& kw : call.keywords)
      if (kw.arg && *kw.arg == "values") arg = kw.value.get();
    auto* dict = arg ? arg->as<py::Dict>() : nullptr;
    if (!dict) reportError(loc(call), "triton.heuristics: expected a dict literal {name: lambda args: ...}");
    for (size_t k = 0; k < dict->keys.size(); ++k) {
      auto* key = dict->keys[k] ? dict->keys[k]->as<py::Constant>() : nullptr;
      auto* lam = dict->values[k]->as<py::Lambda>();
      if (!key || key->type != py::Constant::Type::Str || !lam || lam->args.args.size() != 1)
        reportError(loc(*dict->values[k]), "triton.heuristics: each entry must be 'name': lambda args: expression");
      HeuristicSpec h;
      h.name = key->strValue;
      h.body = lam->body.get();
      h.argName = lam->args.args[0].name;
      h.loc = loc(*lam);
      fn.heuristics.push_back(std::move(h));
    }
  }

  const SourceProgram& prog_;
  SourceProgram::Globals& globals_;
  std::map<std::string, const py::Expr*> assignedExprs_;  ///< module-level `name = expr` (the last one)
  std::set<std::string> mutated_;  ///< module-level names changed after assignment (noteMutations)
  int64_t comprehensionSteps_ = 0;  ///< iterations of configs comprehensions so far (a bound)
  std::vector<JitFunction>& fns_;
  CompileOptions opts_;
  CodeGen cg_;
};

}  // namespace

SourceProgram::~SourceProgram() = default;

std::shared_ptr<SourceProgram> SourceProgram::load(SourceFileRef source) {
  std::shared_ptr<SourceProgram> prog(new SourceProgram());
  prog->source_ = source;
  prog->module_ = py::parseModule(source);
  prog->globals_ = std::make_unique<Globals>();
  prog->globals_->isPrelude = source->name() == "<triton prelude>";
  Indexer(*prog, *prog->globals_, prog->functions_).run(*prog->module_);
  // functions_ is final now: point the global names at their entries.
  for (const auto& fn : prog->functions_) prog->globals_->names[fn.name] = Val::func(FuncRef{prog.get(), &fn});
  return prog;
}

const JitFunction* SourceProgram::find(std::string_view name) const {
  for (const auto& fn : functions_)
    if (fn.name == name) return &fn;
  return nullptr;
}

CompileResult SourceProgram::compile(std::string_view name, const std::vector<ParamSpec>& params,
                                     const CompileOptions& options) const {
  const JitFunction* fn = find(name);
  if (!fn) {
    std::string names;
    for (const auto& f : functions_) names += (names.empty() ? "" : ", ") + f.name;
    throw Error(source_->name() + ": error: no @triton.jit function named '" + std::string(name) +
                "' (the file defines: " + (names.empty() ? "none" : names) + ")");
  }
  auto module = std::make_unique<ir::Module>();
  CodeGen cg(options, module.get());
  CompileResult r = cg.compileKernel(*this, *fn, params);
  r.module = std::move(module);
  return r;
}

ConstValue SourceProgram::evalHostExpr(const py::Expr& expr, const std::string& argName,
                                       const std::map<std::string, ConstValue>& args) const {
  CompileOptions opts;
  CodeGen cg(opts, nullptr);
  auto frame = std::make_unique<CodeGen::Frame>();
  frame->program = this;
  Val dict;
  dict.kind = Val::Kind::Dict;
  for (const auto& [k, v] : args) {
    Val x = std::visit([](const auto& c) -> Val {
      using T = std::decay_t<decltype(c)>;
      if constexpr (std::is_same_v<T, std::monostate>) return Val::none();
      else if constexpr (std::is_same_v<T, bool>) return Val::boolean(c);
      else if constexpr (std::is_same_v<T, int64_t>) return Val::integer(BigInt(c));
      else if constexpr (std::is_same_v<T, double>) return Val::flt(c);
      else return Val::str(c);
    }, v);
    dict.keys.push_back(k);
    dict.elems.push_back(x);
    frame->locals[k] = x;
  }
  frame->locals[argName] = dict;
  cg.pushFrame(std::move(frame));
  Val v = cg.eval(expr);
  bool ok = false;
  ConstValue cv = toConstValue(v, ok);
  if (!ok) reportError(SourceLoc{source_.get(), expr.line, expr.col},
                       "host expression must evaluate to None, a bool, an int, a float or a string, got " + v.typeName());
  return cv;
}

}  // namespace tessera::frontend
