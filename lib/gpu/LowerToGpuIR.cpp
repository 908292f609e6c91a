//===- LowerToGpuIR.cpp - Tile IR -> Tile GPU IR pipeline -----------------===//
//
// Clones the module, inlines every call (noinline too: the PTX backend emits
// one entry function), simplifies, then runs the layout passes of
// GpuPasses.h and a final licm/dce. The kernel function carries
// `num_warps` so the printed ttgir is self-describing.
//
//===----------------------------------------------------------------------===//

#include "gpu/GpuPasses.h"
#include "tessera/Error.h"
#include "tessera/gpu/Backend.h"
#include "tessera/transforms/Passes.h"

namespace tessera::gpu {

using namespace ir;

std::unique_ptr<Module> lowerToGpuIR(const Module& module, const std::string& kernelName, const GpuOptions& options) {
  auto gpu = std::make_unique<Module>();
  for (Operation* f : module.functions()) {
    IRMapping mapping;
    gpu->addFunction(f->clone(mapping));
  }
  transforms::runPasses(*gpu, "inline{noinline-too=true},canonicalize,cse,dce");
  Operation* kernel = gpu->lookup(kernelName);
  if (!kernel) throw Error("no kernel named '" + kernelName + "' in the module");
  // Only the kernel is emitted.
  std::vector<Operation*> others;
  for (Operation* f : gpu->functions())
    if (f != kernel) others.push_back(f);
  for (Operation* f : others) gpu->eraseFunction(f);
  kernel->setAttr("num_warps", int64_t{options.numWarps});
  carryBlockPointerOffsets(kernel);
  // An advance by 0 along a dim (a matmul's A rows) leaves that offset
  // invariant: folded here, the rows' offsets, masks and address terms
  // become loop-invariant and licm hoists them after pipelining.
  transforms::runPasses(*gpu, "canonicalize,dce");
  // Only where the pipeliner stages the copies: one TMA copy outside a
  // pipeline goes through scratch shared memory, slower than the loads.
  if (options.pointerTma && options.numStages >= 2) pointerTilesToTma(kernel, options.target, options.numWarps);
  tmaDescriptorLoads(kernel, options.target, options.numWarps);
  rewriteBlockPointers(kernel);
  combineDotAdd(kernel, options.target, options.numWarps);
  upcastFp8Dots(kernel, options.target, options.numWarps);
  carryPointerOffsets(kernel);
  transforms::runPasses(*gpu, "dce");
  assignLayouts(kernel, options.numWarps, options.target);
  propagateDotLayouts(kernel);
  rematerializeConversions(kernel);
  foldConversions(kernel);
  wgmmaOperandsFromRegisters(kernel);
  transforms::runPasses(*gpu, "cse,dce");
  sinkWideningCasts(kernel);
  rematerializeAtUses(kernel);
  // num_stages >= 2: loops feeding wgmma dots get multi-stage cp.async
  // pipelines (num_stages = 1 turns it off, as in Triton).
  pipelineDotLoops(kernel, options.numStages);
  // The pipeline recomputes each staged tile's pointers and masks for a
  // later iteration inside the body, invariant parts included (a matmul's
  // A rows: offsets * stride + base, row masks): licm moves those out
  // (SASS loop 180 -> 163 instructions; matmul +4-17% at 2048-8192 on the
  // H200). No cse: rematerializeAtUses copied index math to each use on
  // purpose.
  transforms::runPasses(*gpu, "licm,dce");
  // After licm, which could hoist a layout change between a turn's wait and
  // its loop.
  pingPongWarpgroups(kernel);
  return gpu;
}

}  // namespace tessera::gpu
