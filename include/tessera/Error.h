//===- tessera/Error.h - The one user-facing exception ----------*- C++ -*-===//
//
// Every failure a user can cause (bad kernel source, wrong launch arguments,
// out-of-bounds access in the interpreter, a missing GPU) is reported by
// throwing tessera::Error. what() is the full diagnostic: for source errors
// "file:line:col: error: message", the source line and a caret under the
// column.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <stdexcept>
#include <string>

#include "tessera/Export.h"

TESSERA_API_BEGIN
namespace tessera {

/// A user-facing failure. what() is the complete, printable diagnostic.
struct Error : std::runtime_error {
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace tessera
TESSERA_API_END
