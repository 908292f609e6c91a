//===- Toolkit.h - nvJitLink and NVRTC, opened at run time ------*- C++ -*-===//
//
// Internal to lib/runtime: the toolkit libraries' entry points (declared
// here, no CUDA headers), the libdevice wrapper compiler, and the parser of
// the assembler's report. Tests include it to check each piece alone.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tessera/gpu/Target.h"
#include "tessera/runtime/Assembler.h"

namespace tessera::runtime {

/// nvJitLink's C API (nvJitLink.h), resolved by name. Older libraries export
/// only versioned names (__nvJitLinkCreate_12_4); those are tried too.
struct JitLinkApi {
  using Handle = void*;
  int (*create)(Handle*, uint32_t, const char**) = nullptr;
  int (*destroy)(Handle*) = nullptr;
  int (*addData)(Handle, int, const void*, size_t, const char*) = nullptr;
  int (*complete)(Handle) = nullptr;
  int (*getLinkedCubinSize)(Handle, size_t*) = nullptr;
  int (*getLinkedCubin)(Handle, void*) = nullptr;
  int (*getErrorLogSize)(Handle, size_t*) = nullptr;
  int (*getErrorLog)(Handle, char*) = nullptr;
  int (*getInfoLogSize)(Handle, size_t*) = nullptr;
  int (*getInfoLog)(Handle, char*) = nullptr;
  int (*version)(unsigned*, unsigned*) = nullptr;  ///< optional (12.3+)
  std::string path;   ///< the library that opened
  std::string error;  ///< why it is unusable ("" when usable)
};
const JitLinkApi& jitLinkApi();

/// NVRTC's C API (nvrtc.h), resolved by name.
struct NvrtcApi {
  using Program = void*;
  int (*createProgram)(Program*, const char*, const char*, int, const char* const*, const char* const*) = nullptr;
  int (*compileProgram)(Program, int, const char* const*) = nullptr;
  int (*getPTXSize)(Program, size_t*) = nullptr;
  int (*getPTX)(Program, char*) = nullptr;
  int (*getProgramLogSize)(Program, size_t*) = nullptr;
  int (*getProgramLog)(Program, char*) = nullptr;
  int (*destroyProgram)(Program*) = nullptr;
  const char* (*getErrorString)(int) = nullptr;
  int (*version)(int*, int*) = nullptr;
  std::string path;
  std::string error;
};
const NvrtcApi& nvrtcApi();

/// The CUDA source NVRTC compiles for `externs`: a declaration of each
/// libdevice symbol and an extern "C" wrapper with the PTX-visible name
/// (gpu::libdeviceWrapperName). Deterministic: sorted, duplicates merged.
/// Throws tessera::Error for a type libdevice has no C spelling for.
std::string libdeviceSource(const std::vector<gpu::ExternFunction>& externs, const std::string& kernelName);

/// PTX defining the wrappers for `externs` on `target` (NVRTC, -rdc, FTZ as
/// Triton links libdevice). Cached in memory and as the disk-cache entry
/// libdevice-<key>. Throws tessera::Error naming the kernel.
std::string libdevicePtx(const std::vector<gpu::ExternFunction>& externs, const gpu::Target& target,
                         const std::string& kernelName);

/// One PTX module for whole-program assembly: the kernel's PTX with the
/// definitions of `libraryPtx` (NVRTC's libdevice wrappers) put after its
/// header, the kernel's .extern declarations of them dropped, and the higher
/// of the two .version directives.
std::string wholeProgramPtx(const std::string& kernelPtx, const std::string& libraryPtx);

/// `ptx` with its `.version` raised to the newest PTX ISA the assembler in
/// use reads, when it holds the user's inline asm (gpu::kInlineAsmPtxMarker)
/// and that assembler is known; else `ptx` unchanged.
std::string withAssemblerPtxVersion(const std::string& ptx);

/// The newest PTX ISA version ("8.7" -> 87) the assembler of CUDA release
/// major.minor reads; 0 when unknown (before 12.0).
int ptxIsaOfCudaRelease(int major, int minor);

/// Fills registers / spills / stack frame / static shared memory of
/// `kernelName` from nvJitLink's verbose info log.
void parseAssemblerReport(const std::string& log, const std::string& kernelName, Cubin& out);

/// The first existing executable among `names` in: the toolkit's bin
/// directory next to the nvJitLink that opened, CUDA_HOME/bin,
/// /usr/local/cuda/bin, then PATH. "" when none.
std::string findToolkitProgram(const std::vector<std::string>& names, std::string* searched = nullptr);

}  // namespace tessera::runtime
