//===- Backend.cpp - compileToPtx: the GPU pipeline driver ----------------===//
//
// Tile IR -> (lowerToGpuIR, lib/gpu) Tile GPU IR -> (Emitter) PTX.
//
//===----------------------------------------------------------------------===//

#include "ptx/Emitter.h"
#include "tessera/Error.h"
#include "tessera/gpu/Backend.h"

namespace tessera::gpu {

PtxKernel compileToPtx(const ir::Module& module, const std::string& kernelName, const GpuOptions& options) {
  if (options.numWarps < 1 || options.numWarps > 32 || (options.numWarps & (options.numWarps - 1)))
    throw Error("kernel '" + kernelName + "': num_warps must be a power of 2 between 1 and 32");
  std::unique_ptr<ir::Module> gpu = lowerToGpuIR(module, kernelName, options);
  ir::Operation* kernel = gpu->lookup(kernelName);
  PtxKernel out = ptx::Emitter(kernel, options).emit();
  out.ttgir = ir::print(*gpu);
  return out;
}

PtxKernel emitPtx(const ir::Module& gpuModule, const std::string& kernelName, const GpuOptions& options) {
  ir::Operation* kernel = gpuModule.lookup(kernelName);
  if (!kernel) throw Error("no kernel named '" + kernelName + "' in the Tile GPU IR module");
  PtxKernel out = ptx::Emitter(kernel, options).emit();
  out.ttgir = ir::print(gpuModule);
  return out;
}

}  // namespace tessera::gpu
