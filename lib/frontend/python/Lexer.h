//===- Lexer.h - Python 3.12 tokenizer --------------------------*- C++ -*-===//
//
// Turns the text of a Python file into a flat vector of tokens, the way
// CPython's tokenizer does: NAME, NUMBER, STRING, OP, NEWLINE, INDENT, DEDENT
// and ENDMARKER. Newlines inside brackets and after a `\` are joined, blank
// and comment-only lines produce nothing, and indentation is measured with
// tabs to the next multiple of 8 (and checked against tab size 1 to catch
// inconsistent mixes, as CPython does).
//
// Strings are decoded here: a STRING token carries the decoded value. An
// f-string is split here too, into literal parts and replacement fields; each
// field holds the tokens of its expression (lexed from the same source, so
// their positions are exact) and the parser turns them into a JoinedStr.
//
// Positions: line and column are 1-based; a column counts UTF-8 bytes from
// the start of the line (CPython's col_offset + 1), which is also what the
// caret of formatDiagnostic expects. Every lexical error throws
// tessera::Error with a CPython-like message.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/support/Diagnostics.h"

namespace tessera::py {

enum class TokKind { Name, Number, String, Op, Newline, Indent, Dedent, EndMarker };

struct FString;

/// The first 8 bytes of a short token text packed into an integer, so that
/// comparing a token with an operator or keyword literal is one compare.
constexpr uint64_t packTokenText(const char* t) {
  uint64_t v = 0;
  int i = 0;
  for (; t[i] && i < 8; ++i) v |= static_cast<uint64_t>(static_cast<unsigned char>(t[i])) << (8 * i);
  return t[i] ? 0 : v;  // longer than 8 bytes: 0, never equal to a packed literal
}
inline uint64_t packTokenText(std::string_view t) {
  if (t.size() > 8) return 0;
  uint64_t v = 0;
  for (size_t i = 0; i < t.size(); ++i) v |= static_cast<uint64_t>(static_cast<unsigned char>(t[i])) << (8 * i);
  return v;
}

/// The decoded value of a STRING token.
struct StringLit {
  std::string value;              ///< decoded text (UTF-8) or bytes; unused for f-strings
  bool isBytes = false;
  std::unique_ptr<FString> fstr;  ///< set for f-strings
};

/// One token. `text` views the source: the identifier, the operator
/// spelling, the digits of a number or the whole string literal.
struct Token {
  TokKind kind = TokKind::EndMarker;
  bool keyword = false;  ///< NAME that is a hard keyword
  int line = 0, col = 0, endLine = 0, endCol = 0;
  uint64_t code = 0;     ///< packTokenText(text) for NAME and OP
  std::string_view text;
  /// STRING: the decoded literal. NAME: owns `text` when the identifier was
  /// normalized (NFKC), else null.
  std::shared_ptr<const StringLit> str;

  bool isOp(const char* t) const { return kind == TokKind::Op && code == packTokenText(t); }
  bool isName(const char* t) const { return kind == TokKind::Name && code == packTokenText(t); }
};

/// One piece of an f-string: literal text or a `{...}` replacement field.
struct FStringPart {
  bool isField = false;
  std::string literal;        ///< decoded literal text (isField == false)
  int line = 0, col = 0, endLine = 0, endCol = 0;
  // Field:
  std::vector<Token> tokens;  ///< the expression, ended by an EndMarker token
  std::string debugText;      ///< "expr=" text for the `=` specifier, else ""
  int conversion = -1;        ///< -1, 's', 'r' or 'a'
  bool hasSpec = false;
  std::vector<FStringPart> spec;  ///< format spec parts (may nest fields)
};

struct FString {
  std::vector<FStringPart> parts;
};

/// Tokenizes a whole file. Throws tessera::Error on a lexical error.
std::vector<Token> tokenize(const SourceFile& file);

/// True for Python's hard keywords (not the soft `match`, `case`, `type`, `_`).
bool isKeyword(std::string_view name);

}  // namespace tessera::py
