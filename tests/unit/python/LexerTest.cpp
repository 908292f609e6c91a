//===- LexerTest.cpp - Tokens of the Python lexer ---------------*- C++ -*-===//
//
// Token kinds, texts and positions, line structure (NEWLINE, INDENT, DEDENT,
// implicit and explicit joining), string prefixes and decoding, f-string
// splitting, numbers and operators.
//
//===----------------------------------------------------------------------===//

#include "frontend/python/Lexer.h"

#include <gtest/gtest.h>

namespace tessera::py {
namespace {

/// "KIND:text" for each token, space separated (NEWLINE as NL, INDENT as
/// IN, DEDENT as DE, ENDMARKER as END; strings show their decoded value).
std::string tokens(const std::string& text) {
  SourceFile file("t.py", text);
  std::string out;
  for (const Token& t : tokenize(file)) {
    if (!out.empty()) out += ' ';
    switch (t.kind) {
      case TokKind::Name: out += "N:" + std::string(t.text); break;
      case TokKind::Number: out += "#:" + std::string(t.text); break;
      case TokKind::String: out += (t.str->fstr ? "F:" : t.str->isBytes ? "B:" : "S:") + t.str->value; break;
      case TokKind::Op: out += std::string(t.text); break;
      case TokKind::Newline: out += "NL"; break;
      case TokKind::Indent: out += "IN"; break;
      case TokKind::Dedent: out += "DE"; break;
      case TokKind::EndMarker: out += "END"; break;
    }
  }
  return out;
}

TEST(PyLexer, OperatorsMaximalMunch) {
  EXPECT_EQ(tokens("a **= b //= c >>= d <<= e"), "N:a **= N:b //= N:c >>= N:d <<= N:e NL END");
  EXPECT_EQ(tokens("x := y -> z ... @= !="), "N:x := N:y -> N:z ... @= != NL END");
  EXPECT_EQ(tokens("a<=b>=c==d<e>f"), "N:a <= N:b >= N:c == N:d < N:e > N:f NL END");
  EXPECT_EQ(tokens("a.b..."), "N:a . N:b ... NL END");
  EXPECT_EQ(tokens("~a|b&c^d%e"), "~ N:a | N:b & N:c ^ N:d % N:e NL END");
}

TEST(PyLexer, Numbers) {
  EXPECT_EQ(tokens("1 1_000 0x_FF 0o17 0b1_0 1.5 .5 5. 1e10 1E-5 2j 1.5J 0"),
            "#:1 #:1_000 #:0x_FF #:0o17 #:0b1_0 #:1.5 #:.5 #:5. #:1e10 #:1E-5 #:2j #:1.5J #:0 NL END");
  // `1.real` is not valid, but `1 .real` and `1..real` lex as expected.
  EXPECT_EQ(tokens("1 .real"), "#:1 . N:real NL END");
  EXPECT_EQ(tokens("1..real"), "#:1. . N:real NL END");
}

TEST(PyLexer, KeywordsAndSoftKeywords) {
  SourceFile file("t.py", "if match type print");
  auto toks = tokenize(file);
  EXPECT_TRUE(toks[0].keyword);
  EXPECT_FALSE(toks[1].keyword);
  EXPECT_FALSE(toks[2].keyword);
  EXPECT_FALSE(toks[3].keyword);
  EXPECT_TRUE(isKeyword("nonlocal"));
  EXPECT_FALSE(isKeyword("match"));
}

TEST(PyLexer, IndentationAndLineJoining) {
  EXPECT_EQ(tokens("if x:\n    y\n    if z:\n        w\nv\n"),
            "N:if N:x : NL IN N:y NL N:if N:z : NL IN N:w NL DE DE N:v NL END");
  // Blank lines and comment-only lines produce nothing, even when dedented.
  EXPECT_EQ(tokens("if x:\n    y\n\n  # c\n    z\n"), "N:if N:x : NL IN N:y NL N:z NL DE END");
  // Inside brackets newlines and indentation are ignored.
  EXPECT_EQ(tokens("f(a,\n      b\n)\n"), "N:f ( N:a , N:b ) NL END");
  // Backslash joins lines.
  EXPECT_EQ(tokens("x = 1 + \\\n  2\n"), "N:x = #:1 + #:2 NL END");
  // Missing final newline, comment at the end of a line, CRLF.
  EXPECT_EQ(tokens("a # c"), "N:a NL END");
  EXPECT_EQ(tokens("a\r\nb\r\n"), "N:a NL N:b NL END");
  // Tabs: a tab then spaces is deeper than the tab alone.
  EXPECT_EQ(tokens("if x:\n\tif y:\n\t  z\n\tw\n"),
            "N:if N:x : NL IN N:if N:y : NL IN N:z NL DE N:w NL DE END");
  EXPECT_EQ(tokens(""), "END");
}

TEST(PyLexer, StringPrefixesAndDecoding) {
  EXPECT_EQ(tokens("'a' \"b\" r'\\n' R\"\\t\" u'x' U'y'"), "S:a S:b S:\\n S:\\t S:x S:y NL END");
  EXPECT_EQ(tokens("b'a' B'b' br'\\n' Rb'c' bR'd' rB'e'"), "B:a B:b B:\\n B:c B:d B:e NL END");
  EXPECT_EQ(tokens("'\\x41\\u00e9\\101\\n'"), "S:Aé" "A\n NL END");
  EXPECT_EQ(tokens("'''a\n'b'\n\"c\"'''"), "S:a\n'b'\n\"c\" NL END");
  EXPECT_EQ(tokens("\"\"\"x\"\"\""), "S:x NL END");
  EXPECT_EQ(tokens("'it\\'s'"), "S:it's NL END");
  EXPECT_EQ(tokens("r'\\''"), "S:\\' NL END");
  // A prefix-like name followed by a space is just a name.
  EXPECT_EQ(tokens("rb = f 'x'"), "N:rb = N:f S:x NL END");
}

TEST(PyLexer, FStringParts) {
  SourceFile file("t.py", "f'a{b!r:>{w}}c{d=}'");
  auto toks = tokenize(file);
  ASSERT_EQ(toks[0].kind, TokKind::String);
  const FString& fs = *toks[0].str->fstr;
  ASSERT_EQ(fs.parts.size(), 4u);
  EXPECT_EQ(fs.parts[0].literal, "a");
  EXPECT_TRUE(fs.parts[1].isField);
  EXPECT_EQ(fs.parts[1].conversion, 'r');
  EXPECT_TRUE(fs.parts[1].hasSpec);
  ASSERT_EQ(fs.parts[1].spec.size(), 2u);
  EXPECT_EQ(fs.parts[1].spec[0].literal, ">");
  EXPECT_TRUE(fs.parts[1].spec[1].isField);
  ASSERT_EQ(fs.parts[1].tokens.size(), 2u);  // b, end
  EXPECT_EQ(fs.parts[1].tokens[0].text, "b");
  EXPECT_EQ(fs.parts[1].tokens[0].col, 5);
  EXPECT_EQ(fs.parts[2].literal, "c");
  EXPECT_EQ(fs.parts[3].debugText, "d=");
  EXPECT_EQ(toks[0].endCol, 20);
}

TEST(PyLexer, Positions) {
  SourceFile file("t.py", "def f(x):\n    return x  # c\n");
  auto toks = tokenize(file);
  // def f ( x ) : NL IN return x NL DE END
  ASSERT_EQ(toks.size(), 13u);
  EXPECT_EQ(toks[1].text, "f");
  EXPECT_EQ(toks[1].line, 1);
  EXPECT_EQ(toks[1].col, 5);
  EXPECT_EQ(toks[1].endCol, 6);
  EXPECT_EQ(toks[6].kind, TokKind::Newline);
  EXPECT_EQ(toks[6].col, 10);
  EXPECT_EQ(toks[7].kind, TokKind::Indent);
  EXPECT_EQ(toks[8].text, "return");
  EXPECT_EQ(toks[8].line, 2);
  EXPECT_EQ(toks[8].col, 5);
  EXPECT_EQ(toks[9].col, 12);
  // A multi-line string ends on a later line.
  SourceFile file2("t.py", "x = '''a\nbc'''\n");
  auto toks2 = tokenize(file2);
  EXPECT_EQ(toks2[2].line, 1);
  EXPECT_EQ(toks2[2].col, 5);
  EXPECT_EQ(toks2[2].endLine, 2);
  EXPECT_EQ(toks2[2].endCol, 6);
}

TEST(PyLexer, UnicodeIdentifiers) {
  EXPECT_EQ(tokens("café = π"), "N:café = N:π NL END");
  EXPECT_EQ(tokens("\xEF\xBB\xBFx"), "N:x NL END");  // a BOM is skipped
  // NFKC folding of fullwidth letters and the micro sign, as CPython does.
  EXPECT_EQ(tokens("\xEF\xBD\x97\xEF\xBD\x89" "dth = \xC2\xB5"), "N:width = N:\xCE\xBC NL END");
}

}  // namespace
}  // namespace tessera::py
