//===- WgmmaRegisterOperands.cpp - wgmma's A straight from registers ------===//
//
// Tile GPU IR (after propagateDotLayouts). AssignLayouts copies both
// operands of a wgmma dot to shared memory (ttg.local_alloc), which is
// what a loaded tile needs. A tile computed in registers is different:
// attention's P = exp2(S - m) is, after propagateDotLayouts, already in the
// first dot's accumulator layout, and wgmma can read A from registers in
// exactly that fragment order. So
//
//   %p_smem = ttg.local_alloc %p : #nvmma_shared
//   tt.dot %p_smem, %v_smem, %acc
//     ->
//   %p_regs = ttg.convert_layout %p : #ttg.dot_op<{opIdx = 0, parent = #mma_v3, kWidth = 2}>
//   tt.dot %p_regs, %v_smem, %acc
//
// when that convert moves no data (the two layouts are the same linear
// layout): no shared-memory store, fence and barriers per iteration. A
// loaded A (and any A whose layout would need a real move) keeps its copy.
//
//===----------------------------------------------------------------------===//

#include "gpu/GpuPasses.h"
#include "tessera/gpu/LinearLayout.h"
#include "tessera/ir/Builder.h"

namespace tessera::gpu {

using namespace ir;

void wgmmaOperandsFromRegisters(Operation* func) {
  std::vector<Operation*> dots;
  func->walk([&](Operation* op) {
    if (op->is(OpCode::Dot)) dots.push_back(op);
  });
  for (Operation* dot : dots) {
    Encoding result = dot->result().type().encoding();
    if (!result.isNvidiaMma() || result.versionMajor() != 3) continue;
    Operation* alloc = dot->operand(0).definingOp();
    if (!alloc || !alloc->is(OpCode::LocalAlloc) || alloc->numOperands() != 1 || !alloc->result().hasOneUse())
      continue;
    Value x = alloc->operand(0);
    Operation* producer = x.definingOp();
    if (producer && (producer->is(OpCode::Load) || producer->is(OpCode::DescriptorLoad)))
      continue;  // loaded tiles go to shared memory anyway
    Type t = x.type();
    if (t.rank() != 2 || t.elementType().bitWidth() != 16 || !t.encoding() || t.encoding().isShared()) continue;
    Encoding operand = Encoding::dotOperand(0, result, 2);
    if (toLinearLayout(t.shape(), t.encoding()) != toLinearLayout(t.shape(), operand)) continue;
    OpBuilder b;
    b.setInsertionPoint(dot);
    b.setLoc(dot->loc());
    dot->setOperand(0, b.create(OpCode::ConvertLayout, {t.withEncoding(operand)}, {x})->result());
    alloc->erase();
  }
}

}  // namespace tessera::gpu
