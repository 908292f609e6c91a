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

Value pointerArgument(Value v) {
  for (int depth = 0; depth < 64 && v; ++depth) {
    if (v.isBlockArgument()) {
      Operation* owner = v.ownerBlock()->parentOp();
      if (owner && owner->is(OpCode::Func)) return v;
      if (!owner || !owner->is(OpCode::For) || v.index() == 0) return Value();  // the induction variable
      v = ForOp(owner).init(v.index() - 1);
      continue;
    }
    Operation* op = v.definingOp();
    if (!op) return Value();
    switch (op->code()) {
      case OpCode::AddPtr: case OpCode::Splat: case OpCode::Broadcast: case OpCode::ExpandDims:
      case OpCode::ConvertLayout: case OpCode::Reshape: case OpCode::Trans: case OpCode::TensormapCreate:
      case OpCode::MakeTensorPtr: case OpCode::Advance:
        v = op->operand(0);
        continue;
      default: return Value();
    }
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
