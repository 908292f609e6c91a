//===- tessera/support/IntLiteral.h - Integers written as Python writes them -===//
//
// One reader for the integers users write outside kernel source: -D values,
// constexprs inline in an AOT signature. Python's rules: decimal without
// leading zeros ("010" is a SyntaxError in Python 3, not octal 8), 0x / 0o /
// 0b prefixes, '_' between digits, an optional sign; the value must fit in
// int64 (a larger one is an error, never clamped).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tessera {

enum class IntLiteralStatus { Ok, NotAnInteger, LeadingZero, OutOfRange };

/// Parses `text` as a Python int literal into `value`. NotAnInteger for text
/// that is not one (then it may be a float or a string); LeadingZero and
/// OutOfRange are errors intLiteralError() explains.
IntLiteralStatus parseIntLiteral(std::string_view text, int64_t& value);

/// "'010': leading zeros are not allowed in Python integers (write 8 as 0o10, or 10)" and the like.
std::string intLiteralError(std::string_view text, IntLiteralStatus status);

}  // namespace tessera
