//===- Prelude.cpp - The Triton-language library, parsed once ---------------===//
//
// tl.sum, tl.max, tl.softmax, tl.cdiv, the Philox PRNG and the other
// functions Triton implements as @jit functions are written in the Triton
// language in lib/frontend/prelude/tl_prelude.py, embedded as
// kPreludeSource, and parsed on first use.
//
//===----------------------------------------------------------------------===//

#include <mutex>
#include <string_view>

#include "CodeGen.h"

namespace tessera::frontend {

extern const std::string_view kPreludeSource;
extern thread_local bool gLoadingPrelude;

const SourceProgram& preludeProgram() {
  static std::shared_ptr<SourceProgram> program;
  static std::once_flag once;
  std::call_once(once, [] {
    gLoadingPrelude = true;
    auto file = std::make_shared<SourceFile>("<triton prelude>", std::string(kPreludeSource));
    try {
      program = SourceProgram::load(file);
    } catch (...) {
      gLoadingPrelude = false;
      throw;
    }
    gLoadingPrelude = false;
  });
  return *program;
}

}  // namespace tessera::frontend
