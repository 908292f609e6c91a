//===- tessera/support/Diagnostics.h - Source files and diagnostics -------===//
//
// A SourceFile owns the text of one input file and answers "what is line N".
// Diagnostics are formatted the same way everywhere:
//
//   kernel.py:12:17: error: tl.load: mask has shape [128] but pointer has shape [64, 128]
//       x = tl.load(ptrs, mask=m)
//                   ^
//
// Lines and columns are 1-based. reportError throws tessera::Error.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/Error.h"

namespace tessera {

/// The text of one source file with a line index. Shared by the AST, the IR
/// locations and the diagnostics, so it must outlive them: hold it by
/// shared_ptr.
class SourceFile {
 public:
  SourceFile(std::string name, std::string text);
  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }
  /// The text of 1-based line `line` without its newline ("" if out of range).
  std::string_view line(int line) const;
  int numLines() const { return static_cast<int>(lineStarts_.size()); }

 private:
  std::string name_;
  std::string text_;
  std::vector<size_t> lineStarts_;
};

using SourceFileRef = std::shared_ptr<const SourceFile>;

/// A position in a source file. line/col are 1-based; 0 means unknown.
struct SourceLoc {
  const SourceFile* file = nullptr;
  int line = 0;
  int col = 0;
};

/// "file:line:col: error: msg" + source line + caret (when the file is known).
std::string formatDiagnostic(const SourceLoc& loc, std::string_view message,
                             std::string_view severity = "error");

/// Throws tessera::Error with formatDiagnostic(loc, message).
[[noreturn]] void reportError(const SourceLoc& loc, std::string_view message);

}  // namespace tessera
