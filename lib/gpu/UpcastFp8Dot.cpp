//===- UpcastFp8Dot.cpp - fp8 tl.dot on fp16 tensor-core instructions -----===//
//
// mma.sync has no fp8 form before PTX 8.4 (and wgmma's fp8 forms come with
// the sm_90a path): an fp8 dot would fall back to FMAs, whose code for a
// 32 x 32 x 64 tile takes ptxas minutes (one conversion per operand element
// and thread, then K FMAs per result). Every e4m3 and e5m2 value is exactly
// an fp16 value (e5m2 is fp16's upper byte; e4m3's range and precision fit
// inside fp16's), and the product's accumulation is fp32 either way, so
// the dot runs as an fp16 dot of the upcast operands with the same result
// up to summation order, as Triton does for fp8 on mma.sync targets.
// On sm_90a, dots that wgmma runs (DotEncodings.cpp: M and N in warpgroup
// tiles, K rows of 32, 64 or n x 128 bytes) keep their fp8 operands: wgmma
// multiplies e4m3/e5m2 itself at twice the fp16 rate.
//
// Rewrites: tt.dot(a: fp8e4nv|fp8e5, b: fp8e4nv|fp8e5, acc) ->
//   tt.dot(arith.extf a to f16, arith.extf b to f16, acc).
//
//===----------------------------------------------------------------------===//

#include "gpu/GpuPasses.h"
#include "tessera/ir/Builder.h"

namespace tessera::gpu {

using namespace ir;

namespace {

bool upcastable(Type t) {
  TypeKind k = t.elementType().kind();
  return k == TypeKind::F8E4M3FN || k == TypeKind::F8E5M2;
}

}  // namespace

void upcastFp8Dots(Operation* func, const Target& target, int numWarps) {
  func->walk([&](Operation* op) {
    if (!op->is(OpCode::Dot) || !upcastable(op->operand(0).type()) || !upcastable(op->operand(1).type())) return;
    if (dotUsesWgmma(op, target, numWarps)) return;
    OpBuilder b;
    b.setInsertionPoint(op);
    b.setLoc(op->loc());
    for (unsigned i = 0; i < 2; ++i) {
      Value x = op->operand(i);
      Type f16 = Type::tensor(x.type().shape(), Type::f16());
      op->setOperand(i, b.create(OpCode::ExtF, {f16}, {x})->result());
    }
  });
}

}  // namespace tessera::gpu
