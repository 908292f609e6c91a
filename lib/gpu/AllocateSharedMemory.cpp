//===- AllocateSharedMemory.cpp - Where each shared buffer lives ------------===//
//
// Rewrites: nothing; records the kernel's shared-memory plan as attributes.
//   Each ttg.local_alloc gets `offset` (bytes from the start of the
//   kernel's dynamic shared memory), the kernel `shared_buffers_bytes`
//   (the end of the last buffer, a multiple of 1024). Every op whose
//   lowering may stage values through the shared scratch area
//   (gpu::usesSharedScratch) with a buffer live at it gets
//   `scratch_offset`: the first 128-aligned byte past every such buffer
//   (no attribute: 0).
// Expects: Tile GPU IR after every pass that adds, moves or removes a
//   ttg.local_alloc or a use of one (the last GPU pass). The attributes
//   describe the IR as it is now: a pass run after this one (tessera-opt
//   allows it) must be followed by this pass again, which recomputes them.
// Guarantees: two buffers live at the same time never overlap; every
//   buffer is 1024-byte aligned (the swizzle atoms of wgmma operands). The
//   emitter places its scratch at the largest `scratch_offset` of the ops
//   that used scratch, so scratch never overlaps a buffer live where it is
//   used; scratch in any other op is an error there, not a silent overlap.
// Why: the plan is a decision about the IR, not about PTX text, and the
//   emitter only reads it (Triton's allocate-shared-memory). Buffers live
//   from their op to their last use; a use inside a loop that does not
//   contain the alloc keeps the buffer until the loop ends (the next
//   iteration reads it again), and uses through ttg.memdesc_index count as
//   uses of the buffer; a buffer passed through control flow lives to the
//   end of the kernel. Buffers go first fit in program order at the lowest
//   1024-aligned offset no buffer live at the same time holds, so two
//   pipelined loops one after the other share their stages' bytes; and a
//   pipelined matmul's epilogue puts its scratch over the dead stage
//   buffers instead of after them (a 128x256 tile with 4 stages: 192 KiB
//   of stages, then 128 KiB of scratch for the fp32 convert, fits in the
//   H100's 227 KiB).
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <map>
#include <vector>

#include "gpu/GpuPasses.h"
#include "tessera/gpu/Target.h"

namespace tessera::gpu {

using namespace ir;

namespace {

class SharedMemoryPlanner {
 public:
  explicit SharedMemoryPlanner(Operation* func) : func_(func) {
    for (unsigned r = 0; r < func->numRegions(); ++r)
      for (unsigned i = 0; i < func->region(r).numBlocks(); ++i) number(*func->region(r).block(i));
  }

  void run() {
    std::vector<Operation*> allocs;
    func_->walk([&](Operation* op) {
      if (op->is(OpCode::LocalAlloc)) allocs.push_back(op);
    });
    for (Operation* op : allocs) place(op);
    func_->setAttr("shared_buffers_bytes", end_);
    func_->walk([&](Operation* op) {
      if (op == func_ || !usesSharedScratch(op)) return;
      op->removeAttr("scratch_offset");
      if (int64_t offset = scratchOffset(position_.at(op))) op->setAttr("scratch_offset", offset);
    });
  }

 private:
  struct Buffer {
    int64_t offset = 0, bytes = 0, first = 0, last = 0;
  };

  /// First fit in program order: the lowest 1024-aligned offset whose bytes
  /// no buffer live at the same time holds.
  void place(Operation* op) {
    Type t = op->result().type();
    Buffer b;
    b.bytes = t.elementType().bitWidth() / 8;
    for (int64_t d : t.shape()) b.bytes *= d;
    b.first = position_.at(op);
    b.last = lastUse(op, op->result());
    std::vector<const Buffer*> live;
    for (const auto& [other, o] : buffers_)
      if (o.first <= b.last && b.first <= o.last) live.push_back(&o);
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
    op->setAttr("offset", b.offset);
  }

  /// Positions number the ops in program order, nested regions in place; an
  /// op with regions also records the last position inside it, so "until
  /// the loop ends" is one number.
  void number(Block& block) {
    for (Operation* op : block.ops()) {
      position_[op] = next_++;
      for (unsigned r = 0; r < op->numRegions(); ++r)
        for (unsigned i = 0; i < op->region(r).numBlocks(); ++i) number(*op->region(r).block(i));
      regionEnd_[op] = next_ - 1;
    }
  }

  int64_t lastUse(Operation* alloc, Value v) const {
    int64_t last = position_.at(alloc);
    for (OpOperand* use : v.uses()) {
      Operation* user = use->owner;
      int64_t at = position_.at(user);
      // The outermost loop around the user that does not hold the alloc
      // runs the use again: the buffer lives to its end.
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

  /// The first 128-aligned byte past every buffer live at position `p`.
  int64_t scratchOffset(int64_t p) const {
    int64_t offset = 0;
    for (const auto& [op, b] : buffers_)
      if (b.first <= p && p <= b.last) offset = std::max(offset, (b.offset + b.bytes + 127) / 128 * 128);
    return offset;
  }

  Operation* func_;
  std::map<Operation*, int64_t> position_, regionEnd_;
  std::map<Operation*, Buffer> buffers_;
  int64_t next_ = 0, end_ = 0;
};

}  // namespace

void allocateSharedMemory(Operation* func) { SharedMemoryPlanner(func).run(); }

}  // namespace tessera::gpu
