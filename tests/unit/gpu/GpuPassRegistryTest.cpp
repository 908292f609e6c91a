//===- GpuPassRegistryTest.cpp - GPU passes in the one pass registry ------===//
//
// registerGpuPasses() adds the Tile GPU IR passes after the Tile IR ones,
// once however often it is called; a different pass under a taken name is
// refused; the registered passes run through transforms::runPasses. (What
// each pass does is checked IR in/IR out in tests/lit/gpu.)
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include "tessera/Error.h"
#include "tessera/gpu/Passes.h"

using namespace tessera;
using transforms::PassInfo;

namespace {

std::vector<std::string> registeredNames() {
  std::vector<std::string> names;
  for (const PassInfo& info : transforms::passRegistry()) names.push_back(info.name);
  return names;
}

TEST(GpuPassRegistry, RegisteringTwiceAddsEachPassOnce) {
  gpu::registerGpuPasses();
  gpu::registerGpuPasses();
  EXPECT_EQ(registeredNames(),
            (std::vector<std::string>{"inline", "canonicalize", "cse", "dce", "licm", "convert-to-gpu",
                                      "carry-block-pointer-offsets", "pointer-tiles-to-tma", "tma-descriptor-loads", "rewrite-block-pointers", "transposed-loads", "combine-dot-add", "upcast-fp8-dots", "carry-pointer-offsets", "pipeline-dot-loops", "ping-pong-warpgroups",
                                      "encode-host-tensormaps", "allocate-shared-memory", "propagate-dot-layouts", "wgmma-register-operands",
                                      "rematerialize-converts",
                                      "fold-converts", "sink-casts",
                                      "rematerialize-at-uses", "lower-to-gpu", "select-kernel"}));
  for (const PassInfo& info : gpu::gpuPasses()) {
    const PassInfo* found = transforms::findPass(info.name);
    ASSERT_NE(found, nullptr) << info.name;
    EXPECT_EQ(found->summary, info.summary);
    EXPECT_NE(found->create(found->defaultOptions), nullptr) << info.name;
  }
}

TEST(GpuPassRegistry, ADifferentPassUnderATakenNameIsRefused) {
  PassInfo clash = gpu::gpuPasses().front();
  clash.name = "cse";
  try {
    transforms::registerPasses({clash});
    FAIL() << "registering a second 'cse' should throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot register pass 'cse'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(transforms::findPass("cse")->summary.find("encoding"), std::string::npos);
}

TEST(GpuPassRegistry, RunsThroughRunPasses) {
  gpu::registerGpuPasses();
  auto module = ir::parseModule(
      "tt.func @k(%p: !tt.ptr<f32> {divisibility = 16}) attributes {kernel = true} {\n"
      "  %r = tt.make_range {end = 512, start = 0} : tensor<512xi32>\n"
      "  %s = tt.splat %p : tensor<512x!tt.ptr<f32>>\n"
      "  %a = tt.addptr %s, %r : tensor<512x!tt.ptr<f32>>\n"
      "  %v = tt.load %a : tensor<512xf32>\n"
      "  tt.store %a, %v\n"
      "  tt.return\n"
      "}\n");
  transforms::runPasses(*module, "convert-to-gpu{num-warps=2},rematerialize-converts,fold-converts");
  ir::Operation* k = module->lookup("k");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->intAttr("num_warps"), 2);
  // 512 aligned f32 over 64 threads: capped at 16 bytes, 4 per thread.
  std::string text = ir::print(*module);
  EXPECT_NE(text.find("tensor<512xf32, #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [2], "
                      "order = [0]}>>"),
            std::string::npos)
      << text;
}

}  // namespace
