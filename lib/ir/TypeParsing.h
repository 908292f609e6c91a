//===- TypeParsing.h - Parsing a type inside a larger text ------*- C++ -*-===//
//
// Private to lib/ir: the IR parser reads types in the middle of a line
// ("... : tensor<64xf32>, i32 {"), so it needs a type reader that stops at the
// end of the type and reports how far it got. Type::parse is built on it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string_view>

#include "tessera/ir/Types.h"

namespace tessera::ir::detail {

/// Parses one type starting at text[pos]. On success returns it and moves pos
/// past it; on failure returns a null Type and leaves pos at the offending
/// character.
Type parseTypeAt(std::string_view text, size_t& pos);

}  // namespace tessera::ir::detail
