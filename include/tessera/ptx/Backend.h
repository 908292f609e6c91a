//===- tessera/ptx/Backend.h - Tile GPU IR -> PTX ----------------*- C++ -*-===//
//
// The PTX stage. compileToPtx lowers a kernel's Tile IR (gpu::lowerToGpuIR)
// and emits PTX from the Tile GPU IR alone; emitPtx starts from Tile GPU IR.
// Pure C++: works on machines without a GPU or a CUDA toolkit. Assembling
// the PTX into a cubin (nvJitLink) and loading it is the runtime's job
// (lib/runtime).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>

#include "tessera/gpu/Backend.h"
#include "tessera/gpu/Target.h"
#include "tessera/ir/IR.h"

namespace tessera::ptx {

/// Lowers the kernel `kernelName` of an optimized Tile IR module (after
/// transforms::runTileIRPipeline) to PTX. The module is not modified.
/// Throws tessera::Error naming the kernel and the op for anything the
/// backend cannot lower.
gpu::PtxKernel compileToPtx(const ir::Module& module, const std::string& kernelName, const gpu::GpuOptions& options);

/// The PTX stage alone, on Tile GPU IR that is already lowered: every
/// tensor has its encoding and the last passes of gpu::gpuPipeline
/// (encode-host-tensormaps, allocate-shared-memory) have run, so the IR
/// holds every decision (tessera-opt runs them on hand-written ttgir).
/// For tools and tests.
gpu::PtxKernel emitPtx(const ir::Module& gpuModule, const std::string& kernelName, const gpu::GpuOptions& options);

}  // namespace tessera::ptx
