//===- tessera/gpu/Backend.h - Tile IR -> Tile GPU IR -----------*- C++ -*-===//
//
// The GPU lowering (DESIGN.md decisions 4 and 5): takes the optimized Tile
// IR of one specialization, assigns layouts and runs the Tile GPU IR passes
// (lib/gpu) as one pass pipeline. Its result, Tile GPU IR with every
// decision recorded in it, is the only input of the PTX emitter
// (tessera/ptx/Backend.h). Pure C++: works on machines without a GPU or a
// CUDA toolkit.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <memory>
#include <string>

#include "tessera/gpu/Target.h"
#include "tessera/ir/IR.h"

namespace tessera::gpu {

/// Lowers the kernel `kernelName` of an optimized Tile IR module (after
/// transforms::runTileIRPipeline) to Tile GPU IR: clones the module and
/// runs gpuPipeline() on it, the verifier after every pass.
std::unique_ptr<ir::Module> lowerToGpuIR(const ir::Module& module, const std::string& kernelName,
                                         const GpuOptions& options);

/// The Tile IR -> Tile GPU IR pipeline for `kernelName` under `options`, as
/// a pass pipeline string of the registry's names (tessera-opt
/// --pass-pipeline runs it; gpuPasses() holds the GPU passes).
std::string gpuPipeline(const std::string& kernelName, const GpuOptions& options);

}  // namespace tessera::gpu
