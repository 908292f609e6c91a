//===- GpuStagesTest.cpp - Kernel::compile's GPU stages and disk cache ----===//
//
// Drives the public API's GPU stages (ttgir, ptx, cubin, sass, metadata)
// with a stand-in PTX backend (detail::setPtxCompilerForTesting) that
// returns hand-written PTX and counts its calls, so the wiring and the disk
// cache are checked independently of the real backend: a second process-like
// start (a new Program) must reuse the cubin from disk without compiling, a
// changed source/option/target must not, and a corrupt entry is rebuilt.
// No GPU needed; the cubin stages need the CUDA toolkit.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "TestPtx.h"
#include "TestUtil.h"
#include "api/Internal.h"
#include "tessera/runtime/Assembler.h"
#include "tessera/runtime/DiskCache.h"
#include "tessera/runtime/Driver.h"
#include "tessera/tessera.h"

namespace {

using namespace tessera;
namespace fs = std::filesystem;

const char* kSource = R"(
import triton
import triton.language as tl

@triton.jit
def square(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = offs < n
    x = tl.load(x_ptr + offs, mask=keep)
    tl.store(y_ptr + offs, x * x, mask=keep)
)";

const char* kSignature = "*fp32:16, *fp32:16, i32";

#define REQUIRE_TOOLKIT()                                                                \
  do {                                                                                   \
    std::string why;                                                                     \
    if (!runtime::toolkitAvailable(&why)) GTEST_SKIP() << "no CUDA toolkit: " << why;    \
  } while (0)

/// Installs the stand-in backend for one test and counts its calls.
class GpuStages : public ::testing::Test {
 protected:
  void SetUp() override {
    calls = 0;
    detail::setPtxCompilerForTesting([this](const ir::Module& module, const std::string& name,
                                            const gpu::GpuOptions& options) {
      ++calls;
      EXPECT_NE(module.lookup(name), nullptr);
      return testptx::elementwiseKernel(options.target, false, name, options.numWarps);
    });
  }
  void TearDown() override { detail::setPtxCompilerForTesting({}); }

  CompiledKernel compile(const std::string& source, const std::string& arch, int numWarps = 4) {
    LaunchOptions o;
    o.num_warps = numWarps;
    return Program::from_source(source, "square.py")
        .kernel("square")
        .compile(kSignature, {{"BLOCK", int64_t(128)}}, o, arch);
  }

  /// Cache entries (directories not starting with '.', libdevice/ aside).
  static std::vector<std::string> entries(const std::string& dir) {
    std::vector<std::string> out;
    if (!fs::exists(dir)) return out;
    for (const auto& e : fs::directory_iterator(dir)) {
      std::string name = e.path().filename().string();
      if (name[0] != '.' && name != "libdevice") out.push_back(name);
    }
    return out;
  }

  std::atomic<int> calls{0};
  testutil::TempDir cacheDir;
  testutil::ScopedEnv env{"TESSERA_CACHE_DIR", cacheDir.path};
};

TEST_F(GpuStages, TtgirAndPtxPerTargetWithoutToolkitOrGpu) {
  CompiledKernel a80 = compile(kSource, "sm_80");
  EXPECT_EQ(a80.target(), "sm_80");
  EXPECT_EQ(calls, 0);  // GPU stages are lazy
  EXPECT_NE(a80.asm_text("ptx").find(".target sm_80"), std::string::npos);
  EXPECT_NE(a80.asm_text("ptx").find(".visible .entry square("), std::string::npos);
  EXPECT_EQ(a80.asm_text("ttgir"), "// ttgir of square for sm_80, 4 warps\n");
  EXPECT_EQ(calls, 1);  // once per (specialization, target)

  Program p = Program::from_source(kSource, "square.py");
  Kernel k = p.kernel("square");
  CompiledKernel x = k.compile(kSignature, {{"BLOCK", int64_t(128)}}, {}, "sm_90a");
  CompiledKernel y = k.compile(kSignature, {{"BLOCK", int64_t(128)}}, {}, "sm_90a");
  CompiledKernel z = k.compile(kSignature, {{"BLOCK", int64_t(128)}}, {}, "sm_80");
  EXPECT_EQ(x.impl(), y.impl());
  EXPECT_NE(x.impl(), z.impl());
  EXPECT_EQ(x.impl()->module, z.impl()->module);  // one Tile IR compile for both targets
  EXPECT_NE(x.asm_text("ptx").find(".target sm_90a"), std::string::npos);
  EXPECT_NE(z.asm_text("ptx").find(".target sm_80"), std::string::npos);
  EXPECT_EQ(x.asm_text("ttir"), z.asm_text("ttir"));
  EXPECT_THROW(k.compile(kSignature, {{"BLOCK", int64_t(128)}}, {}, "sm_9x"), Error);
}

TEST_F(GpuStages, DefaultTargetWithoutGpuIsSm90a) {
  if (runtime::cudaAvailable()) GTEST_SKIP() << "a GPU is present: the default is its architecture";
  EXPECT_EQ(compile(kSource, "").target(), "sm_90a");
}

TEST_F(GpuStages, CubinMetadataAndDump) {
  REQUIRE_TOOLKIT();
  CompiledKernel c = compile(kSource, "sm_90a", 8);
  std::string cubin = c.asm_text("cubin");
  ASSERT_GT(cubin.size(), 4u);
  EXPECT_EQ(cubin.substr(0, 4), "\x7f" "ELF");
  KernelMetadata m = c.metadata();
  EXPECT_EQ(m.name, "square");
  EXPECT_EQ(m.target, "sm_90a");
  EXPECT_EQ(m.num_warps, 8);
  EXPECT_GT(m.registers, 4);
  EXPECT_LT(m.registers, 64);
  EXPECT_EQ(m.spill_store_bytes, 0);
  EXPECT_EQ(calls, 1);

  testutil::ScopedEnv dump("TESSERA_DUMP", "ttgir,ptx");
  ::testing::internal::CaptureStderr();
  compile(kSource, "sm_80").asm_text("ptx");
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("// ----- ttgir: square (sm_80) -----\n// ttgir of square for sm_80"), std::string::npos) << err;
  EXPECT_NE(err.find("// ----- ptx: square (sm_80) -----"), std::string::npos) << err;
  EXPECT_EQ(err.find("ttir:"), std::string::npos) << err;
}

TEST_F(GpuStages, DiskCacheHitSkipsBackendAndAssembler) {
  REQUIRE_TOOLKIT();
  std::string cubin = compile(kSource, "sm_90a").asm_text("cubin");
  EXPECT_EQ(calls, 1);
  std::vector<std::string> keys = entries(cacheDir.path);
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_EQ(keys[0].size(), 64u);  // SHA-256 hex

  // A new Program has empty in-memory caches: like a new process.
  CompiledKernel again = compile(kSource, "sm_90a");
  EXPECT_EQ(again.asm_text("cubin"), cubin);
  EXPECT_NE(again.asm_text("ptx").find(".visible .entry square("), std::string::npos);
  EXPECT_EQ(again.asm_text("ttgir"), "// ttgir of square for sm_90a, 4 warps\n");
  EXPECT_EQ(again.metadata().registers, compile(kSource, "sm_90a").metadata().registers);
  EXPECT_EQ(calls, 1);

  // Anything that changes the code changes the key.
  compile(kSource, "sm_90a", 8).asm_text("cubin");          // options
  compile(kSource, "sm_80").asm_text("cubin");              // target
  compile(std::string(kSource) + "\n# edited\n", "sm_90a").asm_text("cubin");  // source text
  EXPECT_EQ(calls, 4);
  EXPECT_EQ(entries(cacheDir.path).size(), 4u);

  {
    testutil::ScopedEnv always("TESSERA_ALWAYS_COMPILE", "1");
    compile(kSource, "sm_90a").asm_text("cubin");
    EXPECT_EQ(calls, 5);
  }
}

TEST_F(GpuStages, CorruptDiskEntryIsRebuilt) {
  REQUIRE_TOOLKIT();
  std::string cubin = compile(kSource, "sm_90a").asm_text("cubin");
  std::vector<std::string> keys = entries(cacheDir.path);
  ASSERT_EQ(keys.size(), 1u);
  std::string file = cacheDir.path + "/" + keys[0] + "/cubin";
  std::ofstream(file, std::ios::binary | std::ios::trunc) << "garbage";
  EXPECT_FALSE(runtime::loadCacheEntry(cacheDir.path, keys[0]));
  EXPECT_EQ(compile(kSource, "sm_90a").asm_text("cubin"), cubin);
  EXPECT_EQ(calls, 2);
  EXPECT_TRUE(runtime::loadCacheEntry(cacheDir.path, keys[0]));  // replaced by an intact entry
}

TEST_F(GpuStages, SassOrAClearError) {
  REQUIRE_TOOLKIT();
  CompiledKernel c = compile(kSource, "sm_90a");
  try {
    std::string sass = c.asm_text("sass");
    EXPECT_NE(sass.find("FMUL"), std::string::npos) << sass;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("nvdisasm or cuobjdump"), std::string::npos) << e.what();
  }
}

}  // namespace
