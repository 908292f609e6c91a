//===- Builtins.cpp - The table of builtin functions ------------------------===//
//
// Every builtin reachable from a kernel (tl.*, tl.math.*, Python builtins,
// dtype methods, triton.cdiv/next_power_of_2; libdevice in Libdevice.cpp,
// tl.extra.cuda's others in CudaExtras.cpp)
// is one row: qualified name, parameters with defaults (a '*' parameter
// collects extra positional arguments; later ones are keyword-only) and a
// handler that forwards to the semantic layer.
//
//===----------------------------------------------------------------------===//

#include <cmath>
#include <iostream>
#include <tuple>
#include <unordered_map>

#include "CodeGen.h"

namespace tessera::frontend {

void emitDeviceAssert(CodeGen& cg, const Val& cond, const std::string& msg, const py::Node& at);
void registerLibdevice(std::vector<Builtin>& table);
void registerCudaExtras(std::vector<Builtin>& table);

namespace {

using ir::OpCode;
using P = BuiltinParam;
P R(const char* n) { return P{n, std::nullopt}; }
P O(const char* n, Val d) { return P{n, std::move(d)}; }
Val None() { return Val::none(); }
Val False() { return Val::boolean(false); }
Val Str(const char* s) { return Val::str(s); }

/// `*shape` varargs: either a single tuple or the ints themselves.
std::vector<int64_t> shapeArgs(CodeGen& cg, const std::vector<Val>& rest, const char* what) {
  if (rest.size() == 1 && (rest[0].isTuple())) return cg.constIntList(rest[0], what);
  std::vector<int64_t> out;
  for (const auto& v : rest) out.push_back(cg.constInt(v, what));
  return out;
}

Val mathOp(CodeGen& cg, BoundArgs& a, const char* name, OpCode code) { return cg.unaryFloatMath(name, code, a[0]); }

#define MATH1(NAME, CODE) \
  Builtin{"tl." #NAME, {R("x")}, [](CodeGen& cg, BoundArgs& a) { return mathOp(cg, a, "tl." #NAME, OpCode::CODE); }}

#define ATOMIC(NAME)                                                                                    \
  Builtin{"tl.atomic_" #NAME, {R("pointer"), R("val"), O("mask", None()), O("sem", None()), O("scope", None())}, \
          [](CodeGen& cg, BoundArgs& a) {                                                               \
            return cg.atomicRMW(#NAME, a[0], a[1], a[2], cg.constStr(a[3], "sem"), cg.constStr(a[4], "scope")); \
          }}

#define DTYPE_PRED(NAME, EXPR)                                       \
  Builtin{"dtype." #NAME, {R("self")}, [](CodeGen& cg, BoundArgs& a) { \
            const DType& t = a[0].dtype;                               \
            (void)cg;                                                  \
            return Val::boolean(EXPR);                                 \
          }}

Val hint(CodeGen& cg, BoundArgs& a, const char* attr, const char* fn) {
  Val x = cg.tensorArg(a[0], fn);
  auto values = cg.constIntList(a[1], "values");
  size_t want = std::max<size_t>(1, x.shape.size());
  if (values.size() != want)
    cg.fail(std::string(fn) + ": expected " + std::to_string(want) + " value" + (want == 1 ? "" : "s") + ", got " +
            std::to_string(values.size()));
  return cg.make(OpCode::Hint, x.dtype, x.shape, {x.value}, {{attr, values}});
}

Val full(CodeGen& cg, BoundArgs& a) {
  auto shape = a[0].isTuple() ? cg.constIntList(a[0], "shape") : std::vector<int64_t>{cg.constInt(a[0], "shape")};
  cg.checkShape(shape, "tl.full");
  DType t = cg.asDType(a[2], "tl.full dtype");
  if (a[1].isNumber()) return cg.constant(t, shape, a[1]);
  Val v = cg.tensorArg(a[1], "tl.full value");
  if (v.isBlock()) {
    if (v.numel() != 1) cg.fail("tl.full: value must be a scalar or a 1-element tensor, got shape " + shapeToString(v.shape));
    v = cg.reshape(v, {}, false);
  }
  return cg.splat(cg.cast(v, t), shape);
}

Val arange(CodeGen& cg, BoundArgs& a) {
  int64_t start = cg.constInt(a[0], "tl.arange start"), end = cg.constInt(a[1], "tl.arange end");
  if (start < INT32_MIN || end > INT32_MAX) cg.fail("tl.arange: arguments must be within the int32 range");
  if (end <= start) cg.fail("tl.arange: end (" + std::to_string(end) + ") must be greater than start (" + std::to_string(start) + ")");
  int64_t n = end - start;
  if ((n & (n - 1)) != 0) cg.fail("tl.arange: range length " + std::to_string(n) + " must be a power of 2");
  if (n > kMaxTensorNumel) cg.fail("tl.arange: range length " + std::to_string(n) + " exceeds the maximum tensor size " + std::to_string(kMaxTensorNumel));
  return cg.make(OpCode::MakeRange, ScalarKind::I32, {n}, {}, {{"start", start}, {"end", end}});
}

Val programIdLike(CodeGen& cg, BoundArgs& a, OpCode code, const char* fn) {
  int64_t axis = cg.constInt(a[0], "axis");
  if (axis < 0 || axis > 2) cg.fail(std::string(fn) + ": axis must be 0, 1, or 2 but got " + std::to_string(axis));
  return cg.make(code, ScalarKind::I32, {}, {}, {{"axis", axis}});
}

Val devicePrint(CodeGen& cg, std::string prefix, const std::vector<Val>& args, bool hex) {
  for (char c : prefix)
    if (static_cast<unsigned char>(c) >= 128 || (c < 32 && c != '\t' && c != '\n'))
      cg.fail("tl.device_print: the prefix must be an ASCII string");
  std::vector<ir::Value> values;
  std::vector<int64_t> isSigned;
  for (const auto& x : args) {
    Val t = cg.tensorArg(x, "tl.device_print argument");
    // A block pointer has no elements to print (the interpreter read none).
    if (t.dtype.isBlockPtr()) cg.fail("tl.device_print: cannot print a block pointer; load from it first");
    values.push_back(t.value);
    isSigned.push_back(t.dtype.isSigned() ? 1 : 0);
  }
  // Like Triton: non-empty prefixes end in ": " and start with " ".
  if (!args.empty() && (prefix.empty() || prefix.back() != ' ')) prefix += " ";
  if (!args.empty() && (prefix.size() < 2 || prefix.compare(prefix.size() - 2, 2, ": ") != 0))
    prefix = prefix.substr(0, prefix.size() - 1) + ": ";
  if (prefix.size() > 2 && prefix[0] != ' ') prefix = " " + prefix;
  ir::AttrMap attrs;
  attrs["prefix"] = prefix;
  attrs["hex"] = hex;
  attrs["is_signed"] = isSigned;
  cg.builder().create(OpCode::Print, {}, values, std::move(attrs));
  return Val::none();
}

Val minMaxBuiltin(CodeGen& cg, BoundArgs& a, bool isMax) {
  std::vector<Val> xs = a.rest;
  if (xs.size() == 1 && xs[0].isTuple()) xs = xs[0].elems;
  if (xs.empty()) cg.fail(std::string(isMax ? "max" : "min") + "() expected at least 1 argument");
  Val acc = xs[0];
  for (size_t k = 1; k < xs.size(); ++k) {
    if (acc.isConstexpr() && xs[k].isConstexpr()) {
      bool greater = cg.foldCompare(py::CmpOpKind::Gt, xs[k], acc).truthy();
      bool less = cg.foldCompare(py::CmpOpKind::Lt, xs[k], acc).truthy();
      if (isMax ? greater : less) acc = xs[k];
    } else {
      acc = cg.minMax(isMax, acc, xs[k], false);
    }
  }
  return acc;
}

bool isInstance(const Val& v, const Val& cls) {
  if (cls.isTuple()) {
    for (const auto& c : cls.elems)
      if (isInstance(v, c)) return true;
    return false;
  }
  if (cls.kind == Val::Kind::Class) {  // an aggregate or namedtuple class, or one of its bases
    if (!v.isTuple() || !v.st) return false;
    if (v.st == cls.st) return true;
    const auto& names = v.st->classNames;
    return std::find(names.begin(), names.end(), cls.st->name) != names.end();
  }
  const std::string& n = cls.s;
  if (n == "py.int") return v.kind == Val::Kind::Int || v.kind == Val::Kind::Bool;
  if (n == "py.float") return v.kind == Val::Kind::Float;
  if (n == "py.bool") return v.kind == Val::Kind::Bool;
  if (n == "py.str") return v.kind == Val::Kind::Str;
  if (n == "py.tuple" || n == "py.list" || n == "tl.tuple") return v.isTuple();
  if (n == "tl.tensor") return v.isTensor();
  if (n == "tl.tensor_descriptor" || n == "tl.tensor_descriptor_base") return v.isTensorDesc();
  if (n == "tl.constexpr") return v.isConstexpr();
  if (n == "tl.dtype") return v.kind == Val::Kind::DType;
  return false;
}

std::vector<Builtin> makeTable() {
  std::vector<Builtin> t = {
      // ---- program model and creation ----
      {"tl.program_id", {R("axis")}, [](CodeGen& cg, BoundArgs& a) { return programIdLike(cg, a, OpCode::GetProgramId, "tl.program_id"); }},
      {"tl.num_programs", {R("axis")}, [](CodeGen& cg, BoundArgs& a) { return programIdLike(cg, a, OpCode::GetNumPrograms, "tl.num_programs"); }},
      {"tl.arange", {R("start"), R("end")}, arange},
      {"tl.full", {R("shape"), R("value"), R("dtype")}, full},
      {"tl.cast", {R("input"), R("dtype"), O("fp_downcast_rounding", None()), O("bitcast", False())},
       [](CodeGen& cg, BoundArgs& a) {
         return cg.cast(cg.tensorArg(a[0], "tl.cast input"), cg.asDType(a[1], "dtype"),
                        cg.constStr(a[2], "fp_downcast_rounding"), cg.constBool(a[3], "bitcast"));
       }},
      {"tl.to_tensor", {R("x")}, [](CodeGen& cg, BoundArgs& a) { return cg.tensorArg(a[0], "tl.to_tensor"); }},
      {"tl._item", {R("x")}, [](CodeGen& cg, BoundArgs& a) {
         Val x = cg.tensorArg(a[0], "item");
         if (x.numel() != 1) cg.fail("item(): the tensor must have exactly one element, got shape " + shapeToString(x.shape));
         return cg.reshape(x, {}, false);
       }},
      // ---- memory ----
      {"tl.load", {R("pointer"), O("mask", None()), O("other", None()), O("boundary_check", Val::tuple({})),
                   O("padding_option", Str("")), O("cache_modifier", Str("")), O("eviction_policy", Str("")),
                   O("volatile", False())},
       [](CodeGen& cg, BoundArgs& a) {
         return cg.load(a[0], a[1], a[2], a[3], cg.constStr(a[4], "padding_option"), cg.constStr(a[5], "cache_modifier"),
                        cg.constStr(a[6], "eviction_policy"), cg.constBool(a[7], "volatile"));
       }},
      {"tl.store", {R("pointer"), R("value"), O("mask", None()), O("boundary_check", Val::tuple({})),
                    O("cache_modifier", Str("")), O("eviction_policy", Str(""))},
       [](CodeGen& cg, BoundArgs& a) {
         cg.store(a[0], a[1], a[2], a[3], cg.constStr(a[4], "cache_modifier"), cg.constStr(a[5], "eviction_policy"));
         return Val::none();
       }},
      {"tl.atomic_load", {R("pointer"), O("mask", None()), O("sem", None()), O("scope", None())},
       [](CodeGen& cg, BoundArgs& a) {
         return cg.atomicLoad(a[0], a[1], cg.constStr(a[2], "sem"), cg.constStr(a[3], "scope"));
       }},
      {"tl.atomic_store", {R("pointer"), R("val"), O("mask", None()), O("sem", None()), O("scope", None())},
       [](CodeGen& cg, BoundArgs& a) {
         cg.atomicStore(a[0], a[1], a[2], cg.constStr(a[3], "sem"), cg.constStr(a[4], "scope"));
         return Val::none();
       }},
      ATOMIC(add), ATOMIC(max), ATOMIC(min), ATOMIC(and), ATOMIC(or), ATOMIC(xor), ATOMIC(xchg),
      {"tl.atomic_cas", {R("pointer"), R("cmp"), R("val"), O("sem", None()), O("scope", None())},
       [](CodeGen& cg, BoundArgs& a) {
         return cg.atomicCAS(a[0], a[1], a[2], cg.constStr(a[3], "sem"), cg.constStr(a[4], "scope"));
       }},
      {"tl.make_block_ptr", {R("base"), R("shape"), R("strides"), R("offsets"), R("block_shape"), R("order")},
       [](CodeGen& cg, BoundArgs& a) { return cg.makeBlockPtr(a[0], a[1], a[2], a[3], a[4], a[5]); }},
      {"tl.advance", {R("base"), R("offsets")}, [](CodeGen& cg, BoundArgs& a) { return cg.advance(a[0], a[1]); }},
      {"tl.make_tensor_descriptor",
       {R("base"), R("shape"), R("strides"), R("block_shape"), O("padding_option", Str("zero"))},
       [](CodeGen& cg, BoundArgs& a) {
         return cg.makeTensorDescriptor(a[0], a[1], a[2], a[3], cg.constStr(a[4], "padding_option"));
       }},
      {"tl.load_tensor_descriptor", {R("desc"), R("offsets")},
       [](CodeGen& cg, BoundArgs& a) { return cg.loadTensorDescriptor(a[0], a[1]); }},
      {"tl.store_tensor_descriptor", {R("desc"), R("offsets"), R("value")},
       [](CodeGen& cg, BoundArgs& a) {
         cg.storeTensorDescriptor(a[0], a[1], a[2]);
         return Val::none();
       }},
      // ---- elementwise ----
      {"tl.where", {R("condition"), R("x"), R("y")}, [](CodeGen& cg, BoundArgs& a) { return cg.where(a[0], a[1], a[2]); }},
      {"tl.maximum", {R("x"), R("y"), O("propagate_nan", Val::integer(BigInt(0)))},
       [](CodeGen& cg, BoundArgs& a) { return cg.minMax(true, a[0], a[1], cg.constInt(a[2], "propagate_nan") != 0); }},
      {"tl.minimum", {R("x"), R("y"), O("propagate_nan", Val::integer(BigInt(0)))},
       [](CodeGen& cg, BoundArgs& a) { return cg.minMax(false, a[0], a[1], cg.constInt(a[2], "propagate_nan") != 0); }},
      {"tl.clamp", {R("x"), R("min"), R("max"), O("propagate_nan", Val::integer(BigInt(0)))},
       [](CodeGen& cg, BoundArgs& a) {
         // Like Triton: all three become tensors (no weak literals), bf16 is
         // promoted to fp32, then (min, max), (x, min), (x, max) are
         // promoted pairwise; only the promoted x must be a float.
         auto operand = [&](const Val& v) {
           Val t = cg.toTensor(v);
           return t.dtype.isBF16() ? cg.cast(t, ScalarKind::FP32) : t;
         };
         Val x = operand(a[0]), lo = operand(a[1]), hi = operand(a[2]);
         std::tie(lo, hi) = cg.arithOperands(lo, hi, false, false, "clamp");
         std::tie(x, lo) = cg.arithOperands(x, lo, false, false, "clamp");
         std::tie(x, hi) = cg.arithOperands(x, hi, false, false, "clamp");
         // Integers (Triton 3.9): max then min in the promoted type's
         // signedness; NaN propagation does not apply.
         if (x.dtype.isInt() && !x.dtype.isInt1()) {
           bool isSigned = x.dtype.isSigned();
           Val raised = cg.elementwise(isSigned ? OpCode::MaxSI : OpCode::MaxUI, x, cg.cast(lo, x.dtype));
           return cg.elementwise(isSigned ? OpCode::MinSI : OpCode::MinUI, raised, cg.cast(hi, x.dtype));
         }
         if (!x.dtype.isFloat()) cg.fail("tl.clamp: expected an integer or floating-point tensor, got " + x.dtype.name());
         Val x4 = x;
         Val lo3 = cg.broadcastTo(cg.cast(lo, x.dtype), x.shape);
         Val hi3 = cg.broadcastTo(hi, x.shape);
         ir::AttrMap attrs;
         attrs["propagate_nan"] = cg.constInt(a[3], "propagate_nan") != 0;
         return cg.make(OpCode::ClampF, x4.dtype, x4.shape, {x4.value, lo3.value, hi3.value}, std::move(attrs));
       }},
      MATH1(exp, Exp), MATH1(exp2, Exp2), MATH1(log, Log), MATH1(log2, Log2), MATH1(sin, Sin), MATH1(cos, Cos),
      MATH1(sqrt, Sqrt), MATH1(rsqrt, Rsqrt), MATH1(erf, Erf), MATH1(floor, Floor), MATH1(ceil, Ceil),
      MATH1(sqrt_rn, PreciseSqrt),
      {"tl.div_rn", {R("x"), R("y")}, [](CodeGen& cg, BoundArgs& a) {
         auto [x, y] = cg.arithOperands(a[0], a[1], true, false, "div_rn");
         if (!x.dtype.isFP32()) cg.fail("tl.div_rn: expected dtype fp32, got " + x.dtype.name());
         return cg.make(OpCode::PreciseDivF, x.dtype, x.shape, {x.value, y.value});
       }},
      {"tl.fdiv", {R("x"), R("y"), O("ieee_rounding", False()), O("approx", False())},
       [](CodeGen& cg, BoundArgs& a) {
         return cg.fdiv(a[0], a[1], cg.constBool(a[2], "ieee_rounding"), cg.constBool(a[3], "approx"));
       }},
      {"tl.abs", {R("x")}, [](CodeGen& cg, BoundArgs& a) {
         Val x = cg.tensorArg(a[0], "tl.abs");
         if (x.dtype.isFloat()) return cg.make(OpCode::AbsF, x.dtype, x.shape, {x.value});
         if (x.dtype.isSigned()) return cg.make(OpCode::AbsI, x.dtype, x.shape, {x.value});
         if (x.dtype.isInt()) return x;
         cg.fail("tl.abs: unsupported dtype " + x.dtype.name());
       }},
      {"tl.fma", {R("x"), R("y"), R("z")}, [](CodeGen& cg, BoundArgs& a) { return cg.fma(a[0], a[1], a[2]); }},
      {"tl.umulhi", {R("x"), R("y")}, [](CodeGen& cg, BoundArgs& a) { return cg.umulhi(a[0], a[1]); }},
      // ---- linear algebra and reductions ----
      {"tl.dot", {R("input"), R("other"), O("acc", None()), O("input_precision", None()), O("allow_tf32", None()),
                  O("max_num_imprecise_acc", None()), O("out_dtype", Val::dtypeOf(ScalarKind::FP32))},
       [](CodeGen& cg, BoundArgs& a) { return cg.dot(a[0], a[1], a[2], a[3], a[4], a[5], a[6]); }},
      {"tl.reduce", {R("input"), R("axis"), R("combine_fn"), O("keep_dims", False())},
       [](CodeGen& cg, BoundArgs& a) { return cg.reduce(a[0], a[1], a[2], cg.constBool(a[3], "keep_dims")); }},
      {"tl.associative_scan", {R("input"), R("axis"), R("combine_fn"), O("reverse", False())},
       [](CodeGen& cg, BoundArgs& a) { return cg.scan(a[0], a[1], a[2], cg.constBool(a[3], "reverse")); }},
      // ---- shapes ----
      {"tl.reshape", {R("input"), P{"*shape", std::nullopt}, O("can_reorder", False())},
       [](CodeGen& cg, BoundArgs& a) {
         return cg.reshape(a[0], shapeArgs(cg, a.rest, "shape"), cg.constBool(a[2], "can_reorder"));
       }},
      {"tl.view", {R("input"), P{"*shape", std::nullopt}},
       [](CodeGen& cg, BoundArgs& a) { return cg.reshape(a[0], shapeArgs(cg, a.rest, "shape"), true); }},
      {"tl.trans", {R("input"), P{"*dims", std::nullopt}}, [](CodeGen& cg, BoundArgs& a) {
         Val x = cg.tensorArg(a[0], "tl.trans");
         auto dims = shapeArgs(cg, a.rest, "dims");
         if (dims.empty()) {
           if (x.shape.size() < 2) cg.fail("tl.trans: expected a tensor of rank >= 2, got shape " + shapeToString(x.shape));
           for (size_t k = 0; k < x.shape.size(); ++k) dims.push_back(static_cast<int64_t>(k));
           std::swap(dims[dims.size() - 1], dims[dims.size() - 2]);
         }
         return cg.permute(x, dims);
       }},
      {"tl.permute", {R("input"), P{"*dims", std::nullopt}}, [](CodeGen& cg, BoundArgs& a) {
         return cg.permute(cg.tensorArg(a[0], "tl.permute"), shapeArgs(cg, a.rest, "dims"));
       }},
      {"tl.expand_dims", {R("input"), R("axis")}, [](CodeGen& cg, BoundArgs& a) {
         Val x = cg.tensorArg(a[0], "tl.expand_dims");
         auto axes = cg.constIntList(a[1], "axis");
         int64_t newRank = static_cast<int64_t>(x.shape.size() + axes.size());
         std::vector<int64_t> norm;
         for (int64_t ax : axes) {
           int64_t n = cg.normAxis(ax, newRank, "tl.expand_dims");
           if (std::find(norm.begin(), norm.end(), n) != norm.end()) cg.fail("tl.expand_dims: repeated axis " + std::to_string(ax));
           norm.push_back(n);
         }
         std::sort(norm.begin(), norm.end());
         for (int64_t ax : norm) x = cg.expandDims(x, ax);
         return x;
       }},
      {"tl.broadcast", {R("input"), R("other")}, [](CodeGen& cg, BoundArgs& a) {
         auto [x, y] = cg.broadcastPair(cg.tensorArg(a[0], "tl.broadcast"), cg.tensorArg(a[1], "tl.broadcast"));
         return Val::tuple({x, y});
       }},
      {"tl.broadcast_to", {R("input"), P{"*shape", std::nullopt}}, [](CodeGen& cg, BoundArgs& a) {
         Val x = cg.tensorArg(a[0], "tl.broadcast_to");
         auto shape = shapeArgs(cg, a.rest, "shape");
         cg.checkShape(shape, "tl.broadcast_to");
         if (x.isBlock() && x.shape.size() != shape.size())
           cg.fail("tl.broadcast_to: cannot broadcast shape " + shapeToString(x.shape) + " to " + shapeToString(shape) + " (ranks differ)");
         return cg.broadcastTo(x, shape);
       }},
      {"tl.cat", {R("input"), R("other"), O("can_reorder", False()), O("dim", Val::integer(BigInt(0)))},
       [](CodeGen& cg, BoundArgs& a) {
         if (cg.constBool(a[2], "can_reorder")) return cg.cat(a[0], a[1]);
         // In order along `dim` (Triton 3.9): the other dims broadcast, the
         // two joined on a new minor dim, that dim moved just before `dim`
         // and merged with it: [x; y] along dim.
         Val x = cg.tensorArg(a[0], "tl.cat"), y = cg.tensorArg(a[1], "tl.cat");
         size_t rank = x.shape.size();
         if (rank == 0 || y.shape.size() != rank)
           cg.fail("tl.cat: the inputs must be tensors of the same rank, got " + x.typeName() + " and " + y.typeName());
         int64_t dim = cg.constInt(a[3], "dim");
         if (dim < 0) dim += static_cast<int64_t>(rank);
         if (dim < 0 || dim >= static_cast<int64_t>(rank))
           cg.fail("tl.cat: dim " + std::to_string(cg.constInt(a[3], "dim")) + " is out of range for rank " +
                   std::to_string(rank));
         if (x.shape[dim] != y.shape[dim])
           cg.fail("tl.cat: the inputs must have the same length along dim " + std::to_string(dim) + ", got " +
                   std::to_string(x.shape[dim]) + " and " + std::to_string(y.shape[dim]));
         Val joined = cg.join(x, y);  // broadcasts the other dims
         std::vector<int64_t> order, shape(joined.shape.begin(), joined.shape.end() - 1);
         for (int64_t d = 0; d < static_cast<int64_t>(rank); ++d) {
           if (d == dim) order.push_back(static_cast<int64_t>(rank));
           order.push_back(d);
         }
         shape[dim] *= 2;
         return cg.reshape(cg.permute(joined, order), shape, false);
       }},
      {"tl.join", {R("a"), R("b")}, [](CodeGen& cg, BoundArgs& a) { return cg.join(a[0], a[1]); }},
      {"tl.split", {R("a")}, [](CodeGen& cg, BoundArgs& a) {
         auto [x, y] = cg.split(a[0]);
         return Val::tuple({x, y});
       }},
      {"tl.histogram", {R("input"), R("num_bins"), O("mask", None())}, [](CodeGen& cg, BoundArgs& a) {
         Val x = cg.tensorArg(a[0], "tl.histogram");
         if (x.shape.size() != 1 || !x.dtype.isInt()) cg.fail("tl.histogram: expected a 1-D integer tensor, got " + x.typeName());
         // tt.histogram reads integers as signed: narrow unsigned values
         // (uint8 200) are widened first. A uint32 or uint64 read as
         // negative is at least 2^31, past any bin, as it should be.
         if (x.dtype.isUnsigned() && !x.dtype.isInt1() && x.dtype.bitwidth() < 32) x = cg.cast(x, ScalarKind::I32);
         int64_t bins = cg.constInt(a[1], "num_bins");
         cg.checkShape({bins}, "tl.histogram");
         std::vector<ir::Value> ops = {x.value};
         if (!a[2].isNone()) {
           Val m = cg.tensorArg(a[2], "mask");
           if (!m.dtype.isInt1()) cg.fail("tl.histogram: mask must be a boolean tensor");
           ops.push_back(cg.broadcastTo(m, x.shape).value);
         }
         return cg.make(OpCode::Histogram, ScalarKind::I32, {bins}, ops);
       }},
      {"tl.gather", {R("src"), R("index"), R("axis")}, [](CodeGen& cg, BoundArgs& a) {
         Val src = cg.tensorArg(a[0], "tl.gather"), idx = cg.tensorArg(a[1], "tl.gather");
         if (src.shape.size() != idx.shape.size() || !src.isBlock())
           cg.fail("tl.gather: src and index must have the same rank, got " + shapeToString(src.shape) + " and " + shapeToString(idx.shape));
         if (!idx.dtype.isInt()) cg.fail("tl.gather: index must be an integer tensor, got " + idx.dtype.name());
         int64_t axis = cg.normAxis(cg.constInt(a[2], "axis"), static_cast<int64_t>(src.shape.size()), "tl.gather");
         for (size_t d = 0; d < src.shape.size(); ++d)
           if (static_cast<int64_t>(d) != axis && src.shape[d] != idx.shape[d])
             cg.fail("tl.gather: index dimension " + std::to_string(d) + " (" + std::to_string(idx.shape[d]) +
                     ") must match the source (" + std::to_string(src.shape[d]) + ")");
         return cg.make(OpCode::Gather, src.dtype, idx.shape, {src.value, idx.value}, {{"axis", axis}});
       }},
      {"tl.sort", {R("x"), O("dim", None()), O("descending", Val::integer(BigInt(0)))}, [](CodeGen& cg, BoundArgs& a) {
         Val x = cg.tensorArg(a[0], "tl.sort");
         if (!x.isBlock()) cg.fail("tl.sort: expected a tensor, got a scalar");
         int64_t rank = static_cast<int64_t>(x.shape.size());
         int64_t dim = a[1].isNone() ? rank - 1 : cg.normAxis(cg.constInt(a[1], "dim"), rank, "tl.sort");
         if (dim != rank - 1) cg.fail("tl.sort: only sorting along the last dimension is supported");
         ir::AttrMap attrs;
         attrs["descending"] = a[2].truthy();
         // tt.sort orders integers as signed; unsigned ones are sorted with
         // their top bit flipped (an order-preserving map onto the signed
         // range) and flipped back.
         if (!x.dtype.isUnsigned() || x.dtype.isInt1())
           return cg.make(OpCode::Sort, x.dtype, x.shape, {x.value}, std::move(attrs));
         Val top = cg.constantInt(x.dtype, static_cast<int64_t>(uint64_t{1} << (x.dtype.bitwidth() - 1)), x.shape);
         Val key = cg.elementwise(OpCode::XOrI, x, top);
         Val sorted = cg.make(OpCode::Sort, x.dtype, x.shape, {key.value}, std::move(attrs));
         return cg.elementwise(OpCode::XOrI, sorted, top);
       }},
      {"tl.flip", {R("x"), O("dim", None())}, [](CodeGen& cg, BoundArgs& a) {
         Val x = cg.tensorArg(a[0], "tl.flip");
         if (!x.isBlock()) cg.fail("tl.flip: expected a tensor, got a scalar");
         int64_t rank = static_cast<int64_t>(x.shape.size());
         int64_t dim = a[1].isNone() ? rank - 1 : cg.normAxis(cg.constInt(a[1], "dim"), rank, "tl.flip");
         return cg.make(OpCode::Flip, x.dtype, x.shape, {x.value}, {{"dim", dim}});
       }},
      // ---- hints and debugging ----
      {"tl.multiple_of", {R("input"), R("values")}, [](CodeGen& cg, BoundArgs& a) { return hint(cg, a, "divisibility", "tl.multiple_of"); }},
      {"tl.max_contiguous", {R("input"), R("values")}, [](CodeGen& cg, BoundArgs& a) { return hint(cg, a, "contiguity", "tl.max_contiguous"); }},
      {"tl.max_constancy", {R("input"), R("values")}, [](CodeGen& cg, BoundArgs& a) { return hint(cg, a, "constancy", "tl.max_constancy"); }},
      {"tl.assume", {R("cond")}, [](CodeGen& cg, BoundArgs& a) {
         Val c = a[0];
         if (c.isConstexpr()) return Val::none();
         c = cg.condition(c);
         cg.builder().create(OpCode::Assume, {}, {c.value});
         return Val::none();
       }},
      // A while loop's condition with the loop's attributes (CodeGenStmt's
      // whileStmt reads disable_licm); elsewhere, the condition itself.
      {"tl.condition", {R("arg1"), O("disable_licm", False())}, [](CodeGen& cg, BoundArgs& a) {
         cg.constBool(a[1], "disable_licm");
         return a[0];
       }},
      {"tl.debug_barrier", {}, [](CodeGen& cg, BoundArgs&) {
         cg.builder().create(OpCode::DebugBarrier, {}, {});
         return Val::none();
       }},
      {"tl.static_print", {P{"*values", std::nullopt}, O("sep", Str(" ")), O("end", Str("\n")), O("file", None()), O("flush", False())},
       [](CodeGen& cg, BoundArgs& a) {
         std::string out;
         for (size_t k = 0; k < a.rest.size(); ++k) {
           if (k) out += cg.constStr(a[1], "sep");
           out += a.rest[k].kind == Val::Kind::Str ? a.rest[k].s : a.rest[k].repr();
         }
         std::cout << out << cg.constStr(a[2], "end") << std::flush;
         return Val::none();
       }},
      {"tl.static_assert", {R("cond"), O("msg", Str(""))}, [](CodeGen& cg, BoundArgs& a) {
         if (!a[0].isConstexpr()) cg.fail("tl.static_assert: the condition must be a constexpr, got " + a[0].typeName());
         if (!a[0].truthy()) {
           std::string msg = a[1].kind == Val::Kind::Str ? a[1].s : a[1].repr();
           cg.fail("static_assert failed" + (msg.empty() ? std::string() : ": " + msg));
         }
         return Val::none();
       }},
      {"tl.device_print", {R("prefix"), P{"*args", std::nullopt}, O("hex", False())}, [](CodeGen& cg, BoundArgs& a) {
         if (a[0].kind != Val::Kind::Str) cg.fail("tl.device_print: the prefix must be a constexpr string, got " + a[0].typeName());
         return devicePrint(cg, a[0].s, a.rest, cg.constBool(a[2], "hex"));
       }},
      {"tl.device_assert", {R("cond"), O("msg", Str("")), O("mask", None())}, [](CodeGen& cg, BoundArgs& a) {
         if (!cg.debugEnabled()) return Val::none();
         Val c = cg.tensorArg(a[0], "tl.device_assert condition");
         if (!a[2].isNone()) c = cg.logicalAndOr(false, c, cg.logicalNot(a[2]));
         emitDeviceAssert(cg, c, a[1].kind == Val::Kind::Str ? a[1].s : a[1].repr(), *cg.current());
         return Val::none();
       }},
      {"tl.map_elementwise", {R("scalar_fn"), P{"*args", std::nullopt}, O("pack", Val::integer(BigInt(1)))},
       [](CodeGen& cg, BoundArgs& a) { return cg.mapElementwise(a[0], a.rest, a[2]); }},
      {"tl.inline_asm_elementwise", {R("asm"), R("constraints"), R("args"), R("dtype"), R("is_pure"), R("pack")},
       [](CodeGen& cg, BoundArgs& a) {
         std::vector<Val> args = a[2].isTuple() ? a[2].elems : std::vector<Val>{a[2]};
         // Inputs constrained "n" or "i" are immediates (lop3's LUT): their
         // constexpr values go into the asm text instead of registers.
         std::string constraints = cg.constStr(a[1], "constraints");
         std::vector<std::string> inputConstraints;
         for (size_t at = 0; at <= constraints.size();) {
           size_t comma = std::min(constraints.find(',', at), constraints.size());
           std::string c = constraints.substr(at, comma - at);
           if (c.empty() || c[0] != '=') inputConstraints.push_back(c);
           at = comma + 1;
         }
         std::string immediates;
         for (size_t k = 0; k < args.size() && k < inputConstraints.size(); ++k) {
           if (inputConstraints[k] != "n" && inputConstraints[k] != "i") continue;
           if (args[k].kind != Val::Kind::Int && args[k].kind != Val::Kind::Bool)
             cg.fail("tl.inline_asm_elementwise: argument " + std::to_string(k) + " has the immediate constraint '" +
                     inputConstraints[k] + "' but is " + args[k].typeName() + "; it must be a constexpr int");
           immediates += (immediates.empty() ? "" : ",") + std::to_string(k) + "=" +
                         (args[k].kind == Val::Kind::Bool ? std::string(args[k].b ? "1" : "0") : args[k].i.toString());
         }
         std::vector<int64_t> shape;
         for (auto& x : args) {
           x = cg.tensorArg(x, "inline_asm_elementwise argument");
           if (x.isBlock()) shape = shape.empty() ? x.shape : cg.broadcastShapes(shape, x.shape);
         }
         std::vector<ir::Value> ops;
         for (auto& x : args) ops.push_back(cg.broadcastTo(x, shape).value);
         std::vector<DType> outs;
         if (a[3].isTuple()) for (const auto& d : a[3].elems) outs.push_back(cg.asDType(d, "dtype"));
         else outs.push_back(cg.asDType(a[3], "dtype"));
         if (outs.empty()) cg.fail("tl.inline_asm_elementwise: at least one output dtype is required");
         std::vector<ir::Type> types;
         for (const auto& d : outs) types.push_back(cg.irType(d, shape));
         ir::AttrMap attrs;
         attrs["asm"] = cg.constStr(a[0], "asm");
         attrs["constraints"] = constraints;
         if (!immediates.empty()) attrs["immediates"] = immediates;
         attrs["pure"] = cg.constBool(a[4], "is_pure");
         attrs["pack"] = cg.constInt(a[5], "pack");
         ir::Operation* op = cg.builder().create(OpCode::InlineAsm, types, ops, std::move(attrs));
         std::vector<Val> res;
         for (size_t k = 0; k < outs.size(); ++k) res.push_back(Val::tensor(op->result(static_cast<unsigned>(k)), outs[k], shape));
         return a[3].isTuple() ? Val::tuple(res) : res[0];
       }},
      // ---- types and special objects ----
      {"tl.constexpr", {R("value")}, [](CodeGen& cg, BoundArgs& a) {
         if (!a[0].isConstexpr()) cg.fail("tl.constexpr: the value must be known at compile time, got " + a[0].typeName());
         return a[0];
       }},
      {"tl.pointer_type", {R("element_ty"), O("address_space", Val::integer(BigInt(1))), O("const", False())},
       [](CodeGen& cg, BoundArgs& a) {
         return Val::dtypeOf(DType::pointer(cg.asDType(a[0], "element_ty"), cg.constBool(a[2], "const"),
                                            static_cast<int>(cg.constInt(a[1], "address_space"))));
       }},
      {"tl.dtype", {R("name")}, [](CodeGen& cg, BoundArgs& a) { return Val::dtypeOf(cg.asDType(a[0], "tl.dtype")); }},
      {"tl.tensor", {}, [](CodeGen& cg, BoundArgs&) -> Val { cg.fail("tl.tensor cannot be constructed in a kernel"); }},
      {"tl.tensor_descriptor", {}, [](CodeGen& cg, BoundArgs&) -> Val {
         cg.fail("tl.tensor_descriptor cannot be constructed in a kernel; use tl.make_tensor_descriptor");
       }},
      {"tl.tensor_descriptor_base", {}, [](CodeGen& cg, BoundArgs&) -> Val {
         cg.fail("tl.tensor_descriptor_base cannot be constructed in a kernel; use tl.make_tensor_descriptor");
       }},
      {"tl.tuple", {O("args", Val::tuple({}))}, [](CodeGen& cg, BoundArgs& a) {
         if (!a[0].isTuple()) cg.fail("tl.tuple: expected a tuple or list");
         return a[0];
       }},
      {"tl.range", {R("arg1"), O("arg2", None()), O("step", None()), O("num_stages", None()), O("loop_unroll_factor", None()),
                    O("disallow_acc_multi_buffer", False()), O("flatten", False()), O("warp_specialize", None()),
                    O("disable_licm", False())},
       [](CodeGen& cg, BoundArgs&) -> Val { cg.fail("tl.range can only be used as the iterator of a for loop"); }},
      {"tl.static_range", {R("arg1"), O("arg2", None()), O("step", None())},
       [](CodeGen& cg, BoundArgs&) -> Val { cg.fail("tl.static_range can only be used as the iterator of a for loop"); }},
      // ---- dtype methods ----
      DTYPE_PRED(is_floating, t.isFloat()), DTYPE_PRED(is_int, t.isInt()), DTYPE_PRED(is_int_signed, t.isSigned()),
      DTYPE_PRED(is_int_unsigned, t.isUnsigned()), DTYPE_PRED(is_bool, t.isInt1()), DTYPE_PRED(is_int1, t.isInt1()),
      DTYPE_PRED(is_fp8, t.isFP8()), DTYPE_PRED(is_fp16, t.isFP16()), DTYPE_PRED(is_bf16, t.isBF16()),
      DTYPE_PRED(is_fp32, t.isFP32()), DTYPE_PRED(is_fp64, t.isFP64()), DTYPE_PRED(is_ptr, t.isPtr()),
      DTYPE_PRED(is_block, false), DTYPE_PRED(is_const, t.isConstPtr()),
      DTYPE_PRED(is_standard_floating, t.isFP16() || t.isBF16() || t.isFP32() || t.isFP64()),
      DTYPE_PRED(is_int8, t.kind() == ScalarKind::I8), DTYPE_PRED(is_int16, t.kind() == ScalarKind::I16),
      DTYPE_PRED(is_int32, t.kind() == ScalarKind::I32), DTYPE_PRED(is_int64, t.kind() == ScalarKind::I64),
      DTYPE_PRED(is_uint8, t.kind() == ScalarKind::U8), DTYPE_PRED(is_uint16, t.kind() == ScalarKind::U16),
      DTYPE_PRED(is_uint32, t.kind() == ScalarKind::U32), DTYPE_PRED(is_uint64, t.kind() == ScalarKind::U64),
      // ---- triton host helpers usable in kernels ----
      {"triton.cdiv", {R("x"), R("y")}, [](CodeGen& cg, BoundArgs& a) {
         Val s = cg.binary(py::BinOpKind::Sub, cg.binary(py::BinOpKind::Add, a[0], a[1]), Val::integer(BigInt(1)));
         return cg.binary(py::BinOpKind::FloorDiv, s, a[1]);
       }},
      // triton.language.standard's private constexpr helpers, which real
      // code imports for its own bitonic sorts: _log2 (floor(log2(i)), 0
      // for i <= 1) and _is_power_of_two.
      {"tl._log2", {R("i")}, [](CodeGen& cg, BoundArgs& a) {
         int64_t n = cg.constInt(a[0], "_log2 argument");
         int64_t log2 = 0;
         for (; n > 1; n >>= 1) ++log2;
         return Val::integer(BigInt(log2));
       }},
      // triton.language.core.get_int_dtype, a constexpr_function kernels call
      // (Triton's own bitonic sort helpers do, through `core.`).
      {"tl.get_int_dtype", {R("bitwidth"), R("signed")}, [](CodeGen& cg, BoundArgs& a) {
         int64_t bits = cg.constInt(a[0], "get_int_dtype bitwidth");
         bool isSigned = cg.constBool(a[1], "get_int_dtype signed");
         if (bits == 1) return Val::dtypeOf(ScalarKind::I1);
         const ScalarKind signedKinds[] = {ScalarKind::I8, ScalarKind::I16, ScalarKind::I32, ScalarKind::I64};
         const ScalarKind unsignedKinds[] = {ScalarKind::U8, ScalarKind::U16, ScalarKind::U32, ScalarKind::U64};
         for (int k = 0; k < 4; ++k)
           if (bits == (int64_t{8} << k)) return Val::dtypeOf(isSigned ? signedKinds[k] : unsignedKinds[k]);
         cg.fail("get_int_dtype: Unsupported bitwidth " + std::to_string(bits) + " and signedness " +
                 (isSigned ? "True" : "False"));
       }},
      {"tl._is_power_of_two", {R("i")}, [](CodeGen& cg, BoundArgs& a) {
         int64_t n = cg.constInt(a[0], "_is_power_of_two argument");
         return Val::boolean(n != 0 && (n & (n - 1)) == 0);
       }},
      {"triton.next_power_of_2", {R("n")}, [](CodeGen& cg, BoundArgs& a) {
         int64_t n = cg.constInt(a[0], "next_power_of_2 argument");
         int64_t p = 1;
         while (p < n && p < (int64_t{1} << 62)) p <<= 1;
         return Val::integer(BigInt(p));
       }},
      // ---- Python builtins ----
      {"py.len", {R("obj")}, [](CodeGen& cg, BoundArgs& a) {
         const Val& v = a[0];
         if (v.isTuple()) return Val::integer(BigInt(static_cast<int64_t>(v.elems.size())));
         if (v.kind == Val::Kind::Str) return Val::integer(BigInt(static_cast<int64_t>(v.s.size())));
         if (v.kind == Val::Kind::Dict) return Val::integer(BigInt(static_cast<int64_t>(v.keys.size())));
         if (v.isBlock()) return Val::integer(BigInt(v.shape[0]));
         cg.fail("object of type " + v.typeName() + " has no len()");
       }},
      {"py.min", {P{"*args", std::nullopt}}, [](CodeGen& cg, BoundArgs& a) { return minMaxBuiltin(cg, a, false); }},
      {"py.max", {P{"*args", std::nullopt}}, [](CodeGen& cg, BoundArgs& a) { return minMaxBuiltin(cg, a, true); }},
      {"py.float", {O("x", Val::flt(0))}, [](CodeGen& cg, BoundArgs& a) {
         const Val& v = a[0];
         if (v.kind == Val::Kind::Float) return v;
         if (v.kind == Val::Kind::Int) return Val::flt(v.i.toDouble());
         if (v.kind == Val::Kind::Bool) return Val::flt(v.b ? 1.0 : 0.0);
         if (v.kind == Val::Kind::Str) {
           std::string s;
           for (char c : v.s) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
           if (s == "inf" || s == "+inf" || s == "infinity") return Val::flt(INFINITY);
           if (s == "-inf" || s == "-infinity") return Val::flt(-INFINITY);
           if (s == "nan" || s == "+nan" || s == "-nan") return Val::flt(NAN);
           char* end = nullptr;
           double d = std::strtod(v.s.c_str(), &end);
           if (end && *end == 0 && !v.s.empty()) return Val::flt(d);
           cg.fail("could not convert string to float: '" + v.s + "'");
         }
         cg.fail("float() of a runtime value is not supported; use x.to(tl.float32)");
       }},
      {"py.int", {O("x", Val::integer(BigInt(0)))}, [](CodeGen& cg, BoundArgs& a) {
         const Val& v = a[0];
         if (v.kind == Val::Kind::Int) return v;
         if (v.kind == Val::Kind::Bool) return Val::integer(BigInt(v.b ? 1 : 0));
         if (v.kind == Val::Kind::Float) {
           auto r = BigInt::fromDouble(v.f);
           if (!r) cg.fail("cannot convert float " + v.repr() + " to integer");
           return Val::integer(*r);
         }
         if (v.kind == Val::Kind::Str) {
           auto r = BigInt::fromDecimal(v.s);
           if (!r && v.s.find_first_not_of("+-0123456789_") == std::string::npos && v.s.size() > 1000)
             cg.fail("int(): integer too large (more than " + std::to_string(BigInt::kMaxBits) + " bits)");
           if (!r) cg.fail("invalid literal for int(): '" + v.s + "'");
           return Val::integer(*r);
         }
         cg.fail("int() of a runtime value is not supported; use x.to(tl.int32)");
       }},
      {"py.bool", {O("x", False())}, [](CodeGen& cg, BoundArgs& a) {
         if (!a[0].isConstexpr()) cg.fail("bool() of a runtime value is not supported");
         return Val::boolean(a[0].truthy());
       }},
      {"py.str", {O("x", Str(""))}, [](CodeGen&, BoundArgs& a) {
         return Val::str(a[0].kind == Val::Kind::Str ? a[0].s : a[0].repr());
       }},
      {"py.isinstance", {R("obj"), R("cls")}, [](CodeGen&, BoundArgs& a) { return Val::boolean(isInstance(a[0], a[1])); }},
      {"py.getattr", {R("obj"), R("name"), O("default", Val::opaque("<no default>"))}, [](CodeGen& cg, BoundArgs& a) {
         std::string name = cg.constStr(a[1], "getattr name");
         if (a.given[2]) {
           try {
             return cg.getAttr(a[0], name, *cg.current());
           } catch (const Error&) {
             return a[2];
           }
         }
         return cg.getAttr(a[0], name, *cg.current());
       }},
      {"py.hasattr", {R("obj"), R("name")}, [](CodeGen& cg, BoundArgs& a) {
         try {
           cg.getAttr(a[0], cg.constStr(a[1], "hasattr name"), *cg.current());
           return Val::boolean(true);
         } catch (const Error&) {
           return Val::boolean(false);
         }
       }},
      {"py.list", {O("x", Val::tuple({}))}, [](CodeGen& cg, BoundArgs& a) {
         if (!a[0].isTuple()) cg.fail("list() expects a tuple or list");
         return a[0];
       }},
      {"py.tuple", {O("x", Val::tuple({}))}, [](CodeGen& cg, BoundArgs& a) {
         if (!a[0].isTuple()) cg.fail("tuple() expects a tuple or list");
         return a[0];
       }},
      {"py.abs", {R("x")}, [](CodeGen& cg, BoundArgs& a) {
         const Val& v = a[0];
         if (v.kind == Val::Kind::Int) return Val::integer(v.i.isNegative() ? -v.i : v.i);
         if (v.kind == Val::Kind::Float) return Val::flt(std::fabs(v.f));
         if (v.kind == Val::Kind::Bool) return Val::integer(BigInt(v.b ? 1 : 0));
         return cg.call(Val::builtin("tl.abs"), {v}, {});
       }},
      {"py.round", {R("x")}, [](CodeGen& cg, BoundArgs& a) {
         if (a[0].kind == Val::Kind::Int) return a[0];
         if (a[0].kind != Val::Kind::Float) cg.fail("round() expects a constexpr number");
         auto r = BigInt::fromDouble(std::nearbyint(a[0].f));
         if (!r) cg.fail("cannot round " + a[0].repr());
         return Val::integer(*r);
       }},
      {"py.print", {P{"*args", std::nullopt}, O("sep", Str(" ")), O("end", Str("\n")), O("hex", False())},
       [](CodeGen& cg, BoundArgs& a) {
         std::vector<Val> args = a.rest;
         std::string prefix;
         if (!args.empty() && args[0].kind == Val::Kind::Str) {
           prefix = args[0].s;
           args.erase(args.begin());
         }
         return devicePrint(cg, prefix, args, cg.constBool(a[3], "hex"));
       }},
  };
  registerLibdevice(t);
  registerCudaExtras(t);
  return t;
}

}  // namespace

const Builtin* findBuiltin(const std::string& qualifiedName) {
  static const std::vector<Builtin> table = makeTable();
  static const std::unordered_map<std::string, const Builtin*> index = [] {
    std::unordered_map<std::string, const Builtin*> m;
    for (const auto& b : table) m.emplace(b.name, &b);
    return m;
  }();
  auto it = index.find(qualifiedName);
  return it == index.end() ? nullptr : it->second;
}

}  // namespace tessera::frontend
