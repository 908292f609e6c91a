//===- Backend.cpp - compileToPtx: the GPU pipeline driver ----------------===//
//
// Tile IR -> (lowerToGpuIR) Tile GPU IR -> (PtxEmitter) PTX.
//
//===----------------------------------------------------------------------===//

#include "tessera/Error.h"
#include "tessera/gpu/Backend.h"

namespace tessera::gpu {

PtxKernel compileToPtx(const ir::Module& module, const std::string& kernelName, const GpuOptions& options) {
  throw Error("kernel '" + kernelName + "': the PTX backend is not finished yet");
}

}  // namespace tessera::gpu
