//===- Aggregates.cpp - @triton.aggregate and namedtuple objects in kernels ===//
//
// An object of an @triton.aggregate class (Triton 3.8-3.9) or of a
// namedtuple class is a tuple Val of its fields whose `st` names the class
// (StructType, made by Bridge.cpp from the host evaluator's class). Being a
// tuple, it flattens into tensor leaves, so it is carried by loops, merged by
// runtime ifs, passed to and returned from @jit functions, and specializes
// callees like one; this file adds what the class means:
//
//   construction   `C(args)`: the class's own `__init__` (a plain def) runs
//                  inline on an object whose fields start unset (defaults
//                  filled in), and must set every field; without one, the
//                  generated constructor binds the fields in order, by
//                  position or name, defaults filling the rest. Fields
//                  annotated tl.constexpr must get constexprs.
//   attributes     fields, then class members: @jit methods and plain defs
//                  (both generated as code) bound to the object, static
//                  methods and class constants as they are.
//   operators      `a + b`, `a < b`, `-a`, `a[i]`, ...: the class's operator
//                  method (`__add__`, then the other operand's `__radd__`).
//   immutability   outside `__init__`, `obj.x = v` is an error (Triton 3.8);
//                  `tl.aggregate_replace(obj, x=v)` and a namedtuple's
//                  `obj._replace(x=v)` make a changed copy.
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

namespace tessera::frontend {

namespace {

/// The value of a field `__init__` has not set yet.
Val unsetField() {
  Val v = Val::opaque("<unset field>");
  v.keys = {"\x01unset"};
  return v;
}
bool isUnset(const Val& v) { return v.kind == Val::Kind::Opaque && v.keys.size() == 1 && v.keys[0] == "\x01unset"; }

}  // namespace

/// Checks `v` for field `k` of `st` (a constexpr field takes constexprs only).
static void checkField(CodeGen& cg, const StructType& st, size_t k, const Val& v) {
  if (st.constexprField[k] && !v.isConstexpr())
    cg.fail("field '" + st.fields[k] + "' of " + st.name + " is a tl.constexpr, but was given " + v.typeName());
  if (v.kind == Val::Kind::Opaque || v.kind == Val::Kind::Module)
    cg.fail("field '" + st.fields[k] + "' of " + st.name + " cannot hold " + v.repr());
}

Val CodeGen::construct(const Val& cls, std::vector<Val> args, KwArgs kwargs) {
  const StructType& st = *cls.st;
  Val obj = Val::tuple({});
  obj.st = cls.st;
  const Val* init = st.member("__init__");
  if (init && init->kind == Val::Kind::Opaque) fail(init->s);
  if (init && init->kind == Val::Kind::Func) {
    // The class's own constructor, generated inline on the new object.
    for (size_t k = 0; k < st.fields.size(); ++k) obj.elems.push_back(st.defaults[k] ? *st.defaults[k] : unsetField());
    obj.b = true;  // under construction: its fields may be assigned
    args.insert(args.begin(), obj);
    obj = inlineCall(init->fn, std::move(args), std::move(kwargs), /*resultParam=*/0);
    if (!obj.isTuple() || obj.st != cls.st)
      fail("the constructor of " + st.name + " rebound its first parameter (self) to " + obj.typeName());
    obj.b = false;
    for (size_t k = 0; k < st.fields.size(); ++k)
      if (isUnset(obj.elems[k]))
        fail("the constructor of " + st.name + " did not initialize field '" + st.fields[k] + "'");
    return obj;
  }
  // The generated constructor: fields in order, by position or by name.
  if (args.size() > st.fields.size())
    fail(st.name + "() takes " + std::to_string(st.fields.size()) + " positional argument" +
         (st.fields.size() == 1 ? "" : "s") + " but " + std::to_string(args.size()) + " were given");
  std::vector<std::optional<Val>> given(st.fields.size());
  for (size_t k = 0; k < args.size(); ++k) given[k] = std::move(args[k]);
  for (auto& [key, v] : kwargs) {
    int k = st.field(key);
    if (key == "_semantic" || key == "_builder" || key == "_generator") continue;
    if (k < 0) fail(st.name + "() got an unexpected keyword argument '" + key + "'");
    if (given[k]) fail(st.name + "() got multiple values for argument '" + key + "'");
    given[k] = std::move(v);
  }
  for (size_t k = 0; k < st.fields.size(); ++k) {
    if (!given[k] && !st.defaults[k]) fail(st.name + "() missing required argument '" + st.fields[k] + "'");
    Val v = given[k] ? *given[k] : *st.defaults[k];
    checkField(*this, st, k, v);
    obj.elems.push_back(std::move(v));
  }
  return obj;
}

Val CodeGen::structAttr(const Val& v, const std::string& attr, const py::Node& at) {
  const StructType& st = *v.st;
  if (v.kind == Val::Kind::Tuple) {
    int k = st.field(attr);
    if (k >= 0) {
      if (isUnset(v.elems[k]))
        fail(at, "field '" + attr + "' of " + st.name + " is read before the constructor sets it");
      return v.elems[k];
    }
    if (!st.aggregate && attr == "_replace") {
      Val m = Val::builtin("tl.aggregate_replace");
      m.self = std::make_shared<Val>(v);
      return m;
    }
  }
  if (!st.aggregate && attr == "_fields") {
    std::vector<Val> names;
    for (const auto& f : st.fields) names.push_back(Val::str(f));
    return Val::tuple(std::move(names));
  }
  if (attr == "__name__") return Val::str(st.name);
  if (const Val* m = st.member(attr)) {
    if (m->kind == Val::Kind::Opaque) fail(at, m->b ? m->s : m->s + " cannot be used inside a @jit function");
    Val r = *m;
    bool bindable = (r.kind == Val::Kind::Func && !r.b) || (r.kind == Val::Kind::Builtin && !r.self);
    r.b = false;
    if (v.kind == Val::Kind::Tuple && bindable) r.self = std::make_shared<Val>(v);
    return r;
  }
  fail(at, std::string(v.kind == Val::Kind::Class ? "class " : "") + "'" + st.name + "' has no attribute '" + attr +
               "'");
}

std::optional<Val> CodeGen::structOperator(const char* name, const char* reflected, const Val& a, const Val& b) {
  auto method = [](const Val& v, const char* n) -> const Val* {
    if (!v.isTuple() || !v.st || !n) return nullptr;
    const Val* m = v.st->member(n);
    return m && m->kind == Val::Kind::Func ? m : nullptr;
  };
  if (const Val* m = method(a, name)) return callJit(m->fn, {a, b}, {});
  if (const Val* m = method(b, reflected)) return callJit(m->fn, {b, a}, {});
  return std::nullopt;
}

std::optional<Val> CodeGen::structUnary(const char* name, const Val& a) {
  if (!a.isTuple() || !a.st) return std::nullopt;
  const Val* m = a.st->member(name);
  if (!m || m->kind != Val::Kind::Func) return std::nullopt;
  return callJit(m->fn, {a}, {});
}

void CodeGen::assignAttribute(const py::Attribute& target, const Val& v) {
  auto* base = target.value->as<py::Name>();
  auto it = base ? frame().locals.find(base->id) : frame().locals.end();
  if (it == frame().locals.end() || !it->second.isTuple() || !it->second.st)
    fail(target, "attribute assignment is only supported on the object a constructor (__init__) is making");
  Val& obj = it->second;
  const StructType& st = *obj.st;
  if (!obj.b)
    fail(target, st.name + " objects are immutable once made (Triton 3.8), and only the constructor's own body sets "
                 "their fields: make a changed copy with tl.aggregate_replace(obj, " + target.attr + "=...)" +
                 (st.aggregate ? "" : " or obj._replace(...)"));
  int k = st.field(target.attr);
  if (k < 0) fail(target, st.name + " has no field '" + target.attr + "' (its fields are the class's annotated names)");
  CurrentNodeGuard g(*this, &target);
  checkField(*this, st, k, v);
  obj.elems[k] = v;
}

Val CodeGen::replaceFields(const Val& obj, KwArgs kwargs) {
  if (!obj.isTuple() || !obj.st) fail("aggregate_replace expects an aggregate or namedtuple object, got " + obj.typeName());
  Val r = obj;
  r.b = false;
  for (auto& [key, v] : kwargs) {
    int k = obj.st->field(key);
    if (k < 0) fail(obj.st->name + " has no field '" + key + "'");
    checkField(*this, *obj.st, k, v);
    r.elems[k] = std::move(v);
  }
  return r;
}

}  // namespace tessera::frontend
