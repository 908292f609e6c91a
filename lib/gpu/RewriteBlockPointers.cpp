//===- RewriteBlockPointers.cpp - Block-pointer accesses as pointer tiles --===//
//
// A tt.load or tt.store through a block pointer (tl.make_block_ptr, and
// every tensor-descriptor access, which is one) was emitted element by
// element: one address and one bounds check per element and a scalar
// ld.global, so the 128 x 64 fp16 tile of a descriptor matmul took 64
// 2-byte loads per thread and never reached the software pipeline. Here,
// as Triton's RewriteTensorPointer does for targets without TMA, such an
// access becomes an ordinary tile of pointers with a mask:
//
//   ptrs = splat(base) + sum over d of (off_d + arange(0, B_d)) * stride_d
//   mask = AND over the checked dims d of 0 <= off_d + arange(0, B_d) < shape_d
//   tt.load ptrs, mask, other (0 or NaN, as the padding says) / tt.store ptrs, v, mask
//
// with the indices and products in i64 (block-pointer offsets are i32; the
// sums are not). Axis info then sees the unit stride of the innermost dim
// and the divisibility of the offsets, so the accesses vectorize and the
// loads feeding a dot are pipelined with cp.async like any other.
//
// Only block pointers made by tt.make_tensor_ptr in the same block as the
// access are rewritten. Loops carry advanced block pointers as offsets
// (BlockPointerLoops.cpp), so theirs are; one passed through scf.if or
// scf.while keeps the element-wise lowering.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cmath>

#include "gpu/GpuPasses.h"
#include "tessera/ir/OpViews.h"
#include "tessera/ir/Builder.h"

namespace tessera::gpu {

using namespace ir;

namespace {

/// The tile of pointers and the in-bounds mask (null when nothing is
/// checked) of a block-pointer access of `shape`.
struct PointerTile {
  Value ptrs, mask;
};

PointerTile pointerTile(OpBuilder& b, Operation* make, const std::vector<int64_t>& shape,
                        const std::vector<int64_t>& checked) {
  int rank = static_cast<int>(shape.size());
  Value base = make->operand(0);
  Type i64Tile = Type::tensor(shape, Type::i64());
  Value offset, mask;
  for (int d = 0; d < rank; ++d) {
    // (off_d + arange(0, B_d)) in i64, shaped 1 x .. x B_d x .. x 1.
    Value range = b.create(OpCode::MakeRange, {Type::tensor({shape[d]}, Type::i32())}, {},
                           {{"start", int64_t{0}}, {"end", shape[d]}})
                      ->result();
    std::vector<int64_t> lineShape = {shape[d]};
    for (int k = 0; k < rank; ++k) {
      if (k == d) continue;
      int axis = k < d ? 0 : static_cast<int>(lineShape.size());
      lineShape.insert(lineShape.begin() + axis, 1);
      range = b.create(OpCode::ExpandDims, {Type::tensor(lineShape, Type::i32())}, {range},
                       {{"axis", int64_t{axis}}})
                  ->result();
    }
    Type lineI64 = Type::tensor(lineShape, Type::i64());
    Value wideRange = b.create(OpCode::ExtSI, {lineI64}, {range})->result();
    MakeTensorPtrOp block(make);
    Value start = b.create(OpCode::ExtSI, {Type::i64()}, {block.offset(d)})->result();
    Value index = b.create(OpCode::AddI, {lineI64}, {b.create(OpCode::Splat, {lineI64}, {start})->result(), wideRange})
                      ->result();
    Value stride = b.create(OpCode::Splat, {lineI64}, {block.stride(d)})->result();
    Value term = b.create(OpCode::MulI, {lineI64}, {index, stride})->result();
    term = b.create(OpCode::Broadcast, {i64Tile}, {term})->result();
    offset = offset ? b.create(OpCode::AddI, {i64Tile}, {offset, term})->result() : term;
    if (std::find(checked.begin(), checked.end(), d) == checked.end()) continue;
    Type lineI1 = Type::tensor(lineShape, Type::i1());
    Value zero = b.constantInt(lineI64, 0);
    Value bound = b.create(OpCode::Splat, {lineI64}, {block.shape(d)})->result();
    Value low = b.create(OpCode::CmpI, {lineI1}, {index, zero}, {{"predicate", std::string("sge")}})->result();
    Value high = b.create(OpCode::CmpI, {lineI1}, {index, bound}, {{"predicate", std::string("slt")}})->result();
    Value inside = b.create(OpCode::AndI, {lineI1}, {low, high})->result();
    inside = b.create(OpCode::Broadcast, {Type::tensor(shape, Type::i1())}, {inside})->result();
    mask = mask ? b.create(OpCode::AndI, {mask.type()}, {mask, inside})->result() : inside;
  }
  Type ptrTile = Type::tensor(shape, base.type());
  Value ptrs = b.create(OpCode::Splat, {ptrTile}, {base})->result();
  ptrs = b.create(OpCode::AddPtr, {ptrTile}, {ptrs, offset})->result();
  return {ptrs, mask};
}

/// The access's attributes less the block-pointer ones.
AttrMap plainAttrs(Operation* op) {
  AttrMap attrs = op->attrs();
  attrs.erase("boundary_check");
  attrs.erase("padding");
  return attrs;
}

void rewriteAccess(Operation* op) {
  Operation* make = op->operand(0).definingOp();
  if (!make || !make->is(OpCode::MakeTensorPtr) || make->block() != op->block()) return;
  bool isLoad = op->is(OpCode::Load);
  Type tile = isLoad ? op->result().type() : op->operand(1).type();
  OpBuilder b;
  b.setInsertionPoint(op);
  b.setLoc(op->loc());
  PointerTile t = pointerTile(b, make, tile.shape(), op->intArrayAttr("boundary_check"));
  std::vector<Value> operands = {t.ptrs};
  if (!isLoad) operands.push_back(op->operand(1));
  if (t.mask) operands.push_back(t.mask);
  if (isLoad && t.mask) {
    bool isFloat = tile.elementType().isFloat();
    double pad = op->strAttr("padding") == "nan" ? std::nan("") : 0.0;
    operands.push_back(isFloat ? b.constantFloat(tile, pad) : b.constantInt(tile, 0));
  }
  Operation* plain = b.create(op->code(), isLoad ? std::vector<Type>{tile} : std::vector<Type>{}, operands,
                              plainAttrs(op));
  if (isLoad) op->result().replaceAllUsesWith(plain->result());
  op->erase();
  if (make->result().uses().empty()) make->erase();
}

}  // namespace

void rewriteBlockPointers(Operation* func) {
  std::vector<Operation*> accesses;
  func->walk([&](Operation* op) {
    if ((op->is(OpCode::Load) || op->is(OpCode::Store)) && op->operand(0).type().isBlockPointer())
      accesses.push_back(op);
  });
  for (Operation* op : accesses) rewriteAccess(op);
}

}  // namespace tessera::gpu
