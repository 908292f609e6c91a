//===- tessera/aot.h - Ahead-of-time kernels for C++ projects ---*- C++ -*-===//
//
// Turns compiled specializations into a C++ header and source that a project
// builds and links with nothing from Tessera: the cubins are embedded, and a
// typed function loads them through the CUDA driver API (cuda.h, libcuda)
// and launches. One specialization per target architecture; the launcher
// picks the one for the device it runs on.
//
//   tessera compile k.py --kernel add --signature "*fp32:16, *fp32:16, i32"
//       -D BLOCK=1024 --arch sm_80,sm_90a --emit cpp -o add_kernel   (one line)
//   // add_kernel.h:
//   namespace tessera_aot {
//   CUresult add_kernel(CUstream stream, unsigned grid_x, unsigned grid_y, unsigned grid_z,
//                       CUdeviceptr x_ptr, CUdeviceptr out_ptr, int32_t n);
//   }
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <vector>

#include "tessera/tessera.h"

#include "tessera/Export.h"

TESSERA_API_BEGIN
namespace tessera::aot {

struct Files {
  std::string header;  ///< NAME.h
  std::string source;  ///< NAME.cpp
};

/// The header and source of the launcher `name` (a C++ identifier) for
/// `perTarget`: specializations of one kernel with the same signature, one
/// per target architecture (Kernel::compile with `arch`). Assembles them
/// (needs the CUDA toolkit, not a GPU). Throws tessera::Error for an invalid
/// name, an empty list, or specializations that differ in their parameters.
Files generate(const std::string& name, const std::vector<CompiledKernel>& perTarget);

}  // namespace tessera::aot
TESSERA_API_END
