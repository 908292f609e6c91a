//===- GpuPassRegistry.cpp - The Tile GPU IR passes as registry entries ---===//
//
// Wraps each pass of GpuPasses.h (and the whole lowerToGpuIR pipeline) in a
// transforms::Pass with a command-line name, so tessera-opt runs any of them
// alone on IR text and lit tests check them IR in, IR out. The table lives
// here, not in lib/transforms, because transforms must not depend on gpu;
// registerGpuPasses() adds it to the one registry at start-up.
//
// Which functions a pass touches: convert-to-gpu and lower-to-gpu work on
// the kernels (functions with `kernel = true`); when the module marks none
// (hand-written tests), convert-to-gpu takes every function and lower-to-gpu
// every function no tt.call names. Both refuse a kernel with tensor
// parameters or results (its signature would keep no encoding). The local
// rewrites (combine-dot-add, propagate-dot-layouts, rematerialize-converts, fold-converts,
// sink-casts, rematerialize-at-uses) run on every function: they only touch converts,
// casts and index math.
//
//===----------------------------------------------------------------------===//

#include <cassert>
#include <charconv>
#include <functional>
#include <set>
#include <variant>

#include "gpu/GpuPasses.h"
#include "tessera/Error.h"
#include "tessera/gpu/Backend.h"
#include "tessera/gpu/Passes.h"

namespace tessera::gpu {

using namespace ir;
using transforms::Pass;
using transforms::PassInfo;
using Options = std::map<std::string, std::string>;

namespace {

/// The functions marked `kernel = true`; if none is, all of them
/// (convert-to-gpu) or those no tt.call names (lower-to-gpu inlines the
/// others into them).
std::vector<Operation*> kernelsOf(const Module& module, bool uncalledOnly) {
  std::vector<Operation*> kernels;
  for (Operation* f : module.functions())
    if (f->boolAttr("kernel")) kernels.push_back(f);
  if (!kernels.empty()) return kernels;
  std::set<std::string> called;
  if (uncalledOnly)
    module.walk([&](Operation* op) {
      if (op->is(OpCode::Call)) called.insert(op->strAttr("callee"));
    });
  for (Operation* f : module.functions())
    if (!called.count(funcName(f))) kernels.push_back(f);
  return kernels;
}

/// Layouts are given to kernels: their parameters are pointers and scalars
/// and they return nothing, so no tensor crosses the function boundary
/// without an encoding. Anything else is refused with a clear message
/// (assignLayouts would leave the signature without encodings).
void checkKernelSignature(Operation* f, const std::string& pass) {
  bool tensors = false;
  for (Value arg : funcBody(f).arguments()) tensors = tensors || arg.type().isTensor();
  if (const Attribute* r = f->attr("result_types"))
    if (const auto* types = std::get_if<std::vector<Type>>(r))
      for (Type t : *types) tensors = tensors || t.isTensor();
  if (tensors)
    throw Error("pass '" + pass + "': function @" + funcName(f) +
                " takes or returns tensors; layouts are assigned to kernels, whose parameters are pointers and "
                "scalars (inline it into its caller first, or mark the kernels with `kernel = true`)");
}

/// A positive integer option (a power of two when `pow2`), or `dflt`.
int intOption(const Options& options, const std::string& pass, const std::string& name, int dflt, bool pow2) {
  auto it = options.find(name);
  if (it == options.end()) return dflt;
  const std::string& text = it->second;
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value <= 0 || (pow2 && (value & (value - 1)) != 0))
    throw Error("pass '" + pass + "': option '" + name + "' expects a " +
                (pow2 ? "power of two" : "positive integer") + ", got '" + text + "'");
  return value;
}

/// A 0/1 option, or `dflt`.
bool flagOption(const Options& options, const std::string& pass, const std::string& name, bool dflt) {
  auto it = options.find(name);
  if (it == options.end()) return dflt;
  if (it->second != "0" && it->second != "1")
    throw Error("pass '" + pass + "': option '" + name + "' expects 0 or 1, got '" + it->second + "'");
  return it->second == "1";
}

int numWarpsOption(const Options& options, const std::string& pass) {
  return intOption(options, pass, "num-warps", 4, /*pow2=*/true);
}

/// The `target` option ("sm_90a", "sm_80", ...): which dots run on tensor cores.
Target targetOption(const Options& options) {
  auto it = options.find("target");
  return it == options.end() ? Target{} : Target::parse(it->second);
}

/// A pass that applies `fn` to each kernel (kernelsOf) or to every function.
class FunctionPass : public Pass {
 public:
  using Fn = std::function<void(Operation*)>;
  FunctionPass(Fn fn, bool kernelsOnly) : fn_(std::move(fn)), kernelsOnly_(kernelsOnly) {}
  void run(Module& module) override {
    for (Operation* f : kernelsOnly_ ? kernelsOf(module, /*uncalledOnly=*/false) : module.functions()) fn_(f);
  }

 private:
  Fn fn_;
  bool kernelsOnly_;
};

std::unique_ptr<Pass> createConvertToGpu(const Options& options) {
  int numWarps = numWarpsOption(options, "convert-to-gpu");
  Target target = targetOption(options);
  return std::make_unique<FunctionPass>(
      [numWarps, target](Operation* f) {
        checkKernelSignature(f, "convert-to-gpu");
        f->setAttr("num_warps", int64_t{numWarps});
        assignLayouts(f, numWarps, target);
      },
      /*kernelsOnly=*/true);
}

/// select-kernel: erases every function but the kernel, which gets its
/// `num_warps` attribute (what lowerToGpuIR emits).
class SelectKernelPass : public Pass {
 public:
  SelectKernelPass(std::string name, int numWarps) : name_(std::move(name)), numWarps_(numWarps) {}
  void run(Module& module) override {
    Operation* kernel = module.lookup(name_);
    if (!kernel) throw Error("no kernel named '" + name_ + "' in the module");
    std::vector<Operation*> others;
    for (Operation* f : module.functions())
      if (f != kernel) others.push_back(f);
    for (Operation* f : others) module.eraseFunction(f);
    kernel->setAttr("num_warps", int64_t{numWarps_});
  }

 private:
  std::string name_;
  int numWarps_;
};

std::unique_ptr<Pass> createFunctionPass(void (*fn)(Operation*)) {
  return std::make_unique<FunctionPass>(fn, /*kernelsOnly=*/false);
}

/// A function pass whose rewrite depends on the target and the warp count
/// (its num-warps and target options).
std::unique_ptr<Pass> createTargetedPass(const Options& options, const std::string& name,
                                         void (*fn)(Operation*, const Target&, int)) {
  int numWarps = numWarpsOption(options, name);
  Target target = targetOption(options);
  return std::make_unique<FunctionPass>([fn, numWarps, target](Operation* f) { fn(f, target, numWarps); },
                                        /*kernelsOnly=*/false);
}

/// lowerToGpuIR for each kernel; the module is replaced by the lowered
/// kernels (helpers are inlined into them and dropped, as for the PTX).
class LowerToGpuPass : public Pass {
 public:
  LowerToGpuPass(int numWarps, int numStages, Target target, bool pointerTma, bool autoWarpSpecialize) {
    options_.numWarps = numWarps;
    options_.numStages = numStages;
    options_.target = target;
    options_.pointerTma = pointerTma;
    options_.autoWarpSpecialize = autoWarpSpecialize;
  }
  void run(Module& module) override {
    std::vector<std::unique_ptr<Module>> lowered;
    for (Operation* k : kernelsOf(module, /*uncalledOnly=*/true)) {
      checkKernelSignature(k, "lower-to-gpu");
      lowered.push_back(lowerToGpuIR(module, funcName(k), options_));
    }
    std::vector<Operation*> old = module.functions();
    for (Operation* f : old) module.eraseFunction(f);
    for (const auto& m : lowered) {
      assert(m->functions().size() == 1 && "lowerToGpuIR keeps only the kernel");
      IRMapping mapping;
      module.addFunction(m->functions().front()->clone(mapping));
    }
  }

 private:
  GpuOptions options_;
};

}  // namespace

const std::vector<PassInfo>& gpuPasses() {
  static const std::vector<PassInfo> passes = {
      {"convert-to-gpu",
       "Gives every tensor of each kernel an encoding (coalesced blocked layout per rank, slices, linear "
       "layouts) and inserts ttg.convert_layout where an op needs another one.",
       {{"num-warps", "4"}, {"target", "sm_90a"}},
       createConvertToGpu},
      {"carry-block-pointer-offsets",
       "Block pointers carried through scf.for (advanced each iteration) become i32 offset iteration "
       "arguments, remade at the top of the body; tt.advance of a tt.make_tensor_ptr becomes a make.",
       {},
       [](const Options&) { return createFunctionPass(carryBlockPointerOffsets); }},
      {"pointer-tiles-to-tma",
       "sm_90a: masked pointer-tile loads of wgmma operands in a loop that are a block of a strided tensor "
       "(base + (offset + arange) * stride per dim, one bound per dim in the mask, other = 0) become "
       "block-pointer loads for tma-descriptor-loads; unproven non-negative offsets get a tt.assert.",
       {{"num-warps", "4"}, {"target", "sm_90a"}},
       [](const Options& options) {
         return createTargetedPass(options, "pointer-tiles-to-tma", pointerTilesToTma);
       }},
      {"tma-descriptor-loads",
       "sm_90a: loads through a tensor descriptor that TMA can copy (aligned base and strides, unit last "
       "stride) become ttng.descriptor_load of a ttng.tensormap_create made before the outermost loop.",
       {{"num-warps", "4"}, {"target", "sm_90a"}},
       [](const Options& options) {
         return createTargetedPass(options, "tma-descriptor-loads", tmaDescriptorLoads);
       }},
      {"rewrite-block-pointers",
       "Loads and stores through a block pointer made in the same block become a tile of pointers "
       "(base + sum of index * stride, i64) with a bounds mask and the padding as `other`.",
       {},
       [](const Options&) { return createFunctionPass(rewriteBlockPointers); }},
      {"transposed-loads",
       "A tt.trans read only by dots, of a loaded tile that is also read as it is, becomes a second load "
       "of the transposed pointer, mask and other tiles (so each orientation is a tile of its own).",
       {},
       [](const Options&) { return createFunctionPass(transposeLoadedOperands); }},
      {"combine-dot-add",
       "Folds x + tt.dot(a, b, 0) into tt.dot(a, b, x) when the dot has no other use (not fp8 dots on wgmma, "
       "as in Triton).",
       {{"num-warps", "4"}, {"target", "sm_90a"}},
       [](const Options& options) { return createTargetedPass(options, "combine-dot-add", combineDotAdd); }},
      {"upcast-fp8-dots",
       "Extends the fp8 (e4m3, e5m2) operands of tt.dot to fp16, so the dot runs on fp16 tensor-core "
       "instructions, except the dots wgmma multiplies in fp8 (sm_90a).",
       {{"num-warps", "4"}, {"target", "sm_90a"}},
       [](const Options& options) { return createTargetedPass(options, "upcast-fp8-dots", upcastFp8Dots); }},
      {"carry-pointer-offsets",
       "Loop-carried tensors of pointers advanced by a splat scalar become the initial pointers plus a "
       "carried scalar i64 offset.",
       {},
       [](const Options&) { return createFunctionPass(carryPointerOffsets); }},
      {"pipeline-dot-loops",
       "Loops with wgmma dots get an S-stage shared buffer per operand and cp.async copies S - 1 "
       "iterations ahead (num-stages = S >= 2). Runs after convert-to-gpu. auto-warp-specialize=0: only "
       "loops that ask (tl.range(..., warp_specialize=True)) get a producer warpgroup.",
       {{"num-stages", "3"}, {"auto-warp-specialize", "1"}},
       [](const Options& options) {
         int stages = intOption(options, "pipeline-dot-loops", "num-stages", 3, /*pow2=*/false);
         bool autoWs = flagOption(options, "pipeline-dot-loops", "auto-warp-specialize", true);
         return std::make_unique<FunctionPass>(
             [stages, autoWs](Operation* f) { pipelineDotLoops(f, stages, autoWs); }, /*kernelsOnly=*/false);
       }},
      {"ping-pong-warpgroups",
       "In a warp-specialized kernel of 8 warps, the two consumer warpgroups take turns at their loops' "
       "wgmma dots (ttng.ping_pong). Runs after pipeline-dot-loops and licm.",
       {},
       [](const Options&) {
         return std::make_unique<FunctionPass>([](Operation* f) { pingPongWarpgroups(f); }, /*kernelsOnly=*/false);
       }},
      {"encode-host-tensormaps",
       "ttng.tensormap_create ops whose base, shape and strides the launch knows become ttng.host_tensormap, "
       "the map as attributes and its index among the kernel's host tensor maps (equal maps share one). "
       "Fails on a descriptor marked host_encoded that cannot be encoded. The last pass but allocate-shared-memory.",
       {},
       [](const Options&) { return createFunctionPass(encodeHostTensorMaps); }},
      {"allocate-shared-memory",
       "Records the shared-memory plan: `offset` on each ttg.local_alloc (first fit of live ranges, "
       "1024-aligned), `shared_buffers_bytes` on the function and `scratch_offset` (past the buffers live "
       "there) on each op whose lowering may use scratch. The last pass before PTX.",
       {},
       [](const Options&) { return createFunctionPass(allocateSharedMemory); }},
      {"propagate-dot-layouts",
       "Keeps what is computed from an mma dot result (elementwise ops, reductions, expand_dims, "
       "broadcasts, loop-carried values) in the mma layout instead of converting it to the blocked one.",
       {},
       [](const Options&) { return createFunctionPass(propagateDotLayouts); }},
      {"wgmma-register-operands",
       "Feeds wgmma's A from registers (dot_op of the mma v3 parent) instead of a shared-memory copy when the tile "
       "is already in the accumulator fragment layout.",
       {},
       [](const Options&) { return createFunctionPass(wgmmaOperandsFromRegisters); }},
      {"rematerialize-converts",
       "Replaces converts of cheap chains (ranges, splats, constants, index arithmetic) by copies of the "
       "chain built in the target layout.",
       {},
       [](const Options&) { return createFunctionPass(rematerializeConversions); }},
      {"fold-converts",
       "Removes converts to the same encoding and collapses convert(convert(x)) into one convert.",
       {},
       [](const Options&) { return createFunctionPass(foldConversions); }},
      {"sink-casts",
       "Moves widening casts (ext*, *tofp, bitcast) down to just before their first user in the same "
       "block.",
       {},
       [](const Options&) { return createFunctionPass(sinkWideningCasts); }},
      {"rematerialize-at-uses",
       "Copies cheap index values (ranges, splats, masks, offset arithmetic) right before each later user "
       "in the same block.",
       {},
       [](const Options&) { return createFunctionPass(rematerializeAtUses); }},
      {"lower-to-gpu",
       "Runs the whole Tile IR -> Tile GPU IR pipeline (inline, simplify, layouts, converts, cse/dce, "
       "sink-casts, rematerialize-at-uses, pipeline-dot-loops) on each kernel; other functions are dropped. "
       "pointer-tma=0 leaves out pointer-tiles-to-tma; auto-warp-specialize=0 gives a producer warpgroup only "
       "to loops that ask.",
       {{"num-warps", "4"}, {"num-stages", "3"}, {"target", "sm_90a"}, {"pointer-tma", "1"},
        {"auto-warp-specialize", "1"}},
       [](const Options& options) {
         return std::make_unique<LowerToGpuPass>(numWarpsOption(options, "lower-to-gpu"),
                                                 intOption(options, "lower-to-gpu", "num-stages", 3, /*pow2=*/false),
                                                 targetOption(options),
                                                 flagOption(options, "lower-to-gpu", "pointer-tma", true),
                                                 flagOption(options, "lower-to-gpu", "auto-warp-specialize", true));
       }},
      {"select-kernel",
       "Keeps only the kernel `name` (the others are inlined into it by then) and gives it its num_warps.",
       {{"name", ""}, {"num-warps", "4"}},
       [](const Options& options) {
         return std::make_unique<SelectKernelPass>(options.at("name"), numWarpsOption(options, "select-kernel"));
       }},
  };
  return passes;
}

void registerGpuPasses() { transforms::registerPasses(gpuPasses()); }

}  // namespace tessera::gpu
