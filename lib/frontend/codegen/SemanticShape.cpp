//===- SemanticShape.cpp - Shape manipulation ------------------------------===//
//
// expand_dims, reshape (incl. 1-element -> scalar), permute/trans, join,
// split, cat and tensor indexing with None / ':'. Every block shape is
// checked: dims are powers of 2 and the element count is at most
// TRITON_MAX_TENSOR_NUMEL (2^20).
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

namespace tessera::frontend {

using ir::OpCode;

void CodeGen::checkShape(const std::vector<int64_t>& shape, const char* what) {
  int64_t numel = 1;
  for (int64_t d : shape) {
    if (d <= 0 || (d & (d - 1)) != 0)
      fail(std::string(what) + ": shape " + shapeToString(shape) + " has a dimension that is not a power of 2");
    // Compare before multiplying: a dimension up to 2^62 would overflow.
    if (d > kMaxTensorNumel / numel)
      fail(std::string(what) + ": shape " + shapeToString(shape) + " has more than " +
           std::to_string(kMaxTensorNumel) + " elements");
    numel *= d;
  }
}

Val CodeGen::expandDims(const Val& v, int64_t axis) {
  if (!v.isBlock()) {
    if (axis != 0 && axis != -1) fail("expand_dims: axis " + std::to_string(axis) + " is out of range for a scalar");
    return splat(v, {1});
  }
  int64_t rank = static_cast<int64_t>(v.shape.size());
  axis = normAxis(axis, rank + 1, "expand_dims");
  std::vector<int64_t> shape = v.shape;
  shape.insert(shape.begin() + axis, 1);
  return make(OpCode::ExpandDims, v.dtype, shape, {v.value}, {{"axis", axis}});
}

/// A 1-element block -> scalar: a reduction over the single element.
static Val extractScalar(CodeGen& cg, const Val& v) {
  Val flat = v;
  if (flat.shape.size() != 1) flat = cg.reshape(v, {1}, false);
  auto& b = cg.builder();
  ir::Operation* op = b.create(OpCode::Reduce, {cg.irType(v.dtype, {})}, {flat.value}, {{"axis", int64_t{0}}}, 1);
  ir::Block* body = op->region(0).addBlock();
  ir::Value acc = body->addArgument(cg.irType(v.dtype, {}));
  body->addArgument(cg.irType(v.dtype, {}));
  ir::OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToEnd(body);
  b.create(OpCode::ReduceReturn, {}, {acc});
  return Val::tensor(op->result(), v.dtype, {});
}

Val CodeGen::reshape(const Val& v, const std::vector<int64_t>& shape, bool canReorder) {
  Val t = tensorArg(v, "reshape input");
  int64_t numel = 1;
  for (int64_t d : shape) {
    // Shapes are user constexprs: a product past int64 cannot match the
    // input, and checkShape names the bad dimension or the size.
    if (__builtin_mul_overflow(numel, d, &numel)) checkShape(shape, "reshape");
  }
  if (numel != t.numel())
    fail("reshape: cannot reshape a tensor of shape " + shapeToString(t.shape) + " (" + std::to_string(t.numel()) +
         " elements) to " + shapeToString(shape) + " (" + std::to_string(numel) + " elements)");
  if (shape.empty()) return t.isBlock() ? extractScalar(*this, t) : t;
  checkShape(shape, "reshape");
  if (!t.isBlock()) return splat(t, shape);
  if (t.shape == shape) return t;
  ir::AttrMap attrs;
  if (canReorder) attrs["allow_reorder"] = true;
  return make(OpCode::Reshape, t.dtype, shape, {t.value}, std::move(attrs));
}

Val CodeGen::permute(const Val& v, const std::vector<int64_t>& order) {
  if (!v.isBlock()) fail("permute: expected a tensor, got " + v.typeName());
  size_t rank = v.shape.size();
  if (order.size() != rank)
    fail("permute: dims " + shapeToString(order) + " must be a permutation of 0.." + std::to_string(rank - 1));
  std::vector<bool> seen(rank, false);
  std::vector<int64_t> shape(rank);
  for (size_t k = 0; k < rank; ++k) {
    int64_t d = order[k];
    if (d < 0 || d >= static_cast<int64_t>(rank) || seen[d])
      fail("permute: dims " + shapeToString(order) + " must be a permutation of 0.." + std::to_string(rank - 1));
    seen[d] = true;
    shape[k] = v.shape[d];
  }
  bool identity = true;
  for (size_t k = 0; k < rank; ++k) identity &= order[k] == static_cast<int64_t>(k);
  if (identity) return v;
  return make(OpCode::Trans, v.dtype, shape, {v.value}, {{"order", order}});
}

Val CodeGen::join(const Val& a0, const Val& b0) {
  auto [a, b] = arithOperands(a0, b0, false, true, "join");
  if (a.dtype != b.dtype) fail("join: operands have different types " + a.dtype.name() + " and " + b.dtype.name());
  bool scalars = !a.isBlock();
  if (scalars) {
    a = splat(a, {1});
    b = splat(b, {1});
  }
  std::vector<int64_t> shape = a.shape;
  shape.push_back(2);
  checkShape(shape, "join");
  Val r = make(OpCode::Join, a.dtype, shape, {a.value, b.value});
  if (scalars) r = reshape(r, {2}, false);
  return r;
}

std::pair<Val, Val> CodeGen::split(const Val& a0) {
  Val a = tensorArg(a0, "split input");
  if (!a.isBlock() || a.shape.back() != 2)
    fail("split: the last dimension must have size 2, got shape " + shapeToString(a.shape));
  bool toScalar = a.shape.size() == 1;
  if (toScalar) a = reshape(a, {1, 2}, false);
  std::vector<int64_t> shape(a.shape.begin(), a.shape.end() - 1);
  ir::Type t = irType(a.dtype, shape);
  ir::Operation* op = b_.create(OpCode::Split, {t, t}, {a.value});
  Val x = Val::tensor(op->result(0), a.dtype, shape), y = Val::tensor(op->result(1), a.dtype, shape);
  if (toScalar) {
    x = reshape(x, {}, false);
    y = reshape(y, {}, false);
  }
  return {x, y};
}

Val CodeGen::cat(const Val& a0, const Val& b0) {
  Val a = tensorArg(a0, "cat input"), b = tensorArg(b0, "cat input");
  if (a.shape.size() != 1 || b.shape.size() != 1) fail("tl.cat: only 1-D tensors are supported");
  if (a.dtype != b.dtype) fail("tl.cat: operands have different types " + a.dtype.name() + " and " + b.dtype.name());
  std::vector<int64_t> shape = {a.shape[0] + b.shape[0]};
  checkShape(shape, "tl.cat");
  return make(OpCode::Cat, a.dtype, shape, {a.value, b.value});
}

Val CodeGen::subscript(const Val& v, const std::vector<Val>& index) {
  Val r = v;
  int64_t dim = 0;
  for (const auto& ix : index) {
    if (ix.isNone()) {
      // A scalar becomes a 1-element block wherever the None stands
      // (Triton's semantic.expand_dims inserts into an empty shape):
      // `s[:, None]` of a 0-d tensor too.
      r = r.isBlock() ? expandDims(r, dim) : splat(r, {1});
      ++dim;
      continue;
    }
    // ':' keeps a dimension; as in Triton it is not checked against the
    // rank (`x[None, :]` of a scalar is a 1-element block).
    if (ix.kind == Val::Kind::Slice && ix.elems[0].isNone() && ix.elems[1].isNone() && ix.elems[2].isNone()) {
      ++dim;
      continue;
    }
    fail("unsupported tensor index: only None and ':' are allowed");
  }
  return r;
}

}  // namespace tessera::frontend
