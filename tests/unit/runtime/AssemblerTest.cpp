//===- AssemblerTest.cpp - PTX -> cubin (ptxas/nvJitLink), libdevice ------===//
//
// Hand-written PTX kernels through runtime::assemble for sm_80 and sm_90a
// (with the toolkit's ptxas program, or nvJitLink, both tested):
// register counts parsed from the assembler's report, extern libdevice calls
// linked from NVRTC-compiled wrappers, errors that carry the assembler's log,
// SASS from disassemble(). Needs the CUDA toolkit (no GPU); each test skips
// with the reason when nvJitLink/NVRTC cannot be opened.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include "frontend/codegen/Libdevice.h"
#include <filesystem>
#include <fstream>
#include <sstream>

#include "TestPtx.h"
#include "TestUtil.h"
#include "tessera/runtime/DiskCache.h"
#include "runtime/Toolkit.h"
#include "tessera/Error.h"
#include "tessera/runtime/Assembler.h"
#include "tessera/tessera.h"

namespace {

using namespace tessera;
using runtime::Cubin;

#define REQUIRE_TOOLKIT()                                                   \
  do {                                                                      \
    std::string why;                                                        \
    if (!runtime::toolkitAvailable(&why)) GTEST_SKIP() << "no CUDA toolkit: " << why; \
  } while (0)

using testptx::elementwisePtx;

gpu::PtxKernel kernelOf(const std::string& name, std::string ptx) {
  gpu::PtxKernel k = testptx::elementwiseKernel(gpu::Target::parse("sm_80"), false, name);
  k.ptx = std::move(ptx);
  return k;
}

gpu::ExternFunction erff() { return {"__nv_erff", gpu::libdeviceWrapperName("__nv_erff"), {ir::Type::f32()}, ir::Type::f32()}; }

bool isElf(const Cubin& c) { return c.bytes.size() > 4 && std::string(c.bytes.data(), 4) == "\x7f" "ELF"; }

// The occupancy step's register cap: the next CTA per multiprocessor below
// half occupancy, full occupancy above it when 4 registers or fewer stand in
// its way, and only if shared memory lets those CTAs in.
TEST(Assembler, OccupancyCapCountsRegistersAndSharedMemory) {
  gpu::Target h100 = gpu::Target::parse("sm_90a");
  // 109 registers x 256 threads: 2 CTAs; the cap for 3 is 80.
  EXPECT_EQ(runtime::occupancyRegisterCap(109, 256, 0, h100), 80);
  EXPECT_EQ(runtime::occupancyRegisterCap(109, 256, 8 * 1024, h100), 80);
  // 165 x 256 threads (attention, head_dim 128): 1 CTA; 128 registers would
  // fit 2, but 160 KiB of pipeline stages already keep the second one out.
  EXPECT_EQ(runtime::occupancyRegisterCap(165, 256, 160 * 1024, h100), 0);
  EXPECT_EQ(runtime::occupancyRegisterCap(165, 256, 64 * 1024, h100), 128);
  // An A100 has 164 KiB per multiprocessor: 2 x (80 KiB + 1 KiB) fit, 2 x 82 do not.
  gpu::Target a100 = gpu::Target::parse("sm_80");
  EXPECT_EQ(runtime::occupancyRegisterCap(165, 256, 80 * 1024, a100), 128);
  EXPECT_EQ(runtime::occupancyRegisterCap(165, 256, 82 * 1024, a100), 0);
  // At or above half occupancy only the last step to full occupancy, when
  // at most 4 registers stand in its way: 36 x 128 threads hold 12 CTAs,
  // 32 hold 16 (the fp16 layernorm); 40 stays at 12.
  EXPECT_EQ(runtime::occupancyRegisterCap(64, 256, 0, h100), 0);
  EXPECT_EQ(runtime::occupancyRegisterCap(40, 1024, 0, h100), 0);
  EXPECT_EQ(runtime::occupancyRegisterCap(36, 128, 0, h100), 32);
  EXPECT_EQ(runtime::occupancyRegisterCap(33, 256, 16, h100), 32);
  EXPECT_EQ(runtime::occupancyRegisterCap(40, 128, 0, h100), 0);
  EXPECT_EQ(runtime::occupancyRegisterCap(32, 128, 0, h100), 0);  // full already
  // 16 CTAs of 128 threads with 16 KiB each do not fit in 228 KiB: no cap.
  EXPECT_EQ(runtime::occupancyRegisterCap(36, 128, 16 * 1024, h100), 0);
  // Shared memory per multiprocessor unknown (sm_75): no cap for a kernel using it.
  EXPECT_EQ(runtime::occupancyRegisterCap(165, 256, 1024, gpu::Target::parse("sm_75")), 0);
}

TEST(Assembler, ParsesTheAssemblerReport) {
  // The two report forms nvJitLink prints: ptxas's per-function block, then
  // the linker's summary of the linked entry. Other functions are ignored.
  const char* log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'k' for 'sm_90a'\n"
      "ptxas info    : Function properties for k\n"
      "ptxas         .     48 bytes stack frame, 24 bytes spill stores, 20 bytes spill loads\n"
      "ptxas info    : Used 255 registers, used 1 barriers, 4096 bytes smem, 372 bytes cmem[0]\n"
      "ptxas info    : Function properties for __tessera__nv_erff\n"
      "ptxas         .     8 bytes stack frame, 99 bytes spill stores, 99 bytes spill loads\n"
      "info    : Function properties for 'k':\n"
      "info    : used 254 registers, used 1 barriers, 56 stack, 4096 bytes smem, 548 bytes cmem[0], 0 bytes lmem\n";
  Cubin c;
  runtime::parseAssemblerReport(log, "k", c);
  EXPECT_EQ(c.registers, 254);  // the linked code's count wins
  EXPECT_EQ(c.stackFrameBytes, 56);
  EXPECT_EQ(c.spillStoreBytes, 24);
  EXPECT_EQ(c.spillLoadBytes, 20);
  EXPECT_EQ(c.staticSharedBytes, 4096);
  Cubin other;
  runtime::parseAssemblerReport(log, "kk", other);
  EXPECT_EQ(other.registers, -1);
}

TEST(Assembler, WholeProgramPtxMergesTheLibraryIntoTheKernel) {
  const std::string kernel =
      "//\n// a kernel\n//\n"
      ".version 8.0\n.target sm_90a\n.address_size 64\n\n"
      ".extern .func (.param .b32 retval) __tessera__nv_erff (.param .b32 x);\n"
      ".extern .func (.param .b32 retval) vprintf (.param .b64 f, .param .b64 a);\n"
      ".visible .entry k(.param .u64 p)\n{\n  ret;\n}\n";
  const std::string library =
      "// Generated by NVRTC\n\n.version 9.0\n.target sm_90a\n.address_size 64\n\n"
      "\t// .globl\t__tessera__nv_erff\n"
      ".visible .func  (.param .b32 func_retval0) __tessera__nv_erff(\n"
      "\t.param .b32 __tessera__nv_erff_param_0\n)\n{\n\tret;\n}\n";
  std::string merged = runtime::wholeProgramPtx(kernel, library);
  auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = merged.find(what); at != std::string::npos; at = merged.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count(".version 9.0\n"), 1u) << merged;  // the newer of the two
  EXPECT_EQ(count(".version"), 1u) << merged;
  EXPECT_EQ(count(".target"), 1u) << merged;
  EXPECT_EQ(count(".address_size"), 1u) << merged;
  // The declaration of what the library defines is gone; others stay.
  EXPECT_EQ(merged.find(".extern .func (.param .b32 retval) __tessera__nv_erff"), std::string::npos) << merged;
  EXPECT_NE(merged.find(".extern .func (.param .b32 retval) vprintf"), std::string::npos) << merged;
  // The definition comes before the kernel that calls it.
  size_t def = merged.find(".visible .func  (.param .b32 func_retval0) __tessera__nv_erff(");
  ASSERT_NE(def, std::string::npos) << merged;
  EXPECT_LT(def, merged.find(".visible .entry k"));
  EXPECT_GT(def, merged.find(".address_size"));
}

TEST(Assembler, PtxasAndNvJitLinkBothAssembleLibdeviceCalls) {
  REQUIRE_TOOLKIT();
  if (runtime::findToolkitProgram({"ptxas"}).empty()) GTEST_SKIP() << "the toolkit has no ptxas program";
  gpu::Target target = gpu::Target::parse("sm_90a");
  gpu::PtxKernel k = kernelOf("erf_kernel", elementwisePtx(target, true, "erf_kernel"));
  k.externs = {erff()};
  for (const char* assembler : {"ptxas", "nvjitlink"}) {
    testutil::ScopedEnv env("TESSERA_ASSEMBLER", assembler);
    EXPECT_EQ(runtime::assemblerIdentity().rfind(assembler[0] == 'p' ? "ptxas " : "nvJitLink ", 0), 0u)
        << runtime::assemblerIdentity();
    Cubin c = runtime::assemble(k, target);
    EXPECT_TRUE(isElf(c)) << assembler;
    EXPECT_GT(c.registers, 4) << assembler << "\n" << c.infoLog;
    EXPECT_EQ(c.spillStoreBytes, 0) << assembler;
  }
  testutil::ScopedEnv bad("TESSERA_ASSEMBLER", "auto");
  try {
    runtime::assemble(k, target);
    ADD_FAILURE() << "an unknown TESSERA_ASSEMBLER was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("TESSERA_ASSEMBLER"), std::string::npos) << e.what();
  }
}

TEST(Assembler, AssemblesForSm80AndSm90a) {
  REQUIRE_TOOLKIT();
  for (const char* arch : {"sm_80", "sm_90a"}) {
    gpu::Target target = gpu::Target::parse(arch);
    Cubin c = runtime::assemble(kernelOf("unary", elementwisePtx(target, false, "unary")), target);
    EXPECT_TRUE(isElf(c)) << arch;
    // Seven-ish live values: ptxas needs more than 4 and far fewer than 64.
    EXPECT_GT(c.registers, 4) << arch << "\n" << c.infoLog;
    EXPECT_LT(c.registers, 64) << arch << "\n" << c.infoLog;
    EXPECT_EQ(c.spillStoreBytes, 0);
    EXPECT_EQ(c.spillLoadBytes, 0);
    // The assembler names the architecture when it compiles; nvJitLink
    // reuses SASS from the CUDA compute cache (~/.nv/ComputeCache) without
    // that line.
    if (c.infoLog.find("Compiling entry function") != std::string::npos)
      EXPECT_NE(c.infoLog.find(arch), std::string::npos) << c.infoLog;
  }
}

TEST(Assembler, LinksLibdeviceWrappersFromNvrtc) {
  REQUIRE_TOOLKIT();
  for (const char* arch : {"sm_80", "sm_90a"}) {
    gpu::Target target = gpu::Target::parse(arch);
    gpu::PtxKernel k = kernelOf("erf_kernel", elementwisePtx(target, true, "erf_kernel"));
    // Without the wrappers the call has no definition: the link must fail.
    std::string unresolved;
    try {
      runtime::assemble(k, target);
    } catch (const Error& e) {
      unresolved = e.what();
    }
    EXPECT_NE(unresolved.find("erf_kernel"), std::string::npos) << unresolved;
    EXPECT_NE(unresolved.find("__tessera__nv_erff"), std::string::npos) << unresolved;

    k.externs = {erff(), erff()};  // duplicates are merged
    Cubin c = runtime::assemble(k, target);
    EXPECT_TRUE(isElf(c));
    EXPECT_GT(c.registers, 4) << c.infoLog;
    std::string ptx = runtime::libdevicePtx(k.externs, target, k.name);
    EXPECT_NE(ptx.find(".visible .func"), std::string::npos);
    EXPECT_NE(ptx.find("__tessera__nv_erff"), std::string::npos);
    EXPECT_NE(ptx.find(".target " + target.name()), std::string::npos) << ptx.substr(0, 400);
  }
}

TEST(Assembler, LibdevicePtxIsCachedOnDisk) {
  REQUIRE_TOOLKIT();
  testutil::TempDir dir;
  testutil::ScopedEnv env("TESSERA_CACHE_DIR", dir.path);
  // A set no other test compiles, so the in-memory cache does not answer.
  gpu::ExternFunction cbrt{"__nv_cbrtf", "", {ir::Type::f32()}, ir::Type::f32()};
  std::string ptx = runtime::libdevicePtx({cbrt}, gpu::Target::parse("sm_80"), "k");
  EXPECT_NE(ptx.find(" __tessera__nv_cbrtf("), std::string::npos);
  std::vector<std::string> entries;
  for (const auto& e : std::filesystem::directory_iterator(dir.path))
    entries.push_back(e.path().filename().string());
  ASSERT_EQ(entries.size(), 1u);  // no temporary directory left behind
  EXPECT_EQ(entries[0].size(), 10u + 64u);  // libdevice-<sha256>, an entry like a kernel's
  std::optional<runtime::CacheFiles> files = runtime::loadCacheEntry(dir.path, entries[0]);
  ASSERT_TRUE(files);
  EXPECT_EQ(files->at("ptx"), ptx);
  EXPECT_NE(files->at("source").find("__nv_cbrtf"), std::string::npos);
}

TEST(Assembler, LibdeviceSourceIsCanonical) {
  gpu::ExternFunction powif{"__nv_powif", "", {ir::Type::f32(), ir::Type::i32()}, ir::Type::f32()};
  std::string a = runtime::libdeviceSource({erff(), powif}, "k");
  std::string b = runtime::libdeviceSource({powif, erff(), erff()}, "k");
  EXPECT_EQ(a, b);
  EXPECT_NE(a.find("extern \"C\" __device__ float __nv_powif(float, int);"), std::string::npos) << a;
  EXPECT_NE(a.find("extern \"C\" __device__ float __tessera__nv_powif(float a0, int a1) { return __nv_powif(a0, a1); }"),
            std::string::npos)
      << a;
  gpu::ExternFunction half{"__nv_hfoo", "", {ir::Type::f16()}, ir::Type::f16()};
  try {
    runtime::libdeviceSource({half}, "my_kernel");
    ADD_FAILURE() << "f16 has no libdevice spelling";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("my_kernel"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("__nv_hfoo"), std::string::npos) << e.what();
  }
}

/// Triton dtype name -> the IR type libdevice sees.
ir::Type irTypeOf(const std::string& dtype) {
  if (dtype == "fp32") return ir::Type::f32();
  if (dtype == "fp64") return ir::Type::f64();
  if (dtype == "int1") return ir::Type::i1();
  for (int w : {8, 16, 32, 64})
    if (dtype == "int" + std::to_string(w) || dtype == "uint" + std::to_string(w)) return ir::Type::integer(w);
  return ir::Type();
}

TEST(Assembler, EveryFrontendLibdeviceSymbolCompilesWithNvrtc) {
  REQUIRE_TOOLKIT();
  // One NVRTC compilation of every overload the frontend can emit: each
  // declaration must agree with CUDA's libdevice.
  std::vector<gpu::ExternFunction> externs;
  for (const auto& o : frontend::libdeviceOverloads()) {
    gpu::ExternFunction e;
    e.symbol = o.symbol;
    e.wrapper = gpu::libdeviceWrapperName(o.symbol);
    for (const auto& a : o.args) e.argTypes.push_back(irTypeOf(a));
    e.resultType = irTypeOf(o.result);
    for (ir::Type t : e.argTypes) ASSERT_TRUE(t) << o.symbol;
    ASSERT_TRUE(e.resultType) << o.symbol << " " << o.result;
    externs.push_back(e);
  }
  ASSERT_GT(externs.size(), 300u);
  gpu::Target target = gpu::Target::parse("sm_90a");
  std::string ptx = runtime::libdevicePtx(externs, target, "all_libdevice");
  for (const auto& e : externs)
    EXPECT_NE(ptx.find(" " + e.wrapper + "("), std::string::npos) << e.wrapper << " not defined";
}

TEST(Assembler, SyntaxErrorNamesKernelWithTheLog) {
  REQUIRE_TOOLKIT();
  gpu::Target target = gpu::Target::parse("sm_90a");
  std::string ptx = elementwisePtx(target, false, "broken");
  size_t pos = ptx.find("mad.lo.s32");
  ASSERT_NE(pos, std::string::npos);
  ptx.replace(pos, 10, "mad.lo.s33");
  try {
    runtime::assemble(kernelOf("broken", ptx), target);
    FAIL() << "the PTX is invalid";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("kernel 'broken'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("sm_90a"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'.s33'"), std::string::npos) << msg;  // ptxas's own words
    EXPECT_NE(msg.find("mad.lo.s33 %r5, %r3, %r4, %r2;"), std::string::npos) << msg;  // the quoted line
  }
}

TEST(Assembler, DisassemblesToSass) {
  REQUIRE_TOOLKIT();
  std::string searched;
  if (runtime::findToolkitProgram({"nvdisasm"}, &searched).empty() && runtime::findToolkitProgram({"cuobjdump"}).empty())
    GTEST_SKIP() << "neither nvdisasm nor cuobjdump in " << searched;
  gpu::Target target = gpu::Target::parse("sm_90a");
  Cubin c = runtime::assemble(kernelOf("unary", elementwisePtx(target, false, "unary")), target);
  std::string sass = runtime::disassemble(c, target);
  EXPECT_NE(sass.find("unary"), std::string::npos) << sass;
  EXPECT_NE(sass.find("FMUL"), std::string::npos) << sass;  // x * x
  EXPECT_NE(sass.find("EXIT"), std::string::npos) << sass;
}

TEST(Assembler, DisassembleWithoutToolsSaysWhatIsMissing) {
  std::string searched;
  if (!runtime::findToolkitProgram({"nvdisasm"}, &searched).empty() || !runtime::findToolkitProgram({"cuobjdump"}).empty())
    GTEST_SKIP() << "a disassembler is installed";
  Cubin c;
  c.bytes = {'\x7f', 'E', 'L', 'F'};
  try {
    runtime::disassemble(c, gpu::Target::parse("sm_80"));
    FAIL() << "no disassembler";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("nvdisasm"), std::string::npos) << e.what();
  }
}

}  // namespace

namespace {

// PTX that holds the user's inline asm is assembled at the assembler's PTX
// ISA version, as Triton writes its ptxas toolkit's: the asm may use newer
// instructions than the kernel's own code (vLLM's mamba update rounds with
// `cvt.rs.f16x2.f32`, PTX ISA 8.7, on sm_100a, whose default here is 8.6).
// Kernels without inline asm keep their version; asm_text("ptx") shows the
// version the assembler is given.
TEST(Assembler, InlineAsmTakesTheAssemblersPtxVersion) {
  EXPECT_EQ(runtime::ptxIsaOfCudaRelease(11, 8), 0);
  EXPECT_EQ(runtime::ptxIsaOfCudaRelease(12, 4), 84);
  EXPECT_EQ(runtime::ptxIsaOfCudaRelease(12, 6), 85);
  EXPECT_EQ(runtime::ptxIsaOfCudaRelease(12, 8), 87);
  EXPECT_EQ(runtime::ptxIsaOfCudaRelease(13, 0), 90);
  const std::string plain = elementwisePtx(gpu::Target::parse("sm_90a"), false, "plain");
  EXPECT_EQ(runtime::withAssemblerPtxVersion(plain), plain);
  REQUIRE_TOOLKIT();
  const char* src = R"(
import triton
import triton.language as tl

@triton.jit
def rs_round(x_ptr, r_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    y = tl.inline_asm_elementwise("cvt.rs.f16x2.f32 $0, $2, $1, $3;", "=r,r,r,r,r",
                                  [tl.load(x_ptr + offs), tl.load(r_ptr + offs)], dtype=tl.float16,
                                  is_pure=True, pack=2)
    tl.store(y_ptr + offs, y)

@triton.jit
def copy(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs))
)";
  Program p = Program::from_source(src, "rs.py");
  CompiledKernel rs = p.kernel("rs_round").compile("*fp32:16,*i32:16,*fp16:16", {{"BLOCK", int64_t(256)}}, {}, "sm_100a");
  std::string ptx = rs.asm_text("ptx");
  size_t at = ptx.find("\n.version ");
  ASSERT_NE(at, std::string::npos) << ptx;
  EXPECT_GE(std::stod(ptx.substr(at + 10, 3)), 8.7) << ptx.substr(0, at + 20);  // a CUDA 12.8+ toolkit
  EXPECT_FALSE(rs.asm_text("cubin").empty());  // cvt.rs assembles
  CompiledKernel copy = p.kernel("copy").compile("*fp32:16,*fp32:16", {{"BLOCK", int64_t(256)}}, {}, "sm_100a");
  EXPECT_NE(copy.asm_text("ptx").find("\n.version " + gpu::Target::parse("sm_100a").ptxVersion()), std::string::npos);
}

}  // namespace
