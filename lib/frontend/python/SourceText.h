//===- SourceText.h - Bytes of a source file to the text Python reads -*- C++ -*-===//
#pragma once

#include <string>

namespace tessera::py {

/// `bytes` as CPython reads a source file: throws tessera::Error at the
/// first byte that is not well-formed UTF-8 (file:line:col and a caret);
/// "\r\n" and lone "\r" line endings become "\n".
std::string pythonSourceText(const std::string& bytes, const std::string& filename);

}  // namespace tessera::py
