//===- SinkCasts.cpp - Move widening casts down to their first use --------===//
//
// `w = tl.load(p).to(tl.float32)` written at the top of a kernel keeps w as
// f32 (two registers per pair of fp16 values) across everything between
// the load and the use, e.g. two block-wide reductions in a layernorm.
// Moving the widening cast to just before its first user keeps the narrow
// loaded value live instead; the load itself stays early so its latency is
// still hidden. (Triton gets the same effect from LLVM's instruction sinking;
// ptxas does not sink across our straight-line code by itself.)
//
// rematerializeAtUses (same file, same reason): index computations that are
// cheap to redo (ranges, splats, masks `offs < n`, offset arithmetic) get a
// copy right before each later user instead of one value live across the
// whole kernel; a 32-element mask costs 32 setp where it is needed instead of
// 32 registers held through two reductions.
//
// Rewrites: a pure one-operand elementwise op (ext*, *tofp, bitcast) whose
// result is at least as wide as its operand, and whose uses are all in the
// same block (or nested in later ops of it), moves right before the first
// op of the block that uses it.
//
//===----------------------------------------------------------------------===//

#include <algorithm>

#include "gpu/GpuPasses.h"

namespace tessera::gpu {

using namespace ir;

namespace {

bool isWideningUnary(Operation* op) {
  switch (op->code()) {
    case OpCode::ExtF: case OpCode::ExtSI: case OpCode::ExtUI: case OpCode::SIToFP: case OpCode::UIToFP:
    case OpCode::Bitcast:
      break;
    default:
      return false;
  }
  if (op->numOperands() != 1 || op->numResults() != 1) return false;
  Type from = op->operand(0).type(), to = op->result().type();
  return to.elementType().byteWidth() >= from.elementType().byteWidth();
}

void sinkInBlock(Block& block) {
  std::vector<Operation*> ops = block.ops();
  for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
    Operation* op = *it;
    for (unsigned r = 0; r < op->numRegions(); ++r)
      if (!op->region(r).empty())
        for (unsigned b = 0; b < op->region(r).numBlocks(); ++b) sinkInBlock(*op->region(r).block(b));
    if (!isWideningUnary(op) || !op->result().hasUses()) continue;
    Operation* first = nullptr;
    bool ok = true;
    for (OpOperand* use : op->result().uses()) {
      Operation* user = block.findAncestorOp(use->owner);
      if (!user) { ok = false; break; }
      if (!first) { first = user; continue; }
      // Keep the earliest user in block order.
      for (Operation* o = user->nextOp(); o; o = o->nextOp())
        if (o == first) { first = user; break; }
    }
    if (!ok || !first || first == op->nextOp()) continue;
    op->moveBefore(first);
  }
}

bool isCheapIndexOp(Operation* op) {
  switch (op->code()) {
    case OpCode::MakeRange: case OpCode::Splat: case OpCode::Constant: case OpCode::Broadcast:
    case OpCode::ExpandDims: case OpCode::CmpI: case OpCode::AddI: case OpCode::SubI: case OpCode::MulI:
    case OpCode::AndI: case OpCode::OrI:
      break;
    default:
      return false;
  }
  if (op->numResults() != 1 || !op->result().type().isTensor()) return false;
  for (Value v : op->operands()) {
    if (!v.type().isTensor()) continue;
    Operation* d = v.definingOp();
    if (!d || !isCheapIndexOp(d)) return false;
  }
  return true;
}

void rematerializeInBlock(Block& block) {
  std::vector<Operation*> ops = block.ops();
  for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
    Operation* op = *it;
    for (unsigned r = 0; r < op->numRegions(); ++r)
      for (unsigned b = 0; b < op->region(r).numBlocks(); ++b) rematerializeInBlock(*op->region(r).block(b));
    if (!isCheapIndexOp(op)) continue;
    // Group the uses by the op of this block that contains them.
    std::vector<std::pair<Operation*, std::vector<OpOperand*>>> users;
    bool ok = true;
    for (OpOperand* use : op->result().uses()) {
      Operation* user = block.findAncestorOp(use->owner);
      if (!user) { ok = false; break; }
      auto found = std::find_if(users.begin(), users.end(), [&](const auto& u) { return u.first == user; });
      if (found == users.end()) users.push_back({user, {use}});
      else found->second.push_back(use);
    }
    if (!ok || users.size() < 2) continue;
    // Keep the original for the earliest user; every later user gets a copy
    // made right before it.
    Operation* earliest = users.front().first;
    for (const auto& u : users)
      for (Operation* o = u.first->nextOp(); o; o = o->nextOp())
        if (o == earliest) { earliest = u.first; break; }
    for (const auto& [user, uses] : users) {
      if (user == earliest) continue;
      IRMapping mapping;
      Operation* copy = op->clone(mapping);
      block.insert(user, copy);
      for (OpOperand* use : uses) use->set(copy->result());
    }
    if (earliest != op->nextOp()) op->moveBefore(earliest);
  }
}

}  // namespace

void sinkWideningCasts(Operation* func) {
  if (func->numRegions() && !func->region(0).empty()) sinkInBlock(func->region(0).front());
}

void rematerializeAtUses(Operation* func) {
  if (func->numRegions() && !func->region(0).empty()) rematerializeInBlock(func->region(0).front());
}

}  // namespace tessera::gpu
