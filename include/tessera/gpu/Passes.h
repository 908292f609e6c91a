//===- tessera/gpu/Passes.h - The Tile GPU IR passes by name ----*- C++ -*-===//
//
// The GPU layer's pass table, in the same PassInfo form as the Tile IR
// registry (tessera/transforms/Passes.h), so every Tile GPU IR pass can be
// run alone, IR in and IR out:
//
//   tessera-opt k.ttir --pass=convert-to-gpu{num-warps=4},rematerialize-converts
//
// lib/transforms does not depend on lib/gpu: a tool that wants these names
// calls registerGpuPasses() (tessera-opt's main does) before running passes.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <vector>

#include "tessera/transforms/Passes.h"

namespace tessera::gpu {

/// The Tile GPU IR passes, in pipeline order:
///   convert-to-gpu{num-warps}   assignLayouts on each kernel (functions with
///                               `kernel = true`; every function if none is)
///   rematerialize-converts      converts of cheap chains rebuilt in place
///   fold-converts               no-op and chained converts removed
///   sink-casts                  widening casts moved to their first use
///   rematerialize-at-uses       cheap index values copied to each user
///   lower-to-gpu{num-warps}     the whole lowerToGpuIR pipeline, per kernel
const std::vector<transforms::PassInfo>& gpuPasses();

/// transforms::registerPasses(gpuPasses()); harmless to call twice.
void registerGpuPasses();

}  // namespace tessera::gpu
