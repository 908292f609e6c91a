//===- CacheKeyTest.cpp - Every input of generated code is in the key -----===//
//
// The kernel cache key is the hash of one named list (detail::cacheKeyInputs,
// STYLE.md §12). Each case changes one input the generated code depends on
// and expects another key: the toolkit's versions and files, every
// TESSERA_* knob that changes code (env::knobs() rows with changesCode),
// the options, the target, the source. Once, nvJitLink and ptxas entered the
// key without a version and TESSERA_MAXNREG not at all.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include <set>

#include "api/Internal.h"
#include "tessera/support/Env.h"
#include "tessera/tessera.h"

namespace {

using namespace tessera;

const char* kSource = R"(
import triton
import triton.language as tl

@triton.jit
def copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
)";

struct Env {
  std::string name;
  Env(const std::string& n, const std::string& v) : name(n) { setenv(n.c_str(), v.c_str(), 1); }
  ~Env() { unsetenv(name.c_str()); }
};

detail::CacheKeyInputs inputsOf(const std::string& source, const LaunchOptions& options = {},
                                const std::string& arch = "sm_90a") {
  Kernel k = Program::from_source(source, "copy.py").kernel("copy");
  CompiledKernel c = k.compile("*fp32:16, *fp32:16, i32", {{"BLOCK", int64_t(128)}}, options, arch);
  return detail::cacheKeyInputs(*c.impl(), gpu::Target::parse(arch));
}

std::string keyOf(const std::string& source, const LaunchOptions& options = {}, const std::string& arch = "sm_90a") {
  return detail::cacheKeyOf(inputsOf(source, options, arch));
}

std::string input(const detail::CacheKeyInputs& inputs, const std::string& name) {
  for (const auto& [n, v] : inputs)
    if (n == name) return v;
  ADD_FAILURE() << "no cache key input named " << name;
  return "";
}

TEST(CacheKey, ChangingAnyInputChangesTheKey) {
  detail::CacheKeyInputs inputs = inputsOf(kSource);
  std::string key = detail::cacheKeyOf(inputs);
  std::set<std::string> names;
  for (size_t i = 0; i < inputs.size(); ++i) {
    names.insert(inputs[i].first);
    detail::CacheKeyInputs changed = inputs;
    changed[i].second += " changed";
    EXPECT_NE(detail::cacheKeyOf(changed), key) << inputs[i].first;
  }
  for (const char* n : {"compiler", "prelude", "file", "source", "kernel", "specialization", "options", "target",
                        "assembler", "libdevice", "knobs"})
    EXPECT_TRUE(names.count(n)) << n;
}

TEST(CacheKey, ToolkitVersionsAndFilesAreInputs) {
  detail::CacheKeyInputs inputs = inputsOf(kSource);
  std::string compiler = input(inputs, "compiler");
  EXPECT_NE(compiler.find("; build "), std::string::npos) << compiler;
  std::string why;
  if (!runtime::toolkitAvailable(&why)) GTEST_SKIP() << "no CUDA toolkit: " << why;
  // "nvJitLink 13.0 /path/libnvJitLink.so.13 <size> <mtime>"
  std::string assembler = input(inputs, "assembler");
  EXPECT_EQ(assembler.rfind("nvJitLink ", 0), 0u) << assembler;
  EXPECT_NE(assembler.find_first_of("0123456789"), std::string::npos) << assembler;
  EXPECT_NE(assembler.find("/"), std::string::npos) << assembler;
  EXPECT_NE(assembler.find("nvJitLink 0.0"), 0u) << assembler;
  std::string libdevice = input(inputs, "libdevice");
  EXPECT_EQ(libdevice.rfind("NVRTC ", 0), 0u) << libdevice;
  EXPECT_NE(libdevice.find("libnvrtc"), std::string::npos) << libdevice;
  {
    Env ptxas("TESSERA_ASSEMBLER", "ptxas");
    std::string other = input(inputsOf(kSource), "assembler");
    EXPECT_EQ(other.rfind("ptxas ", 0), 0u) << other;
    EXPECT_NE(other.find("release"), std::string::npos) << other;  // "Cuda compilation tools, release 13.0, ..."
  }
}

TEST(CacheKey, EveryCodeChangingKnobIsInTheKey) {
  std::string key = keyOf(kSource);
  // A value each code-changing knob accepts that differs from its default.
  std::map<std::string, std::string> values = {{"TESSERA_MAXNREG", "64"},   {"TESSERA_POINTER_TMA", "0"},
                                               {"TESSERA_DEBUG", "1"},      {"TRITON_DEBUG", "1"},
                                               {"TESSERA_ASSEMBLER", "ptxas"}, {"TESSERA_CUDA_ARCH", "sm_80"},
                                               {"TESSERA_WARP_SPECIALIZE", "0"}};
  std::string why;
  bool toolkit = runtime::toolkitAvailable(&why);
  for (const env::Knob& k : env::knobs()) {
    if (!k.changesCode) continue;
    SCOPED_TRACE(k.name);
    ASSERT_TRUE(values.count(k.name)) << "a new code-changing knob needs a value in this test";
    if (std::string(k.name) == "TESSERA_ASSEMBLER" && !toolkit) continue;
    Env set(k.name, values[k.name]);
    EXPECT_NE(keyOf(kSource), key);
    EXPECT_NE(input(inputsOf(kSource), "knobs").find(std::string(k.name) + "=" + values[k.name]), std::string::npos);
  }
  EXPECT_EQ(keyOf(kSource), key);  // and back
}

TEST(CacheKey, OptionsTargetAndSourceAreInTheKey) {
  std::string key = keyOf(kSource);
  LaunchOptions warps;
  warps.num_warps = 8;
  LaunchOptions stages;
  stages.num_stages = 2;
  LaunchOptions regs;
  regs.maxnreg = 128;
  std::set<std::string> keys = {key, keyOf(kSource, warps), keyOf(kSource, stages), keyOf(kSource, regs),
                                keyOf(kSource, {}, "sm_80"), keyOf(std::string(kSource) + "\n# comment\n")};
  EXPECT_EQ(keys.size(), 6u);
  // TESSERA_MAXNREG is an option of every kernel without its own maxnreg:
  // the same key as asking for it.
  Env cap("TESSERA_MAXNREG", "128");
  EXPECT_NE(input(inputsOf(kSource), "options").find("maxnreg=128"), std::string::npos);
}

}  // namespace
