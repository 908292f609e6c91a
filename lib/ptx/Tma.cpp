//===- Tma.cpp - TMA descriptors, mbarriers and bulk tensor copies --------===//
//
// The sm_90a ops of Ops.def that move blocks of a strided tensor with the
// Tensor Memory Accelerator:
//
// "The issuing thread" is Emitter::isThreadZero(): from sm_90 the lane
// elect.sync picks in warp 0 (in the producer region, its one thread).
//
//  * ttng.host_tensormap (encode-host-tensormaps' record of a descriptor
//    the launch encodes, lib/api/TensorMaps.cpp): the address of its
//    128-byte parameter; the issuing thread prefetches it. Its outer
//    operand, if any, is every copy's coordinate in the map's added
//    outermost dim.
//  * ttng.tensormap_create: the issuing thread writes the 128-byte
//    descriptor into this program's slot of the kernel's global scratch
//    (zeros, then tensormap.replace of every field: dims innermost first,
//    strides in bytes, rank - 1), then fence.proxy.tensormap release +
//    acquire, and a barrier of the kernel's warps orders the descriptor
//    before the copies other warps issue through it (below). A descriptor
//    is rewritten only after the copies through its old fields completed:
//    every copy a loop issues is waited for in the loop.
//  * ttng.descriptor_load (one the pipeliner did not stage): the block is copied unswizzled
//    into scratch shared memory (completing on an mbarrier there), every
//    thread waits for the barrier's phase 0 and reads its elements.
//  * mbarriers (ttng.init/inval_barriers, barrier_expect, wait_barrier)
//    and ttng.async_tma_copy_global_to_local, the pieces of the pipeliner's
//    TMA stages: the issuing thread arms the stage's barrier with the bytes
//    to come; the tile is copied one swizzle atom at a time (the
//    nvmma_shared layout of a 2-D tile is atoms of `swizzle` bytes x all
//    rows, side by side; TMA writes a box of the same swizzle with the same
//    pattern), warp w's elected lane copying atom w when the kernel's warps
//    are at least as many as the atoms (one copy instruction for all), the
//    issuing thread copying them all otherwise and in the producer region.
//    A transposed tile is the transpose of the block copied: its memory
//    rows are the descriptor's.
//
//===----------------------------------------------------------------------===//

#include <optional>

#include "ptx/Emitter.h"
#include "tessera/gpu/Target.h"
#include "tessera/ir/OpViews.h"

namespace tessera::ptx {

using namespace ir;

namespace {

/// tensormap.replace's element-type codes (PTX ISA, not CUtensorMapDataType).
int elemTypeCode(Emitter& e, Operation* op, Type elem) {
  switch (elem.bitWidth()) {
    case 8: return 0;                                  // .u8
    case 16: return elem == Type::bf16() ? 10 : elem == Type::f16() ? 6 : 1;  // .bf16 / .f16 / .u16
    case 32: return elem == Type::f32() ? 7 : 2;                             // .f32 / .u32
    case 64: return elem == Type::f64() ? 9 : 4;                             // .f64 / .u64
    default: e.fail(op, "ttng.tensormap_create: TMA cannot copy " + elem.str() + " elements");
  }
}

int swizzleCode(int64_t bytes) { return bytes == 128 ? 3 : bytes == 64 ? 2 : bytes == 32 ? 1 : 0; }

std::string replace(const std::string& field, const std::string& type, const std::string& addr) {
  return "tensormap.replace.tile." + field + ".global.b1024." + type + " [" + addr + "], ";
}

/// The descriptor's address and the coordinates of a copy through it,
/// outermost first: `inner`, after the coordinate in the outer dim a host
/// map was given for its base (ttng.host_tensormap's outer operand).
std::pair<std::string, std::vector<std::string>> descriptorCoordinates(Emitter& e, Value desc,
                                                                        std::vector<std::string> inner) {
  const Regs& d = e.regs(desc);
  if (d.size() > 1) inner.insert(inner.begin(), d[1]);
  return {d[0], inner};
}

/// ttng.host_tensormap: the kernel parameter the launch encoded (attr
/// `index`); with an outer operand, the copies' coordinate in the map's
/// outermost dim is that value.
void emitHostTensormap(Emitter& e, HostTensormapOp op) {
  std::string addr = e.hostTensorMapAddress(static_cast<int>(op.index()), gpu::hostTensorMapFromAttributes(op.op()));
  // Fetched into the TMA unit's cache while the program sets up.
  e.ins("@" + e.isThreadZero() + " prefetch.tensormap [" + addr + "]");
  if (Value outer = op.outer()) e.bind(op.result(), {addr, e.regs(outer)[0]});
  else e.bind(op.result(), {addr});
}

/// The block one copy through the descriptor `create` makes, outermost dim
/// first: a host map's outermost dim, added for its base, is not copied.
std::optional<std::vector<int64_t>> copyBox(Operation* create) {
  if (auto made = viewAs<TensormapCreateOp>(create)) return made->box();
  std::optional<HostTensormapOp> host = viewAs<HostTensormapOp>(create);
  if (!host) return std::nullopt;
  std::vector<int64_t> box = host->box();
  if (host->outer()) box.erase(box.begin());
  return box;
}

/// ttng.tensormap_create (one encode-host-tensormaps left: the host does
/// not know its base, shape or strides).
void emitTensormapCreate(Emitter& e, TensormapCreateOp op) {
  // The pipeliner's producer runs ahead of a persistent loop only over
  // descriptors the launch encodes; IR that skipped encode-host-tensormaps
  // must not get one written in the kernel instead.
  if (op.hostEncoded())
    e.fail(op.op(), "ttng.tensormap_create {host_encoded}: the launch must encode this descriptor "
                    "(run encode-host-tensormaps; it says why it cannot)");
  std::vector<int64_t> box = op.box();
  int rank = static_cast<int>(box.size());
  Type elem = op.base().type().pointeeType();
  int64_t elemBytes = elem.bitWidth() / 8;
  std::string addr = e.newTmaDescriptorSlot(), p = "@" + e.isThreadZero() + " ";
  std::string zero = e.reg(RegClass::B32);
  e.ins("mov.b32 " + zero + ", 0");
  for (int i = 0; i < gpu::kTmaDescriptorBytes / 16; ++i)
    e.ins(p + "st.global.v4.b32 [" + addr + "+" + std::to_string(16 * i) + "], {" + zero + ", " + zero + ", " + zero +
          ", " + zero + "}");
  e.ins(p + replace("global_address", "b64", addr) + e.regs(op.base())[0]);
  e.ins(p + replace("rank", "b32", addr) + std::to_string(rank - 1));
  for (int ord = 0; ord < rank; ++ord) {
    int d = rank - 1 - ord;  // ord 0 is the innermost dim
    std::string extent = e.reg(RegClass::B32);
    e.ins("cvt.u32.u64 " + extent + ", " + e.regs(op.shape(d))[0]);
    e.ins(p + replace("box_dim", "b32", addr) + std::to_string(ord) + ", " + std::to_string(box[d]));
    e.ins(p + replace("global_dim", "b32", addr) + std::to_string(ord) + ", " + extent);
    e.ins(p + replace("element_stride", "b32", addr) + std::to_string(ord) + ", 1");
    if (ord + 1 < rank) {  // ord k: the byte stride of dim k + 1 (innermost first)
      std::string stride = e.reg(RegClass::B64);
      e.ins("mul.lo.u64 " + stride + ", " + e.regs(op.stride(d - 1))[0] + ", " + std::to_string(elemBytes));
      e.ins(p + replace("global_stride", "b64", addr) + std::to_string(ord) + ", " + stride);
    }
  }
  e.ins(p + replace("elemtype", "b32", addr) + std::to_string(elemTypeCode(e, op.op(), elem)));
  e.ins(p + replace("interleave_layout", "b32", addr) + "0");
  e.ins(p + replace("swizzle_mode", "b32", addr) + std::to_string(swizzleCode(op.swizzle())));
  e.ins(p + replace("fill_mode", "b32", addr) + (op.padding() == "nan" ? "1" : "0"));
  e.ins(p + "fence.proxy.tensormap::generic.release.gpu");
  e.ins(p + "fence.proxy.tensormap::generic.acquire.gpu [" + addr + "], " + std::to_string(gpu::kTmaDescriptorBytes));
  // Other warps copy through it too (emitAsyncTmaCopy): after this barrier
  // (Triton's order). The producer region's one thread copies alone.
  if (!e.inProducer()) e.barrier();
  e.bind(op.result(), {addr});
}

/// "{c_innermost, ..., c_outermost}" of coordinate registers in tensor order.
std::string coordinates(const std::vector<std::string>& coords) {
  std::string s = "{";
  for (size_t i = coords.size(); i-- > 0;) s += coords[i] + (i ? ", " : "}");
  return s;
}

std::string bulkTensorCopy(size_t rank, const std::string& dst, const std::string& desc,
                           const std::vector<std::string>& coords, const std::string& bar) {
  return "cp.async.bulk.tensor." + std::to_string(rank) +
         "d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [" + dst + "], [" + desc + ", " +
         coordinates(coords) + "], [" + bar + "]";
}

/// Every thread waits until the barrier at `bar` completes the phase of
/// parity `phase` (a register or an immediate).
void waitBarrier(Emitter& e, const std::string& bar, const std::string& phase) {
  std::string done = e.reg(RegClass::Pred), loop = e.newLabel("tma_wait");
  e.raw(loop + ":");
  e.ins("mbarrier.try_wait.parity.shared::cta.b64 " + done + ", [" + bar + "], " + phase);
  e.ins("@!" + done + " bra " + loop);
}

/// The swizzle (bytes) of the descriptor a copyBox is of.
int64_t descriptorSwizzle(Operation* create) {
  if (auto made = viewAs<TensormapCreateOp>(create)) return made->swizzle();
  return HostTensormapOp(create).swizzle();
}

void emitDescriptorLoad(Emitter& e, DescriptorLoadOp op) {
  Type tile = op.result().type();
  Operation* create = op.desc().definingOp();
  std::optional<std::vector<int64_t>> box = copyBox(create);
  if (!box || *box != tile.shape() || descriptorSwizzle(create) != 0)
    e.fail(op.op(), "ttng.descriptor_load: needs a descriptor made in the kernel, unswizzled, whose box is the block");
  int64_t bytes = tile.numElements() * (tile.elementType().bitWidth() / 8);
  int64_t barAt = (bytes + 7) / 8 * 8;
  e.needScratch(barAt + 8);
  std::string smem = e.smemBase(), bar = e.reg(RegClass::B32), p = "@" + e.isThreadZero() + " ";
  e.ins("add.u32 " + bar + ", " + smem + ", " + std::to_string(barAt));
  // Earlier generic accesses of the scratch come before the TMA's writes.
  e.ins("fence.proxy.async.shared::cta");
  e.barrier();
  e.ins(p + "mbarrier.init.shared::cta.b64 [" + bar + "], 1");
  e.ins(p + "fence.mbarrier_init.release.cluster");
  e.barrier();
  std::vector<std::string> inner;
  for (Value c : op.coords()) inner.push_back(e.regs(c)[0]);
  auto [desc, coords] = descriptorCoordinates(e, op.desc(), inner);
  e.ins(p + "mbarrier.arrive.expect_tx.shared::cta.b64 _, [" + bar + "], " + std::to_string(bytes));
  e.ins(p + bulkTensorCopy(coords.size(), smem, desc, coords, bar));
  waitBarrier(e, bar, "0");
  e.bind(op.result(), loadFromScratch(e, e.layout(tile), tile.shape(), tile.elementType()));
  e.barrier();
  e.ins(p + "mbarrier.inval.shared::cta.b64 [" + bar + "]");
}

/// The address of barrier `index` (a register) of the buffer `bars`.
std::string barrierAt(Emitter& e, Value bars, Value index) {
  std::string bar = e.reg(RegClass::B32);
  e.ins("mad.lo.u32 " + bar + ", " + e.regs(index)[0] + ", 8, " + e.regs(bars)[0]);
  return bar;
}

/// `pred` and the issuing thread.
std::string threadZeroAnd(Emitter& e, Value pred) {
  std::string p = e.reg(RegClass::Pred);
  e.ins("and.pred " + p + ", " + e.regs(pred)[0] + ", " + e.isThreadZero());
  return p;
}

void emitAsyncTmaCopy(Emitter& e, AsyncTmaCopyGlobalToLocalOp op) {
  Value desc = op.desc(), dst = op.dst();
  Operation* create = desc.definingOp();
  Type tile = dst.type();
  Encoding enc = tile.encoding();
  std::optional<std::vector<int64_t>> copied = copyBox(create);
  std::vector<Value> at = op.coords();
  if (!copied || tile.rank() != 2 || !enc.isNvmmaShared() || at.size() < 2)
    e.fail(op.op(), "ttng.async_tma_copy_global_to_local: needs a descriptor made in the kernel and a 2-D "
                    "nvmma_shared tile");
  // The tile's rows in memory are the descriptor's rows (a transposed
  // tile is the transpose of the block copied); coordinates in its order.
  std::vector<int64_t> box = *copied;
  int64_t rows = tile.shape()[enc.transposed() ? 1 : 0], cols = tile.shape()[enc.transposed() ? 0 : 1];
  int64_t elemBytes = tile.elementType().bitWidth() / 8;
  if (box.size() != 2 || box[0] != rows || cols % box[1] != 0 || descriptorSwizzle(create) != enc.swizzlingByteWidth() ||
      (box[1] != cols && box[1] * elemBytes != enc.swizzlingByteWidth()))
    e.fail(op.op(), "ttng.async_tma_copy_global_to_local: the descriptor's box and swizzle do not match the tile");
  std::string bar = barrierAt(e, op.barriers(), op.index());
  std::string row = e.regs(at[0])[0], col = e.regs(at[1])[0];
  int64_t atoms = cols / box[1], atomBytes = rows * box[1] * elemBytes;
  if (atoms > 1 && atoms <= e.options().numWarps && !e.inProducer()) {
    // One copy instruction for all the atoms: warp w's elected lane copies
    // atom w (its column and place in the tile from the warp's index, which
    // ptxas knows is uniform), so each warp issues one copy, not `atoms`.
    std::string w = e.uniformWarpId(), mine = e.reg(RegClass::Pred), p = e.reg(RegClass::Pred);
    std::string atCol = e.reg(RegClass::B32), dstAt = e.reg(RegClass::B32);
    e.ins("setp.lt.u32 " + mine + ", " + w + ", " + std::to_string(atoms));
    e.ins("and.pred " + mine + ", " + mine + ", " + e.electedLane());
    e.ins("and.pred " + p + ", " + mine + ", " + e.regs(op.pred())[0]);
    e.ins("mad.lo.u32 " + atCol + ", " + w + ", " + std::to_string(box[1]) + ", " + col);
    e.ins("mad.lo.u32 " + dstAt + ", " + w + ", " + std::to_string(atomBytes) + ", " + e.regs(dst)[0]);
    auto [address, coords] = descriptorCoordinates(e, desc, {row, atCol});
    e.ins("@" + p + " " + bulkTensorCopy(coords.size(), dstAt, address, coords, bar));
    return;
  }
  std::string p = "@" + threadZeroAnd(e, op.pred()) + " ";
  for (int64_t k = 0; k * box[1] < cols; ++k) {
    std::string at = col;
    if (k) {
      at = e.reg(RegClass::B32);
      e.ins("add.s32 " + at + ", " + col + ", " + std::to_string(k * box[1]));
    }
    std::string dstAt = e.regs(dst)[0] + "+" + std::to_string(k * atomBytes);
    auto [address, coords] = descriptorCoordinates(e, desc, {row, at});
    e.ins(p + bulkTensorCopy(coords.size(), dstAt, address, coords, bar));
  }
}

/// ttng.init_barriers / ttng.inval_barriers: thread 0 initializes every
/// barrier of the buffer (arrival count attr `count`) or invalidates it.
void emitBarrierLifetime(Emitter& e, Operation* op) {
  std::optional<InitBarriersOp> init = viewAs<InitBarriersOp>(op);
  Value barriers = init ? init->barriers() : InvalBarriersOp(op).barriers();
  std::string base = e.regs(barriers)[0], p = "@" + e.isThreadZero() + " ";
  // init: the stages the TMA copies will write may have been scratch
  // written by generic stores just before (every thread's fence, then the
  // barrier). inval: every thread is done waiting.
  if (init) e.ins("fence.proxy.async.shared::cta");
  else e.barrier();
  for (int64_t k = 0; k < barriers.type().shape()[0]; ++k)
    e.ins(p + "mbarrier." + std::string(init ? "init" : "inval") + ".shared::cta.b64 [" + base + "+" +
          std::to_string(8 * k) + "]" + (init ? ", " + std::to_string(init->count()) : ""));
  if (init) {
    e.ins(p + "fence.mbarrier_init.release.cluster");
    e.barrier();  // initialized before any thread waits
  }
}

}  // namespace

void emitTmaOp(Emitter& e, Operation* op) {
  switch (op->code()) {
    case OpCode::TensormapCreate: return emitTensormapCreate(e, TensormapCreateOp(op));
    case OpCode::HostTensormap: return emitHostTensormap(e, HostTensormapOp(op));
    case OpCode::DescriptorLoad: return emitDescriptorLoad(e, DescriptorLoadOp(op));
    case OpCode::AsyncTmaCopyGlobalToLocal: return emitAsyncTmaCopy(e, AsyncTmaCopyGlobalToLocalOp(op));
    case OpCode::InitBarriers: case OpCode::InvalBarriers: return emitBarrierLifetime(e, op);
    case OpCode::BarrierExpect: {
      BarrierExpectOp expect(op);
      e.ins("@" + threadZeroAnd(e, expect.pred()) + " mbarrier.arrive.expect_tx.shared::cta.b64 _, [" +
            barrierAt(e, expect.barriers(), expect.index()) + "], " + std::to_string(expect.bytes()));
      return;
    }
    case OpCode::WaitBarrier: {
      WaitBarrierOp wait(op);
      return waitBarrier(e, barrierAt(e, wait.barriers(), wait.index()), e.regs(wait.phase())[0]);
    }
    case OpCode::ArriveBarrier: {
      ArriveBarrierOp arrive(op);
      std::string p = e.reg(RegClass::Pred), lane0 = e.reg(RegClass::Pred);
      e.ins("setp.eq.u32 " + lane0 + ", " + e.laneId() + ", 0");
      e.ins("and.pred " + p + ", " + e.regs(arrive.pred())[0] + ", " + lane0);
      e.ins("@" + p + " mbarrier.arrive.shared::cta.b64 _, [" + barrierAt(e, arrive.barriers(), arrive.index()) + "]");
      return;
    }
    default: e.fail(op, "not a TMA op");
  }
}

}  // namespace tessera::ptx
