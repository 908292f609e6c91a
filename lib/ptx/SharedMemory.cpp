//===- SharedMemory.cpp - Live ranges of shared buffers, scratch placement -===//
//
// See SharedMemory.h. Positions number the ops of the kernel in program
// order, nested regions in place; an op with regions also records the last
// position inside it, so "until the loop ends" is one number.
//
//===----------------------------------------------------------------------===//

#include "ptx/SharedMemory.h"

#include <algorithm>

namespace tessera::ptx {

using namespace ir;

SharedMemoryPlan::SharedMemoryPlan(Operation* func) {
  for (unsigned r = 0; r < func->numRegions(); ++r)
    for (unsigned i = 0; i < func->region(r).numBlocks(); ++i) number(*func->region(r).block(i));
  std::vector<Operation*> allocs;
  func->walk([&](Operation* op) {
    if (op->is(OpCode::LocalAlloc)) allocs.push_back(op);
  });
  // First fit in program order: the lowest 1024-aligned offset whose bytes
  // no buffer live at the same time holds, so buffers whose live ranges do
  // not meet (the stages of two pipelined loops one after the other) share
  // their bytes.
  for (Operation* op : allocs) {
    Type t = op->result().type();
    Buffer b;
    b.bytes = t.elementType().bitWidth() / 8;
    for (int64_t d : t.shape()) b.bytes *= d;
    b.first = position(op);
    b.last = lastUse(op, op->result());
    std::vector<const Buffer*> live;
    for (const auto& [other, o] : buffers_)
      if (o.first <= b.last && b.first <= o.last) live.push_back(&o);
    b.offset = 0;
    for (bool moved = true; moved;) {  // offsets only grow: this ends
      moved = false;
      for (const Buffer* o : live)
        if (b.offset < o->offset + o->bytes && o->offset < b.offset + b.bytes) {
          b.offset = (o->offset + o->bytes + 1023) / 1024 * 1024;
          moved = true;
        }
    }
    end_ = std::max(end_, (b.offset + b.bytes + 1023) / 1024 * 1024);
    buffers_[op] = b;
  }
}

void SharedMemoryPlan::number(Block& block) {
  for (Operation* op : block.ops()) {
    position_[op] = next_++;
    for (unsigned r = 0; r < op->numRegions(); ++r)
      for (unsigned i = 0; i < op->region(r).numBlocks(); ++i) number(*op->region(r).block(i));
    regionEnd_[op] = next_ - 1;
  }
}

int64_t SharedMemoryPlan::position(Operation* op) const {
  auto it = position_.find(op);
  return it == position_.end() ? -1 : it->second;
}

int64_t SharedMemoryPlan::lastUse(Operation* alloc, Value v) const {
  int64_t last = position(alloc);
  for (OpOperand* use : v.uses()) {
    Operation* user = use->owner;
    int64_t at = position(user);
    // The outermost loop around the user that does not hold the alloc runs
    // the use again: the buffer lives to its end.
    for (Operation* p = user->parentOp(); p; p = p->parentOp()) {
      if (p->is(OpCode::Func)) break;
      if (p->isAncestorOf(alloc)) break;
      if (p->is(OpCode::For) || p->is(OpCode::While)) at = std::max(at, regionEnd_.at(p));
    }
    last = std::max(last, at);
    if (user->is(OpCode::MemdescIndex)) last = std::max(last, lastUse(alloc, user->result()));
    // A buffer passed through control flow (an iteration argument, a
    // yield) is not followed: it lives to the end of the kernel.
    if (user->numRegions() != 0 || user->hasTrait(Terminator)) last = next_;
  }
  return last;
}

int64_t SharedMemoryPlan::scratchOffset(const std::vector<int64_t>& positions) const {
  int64_t offset = 0;
  for (const auto& [op, b] : buffers_)
    for (int64_t p : positions)
      if (p < 0 || (b.first <= p && p <= b.last)) offset = std::max(offset, (b.offset + b.bytes + 127) / 128 * 128);
  return offset;
}

}  // namespace tessera::ptx
