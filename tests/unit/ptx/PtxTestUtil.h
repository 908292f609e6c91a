//===- PtxTestUtil.h - Compile kernels to PTX and assemble them -*- C++ -*-===//
//
// compile(source, kernel, signature, warps, arch) runs a Triton-language
// kernel through the whole pipeline (frontend, Tile IR passes, layouts, PTX
// emission); assemble() runs the toolkit's ptxas on the result.
// EXPECT_ASSEMBLES checks both sm_80 and sm_90a (skipped without a toolkit).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "../frontend/TestUtil.h"
#include "tessera/gpu/Passes.h"
#include "tessera/ptx/Backend.h"
#include "tessera/transforms/Passes.h"

namespace tessera::ptxtest {

using frontend::test::load;
using frontend::test::parseSpecs;

inline std::string ptxasPath() {
  std::vector<std::string> candidates;
  if (const char* home = std::getenv("CUDA_HOME")) candidates.push_back(std::string(home) + "/bin/ptxas");
  candidates.push_back("/usr/local/cuda/bin/ptxas");
  for (const auto& c : candidates)
    if (std::filesystem::exists(c)) return c;
  return "";
}

/// `pointerTma` false: pointer tiles keep their cp.async copies on sm_90a.
inline gpu::PtxKernel compile(const std::string& src, const std::string& kernel, const std::string& sig, int warps,
                       const std::string& arch = "sm_90a", bool pointerTma = true) {
  auto prog = load(src);
  frontend::CompileOptions o;
  o.numWarps = warps;
  frontend::CompileResult r = prog->compile(kernel, parseSpecs(sig), o);
  transforms::runTileIRPipeline(*r.module);
  gpu::GpuOptions g;
  g.numWarps = warps;
  g.target = gpu::Target::parse(arch);
  g.pointerTma = pointerTma;
  return ptx::compileToPtx(*r.module, r.kernelName, g);
}

/// The text of kernels/<file>, the kernel library's sources.
/// PTX of Tile GPU IR written or changed by hand: runs the passes that
/// record what the emitter reads (encode-host-tensormaps,
/// allocate-shared-memory) on it first, as the lowering does.
inline gpu::PtxKernel planAndEmit(ir::Module& gpuModule, const std::string& kernel, const gpu::GpuOptions& options) {
  transforms::PassRunOptions run;
  run.extraPasses = &gpu::gpuPasses();
  transforms::runPasses(gpuModule, "encode-host-tensormaps,allocate-shared-memory", run);
  return ptx::emitPtx(gpuModule, kernel, options);
}

inline std::string librarySource(const std::string& file) {
  std::ifstream in(std::string(TESSERA_SOURCE_DIR) + "/kernels/" + file);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// A kernel file of the e2e suite (tests/e2e/kernels).
inline std::string e2eKernel(const std::string& file) {
  std::ifstream in(std::string(TESSERA_SOURCE_DIR) + "/tests/e2e/kernels/" + file);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// A vector's bytes (a PtxEval buffer), and back.
template <class T> std::vector<uint8_t> bytesOf(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}
template <class T> std::vector<T> valuesOf(const std::vector<uint8_t>& b) {
  std::vector<T> v(b.size() / sizeof(T));
  std::memcpy(v.data(), b.data(), b.size());
  return v;
}

inline bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

/// Runs ptxas on the PTX; returns its output on failure ("" on success).
inline std::string assemble(const gpu::PtxKernel& k, const std::string& arch) {
  std::string ptxas = ptxasPath();
  auto dir = std::filesystem::temp_directory_path() / ("tessera-ptx-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto ptx = dir / (k.name + "_" + arch + ".ptx");
  std::ofstream(ptx) << k.ptx;
  auto log = dir / "ptxas.log";
  // Kernels with libdevice calls reference functions defined elsewhere:
  // compile-only (-c) still checks everything else.
  std::string cmd = ptxas + " -arch=" + arch + (k.externs.empty() ? "" : " -c") + " " + ptx.string() + " -o " +
                    (dir / "out.cubin").string() + " > " + log.string() + " 2>&1";
  int rc = std::system(cmd.c_str());
  if (rc == 0) return "";
  std::ifstream in(log);
  std::stringstream ss;
  ss << in.rdbuf();
  return "ptxas failed:\n" + ss.str() + "\n--- PTX ---\n" + k.ptx + "\n--- TTGIR ---\n" + k.ttgir;
}

/// Runs ptxas -v on the PTX (compile-only when it calls libdevice) and
/// returns everything it printed, warnings and register counts included.
inline std::string assemblerReport(const gpu::PtxKernel& k, const std::string& arch) {
  auto dir = std::filesystem::temp_directory_path() / ("tessera-ptx-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto ptx = dir / (k.name + "_" + arch + "_v.ptx");
  std::ofstream(ptx) << k.ptx;
  auto log = dir / "ptxas-v.log";
  std::string cmd = ptxasPath() + " -v -arch=" + arch + (k.externs.empty() ? "" : " -c") + " " + ptx.string() +
                    " -o " + (dir / "out-v.cubin").string() + " > " + log.string() + " 2>&1";
  int rc = std::system(cmd.c_str());
  std::ifstream in(log);
  std::stringstream ss;
  ss << in.rdbuf();
  return (rc == 0 ? "" : "ptxas failed:\n") + ss.str();
}

}  // namespace tessera::ptxtest

/// Compiles the same kernel for sm_80 and sm_90a and assembles both.
#define EXPECT_ASSEMBLES(src, kernel, sig, warps)                                                         \
  do {                                                                                                    \
    if (::tessera::ptxtest::ptxasPath().empty()) GTEST_SKIP() << "no CUDA toolkit (ptxas) on this machine"; \
    for (const char* arch : {"sm_80", "sm_90a"})                                                          \
      EXPECT_EQ(::tessera::ptxtest::assemble(::tessera::ptxtest::compile(src, kernel, sig, warps, arch), arch), "") \
          << arch;                                                                                        \
  } while (0)
