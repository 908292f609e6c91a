//===- interpreter/FloatFormats.h - The interpreter's view of ir/FloatFormats ===//
//
// The exact small-float codecs live in lib/ir (the PTX backend needs them
// for constants too); the interpreter uses them unqualified.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ir/FloatFormats.h"

namespace tessera::interp {
using namespace ::tessera::ir::floats;
}  // namespace tessera::interp
