//===- ErrorTest.cpp - Syntax errors: message, line and column --*- C++ -*-===//
//
// Each case is a small program with one mistake; the expectation is the
// message CPython 3.12 gives and the 1-based line:column we report (the
// column counts UTF-8 bytes, like CPython's offset).
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include "ParserTestUtil.h"

namespace tessera::py::test {
namespace {

struct ErrorCase {
  const char* source;
  const char* expected;  // "line:col: message"
};

const ErrorCase kCases[] = {
    // Tokenizer.
    {"x = 'abc\n", "1:5: unterminated string literal (detected at line 1)"},
    {"x = '''abc\n\n", "1:5: unterminated triple-quoted string literal (detected at line 2)"},
    {"f(\n", "1:2: '(' was never closed"},
    {"x = [1, 2\n", "1:5: '[' was never closed"},
    {"x)\n", "1:2: unmatched ')'"},
    {"x = (1,]\n", "1:8: closing parenthesis ']' does not match opening parenthesis '('"},
    {"x = (1,\n]\n", "2:1: closing parenthesis ']' does not match opening parenthesis '(' on line 1"},
    {"1abc\n", "1:1: invalid decimal literal"},
    {"x = 1e\n", "1:5: invalid decimal literal"},
    {"1__0\n", "1:2: invalid decimal literal"},
    {"x = 0x\n", "1:6: invalid hexadecimal literal"},
    {"0b2\n", "1:3: invalid digit '2' in binary literal"},
    {"0o8\n", "1:3: invalid digit '8' in octal literal"},
    {"012\n",
     "1:1: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers"},
    {"x = 1.5j2\n", "1:8: invalid imaginary literal"},
    {"a \xe2\x80\xa6 b\n", "1:3: invalid character '\xe2\x80\xa6' (U+2026)"},
    {"a \xc2\xa0 b\n", "1:3: invalid non-printable character U+00A0"},
    {"a $ b\n", "1:3: invalid syntax"},
    {"x = \\ y\n", "1:6: unexpected character after line continuation character"},
    {"x = b'\xc3\xa9'\n", "1:5: bytes can only contain ASCII literal characters"},
    // Indentation.
    {" x\n", "1:1: unexpected indent"},
    {"def f():\n  x = 1\n   y = 2\n", "3:3: unexpected indent"},
    {"if x:\n    a\n  b\n", "3:4: unindent does not match any outer indentation level"},
    {"if True:\n\tx\n        y\n", "3:1: inconsistent use of tabs and spaces in indentation"},
    {"if x:\npass\n", "2:1: expected an indented block after 'if' statement on line 1"},
    {"x = 1\n\nif x:\n    pass\nelse:\nz\n", "6:1: expected an indented block after 'else' statement on line 5"},
    {"def f():\n\n", "3:1: expected an indented block after function definition on line 1"},
    {"class A:\nx\n", "2:1: expected an indented block after class definition on line 1"},
    {"for i in x:\n# c\ny\n", "3:1: expected an indented block after 'for' statement on line 1"},
    // Grammar.
    {"if x\n  pass\n", "1:5: expected ':'"},
    {"class A\n", "1:8: expected ':'"},
    {"a b\n", "1:3: invalid syntax"},
    {"a = 3 +\n", "1:8: invalid syntax"},
    {"else: pass\n", "1:1: invalid syntax"},
    {"x = (1 2)\n", "1:6: invalid syntax. Perhaps you forgot a comma?"},
    {"x = {1: 2, 3}\n", "1:12: ':' expected after dictionary key"},
    {"a = 1 if b\n", "1:5: expected 'else' after 'if' expression"},
    {"print 'hi'\n", "1:1: Missing parentheses in call to 'print'. Did you mean print(...)?"},
    {"try:\n  pass\nx = 1\n", "3:1: expected 'except' or 'finally' block"},
    {"import a.b as\n", "1:14: invalid syntax"},
    // Targets.
    {"f() = 1\n", "1:1: cannot assign to function call here. Maybe you meant '==' instead of '='?"},
    {"a + 1 = 2\n", "1:1: cannot assign to expression here. Maybe you meant '==' instead of '='?"},
    {"x = 1 = 2\n", "1:5: cannot assign to literal"},
    {"True = 1\n", "1:1: cannot assign to True"},
    {"for f() in x: pass\n", "1:5: cannot assign to function call"},
    {"with a as f(): pass\n", "1:11: cannot assign to function call"},
    {"del f()\n", "1:5: cannot delete function call"},
    {"f() += 1\n", "1:1: 'function call' is an illegal expression for augmented assignment"},
    {"(a, b) += 1\n", "1:1: 'tuple' is an illegal expression for augmented assignment"},
    {"x = yield = 1\n", "1:5: assignment to yield expression not possible"},
    {"[a, b]: int\n", "1:1: only single target (not list) can be annotated"},
    {"*a = 1\n", "1:1: starred assignment target must be in a list or tuple"},
    {"a, *b, *c = d\n", "1:1: multiple starred expressions in assignment"},
    {"(x.y := 1)\n", "1:2: cannot use assignment expressions with attribute"},
    // Calls and definitions.
    {"f(a=1, 2)\n", "1:8: positional argument follows keyword argument"},
    {"f(**a, b)\n", "1:8: positional argument follows keyword argument unpacking"},
    {"f(**a, *b)\n", "1:8: iterable argument unpacking follows keyword argument unpacking"},
    {"f(a+1=2)\n", "1:3: expression cannot contain assignment, perhaps you meant \"==\"?"},
    {"f(x for x in y, 1)\n", "1:3: Generator expression must be parenthesized"},
    {"def f(a=1, b): pass\n", "1:12: parameter without a default follows parameter with a default"},
    {"def f(*): pass\n", "1:7: named arguments must follow bare *"},
    {"def f(**k, a): pass\n", "1:12: arguments cannot follow var-keyword argument"},
    {"def f(a, a): pass\n", "1:10: duplicate argument 'a' in function definition"},
    // Compile-time checks CPython also reports.
    {"return 1\n", "1:1: 'return' outside function"},
    {"def f(): return\nreturn\n", "2:1: 'return' outside function"},
    {"break\n", "1:1: 'break' outside loop"},
    {"while x:\n  def g():\n    continue\n", "3:5: 'continue' not properly in loop"},
    {"nonlocal x\n", "1:1: nonlocal declaration not allowed at module level"},
    {"def f():\n  class C:\n    return 1\n", "3:5: 'return' outside function"},
    // Strings.
    {"f'{}'\n", "1:4: f-string: valid expression required before '}'"},
    {"f'{x!z}'\n", "1:6: f-string: invalid conversion character 'z': expected 's', 'r', or 'a'"},
    {"f'{x'\n", "1:5: f-string: expecting '}'"},
    {"f'}'\n", "1:3: f-string: single '}' is not allowed"},
    {"x = 'a' b'b'\n", "1:5: cannot mix bytes and nonbytes literals"},
    {"'\\N{BULLET'\n", "1:1: (unicode error) malformed \\N character escape"},
    {"'\\N{}'\n", "1:1: (unicode error) malformed \\N character escape"},
    {"try:\n  pass\nexcept* :\n  pass\n", "3:9: expected one or more exception types"},
};

TEST(PyErrors, MessagesAndPositions) {
  for (const ErrorCase& c : kCases) EXPECT_EQ(errorOf(c.source), c.expected) << "source: " << c.source;
}

TEST(PyErrors, DiagnosticHasFileLineAndCaret) {
  try {
    parseModule(std::make_shared<SourceFile>("kernel.py", "x = 1\ny = (2 +\n"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "kernel.py:2:5: error: '(' was never closed\n    y = (2 +\n        ^");
  }
}

TEST(PyErrors, ValidProgramsAreNotRejected) {
  // Things that look odd but are valid Python.
  const char* ok[] = {
      "lambda: (yield)\n",          "x = [i for i in range(3)]\n", "f(*a, b=1, **c)\n",
      "def f(a, /, b, *, c): pass\n", "x = a if b else c\n",         "print(\"a\" \"b\")\n",
      "match = case = type = 1\n",  "x = not -1\n",                "f(a)(b)[c]\n",
      "async def f(): await x\n",   "x = {**a, 'b': 1}\n",         "x = a[b, c:d]\n",
      "def f():\n  x = 1\n  class C:\n    nonlocal x\n",
  };
  for (const char* s : ok) EXPECT_EQ(errorOf(s), "no error") << s;
}

}  // namespace
}  // namespace tessera::py::test
