//===- SourceText.cpp - Bytes of a source file to the text Python reads ---===//
//
// What CPython does to source bytes before tokenizing, done once here for
// every file Tessera reads: the bytes must be UTF-8 (otherwise a
// SyntaxError, located at the first bad byte), and every line ending --
// "\r\n", or a lone "\r" of classic Mac files -- becomes "\n" (universal
// newlines), so lines and columns agree with Python's.
//
//===----------------------------------------------------------------------===//

#include "frontend/python/SourceText.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "tessera/support/Diagnostics.h"

namespace tessera::py {

namespace {

/// The length of the well-formed UTF-8 sequence at `s[i]` (Unicode's table
/// 3-7: no overlong forms, no surrogates, nothing past U+10FFFF); 0 if
/// there is none.
size_t utf8Length(const std::string& s, size_t i) {
  auto at = [&](size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0x100u; };
  unsigned c = at(0);
  if (c < 0x80) return 1;
  auto cont = [&](size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) { return at(k) >= lo && at(k) <= hi; };
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c == 0xE0) return cont(1, 0xA0) && cont(2) ? 3 : 0;
  if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) return cont(1) && cont(2) ? 3 : 0;
  if (c == 0xED) return cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;
  if (c == 0xF0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (c >= 0xF1 && c <= 0xF3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (c == 0xF4) return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

}  // namespace

std::string pythonSourceText(const std::string& bytes, const std::string& filename) {
  std::string text;
  text.reserve(bytes.size());
  int line = 1;
  // The lexer skips a byte order mark, so line 1's columns start after it.
  size_t lineStart = bytes.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
  for (size_t i = 0; i < bytes.size();) {
    char c = bytes[i];
    if (c == '\r') {
      text += '\n';
      i += i + 1 < bytes.size() && bytes[i + 1] == '\n' ? 2 : 1;
      ++line;
      lineStart = text.size();
      continue;
    }
    size_t n = utf8Length(bytes, i);
    if (n == 0) {
      // Located in the text read so far plus the rest of the bad line.
      size_t end = bytes.find_first_of("\r\n", i);
      auto file = std::make_shared<SourceFile>(filename, text + bytes.substr(i, end == std::string::npos ? end : end - i));
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned char>(c));
      reportError({file.get(), line, static_cast<int>(text.size() - lineStart) + 1},
                  std::string("the file is not valid UTF-8 (byte ") + hex +
                      "); Python source files must be UTF-8 (PEP 3120)");
    }
    text.append(bytes, i, n);
    if (c == '\n') {
      ++line;
      lineStart = text.size();
    }
    i += n;
  }
  return text;
}

std::string readSourceFile(const std::string& path) {
  // Said before opening: a directory opens fine and reads as nothing, and a
  // FIFO would wait for a writer.
  std::error_code ec;
  std::filesystem::file_status st = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(st))
    throw Error("cannot open kernel file '" + path + "': " + (ec ? ec.message() : "no such file"));
  if (std::filesystem::is_directory(st))
    throw Error("kernel file '" + path + "' is a directory; give the .py file that holds the kernels");
  if (!std::filesystem::is_regular_file(st)) throw Error("kernel file '" + path + "' is not a regular file");
  constexpr uintmax_t kMaxSourceBytes = uintmax_t{64} << 20;
  if (std::filesystem::file_size(path, ec) > kMaxSourceBytes)
    throw Error("kernel file '" + path + "' is larger than 64 MiB");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open kernel file '" + path + "': " + std::strerror(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace tessera::py
