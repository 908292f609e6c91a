//===- TmaDescriptorLoads.cpp - Tensor-descriptor loads through TMA --------===//
//
// Tile IR, sm_90a. A load through a tensor descriptor (a tt.make_tensor_ptr
// {descriptor}, made in the same block as the tt.load) is what the Tensor
// Memory Accelerator copies in one instruction: the block at some
// coordinates of a strided tensor, bounds-checked in every dim, with
// out-of-bounds elements filled with zeros or NaN. As Triton does on
// Hopper, such a load becomes
//
//   %desc = ttng.tensormap_create %base, %shape..., %strides...
//             {box = block shape, swizzle = 0, padding}
//   %tile = ttng.descriptor_load %desc, %offsets...
//
// The descriptor is made once, before the outermost loop whose body does
// not define its operands (descriptors with equal operands and attributes
// at one place are shared). The pipeliner stages descriptor loads feeding
// wgmma with TMA copies and mbarriers (PipelineLoops.cpp); the others are
// copied to scratch shared memory and read from there (lib/ptx/Tma.cpp).
//
// TMA needs a 16-byte aligned base and strides (but the last) that are
// multiples of 16 bytes, a unit last stride, box dims of at most 256 and
// rows of at least 16 bytes. Where axis info cannot prove the alignment
// (a stride of 37 elements), the load is left to rewrite-block-pointers,
// which turns it into a masked tile of pointers.
//
//===----------------------------------------------------------------------===//

#include <map>

#include "gpu/GpuPasses.h"
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
  explicit TmaLoadRewriter(Operation* func) : axis_(func) {}

  void rewrite(Operation* load) {
    Operation* make = load->operand(0).definingOp();
    if (!make || !make->is(OpCode::MakeTensorPtr) || !make->boolAttr("descriptor") || make->block() != load->block())
      return;
    Type tile = load->result().type();
    int rank = static_cast<int>(tile.rank());
    if (!eligible(make, tile)) return;
    std::vector<Value> operands = descriptorOperands(make, rank);
    Operation* at = hoistPoint(make, operands);
    std::string padding = load->strAttr("padding") == "nan" ? "nan" : "zero";
    Value desc = descriptor(at, operands, tile.shape(), padding, load->loc());
    OpBuilder b;
    b.setInsertionPoint(load);
    b.setLoc(load->loc());
    std::vector<Value> coords = {desc};
    for (int d = 0; d < rank; ++d) coords.push_back(make->operand(1 + 2 * rank + d));
    Value loaded = b.create(OpCode::DescriptorLoad, {tile}, coords)->result();
    load->result().replaceAllUsesWith(loaded);
    load->erase();
    if (make->result().uses().empty()) make->erase();
  }

 private:
  /// TMA's requirements (file comment), from the element type and axis info.
  bool eligible(Operation* make, Type tile) {
    int rank = static_cast<int>(tile.rank());
    int64_t bits = tile.elementType().bitWidth();
    if (rank > 5 || (bits != 8 && bits != 16 && bits != 32 && bits != 64)) return false;
    int64_t bytes = bits / 8;
    for (int64_t b : tile.shape())
      if (b > 256) return false;
    if (tile.shape().back() * bytes % 16 != 0) return false;
    if (axis_.get(make->operand(0)).divisibility[0] < 16) return false;
    const AxisInfo& last = axis_.get(make->operand(2 * rank));
    if (!last.constantValue || *last.constantValue != 1) return false;
    for (int d = 0; d + 1 < rank; ++d)
      if (axis_.get(make->operand(1 + rank + d)).divisibility[0] * bytes % 16 != 0) return false;
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
    Key key{at, operands, box, padding};
    auto it = made_.find(key);
    if (it != made_.end()) return it->second;
    OpBuilder b;
    b.setInsertionPoint(at);
    b.setLoc(loc);
    Value desc = b.create(OpCode::TensormapCreate, {Type::pointer(Type::i8())}, operands,
                          {{"box", box}, {"swizzle", int64_t{0}}, {"padding", padding}})
                     ->result();
    made_[key] = desc;
    return desc;
  }

  struct Key {
    Operation* at;
    std::vector<Value> operands;
    std::vector<int64_t> box;
    std::string padding;
    bool operator<(const Key& o) const {
      auto ids = [](const std::vector<Value>& v) {
        std::vector<const void*> p;
        for (Value x : v) p.push_back(x.impl());
        return p;
      };
      return std::tie(at, box, padding) < std::tie(o.at, o.box, o.padding) ||
             (std::tie(at, box, padding) == std::tie(o.at, o.box, o.padding) && ids(operands) < ids(o.operands));
    }
  };

  AxisInfoAnalysis axis_;
  std::map<Key, Value> made_;
};

}  // namespace

void tmaDescriptorLoads(Operation* func, const Target& target, int /*numWarps*/) {
  if (target.capability < 90 || !target.archSpecific) return;
  std::vector<Operation*> loads;
  func->walk([&](Operation* op) {
    if (op->is(OpCode::Load) && op->operand(0).type().isBlockPointer()) loads.push_back(op);
  });
  if (loads.empty()) return;
  TmaLoadRewriter rewriter(func);
  for (Operation* load : loads) rewriter.rewrite(load);
}

}  // namespace tessera::gpu
