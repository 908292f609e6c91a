//===- AsyncCopy.cpp - Global -> shared copies that run behind the math ---===//
//
// The ops a software pipeline is made of (Ops.def): a multi-stage shared
// buffer (ttg.local_alloc without an operand), one of its stages
// (ttg.memdesc_index), copies into it that the thread does not wait for
// (ttg.async_copy_global_to_local), groups of them (ttg.async_commit_group)
// and the wait for all but the newest groups (ttg.async_wait).
//
//  * memdesc_index: the stage's address, base + index * stage bytes.
//  * async copies: cp.async, one per vector of the pointer tensor's
//    registers (16 bytes with .cg, which bypasses L1; 4 or 8 with .ca), to
//    the shared offset of the vector's first element in the buffer's
//    encoding (sharedOffsets). A masked-off vector copies 0 source bytes,
//    which cp.async fills with zeros: `other` must be 0 or absent.
//  * commit / wait: cp.async.commit_group / cp.async.wait_group N, then
//    (sm_90+) fence.proxy.async, so the tensor cores' reads (async proxy)
//    see the data, and a barrier, so every thread's copies are visible.
//
//===----------------------------------------------------------------------===//

#include "ptx/Emitter.h"
#include "tessera/ir/Matchers.h"
#include "tessera/ir/OpViews.h"

namespace tessera::ptx {

using namespace ir;
using gpu::LinearLayout;

namespace {

void emitMemdescIndex(Emitter& e, MemdescIndexOp op) {
  Type view = op.result().type();
  int64_t bytes = view.elementType().bitWidth() / 8;
  for (int64_t d : view.shape()) bytes *= d;
  std::string addr = e.reg(RegClass::B32);
  e.ins("mad.lo.u32 " + addr + ", " + e.regs(op.index())[0] + ", " + std::to_string(bytes) + ", " +
        e.regs(op.buffer())[0]);
  e.bind(op.result(), {addr});
}

void emitAsyncCopy(Emitter& e, AsyncCopyGlobalToLocalOp copy) {
  Operation* op = copy.op();
  Value ptr = copy.ptr(), dst = copy.dst(), mask = copy.mask();
  if (Value other = copy.other(); other && !ir::isZeroConstant(other))
    e.fail(op, "ttg.async_copy_global_to_local: masked-off elements are zero-filled, so `other` must be 0");
  const LinearLayout& ll = e.layout(ptr.type());
  int64_t elemBytes = dst.type().elementType().bitWidth() / 8;
  gpu::AccessVector access = gpu::accessVector(e.axisInfo(), ptr, mask, ll, elemBytes);
  int64_t vec = access.elements;
  int64_t bytes = vec * elemBytes;
  if (bytes != 4 && bytes != 8 && bytes != 16)
    e.fail(op, "ttg.async_copy_global_to_local: the pointers allow " + std::to_string(bytes) +
                   "-byte accesses; cp.async copies 4, 8 or 16");
  int64_t contiguous = gpu::sharedContiguousDim(dst.type().encoding());
  if (access.dim != contiguous)
    e.fail(op, "ttg.async_copy_global_to_local: the global vectors run along dim " + std::to_string(access.dim) +
                   ", not along the shared tile's contiguous dim " + std::to_string(contiguous));
  auto offsets = sharedOffsets(dst.type());
  std::string thread = e.threadLinear(ll, offsets, false);
  std::string base = e.regs(dst)[0];
  const Regs& ptrs = e.regs(ptr);
  std::string kind = bytes == 16 ? "cg" : "ca";
  int64_t free = ll.freeVariableMasks()[static_cast<int>(HwDim::Register)];
  for (int64_t i = 0; i < static_cast<int64_t>(ptrs.size()); i += vec) {
    if (i & free) continue;
    std::string smem = e.reg(RegClass::B32);
    e.ins("mad.lo.u32 " + smem + ", " + e.xorConst(thread, offsets(ll.apply(HwDim::Register, i))) + ", " +
          std::to_string(elemBytes) + ", " + base);
    std::string copy = "cp.async." + kind + ".shared.global [" + smem + "], [" + ptrs[i] + "], " + std::to_string(bytes);
    if (mask) {
      std::string src = e.reg(RegClass::B32);
      e.ins("selp.u32 " + src + ", " + std::to_string(bytes) + ", 0, " + e.at(mask, i));
      copy += ", " + src;
    }
    e.ins(copy);
  }
}

}  // namespace

void emitAsyncOp(Emitter& e, Operation* op) {
  switch (op->code()) {
    case OpCode::MemdescIndex: return emitMemdescIndex(e, MemdescIndexOp(op));
    case OpCode::AsyncCopyGlobalToLocal: return emitAsyncCopy(e, AsyncCopyGlobalToLocalOp(op));
    case OpCode::AsyncCommitGroup: e.ins("cp.async.commit_group"); return;
    case OpCode::AsyncWait:
      e.ins("cp.async.wait_group " + std::to_string(AsyncWaitOp(op).num()));
      if (e.options().target.capability >= 90) e.ins("fence.proxy.async.shared::cta");
      e.barrier();
      return;
    default: e.fail(op, "not an async-copy op");
  }
}

}  // namespace tessera::ptx
