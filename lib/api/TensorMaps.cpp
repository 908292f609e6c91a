//===- TensorMaps.cpp - TMA descriptors encoded at launch -----------------===//
//
// A kernel whose TMA descriptors are made from its arguments alone (a
// matmul's tl.make_tensor_descriptor(a_ptr, [M, K], [stride_am, 1], ...)
// or tl.make_block_ptr) takes them as 128-byte parameters
// (gpu::HostTensorMap) instead of making them on the device: here the
// launch computes each descriptor's base, shape and strides from the
// values of the other parameters and has the driver encode it.
//
//===----------------------------------------------------------------------===//

#include <cstring>

#include "Internal.h"
#include "tessera/Error.h"
#include "tessera/runtime/Driver.h"

namespace tessera::detail {

namespace {

/// The value `s` reads: a parameter as packParams wrote it (the low bytes
/// of its slot, sign- or zero-extended) or a constant.
int64_t hostValue(const gpu::HostScalar& s, const gpu::PtxKernel& ptx, const uint64_t* slots) {
  if (s.param < 0) return s.constant;
  const gpu::KernelParam& p = ptx.params[static_cast<size_t>(s.param)];
  uint64_t raw = slots[s.param];
  int bits = p.type.isPointer() ? 64 : static_cast<int>(p.type.bitWidth());
  if (bits < 64) {
    uint64_t mask = (uint64_t{1} << bits) - 1;
    raw &= mask;
    if (!s.zeroExtend && (raw >> (bits - 1)) & 1) raw |= ~mask;
  }
  return static_cast<int64_t>(raw) * s.scale;
}

}  // namespace

void encodeHostTensorMaps(const frontend::JitFunction& fn, const CompiledKernelImpl& compiled,
                          const gpu::PtxKernel& ptx, const uint64_t* slots, void** ptrs,
                          std::vector<TensorMapBytes>& maps) {
  maps.resize(ptx.tensorMaps.size());
  for (size_t i = 0; i < ptx.params.size(); ++i) {
    int k = ptx.params[i].tensorMap;
    if (k < 0) continue;
    const gpu::HostTensorMap& m = ptx.tensorMaps[static_cast<size_t>(k)];
    int rank = static_cast<int>(m.box.size());
    uint64_t dims[5], strides[4];
    uint32_t box[5];
    std::string shapeText, strideText;
    for (int ord = 0; ord < rank; ++ord) {  // innermost first
      int d = rank - 1 - ord;
      int64_t extent = hostValue(m.shape[d], ptx, slots);
      dims[ord] = static_cast<uint64_t>(extent);
      box[ord] = static_cast<uint32_t>(m.box[d]);
      shapeText = std::to_string(extent) + (ord ? ", " : "") + shapeText;
      if (ord + 1 < rank) {
        int64_t stride = hostValue(m.strides[d - 1], ptx, slots);
        strides[ord] = static_cast<uint64_t>(stride) * static_cast<uint64_t>(m.elementBytes);
        strideText = std::to_string(stride) + (ord ? ", " : "") + strideText;
      }
    }
    ptrs[i] = maps[k].bytes;
    // An empty tensor (K = 0 for a matmul): TMA cannot describe it, and no
    // loop over it runs, so no copy reads the (zeroed) descriptor.
    bool empty = false;
    for (int ord = 0; ord < rank; ++ord) empty = empty || static_cast<int64_t>(dims[ord]) <= 0;
    if (empty) {
      std::memset(maps[k].bytes, 0, sizeof(maps[k].bytes));
      continue;
    }
    uint64_t base = static_cast<uint64_t>(hostValue(m.base, ptx, slots));
    std::string error =
        runtime::encodeTiledTensorMap(maps[k].bytes, m.dataType, rank, base, dims, strides, box, m.swizzle, m.nanFill);
    if (!error.empty()) {
      std::string of = m.base.param >= 0
                           ? " of '" + fn.params[static_cast<size_t>(compiled.argToParam[m.base.param])].name + "'"
                           : "";
      throw Error("kernel '" + ptx.name + "': the TMA descriptor" + of + " (shape [" + shapeText + "], strides [" +
                  strideText + ", 1]) cannot be encoded: " + error +
                  "; TMA needs a 16-byte aligned base and strides of multiples of 16 bytes");
    }
  }
}

}  // namespace tessera::detail
