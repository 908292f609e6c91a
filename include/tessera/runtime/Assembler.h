//===- tessera/runtime/Assembler.h - PTX -> cubin -> SASS ------*- C++ -*-===//
//
// Turns the PTX of ptx::compileToPtx into a cubin in process with nvJitLink
// (the same assembler as ptxas), or with the toolkit's ptxas program in
// whole-program mode when TESSERA_ASSEMBLER=ptxas. The definitions of the
// libdevice functions the PTX calls are compiled once from CUDA's math
// library with NVRTC (DESIGN.md decision 6, cached in memory and on disk) and
// merged into the kernel's module, so ptxas can inline them. The toolkit libraries
// are opened with dlopen at run time (CUDA_HOME, then /usr/local/cuda, then
// the loader's path), so one build serves machines with and without them.
// Needs no GPU.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/gpu/Target.h"

namespace tessera::runtime {

struct Cubin {
  std::vector<char> bytes;
  std::string infoLog;  ///< the assembler's verbose report
  // From the assembler's report (-1 when unknown).
  int registers = -1;
  int spillStoreBytes = 0;
  int spillLoadBytes = 0;
  int stackFrameBytes = 0;
  int staticSharedBytes = 0;
};

/// True when nvJitLink (and NVRTC for kernels with externs) can be opened;
/// otherwise `why` says what is missing and where it was looked for.
bool toolkitAvailable(std::string* why = nullptr);

/// Assembles `kernel.ptx` (written for `ptxTarget`) into SASS for
/// sassTarget(ptxTarget) (optimization level 3). Throws tessera::Error
/// naming the kernel with the assembler's error log.
Cubin assemble(const gpu::PtxKernel& kernel, const gpu::Target& ptxTarget);

/// The architecture the SASS of PTX written for `ptxTarget` is for: the
/// same, except for the TESSERA_CUDA_ARCH architecture, whose PTX is
/// assembled for CUDA device 0's own (SASS only runs on its own major
/// version; PTX of an older target compiles for a newer one).
gpu::Target sassTarget(const gpu::Target& ptxTarget);

/// The `.maxnreg` assemble() retries a kernel with to fit more CTAs per
/// multiprocessor, or 0 for none: below half occupancy one more CTA; at or
/// above it only full occupancy, and only when at most 4 registers per
/// thread stand in its way; always only when shared memory
/// (`sharedBytesPerCta`, dynamic plus static) would let those CTAs in.
int occupancyRegisterCap(int registers, int threads, int64_t sharedBytesPerCta, const gpu::Target& target);

/// Which assembler assemble() uses, with its version and the identity of
/// its file ("nvJitLink 13.0 <path> <size> <mtime>" or "ptxas <version
/// line> <path> ..."): part of the disk-cache key, since the two allocate
/// registers differently and any upgrade may change the SASS.
std::string assemblerIdentity();

/// NVRTC's version and the identity of its libraries (which carry
/// libdevice): part of the keys of libdevice wrappers and of every kernel.
std::string libdeviceIdentity();

/// SASS text of a cubin (nvdisasm / cuobjdump from the toolkit).
std::string disassemble(const Cubin& cubin, const gpu::Target& target);

}  // namespace tessera::runtime
