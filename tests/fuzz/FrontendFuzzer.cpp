//===- FrontendFuzzer.cpp - libFuzzer entry for the whole pipeline --------===//
//
// Mutated kernel sources through the parser, code generator, passes and
// interpreter (see FuzzOneInput.h). Run by tests/fuzz/run.sh.
//
//===----------------------------------------------------------------------===//

#include <cstddef>
#include <cstdint>

#include "FuzzOneInput.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 16384) return 0;
  tessera::fuzz::fuzzOneInput(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
