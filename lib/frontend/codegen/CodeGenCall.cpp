//===- CodeGenCall.cpp - Calls: builtins, @jit functions, the kernel ------===//
//
// A call to a @jit function generates (once per specialization) a callee
// `tt.func` whose name is mangled from the constexpr arguments and argument
// types (all of a type: a block pointer's block shape; a function argument,
// jit or host constexpr_function, by which function it is, its module and
// line, not its name), and emits
// `tt.call`; the inliner inlines it later unless the callee
// is noinline and called with scalars only. Tensor arguments (also inside tuples) become the callee's
// block arguments, constexprs are substituted. combine_fn bodies of
// reduce/scan are generated inline into the op's region instead.
//
// compileKernel() binds the kernel's parameters from the ParamSpecs.
//
//===----------------------------------------------------------------------===//

#include <cassert>

#include "CodeGen.h"

namespace tessera::frontend {

Val callLibdevice(CodeGen& cg, const std::string& qualified, BoundArgs& a);
Val callConstexprFunction(CodeGen& cg, const Val& callee, const std::vector<Val>& args, const CodeGen::KwArgs& kwargs);
/// Which host constexpr_function `callee` is (its name, module and line).
std::string constexprFunctionKey(const Val& callee);

namespace {

constexpr size_t kMaxCallDepth = 64;

std::string sanitize(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  return out;
}

std::string specKey(const Val& v) {
  switch (v.kind) {
    case Val::Kind::Tensor: {
      std::string s = v.dtype.signatureName();
      // A block pointer's type has its block shape (what a load through it
      // gives): two shapes, two specializations.
      if (v.dtype.isBlockPtr())
        for (int64_t d : v.dtype.blockShape()) s += "B" + std::to_string(d);
      for (int64_t d : v.shape) s += "S" + std::to_string(d);
      return s;
    }
    case Val::Kind::Tuple: {
      std::string s = v.st ? "A" + v.st->name + std::to_string(v.st->uid) + "_" : "T";
      for (const auto& e : v.elems) s += specKey(e) + "_";
      return s + "E";
    }
    case Val::Kind::TensorDesc: {
      // Its type, padding, and which parts are constants (their values) or
      // tensors (their types: the values are parameters).
      std::string s = "D" + v.repr() + v.s + "_";
      for (const auto& e : v.elems) s += specKey(e) + "_";
      return s + "E";
    }
    case Val::Kind::Func: {
      // Which function, not only its name: `combine` of two modules (or two
      // classes of one) are two specializations of the callee that gets it.
      const JitFunction* f = v.fn.fn;
      if (!f) return "fn";
      std::string where = f->program ? f->program->moduleName() : std::string();
      return "fn" + f->name + "_" + where + "_" + std::to_string(f->def ? f->def->line : 0);
    }
    case Val::Kind::Class: return "cls" + v.st->name + std::to_string(v.st->uid);
    case Val::Kind::Builtin: return v.host ? "bhost_" + constexprFunctionKey(v) : "b" + v.s;
    default: return "c" + v.repr();
  }
}

/// The parameters of `def` in order: positional ones, then keyword-only ones
/// (after a bare `*`).
std::vector<const py::Arg*> defArgs(const py::FunctionDef& def) {
  std::vector<const py::Arg*> args;
  for (const auto& a : def.args.posonlyargs) args.push_back(&a);
  for (const auto& a : def.args.args) args.push_back(&a);
  for (const auto& a : def.args.kwonlyargs) args.push_back(&a);
  return args;
}

/// The default expression of parameter `k` of defArgs(def), or null.
const py::Expr* defaultOf(const py::FunctionDef& def, size_t k) {
  size_t positional = def.args.posonlyargs.size() + def.args.args.size();
  if (k >= positional) {
    size_t kw = k - positional;
    return kw < def.args.kwDefaults.size() ? def.args.kwDefaults[kw].get() : nullptr;
  }
  size_t firstDefault = positional - std::min(positional, def.args.defaults.size());
  return k >= firstDefault ? def.args.defaults[k - firstDefault].get() : nullptr;
}

}  // namespace

Val CodeGen::evalCall(const py::Call& call) {
  Val callee = eval(*call.func);
  std::vector<Val> args;
  for (const auto& a : call.args) {
    if (auto* st = a->as<py::Starred>()) {
      Val t = eval(*st->value);
      if (!t.isTuple()) fail(*a, "only tuples can be unpacked with * in a call");
      args.insert(args.end(), t.elems.begin(), t.elems.end());
    } else {
      args.push_back(eval(*a));
    }
  }
  KwArgs kwargs;
  for (const auto& kw : call.keywords) {
    if (!kw.arg) fail(kw, "**kwargs in calls is not supported");
    kwargs.emplace_back(*kw.arg, eval(*kw.value));
  }
  return this->call(callee, std::move(args), std::move(kwargs));
}

Val CodeGen::call(const Val& callee, std::vector<Val> args, KwArgs kwargs) {
  if (callee.self) args.insert(args.begin(), *callee.self);
  switch (callee.kind) {
    case Val::Kind::Func: return callJit(callee.fn, std::move(args), std::move(kwargs));
    case Val::Kind::Class: return construct(callee, std::move(args), std::move(kwargs));
    case Val::Kind::Builtin: {
      if (callee.host) return callConstexprFunction(*this, callee, args, kwargs);
      if (callee.s == "tl.aggregate_replace") {
        if (args.size() != 1) fail("aggregate_replace takes one object and the fields to replace by name");
        return replaceFields(args[0], std::move(kwargs));
      }
      const Builtin* b = findBuiltin(callee.s);
      if (!b) {
        std::string shown = callee.s.rfind("py.", 0) == 0 ? callee.s.substr(3) : callee.s;
        fail(shown + " cannot be called inside a @jit function");
      }
      BoundArgs bound = bindBuiltin(*b, std::move(args), std::move(kwargs));
      if (!b->fn) return callLibdevice(*this, b->name, bound);
      return b->fn(*this, bound);
    }
    case Val::Kind::Opaque: fail(callee.b ? callee.s : callee.s + " cannot be called inside a @jit function");
    case Val::Kind::Module: fail("module '" + callee.s + "' is not callable");
    case Val::Kind::Str:
      // A function passed as a constexpr (`ACTIVATION=relu`) arrives from
      // C++, the command line and Python as its name: the @jit function the
      // kernel's own module binds under it is called, also where a helper of
      // another module makes the call.
      if (!frames_.empty() && callee.s.find('.') == std::string::npos)
        if (std::optional<Val> f = frames_.front()->program->globals().lookup(callee.s);
            f && f->kind == Val::Kind::Func)
          return callJit(f->fn, std::move(args), std::move(kwargs));
      fail("'" + callee.typeName() + "' object is not callable (a function passed as a constexpr by name must be a "
           "@triton.jit function of the kernel's module)");
    default: fail("'" + callee.typeName() + "' object is not callable");
  }
}

static std::string displayName(const std::string& qualified) {
  if (qualified.rfind("py.", 0) == 0) return qualified.substr(3);
  if (qualified.rfind("math.", 0) == 0) return "tl.math." + qualified.substr(5);
  if (qualified.rfind("dtype.", 0) == 0) return "dtype." + qualified.substr(6);
  return qualified;
}

BoundArgs CodeGen::bindBuiltin(const Builtin& b, std::vector<Val> args, KwArgs kwargs) {
  BoundArgs out;
  std::string name = displayName(b.name);
  size_t n = b.params.size();
  out.values.resize(n);
  out.given.assign(n, false);
  size_t pos = 0;
  bool hasRest = false;
  for (size_t k = 0; k < n && pos < args.size(); ++k) {
    if (b.params[k].name[0] == '*') {
      hasRest = true;
      out.rest.assign(args.begin() + pos, args.end());
      pos = args.size();
      break;
    }
    out.values[k] = args[pos++];
    out.given[k] = true;
  }
  if (pos < args.size()) {
    size_t positional = 0;
    for (const auto& p : b.params) positional += p.name[0] != '*';
    fail(name + "() takes " + std::to_string(positional) + " positional argument" + (positional == 1 ? "" : "s") +
         " but " + std::to_string(args.size()) + " were given");
  }
  for (auto& [key, v] : kwargs) {
    size_t k = 0;
    while (k < n && b.params[k].name != key) ++k;
    if (key == "_semantic" || key == "_builder" || key == "_generator") continue;
    if (k == n) fail(name + "() got an unexpected keyword argument '" + key + "'");
    if (out.given[k]) fail(name + "() got multiple values for argument '" + key + "'");
    out.values[k] = std::move(v);
    out.given[k] = true;
  }
  (void)hasRest;
  for (size_t k = 0; k < n; ++k) {
    if (out.given[k] || b.params[k].name[0] == '*') continue;
    if (!b.params[k].dflt) fail(name + "() missing required argument '" + b.params[k].name + "'");
    out.values[k] = *b.params[k].dflt;
  }
  return out;
}

Val CodeGen::callJit(const FuncRef& f, std::vector<Val> args, KwArgs kwargs) {
  if (!f.fn) fail("call of an unknown @jit function");
  const JitFunction& fn = *f.fn;
  const py::FunctionDef& def = *fn.def;
  if (hostMode()) fail("@jit function '" + fn.name + "' cannot be called on the host");
  if (depth() >= kMaxCallDepth) fail("maximum recursion depth exceeded while calling '" + fn.name + "'");

  // Inside a per-element branch of tl.map_elementwise's function, callees
  // are generated inline, under the branch's mask.
  if (depth() && frame().branchMask) return inlineCall(f, std::move(args), std::move(kwargs));

  // An object under construction passes into a callee as it is so far:
  // the callee cannot set its fields (only the constructor's own body can).
  for (Val& a : args)
    if (a.isTuple() && a.st) a.b = false;
  auto params = defArgs(def);
  size_t n = params.size();
  std::vector<Val> boundVals = bindJitArgs(f, std::move(args), std::move(kwargs));
  std::vector<std::optional<Val>> bound(boundVals.begin(), boundVals.end());
  bool isPrelude = f.program->globals().isPrelude;
  // noinline is a hint (the results are the same either way): a call with a
  // tensor argument is generated inline, as the GPU backend calls functions
  // with scalar arguments only (Triton makes a real call of it).
  bool realCall = fn.noinline;
  for (size_t k = 0; k < n && realCall; ++k)
    if (bound[k]->isBlock() || (bound[k]->isTuple() && !bound[k]->isConstexpr())) realCall = false;

  // Find or generate the specialization.
  std::string key;
  for (size_t k = 0; k < n; ++k) key += specKey(*bound[k]) + "__";
  bool elementwise = frame().elementwise;  // (the callee's ifs select per element too)
  if (elementwise) key += "E";
  std::string mangled = sanitize((isPrelude ? "tl_" : "") + fn.name + "__" + key);
  if (mangled.size() > 200) mangled = mangled.substr(0, 160) + "_" + std::to_string(std::hash<std::string>{}(key));
  // Functions of one name from different modules or classes (two classes'
  // `make`) get names of their own: the first keeps the plain one.
  const std::string base = mangled;
  for (int k = 2; specializationOwners_.emplace(mangled, &fn).first->second != &fn; ++k)
    mangled = base + "__v" + std::to_string(k);
  SourceLoc callSite = cur_ ? locOf(*cur_) : SourceLoc{};

  std::vector<Val> argLeaves;
  for (size_t k = 0; k < n; ++k) flattenTensors(*bound[k], argLeaves);

  auto it = specializations.find(mangled);
  if (it == specializations.end()) {
    ir::AttrMap attrs;
    attrs["sym_name"] = mangled;
    if (realCall) attrs["noinline"] = true;
    ir::Operation* func = ir::Operation::create(ir::OpCode::Func, irLoc(def), {}, {}, std::move(attrs), 1);
    module_->addFunction(func);
    ir::Block* body = func->region(0).addBlock();

    auto frame = std::make_unique<Frame>();
    frame->program = f.program;
    frame->fn = &fn;
    frame->callSite = callSite;
    frame->isPrelude = isPrelude;
    frame->elementwise = elementwise;
    std::vector<Val> blockArgs;
    for (const auto& leaf : argLeaves)
      blockArgs.push_back(Val::tensor(body->addArgument(irType(leaf.dtype, leaf.shape)), leaf.dtype, leaf.shape));
    size_t pos = 0;
    for (size_t k = 0; k < n; ++k) frame->locals[params[k]->name] = rebuildTensors(*bound[k], blockArgs, pos);

    ir::OpBuilder::InsertionGuard guard(b_);
    b_.setInsertionPointToEnd(body);
    pushFrame(std::move(frame));
    Flow flow = genFunctionBody(def);
    std::vector<Val> retLeaves;
    flattenTensors(flow.value, retLeaves);
    std::vector<ir::Value> retValues;
    std::vector<ir::Type> retTypes;
    for (const auto& l : retLeaves) {
      retValues.push_back(l.value);
      retTypes.push_back(l.value.type());
    }
    b_.setLoc(irLoc(def));
    b_.create(ir::OpCode::Return, {}, retValues);
    func->setAttr("result_types", retTypes);
    popFrame();
    it = specializations.emplace(mangled, Specialization{mangled, flow.value}).first;
  }

  std::vector<Val> retLeaves;
  flattenTensors(it->second.returnTemplate, retLeaves);
  std::vector<ir::Type> resultTypes;
  for (const auto& l : retLeaves) resultTypes.push_back(irType(l.dtype, l.shape));
  std::vector<ir::Value> operands;
  for (const auto& l : argLeaves) operands.push_back(l.value);
  ir::AttrMap attrs;
  attrs["callee"] = mangled;
  ir::Operation* op = b_.create(ir::OpCode::Call, resultTypes, operands, std::move(attrs));
  std::vector<Val> results;
  for (size_t k = 0; k < retLeaves.size(); ++k)
    results.push_back(Val::tensor(op->result(static_cast<unsigned>(k)), retLeaves[k].dtype, retLeaves[k].shape));
  size_t pos = 0;
  return rebuildTensors(it->second.returnTemplate, results, pos);
}

std::vector<Val> CodeGen::bindJitArgs(const FuncRef& f, std::vector<Val> args, KwArgs kwargs) {
  const JitFunction& fn = *f.fn;
  const py::FunctionDef& def = *fn.def;
  if (def.args.vararg || def.args.kwarg)
    fail(def, "@jit functions support positional-or-keyword and keyword-only parameters (no *args or **kwargs)");
  // The positional parameters, then the keyword-only ones (after a bare
  // `*`, Triton 3.9), given by name.
  auto params = defArgs(def);
  size_t nPositional = def.args.posonlyargs.size() + def.args.args.size();
  size_t n = params.size();
  if (args.size() > nPositional)
    fail(fn.name + "() takes " + std::to_string(nPositional) + " positional argument" + (nPositional == 1 ? "" : "s") +
         " but " + std::to_string(args.size()) + " were given");
  std::vector<std::optional<Val>> bound(n);
  for (size_t k = 0; k < args.size(); ++k) bound[k] = std::move(args[k]);
  for (auto& [key, v] : kwargs) {
    size_t k = 0;
    while (k < n && params[k]->name != key) ++k;
    if (k == n) fail(fn.name + "() got an unexpected keyword argument '" + key + "'");
    if (bound[k]) fail(fn.name + "() got multiple values for argument '" + key + "'");
    bound[k] = std::move(v);
  }
  std::vector<Val> out;
  for (size_t k = 0; k < n; ++k) {
    if (!bound[k]) {
      const py::Expr* dflt = defaultOf(def, k);
      if (!dflt)
        fail(fn.name + "() missing required " + std::string(k < nPositional ? "" : "keyword-only ") + "argument '" +
             params[k]->name + "'");
      auto tmp = std::make_unique<Frame>();
      tmp->program = f.program;
      pushFrame(std::move(tmp));
      Val d = eval(*dflt);
      popFrame();
      bound[k] = d;
    }
    out.push_back(std::move(*bound[k]));
  }
  return out;
}

Val CodeGen::inlineCall(const FuncRef& f, std::vector<Val> args, KwArgs kwargs, int resultParam, bool elementwise) {
  if (!f.fn) fail("call of an unknown function");
  const JitFunction& fn = *f.fn;
  if (depth() >= kMaxCallDepth) fail("maximum recursion depth exceeded while calling '" + fn.name + "'");
  std::vector<Val> bound = bindJitArgs(f, std::move(args), std::move(kwargs));
  auto params = defArgs(*fn.def);
  auto frame = std::make_unique<Frame>();
  frame->program = f.program;
  frame->fn = &fn;
  frame->callSite = cur_ ? locOf(*cur_) : SourceLoc{};
  frame->isPrelude = f.program->globals().isPrelude;
  frame->elementwise = elementwise || this->frame().elementwise;
  frame->branchMask = this->frame().branchMask;
  for (size_t k = 0; k < params.size(); ++k) frame->locals[params[k]->name] = bound[k];
  pushFrame(std::move(frame));
  Flow flow = genFunctionBody(*fn.def);
  Val r = resultParam >= 0 ? this->frame().locals[params[static_cast<size_t>(resultParam)]->name] : flow.value;
  popFrame();
  return r;
}

std::vector<Val> CodeGen::inlineCombine(const Val& combineFn, const std::vector<Val>& scalarArgs) {
  if (combineFn.kind != Val::Kind::Func || !combineFn.fn.fn)
    fail("combine_fn must be a @jit function, got " + combineFn.typeName());
  const JitFunction& fn = *combineFn.fn.fn;
  const py::FunctionDef& def = *fn.def;
  if (depth() >= kMaxCallDepth) fail("maximum recursion depth exceeded while calling '" + fn.name + "'");
  auto params = defArgs(def);
  size_t firstDefault = params.size() - std::min(params.size(), def.args.defaults.size());
  if (scalarArgs.size() > params.size() || scalarArgs.size() < firstDefault)
    fail("combine_fn '" + fn.name + "' must take " + std::to_string(scalarArgs.size()) + " arguments, but takes " +
         std::to_string(params.size()));
  auto frame = std::make_unique<Frame>();
  frame->program = combineFn.fn.program;
  frame->fn = &fn;
  frame->callSite = cur_ ? locOf(*cur_) : SourceLoc{};
  frame->isPrelude = combineFn.fn.program->globals().isPrelude;
  for (size_t k = 0; k < scalarArgs.size(); ++k) frame->locals[params[k]->name] = scalarArgs[k];
  for (size_t k = scalarArgs.size(); k < params.size(); ++k) {
    auto tmp = std::make_unique<Frame>();
    tmp->program = combineFn.fn.program;
    pushFrame(std::move(tmp));
    Val d = eval(*def.args.defaults[k - firstDefault]);
    popFrame();
    frame->locals[params[k]->name] = d;
  }
  pushFrame(std::move(frame));
  Flow flow = genFunctionBody(def);
  popFrame();
  std::vector<Val> out = flow.value.isTuple() ? flow.value.elems : std::vector<Val>{flow.value};
  return out;
}

//===----------------------------------------------------------------------===//
// The kernel
//===----------------------------------------------------------------------===//

/// Whether a kernel parameter's annotation makes a pointer argument const:
/// like Triton, any annotation that mentions "const" but is not a constexpr
/// (`X: tl.const`, `X: "const"`).
static bool annotatedConst(const py::Expr* e) {
  if (!e) return false;
  if (auto* a = e->as<py::Attribute>()) return a->attr == "const";
  if (auto* n = e->as<py::Name>()) return n->id == "const";
  if (auto* c = e->as<py::Constant>(); c && c->type == py::Constant::Type::Str)
    return c->strValue.find("const") != std::string::npos && c->strValue.find("constexpr") == std::string::npos;
  return false;
}

/// The class of a namedtuple argument (its spec's field names), one per
/// spec text in a compilation.
std::shared_ptr<const StructType> CodeGen::namedTupleType(const ParamSpec& s) {
  std::string key = s.typeName;
  for (const auto& f : s.fields) key += "," + f;
  auto& slot = namedTuples_[key];
  if (!slot) {
    auto st = std::make_shared<StructType>();
    st->name = s.typeName.empty() ? "namedtuple" : s.typeName;
    st->classNames = {st->name};
    st->uid = -1 - static_cast<int>(namedTuples_.size());
    st->fields = s.fields;
    st->constexprField.assign(s.fields.size(), false);
    st->defaults.assign(s.fields.size(), std::nullopt);
    slot = st;
  }
  return slot;
}

static Val fromConst(const ConstValue& c) {
  return std::visit([](const auto& x) -> Val {
    using T = std::decay_t<decltype(x)>;
    if constexpr (std::is_same_v<T, std::monostate>) return Val::none();
    else if constexpr (std::is_same_v<T, bool>) return Val::boolean(x);
    else if constexpr (std::is_same_v<T, int64_t>) return Val::integer(BigInt(x));
    else if constexpr (std::is_same_v<T, double>) return Val::flt(x);
    else return Val::str(x);
  }, c);
}

Val CodeGen::hostTensorDescriptor(const py::Node& at, const std::string& where, const std::string& type, int param,
                                  const std::vector<int>& path, ir::Operation* func, ir::Block* body,
                                  CompileResult& result) {
  auto desc = TensorDescType::parse(type);
  auto elem = desc ? DType::fromName(desc->dtype) : std::nullopt;
  if (!desc || !elem || elem->isPtr() || elem->isVoid() || desc->block.empty() || desc->block.size() > 5)
    fail(at, where + ": invalid tensor descriptor type '" + type + "'");
  size_t rank = desc->block.size();
  auto add = [&](const DType& t, int component, int64_t divisibility) {
    unsigned idx = body->numArguments();
    ir::Value arg = body->addArgument(t.toIR());
    result.argToParam.push_back(param);
    result.argComponent.push_back(component);
    result.argPath.push_back(path);
    // The launch checks TensorDescriptor's alignment (TMA's): a 16-byte
    // aligned base and strides of 16 bytes.
    if (divisibility > 1) func->setAttr("arg" + std::to_string(idx) + ".divisibility", divisibility);
    return Val::tensor(arg, t, {});
  };
  int64_t elemBytes = std::max<int64_t>(1, elem->bitwidth() / 8);
  Val base = add(DType::pointer(*elem), 0, 16);
  std::vector<Val> shape, strides, block;
  for (size_t d = 0; d < rank; ++d) shape.push_back(add(DType(ScalarKind::I64), 1 + static_cast<int>(d), 1));
  for (size_t d = 0; d + 1 < rank; ++d)
    strides.push_back(add(DType(ScalarKind::I64), 1 + static_cast<int>(rank + d), std::max<int64_t>(1, 16 / elemBytes)));
  strides.push_back(Val::integer(BigInt(int64_t{1})));
  for (int64_t b : desc->block) block.push_back(Val::integer(BigInt(b)));
  Val d = makeTensorDescriptor(base, Val::tuple(std::move(shape)), Val::tuple(std::move(strides)),
                               Val::tuple(std::move(block)), desc->padding);
  if (desc->roundTf32) d.s += kRoundTf32;  // loads round fp32 to tf32 (loadTensorDescriptor)
  return d;
}

CompileResult CodeGen::compileKernel(const SourceProgram& program, const JitFunction& fn,
                                     const std::vector<ParamSpec>& specs) {
  const py::FunctionDef& def = *fn.def;
  auto frame = std::make_unique<Frame>();
  frame->program = &program;
  frame->fn = &fn;
  pushFrame(std::move(frame));
  CurrentNodeGuard guard(*this, &def);
  if (def.args.vararg || def.args.kwarg)
    fail(def, "kernel '" + fn.name + "': *args and **kwargs parameters are not supported");
  if (specs.size() > fn.params.size())
    fail(def, "kernel '" + fn.name + "' takes " + std::to_string(fn.params.size()) + " argument" +
                  (fn.params.size() == 1 ? "" : "s") + " but " + std::to_string(specs.size()) + " were given");

  CompileResult result;
  result.kernelName = fn.name;
  ir::AttrMap attrs;
  attrs["sym_name"] = fn.name;
  attrs["kernel"] = true;
  attrs["result_types"] = std::vector<ir::Type>{};
  ir::Operation* func = ir::Operation::create(ir::OpCode::Func, irLoc(def), {}, {}, std::move(attrs), 1);
  module_->addFunction(func);
  ir::Block* body = func->region(0).addBlock();
  b_.setInsertionPointToEnd(body);

  auto params = defArgs(def);
  // One spec (a tuple's elements in turn, `path` saying where) as a value.
  std::vector<int> path;
  std::function<Val(const ParamSpec&, size_t, const std::string&)> bind = [&](const ParamSpec& s, size_t k,
                                                                             const std::string& where) -> Val {
    const Parameter& p = fn.params[k];
    if (s.kind == ParamSpec::Kind::Constexpr) return fromConst(s.value);
    if (s.kind == ParamSpec::Kind::TensorDesc)
      return hostTensorDescriptor(*params[k], where, s.type.str(), static_cast<int>(k), path, func, body, result);
    if (s.kind == ParamSpec::Kind::Tuple) {
      if (p.isConstexpr) fail(*params[k], where + " is a tl.constexpr parameter, but a tuple of runtime values was given");
      std::vector<Val> elems;
      for (size_t e = 0; e < s.elems.size(); ++e) {
        path.push_back(static_cast<int>(e));
        elems.push_back(bind(s.elems[e], k, where + "[" + std::to_string(e) + "]"));
        path.pop_back();
      }
      Val t = Val::tuple(std::move(elems));
      if (!s.fields.empty()) {
        // The kernel module's own class of that name, when its fields are
        // these (its methods, isinstance); else one made from the spec.
        std::optional<Val> cls = program.globals().lookup(s.typeName);
        bool same = cls && cls->kind == Val::Kind::Class && !cls->st->aggregate && cls->st->fields == s.fields;
        t.st = same ? cls->st : namedTupleType(s);
      }
      return t;
    }
    if (p.isConstexpr)
      fail(*params[k], where + " is a tl.constexpr parameter, but a runtime " +
                           (s.kind == ParamSpec::Kind::Pointer ? "pointer" : "scalar") + " (" + s.type.str() +
                           ") was given");
    auto t = DType::fromName(s.type.str());
    if (!t || t->isVoid() || (s.kind == ParamSpec::Kind::Pointer) != t->isPtr())
      fail(*params[k], where + ": invalid " + (s.kind == ParamSpec::Kind::Pointer ? "pointer" : "scalar") + " type '" +
                           s.type.str() + "'");
    if (s.kind == ParamSpec::Kind::Pointer && !t->isConstPtr() && annotatedConst(params[k]->annotation.get()))
      t = DType::pointer(t->pointee(), true, t->addressSpace());
    unsigned idx = body->numArguments();
    ir::Value arg = body->addArgument(t->toIR());
    result.argToParam.push_back(static_cast<int>(k));
    result.argComponent.push_back(0);
    result.argPath.push_back(path);
    if (s.divisibleBy16) func->setAttr("arg" + std::to_string(idx) + ".divisibility", int64_t{16});
    return Val::tensor(arg, *t, {});
  };
  for (size_t k = 0; k < fn.params.size(); ++k) {
    const Parameter& p = fn.params[k];
    Val v;
    if (k < specs.size()) {
      v = bind(specs[k], k, "argument '" + p.name + "' of kernel '" + fn.name + "'");
    } else if (const py::Expr* dflt = defaultOf(def, k)) {
      v = eval(*dflt);
    } else {
      fail(*params[k], "kernel '" + fn.name + "' is missing a value for argument '" + p.name + "'");
    }
    this->frame().locals[p.name] = v;
  }

  std::vector<const py::Stmt*> stmts;
  for (const auto& s : def.body) stmts.push_back(s.get());
  Flow flow = genBlock(stmts, true);
  if (!flow.value.isNone()) fail(def, "kernel '" + fn.name + "' must not return a value");
  b_.setLoc(irLoc(def));
  b_.create(ir::OpCode::Return, {}, {});
  popFrame();
  return result;
}

}  // namespace tessera::frontend

namespace tessera::frontend {

Flow CodeGen::genFunctionBody(const py::FunctionDef& def) {
  std::vector<const py::Stmt*> stmts;
  for (const auto& s : def.body) stmts.push_back(s.get());
  try {
    return genBlock(stmts, true);
  } catch (...) {
    popFrame();
    throw;
  }
}

}  // namespace tessera::frontend
