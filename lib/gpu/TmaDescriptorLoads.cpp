//===- TmaDescriptorLoads.cpp - Tensor-descriptor loads through TMA --------===//
//
// Tile IR, sm_90a. A load through a tensor descriptor or a block pointer (a
// tt.make_tensor_ptr made in the same block as the tt.load; loops carry
// block pointers as offsets, BlockPointerLoops.cpp) is what the Tensor
// Memory Accelerator copies in one instruction: the block at some
// coordinates of a strided tensor, bounds-checked in every dim, with
// out-of-bounds elements filled with zeros or NaN. Where that pays, a wgmma
// operand tile loaded in a loop, such a load becomes
//
//   %desc = ttng.tensormap_create %base, %shape..., %strides...
//             {box = block shape, swizzle = 0, padding}
//   %tile = ttng.descriptor_load %desc, %offsets...
//
// The descriptor is made once, before the outermost loop whose body does
// not define its operands (descriptors with equal operands and attributes
// at one place are shared). The pipeliner stages these loads with TMA
// copies and mbarriers (PipelineLoops.cpp). Only loads it can stage are
// taken: operand A or B of a dot that runs on wgmma (directly, or read
// transposed: attention's k.T), whose memory rows are a multiple of 8 (the
// swizzle atoms of its stages stay aligned), K-major for fp8, with a
// descriptor made outside the loop. Every other descriptor load stays a
// block-pointer load (rewrite-block-pointers makes it a masked pointer
// tile, which mma.sync loops pipeline with cp.async); one the pipeliner
// leaves anyway (num_stages = 1, a loop that stores) is copied to scratch
// shared memory on an mbarrier and read from there (lib/ptx/Tma.cpp), so
// its tile is capped at 64 KiB.
//
// TMA needs a 16-byte aligned base and strides (but the last) that are
// multiples of 16 bytes, a unit last stride, box dims of at most 256 and
// rows of at least 16 bytes; NaN padding only for f16, bf16, f32 and f64.
// A loop of such copies after a write to global memory gets a
// ttng.fence_async_global (fence.proxy.async.global) before it: TMA reads
// through the async proxy.
// Where axis info cannot prove the alignment (a stride of 37 elements),
// the load is left to rewrite-block-pointers. The shape's dims must fit in
// 32 bits and the strides in 40 (TMA's limits; not checked at run time).
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <map>
#include <tuple>

#include "gpu/GpuPasses.h"
#include "tessera/ir/OpViews.h"
#include "tessera/gpu/AxisInfo.h"
#include "tessera/ir/Builder.h"

namespace tessera::gpu {

using namespace ir;

namespace {

/// The operands of a descriptor: base, shape..., strides... of the make.
std::vector<Value> descriptorOperands(Operation* make, int rank) {
  std::vector<Value> v;
  for (int i = 0; i < 1 + 2 * rank; ++i) v.push_back(make->operand(i));
  return v;
}

class TmaLoadRewriter {
 public:
  TmaLoadRewriter(Operation* func, const Target& target, int numWarps)
      : axis_(func), target_(target), numWarps_(numWarps) {}

  void rewrite(Operation* load) {
    Operation* make = load->operand(0).definingOp();
    if (!make || !make->is(OpCode::MakeTensorPtr) || make->block() != load->block()) return;
    Type tile = load->result().type();
    int rank = static_cast<int>(tile.rank());
    std::string padding = load->strAttr("padding") == "nan" ? "nan" : "zero";
    // TMA checks every dim; a block-pointer load may leave some unchecked
    // (read as they lie in memory), so only fully checked loads qualify.
    if (load->intArrayAttr("boundary_check").size() != static_cast<size_t>(rank)) return;
    if (!eligible(make, tile, padding) || !isStageableWgmmaOperand(load, target_, numWarps_)) return;
    std::vector<Value> operands = descriptorOperands(make, rank);
    Operation* at = hoistPoint(make, operands);
    if (at == make) return;  // made in the loop: the pipeliner could not stage it
    Value desc = descriptor(at, operands, tile.shape(), padding, load->loc());
    OpBuilder b;
    b.setInsertionPoint(load);
    b.setLoc(load->loc());
    std::vector<Value> coords = {desc};
    for (int d = 0; d < rank; ++d) coords.push_back(MakeTensorPtrOp(make).offset(d));
    Value loaded = b.create(OpCode::DescriptorLoad, {tile}, coords)->result();
    load->result().replaceAllUsesWith(loaded);
    load->erase();
    if (make->result().uses().empty()) make->erase();
  }

 private:
  /// TMA's requirements on the base and strides (file comment), by axis info.
  bool eligible(Operation* make, Type tile, const std::string& padding) {
    int rank = static_cast<int>(tile.rank());
    if (!tmaCanCopyTile(tile, padding)) return false;
    int64_t bytes = tile.elementType().bitWidth() / 8;
    MakeTensorPtrOp block(make);
    if (axis_.get(block.base()).divisibility[0] % 16 != 0) return false;
    const AxisInfo& last = axis_.get(block.stride(rank - 1));
    if (!last.constantValue || *last.constantValue != 1) return false;
    for (int d = 0; d + 1 < rank; ++d)
      if (axis_.get(block.stride(d)).divisibility[0] * bytes % 16 != 0) return false;
    return true;
  }

  /// Before the outermost loop (or if) around `make` that defines none of
  /// the operands; `make` itself when there is none.
  static Operation* hoistPoint(Operation* make, const std::vector<Value>& operands) {
    Operation* at = make;
    for (Operation* p = make->parentOp(); p && !p->is(OpCode::Func); p = p->parentOp()) {
      bool definesOne = false;
      for (Value v : operands) definesOne = definesOne || p->isAncestorOf(v.parentBlock()->parentOp());
      if (definesOne) break;
      if (p->is(OpCode::For) || p->is(OpCode::While) || p->is(OpCode::If)) at = p;
    }
    return at;
  }

  Value descriptor(Operation* at, const std::vector<Value>& operands, const std::vector<int64_t>& box,
                   const std::string& padding, const Location& loc) {
    std::vector<const void*> ids;
    for (Value v : operands) ids.push_back(v.impl());
    Value& made = made_[{at, ids, box, padding}];
    if (made) return made;
    OpBuilder b;
    b.setInsertionPoint(at);
    b.setLoc(loc);
    made = b.create(OpCode::TensormapCreate, {Type::pointer(Type::i8())}, operands,
                    {{"box", box}, {"swizzle", int64_t{0}}, {"padding", padding}})
               ->result();
    return made;
  }

  /// Descriptors made so far: insertion point, operands, box, padding.
  using Key = std::tuple<Operation*, std::vector<const void*>, std::vector<int64_t>, std::string>;

  AxisInfoAnalysis axis_;
  Target target_;
  int numWarps_;
  std::map<Key, Value> made_;
};

}  // namespace

bool tmaCanCopyTile(Type tile, const std::string& padding) {
  constexpr int64_t kMaxTileBytes = 64 * 1024;  // the scratch copy when not staged
  int rank = static_cast<int>(tile.rank());
  Type elem = tile.elementType();
  int64_t bits = elem.bitWidth();
  if (rank > 5 || (bits != 8 && bits != 16 && bits != 32 && bits != 64)) return false;
  if (padding == "nan" && elem != Type::f16() && elem != Type::bf16() && elem != Type::f32() && elem != Type::f64())
    return false;
  int64_t bytes = bits / 8;
  for (int64_t b : tile.shape())
    if (b > 256) return false;
  return tile.shape().back() * bytes % 16 == 0 && tile.numElements() * bytes <= kMaxTileBytes;
}

OpOperand* wgmmaOperandUse(Operation* load, const Target& target, int numWarps, bool* throughTrans) {
  if (!load->result().hasOneUse()) return nullptr;
  OpOperand* use = load->result().uses().front();
  bool trans = use->owner->is(OpCode::Trans);
  if (trans) {
    if (!use->owner->result().hasOneUse()) return nullptr;
    use = use->owner->result().uses().front();
  }
  if (!use->owner->is(OpCode::Dot) || use->index > 1 || !dotUsesWgmma(use->owner, target, numWarps)) return nullptr;
  if (throughTrans) *throughTrans = trans;
  return use;
}

bool isStageableWgmmaOperand(Operation* load, const Target& target, int numWarps, bool transposedCopy) {
  Type tile = load->result().type();
  if (tile.rank() != 2 || tile.shape()[transposedCopy ? 1 : 0] % 8 != 0 || !load->parentOp() ||
      !load->parentOp()->is(OpCode::For))
    return false;
  bool transposed = false;
  OpOperand* use = wgmmaOperandUse(load, target, numWarps, &transposed);
  if (!use || (transposed && transposedCopy)) return false;
  transposed = transposed || transposedCopy;
  // fp8 wgmma reads K-major tiles only: A as loaded, B transposed.
  if (isWgmmaFp8(tile.elementType().kind()) && transposed != (use->index == 1)) return false;
  return true;
}

namespace {

/// Whether global memory may be written before `loop` runs: earlier in the
/// kernel, or in an earlier iteration of a loop around it. Asserts, prints,
/// fences and descriptors write no memory the loads read.
bool writesBefore(Operation* loop) {
  auto writes = [](Operation* op) {
    bool w = false;
    op->walk([&](Operation* x) {
      w = w || (x->hasTrait(MemWrite) && !x->is(OpCode::Assert) && !x->is(OpCode::Print) &&
                !x->is(OpCode::FenceAsyncGlobal) && !x->is(OpCode::TensormapCreate));
    });
    return w;
  };
  for (Operation* at = loop; at && !at->is(OpCode::Func); at = at->parentOp()) {
    for (Operation* prev = at->prevOp(); prev; prev = prev->prevOp())
      if (writes(prev)) return true;
    Operation* parent = at->parentOp();
    if (parent && (parent->is(OpCode::For) || parent->is(OpCode::While)) && writes(parent)) return true;
  }
  return false;
}

}  // namespace

void tmaDescriptorLoads(Operation* func, const Target& target, int numWarps) {
  // sm_90a only: newer targets have not run this path yet.
  if (target.capability != 90 || !target.archSpecific) return;
  std::vector<Operation*> loads;
  func->walk([&](Operation* op) {
    if (op->is(OpCode::Load) && op->operand(0).type().isBlockPointer()) loads.push_back(op);
  });
  if (loads.empty()) return;
  TmaLoadRewriter rewriter(func, target, numWarps);
  for (Operation* load : loads) rewriter.rewrite(load);
  // TMA reads through the async proxy, which is not ordered after the
  // generic proxy's earlier writes (a persistent kernel's stores, a
  // kernel reading what it wrote) without fence.proxy.async.global.
  std::vector<Operation*> loops;
  func->walk([&](Operation* op) {
    Operation* loop = op->parentOp();
    if (op->is(OpCode::DescriptorLoad) && loop && loop->is(OpCode::For) &&
        std::find(loops.begin(), loops.end(), loop) == loops.end())
      loops.push_back(loop);
  });
  for (Operation* loop : loops) {
    if (!writesBefore(loop)) continue;
    OpBuilder b;
    b.setLoc(loop->loc());
    b.setInsertionPoint(loop);
    b.create(OpCode::FenceAsyncGlobal, {}, {});
  }
}

}  // namespace tessera::gpu
