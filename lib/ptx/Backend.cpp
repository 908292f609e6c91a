//===- Backend.cpp - compileToPtx: the GPU pipeline driver ----------------===//
//
// Tile IR -> (gpu::lowerToGpuIR, lib/gpu) Tile GPU IR -> (Emitter) PTX. The
// emitter reads the Tile GPU IR alone: every decision it needs is in it.
//
//===----------------------------------------------------------------------===//

#include "ptx/Emitter.h"
#include "tessera/Error.h"
#include "tessera/gpu/Backend.h"
#include "tessera/ptx/Backend.h"

namespace tessera::ptx {

gpu::PtxKernel compileToPtx(const ir::Module& module, const std::string& kernelName, const gpu::GpuOptions& options) {
  if (options.numWarps < 1 || options.numWarps > 32 || (options.numWarps & (options.numWarps - 1)))
    throw Error("kernel '" + kernelName + "': num_warps must be a power of 2 between 1 and 32");
  std::unique_ptr<ir::Module> lowered = gpu::lowerToGpuIR(module, kernelName, options);
  ir::Operation* kernel = lowered->lookup(kernelName);
  gpu::PtxKernel out = Emitter(kernel, options).emit();
  out.ttgir = ir::print(*lowered);
  return out;
}

gpu::PtxKernel emitPtx(const ir::Module& gpuModule, const std::string& kernelName, const gpu::GpuOptions& options) {
  ir::Operation* kernel = gpuModule.lookup(kernelName);
  if (!kernel) throw Error("no kernel named '" + kernelName + "' in the Tile GPU IR module");
  gpu::PtxKernel out = Emitter(kernel, options).emit();
  out.ttgir = ir::print(gpuModule);
  return out;
}

}  // namespace tessera::ptx
