//===- CodeGen.h - Triton AST -> Tile IR code generator --------*- C++ -*-===//
//
// One CodeGen instance compiles one kernel specialization (or evaluates host
// expressions, with no module). Its parts live in files of one purpose:
//
//   CodeGenExpr.cpp     expressions, names, attributes, subscripts, constexpr
//                       folding (ConstFold.cpp holds Python's arithmetic)
//   CodeGenStmt.cpp     statements, static/runtime if, loops, returns
//   CodeGenCall.cpp     argument binding, calls of @jit functions (specialized
//                       tt.func + tt.call), the combine regions of reduce/scan
//   Names.cpp           modules and namespaces: tl, tl.math, libdevice, triton
//   Semantic*.cpp       Triton's semantic layer: promotion, casts,
//                       broadcasting, memory, shapes, math, reductions
//   Builtins*.cpp       the table of builtin functions and their handlers
//
// A Frame is one active @jit function (kernel, callee or prelude function).
// Errors go through fail(): they point at the offending node; inside the
// prelude they point at the user's call instead.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "Value.h"
#include "frontend/python/AST.h"
#include "tessera/frontend/Frontend.h"
#include "tessera/ir/Builder.h"

namespace tessera::frontend {

/// Module-level names of a SourceProgram, as the code generator sees them:
/// converted from the module's host values on first use (Bridge.cpp).
struct SourceProgram::Globals {
  /// The value bound to `name` at the module's top level; nullopt if none.
  std::optional<Val> lookup(const std::string& name) const;
  /// `name.attr` when `name` is a module-level plain class (a namespace of
  /// @staticmethod @triton.jit functions and constants); nullopt otherwise.
  std::optional<Val> lookupClassAttr(const std::string& name, const std::string& attr) const;
  const SourceProgram* program = nullptr;
  bool isPrelude = false;
  /// Python's attribute `attr` of the constexpr `v` (a method comes back
  /// bound, called at compile time like a constexpr_function); nullopt when
  /// the host value has none.
  std::optional<Val> constexprAttr(const Val& v, const std::string& attr) const;
  /// The converted value `find` gives (null: none), cached under `key`.
  template <class Find>
  std::optional<Val> cached(const std::string& key, Find find) const;
  mutable std::mutex mutex;
  mutable std::map<std::string, Val> cache;
};

/// The Triton-language library (tl.sum, tl.softmax, the PRNG...), parsed once.
const SourceProgram& preludeProgram();

/// Largest tensor Triton accepts (TRITON_MAX_TENSOR_NUMEL).
constexpr int64_t kMaxTensorNumel = 1 << 20;

/// Result of generating a statement list.
struct Flow {
  bool returned = false;  ///< a `return` (explicit or the implicit one at the end) ran
  Val value;              ///< the returned value (None for `return`)
};

/// Arguments of a call after binding to a builtin's parameters.
struct BoundArgs {
  std::vector<Val> values;  ///< one per declared parameter (defaults filled in)
  std::vector<bool> given;  ///< whether the caller passed it
  std::vector<Val> rest;    ///< extra positional arguments (*args)
  const Val& operator[](size_t i) const { return values[i]; }
};

class CodeGen;
using BuiltinFn = Val (*)(CodeGen&, BoundArgs&);

/// One builtin: parameter names (a default makes it optional; a name starting
/// with '*' collects the remaining positional arguments) and the handler.
struct BuiltinParam {
  std::string name;
  std::optional<Val> dflt;
};
struct Builtin {
  std::string name;  ///< qualified: "tl.load", "math.exp", "libdevice.tanh", "py.len"
  std::vector<BuiltinParam> params;
  BuiltinFn fn = nullptr;
};
const Builtin* findBuiltin(const std::string& qualifiedName);

class CodeGen {
 public:
  CodeGen(const CompileOptions& options, ir::Module* module);

  struct Frame {
    const SourceProgram* program = nullptr;
    const JitFunction* fn = nullptr;  ///< null for host expressions
    std::map<std::string, Val> locals;
    SourceLoc callSite;               ///< the call that created this frame
    int loopDepth = 0;
    bool isPrelude = false;
    /// Generating tl.map_elementwise's scalar function over whole tensors:
    /// an `if` (or `x if c else y`) on a per-element condition runs both
    /// branches and selects per element (MapElementwise.cpp).
    bool elementwise = false;
    /// In an elementwise frame, inside per-element branches: the elements
    /// the branch is taken for. Loads, stores and atomics are masked by it
    /// and integer divisors are 1 outside it, so a branch not taken has no
    /// effect and cannot fault.
    std::optional<Val> branchMask;
  };
  Frame& frame() { return *frames_.back(); }
  const Frame& frame() const { return *frames_.back(); }
  void pushFrame(std::unique_ptr<Frame> f) { frames_.push_back(std::move(f)); }
  void popFrame() { frames_.pop_back(); }
  size_t depth() const { return frames_.size(); }
  bool hostMode() const { return module_ == nullptr; }

  /// Compiles `fn` as the kernel of the module.
  CompileResult compileKernel(const SourceProgram& program, const JitFunction& fn,
                              const std::vector<ParamSpec>& specs);
  /// A host tensor descriptor parameter (`type`, a TensorDescType) of the
  /// kernel: its base, shape and strides (but the last, 1) become arguments
  /// of `func` (recorded in `result` as parameter `param`), and the value is
  /// the descriptor tl.make_tensor_descriptor would make of them.
  /// `path`: where the descriptor sits in a tuple parameter (argPath).
  Val hostTensorDescriptor(const py::Node& at, const std::string& where, const std::string& type, int param,
                           const std::vector<int>& path, ir::Operation* func, ir::Block* body, CompileResult& result);
  /// The class of a namedtuple kernel argument.
  std::shared_ptr<const StructType> namedTupleType(const ParamSpec& s);

  // ---- errors ------------------------------------------------------------
  [[noreturn]] void fail(const std::string& msg) const;
  [[noreturn]] void fail(const py::Node& at, const std::string& msg) const;
  SourceLoc locOf(const py::Node& at) const;
  /// Location stamped on IR ops made for `at`.
  ir::Location irLoc(const py::Node& at) const;
  /// Sets the current node (for errors and op locations); returns the old one.
  const py::Node* setCurrent(const py::Node* n);
  const py::Node* current() const { return cur_; }

  // ---- expressions (CodeGenExpr.cpp) -------------------------------------
  Val eval(const py::Expr& e);
  Val evalCall(const py::Call& call);
  Val subscriptVal(const Val& base, const Val& index);
  Val runtimeTernary(const Val& cond, const py::Expr& then, const py::Expr& otherwise);
  /// Ends both branches of `ifOp` by yielding the tensor leaves of `tv` /
  /// `ev` (same structure) and returns `tv` rebuilt from the if's results.
  Val yieldBranches(ir::Operation* ifOp, const Val& tv, const Val& ev);
  Val lookupName(const std::string& id, const py::Node& at);
  Val getAttr(const Val& v, const std::string& attr, const py::Node& at);
  Val binary(py::BinOpKind op, const Val& a, const Val& b);
  Val compare(py::CmpOpKind op, const Val& a, const Val& b);
  Val unary(py::UnaryOpKind op, const Val& a);
  /// A condition for `if`/`while`/ternaries: constexpr (static) or an i1 scalar.
  Val condition(const Val& v);
  /// Python-level folding of constexpr operands (ConstFold.cpp).
  Val foldBinary(py::BinOpKind op, const Val& a, const Val& b);
  Val foldCompare(py::CmpOpKind op, const Val& a, const Val& b);

  // ---- calls (CodeGenCall.cpp) -------------------------------------------
  using KwArgs = std::vector<std::pair<std::string, Val>>;
  Val call(const Val& callee, std::vector<Val> args, KwArgs kwargs);
  Val callJit(const FuncRef& f, std::vector<Val> args, KwArgs kwargs);
  BoundArgs bindBuiltin(const Builtin& b, std::vector<Val> args, KwArgs kwargs);
  /// `f`'s parameters in order (positional, then keyword-only) bound to the
  /// arguments, defaults evaluated in `f`'s module.
  std::vector<Val> bindJitArgs(const FuncRef& f, std::vector<Val> args, KwArgs kwargs);
  /// Generates `f`'s body inline at the insertion point (no callee): its
  /// return value, or with resultParam >= 0 that parameter's final value
  /// (a constructor's `self`).
  Val inlineCall(const FuncRef& f, std::vector<Val> args, KwArgs kwargs, int resultParam = -1,
                 bool elementwise = false);
  /// tl.map_elementwise(scalar_fn, *args, pack=1) (MapElementwise.cpp).
  Val mapElementwise(const Val& fn, std::vector<Val> args, const Val& pack);
  /// In an elementwise frame: `v` as a per-element condition when it is a
  /// block (an i1 block), else nullopt.
  std::optional<Val> elementwiseCondition(const Val& v);
  /// Per-element select between the values two branches left (same
  /// structure; numbers become tensors).
  Val selectMerge(const Val& cond, const Val& tv, const Val& ev, const std::string& what);
  /// Whether any element of i1 block `c` is set (an i1 scalar).
  Val anyElement(const Val& c);
  /// `mask` (None: no mask) restricted to the current branch mask.
  Val branchMasked(const Val& mask);
  /// Runs `gen` with the branch mask narrowed to `cond` (MapElementwise.cpp).
  template <class F>
  auto underBranch(const Val& cond, F&& gen) {
    std::optional<Val> saved = frame().branchMask;
    frame().branchMask = saved ? logicalAndOr(true, *saved, cond) : cond;
    struct Restore {
      CodeGen& cg;
      std::optional<Val> saved;
      ~Restore() {
        if (!cg.frames_.empty()) cg.frame().branchMask = saved;
      }
    } restore{*this, saved};
    return gen();
  }

  // ---- aggregates and namedtuples (Aggregates.cpp) -----------------------
  /// `cls(args)`: an object of an aggregate or namedtuple class.
  Val construct(const Val& cls, std::vector<Val> args, KwArgs kwargs);
  /// An attribute of an aggregate/namedtuple object or class.
  Val structAttr(const Val& v, const std::string& attr, const py::Node& at);
  /// `a op b` by operator method `name` of `a` or `reflected` of `b`;
  /// nullopt when neither operand's class has it.
  std::optional<Val> structOperator(const char* name, const char* reflected, const Val& a, const Val& b);
  std::optional<Val> structUnary(const char* name, const Val& a);
  /// `obj.field = v` inside a constructor.
  void assignAttribute(const py::Attribute& target, const Val& v);
  /// tl.aggregate_replace(obj, **fields) / namedtuple._replace.
  Val replaceFields(const Val& obj, KwArgs kwargs);
  /// Builds the combine region of tt.reduce/tt.scan: the block's 2n scalar
  /// args are passed to combine_fn, its n results are returned.
  std::vector<Val> inlineCombine(const Val& combineFn, const std::vector<Val>& scalarArgs);

  // ---- statements (CodeGenStmt.cpp) --------------------------------------
  Flow genBlock(const std::vector<const py::Stmt*>& stmts, bool atTail);
  /// Generates a jit function's body in the frame just pushed; pops that frame
  /// if generation throws (the caller pops it on success).
  Flow genFunctionBody(const py::FunctionDef& def);
  void assign(const py::Expr& target, const Val& v);

  // ---- semantic layer (Semantic*.cpp) -------------------------------------
  ir::OpBuilder& builder() { return b_; }
  ir::Type irType(const DType& t, const std::vector<int64_t>& shape) const;
  /// Python literal -> scalar tensor (bool->int1, int by range, float->fp32/fp64).
  DType literalType(const Val& c);
  Val toTensor(const Val& v);
  /// A constant of dtype `t` (scalar if shape empty) holding a constexpr number.
  Val constant(const DType& t, const std::vector<int64_t>& shape, const Val& c);
  Val constantInt(const DType& t, int64_t v, const std::vector<int64_t>& shape = {});
  Val splat(const Val& scalar, const std::vector<int64_t>& shape);
  Val broadcastTo(const Val& t, const std::vector<int64_t>& shape);
  std::vector<int64_t> broadcastShapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b);
  std::pair<Val, Val> broadcastPair(const Val& a, const Val& b);
  Val cast(const Val& v, const DType& dst, const std::string& rounding = "", bool bitcast = false);
  DType computationType(const DType& a, bool aWeak, const DType& b, bool bWeak, bool divOrMod);
  /// Converts constexpr operands with Triton's weak typing, promotes and
  /// broadcasts; returns the two operands as tensors of the computation type.
  std::pair<Val, Val> arithOperands(const Val& a, const Val& b, bool divOrMod, bool allowPtr,
                                    const char* opName);
  Val arith(py::BinOpKind op, const Val& a, const Val& b);
  Val cmp(py::CmpOpKind op, const Val& a, const Val& b);
  Val negate(const Val& a);
  Val invert(const Val& a);
  Val logicalNot(const Val& a);
  Val logicalAndOr(bool isAnd, const Val& a, const Val& b);
  Val minMax(bool isMax, const Val& a, const Val& b, bool propagateNan);
  Val where(const Val& cond, const Val& x, const Val& y);
  Val elementwise(ir::OpCode code, const Val& a, const Val& b);  ///< same-type operands
  Val unaryFloatMath(const std::string& name, ir::OpCode code, const Val& x);
  Val externElementwise(const std::string& name, const std::vector<Val>& args);
  Val fma(const Val& x, const Val& y, const Val& z);
  Val umulhi(const Val& x, const Val& y);
  Val fdiv(const Val& x, const Val& y, bool ieee, bool approx = false);

  // shapes (SemanticShape.cpp)
  void checkShape(const std::vector<int64_t>& shape, const char* what);
  Val expandDims(const Val& v, int64_t axis);
  Val reshape(const Val& v, const std::vector<int64_t>& shape, bool canReorder);
  Val permute(const Val& v, const std::vector<int64_t>& order);
  Val join(const Val& a, const Val& b);
  std::pair<Val, Val> split(const Val& a);
  Val cat(const Val& a, const Val& b);
  Val subscript(const Val& v, const std::vector<Val>& index);

  // memory (SemanticMemory.cpp)
  Val load(const Val& ptr, const Val& mask, const Val& other, const Val& boundaryCheck,
           const std::string& padding, const std::string& cache, const std::string& evict, bool isVolatile,
           const ir::AttrMap& extra = {});
  void store(const Val& ptr, const Val& value, const Val& mask, const Val& boundaryCheck,
             const std::string& cache, const std::string& evict, const ir::AttrMap& extra = {});
  /// tl.atomic_load / tl.atomic_store (Triton 3.9): a load / store with a
  /// memory order (`sem`) and `scope`.
  Val atomicLoad(const Val& ptr, const Val& mask, const std::string& sem, const std::string& scope);
  void atomicStore(const Val& ptr, const Val& value, const Val& mask, const std::string& sem,
                   const std::string& scope);
  Val atomicRMW(const std::string& op, const Val& ptr, const Val& val, const Val& mask,
                const std::string& sem, const std::string& scope);
  Val atomicCAS(const Val& ptr, const Val& cmpv, const Val& val, const std::string& sem,
                const std::string& scope);
  Val makeTensorDescriptor(const Val& base, const Val& shape, const Val& strides, const Val& blockShape,
                           const std::string& padding);
  Val loadTensorDescriptor(const Val& desc, const Val& offsets);
  void storeTensorDescriptor(const Val& desc, const Val& offsets, const Val& value);
  Val makeBlockPtr(const Val& base, const Val& shape, const Val& strides, const Val& offsets,
                   const Val& blockShape, const Val& order,
                   bool descriptor = false);
  Val advance(const Val& ptr, const Val& offsets);

  // linear algebra and reductions (SemanticReduce.cpp)
  Val dot(const Val& a, const Val& b, const Val& acc, const Val& inputPrecision,
          const Val& allowTf32, const Val& maxImprecise, const Val& outDtype);
  Val reduce(const Val& input, const Val& axis, const Val& combineFn, bool keepDims);
  Val scan(const Val& input, const Val& axis, const Val& combineFn, bool reverse);

  // ---- helpers for builtins ------------------------------------------------
  /// The Val as an exact int constexpr (errors name `what`).
  int64_t constInt(const Val& v, const char* what);
  /// The elements of a list or tuple comprehension (CodeGenExpr.cpp).
  void comprehension(const py::Expr& elt, const std::vector<py::Comprehension>& gens, size_t i, std::vector<Val>& out);
  std::vector<int64_t> constIntList(const Val& v, const char* what);
  std::string constStr(const Val& v, const char* what);
  bool constBool(const Val& v, const char* what);
  DType asDType(const Val& v, const char* what);
  /// A tensor operand (constexpr numbers are converted with literal typing).
  Val tensorArg(const Val& v, const char* what);
  /// Normalizes a possibly negative axis for rank `rank`.
  int64_t normAxis(int64_t axis, int64_t rank, const char* what);
  const CompileOptions& options() const { return options_; }
  ir::Module* module() { return module_; }
  bool debugEnabled() const;

  /// Creates the op and returns its first result wrapped as a tensor Val.
  Val make(ir::OpCode code, const DType& t, const std::vector<int64_t>& shape,
           const std::vector<ir::Value>& operands, ir::AttrMap attrs = {});

  /// Specialized callees already generated: mangled name -> return template.
  struct Specialization {
    std::string name;
    Val returnTemplate;  ///< tensor leaves are placeholders filled from call results
  };
  std::map<std::string, Specialization> specializations;
  /// Static-unrolling budget shared by all (nested) static_range loops.
  int64_t staticIterationsLeft = 1 << 16;
  /// Expressions, statement blocks and inlined calls being generated, nested.
  /// Generation recurses on the C++ stack (several KB per level in sanitizer
  /// or debug builds), so past kMaxNesting it stops with a diagnostic; Triton
  /// itself hits Python's recursion limit far earlier.
  int nesting = 0;
  static constexpr int kMaxNesting = 400;

 private:
  friend struct StmtGen;
  Val evalNode(const py::Expr& e);  // eval() without the BigInt overflow -> diagnostic mapping

  const CompileOptions& options_;
  ir::Module* module_;
  ir::OpBuilder b_;
  std::vector<std::unique_ptr<Frame>> frames_;
  std::map<std::string, std::shared_ptr<const StructType>> namedTuples_;
  std::map<std::string, const JitFunction*> specializationOwners_;  ///< callJit's mangled names
  const py::Node* cur_ = nullptr;
};

/// Counts one level of CodeGen::nesting for its lifetime; fails at `at` past
/// CodeGen::kMaxNesting.
class NestingGuard {
 public:
  NestingGuard(CodeGen& cg, const py::Node& at) : cg_(cg) {
    if (cg.nesting >= CodeGen::kMaxNesting)
      cg.fail(at, "code is nested too deeply (more than " + std::to_string(CodeGen::kMaxNesting) +
                      " levels of expressions, blocks and calls)");
    ++cg.nesting;
  }
  ~NestingGuard() { --cg_.nesting; }
  NestingGuard(const NestingGuard&) = delete;
  NestingGuard& operator=(const NestingGuard&) = delete;

 private:
  CodeGen& cg_;
};

/// Restores the current node on scope exit.
class CurrentNodeGuard {
 public:
  CurrentNodeGuard(CodeGen& cg, const py::Node* n) : cg_(cg), old_(cg.setCurrent(n)) {}
  ~CurrentNodeGuard() { cg_.setCurrent(old_); }

 private:
  CodeGen& cg_;
  const py::Node* old_;
};

// ---- names (Names.cpp) ----------------------------------------------------
/// Resolves a dotted module path (`triton.language`, `triton.language.extra.cuda.libdevice`)
/// to a namespace Val; nullopt for modules Tessera does not model (torch, ...).
std::optional<Val> resolveModule(const std::string& path);
/// Attribute of a namespace (`tl.load`, `tl.float16`, `triton.cdiv`, `tl.math`);
/// nullopt if it does not exist.
std::optional<Val> namespaceAttr(const std::string& ns, const std::string& attr);
/// Python builtins visible in kernels (len, min, max, range, float, ...).
std::optional<Val> pythonBuiltin(const std::string& name);

// ---- flattening of tensor leaves (tuples of tensors) -------------------------
void flattenTensors(const Val& v, std::vector<Val>& leaves);
/// Rebuilds `templ` with its tensor leaves replaced by `values` (in order).
Val rebuildTensors(const Val& templ, const std::vector<Val>& values, size_t& pos);

}  // namespace tessera::frontend
