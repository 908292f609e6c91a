//===- Interp.cpp - Statements, expressions and calls of host Python ------===//
//
// The evaluator proper: scopes (function locals, closures, module globals,
// builtins), statements with Python's control flow, expressions and calls.
// Operators live in Ops.cpp, builtins in Builtins.cpp, modeled outside
// modules in Natives.cpp, the module search in Modules.cpp.
//
// Control flow that depends on an Opaque value cannot be followed: an `if`
// on one binds every name either branch assigns to an Opaque saying the
// condition could not be decided; a loop over one does the same for its
// body; an expression that must iterate or branch on one (a comprehension
// over an unknown list) throws Undecided, and the statement around it binds
// its targets to the Opaque.
//
//===----------------------------------------------------------------------===//

#include "Interp.h"

#include <algorithm>
#include <map>
#include <set>

#include "tessera/support/Env.h"

namespace tessera::host {

namespace {

/// Control flow through statements.
enum class Flow { Normal, Return, Break, Continue };

/// Thrown where control flow depends on an opaque value.
struct Undecided {
  Ref why;
};

constexpr int kMaxDepth = 200;

/// `v` as an Opaque when its value is unknown (a name from a module Tessera
/// did not find is a Native with `b` set).
Ref asOpaque(const Ref& v) {
  if (v->kind == Kind::Native && v->b) return opaque(v->s + ", from a module Tessera did not find");
  return v;
}

/// Names a statement may bind (assignment targets, imports, defs, loop
/// targets, handlers), in its nested blocks too.
void assignedNames(const py::Stmt& s, std::vector<std::string>& out);

void targetNames(const py::Expr& t, std::vector<std::string>& out) {
  if (auto* n = t.as<py::Name>()) out.push_back(n->id);
  else if (auto* tu = t.as<py::Tuple>()) for (const auto& e : tu->elts) targetNames(*e, out);
  else if (auto* l = t.as<py::List>()) for (const auto& e : l->elts) targetNames(*e, out);
  else if (auto* st = t.as<py::Starred>()) targetNames(*st->value, out);
  else if (auto* a = t.as<py::Attribute>()) targetNames(*a->value, out);   // x.attr = ...: x changes
  else if (auto* sub = t.as<py::Subscript>()) targetNames(*sub->value, out);
}

void blockNames(const py::StmtList& list, std::vector<std::string>& out) {
  for (const auto& s : list) assignedNames(*s, out);
}

void assignedNames(const py::Stmt& s, std::vector<std::string>& out) {
  if (auto* a = s.as<py::Assign>()) for (const auto& t : a->targets) targetNames(*t, out);
  else if (auto* a = s.as<py::AugAssign>()) targetNames(*a->target, out);
  else if (auto* a = s.as<py::AnnAssign>()) { if (a->value) targetNames(*a->target, out); }
  else if (auto* f = s.as<py::FunctionDef>()) out.push_back(f->name);
  else if (auto* c = s.as<py::ClassDef>()) out.push_back(c->name);
  else if (auto* i = s.as<py::Import>()) {
    for (const auto& a : i->names) out.push_back(a.asname ? *a.asname : a.name.substr(0, a.name.find('.')));
  } else if (auto* i = s.as<py::ImportFrom>()) {
    for (const auto& a : i->names) if (a.name != "*") out.push_back(a.asname ? *a.asname : a.name);
  } else if (auto* f = s.as<py::For>()) {
    targetNames(*f->target, out);
    blockNames(f->body, out);
    blockNames(f->orelse, out);
  } else if (auto* w = s.as<py::While>()) {
    blockNames(w->body, out);
    blockNames(w->orelse, out);
  } else if (auto* i = s.as<py::If>()) {
    blockNames(i->body, out);
    blockNames(i->orelse, out);
  } else if (auto* w = s.as<py::With>()) {
    for (const auto& it : w->items) if (it.optionalVars) targetNames(*it.optionalVars, out);
    blockNames(w->body, out);
  } else if (auto* t = s.as<py::Try>()) {
    blockNames(t->body, out);
    for (const auto& h : t->handlers) {
      if (h.name) out.push_back(*h.name);
      blockNames(h.body, out);
    }
    blockNames(t->orelse, out);
    blockNames(t->finalbody, out);
  } else if (auto* e = s.as<py::ExprStmt>()) {
    // `xs.append(...)`, `d.update(...)`: the receiver changes.
    if (auto* call = e->value->as<py::Call>())
      if (auto* attr = call->func->as<py::Attribute>())
        if (auto* n = attr->value->as<py::Name>()) out.push_back(n->id);
  }
}

bool containsYield(const py::StmtList& body);

bool exprYields(const py::Expr* e) {
  return e && (e->as<py::Yield>() || e->as<py::YieldFrom>());
}

bool stmtYields(const py::Stmt& s) {
  if (auto* e = s.as<py::ExprStmt>()) return exprYields(e->value.get());
  if (auto* a = s.as<py::Assign>()) return exprYields(a->value.get());
  if (auto* f = s.as<py::For>()) return containsYield(f->body) || containsYield(f->orelse);
  if (auto* w = s.as<py::While>()) return containsYield(w->body) || containsYield(w->orelse);
  if (auto* i = s.as<py::If>()) return containsYield(i->body) || containsYield(i->orelse);
  if (auto* w = s.as<py::With>()) return containsYield(w->body);
  if (auto* t = s.as<py::Try>()) {
    bool y = containsYield(t->body) || containsYield(t->orelse) || containsYield(t->finalbody);
    for (const auto& h : t->handlers) y = y || containsYield(h.body);
    return y;
  }
  return false;
}

bool containsYield(const py::StmtList& body) {
  for (const auto& s : body)
    if (stmtYields(*s)) return true;
  return false;
}

}  // namespace

/// Executes statements and evaluates expressions for one Interp.
struct Exec {
  Interp& in;
  Ref retval;
  std::vector<Ref> handling;  ///< the exceptions whose handlers are running (a bare `raise` re-raises the last)

  SourceLoc loc(const py::Node& n, const Scope& s) { return in.locOf(n, s.module); }

  // ---- names ---------------------------------------------------------------
  Ref lookup(const std::string& id, Scope& s, const py::Node& at) {
    if (Ref v = visible(id, s)) return v;
    in.raise("NameError", "name '" + id + "' is not defined", loc(at, s));
  }

  /// What `id` names in scope `s` (the scope, enclosing ones, the module,
  /// the builtins), or null.
  Ref visible(const std::string& id, Scope& s) {
    for (Scope* p = &s; p; p = p->parent.get()) {
      if (p->globalNames.count(id)) break;
      if (auto it = p->vars.find(id); it != p->vars.end()) return it->second;
    }
    if (s.module && s.module->globals)
      if (auto it = s.module->globals->vars.find(id); it != s.module->globals->vars.end()) return it->second;
    return pythonBuiltin(id);
  }

  void store(const std::string& id, Ref v, Scope& s) {
    Scope* target = &s;
    if (s.globalNames.count(id) && s.module) target = s.module->globals.get();
    if (s.nonlocalNames.count(id))
      for (Scope* p = s.parent.get(); p; p = p->parent.get())
        if (p->vars.count(id)) {
          target = p;
          break;
        }
    auto [it, fresh] = target->vars.insert_or_assign(id, std::move(v));
    if (fresh && target->isModule && target->module) target->module->order.push_back(id);
  }

  void assign(const py::Expr& target, const Ref& v, const std::shared_ptr<Scope>& s) {
    in.step();
    if (auto* n = target.as<py::Name>()) return store(n->id, v, *s);
    const py::ExprList* elts = nullptr;
    if (auto* t = target.as<py::Tuple>()) elts = &t->elts;
    if (auto* l = target.as<py::List>()) elts = &l->elts;
    if (elts) {
      if (v->kind == Kind::Opaque) {
        for (const auto& e : *elts) assign(*e, v, s);
        return;
      }
      std::vector<Ref> items = in.iterate(v, loc(target, *s));
      size_t star = elts->size();
      for (size_t k = 0; k < elts->size(); ++k)
        if ((*elts)[k]->as<py::Starred>()) star = k;
      if (star == elts->size()) {
        if (items.size() != elts->size())
          in.raise("ValueError", items.size() < elts->size()
                                     ? "not enough values to unpack (expected " + std::to_string(elts->size()) + ", got " + std::to_string(items.size()) + ")"
                                     : "too many values to unpack (expected " + std::to_string(elts->size()) + ")",
                   loc(target, *s));
        for (size_t k = 0; k < items.size(); ++k) assign(*(*elts)[k], items[k], s);
        return;
      }
      size_t after = elts->size() - star - 1;
      if (items.size() < star + after) in.raise("ValueError", "not enough values to unpack", loc(target, *s));
      for (size_t k = 0; k < star; ++k) assign(*(*elts)[k], items[k], s);
      assign(*(*elts)[star]->as<py::Starred>()->value,
             list(std::vector<Ref>(items.begin() + star, items.end() - after)), s);
      for (size_t k = 0; k < after; ++k) assign(*(*elts)[star + 1 + k], items[items.size() - after + k], s);
      return;
    }
    if (auto* sub = target.as<py::Subscript>()) {
      Ref base = eval(*sub->value, s);
      Ref index = eval(*sub->slice, s);
      if (base->kind == Kind::Dict) {
        in.checkSize(base->items.size() + 1, "dict");
        return dictSet(*base, index, v);
      }
      if (base->kind == Kind::List && index->kind == Kind::Slice && index->items[2]->kind == Kind::None) {
        // xs[a:b] = ys: the slice replaced (step 1).
        int64_t n = static_cast<int64_t>(base->items.size());
        auto bound = [&](const Ref& x, int64_t dflt) {
          if (x->kind == Kind::None) return dflt;
          int64_t k = x->kind == Kind::Int && x->i.fitsInt64() ? x->i.toInt64() : dflt;
          if (k < 0) k += n;
          return std::clamp<int64_t>(k, 0, n);
        };
        int64_t lo = bound(index->items[0], 0), hi = std::max(lo, bound(index->items[1], n));
        std::vector<Ref> repl = in.iterate(v, loc(target, *s));
        base->items.erase(base->items.begin() + lo, base->items.begin() + hi);
        base->items.insert(base->items.begin() + lo, repl.begin(), repl.end());
        in.checkSize(base->items.size(), "list");
        return;
      }
      if (base->kind == Kind::List && index->kind == Kind::Int) {
        int64_t n = static_cast<int64_t>(base->items.size());
        int64_t k = index->i.fitsInt64() ? index->i.toInt64() : n;
        if (k < 0) k += n;
        if (k < 0 || k >= n) in.raise("IndexError", "list assignment index out of range", loc(target, *s));
        base->items[k] = v;
        return;
      }
      if (base->kind == Kind::Opaque) return;
      in.raise("TypeError", "'" + typeName(*base) + "' object does not support item assignment", loc(target, *s));
    }
    if (auto* a = target.as<py::Attribute>()) {
      Ref base = eval(*a->value, s);
      if (base->kind == Kind::Module) {
        store(a->attr, v, *base->module->globals);
        return;
      }
      if (base->kind == Kind::Instance || base->kind == Kind::Exception) {
        base->attrs[a->attr] = v;
        return;
      }
      if (base->kind == Kind::Function || base->kind == Kind::JitFn || base->kind == Kind::Opaque) return;
      in.raise("AttributeError", "cannot set attribute '" + a->attr + "' of '" + typeName(*base) + "'", loc(target, *s));
    }
    in.raise("SyntaxError", "cannot assign to this expression", loc(target, *s));
  }

  /// Whether every name `imp` binds is a package already bound to itself
  /// (`import a.b` with `a` imported before).
  static bool keepsPackageBinding(const py::Import& imp, const Scope& s) {
    for (const auto& a : imp.names) {
      std::string top = a.name.substr(0, a.name.find('.'));
      auto it = s.vars.find(top);
      if (a.asname || it == s.vars.end() || !isPackageBinding(*it->second, top)) return false;
    }
    return true;
  }

  /// Binds every name `stmt` may bind to `why`.
  void bindOpaque(const py::Stmt& stmt, const Ref& why, Scope& s) {
    std::vector<std::string> names;
    assignedNames(stmt, names);
    for (const auto& n : names) store(n, why, s);
  }

  // ---- statements ----------------------------------------------------------
  Flow block(const py::StmtList& list, const std::shared_ptr<Scope>& s) {
    for (const auto& st : list) {
      Flow f = stmt(*st, s);
      if (f != Flow::Normal) return f;
    }
    return Flow::Normal;
  }

  /// A module-level statement list: a statement that raises binds what it
  /// would have bound to an Opaque naming the exception, and the module goes
  /// on (if/try/with bodies statement by statement).
  void moduleBlock(const py::StmtList& list, const std::shared_ptr<Scope>& s) {
    for (const auto& st : list) {
      if (auto* i = st->as<py::If>()) {
        Ref test;
        try {
          test = eval(*i->test, s);
        } catch (const PyException& e) {
          bindOpaque(*st, opaque("the condition raised " + repr(*e.exc), e.exc->where), *s);
          continue;
        } catch (const Undecided& u) {
          test = u.why;
        }
        std::optional<bool> t = in.truth(test);
        if (!t) {
          // A branch that defines kernels where the other defines none
          // runs (`if has_triton():` around a file's kernels): a program
          // that launches one of them took it, as only there it exists.
          // It runs on the names as they are (`configs.append(...)` keeps
          // the list); what only the other branch binds stays undecided.
          bool inBody = definesKernels(i->body), inElse = definesKernels(i->orelse);
          if (inBody == inElse) {
            undecidedBranches(*st, test, *i->test, s);
            continue;
          }
          const py::StmtList& taken = inBody ? i->body : i->orelse;
          const py::StmtList& other = inBody ? i->orelse : i->body;
          moduleBlock(taken, s);
          std::vector<std::string> bound, skipped;
          for (const auto& b : taken) assignedNames(*b, bound);
          for (const auto& b : other) assignedNames(*b, skipped);
          Ref why = undecidedWhy(test, *i->test, *s);
          for (const auto& n : skipped)
            if (std::find(bound.begin(), bound.end(), n) == bound.end()) store(n, why, *s);
          continue;
        }
        moduleBlock(*t ? i->body : i->orelse, s);
        continue;
      }
      if (auto* w = st->as<py::With>()) {
        moduleBlock(w->body, s);
        continue;
      }
      try {
        stmt(*st, s);
      } catch (const PyException& e) {
        // `import triton.missing` that raises leaves the `triton` bound by an
        // earlier import as it was (Python binds nothing then either).
        if (auto* imp = st->as<py::Import>(); imp && keepsPackageBinding(*imp, *s)) continue;
        bindOpaque(*st, opaque("it raised " + repr(*e.exc), e.exc->where), *s);
      } catch (const Undecided& u) {
        bindOpaque(*st, u.why, *s);
      }
    }
  }

  /// Whether `list` defines a function decorated with jit, autotune or
  /// heuristics (`@triton.jit`, `@jit(...)`, ...), also inside its ifs,
  /// withs and trys.
  static bool definesKernels(const py::StmtList& list) {
    auto kernelDecorator = [](const py::Expr* d) {
      if (auto* c = d->as<py::Call>()) d = c->func.get();
      std::string id = d->as<py::Name>() ? d->as<py::Name>()->id : d->as<py::Attribute>() ? d->as<py::Attribute>()->attr : "";
      return id == "jit" || id == "autotune" || id == "heuristics";
    };
    for (const auto& st : list) {
      if (auto* f = st->as<py::FunctionDef>()) {
        for (const auto& d : f->decorators)
          if (kernelDecorator(d.get())) return true;
      } else if (auto* i = st->as<py::If>()) {
        if (definesKernels(i->body) || definesKernels(i->orelse)) return true;
      } else if (auto* w = st->as<py::With>()) {
        if (definesKernels(w->body)) return true;
      } else if (auto* t = st->as<py::Try>()) {
        if (definesKernels(t->body) || definesKernels(t->orelse) || definesKernels(t->finalbody)) return true;
        for (const auto& h : t->handlers)
          if (definesKernels(h.body)) return true;
      }
    }
    return false;
  }

  /// Why a name bound under the undecided condition `cond` has no value.
  Ref undecidedWhy(const Ref& test, const py::Expr& cond, Scope& s) {
    std::string why = test->kind == Kind::Native ? test->s + ", from a module Tessera did not find" : test->s;
    return opaque("it is bound only under a condition that could not be decided: " + why, loc(cond, s));
  }

  /// An `if` or `while` whose condition could not be decided: what its
  /// branches bind has no value after it, except the names only imports
  /// bind, where every way gives one value: a name already bound to what
  /// the import binds again (`import triton.testing` rebinds `triton` to
  /// the same package), or one unbound before (`if is_torch_available():
  /// import triton`: code after it that uses `triton` runs only if the
  /// branch ran, as it would raise NameError otherwise).
  void undecidedBranches(const py::Stmt& st, const Ref& test, const py::Expr& cond, const std::shared_ptr<Scope>& s) {
    Ref why = undecidedWhy(test, cond, *s);
    std::vector<const py::Stmt*> imports;
    std::vector<std::string> others;
    if (auto* i = st.as<py::If>()) {
      splitImports(i->body, imports, others);
      splitImports(i->orelse, imports, others);
    } else if (auto* w = st.as<py::While>()) {
      splitImports(w->body, imports, others);
      splitImports(w->orelse, imports, others);
    }
    // Only imports of modeled modules (triton, torch, the standard library)
    // run here: importing a project's module runs its body, whose effects
    // (on other modules too) would then happen although the branch may not.
    // Star imports bind names nobody listed: they stay as they were.
    imports.erase(std::remove_if(imports.begin(), imports.end(), [](const py::Stmt* imp) {
                    if (auto* f = imp->as<py::ImportFrom>()) {
                      for (const auto& a : f->names)
                        if (a.name == "*") return true;
                      return f->level > 0 || !isModeledRoot(f->module.substr(0, f->module.find('.')));
                    }
                    for (const auto& a : imp->as<py::Import>()->names)
                      if (!isModeledRoot(a.name.substr(0, a.name.find('.')))) return true;
                    return false;
                  }),
                  imports.end());
    std::map<std::string, Ref> before;  // null: unbound (also in the module and the builtins)
    for (const py::Stmt* imp : imports) {
      std::vector<std::string> names;
      assignedNames(*imp, names);
      for (const auto& n : names) before.emplace(n, visible(n, *s));
    }
    bindOpaque(st, why, *s);
    std::map<std::string, Ref> given;  // what the branches' imports bind
    std::set<std::string> ambiguous(others.begin(), others.end());
    for (const py::Stmt* imp : imports) {
      std::vector<std::string> names;
      assignedNames(*imp, names);
      bool raised = false;
      try {
        stmt(*imp, s);
      } catch (const PyException&) {
        raised = true;
      } catch (const Undecided&) {
        raised = true;
      }
      for (const auto& n : names) {
        Ref prev = before[n];
        // `import triton.missing` that raises leaves `triton` as it was.
        Ref now = raised ? (prev && imp->as<py::Import>() && isPackageBinding(*prev, n) ? prev : nullptr)
                         : s->vars[n];
        auto [it, fresh] = given.emplace(n, now);
        if (!now || (!fresh && !(it->second && sameBinding(*it->second, *now))) || (prev && !sameBinding(*prev, *now)))
          ambiguous.insert(n);
      }
    }
    for (const auto& [n, value] : given) store(n, ambiguous.count(n) ? why : value, *s);
  }

  /// The import statements of a list (also in its ifs and withs), and the
  /// names its other statements bind.
  static void splitImports(const py::StmtList& list, std::vector<const py::Stmt*>& imports,
                           std::vector<std::string>& others) {
    for (const auto& b : list) {
      if (b->as<py::Import>() || b->as<py::ImportFrom>()) {
        imports.push_back(b.get());
      } else if (auto* i = b->as<py::If>()) {
        splitImports(i->body, imports, others);
        splitImports(i->orelse, imports, others);
      } else if (auto* w = b->as<py::With>()) {
        for (const auto& item : w->items)
          if (item.optionalVars) targetNames(*item.optionalVars, others);
        splitImports(w->body, imports, others);
      } else {
        assignedNames(*b, others);
      }
    }
  }

  /// `v` is the package `name` itself (what `import name.sub` binds).
  static bool isPackageBinding(const Object& v, const std::string& name) {
    return (v.kind == Kind::Module && v.module->name == name) || (v.kind == Kind::Native && v.s == name);
  }

  /// Two bindings of a name are the same value: one object, one module, or
  /// one native name.
  static bool sameBinding(const Object& a, const Object& b) {
    if (&a == &b) return true;
    if (a.kind != b.kind) return false;
    if (a.kind == Kind::Module) return a.module == b.module;
    if (a.kind == Kind::Native || a.kind == Kind::Builtin) return a.s == b.s && !a.self && !b.self;
    return false;
  }

  Flow stmt(const py::Stmt& st, const std::shared_ptr<Scope>& s) {
    in.step();
    in.here_ = loc(st, *s);
    try {
      return stmtKind(st, s);
    } catch (const frontend::BigIntError& e) {
      in.raise("OverflowError", e.what(), loc(st, *s));  // an int past its width anywhere in the statement
    }
  }

  Flow stmtKind(const py::Stmt& st, const std::shared_ptr<Scope>& s) {
    switch (st.kind) {
      case py::StmtKind::Expr: {
        auto* e = st.as<py::ExprStmt>();
        try {
          eval(*e->value, s);
        } catch (const Undecided& u) {
          bindOpaque(st, u.why, *s);
        }
        return Flow::Normal;
      }
      case py::StmtKind::Assign: {
        auto* a = st.as<py::Assign>();
        Ref v;
        try {
          v = eval(*a->value, s);
        } catch (const Undecided& u) {
          v = u.why;
        }
        for (const auto& t : a->targets) assign(*t, v, s);
        return Flow::Normal;
      }
      case py::StmtKind::AnnAssign: {
        auto* a = st.as<py::AnnAssign>();
        if (!a->value) return Flow::Normal;
        Ref v;
        try {
          v = eval(*a->value, s);
        } catch (const Undecided& u) {
          v = u.why;
        }
        assign(*a->target, v, s);
        return Flow::Normal;
      }
      case py::StmtKind::AugAssign: {
        auto* a = st.as<py::AugAssign>();
        Ref v;
        try {
          Ref cur = eval(*a->target, s);
          Ref rhs = eval(*a->value, s);
          if (cur->kind == Kind::List && a->op == py::BinOpKind::Add && rhs->kind != Kind::Opaque) {
            for (auto& x : in.iterate(rhs, loc(st, *s))) cur->items.push_back(x);  // in place, as Python
            in.checkSize(cur->items.size(), "list");
            v = cur;
          } else {
            v = binaryOp(in, a->op, cur, rhs);
          }
        } catch (const Undecided& u) {
          v = u.why;
        }
        assign(*a->target, v, s);
        return Flow::Normal;
      }
      case py::StmtKind::Return: {
        auto* r = st.as<py::Return>();
        retval = r->value ? eval(*r->value, s) : none();
        return Flow::Return;
      }
      case py::StmtKind::Pass: return Flow::Normal;
      case py::StmtKind::Break: return Flow::Break;
      case py::StmtKind::Continue: return Flow::Continue;
      case py::StmtKind::If: {
        auto* i = st.as<py::If>();
        Ref test = eval(*i->test, s);
        std::optional<bool> t = in.truth(test);
        if (!t) {
          // In a function, what follows may depend on the branch (a return
          // in it): the call's value is unknown.
          if (!s->isModule && !s->isClass) throw Undecided{asOpaque(test)};
          undecidedBranches(st, test, *i->test, s);
          return Flow::Normal;
        }
        return block(*t ? i->body : i->orelse, s);
      }
      case py::StmtKind::For: {
        auto* f = st.as<py::For>();
        Ref iterable = eval(*f->iter, s);
        if (iterable->kind == Kind::Opaque) {
          if (!s->isModule && !s->isClass) throw Undecided{iterable};
          bindOpaque(st, opaque("it is bound in a loop over a value that could not be evaluated (" + iterable->s + ")",
                                iterable->where),
                     *s);
          return Flow::Normal;
        }
        for (const Ref& x : in.iterate(iterable, loc(*f->iter, *s))) {
          assign(*f->target, x, s);
          Flow fl = block(f->body, s);
          if (fl == Flow::Break) return Flow::Normal;
          if (fl == Flow::Return) return fl;
        }
        return block(f->orelse, s);
      }
      case py::StmtKind::While: {
        auto* w = st.as<py::While>();
        while (true) {
          Ref test = eval(*w->test, s);
          std::optional<bool> t = in.truth(test);
          if (!t) {
            if (!s->isModule && !s->isClass) throw Undecided{asOpaque(test)};
            undecidedBranches(st, test, *w->test, s);
            return Flow::Normal;
          }
          if (!*t) break;
          Flow fl = block(w->body, s);
          if (fl == Flow::Break) return Flow::Normal;
          if (fl == Flow::Return) return fl;
        }
        return block(w->orelse, s);
      }
      case py::StmtKind::Try: return tryStmt(*st.as<py::Try>(), s);
      case py::StmtKind::With: {
        auto* w = st.as<py::With>();
        for (const auto& item : w->items) {
          eval(*item.contextExpr, s);
          if (item.optionalVars) assign(*item.optionalVars, opaque("the value of a `with` statement", loc(st, *s)), s);
        }
        return block(w->body, s);
      }
      case py::StmtKind::Raise: {
        auto* r = st.as<py::Raise>();
        if (!r->exc) {
          if (!handling.empty()) throw PyException{handling.back()};
          in.raise("RuntimeError", "No active exception to reraise", loc(st, *s));
        }
        Ref e = eval(*r->exc, s);
        if (e->kind == Kind::Builtin || (e->kind == Kind::Instance && e->s.rfind("class ", 0) == 0))
          e = in.call(e, {}, {}, loc(st, *s));
        if (e->kind != Kind::Exception) {
          std::string why = e->kind == Kind::Opaque ? e->s : typeName(*e);
          in.raise("RuntimeError", "raise of " + why, loc(st, *s));
        }
        e->where = loc(st, *s);
        throw PyException{e};
      }
      case py::StmtKind::Assert: {
        auto* a = st.as<py::Assert>();
        std::optional<bool> t = in.truth(eval(*a->test, s));
        if (t && !*t) in.raise("AssertionError", a->msg ? strOf(*eval(*a->msg, s)) : "", loc(st, *s));
        return Flow::Normal;
      }
      case py::StmtKind::Import: {
        for (const auto& a : st.as<py::Import>()->names) importName(a, *s, loc(st, *s));
        return Flow::Normal;
      }
      case py::StmtKind::ImportFrom: return importFrom(*st.as<py::ImportFrom>(), *s), Flow::Normal;
      case py::StmtKind::FunctionDef: return functionDef(*st.as<py::FunctionDef>(), s), Flow::Normal;
      case py::StmtKind::ClassDef: return classDef(*st.as<py::ClassDef>(), s), Flow::Normal;
      case py::StmtKind::Global:
        for (const auto& n : st.as<py::Global>()->names) s->globalNames.insert(n);
        return Flow::Normal;
      case py::StmtKind::Nonlocal:
        for (const auto& n : st.as<py::Nonlocal>()->names) s->nonlocalNames.insert(n);
        return Flow::Normal;
      case py::StmtKind::Delete:
        for (const auto& t : st.as<py::Delete>()->targets) del(*t, s);
        return Flow::Normal;
      default: {
        // match, async, type aliases: what they bind is unknown here.
        bindOpaque(st, opaque("this statement is not evaluated on the host", loc(st, *s)), *s);
        return Flow::Normal;
      }
    }
  }

  void del(const py::Expr& t, const std::shared_ptr<Scope>& s) {
    if (auto* n = t.as<py::Name>()) {
      s->vars.erase(n->id);
      if (s->isModule && s->module) {
        auto& order = s->module->order;
        order.erase(std::remove(order.begin(), order.end(), n->id), order.end());
      }
    } else if (auto* sub = t.as<py::Subscript>()) {
      Ref base = eval(*sub->value, s), index = eval(*sub->slice, s);
      if (base->kind == Kind::Dict) {
        for (size_t k = 0; k < base->keys.size(); ++k)
          if (equal(*base->keys[k], *index)) {
            base->keys.erase(base->keys.begin() + k);
            base->items.erase(base->items.begin() + k);
            return;
          }
        in.raise("KeyError", repr(*index), loc(t, *s));
      }
      if (base->kind == Kind::List && index->kind == Kind::Int) {
        int64_t n = static_cast<int64_t>(base->items.size());
        int64_t k = index->i.fitsInt64() ? index->i.toInt64() : n;
        if (k < 0) k += n;
        if (k < 0 || k >= n) in.raise("IndexError", "list assignment index out of range", loc(t, *s));
        base->items.erase(base->items.begin() + k);
      }
    } else if (auto* tu = t.as<py::Tuple>()) {
      for (const auto& e : tu->elts) del(*e, s);
    }
  }

  /// Whether handler class `ty` catches exception `exc`.
  static bool catches(const Ref& ty, const Object& exc) {
    if (ty->kind == Kind::Builtin) return exceptionMatches(exc.s, ty->s);
    if (ty->kind == Kind::Instance && ty->s.rfind("class ", 0) == 0) {
      // A user exception class: the raised one or a subclass of it.
      auto it = exc.attrs.find("__classes__");
      if (it == exc.attrs.end()) return false;
      for (const Ref& c : it->second->items)
        if (c->s == ty->s.substr(6)) return true;
      return false;
    }
    return ty->kind != Kind::Instance;  // an opaque class: assume it matches
  }

  /// Whether a handler of `t` catches an ImportError, by its spelling
  /// (bare, ImportError, ModuleNotFoundError, Exception, BaseException,
  /// alone or in a tuple): known before the body runs, unlike the handler
  /// classes, which Python evaluates only once something is raised.
  static bool catchesImportError(const py::Try& t) {
    auto named = [](const py::Expr& e) {
      std::string id = e.as<py::Name>() ? e.as<py::Name>()->id : e.as<py::Attribute>() ? e.as<py::Attribute>()->attr : "";
      return id == "ImportError" || id == "ModuleNotFoundError" || id == "Exception" || id == "BaseException";
    };
    for (const auto& h : t.handlers) {
      if (!h.type || named(*h.type)) return true;
      if (auto* tu = h.type->as<py::Tuple>())
        for (const auto& e : tu->elts)
          if (named(*e)) return true;
    }
    return false;
  }

  Flow tryStmt(const py::Try& t, const std::shared_ptr<Scope>& s) {
    Flow result = Flow::Normal;
    try {
      bool raised = false;
      try {
        struct Guard {  // Interp::importFallbacks while the body runs
          int& n;
          bool on;
          ~Guard() { n -= on; }
        } guard{in.importFallbacks_, catchesImportError(t)};
        in.importFallbacks_ += guard.on;
        result = block(t.body, s);
      } catch (const PyException& e) {
        raised = true;
        const py::ExceptHandler* handler = nullptr;
        for (const auto& h : t.handlers) {
          if (!h.type) { handler = &h; break; }
          Ref type = eval(*h.type, s);
          std::vector<Ref> types = type->kind == Kind::Tuple ? type->items : std::vector<Ref>{type};
          for (const Ref& ty : types)
            if (catches(ty, *e.exc)) handler = &h;
          if (handler) break;
        }
        if (!handler) throw;
        if (handler->name) store(*handler->name, e.exc, *s);
        handling.push_back(e.exc);
        struct Pop {
          std::vector<Ref>& v;
          ~Pop() { v.pop_back(); }
        } pop{handling};
        result = block(handler->body, s);
      }
      if (!raised && result == Flow::Normal) result = block(t.orelse, s);
    } catch (const PyException&) {
      block(t.finalbody, s);  // runs on the way out, whatever raised
      throw;
    }
    Flow fin = block(t.finalbody, s);
    return fin != Flow::Normal ? fin : result;
  }

  // ---- imports -------------------------------------------------------------
  /// The value of module `name` (user or native); throws ModuleNotFoundError.
  Ref moduleValue(const std::string& spelled, const SourceLoc& at) {
    // The tessera Python package offers Triton's API under its own name:
    // `import tessera`, `tessera.language as tl`, `from tessera import jit`
    // are Triton's modules to a kernel file.
    const std::string& name = spelled == "tessera" || spelled.rfind("tessera.", 0) == 0
                                  ? "triton" + spelled.substr(7)
                                  : spelled;
    return importModule(in, name, at);
  }

  void importName(const py::Alias& a, Scope& s, const SourceLoc& at) {
    // `import a.b.c` imports a, a.b and a.b.c and binds `a` (or the alias to a.b.c).
    Ref top, last;
    size_t pos = 0;
    while (true) {
      size_t dot = a.name.find('.', pos);
      std::string prefix = a.name.substr(0, dot);
      Ref m = moduleValue(prefix, at);
      if (!top) top = m;
      last = m;
      if (dot == std::string::npos) break;
      pos = dot + 1;
    }
    if (a.asname) store(*a.asname, last, s);
    else store(a.name.substr(0, a.name.find('.')), top, s);
  }

  /// The absolute name of `from <dots><module> import ...` in module `m`.
  std::string absoluteName(const py::ImportFrom& f, ModuleObj* m, const SourceLoc& at) {
    if (f.level == 0) return f.module;
    std::string pkg = m ? m->name : "";
    if (m && !m->isPackage) {
      size_t dot = pkg.rfind('.');
      pkg = dot == std::string::npos ? "" : pkg.substr(0, dot);
    }
    for (int k = 1; k < f.level && !pkg.empty(); ++k) {
      size_t dot = pkg.rfind('.');
      pkg = dot == std::string::npos ? "" : pkg.substr(0, dot);
      if (dot == std::string::npos && k + 1 < f.level) pkg.clear();
    }
    if (pkg.empty())
      in.raise("ImportError", "attempted relative import with no known parent package (give the package's root "
                              "with -I, or load the file from inside its package)", at);
    return f.module.empty() ? pkg : pkg + "." + f.module;
  }

  void importFrom(const py::ImportFrom& f, Scope& s) {
    SourceLoc at = loc(f, s);
    std::string base = absoluteName(f, s.module, at);
    Ref mod = moduleValue(base, at);
    for (const auto& a : f.names) {
      if (a.name == "*") {
        if (mod->kind == Kind::Module) {
          // __all__ when the module has one, else its public names.
          auto& g = mod->module->globals->vars;
          std::vector<std::string> names;
          if (auto all = g.find("__all__"); all != g.end() && isSequence(*all->second)) {
            for (const auto& x : all->second->items)
              if (x->kind == Kind::Str) names.push_back(x->s);
          } else {
            for (const auto& n : mod->module->order)
              if (n[0] != '_') names.push_back(n);
          }
          for (const auto& n : names)
            if (auto it = g.find(n); it != g.end()) store(n, it->second, s);
        }
        continue;
      }
      Ref v;
      if (mod->kind == Kind::Module) {
        auto& g = mod->module->globals->vars;
        if (auto it = g.find(a.name); it != g.end()) v = it->second;
        else if (mod->module->isPackage && (in.importUser(base + "." + a.name, at) || base.rfind("torch.", 0) == 0))
          v = moduleValue(base + "." + a.name, at);  // (torch's modules other than the helpers: modeled)
      } else {
        v = nativeAttr(in, mod->s, a.name);
        if (!v) {
          if (Ref sub = importNative(in, mod->s + "." + a.name)) v = sub;
        }
      }
      if (!v) in.raise("ImportError", "cannot import name '" + a.name + "' from '" + base + "'", at);
      store(a.asname ? *a.asname : a.name, v, s);
    }
  }

  // ---- definitions ---------------------------------------------------------
  /// The scope a function defined in `s` closes over: none at module level,
  /// and not a class body (Python's methods do not see class names).
  static std::shared_ptr<Scope> closureOf(const std::shared_ptr<Scope>& s) {
    std::shared_ptr<Scope> c = s;
    while (c && c->isClass) c = c->parent;
    return c && !c->isModule ? c : nullptr;
  }

  std::shared_ptr<FunctionData> makeFunction(const py::Arguments& args, const std::shared_ptr<Scope>& s) {
    auto fd = std::make_shared<FunctionData>();
    fd->closure = closureOf(s);
    fd->module = s->module;
    if (fd->closure) in.keepScope(fd->closure);  // cleared when the program dies (cycles)
    for (const auto& d : args.defaults) fd->defaults.push_back(eval(*d, s));
    for (const auto& d : args.kwDefaults) fd->kwDefaults.push_back(d ? eval(*d, s) : nullptr);
    return fd;
  }

  void functionDef(const py::FunctionDef& def, const std::shared_ptr<Scope>& s) {
    std::shared_ptr<FunctionData> fd;
    try {
      fd = makeFunction(def.args, s);
    } catch (const PyException&) {
      // A default that raises: the function still exists for the kernel
      // code generator, which evaluates defaults itself.
      fd = std::make_shared<FunctionData>();
      fd->closure = closureOf(s);
      fd->module = s->module;
    }
    fd->def = &def;
    fd->name = def.name;
    auto fn = std::make_shared<Object>(Kind::Function);
    fn->fn = fd;
    Ref v = fn;
    // Decorators apply bottom-up.
    for (auto it = def.decorators.rbegin(); it != def.decorators.rend(); ++it) v = decorate(*it->get(), v, s);
    store(def.name, v, *s);
  }

  /// " (file:line)" of a location, or nothing.
  static std::string at(const SourceLoc& where) {
    return where.file ? " (" + where.file->name() + ":" + std::to_string(where.line) + ")" : "";
  }

  /// Remembers on a host function why a decorator above it was left out.
  static void noteUndecidedDecorator(const Ref& target, const std::string& why, const SourceLoc& where) {
    if (target->kind != Kind::Function || !target->fn->undecidedDecorator.empty()) return;
    target->fn->undecidedDecorator = "its decorator at " + (where.file ? where.file->name() : std::string("?")) +
                                     ":" + std::to_string(where.line) + " could not be evaluated on the host: " + why;
  }

  /// Applies one decorator. triton.autotune / triton.heuristics are kept
  /// unevaluated on the jit function; triton.jit makes one; anything else
  /// above a jit function is taken as a transparent wrapper.
  Ref decorate(const py::Expr& d, const Ref& target, const std::shared_ptr<Scope>& s) {
    const py::Call* call = d.as<py::Call>();
    Ref callee;
    try {
      callee = eval(call ? *call->func : d, s);
    } catch (const PyException&) {
      callee = opaque("a decorator that raised", loc(d, *s));
    } catch (const Undecided& u) {
      callee = u.why;
    }
    std::string name = callee->kind == Kind::Builtin ? callee->s : "";
    if (!call && (name == "property" || name == "staticmethod" || name == "classmethod") &&
        target->kind == Kind::Function) {
      Ref w = instance(name);
      w->attrs["fn"] = target;
      return w;
    }
    if (call && (name == "triton.autotune" || name == "triton.heuristics") && target->kind == Kind::JitFn) {
      auto o = std::make_shared<Object>(Kind::JitFn);
      o->jit = std::make_shared<JitData>(*target->jit);
      LazyDecorator lazy;
      lazy.what = name == "triton.autotune" ? LazyDecorator::What::Autotune : LazyDecorator::What::Heuristics;
      lazy.call = call;
      lazy.scope = s;
      lazy.loc = loc(d, *s);
      o->jit->decorators.push_back(std::move(lazy));
      return o;
    }
    if (name == "triton.jit") {
      Ref dec = callee;
      if (call) {
        std::vector<Ref> args;
        Kwargs kw;
        callArgs(*call, s, args, kw);
        dec = in.call(callee, args, kw, loc(d, *s));  // triton.jit(**options): a decorator
      }
      Ref r = in.call(dec, {target}, {}, loc(d, *s));
      if (r->kind == Kind::JitFn) r->jit->loc = loc(d, *s);
      return r;
    }
    // (@tl.constexpr on a host helper too: Triton calls the wrapped
    // function when a kernel calls the constexpr; FlagGems writes its
    // dtype helpers so.)
    if (!call && (name == "triton.constexpr_function" || name == "triton.language.constexpr") &&
        target->kind == Kind::Function) {
      target->fn->constexprFunction = true;  // kernels call it at compile time (Bridge.cpp)
      return target;
    }
    if (callee->kind == Kind::Function) {
      // A decorator of the project's own runs: a factory that returns
      // triton.autotune(...) or a function that applies triton.jit gives a
      // kernel. One that raises, or returns something else above a kernel
      // (a wrapper), is taken as transparent.
      try {
        Ref dec = callee;
        if (call) {
          std::vector<Ref> args;
          Kwargs kw;
          callArgs(*call, s, args, kw);
          dec = in.call(callee, args, kw, loc(d, *s));
        }
        Ref r = in.call(dec, {target}, {}, loc(d, *s));
        if (r->kind == Kind::JitFn) return r;
        if (r->kind == Kind::Opaque) noteUndecidedDecorator(target, r->s + at(r->where), loc(d, *s));
        if (target->kind != Kind::JitFn) return r->kind == Kind::Function ? r : target;
      } catch (const PyException& e) {
        noteUndecidedDecorator(target, "it raised " + repr(*e.exc), loc(d, *s));
      } catch (const Undecided& u) {
        noteUndecidedDecorator(target, u.why->s + at(u.why->where), loc(d, *s));
      }
    } else if (isUnknown(*callee)) {
      noteUndecidedDecorator(target, callee->kind == Kind::Opaque ? callee->s + at(callee->where)
                                                                   : callee->s + " is not on the search path",
                             loc(d, *s));
    }
    if (target->kind == Kind::JitFn) {
      auto o = std::make_shared<Object>(Kind::JitFn);
      o->jit = std::make_shared<JitData>(*target->jit);
      std::string text = callee->kind == Kind::Builtin || callee->kind == Kind::Native ? callee->s
                         : callee->kind == Kind::Function                             ? callee->fn->name
                                                                                      : "a decorator";
      o->jit->transparent.push_back(text);
      return o;
    }
    // Host functions under unknown decorators stay themselves (a cache,
    // a registry); their calls run the undecorated function.
    return target;
  }

  /// The fields of an @triton.aggregate class or a typing.NamedTuple: its
  /// annotated names after those of its aggregate bases (Python's order for
  /// inherited dataclass fields), as `__fields__`; `__field_constexpr__`
  /// says which are annotated tl.constexpr. A field with a default has it as
  /// a class attribute (inherited ones through the bases' attributes).
  void recordFields(const py::ClassDef& c, const std::shared_ptr<Scope>& s, const Ref& cls, bool aggregate) {
    std::vector<Ref> names, constexprs;
    auto add = [&](const std::string& n, bool isConstexpr) {
      for (size_t k = 0; k < names.size(); ++k)
        if (names[k]->s == n) {
          constexprs[k] = boolean(isConstexpr);
          return;
        }
      names.push_back(str(n));
      constexprs.push_back(boolean(isConstexpr));
    };
    if (aggregate)
      for (const auto& b : c.bases) {
        Ref base;
        try {
          base = eval(*b, s);
        } catch (const PyException&) {
          continue;
        } catch (const Undecided&) {
          continue;
        }
        auto f = base->attrs.find("__fields__");
        auto k = base->attrs.find("__field_constexpr__");
        if (base->kind != Kind::Instance || f == base->attrs.end() || k == base->attrs.end()) continue;
        for (size_t i = 0; i < f->second->items.size(); ++i) add(f->second->items[i]->s, k->second->items[i]->b);
      }
    for (const auto& st : c.body) {
      auto* a = st->as<py::AnnAssign>();
      auto* n = a ? a->target->as<py::Name>() : nullptr;
      if (!n) continue;
      bool isConstexpr = false;
      try {
        Ref t = eval(*a->annotation, s);
        isConstexpr = (t->kind == Kind::Builtin && t->s == "triton.language.constexpr") ||
                      (t->kind == Kind::Str && t->s.find("constexpr") != std::string::npos);
      } catch (const PyException&) {
      } catch (const Undecided&) {
      }
      add(n->id, isConstexpr);
    }
    cls->attrs["__fields__"] = tuple(names);
    cls->attrs["__field_constexpr__"] = tuple(constexprs);
    cls->attrs[aggregate ? "__aggregate__" : "__namedtuple__"] = boolean(true);
  }

  /// A class: its body's names, over those of its user bases (Python's
  /// lookup order for single inheritance). A class deriving from an
  /// exception class makes exceptions of that kind when called.
  void classDef(const py::ClassDef& c, const std::shared_ptr<Scope>& s) {
    Ref cls = instance("class " + c.name);
    std::vector<Ref> classes{str(c.name)};
    bool isEnum = false, namedTuple = false;
    for (const auto& b : c.bases) {
      Ref base = eval(*b, s);
      namedTuple = namedTuple || (base->kind == Kind::Native && (base->s == "typing.NamedTuple" ||
                                                                  base->s == "typing_extensions.NamedTuple"));
      isEnum = isEnum || (base->kind == Kind::Native && base->s.rfind("enum.", 0) == 0) ||
               (base->kind == Kind::Instance && base->attrs.count("__enum__"));
      if (base->kind == Kind::Instance && base->s.rfind("class ", 0) == 0) {
        for (auto& [k, v] : base->attrs)
          if (k != "__classes__") cls->attrs[k] = v;
        if (auto it = base->attrs.find("__classes__"); it != base->attrs.end())
          for (auto& x : it->second->items) classes.push_back(x);
        else
          classes.push_back(str(base->s.substr(6)));
        if (auto it = base->attrs.find("__exception__"); it != base->attrs.end()) cls->attrs["__exception__"] = it->second;
      } else if (base->kind == Kind::Builtin && exceptionMatches(base->s, "BaseException")) {
        cls->attrs["__exception__"] = str(base->s);
      }
    }
    auto body = std::make_shared<Scope>();
    body->module = s->module;
    body->parent = s->isModule ? nullptr : s;
    body->isClass = true;
    block(c.body, body);
    in.keepClass(cls);
    for (auto& [k, v] : body->vars) cls->attrs[k] = v;
    cls->attrs["__classes__"] = tuple(classes);
    bool aggregate = false;
    for (const auto& d : c.decorators) {
      // Only plain names are looked at (`@triton.aggregate`); a decorator
      // call (`@dataclass(frozen=True)`, a registry) is not run.
      Ref dec;
      try {
        if (!d->as<py::Call>()) dec = eval(*d, s);
      } catch (const PyException&) {
      } catch (const Undecided&) {
      }
      if (dec && dec->kind == Kind::Builtin && dec->s == "triton.aggregate") aggregate = true;
      else cls->attrs["__decorated__"] = boolean(true);
    }
    if (aggregate || namedTuple) recordFields(c, s, cls, aggregate);
    if (isEnum) {
      // Enum members, in the order the body binds them: objects with a name
      // and a value (enum.auto() counts from 1), equal only to themselves.
      cls->attrs["__enum__"] = boolean(true);
      int64_t next = 1;
      Ref members = list({});
      for (const auto& st : c.body) {
        auto* as = st->as<py::Assign>();
        if (!as || as->targets.size() != 1 || !as->targets[0]->as<py::Name>()) continue;
        const std::string& n = as->targets[0]->as<py::Name>()->id;
        if (n.rfind("_", 0) == 0 || !body->vars.count(n)) continue;
        Ref value = body->vars.at(n);
        if (value->kind == Kind::Function) continue;
        if (value->kind == Kind::Instance && value->s == "enum.auto") value = integer(next);
        if (value->kind == Kind::Int && value->i.fitsInt64()) next = value->i.toInt64() + 1;
        Ref m = instance(c.name);
        m->attrs["name"] = str(n);
        m->attrs["value"] = value;
        m->self = cls;
        cls->attrs[n] = m;
        members->items.push_back(m);
      }
      cls->attrs["__members__"] = members;
    }
    store(c.name, cls, *s);
  }

  // ---- expressions ---------------------------------------------------------
  void callArgs(const py::Call& c, const std::shared_ptr<Scope>& s, std::vector<Ref>& args, Kwargs& kw) {
    for (const auto& a : c.args) {
      if (auto* st = a->as<py::Starred>()) {
        Ref v = eval(*st->value, s);
        if (v->kind == Kind::Opaque) throw Undecided{v};
        for (auto& x : in.iterate(v, loc(*a, *s))) args.push_back(x);
      } else {
        args.push_back(eval(*a, s));
      }
    }
    for (const auto& k : c.keywords) {
      Ref v = eval(*k.value, s);
      if (k.arg) {
        kw.emplace_back(*k.arg, v);
      } else {
        if (v->kind == Kind::Opaque) throw Undecided{v};
        if (v->kind != Kind::Dict) in.raise("TypeError", "argument after ** must be a mapping", loc(k, *s));
        for (size_t i = 0; i < v->keys.size(); ++i) kw.emplace_back(strOf(*v->keys[i]), v->items[i]);
      }
    }
  }

  std::vector<Ref> elements(const py::ExprList& elts, const std::shared_ptr<Scope>& s) {
    std::vector<Ref> out;
    for (const auto& e : elts) {
      if (auto* st = e->as<py::Starred>()) {
        Ref v = eval(*st->value, s);
        if (v->kind == Kind::Opaque) throw Undecided{v};
        for (auto& x : in.iterate(v, loc(*e, *s))) out.push_back(x);
      } else {
        out.push_back(eval(*e, s));
      }
    }
    in.checkSize(out.size(), "list");
    return out;
  }

  /// Runs the generators of a comprehension, calling `emit` in the inner scope.
  template <class F>
  void comprehension(const std::vector<py::Comprehension>& gens, size_t level, const std::shared_ptr<Scope>& s,
                     F&& emit) {
    if (level == gens.size()) return emit(s);
    const py::Comprehension& g = gens[level];
    Ref iterable = eval(*g.iter, s);
    if (iterable->kind == Kind::Opaque) throw Undecided{iterable};
    for (const Ref& x : in.iterate(iterable, loc(*g.iter, *s))) {
      assign(*g.target, x, s);
      bool keep = true;
      for (const auto& cond : g.ifs) {
        Ref c = eval(*cond, s);
        std::optional<bool> t = in.truth(c);
        if (!t) throw Undecided{c};
        if (!*t) { keep = false; break; }
      }
      if (keep) comprehension(gens, level + 1, s, emit);
    }
  }

  std::shared_ptr<Scope> childScope(const std::shared_ptr<Scope>& s) {
    auto c = std::make_shared<Scope>();
    c->parent = s;
    c->module = s->module;
    return c;
  }

  Ref eval(const py::Expr& e, const std::shared_ptr<Scope>& s) {
    in.step();
    switch (e.kind) {
      case py::ExprKind::Constant: return constant(*e.as<py::Constant>(), *s);
      case py::ExprKind::Name: return lookup(e.as<py::Name>()->id, *s, e);
      case py::ExprKind::Attribute: {
        auto* a = e.as<py::Attribute>();
        return in.getAttr(eval(*a->value, s), a->attr, loc(e, *s));
      }
      case py::ExprKind::Subscript: {
        auto* sub = e.as<py::Subscript>();
        Ref base = eval(*sub->value, s);
        in.here_ = loc(e, *s);
        return subscript(in, base, eval(*sub->slice, s));
      }
      case py::ExprKind::Slice: {
        auto* sl = e.as<py::Slice>();
        auto o = std::make_shared<Object>(Kind::Slice);
        for (const auto* p : {sl->lower.get(), sl->upper.get(), sl->step.get()}) o->items.push_back(p ? eval(*p, s) : none());
        return o;
      }
      case py::ExprKind::List: return list(elements(e.as<py::List>()->elts, s));
      case py::ExprKind::Tuple: return tuple(elements(e.as<py::Tuple>()->elts, s));
      case py::ExprKind::Set: {
        auto o = std::make_shared<Object>(Kind::Set);
        for (auto& x : elements(e.as<py::Set>()->elts, s)) setAdd(*o, x);
        return o;
      }
      case py::ExprKind::Dict: {
        auto* d = e.as<py::Dict>();
        Ref o = dict();
        for (size_t k = 0; k < d->keys.size(); ++k) {
          Ref v = eval(*d->values[k], s);
          if (d->keys[k]) {
            dictSet(*o, eval(*d->keys[k], s), v);
          } else {
            if (v->kind == Kind::Opaque) throw Undecided{v};
            if (v->kind != Kind::Dict) in.raise("TypeError", "'" + typeName(*v) + "' object is not a mapping", loc(e, *s));
            for (size_t i = 0; i < v->keys.size(); ++i) dictSet(*o, v->keys[i], v->items[i]);
          }
        }
        in.checkSize(o->items.size(), "dict");
        return o;
      }
      case py::ExprKind::BoolOp: {
        auto* b = e.as<py::BoolOp>();
        Ref v;
        for (const auto& x : b->values) {
          v = eval(*x, s);
          std::optional<bool> t = in.truth(v);
          if (!t) return v;  // opaque: the result is unknown
          if (b->op == py::BoolOpKind::And ? !*t : *t) return v;
        }
        return v;
      }
      case py::ExprKind::NamedExpr: {
        auto* n = e.as<py::NamedExpr>();
        Ref v = eval(*n->value, s);
        assign(*n->target, v, s);
        return v;
      }
      case py::ExprKind::BinOp: {
        auto* b = e.as<py::BinOp>();
        Ref l = eval(*b->left, s), r = eval(*b->right, s);
        in.here_ = loc(e, *s);
        return binaryOp(in, b->op, l, r);
      }
      case py::ExprKind::UnaryOp: {
        auto* u = e.as<py::UnaryOp>();
        Ref v = eval(*u->operand, s);
        in.here_ = loc(e, *s);
        return unaryOp(in, u->op, v);
      }
      case py::ExprKind::Compare: {
        auto* c = e.as<py::Compare>();
        Ref left = eval(*c->left, s);
        Ref result = boolean(true);
        for (size_t k = 0; k < c->ops.size(); ++k) {
          Ref right = eval(*c->comparators[k], s);
          in.here_ = loc(e, *s);
          result = compareOp(in, c->ops[k], left, right);
          std::optional<bool> t = in.truth(result);
          if (!t || !*t) return result;
          left = right;
        }
        return result;
      }
      case py::ExprKind::IfExp: {
        auto* i = e.as<py::IfExp>();
        Ref test = eval(*i->test, s);
        std::optional<bool> t = in.truth(test);
        if (!t) return test;
        return eval(*t ? *i->body : *i->orelse, s);
      }
      case py::ExprKind::Lambda: {
        auto* l = e.as<py::Lambda>();
        auto fd = makeFunction(l->args, s);
        fd->lambda = l;
        fd->name = "<lambda>";
        auto fn = std::make_shared<Object>(Kind::Function);
        fn->fn = fd;
        return fn;
      }
      case py::ExprKind::ListComp: case py::ExprKind::GeneratorExp: case py::ExprKind::SetComp: {
        const py::Expr* elt;
        const std::vector<py::Comprehension>* gens;
        if (auto* l = e.as<py::ListComp>()) elt = l->elt.get(), gens = &l->generators;
        else if (auto* g = e.as<py::GeneratorExp>()) elt = g->elt.get(), gens = &g->generators;
        else elt = e.as<py::SetComp>()->elt.get(), gens = &e.as<py::SetComp>()->generators;
        Ref out = e.kind == py::ExprKind::SetComp ? std::make_shared<Object>(Kind::Set) : list({});
        comprehension(*gens, 0, childScope(s), [&](const std::shared_ptr<Scope>& inner) {
          Ref v = eval(*elt, inner);
          if (out->kind == Kind::Set) setAdd(*out, v);
          else out->items.push_back(v);
          in.checkSize(out->items.size(), "list");
        });
        return out;
      }
      case py::ExprKind::DictComp: {
        auto* d = e.as<py::DictComp>();
        Ref out = dict();
        comprehension(d->generators, 0, childScope(s), [&](const std::shared_ptr<Scope>& inner) {
          Ref k = eval(*d->key, inner);
          dictSet(*out, k, eval(*d->value, inner));
          in.checkSize(out->items.size(), "dict");
        });
        return out;
      }
      case py::ExprKind::Call: {
        auto* c = e.as<py::Call>();
        Ref callee = eval(*c->func, s);
        std::vector<Ref> args;
        Kwargs kw;
        callArgs(*c, s, args, kw);
        return in.call(callee, std::move(args), std::move(kw), loc(e, *s));
      }
      case py::ExprKind::JoinedStr: {
        std::string out;
        for (const auto& part : e.as<py::JoinedStr>()->values) {
          Ref v = eval(*part, s);
          if (v->kind == Kind::Opaque) return v;
          out += strOf(*v);
        }
        in.checkSize(out.size(), "str");
        return str(std::move(out));
      }
      case py::ExprKind::FormattedValue: {
        auto* f = e.as<py::FormattedValue>();
        Ref v = eval(*f->value, s);
        if (v->kind == Kind::Opaque) return v;
        if (f->conversion == 'r') v = str(repr(*v));
        Ref spec = f->formatSpec ? eval(*f->formatSpec, s) : str("");
        return in.call(builtin("format"), {v, spec}, {}, loc(e, *s));
      }
      case py::ExprKind::Starred: in.raise("SyntaxError", "can't use starred expression here", loc(e, *s));
      case py::ExprKind::Yield: case py::ExprKind::YieldFrom: {
        Ref target = s->vars.count("<yields>") ? s->vars.at("<yields>") : nullptr;
        if (!target) return opaque("`yield` outside a host function", loc(e, *s));
        if (auto* y = e.as<py::Yield>()) target->items.push_back(y->value ? eval(*y->value, s) : none());
        else {
          Ref v = eval(*e.as<py::YieldFrom>()->value, s);
          if (v->kind == Kind::Opaque) throw Undecided{v};
          for (auto& x : in.iterate(v, loc(e, *s))) target->items.push_back(x);
        }
        in.checkSize(target->items.size(), "list");
        return none();
      }
      case py::ExprKind::Await: return opaque("`await`", loc(e, *s));
    }
    return opaque("this expression", loc(e, *s));
  }

  void setAdd(Object& set, const Ref& v) {
    for (const auto& x : set.items)
      if (equal(*x, *v)) return;
    set.items.push_back(v);
  }

  Ref constant(const py::Constant& c, Scope& s) {
    switch (c.type) {
      case py::Constant::Type::None: return none();
      case py::Constant::Type::Bool: return boolean(c.boolValue);
      case py::Constant::Type::Int: {
        if (!c.bigInt) return integer(BigInt(c.intValue));
        if (auto b = BigInt::fromDecimal(*c.bigInt)) return integer(*b);
        in.raise("OverflowError", "integer literal too large", loc(c, s));
      }
      case py::Constant::Type::Float: return flt(c.floatValue);
      case py::Constant::Type::Str: return str(c.strValue);
      case py::Constant::Type::Bytes: return str(c.strValue);
      case py::Constant::Type::Ellipsis: return std::make_shared<Object>(Kind::Ellipsis);
      case py::Constant::Type::Complex: return opaque("a complex number", loc(c, s));
    }
    return none();
  }

  // ---- calls ---------------------------------------------------------------
  Ref callFunction(const Object& f, std::vector<Ref>& args, Kwargs& kw, const SourceLoc& at) {
    const FunctionData& fd = *f.fn;
    const py::Arguments& a = fd.args();
    auto scope = std::make_shared<Scope>();
    scope->parent = fd.closure;
    scope->module = fd.module;
    std::vector<const py::Arg*> pos;
    for (const auto& p : a.posonlyargs) pos.push_back(&p);
    for (const auto& p : a.args) pos.push_back(&p);
    std::vector<bool> bound(pos.size(), false);
    for (size_t k = 0; k < args.size(); ++k) {
      if (k < pos.size()) {
        scope->vars[pos[k]->name] = args[k];
        bound[k] = true;
      } else if (!a.vararg) {
        in.raise("TypeError", fd.name + "() takes " + std::to_string(pos.size()) + " positional arguments but " +
                                  std::to_string(args.size()) + " were given", at);
      }
    }
    if (a.vararg)
      scope->vars[a.vararg->name] =
          tuple(args.size() > pos.size() ? std::vector<Ref>(args.begin() + pos.size(), args.end()) : std::vector<Ref>{});
    Ref extra = dict();
    for (auto& [name, v] : kw) {
      bool found = false;
      for (size_t k = a.posonlyargs.size(); k < pos.size(); ++k)
        if (pos[k]->name == name) {
          if (bound[k]) in.raise("TypeError", fd.name + "() got multiple values for argument '" + name + "'", at);
          scope->vars[name] = v;
          bound[k] = found = true;
        }
      for (const auto& p : a.kwonlyargs)
        if (p.name == name) scope->vars[name] = v, found = true;
      if (!found) {
        if (!a.kwarg) in.raise("TypeError", fd.name + "() got an unexpected keyword argument '" + name + "'", at);
        dictSet(*extra, str(name), v);
      }
    }
    if (a.kwarg) scope->vars[a.kwarg->name] = extra;
    size_t firstDefault = pos.size() - fd.defaults.size();
    for (size_t k = 0; k < pos.size(); ++k) {
      if (bound[k]) continue;
      if (k >= firstDefault && k - firstDefault < fd.defaults.size()) scope->vars[pos[k]->name] = fd.defaults[k - firstDefault];
      else in.raise("TypeError", fd.name + "() missing required argument: '" + pos[k]->name + "'", at);
    }
    for (size_t k = 0; k < a.kwonlyargs.size(); ++k) {
      if (scope->vars.count(a.kwonlyargs[k].name)) continue;
      if (k < fd.kwDefaults.size() && fd.kwDefaults[k]) scope->vars[a.kwonlyargs[k].name] = fd.kwDefaults[k];
      else in.raise("TypeError", fd.name + "() missing required keyword-only argument: '" + a.kwonlyargs[k].name + "'", at);
    }
    if (fd.lambda) return eval(*fd.lambda->body, scope);
    Ref yields;
    if (containsYield(fd.def->body)) scope->vars["<yields>"] = yields = list({});
    Exec inner{in, nullptr};
    Flow fl = inner.block(fd.def->body, scope);
    if (yields) return yields;
    return fl == Flow::Return && inner.retval ? inner.retval : none();
  }
};

//===----------------------------------------------------------------------===//
// Interp
//===----------------------------------------------------------------------===//

Interp::Interp(Environment env) : env_(std::move(env)) { beginSession(); }
Interp::~Interp() {
  // Break the cycles: module globals hold jit functions whose decorators hold
  // the module's scope; closures hold their scope; classes hold members that
  // hold the class.
  for (auto& m : modules_)
    if (m->globals) m->globals->vars.clear();
  for (auto& w : kept_)
    if (auto s = w.lock()) s->vars.clear();
  for (auto& w : classes_)
    if (auto c = w.lock()) c->attrs.clear();
}

void Interp::beginSession() {
  steps_ = 0;
  budget_ = env::integer("TESSERA_HOST_STEPS").value_or(20'000'000);
  depth_ = 0;
}

void Interp::budgetExceeded() {
  fatal(here_, "host Python ran past its budget of " + std::to_string(budget_) +
                   " steps (an endless loop, or configs too many to enumerate); TESSERA_HOST_STEPS raises it");
}

void Interp::checkSize(size_t n, const char* what) {
  if (n > (size_t{1} << 22)) fatal(here_, std::string("host Python built a ") + what + " of over 4 million elements");
}

void Interp::raise(const std::string& type, const std::string& message, const SourceLoc& at) {
  auto e = std::make_shared<Object>(Kind::Exception);
  e->s = type;
  e->attrs["message"] = str(message);
  e->where = at;
  throw PyException{e};
}

void Interp::fatal(const SourceLoc& at, const std::string& message) { reportError(at, message); }

SourceLoc Interp::locOf(const py::Node& n, const ModuleObj* m) const {
  return SourceLoc{m && m->source ? m->source.get() : here_.file, n.line, n.col};
}

DeviceInfo Interp::device() {
  if (!device_) device_ = env_.device ? env_.device() : DeviceInfo{};
  return *device_;
}

std::optional<bool> Interp::truth(const Ref& v) {
  if (v->kind == Kind::Opaque || (v->kind == Kind::Native && v->b)) return std::nullopt;
  return truthy(*v);
}

Ref Interp::callArguments(const py::Call& call, const std::shared_ptr<Scope>& scope, std::vector<Ref>& args,
                          Kwargs& kwargs) {
  Exec x{*this, nullptr};
  try {
    x.callArgs(call, scope, args, kwargs);
  } catch (const Undecided& u) {
    return u.why;
  }
  return nullptr;
}

Ref Interp::eval(const py::Expr& e, const std::shared_ptr<Scope>& scope) {
  Exec x{*this, nullptr};
  try {
    return x.eval(e, scope);
  } catch (const Undecided& u) {
    return u.why;
  } catch (const frontend::BigIntError& err) {
    raise("OverflowError", err.what(), locOf(e, scope->module));
  }
}

Ref Interp::call(const Ref& callee, std::vector<Ref> args, Kwargs kwargs, const SourceLoc& at) {
  step();
  here_ = at;
  if (++depth_ > kMaxDepth) {
    depth_ = 0;
    fatal(at, "host Python recursion deeper than " + std::to_string(kMaxDepth) + " calls");
  }
  struct Leave {
    int& d;
    ~Leave() { if (d > 0) --d; }
  } leave{depth_};
  try {
    return callUnchecked(callee, std::move(args), std::move(kwargs), at);
  } catch (const frontend::BigIntError& e) {
    raise("OverflowError", e.what(), at);
  } catch (const Undecided& u) {
    return u.why;  // a builtin that had to iterate or branch on an unknown value
  }
}

Ref Interp::callUnchecked(const Ref& callee, std::vector<Ref> args, Kwargs kwargs, const SourceLoc& at) {
  switch (callee->kind) {
    case Kind::Function: {
      Exec x{*this, nullptr};
      try {
        return x.callFunction(*callee, args, kwargs, at);
      } catch (const Undecided& u) {
        return u.why;
      }
    }
    case Kind::Builtin: case Kind::Native: return callBuiltin(*this, *callee, args, kwargs);
    case Kind::Opaque: return callee;
    case Kind::JitFn:
      return opaque("a call of @triton.jit function '" + callee->jit->function->fn->name + "' on the host", at);
    case Kind::Instance:
      if (callee->s.rfind("class ", 0) == 0) {
        if (auto it = callee->attrs.find("__exception__"); it != callee->attrs.end()) {
          // An instance of a user exception class: an exception of its
          // builtin base, remembering its classes for `except`.
          Ref e = callBuiltin(*this, *builtin(it->second->s), args, kwargs);
          e->attrs["__classes__"] = callee->attrs.at("__classes__");
          e->attrs["__class__"] = str(callee->s.substr(6));
          return e;
        }
        if (callee->attrs.count("__aggregate__"))
          return opaque("an instance of @triton.aggregate class " + callee->s.substr(6) +
                            " (aggregates are made inside kernels)", at);
        if (callee->attrs.count("__namedtuple__")) return makeNamedTuple(callee, args, kwargs, at);
        // An object of a user class: __init__ runs on it. A class whose
        // objects are built otherwise (a decorator such as @dataclass, a
        // NamedTuple base: no __init__ of its own, yet arguments) is unknown.
        auto init = callee->attrs.find("__init__");
        bool hasInit = init != callee->attrs.end() && init->second->kind == Kind::Function;
        if (callee->attrs.count("__decorated__") || (!hasInit && (!args.empty() || !kwargs.empty())))
          return opaque("an instance of " + callee->s.substr(6) + " (made by a decorator or a base Tessera does not run)", at);
        Ref obj = instance(callee->s.substr(6));
        obj->self = callee;
        if (auto it = init; hasInit) {
          args.insert(args.begin(), obj);
          call(it->second, std::move(args), std::move(kwargs), at);
        }
        return obj;
      }
      [[fallthrough]];
    default: raise("TypeError", "'" + typeName(*callee) + "' object is not callable", at);
  }
}

/// An object of a namedtuple class: a tuple whose `self` is the class.
Ref Interp::makeNamedTuple(const Ref& cls, const std::vector<Ref>& args, const Kwargs& kwargs, const SourceLoc& at) {
  const std::vector<Ref>& fields = cls->attrs.at("__fields__")->items;
  std::string name = cls->s.substr(6);
  if (args.size() > fields.size())
    raise("TypeError", name + "() takes " + std::to_string(fields.size()) + " positional arguments but " +
                           std::to_string(args.size()) + " were given", at);
  std::vector<Ref> items(fields.size());
  for (size_t k = 0; k < args.size(); ++k) items[k] = args[k];
  for (const auto& [key, v] : kwargs) {
    size_t k = 0;
    while (k < fields.size() && fields[k]->s != key) ++k;
    if (k == fields.size()) raise("TypeError", name + "() got an unexpected keyword argument '" + key + "'", at);
    if (items[k]) raise("TypeError", name + "() got multiple values for argument '" + key + "'", at);
    items[k] = v;
  }
  for (size_t k = 0; k < fields.size(); ++k) {
    if (items[k]) continue;
    auto d = cls->attrs.find(fields[k]->s);
    if (d == cls->attrs.end()) raise("TypeError", name + "() missing required argument '" + fields[k]->s + "'", at);
    items[k] = d->second;
  }
  Ref t = tuple(std::move(items));
  t->self = cls;
  return t;
}

std::vector<Ref> Interp::iterate(const Ref& v, const SourceLoc& at) {
  switch (v->kind) {
    case Kind::Tuple: case Kind::List: case Kind::Set: steps(v->items.size()); return v->items;
    case Kind::Dict: steps(v->keys.size()); return v->keys;
    case Kind::Str: {
      std::vector<Ref> out;
      for (char c : v->s) out.push_back(str(std::string(1, c)));
      return out;
    }
    case Kind::Range: {
      const BigInt &a = v->items[0]->i, &b = v->items[1]->i, &st = v->items[2]->i;
      std::vector<Ref> out;
      for (BigInt x = a; st.isNegative() ? x > b : x < b; x = x + st) {
        step();
        out.push_back(integer(x));
        checkSize(out.size(), "range");
      }
      return out;
    }
    case Kind::Opaque: throw Undecided{v};
    case Kind::Native:
      if (v->b) throw Undecided{asOpaque(v)};
      [[fallthrough]];
    default: raise("TypeError", "'" + typeName(*v) + "' object is not iterable", at);
  }
}

void Interp::execModule(ModuleObj& m) {
  Exec x{*this, nullptr};
  x.moduleBlock(m.ast->body, m.globals);
  m.state = ModuleObj::State::Loaded;
}

Ref Interp::getAttr(const Ref& v, const std::string& attr, const SourceLoc& at) {
  step();
  here_ = at;
  switch (v->kind) {
    case Kind::Opaque: return v;
    case Kind::Tuple:
      if (v->self) {  // a namedtuple: its fields, then its class's attributes
        const std::vector<Ref>& fields = v->self->attrs.at("__fields__")->items;
        for (size_t k = 0; k < fields.size() && k < v->items.size(); ++k)
          if (fields[k]->s == attr) return v->items[k];
        if (auto it = v->self->attrs.find(attr); it != v->self->attrs.end()) return it->second;
      }
      if (Ref m = methodOf(*this, v, attr)) return m;
      raise("AttributeError", "'" + typeName(*v) + "' object has no attribute '" + attr + "'", at);
    case Kind::Module: {
      auto& g = v->module->globals->vars;
      if (auto it = g.find(attr); it != g.end()) return it->second;
      if (v->module->isPackage)
        if (ModuleObj* sub = importUser(v->module->name + "." + attr, at)) {
          auto o = std::make_shared<Object>(Kind::Module);
          o->module = sub;
          o->s = sub->name;
          return o;
        }
      if (v->module->state == ModuleObj::State::Loading)
        return opaque("'" + v->module->name + "." + attr + "' (the module is still being imported: a circular import)", at);
      raise("AttributeError", "module '" + v->module->name + "' has no attribute '" + attr + "'", at);
    }
    case Kind::Native: {
      if (Ref r = nativeAttr(*this, v->s, attr)) return r;
      raise("AttributeError", "module '" + v->s + "' has no attribute '" + attr + "'", at);
    }
    case Kind::Instance: case Kind::Exception: {
      if (v->kind == Kind::Instance && v->s.rfind("class ", 0) == 0) {
        // A class: its attributes, static and class methods unwrapped.
        if (auto it = v->attrs.find(attr); it != v->attrs.end()) {
          const Ref& a = it->second;
          if (a->kind == Kind::Instance && a->s == "staticmethod") return a->attrs.at("fn");
          if (a->kind == Kind::Instance && a->s == "classmethod") {
            Ref m = builtin("<method>", v);
            m->items = {a->attrs.at("fn")};
            return m;
          }
          return a;
        }
      }
      if (auto it = v->attrs.find(attr); it != v->attrs.end()) return it->second;
      if (v->kind == Kind::Instance && v->self && v->self->s.rfind("class ", 0) == 0) {
        // An object of a user class: the class's attribute, methods bound to
        // the object, properties read.
        if (auto it = v->self->attrs.find(attr); it != v->self->attrs.end()) {
          const Ref& a = it->second;
          if (a->kind == Kind::Function) {
            Ref m = builtin("<method>", v);
            m->items = {a};
            return m;
          }
          if (a->kind == Kind::Instance && a->s == "property") return call(a->attrs.at("fn"), {v}, {}, at);
          if (a->kind == Kind::Instance && a->s == "staticmethod") return a->attrs.at("fn");
          if (a->kind == Kind::Instance && a->s == "classmethod") {
            Ref m = builtin("<method>", v->self);
            m->items = {a->attrs.at("fn")};
            return m;
          }
          return a;
        }
      }
      if (Ref m = methodOf(*this, v, attr)) return m;
      if (v->s.rfind("class ", 0) == 0 && (attr == "__name__")) return str(v->s.substr(6));
      raise("AttributeError", "'" + typeName(*v) + "' object has no attribute '" + attr + "'", at);
    }
    case Kind::Function:
      if (attr == "__name__") return str(v->fn->name);
      return opaque("attribute '" + attr + "' of function '" + v->fn->name + "'", at);
    case Kind::JitFn:
      if (attr == "__name__") return str(v->jit->function->fn->name);
      if (attr == "fn") return v->jit->function;
      return opaque("attribute '" + attr + "' of @triton.jit function '" + v->jit->function->fn->name + "'", at);
    default: {
      if (Ref m = methodOf(*this, v, attr)) return m;
      raise("AttributeError", "'" + typeName(*v) + "' object has no attribute '" + attr + "'", at);
    }
  }
}

}  // namespace tessera::host
