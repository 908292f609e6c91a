//===- Lexer.cpp - Python 3.12 tokenizer ------------------------*- C++ -*-===//
//
// One pass over the bytes of the file. The main loop handles line structure
// (indentation, NEWLINE, blank lines, `\` joining, brackets); lexToken()
// handles one token and is reused for the expressions inside f-string
// replacement fields, which are lexed in place so their positions are exact.
// Limits keep hostile input cheap: 200 nested brackets, 100 indentation
// levels, 150 nested f-strings.
//
//===----------------------------------------------------------------------===//

#include "frontend/python/Lexer.h"

#include <cstdio>
#include <cstring>

namespace tessera::py {
namespace {

constexpr int kMaxParenDepth = 200;
constexpr int kMaxIndentDepth = 100;
constexpr int kMaxFStringDepth = 150;

const char* const kKeywords[] = {
    "False", "None",   "True",    "and",      "as",     "assert", "async",
    "await", "break",  "class",   "continue", "def",    "del",    "elif",
    "else",  "except", "finally", "for",      "from",   "global", "if",
    "import", "in",    "is",      "lambda",   "nonlocal", "not",  "or",
    "pass",  "raise",  "return",  "try",      "while",  "with",   "yield"};

/// Appends code point `cp` to `out` as UTF-8.
void appendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

/// Non-ASCII code points that may appear in identifiers. Without the Unicode
/// tables this is an approximation: everything except the common
/// punctuation, symbol, space and control blocks.
bool isIdentCodePoint(uint32_t cp) {
  if (cp < 0xA0) return false;
  if (cp <= 0xBF) return cp == 0xAA || cp == 0xB5 || cp == 0xBA;
  if (cp == 0xD7 || cp == 0xF7) return false;
  if (cp >= 0x2000 && cp <= 0x206F) return false;  // general punctuation
  if (cp >= 0x20A0 && cp <= 0x20FF) return false;  // currency, combining for symbols
  if (cp >= 0x2190 && cp <= 0x2BFF) return false;  // arrows, math, boxes, shapes
  if (cp >= 0x2E00 && cp <= 0x2E7F) return false;  // supplemental punctuation
  if (cp >= 0x3000 && cp <= 0x3003) return false;  // CJK spaces and marks
  if (cp >= 0xD800 && cp <= 0xDFFF) return false;
  if (cp >= 0xFE10 && cp <= 0xFE6F) return false;  // vertical/small forms
  if (cp >= 0xFF00 && cp <= 0xFF0F) return false;  // fullwidth punctuation
  if (cp == 0xFEFF || cp == 0xFFFD) return false;
  if (cp >= 0x1F000 && cp <= 0x1FAFF) return false;  // emoji and pictographs
  return cp <= 0x10FFFF;
}

bool isPrintable(uint32_t cp) {
  if (cp < 0x20 || (cp >= 0x7F && cp <= 0xA0)) return false;
  if (cp == 0xAD || (cp >= 0x2000 && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202F)) return false;
  if (cp == 0x3000 || cp == 0xFEFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
  return true;
}

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool isAsciiIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool isDigit(char c) { return c >= '0' && c <= '9'; }

class Lexer {
 public:
  explicit Lexer(const SourceFile& file) : file_(file), src_(file.text()) {}
  std::vector<Token> run();

 private:
  struct Open { char ch; int line, col; };
  /// The f-string being scanned (quote character, triple-quoted, raw).
  struct FStringCtx { char quote = 0; bool triple = false, raw = false; int line = 0, col = 0; };

  const SourceFile& file_;
  const std::string& src_;
  size_t pos_ = 0;
  int line_ = 1;
  size_t lineStart_ = 0;
  std::vector<Open> parens_;
  std::vector<int> indents_{0}, altIndents_{0};
  std::vector<Token> toks_;
  int fstringDepth_ = 0;
  FStringCtx fctx_;

  int col() const { return static_cast<int>(pos_ - lineStart_) + 1; }
  char peek(size_t k = 0) const { return pos_ + k < src_.size() ? src_[pos_ + k] : '\0'; }
  bool atEnd() const { return pos_ >= src_.size(); }
  [[noreturn]] void error(int line, int col, const std::string& msg) const {
    reportError(SourceLoc{&file_, line, col}, msg);
  }
  /// Consumes a '\n' (or "\r\n") at pos_ and starts the next line.
  void consumeNewline() {
    if (peek() == '\r') ++pos_;
    ++pos_;
    ++line_;
    lineStart_ = pos_;
  }
  /// The last line with text, as CPython reports in "detected at line N".
  int detectedLine() const {
    return atEnd() && pos_ > 0 && src_[pos_ - 1] == '\n' ? line_ - 1 : line_;
  }
  bool atNewline() const { return peek() == '\n' || (peek() == '\r' && peek(1) == '\n'); }
  uint32_t decodeUtf8(size_t at, int* len) const;

  void handleIndentation(int width, int alt, int lineNo, int firstCol);
  Token makeToken(TokKind kind, size_t start, int line, int col) const {
    Token t;
    t.kind = kind;
    t.text = std::string_view(src_).substr(start, pos_ - start);
    t.line = line;
    t.col = col;
    t.endLine = line_;
    t.endCol = this->col();
    if (kind == TokKind::Name || kind == TokKind::Op) t.code = packTokenText(t.text);
    return t;
  }
  Token lexToken();
  Token lexName();
  void normalizeIdentifier(Token& t) const;
  Token lexNumber();
  Token lexOperator();
  Token lexString(size_t start, int line, int col, const std::string& prefix);
  void decodeEscape(std::string& out, bool isBytes, int strLine, int strCol);
  void lexFStringParts(std::vector<FStringPart>& parts, bool inSpec);
  void lexField(std::vector<FStringPart>& parts);
  [[noreturn]] void invalidCharacter();
  void unterminated(int line, int col, bool triple) const {
    error(line, col, std::string(triple ? "unterminated triple-quoted string literal"
                                        : "unterminated string literal") +
                         " (detected at line " + std::to_string(detectedLine()) + ")");
  }
};

uint32_t Lexer::decodeUtf8(size_t at, int* len) const {
  unsigned char c = static_cast<unsigned char>(src_[at]);
  int n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
  uint32_t cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
  if (n == 1 && c >= 0x80) {
    *len = 1;
    return 0xFFFFFFFF;
  }
  for (int i = 1; i < n; ++i) {
    if (at + i >= src_.size() || (static_cast<unsigned char>(src_[at + i]) & 0xC0) != 0x80) {
      *len = 1;
      return 0xFFFFFFFF;
    }
    cp = (cp << 6) | (static_cast<unsigned char>(src_[at + i]) & 0x3F);
  }
  *len = n;
  return cp;
}

std::vector<Token> Lexer::run() {
  toks_.reserve(src_.size() / 6 + 16);
  // A UTF-8 byte order mark is ignored.
  if (src_.compare(0, 3, "\xEF\xBB\xBF") == 0) pos_ = lineStart_ = 3;
  bool atLineStart = true;
  while (true) {
    if (atLineStart && parens_.empty()) {
      int width = 0, alt = 0;
      while (!atEnd()) {
        char c = peek();
        if (c == ' ') ++width, ++alt;
        else if (c == '\t') width = (width / 8 + 1) * 8, ++alt;
        else if (c == '\f') width = alt = 0;
        else break;
        ++pos_;
      }
      if (atEnd()) break;
      char c = peek();
      if (c == '#' || c == '\n' || c == '\r') {
        // Blank or comment-only line: no tokens at all.
        while (!atEnd() && !atNewline()) ++pos_;
        if (!atEnd()) consumeNewline();
        continue;
      }
      atLineStart = false;
      handleIndentation(width, alt, line_, col());
    }
    while (peek() == ' ' || peek() == '\t' || peek() == '\f') ++pos_;
    if (atEnd()) break;
    char c = peek();
    if (c == '#') {
      while (!atEnd() && !atNewline()) ++pos_;
      continue;
    }
    if (c == '\r' && peek(1) != '\n') {  // lone CR: treat as a space
      ++pos_;
      continue;
    }
    if (c == '\n' || c == '\r') {
      if (parens_.empty()) {
        Token t;
        t.kind = TokKind::Newline;
        t.line = t.endLine = line_;
        t.col = col();
        t.endCol = col() + 1;
        toks_.push_back(std::move(t));
        atLineStart = true;
      }
      consumeNewline();
      continue;
    }
    if (c == '\\') {
      int l = line_, cl = col();
      ++pos_;
      if (atEnd()) error(l, cl + 1, "unexpected EOF while parsing");
      if (!atNewline()) error(l, cl + 1, "unexpected character after line continuation character");
      consumeNewline();
      if (atEnd()) error(line_, col(), "unexpected EOF while parsing");
      continue;
    }
    toks_.push_back(lexToken());
  }
  if (!parens_.empty()) {
    const Open& o = parens_.back();
    error(o.line, o.col, std::string("'") + o.ch + "' was never closed");
  }
  Token end;
  end.line = end.endLine = line_;
  end.col = end.endCol = col();
  if (!toks_.empty() && toks_.back().kind != TokKind::Newline) {
    Token nl = end;
    nl.kind = TokKind::Newline;
    toks_.push_back(nl);
  }
  for (size_t i = 1; i < indents_.size(); ++i) {
    Token d = end;
    d.kind = TokKind::Dedent;
    toks_.push_back(d);
  }
  end.kind = TokKind::EndMarker;
  toks_.push_back(end);
  return std::move(toks_);
}

void Lexer::handleIndentation(int width, int alt, int lineNo, int firstCol) {
  auto inconsistent = [&] { error(lineNo, 1, "inconsistent use of tabs and spaces in indentation"); };
  Token t;
  t.line = t.endLine = lineNo;
  t.col = firstCol > 1 ? firstCol - 1 : 1;  // CPython points at the last indent character
  t.endCol = firstCol;
  if (width == indents_.back()) {
    if (alt != altIndents_.back()) inconsistent();
    return;
  }
  if (width > indents_.back()) {
    if (alt <= altIndents_.back()) inconsistent();
    if (static_cast<int>(indents_.size()) > kMaxIndentDepth)
      error(lineNo, firstCol, "too many levels of indentation");
    indents_.push_back(width);
    altIndents_.push_back(alt);
    t.kind = TokKind::Indent;
    toks_.push_back(t);
    return;
  }
  while (indents_.size() > 1 && width < indents_.back()) {
    indents_.pop_back();
    altIndents_.pop_back();
    t.kind = TokKind::Dedent;
    t.endCol = t.col = firstCol;
    toks_.push_back(t);
  }
  if (width != indents_.back()) {
    // CPython points past the end of the offending line.
    error(lineNo, static_cast<int>(file_.line(lineNo).size()) + 1,
          "unindent does not match any outer indentation level");
  }
  if (alt != altIndents_.back()) inconsistent();
}

Token Lexer::lexToken() {
  char c = peek();
  if (isAsciiIdentStart(c) || static_cast<unsigned char>(c) >= 0x80) return lexName();
  if (isDigit(c) || (c == '.' && isDigit(peek(1)))) return lexNumber();
  if (c == '\'' || c == '"') return lexString(pos_, line_, col(), "");
  return lexOperator();
}

void Lexer::invalidCharacter() {
  int len = 1;
  uint32_t cp = decodeUtf8(pos_, &len);
  char buf[64];
  if (cp == 0) error(line_, col(), "source code cannot contain null bytes");
  if (cp == 0xFFFFFFFF) {
    snprintf(buf, sizeof buf, "invalid utf-8 byte 0x%02x in source",
             static_cast<unsigned char>(peek()));
    error(line_, col(), buf);
  }
  if (cp < 0x80 && isPrintable(cp)) error(line_, col(), "invalid syntax");
  if (!isPrintable(cp)) {
    snprintf(buf, sizeof buf, "invalid non-printable character U+%04X", cp);
    error(line_, col(), buf);
  }
  snprintf(buf, sizeof buf, "' (U+%04X)", cp);
  error(line_, col(), "invalid character '" + src_.substr(pos_, len) + buf);
}

Token Lexer::lexName() {
  size_t start = pos_;
  int line = line_, c0 = col();
  while (!atEnd()) {
    char c = peek();
    if (isAsciiIdentStart(c) || isDigit(c)) {
      ++pos_;
      continue;
    }
    if (static_cast<unsigned char>(c) < 0x80) break;
    int len = 1;
    uint32_t cp = decodeUtf8(pos_, &len);
    if (!isIdentCodePoint(cp)) break;
    pos_ += len;
  }
  if (pos_ == start) invalidCharacter();
  // A string prefix directly followed by a quote starts a string.
  if ((peek() == '\'' || peek() == '"') && pos_ - start <= 2) {
    std::string prefix;
    for (size_t i = start; i < pos_; ++i) prefix += static_cast<char>(tolower(src_[i]));
    static const char* const kPrefixes[] = {"r", "u", "b", "br", "rb", "f", "fr", "rf"};
    for (const char* p : kPrefixes)
      if (prefix == p) return lexString(start, line, c0, prefix);
  }
  Token t = makeToken(TokKind::Name, start, line, c0);
  normalizeIdentifier(t);
  t.keyword = isKeyword(t.text);
  return t;
}

/// Identifiers are NFKC-normalized by CPython. Without Unicode tables only
/// the common compatibility forms are folded: fullwidth ASCII (U+FF01..FF5E),
/// MICRO SIGN and LATIN SMALL LETTER LONG S.
void Lexer::normalizeIdentifier(Token& t) const {
  bool ascii = true;
  for (char c : t.text) ascii &= static_cast<unsigned char>(c) < 0x80;
  if (ascii) return;
  std::string out;
  bool changed = false;
  size_t base = static_cast<size_t>(t.text.data() - src_.data());
  for (size_t i = 0; i < t.text.size();) {
    int len = 1;
    uint32_t cp = decodeUtf8(base + i, &len);
    uint32_t mapped = cp >= 0xFF01 && cp <= 0xFF5E ? cp - 0xFEE0 : cp == 0xB5 ? 0x3BC : cp == 0x17F ? 's' : cp;
    changed |= mapped != cp;
    appendUtf8(out, mapped);
    i += len;
  }
  if (!changed) return;
  auto lit = std::make_shared<StringLit>();
  lit->value = std::move(out);
  t.text = lit->value;
  t.code = packTokenText(t.text);
  t.str = std::move(lit);
}

Token Lexer::lexNumber() {
  size_t start = pos_;
  int line = line_, c0 = col();
  auto identFollows = [&] {
    char c = peek();
    if (isAsciiIdentStart(c) || isDigit(c)) return true;
    if (static_cast<unsigned char>(c) < 0x80) return false;
    int len = 1;
    return isIdentCodePoint(decodeUtf8(pos_, &len));
  };
  // Digits of `valid` with single underscores between them; returns the count.
  auto digits = [&](auto valid, const char* what) {
    int n = 0;
    while (true) {
      if (valid(peek())) {
        ++pos_, ++n;
      } else if (peek() == '_' && n > 0) {
        ++pos_;
        if (!valid(peek())) error(line_, col() - 1, std::string("invalid ") + what + " literal");
      } else {
        break;
      }
    }
    return n;
  };
  if (peek() == '0' && strchr("xXoObB", peek(1)) && peek(1) != '\0') {
    char b = static_cast<char>(tolower(peek(1)));
    const char* what = b == 'x' ? "hexadecimal" : b == 'o' ? "octal" : "binary";
    pos_ += 2;
    if (peek() == '_') ++pos_;
    int n = 0;
    if (b == 'x') n = digits([](char c) { return hexValue(c) >= 0; }, what);
    if (b == 'o') n = digits([](char c) { return c >= '0' && c <= '7'; }, what);
    if (b == 'b') n = digits([](char c) { return c == '0' || c == '1'; }, what);
    if (isDigit(peek())) {
      error(line_, col(), std::string("invalid digit '") + peek() + "' in " + what + " literal");
    }
    if (n == 0 || identFollows()) error(line_, col() - 1, std::string("invalid ") + what + " literal");
    return makeToken(TokKind::Number, start, line, c0);
  }
  auto dec = [](char c) { return isDigit(c); };
  bool isFloat = false;
  int intDigits = digits(dec, "decimal");
  if (peek() == '.') {
    ++pos_;
    isFloat = true;
    if (isDigit(peek())) digits(dec, "decimal");
  }
  if ((peek() == 'e' || peek() == 'E') &&
      (isDigit(peek(1)) || ((peek(1) == '+' || peek(1) == '-') && isDigit(peek(2))))) {
    pos_ += (peek(1) == '+' || peek(1) == '-') ? 2 : 1;
    digits(dec, "decimal");
    isFloat = true;
  } else if (peek() == 'e' || peek() == 'E') {
    error(line, c0, "invalid decimal literal");
  }
  if (peek() == 'j' || peek() == 'J') {
    ++pos_;
    if (identFollows()) error(line_, col() - 1, "invalid imaginary literal");
    return makeToken(TokKind::Number, start, line, c0);
  }
  if (identFollows()) error(line, c0, "invalid decimal literal");
  if (!isFloat && intDigits > 1 && src_[start] == '0') {
    for (size_t i = start; i < pos_; ++i)
      if (src_[i] != '0' && src_[i] != '_')
        error(line, c0,
              "leading zeros in decimal integer literals are not permitted; use an 0o prefix "
              "for octal integers");
  }
  return makeToken(TokKind::Number, start, line, c0);
}

/// Length of the longest operator or delimiter at `p` (0 if none).
static int operatorLength(const char* p, const char* end) {
  char c0 = p[0], c1 = p + 1 < end ? p[1] : '\0', c2 = p + 2 < end ? p[2] : '\0';
  switch (c0) {
    case '(': case ')': case '[': case ']': case '{': case '}': case ',': case ';': case '~':
      return 1;
    case '.': return c1 == '.' && c2 == '.' ? 3 : 1;
    case '*':
    case '/':
      if (c1 == c0) return c2 == '=' ? 3 : 2;
      return c1 == '=' ? 2 : 1;
    case '<':
    case '>':
      if (c1 == c0) return c2 == '=' ? 3 : 2;
      return c1 == '=' ? 2 : 1;
    case '-': return c1 == '=' || c1 == '>' ? 2 : 1;
    case ':': return c1 == '=' ? 2 : 1;
    case '+': case '%': case '&': case '|': case '^': case '@': case '=': case '!':
      return c1 == '=' ? 2 : 1;
    default: return 0;
  }
}

Token Lexer::lexOperator() {
  size_t start = pos_;
  int line = line_, c0 = col();
  int n = operatorLength(src_.data() + pos_, src_.data() + src_.size());
  if (n == 0) invalidCharacter();
  pos_ += n;
  char c = src_[start];
  if (n == 1 && (c == '(' || c == '[' || c == '{')) {
    if (static_cast<int>(parens_.size()) + fstringDepth_ >= kMaxParenDepth)
      error(line, c0, "too many nested parentheses");
    parens_.push_back({c, line, c0});
  } else if (n == 1 && (c == ')' || c == ']' || c == '}')) {
    if (parens_.empty()) error(line, c0, std::string("unmatched '") + c + "'");
    Open o = parens_.back();
    char want = o.ch == '(' ? ')' : o.ch == '[' ? ']' : '}';
    if (c != want) {
      std::string msg = std::string("closing parenthesis '") + c +
                        "' does not match opening parenthesis '" + o.ch + "'";
      if (o.line != line) msg += " on line " + std::to_string(o.line);
      error(line, c0, msg);
    }
    parens_.pop_back();
  }
  return makeToken(TokKind::Op, start, line, c0);
}

void Lexer::decodeEscape(std::string& out, bool isBytes, int strLine, int strCol) {
  // pos_ is at the backslash.
  int escCol = col();
  ++pos_;
  char c = peek();
  if (atEnd()) return;
  if (atNewline()) {
    consumeNewline();
    return;
  }
  ++pos_;
  switch (c) {
    case '\\': out += '\\'; return;
    case '\'': out += '\''; return;
    case '"': out += '"'; return;
    case 'a': out += '\a'; return;
    case 'b': out += '\b'; return;
    case 'f': out += '\f'; return;
    case 'n': out += '\n'; return;
    case 'r': out += '\r'; return;
    case 't': out += '\t'; return;
    case 'v': out += '\v'; return;
    default: break;
  }
  if (c >= '0' && c <= '7') {
    uint32_t v = c - '0';
    for (int i = 0; i < 2 && peek() >= '0' && peek() <= '7'; ++i) v = v * 8 + (peek() - '0'), ++pos_;
    if (isBytes) out += static_cast<char>(v & 0xFF);
    else appendUtf8(out, v);
    return;
  }
  int need = c == 'x' ? 2 : (!isBytes && c == 'u') ? 4 : (!isBytes && c == 'U') ? 8 : 0;
  if (need) {
    uint32_t v = 0;
    for (int i = 0; i < need; ++i) {
      int h = hexValue(peek());
      if (h < 0) {
        const char* kind = need == 2 ? "\\xXX" : need == 4 ? "\\uXXXX" : "\\UXXXXXXXX";
        error(strLine, strCol, std::string(isBytes ? "(value error) invalid \\x escape" :
                                          std::string("(unicode error) truncated ") + kind + " escape"));
      }
      v = v * 16 + h;
      ++pos_;
    }
    if (v > 0x10FFFF) error(strLine, strCol, "(unicode error) illegal Unicode character");
    if (isBytes) out += static_cast<char>(v);
    else appendUtf8(out, v);
    return;
  }
  if (c == 'N' && !isBytes) {
    // \N{NAME}: Tessera never evaluates host-code strings, so a well-formed
    // escape is accepted without a Unicode name table and decodes to U+FFFD
    // (docs/decisions.md). Its shape is checked like CPython's.
    size_t close = pos_ + 1;
    bool ok = peek() == '{';
    while (ok && close < src_.size() && src_[close] != '}') {
      char ch = src_[close];
      ok = std::isalnum(static_cast<unsigned char>(ch)) || ch == ' ' || ch == '-';
      ++close;
    }
    if (!ok || close >= src_.size() || close == pos_ + 1)
      error(strLine, strCol, "(unicode error) malformed \\N character escape");
    pos_ = close + 1;
    appendUtf8(out, 0xFFFD);
    return;
  }
  // Unknown escapes keep the backslash (CPython warns).
  out += '\\';
  out += c;
}

Token Lexer::lexString(size_t start, int line, int c0, const std::string& prefix) {
  bool raw = prefix.find('r') != std::string::npos;
  bool isBytes = prefix.find('b') != std::string::npos;
  bool isF = prefix.find('f') != std::string::npos;
  char quote = peek();
  bool triple = peek(1) == quote && peek(2) == quote;
  pos_ += triple ? 3 : 1;
  auto lit = std::make_shared<StringLit>();
  lit->isBytes = isBytes;
  if (isF) {
    if (++fstringDepth_ > kMaxFStringDepth) error(line, c0, "too many nested f-strings");
    FStringCtx saved = fctx_;
    fctx_ = {quote, triple, raw, line, c0};
    lit->fstr = std::make_unique<FString>();
    lexFStringParts(lit->fstr->parts, /*inSpec=*/false);
    fctx_ = saved;
    --fstringDepth_;
  } else {
    std::string& out = lit->value;
    while (true) {
      if (atEnd()) unterminated(line, c0, triple);
      char c = peek();
      if (c == quote && (!triple || (peek(1) == quote && peek(2) == quote))) {
        pos_ += triple ? 3 : 1;
        break;
      }
      if (atNewline() || c == '\r') {
        if (!triple) unterminated(line, c0, false);
        if (c == '\r' && peek(1) != '\n') {
          ++pos_;
          out += '\n';
          continue;
        }
        consumeNewline();
        out += '\n';
        continue;
      }
      if (c == '\\') {
        if (raw) {
          out += '\\';
          ++pos_;
          if (atEnd()) continue;
          if (atNewline()) {
            consumeNewline();
            out += '\n';
          } else {
            if (isBytes && static_cast<unsigned char>(peek()) >= 0x80)
              error(line, c0, "bytes can only contain ASCII literal characters");
            out += peek();
            ++pos_;
          }
          continue;
        }
        decodeEscape(out, isBytes, line, c0);
        continue;
      }
      if (isBytes && static_cast<unsigned char>(c) >= 0x80)
        error(line, c0, "bytes can only contain ASCII literal characters");
      out += c;
      ++pos_;
    }
  }
  Token t = makeToken(TokKind::String, start, line, c0);
  t.str = std::move(lit);
  return t;
}

void Lexer::lexFStringParts(std::vector<FStringPart>& parts, bool inSpec) {
  FStringPart lit;
  auto startLiteral = [&] {
    lit = FStringPart();
    lit.line = line_;
    lit.col = col();
  };
  auto flush = [&] {
    if (!lit.literal.empty()) {
      lit.endLine = line_;
      lit.endCol = col();
      parts.push_back(std::move(lit));
    }
    startLiteral();
  };
  startLiteral();
  const char q = fctx_.quote;
  while (true) {
    if (atEnd()) unterminated(fctx_.line, fctx_.col, fctx_.triple);
    char c = peek();
    if (c == q && (!fctx_.triple || (peek(1) == q && peek(2) == q))) {
      if (inSpec) error(line_, col(), "f-string: expecting '}'");
      flush();
      pos_ += fctx_.triple ? 3 : 1;
      return;
    }
    if (atNewline() || c == '\r') {
      if (!fctx_.triple) {
        if (inSpec) error(line_, col(), "f-string: expecting '}'");
        unterminated(fctx_.line, fctx_.col, false);
      }
      if (c == '\r' && peek(1) != '\n') ++pos_;
      else consumeNewline();
      lit.literal += '\n';
      continue;
    }
    if (c == '{') {
      if (peek(1) == '{' && !inSpec) {
        lit.literal += '{';
        pos_ += 2;
        continue;
      }
      flush();
      lexField(parts);
      startLiteral();
      continue;
    }
    if (c == '}') {
      if (inSpec) {
        flush();
        return;
      }
      if (peek(1) == '}') {
        lit.literal += '}';
        pos_ += 2;
        continue;
      }
      error(line_, col(), "f-string: single '}' is not allowed");
    }
    if (c == '\\') {
      if (fctx_.raw) {
        lit.literal += '\\';
        ++pos_;
        if (peek() == q) {  // rf"\"" keeps both characters
          lit.literal += q;
          ++pos_;
        }
        continue;
      }
      decodeEscape(lit.literal, false, fctx_.line, fctx_.col);
      continue;
    }
    lit.literal += c;
    ++pos_;
  }
}

void Lexer::lexField(std::vector<FStringPart>& parts) {
  FStringPart field;
  field.isField = true;
  field.line = line_;
  field.col = col();
  ++pos_;  // '{'
  if (static_cast<int>(parens_.size()) + ++fstringDepth_ > kMaxParenDepth)
    error(field.line, field.col, "too many nested parentheses");
  std::vector<Open> savedParens = std::move(parens_);
  parens_.clear();
  size_t exprStart = pos_;
  std::vector<Token> saved = std::move(toks_);
  toks_.clear();
  while (true) {
    char c = peek();
    if (c == ' ' || c == '\t' || c == '\f') {
      ++pos_;
      continue;
    }
    if (atEnd()) error(field.line, field.col, "f-string: expecting '}'");
    if (atNewline() || c == '\r') {
      if (!fctx_.triple) unterminated(fctx_.line, fctx_.col, false);
      if (c == '\r' && peek(1) != '\n') ++pos_;
      else consumeNewline();
      continue;
    }
    if (c == '#') {
      if (!fctx_.triple) error(line_, col(), "f-string expression part cannot include '#'");
      while (!atEnd() && !atNewline()) ++pos_;
      continue;
    }
    if (c == '\\' && (peek(1) == '\n' || peek(1) == '\r')) {
      ++pos_;
      consumeNewline();
      continue;
    }
    if (parens_.empty()) {
      if (c == '}' || c == ':' || (c == '!' && peek(1) != '=') || (c == '=' && peek(1) != '='))
        break;
      // The f-string's own quote after a complete operand ends the string:
      // the field was never closed (PEP 701 allows the quote to start a
      // nested string only where an operand is expected).
      if (c == fctx_.quote && !fctx_.triple && !toks_.empty()) {
        const Token& last = toks_.back();
        bool operandEnded = last.kind == TokKind::Number || last.kind == TokKind::String ||
                            (last.kind == TokKind::Name && !isKeyword(last.text)) ||
                            last.isOp(")") || last.isOp("]") || last.isOp("}");
        if (operandEnded) error(line_, col(), "f-string: expecting '}'");
      }
    }
    toks_.push_back(lexToken());
  }
  if (toks_.empty()) {
    error(line_, col(), peek() == '}' ? "f-string: valid expression required before '}'"
                                      : "f-string: valid expression required before '" +
                                            std::string(1, peek()) + "'");
  }
  Token end;
  end.kind = TokKind::EndMarker;
  end.line = end.endLine = line_;
  end.col = end.endCol = col();
  toks_.push_back(end);
  field.tokens = std::move(toks_);
  toks_ = std::move(saved);
  parens_ = std::move(savedParens);
  if (peek() == '=') {
    ++pos_;
    while (peek() == ' ' || peek() == '\t') ++pos_;
    field.debugText = src_.substr(exprStart, pos_ - exprStart);
  }
  if (peek() == '!') {
    ++pos_;
    char c = peek();
    if (c == 's' || c == 'r' || c == 'a') {
      field.conversion = c;
      ++pos_;
    } else if (c == '}' || c == ':') {
      error(line_, col(), "f-string: missing conversion character");
    } else {
      int len = 1;
      if (!atEnd()) decodeUtf8(pos_, &len);
      error(line_, col(), "f-string: invalid conversion character '" + src_.substr(pos_, len) +
                              "': expected 's', 'r', or 'a'");
    }
  }
  if (peek() == ':') {
    ++pos_;
    field.hasSpec = true;
    lexFStringParts(field.spec, /*inSpec=*/true);
  }
  if (peek() != '}') error(line_, col(), "f-string: expecting '}'");
  ++pos_;
  field.endLine = line_;
  field.endCol = col();
  --fstringDepth_;
  parts.push_back(std::move(field));
}

}  // namespace

bool isKeyword(std::string_view name) {
  if (name.size() < 2 || name.size() > 8) return false;
  for (const char* k : kKeywords)
    if (name[0] == k[0] && name == k) return true;
  return false;
}

std::vector<Token> tokenize(const SourceFile& file) { return Lexer(file).run(); }

}  // namespace tessera::py
