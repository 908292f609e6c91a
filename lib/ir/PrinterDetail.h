//===- PrinterDetail.h - Text-form atoms shared by printer and parser -*- C++ -*-===//
//
// Private to lib/ir. The printer and the parser must agree on how numbers,
// strings, keys and attribute values are spelled; both use these helpers.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "tessera/ir/IR.h"

namespace tessera::ir::detail {

void appendInt(std::string& out, int64_t v);
/// Shortest text that parses back to the same double; always has `.` or an
/// exponent; `inf`, `-inf`, `nan` for the non-finite values.
void appendDouble(std::string& out, double d);
/// `"..."` with \" \\ \n \t and \xHH for other control characters.
void appendQuoted(std::string& out, std::string_view s);
/// [A-Za-z_][A-Za-z0-9_.$]*
bool isIdentifier(std::string_view s);
/// A bare identifier or a quoted string.
void appendKey(std::string& out, std::string_view key);
void appendAttribute(std::string& out, const Attribute& attr);
/// Splits a function attribute `argN.key` (N < numArgs, no leading zeros)
/// into (N, key).
std::optional<std::pair<unsigned, std::string_view>> splitArgAttr(std::string_view key,
                                                                  unsigned numArgs);

}  // namespace tessera::ir::detail
