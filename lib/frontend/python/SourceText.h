//===- SourceText.h - Bytes of a source file to the text Python reads -*- C++ -*-===//
#pragma once

#include <string>

namespace tessera::py {

/// `bytes` as CPython reads a source file: throws tessera::Error at the
/// first byte that is not well-formed UTF-8 (file:line:col and a caret);
/// "\r\n" and lone "\r" line endings become "\n".
std::string pythonSourceText(const std::string& bytes, const std::string& filename);

/// The bytes of the Python file at `path`; throws tessera::Error saying why
/// when it is missing, a directory, not a regular file (a FIFO would wait
/// for a writer), larger than 64 MiB or unreadable.
std::string readSourceFile(const std::string& path);

}  // namespace tessera::py
