//===- ApiFuzzer.cpp - libFuzzer entry for command lines and launches -----===//
//
// Fuzzed `tessera compile` command lines and launch arguments (see
// FuzzApiInput.h). Run by tests/fuzz/run.sh after the frontend target.
//
//===----------------------------------------------------------------------===//

#include <cstddef>
#include <cstdint>

#include "FuzzApiInput.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;
  tessera::fuzz::fuzzApiInput(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
