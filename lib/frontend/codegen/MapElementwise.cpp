//===- MapElementwise.cpp - tl.map_elementwise by per-element selection -----===//
//
// tl.map_elementwise(scalar_fn, *args, pack=1) applies a @jit function to
// each element of its (broadcast) arguments; the function may branch on its
// scalar arguments. Tessera generates the function once over the whole
// tensors instead of once per element: its arithmetic is elementwise
// already, and in this "elementwise" frame an `if` (or `x if c else y`)
// whose condition is a block runs both branches on every element and
// selects per element what they leave (variables, or returned values when
// both branches return), so no per-element control flow reaches the IR.
// Both branches are evaluated for all elements, as if-conversion does: the
// branches must not store or do atomics (a scalar function does not), and
// what an untaken branch computes (a division by zero, say) is discarded.
// A per-element `while` loops while any element's condition holds and
// updates only those elements; a `range` loop with per-element bounds is
// such a loop over an index block (CodeGenStmt.cpp, perElementFor). With `pack` = p the function takes p
// consecutive elements of each argument and returns p values per result
// (the arguments are split into p strided parts, the results joined back).
//
//===----------------------------------------------------------------------===//

#include "CodeGen.h"

namespace tessera::frontend {

std::optional<Val> CodeGen::elementwiseCondition(const Val& v) {
  if (frames_.empty() || !frame().elementwise || !v.isBlock()) return std::nullopt;
  if (v.dtype.isInt() && v.dtype.bitwidth() == 1) return v;
  return cmp(py::CmpOpKind::NotEq, v, Val::integer(BigInt(0)));  // Python truthiness
}

Val CodeGen::selectMerge(const Val& cond, const Val& tv, const Val& ev, const std::string& what) {
  if (tv.kind == ev.kind && tv.isConstexpr() && ev.isConstexpr() && tv.sameConst(ev)) return tv;
  if (tv.isTensor() && ev.isTensor() && tv.value == ev.value) return tv;
  if (tv.isTuple() && ev.isTuple()) {
    if (tv.st != ev.st || tv.elems.size() != ev.elems.size())
      fail(what + " has different structures in the two branches of a per-element if: " + tv.typeName() + " and " +
           ev.typeName());
    Val r = tv;
    for (size_t k = 0; k < tv.elems.size(); ++k) r.elems[k] = selectMerge(cond, tv.elems[k], ev.elems[k], what);
    return r;
  }
  bool tvOk = tv.isTensor() || tv.isNumber(), evOk = ev.isTensor() || ev.isNumber();
  if (!tvOk || !evOk)
    fail(what + " must be tensors or numbers in both branches of a per-element if, got " + tv.typeName() + " and " +
         ev.typeName());
  return where(cond, tv, ev);
}

Val CodeGen::branchMasked(const Val& mask) {
  if (frames_.empty() || !frame().branchMask) return mask;
  if (mask.isNone()) return *frame().branchMask;
  return logicalAndOr(true, tensorArg(mask, "mask"), *frame().branchMask);
}

Val CodeGen::anyElement(const Val& c) {
  Val flat = reshape(cast(c, DType(ScalarKind::I32)), {c.numel()}, false);
  Val any = call(*namespaceAttr("tl", "max"), {flat, Val::integer(BigInt(0))}, {});
  return cmp(py::CmpOpKind::NotEq, any, Val::integer(BigInt(0)));
}

namespace {

/// The `pack` parts of flat tensor `x` ([N]): part k holds elements
/// k, k + pack, ... of each group of `pack` consecutive ones (x[g*pack + k]).
std::vector<Val> packParts(CodeGen& cg, const Val& x, int64_t pack) {
  std::vector<int64_t> shape = {x.numel() / pack};
  for (int64_t p = pack; p > 1; p /= 2) shape.push_back(2);
  std::function<std::vector<Val>(const Val&, int64_t)> parts = [&](const Val& t, int64_t n) -> std::vector<Val> {
    if (n == 1) return {t};
    auto [t0, t1] = cg.split(t);  // the last dim: bit 0 of the index within the group
    std::vector<Val> p0 = parts(t0, n / 2), p1 = parts(t1, n / 2), out;
    for (int64_t k = 0; k < n; ++k) out.push_back(k & 1 ? p1[k >> 1] : p0[k >> 1]);
    return out;
  };
  return parts(cg.reshape(x, shape, false), pack);
}

/// The inverse of packParts: [N] from the `pack` parts.
Val unpackParts(CodeGen& cg, const std::vector<Val>& parts) {
  if (parts.size() == 1) return parts[0];
  std::vector<Val> even, odd;
  for (size_t k = 0; k < parts.size(); ++k) (k & 1 ? odd : even).push_back(parts[k]);
  return cg.join(unpackParts(cg, even), unpackParts(cg, odd));
}

}  // namespace

Val CodeGen::mapElementwise(const Val& fn, std::vector<Val> args, const Val& pack) {
  if (fn.kind != Val::Kind::Func || !fn.fn.fn)
    fail("tl.map_elementwise: scalar_fn must be a @jit function, got " + fn.typeName());
  int64_t p = constInt(pack, "tl.map_elementwise pack");
  if (p < 1 || (p & (p - 1)) != 0) fail("tl.map_elementwise: pack must be a power of 2, got " + std::to_string(p));
  if (args.empty()) fail("tl.map_elementwise needs at least one tensor argument");
  std::vector<int64_t> shape;
  for (auto& a : args) {
    a = tensorArg(a, "tl.map_elementwise argument");
    if (a.isBlock()) shape = shape.empty() ? a.shape : broadcastShapes(shape, a.shape);
  }
  for (auto& a : args) a = broadcastTo(a, shape);
  int64_t numel = 1;
  for (int64_t d : shape) numel *= d;
  if (p > 1 && (shape.empty() || numel % p != 0))
    fail("tl.map_elementwise: pack=" + std::to_string(p) + " needs tensors of a multiple of " + std::to_string(p) +
         " elements, got shape " + shapeToString(shape));
  // With pack > 1 the function gets `pack` consecutive elements of each
  // argument in turn (x0, x1, y0, y1) and returns `pack` values of each
  // result in turn.
  std::vector<Val> callArgs;
  for (const auto& a : args) {
    if (p == 1) {
      callArgs.push_back(a);
      continue;
    }
    for (auto& part : packParts(*this, reshape(a, {numel}, false), p)) callArgs.push_back(part);
  }
  Val r = inlineCall(fn.fn, std::move(callArgs), {}, -1, /*elementwise=*/true);
  if (r.isNone()) fail("tl.map_elementwise: scalar_fn returned None");
  std::vector<int64_t> partShape = p == 1 ? shape : std::vector<int64_t>{numel / p};
  auto full = [&](const Val& v) {
    if (!v.isTensor() && !v.isNumber())
      fail("tl.map_elementwise: scalar_fn must return tensors or numbers, got " + v.typeName());
    return broadcastTo(tensorArg(v, "the result of tl.map_elementwise's scalar_fn"), partShape);
  };
  if (!r.isTuple()) {
    if (p != 1) fail("tl.map_elementwise: with pack=" + std::to_string(p) + ", scalar_fn must return a tuple of " +
                     std::to_string(p) + " values per result");
    return full(r);
  }
  if (r.elems.size() % static_cast<size_t>(p) != 0)
    fail("tl.map_elementwise: scalar_fn returned " + std::to_string(r.elems.size()) + " values, not a multiple of pack=" +
         std::to_string(p));
  std::vector<Val> results;
  for (size_t k = 0; k < r.elems.size(); k += static_cast<size_t>(p)) {
    std::vector<Val> parts;
    for (int64_t j = 0; j < p; ++j) parts.push_back(full(r.elems[k + static_cast<size_t>(j)]));
    results.push_back(p == 1 ? parts[0] : reshape(unpackParts(*this, parts), shape, false));
  }
  return Val::tuple(std::move(results));
}

}  // namespace tessera::frontend
