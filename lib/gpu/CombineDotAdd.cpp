//===- CombineDotAdd.cpp - x + tl.dot(a, b) -> tl.dot(a, b, acc=x) ---------===//
//
// `acc += tl.dot(a, b)` is how most matmul loops are written. The frontend
// gives tt.dot(a, b, zeros) followed by an add; on tensor cores the add
// would be a second pass over the accumulator, and in a loop the add keeps
// the loop-carried accumulator out of the dot, so AssignLayouts could not
// give it the dot's (mma) layout. Triton 3.6 combines the same way
// (CombineDotAddFPattern / CombineDotAddIPattern).
//
// Rewrites: addf/addi(x, dot(a, b, c)) and addf/addi(dot(a, b, c), x) where
// c is a zero constant, the dot's result has no other use, and x has the
// result's type -> dot(a, b, x). The dot moves down to the add (it has no
// side effects and its operands dominate the add), so x dominates it.
//
// Except fp8 dots that run on wgmma: wgmma adds fp8 products into its
// accumulator with fewer bits than fp32, so Triton keeps `acc += dot(a, b)`
// apart there (max_num_imprecise_acc defaults to 2^30 on sm_90, and its
// float pattern only combines at 0): each dot's partial sum reaches the
// accumulator through an fp32 add, a relative error of ~2e-4 against
// ~2e-3 at K = 8192 in the fp8 matmul benchmark. Tessera does the same, so
// the same source gives Triton's numbers; `acc = tl.dot(a, b, acc)` asks
// for the fused (faster, less precise) form in both.
//
//===----------------------------------------------------------------------===//

#include "gpu/GpuPasses.h"
#include "tessera/ir/Matchers.h"

namespace tessera::gpu {

using namespace ir;

namespace {

/// The dot among the add's operands that can absorb the other one.
int combinableOperand(Operation* add, const Target& target, int numWarps) {
  for (int i = 0; i < 2; ++i) {
    Value d = add->operand(i), x = add->operand(1 - i);
    Operation* dot = d.definingOp();
    if (!dot || !dot->is(OpCode::Dot) || !d.hasOneUse() || dot->block() != add->block()) continue;
    if (isWgmmaFp8(dot->operand(0).type().elementType().kind()) && dotUsesWgmma(dot, target, numWarps)) continue;
    if (x.type() != d.type() || !ir::isZeroConstant(dot->operand(2))) continue;
    return i;
  }
  return -1;
}

}  // namespace

void combineDotAdd(Operation* func, const Target& target, int numWarps) {
  std::vector<Operation*> adds;
  func->walk([&](Operation* op) {
    if (op->is(OpCode::AddF) || op->is(OpCode::AddI)) adds.push_back(op);
  });
  for (Operation* add : adds) {
    int i = combinableOperand(add, target, numWarps);
    if (i < 0) continue;
    Operation* dot = add->operand(i).definingOp();
    dot->moveBefore(add);
    dot->setOperand(2, add->operand(1 - i));
    add->result().replaceAllUsesWith(dot->result());
    add->erase();
  }
}

}  // namespace tessera::gpu
