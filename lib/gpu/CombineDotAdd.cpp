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
//===----------------------------------------------------------------------===//

#include "gpu/GpuPasses.h"
#include "transforms/PassDetail.h"

namespace tessera::gpu {

using namespace ir;

namespace {

/// The dot among the add's operands that can absorb the other one.
int combinableOperand(Operation* add) {
  for (int i = 0; i < 2; ++i) {
    Value d = add->operand(i), x = add->operand(1 - i);
    Operation* dot = d.definingOp();
    if (!dot || !dot->is(OpCode::Dot) || !d.hasOneUse() || dot->block() != add->block()) continue;
    if (x.type() != d.type() || !transforms::isZeroConstant(dot->operand(2))) continue;
    return i;
  }
  return -1;
}

}  // namespace

void combineDotAdd(Operation* func) {
  std::vector<Operation*> adds;
  func->walk([&](Operation* op) {
    if (op->is(OpCode::AddF) || op->is(OpCode::AddI)) adds.push_back(op);
  });
  for (Operation* add : adds) {
    int i = combinableOperand(add);
    if (i < 0) continue;
    Operation* dot = add->operand(i).definingOp();
    dot->moveBefore(add);
    dot->setOperand(2, add->operand(1 - i));
    add->result().replaceAllUsesWith(dot->result());
    add->erase();
  }
}

}  // namespace tessera::gpu
