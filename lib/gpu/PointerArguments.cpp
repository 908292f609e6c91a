//===- PointerArguments.cpp - Which kernel argument a pointer points into -===//
//
// See PointerArguments.h. Used by pipeline-dot-loops, pointer-tiles-to-tma
// and transposed-loads to let loads move past writes into other arguments.
//
//===----------------------------------------------------------------------===//

#include "gpu/PointerArguments.h"

#include "tessera/ir/OpViews.h"

namespace tessera::gpu {

using namespace ir;

namespace {

/// The value an op that keeps pointing into the same memory computes its
/// result from (an offset's base, a reshaped or converted tile...), or null.
Value pointerSource(Operation* op) {
  switch (op->code()) {
    case OpCode::AddPtr: case OpCode::Splat: case OpCode::Broadcast: case OpCode::ExpandDims:
    case OpCode::ConvertLayout: case OpCode::Reshape: case OpCode::Trans: case OpCode::TensormapCreate:
    case OpCode::MakeTensorPtr: case OpCode::Advance:
      return op->operand(0);
    default: return Value();
  }
}

/// Whether the loop yields iteration argument `arg` back as itself plus
/// offsets (p += BLOCK): then it points where its initial value did. A
/// pointer swapped with another or selected each iteration does not.
bool advancesItself(Operation* loop, Value arg) {
  Value v = ForOp(loop).yielded(arg.index() - 1);
  for (int depth = 0; depth < 64 && v; ++depth) {
    if (v == arg) return true;
    if (v.isBlockArgument() || !v.definingOp()) return false;
    v = pointerSource(v.definingOp());
  }
  return false;
}

}  // namespace

Value pointerArgument(Value v) {
  for (int depth = 0; depth < 64 && v; ++depth) {
    if (v.isBlockArgument()) {
      Operation* owner = v.ownerBlock()->parentOp();
      if (owner && owner->is(OpCode::Func)) return v;
      // The induction variable is no pointer; an iteration argument points
      // where its initial value does only if each iteration advances it.
      if (!owner || !owner->is(OpCode::For) || v.index() == 0 || !advancesItself(owner, v)) return Value();
      v = ForOp(owner).init(v.index() - 1);
      continue;
    }
    Operation* op = v.definingOp();
    if (!op) return Value();
    v = pointerSource(op);
  }
  return Value();
}

bool writeSpares(Operation* write, Value read) {
  if (!read) return false;
  bool relaxedAtomic = write->is(OpCode::AtomicRMW) && write->strAttr("sem") == "relaxed";
  if (!write->is(OpCode::Store) && !relaxedAtomic) return false;
  Value written = pointerArgument(write->operand(0));
  return written && written != read;
}

}  // namespace tessera::gpu
