//===- ParserTestUtil.h - Helpers for the Python parser tests ---*- C++ -*-===//
//
// Small helpers shared by the parser tests: parse a snippet and dump it,
// or parse it expecting a syntax error and return "line:col: message".
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>

#include "frontend/python/AST.h"

namespace tessera::py::test {

inline SourceFileRef source(const std::string& text) {
  return std::make_shared<SourceFile>("t.py", text);
}

/// ast.dump of the whole module.
inline std::string dumpModule(const std::string& text) { return dump(*parseModule(source(text))); }

/// ast.dump of the first statement.
inline std::string dumpStmt(const std::string& text) {
  auto m = parseModule(source(text));
  return m->body.empty() ? "<empty>" : dump(*m->body.front());
}

/// ast.dump of an expression parsed with parseExpression.
inline std::string dumpExpr(const std::string& text) { return dump(*parseExpression(source(text))); }

/// "line:col: message" of the syntax error, or "no error".
inline std::string errorOf(const std::string& text) {
  try {
    parseModule(source(text));
  } catch (const Error& e) {
    std::string w = e.what();
    w = w.substr(0, w.find('\n'));
    // "t.py:L:C: error: msg" -> "L:C: msg"
    size_t p = w.find(':');
    std::string rest = w.substr(p + 1);
    size_t q = rest.find(": error: ");
    return rest.substr(0, q) + ": " + rest.substr(q + 9);
  }
  return "no error";
}

}  // namespace tessera::py::test
