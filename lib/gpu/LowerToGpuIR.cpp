//===- LowerToGpuIR.cpp - Tile IR -> Tile GPU IR pipeline -----------------===//
//
// The GPU lowering as one pass pipeline of registered names (gpuPipeline),
// run by the pass manager with the verifier after every pass and, when
// asked, a dump after every pass (GpuOptions::afterPass). It clones the
// module, inlines every call (noinline too: the PTX backend emits one entry
// function), simplifies, keeps only the kernel (which carries `num_warps`,
// so the printed ttgir is self-describing), then runs the layout passes of
// GpuPasses.h and a final licm/dce. Why each pass sits where it does is
// said next to it below.
//
//===----------------------------------------------------------------------===//

#include "gpu/GpuPasses.h"
#include "tessera/Error.h"
#include "tessera/gpu/Backend.h"
#include "tessera/gpu/Passes.h"
#include "tessera/transforms/Passes.h"

namespace tessera::gpu {

using namespace ir;

std::string gpuPipeline(const std::string& kernelName, const GpuOptions& options) {
  std::string warps = std::to_string(options.numWarps), target = options.target.name();
  std::string targeted = "{num-warps=" + warps + ",target=" + target + "}";
  std::vector<std::string> p = {
      "inline{noinline-too=true}", "canonicalize", "cse", "dce",
      // Only the kernel is emitted.
      "select-kernel{name=" + kernelName + ",num-warps=" + warps + "}",
      "carry-block-pointer-offsets",
      // An advance by 0 along a dim (a matmul's A rows) leaves that offset
      // invariant: folded here, the rows' offsets, masks and address terms
      // become loop-invariant and licm hoists them after pipelining.
      "canonicalize", "dce"};
  // A tile read both as it is and transposed by dots becomes two loads,
  // each a tile the passes below can copy (TMA, cp.async stages).
  p.push_back("transposed-loads");
  // Only where the pipeliner stages the copies: one TMA copy outside a
  // pipeline goes through scratch shared memory, slower than the loads.
  if (options.pointerTma && options.numStages >= 2) p.push_back("pointer-tiles-to-tma" + targeted);
  for (const char* pass : {"tma-descriptor-loads", "rewrite-block-pointers", "combine-dot-add", "upcast-fp8-dots"})
    p.push_back(std::string(pass) + (std::string(pass) == "rewrite-block-pointers" ? "" : targeted));
  for (const char* pass : {"carry-pointer-offsets", "dce"}) p.push_back(pass);
  p.push_back("convert-to-gpu" + targeted);
  for (const char* pass : {"propagate-dot-layouts", "rematerialize-converts", "fold-converts",
                           "wgmma-register-operands", "cse", "dce", "sink-casts", "rematerialize-at-uses"})
    p.push_back(pass);
  // num_stages >= 2: loops feeding wgmma dots get multi-stage cp.async
  // pipelines (num_stages = 1 turns it off, as in Triton).
  p.push_back("pipeline-dot-loops{num-stages=" + std::to_string(options.numStages) +
              (options.autoWarpSpecialize ? "" : ",auto-warp-specialize=0") + "}");
  // The pipeline recomputes each staged tile's pointers and masks for a
  // later iteration inside the body, invariant parts included (a matmul's
  // A rows: offsets * stride + base, row masks): licm moves those out. No
  // cse: rematerialize-at-uses copied index math to each use on purpose.
  p.push_back("licm");
  p.push_back("dce");
  // After licm, which could hoist a layout change between a turn's wait and
  // its loop.
  p.push_back("ping-pong-warpgroups");
  // What the PTX emitter reads, decided once every pass that moves ops
  // has run.
  p.push_back("encode-host-tensormaps");
  p.push_back("allocate-shared-memory");
  std::string spec;
  for (const std::string& pass : p) spec += (spec.empty() ? "" : ",") + pass;
  return spec;
}

std::unique_ptr<Module> lowerToGpuIR(const Module& module, const std::string& kernelName, const GpuOptions& options) {
  auto gpu = std::make_unique<Module>();
  for (Operation* f : module.functions()) {
    IRMapping mapping;
    gpu->addFunction(f->clone(mapping));
  }
  transforms::PassRunOptions run;
  run.extraPasses = &gpuPasses();
  run.afterPass = options.afterPass;
  transforms::runPasses(*gpu, gpuPipeline(kernelName, options), run);
  return gpu;
}

}  // namespace tessera::gpu
