//===- tessera/Export.h - What libtessera exports ------------*- C++ -*-===//
//
// libtessera is compiled with hidden symbol visibility: only the public
// API, the declarations between TESSERA_API_BEGIN and TESSERA_API_END in
// the installed headers (tessera.h, kernels.h, aot.h, dlpack.h, testing.h,
// Error.h), is exported. Everything else, the compiler's passes included,
// stays inside the library.
//
//===----------------------------------------------------------------------===//
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define TESSERA_API_BEGIN _Pragma("GCC visibility push(default)")
#define TESSERA_API_END _Pragma("GCC visibility pop")
#else
#define TESSERA_API_BEGIN
#define TESSERA_API_END
#endif
