//===- tessera/support/Hot.h - The warm launch path's code, together -*- C++ -*-===//
//
// TESSERA_HOT marks the functions a warm launch runs (Kernel::launch, the
// launch memo, CudaDevice::launch, the profiler's off switch). GCC and
// clang put such functions in .text.hot, which the linker places
// together: a launch that follows a driver call (which evicts the
// caller's code from the caches) fetches its instructions from a few
// neighbouring lines and pages instead of one stretch per source file,
// each an instruction-cache miss and possibly a TLB miss.
//
//===----------------------------------------------------------------------===//
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define TESSERA_HOT __attribute__((hot))
#else
#define TESSERA_HOT
#endif
