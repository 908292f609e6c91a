//===- EncodeHostTensorMaps.cpp - Descriptors the launch encodes -----------===//
//
// Rewrites: each ttng.tensormap_create whose base, shape and strides the
//   launch knows (hostTensorMapOf: kernel arguments and constants, or an
//   argument plus a non-negative multiple of a stride) into a
//   ttng.host_tensormap carrying the whole map as attributes
//   (gpu::setHostTensorMapAttributes) and its `index`: equal maps share one
//   index, numbered in program order. A base of an argument plus a
//   multiple becomes the op's operand, every copy's coordinate in the
//   map's added outermost dim.
// Expects: Tile GPU IR after the pipeliner and its clean-up (the last GPU
//   pass but allocate-shared-memory): nothing later may move a descriptor
//   or change what its operands are. ttng.host_tensormap ops already there
//   keep their indices (running the pass again changes nothing).
// Guarantees: no ttng.tensormap_create marked `host_encoded` remains (the
//   pipeliner let a producer warpgroup run ahead of a persistent loop only
//   over such descriptors); when one cannot be encoded the pass fails
//   naming it. The PTX emitter reads the maps from the IR alone: the
//   kernel's host tensor map parameters are the indices' maps, in order.
// Why: the launch encodes these descriptors with cuTensorMapEncodeTiled
//   and passes them as __grid_constant__ parameters, which saves the
//   kernel writing a descriptor to global memory and fencing it (2-5 us a
//   launch on the H100). Deciding that here, once, leaves the emitter
//   nothing to re-derive (Triton: descriptors become typed kernel
//   arguments before lowering).
//
//===----------------------------------------------------------------------===//

#include <algorithm>

#include "gpu/GpuPasses.h"
#include "gpu/HostTensorMaps.h"
#include "tessera/Error.h"
#include "tessera/gpu/Target.h"
#include "tessera/ir/Builder.h"

namespace tessera::gpu {

using namespace ir;

void encodeHostTensorMaps(Operation* func) {
  std::vector<Operation*> creates;
  // Maps an earlier run gave indices keep them; new ones share or follow.
  std::vector<HostTensorMap> maps;
  func->walk([&](Operation* op) {
    if (op->is(OpCode::TensormapCreate)) creates.push_back(op);
    if (!op->is(OpCode::HostTensormap)) return;
    size_t index = static_cast<size_t>(op->intAttr("index"));
    if (index >= maps.size()) maps.resize(index + 1);
    maps[index] = hostTensorMapFromAttributes(op);
  });
  for (Operation* create : creates) {
    Value outer;
    std::optional<HostTensorMap> map = hostTensorMapOf(create, outer);
    if (!map) {
      if (create->boolAttr("host_encoded")) {
        Location l = create->loc();
        std::string where = l.known() ? *l.file + ":" + std::to_string(l.line) + ":" + std::to_string(l.col) + ": " : "";
        throw Error(where + "error: encode-host-tensormaps: the launch cannot encode this ttng.tensormap_create, "
                    "which the pipeliner marked host_encoded (kernel '" + funcName(func) + "')");
      }
      continue;
    }
    int64_t index = std::find(maps.begin(), maps.end(), *map) - maps.begin();
    if (index == static_cast<int64_t>(maps.size())) maps.push_back(*map);
    OpBuilder b;
    b.setInsertionPoint(create);
    b.setLoc(create->loc());
    std::vector<Value> operands;
    if (outer) operands.push_back(outer);
    Operation* host = b.create(OpCode::HostTensormap, {create->result().type()}, operands, {{"index", index}});
    setHostTensorMapAttributes(host, *map);
    create->result().replaceAllUsesWith(host->result());
    create->erase();
  }
}

}  // namespace tessera::gpu
