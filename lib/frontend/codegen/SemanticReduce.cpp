//===- SemanticReduce.cpp - tl.dot, tl.reduce, tl.associative_scan --------===//
//
// dot: operand dtype/shape rules and the result dtype (int8 -> int32,
// fp32/bf16 -> fp32, fp64 -> fp64, fp16/fp8 -> out_dtype). reduce/scan build
// tt.reduce/tt.scan whose combine region is the combine_fn body generated on
// scalar block arguments.
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

namespace tessera::frontend {

using ir::OpCode;

Val CodeGen::dot(const Val& a0, const Val& b0, const Val& acc0, const Val& inputPrecision, const Val& allowTf32,
                 const Val& maxImprecise, const Val& outDtype0) {
  Val a = tensorArg(a0, "tl.dot input"), b = tensorArg(b0, "tl.dot other");
  size_t rank = a.shape.size();
  if ((rank != 2 && rank != 3) || b.shape.size() != rank)
    fail("tl.dot: both operands must be 2-D (or 3-D batched) blocks with the same rank, got shapes " +
         shapeToString(a.shape) + " and " + shapeToString(b.shape));
  int64_t M = a.shape[rank - 2], K = a.shape[rank - 1], K2 = b.shape[rank - 2], N = b.shape[rank - 1];
  if (K != K2)
    fail("tl.dot: incompatible shapes " + shapeToString(a.shape) + " and " + shapeToString(b.shape) +
         " (inner dimensions " + std::to_string(K) + " and " + std::to_string(K2) + " differ)");
  if (rank == 3 && a.shape[0] != b.shape[0])
    fail("tl.dot: batch dimensions differ: " + std::to_string(a.shape[0]) + " and " + std::to_string(b.shape[0]));
  const DType& ta = a.dtype;
  if (!(ta == b.dtype || (ta.isFP8() && b.dtype.isFP8())))
    fail("tl.dot: both operands must have the same dtype, got " + ta.name() + " and " + b.dtype.name());
  bool okType = ta.kind() == ScalarKind::I8 || ta.kind() == ScalarKind::U8 || ta.isFP16() || ta.isBF16() ||
                ta.isFP32() || ta.isFP64() || ta.isFP8();
  if (!okType) fail("tl.dot: unsupported operand dtype " + ta.name());
  // Triton's NVIDIA minimum (min_dot_size): any M and N (a matrix-vector
  // product has N = 1; the GPU backend computes dots too small for the
  // tensor cores with FMAs), K of 16 elements, 32 for 8-bit operands.
  int64_t minK = ta.bitwidth() == 8 ? 32 : 16;
  if (M < 1 || N < 1 || K < minK)
    fail("tl.dot: input shapes should have M >= 1, N >= 1 and K >= " + std::to_string(minK) + ", got M=" +
         std::to_string(M) + ", N=" + std::to_string(N) + ", K=" + std::to_string(K));
  DType outDtype = outDtype0.isNone() ? DType(ScalarKind::FP32) : asDType(outDtype0, "tl.dot out_dtype");
  DType ret;
  if (ta.isInt()) ret = ScalarKind::I32;
  else if (outDtype.isBF16())
    fail("tl.dot: out_dtype=bfloat16 is unsupported; use out_dtype=float32 or float16 and cast with .to(tl.bfloat16)");
  else if (ta.isFP32() || ta.isBF16()) ret = ScalarKind::FP32;
  else if (ta.isFP64()) ret = ScalarKind::FP64;
  else {
    if (!outDtype.isFP32() && !outDtype.isFP16()) fail("tl.dot: out_dtype must be float32 or float16, got " + outDtype.name());
    ret = outDtype;
  }
  std::vector<int64_t> shape = a.shape;
  shape[rank - 1] = N;
  checkShape(shape, "tl.dot");  // M x N may exceed the limit that M x K and K x N meet
  Val acc;
  if (acc0.isNone()) {
    acc = constantInt(ret, 0, shape);
  } else {
    acc = tensorArg(acc0, "tl.dot acc");
    if (acc.shape != shape)
      fail("tl.dot: accumulator has shape " + shapeToString(acc.shape) + " but the result has shape " + shapeToString(shape));
    if (acc.dtype != ret)
      fail("tl.dot: accumulator has dtype " + acc.dtype.name() + " but the result dtype is " + ret.name());
  }
  std::string precision;
  if (!inputPrecision.isNone()) {
    if (!allowTf32.isNone()) fail("tl.dot: input_precision and allow_tf32 are mutually exclusive");
    precision = constStr(inputPrecision, "input_precision");
  } else if (!allowTf32.isNone()) {
    precision = constBool(allowTf32, "allow_tf32") ? "tf32" : "ieee";
  } else {
    precision = "tf32";
  }
  if (precision != "tf32" && precision != "tf32x3" && precision != "ieee" && precision != "bf16x3" &&
      precision != "bf16x6")
    fail("tl.dot: input_precision must be one of 'tf32', 'tf32x3', 'ieee', 'bf16x3', 'bf16x6', got '" + precision + "'");
  if (!ta.isFP32()) precision = "ieee";
  ir::AttrMap attrs;
  attrs["input_precision"] = precision;
  attrs["max_num_imprecise_acc"] = maxImprecise.isNone() ? int64_t{0} : constInt(maxImprecise, "max_num_imprecise_acc");
  return make(OpCode::Dot, ret, shape, {a.value, b.value, acc.value}, std::move(attrs));
}

namespace {

struct ReduceInputs {
  std::vector<Val> tensors;
  bool isTuple = false;
};

ReduceInputs reduceInputs(CodeGen& cg, const Val& input, const char* fn) {
  ReduceInputs r;
  r.isTuple = input.isTuple();
  std::vector<Val> in = r.isTuple ? input.elems : std::vector<Val>{input};
  if (in.empty()) cg.fail(std::string(fn) + ": no input tensors");
  for (const auto& x : in) {
    Val t = cg.tensorArg(x, "input");
    if (!t.isBlock()) cg.fail(std::string(fn) + ": expected a tensor, got a scalar " + t.typeName());
    if (t.shape != in[0].shape && x.isTensor() && in[0].isTensor())
      cg.fail(std::string(fn) + ": all inputs must have the same shape");
    r.tensors.push_back(t);
  }
  return r;
}

/// Builds the combine region and checks the combine_fn's results.
void buildCombine(CodeGen& cg, ir::Operation* op, const std::vector<Val>& inputs, const Val& combineFn,
                  OpCode returnOp, const char* fn) {
  ir::Block* body = op->region(0).addBlock();
  std::vector<Val> args;
  for (int pass = 0; pass < 2; ++pass)
    for (const auto& t : inputs)
      args.push_back(Val::tensor(body->addArgument(cg.irType(t.dtype, {})), t.dtype, {}));
  ir::OpBuilder::InsertionGuard g(cg.builder());
  cg.builder().setInsertionPointToEnd(body);
  std::vector<Val> results = cg.inlineCombine(combineFn, args);
  if (results.size() != inputs.size())
    cg.fail(std::string(fn) + ": combine_fn must return " + std::to_string(inputs.size()) + " value" +
            (inputs.size() == 1 ? "" : "s") + ", got " + std::to_string(results.size()));
  std::vector<ir::Value> values;
  for (size_t k = 0; k < results.size(); ++k) {
    Val r = results[k];
    if (r.isNumber()) r = cg.constant(inputs[k].dtype, {}, r);
    if (!r.isTensor() || r.isBlock())
      cg.fail(std::string(fn) + ": combine_fn must return scalars, got " + r.typeName());
    if (r.dtype != inputs[k].dtype) r = cg.cast(r, inputs[k].dtype);
    values.push_back(r.value);
  }
  cg.builder().create(returnOp, {}, values);
}

}  // namespace

Val CodeGen::reduce(const Val& input, const Val& axisV, const Val& combineFn, bool keepDims) {
  const char* fn = "tl.reduce";
  ReduceInputs in = reduceInputs(*this, input, fn);
  int64_t axis;
  if (axisV.isNone()) {
    for (auto& t : in.tensors)
      if (t.shape.size() != 1) t = reshape(t, {t.numel()}, true);
    axis = 0;
  } else {
    axis = normAxis(constInt(axisV, "axis"), static_cast<int64_t>(in.tensors[0].shape.size()), fn);
  }
  std::vector<int64_t> shape = in.tensors[0].shape;
  shape.erase(shape.begin() + axis);
  std::vector<ir::Type> types;
  std::vector<ir::Value> operands;
  for (const auto& t : in.tensors) {
    types.push_back(irType(t.dtype, shape));
    operands.push_back(t.value);
  }
  ir::Operation* op = b_.create(OpCode::Reduce, types, operands, {{"axis", axis}}, 1);
  buildCombine(*this, op, in.tensors, combineFn, OpCode::ReduceReturn, fn);
  std::vector<Val> results;
  for (size_t k = 0; k < in.tensors.size(); ++k) {
    Val r = Val::tensor(op->result(static_cast<unsigned>(k)), in.tensors[k].dtype, shape);
    if (keepDims) {
      if (axisV.isNone()) {
        std::vector<int64_t> ones(input.isTuple() ? input.elems[k].shape.size() : input.shape.size(), 1);
        r = reshape(r, ones, false);
      } else {
        r = expandDims(r, axis);
      }
    }
    results.push_back(r);
  }
  return in.isTuple ? Val::tuple(results) : results[0];
}

Val CodeGen::scan(const Val& input, const Val& axisV, const Val& combineFn, bool reverse) {
  const char* fn = "tl.associative_scan";
  ReduceInputs in = reduceInputs(*this, input, fn);
  int64_t axis = normAxis(constInt(axisV, "axis"), static_cast<int64_t>(in.tensors[0].shape.size()), fn);
  std::vector<ir::Type> types;
  std::vector<ir::Value> operands;
  for (const auto& t : in.tensors) {
    types.push_back(irType(t.dtype, t.shape));
    operands.push_back(t.value);
  }
  ir::AttrMap attrs{{"axis", axis}};
  attrs["reverse"] = reverse;
  ir::Operation* op = b_.create(OpCode::Scan, types, operands, std::move(attrs), 1);
  buildCombine(*this, op, in.tensors, combineFn, OpCode::ScanReturn, fn);
  std::vector<Val> results;
  for (size_t k = 0; k < in.tensors.size(); ++k)
    results.push_back(Val::tensor(op->result(static_cast<unsigned>(k)), in.tensors[k].dtype, in.tensors[k].shape));
  return in.isTuple ? Val::tuple(results) : results[0];
}

}  // namespace tessera::frontend
