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

#include <memory>
#include <string>
#include <vector>

#include "tessera/support/Diagnostics.h"

namespace tessera::py {

enum class TokKind { Name, Number, String, Op, Newline, Indent, Dedent, EndMarker };

struct FString;

/// One token. `text` is the identifier, the operator spelling or the source
/// text of a number; strings keep their decoded value in `value`.
struct Token {
  TokKind kind = TokKind::EndMarker;
  std::string text;
  int line = 0, col = 0, endLine = 0, endCol = 0;
  // STRING only:
  std::string value;               ///< decoded text (UTF-8) or bytes
  bool isBytes = false;
  std::shared_ptr<FString> fstr;   ///< set for f-strings; `value` unused then

  bool is(TokKind k, const char* t) const { return kind == k && text == t; }
  bool isOp(const char* t) const { return kind == TokKind::Op && text == t; }
  bool isName(const char* t) const { return kind == TokKind::Name && text == t; }
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
bool isKeyword(const std::string& name);

}  // namespace tessera::py
