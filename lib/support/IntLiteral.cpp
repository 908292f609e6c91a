//===- IntLiteral.cpp - Integers written as Python writes them ------------===//

#include "tessera/support/IntLiteral.h"

namespace tessera {

IntLiteralStatus parseIntLiteral(std::string_view text, int64_t& value) {
  std::string_view t = text;
  bool negative = false;
  if (!t.empty() && (t[0] == '-' || t[0] == '+')) {
    negative = t[0] == '-';
    t.remove_prefix(1);
  }
  if (t.empty()) return IntLiteralStatus::NotAnInteger;
  int base = 10;
  if (t.size() > 2 && t[0] == '0') {
    char p = static_cast<char>(t[1] | 0x20);
    base = p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : 10;
    if (base != 10) {
      t.remove_prefix(2);
      if (!t.empty() && t[0] == '_') t.remove_prefix(1);  // 0x_1f is Python too
    }
  }
  // Magnitudes up to 2^63 (for -2^63), checked digit by digit.
  uint64_t magnitude = 0, limit = uint64_t{1} << 63;
  bool sawDigit = false, lastUnderscore = false, overflow = false;
  for (char c : t) {
    if (c == '_') {
      if (!sawDigit || lastUnderscore) return IntLiteralStatus::NotAnInteger;
      lastUnderscore = true;
      continue;
    }
    int d = c >= '0' && c <= '9' ? c - '0' : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10 : 99;
    if (d >= base) return IntLiteralStatus::NotAnInteger;
    if (magnitude > (limit - static_cast<uint64_t>(d)) / static_cast<uint64_t>(base)) overflow = true;
    else magnitude = magnitude * base + static_cast<uint64_t>(d);
    sawDigit = true;
    lastUnderscore = false;
  }
  if (!sawDigit || lastUnderscore) return IntLiteralStatus::NotAnInteger;
  if (base == 10 && t.size() > 1 && t[0] == '0' && t.find_first_not_of("0_") != std::string_view::npos)
    return IntLiteralStatus::LeadingZero;
  if (overflow || (!negative && magnitude == limit)) return IntLiteralStatus::OutOfRange;
  value = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  return IntLiteralStatus::Ok;
}

std::string intLiteralError(std::string_view text, IntLiteralStatus status) {
  std::string quoted = "'" + std::string(text) + "'";
  switch (status) {
    case IntLiteralStatus::LeadingZero:
      return quoted + ": leading zeros are not allowed in Python integers (write 0o" +
             std::string(text.substr(text.find_first_not_of("+-0_"))) + " for an octal number)";
    case IntLiteralStatus::OutOfRange:
      return quoted + " does not fit in a 64-bit integer (-2^63 to 2^63-1)";
    default: return quoted + " is not an integer";
  }
}

}  // namespace tessera
