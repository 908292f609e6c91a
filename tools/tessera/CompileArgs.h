//===- CompileArgs.h - The arguments of `tessera compile` ------*- C++ -*-===//
//
// The command line of `tessera compile`, parsed apart from running it, so
// that the fuzz target (tests/fuzz/ApiFuzzer.cpp) can drive the same parser.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "tessera/tessera.h"

namespace tessera::cli {

/// A mistake on the command line: printed with the usage, exit status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct CompileArgs {
  std::string file, kernel, signature, emit = "ttir", out, arch, name;
  std::string stopAfter;  ///< --stop-after PASS[:N] (--emit ttgir)
  bool haveSignature = false;
  tessera::Meta defines;
  tessera::LaunchOptions options;
  tessera::ProgramOptions program;  ///< -I directories; the device queries follow --arch
};

/// `-I DIR` / `-IDIR` at args[i] (advancing i past a separate DIR): true when
/// it is one.
bool parseIncludeDir(const std::vector<std::string>& args, size_t& i, std::vector<std::string>& dirs);

/// The arguments after `compile`; throws UsageError for anything wrong.
CompileArgs parseCompileArgs(const std::vector<std::string>& args);

}  // namespace tessera::cli
