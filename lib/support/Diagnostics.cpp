//===- Diagnostics.cpp - Source files and diagnostic formatting -----------===//

#include "tessera/support/Diagnostics.h"

namespace tessera {

SourceFile::SourceFile(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)) {
  lineStarts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n' && i + 1 <= text_.size()) lineStarts_.push_back(i + 1);
}

std::string_view SourceFile::line(int line) const {
  if (line < 1 || line > numLines()) return {};
  size_t begin = lineStarts_[line - 1];
  size_t end = text_.find('\n', begin);
  if (end == std::string::npos) end = text_.size();
  if (end > begin && text_[end - 1] == '\r') --end;
  return std::string_view(text_).substr(begin, end - begin);
}

std::string formatDiagnostic(const SourceLoc& loc, std::string_view message,
                             std::string_view severity) {
  std::string out;
  if (loc.file) {
    out += loc.file->name();
    if (loc.line > 0) {
      out += ":" + std::to_string(loc.line);
      if (loc.col > 0) out += ":" + std::to_string(loc.col);
    }
    out += ": ";
  }
  out += severity;
  out += ": ";
  out += message;
  if (loc.file && loc.line > 0) {
    std::string_view text = loc.file->line(loc.line);
    if (!text.empty()) {
      out += "\n    ";
      out += text;
      if (loc.col > 0) {
        out += "\n    ";
        // Keep tabs so the caret lines up with the source line.
        for (int i = 1; i < loc.col && i - 1 < static_cast<int>(text.size()); ++i)
          out += text[i - 1] == '\t' ? '\t' : ' ';
        out += '^';
      }
    }
  }
  return out;
}

void reportError(const SourceLoc& loc, std::string_view message) {
  throw Error(formatDiagnostic(loc, message));
}

}  // namespace tessera
