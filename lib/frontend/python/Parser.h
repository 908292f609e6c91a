//===- Parser.h - Recursive-descent parser for Python 3.12 ------*- C++ -*-===//
//
// Internal to the python layer. The Parser walks the token vector of
// Lexer.h and builds the AST of AST.h, following the structure of CPython's
// PEG grammar (Grammar/python.gram) with one token of lookahead, plus a
// little backtracking for the soft keywords (`match`, `type`) and the
// parenthesized `with` form.
//
// It is split by subject: ParseExpr.cpp (expressions, calls, displays,
// comprehensions, lambdas), ParseStmt.cpp (statements and blocks),
// ParsePattern.cpp (match patterns), ParseLiteral.cpp (numbers, string
// concatenation, f-strings) and Targets.cpp (assignment/deletion targets
// and the messages for invalid ones).
//
// Bounds: `depth_` counts nested constructs (recursion and left-nesting
// loops); past kMaxDepth the parser reports "too many nested expressions"
// instead of overflowing the stack. Every loop consumes a token per turn.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <vector>

#include "frontend/python/AST.h"
#include "frontend/python/Lexer.h"

namespace tessera::py {

class Parser {
 public:
  Parser(const SourceFile& file, std::vector<Token> tokens, int depth = 0)
      : file_(file), toks_(std::move(tokens)), depth_(depth) {}

  /// file: statements ENDMARKER
  StmtList parseFile();
  /// eval input: expressions NEWLINE* ENDMARKER
  ExprPtr parseEvalInput();
  /// The expression of an f-string replacement field.
  ExprPtr parseFStringField();

  static constexpr int kMaxDepth = 3000;

 private:
  // --- token access -------------------------------------------------------
  const Token& tok() const { return toks_[i_]; }
  const Token& ahead(size_t k = 1) const {
    return toks_[i_ + k < toks_.size() ? i_ + k : toks_.size() - 1];
  }
  const Token& prev() const { return toks_[i_ > 0 ? i_ - 1 : 0]; }
  void advance() {
    if (i_ + 1 < toks_.size()) ++i_;
  }
  bool atOp(const char* op) const { return tok().isOp(op); }
  bool atKw(const char* kw) const { return tok().isName(kw); }
  bool acceptOp(const char* op) {
    if (!atOp(op)) return false;
    advance();
    return true;
  }
  bool acceptKw(const char* kw) {
    if (!atKw(kw)) return false;
    advance();
    return true;
  }
  /// True when the current token is a NAME that is not a hard keyword.
  bool atIdentifier() const { return tok().kind == TokKind::Name && !tok().keyword; }
  std::string expectIdentifier();
  void expectOp(const char* op);
  void expectColon() {
    if (!acceptOp(":")) error(tok(), "expected ':'");
  }
  bool canStartExpression(const Token& t) const;

  [[noreturn]] void error(int line, int col, const std::string& msg) const;
  [[noreturn]] void error(const Token& t, const std::string& msg) const { error(t.line, t.col, msg); }
  [[noreturn]] void error(const Node& n, const std::string& msg) const { error(n.line, n.col, msg); }
  /// "invalid syntax" (or a more specific message) at the current token.
  [[noreturn]] void syntaxError() const;

  /// RAII depth counter; throws when nesting gets too deep.
  struct DepthGuard {
    DepthGuard(Parser& p, int n = 1);
    ~DepthGuard() { p.depth_ -= n; }
    Parser& p;
    int n;
  };
  void bumpDepth(const Token& at);

  template <class T> std::unique_ptr<T> start(const Token& t) const {
    auto n = std::make_unique<T>();
    n->line = t.line;
    n->col = t.col;
    return n;
  }
  template <class T> std::unique_ptr<T> startAt(const Node& at) const {
    auto n = std::make_unique<T>();
    n->line = at.line;
    n->col = at.col;
    return n;
  }
  /// Sets the end of `n` to the end of the last consumed token.
  template <class T> T finish(T n) const {
    n->endLine = prev().endLine;
    n->endCol = prev().endCol;
    return n;
  }
  void finishNode(Node& n) const {
    n.endLine = prev().endLine;
    n.endCol = prev().endCol;
  }
  static void copyPos(Node& to, const Node& from) {
    to.line = from.line, to.col = from.col, to.endLine = from.endLine, to.endCol = from.endCol;
  }

  // --- expressions (ParseExpr.cpp) ----------------------------------------
  ExprPtr parseStarExpressions();       // star_expressions (tuple when commas)
  ExprPtr parseStarExpression();        // '*' bitwise_or | expression
  ExprPtr parseStarNamedExpression();   // '*' bitwise_or | named_expression
  ExprPtr parseNamedExpression();
  ExprPtr parseExpression();
  ExprPtr parseStarred();
  ExprPtr parseBoolOp(BoolOpKind op, const char* keyword, ExprPtr (Parser::*operand)());
  ExprPtr parseDisjunction();
  ExprPtr parseConjunction();
  ExprPtr parseInversion();
  ExprPtr parseComparison();
  ExprPtr parseBitOr();
  ExprPtr parseBitXor();
  ExprPtr parseBitAnd();
  ExprPtr parseShift();
  ExprPtr parseSum();
  ExprPtr parseTerm();
  ExprPtr parseFactor();
  ExprPtr parsePower();
  ExprPtr parsePrimary();
  ExprPtr parseAtom();
  ExprPtr parseParenthesized();
  ExprPtr parseListDisplay();
  ExprPtr parseBraceDisplay();
  ExprPtr parseSlices();
  ExprPtr parseSlice();
  ExprPtr parseLambda();
  ExprPtr parseYield();
  void parseCallArguments(Call& call);
  std::vector<Comprehension> parseComprehensionClauses();
  Arguments parseParameters(const char* closer, bool annotations);
  void checkUniqueParams(const Arguments& args);
  /// Comma-separated star_targets up to (not including) `in` / `=` etc.
  ExprPtr parseTargetList();
  ExprPtr parseTarget();

  // --- literals (ParseLiteral.cpp) ----------------------------------------
  ExprPtr parseNumber();
  ExprPtr parseStrings();
  void appendFStringParts(const std::vector<FStringPart>& parts, ExprList& out, std::string& pending,
                          const Token& strTok);
  ExprPtr makeFormattedValue(const FStringPart& field, const Token& strTok);

  // --- targets (Targets.cpp) ----------------------------------------------
  enum class TargetUse { Assign, AugAssign, For, With, Delete, Comprehension, Named, Annotated };
  void setStore(Expr& e, TargetUse use, bool singleAssign = false);
  void setDelete(Expr& e);

  // --- statements (ParseStmt.cpp) -----------------------------------------
  void parseStatement(StmtList& out);
  void parseSimpleStatements(StmtList& out);
  StmtPtr parseSimpleStatement();
  StmtPtr parseExpressionStatement();
  StmtPtr parseImport();
  StmtPtr parseFromImport();
  StmtPtr parseIf(const char* kw);
  StmtPtr parseWhile();
  StmtPtr parseFor(const Token& first, bool isAsync);
  StmtPtr parseWith(const Token& first, bool isAsync);
  StmtPtr parseTry();
  StmtPtr parseFunctionDef(const Token& first, ExprList decorators, bool isAsync);
  StmtPtr parseClassDef(ExprList decorators);
  StmtPtr parseDecorated();
  StmtPtr parseTypeAlias();
  bool atTypeAlias() const;
  StmtPtr tryParseMatch();
  std::vector<TypeParam> parseTypeParams();
  /// After the ':' of a compound statement: an indented block or simple statements.
  StmtList parseBlock(const std::string& what, int line);

  // --- patterns (ParsePattern.cpp) ----------------------------------------
  using PatternPtr = std::unique_ptr<Pattern>;
  PatternPtr parsePatterns();      // open sequence or pattern
  PatternPtr parsePattern();       // as_pattern | or_pattern
  PatternPtr parseOrPattern();
  PatternPtr parseClosedPattern();
  PatternPtr parseStarPattern();
  PatternPtr parseMaybeStarPattern();
  ExprPtr parseLiteralPatternExpr();
  ExprPtr parseNameOrAttr();
  PatternPtr parseMappingPattern();
  void parseClassPatternArgs(Pattern& p);

  const SourceFile& file_;
  std::vector<Token> toks_;
  size_t i_ = 0;
  int depth_ = 0;
  int funcDepth_ = 0;  ///< enclosing functions up to the nearest class (for `return`)
  int anyFuncDepth_ = 0;  ///< enclosing functions at any level (for `nonlocal`)
  int loopDepth_ = 0;  ///< enclosing loops in the current function (for `break`)
  int asyncDepth_ = 0;
};

/// CPython's name for an expression kind in messages ("function call", ...).
const char* exprDescription(const Expr& e);

}  // namespace tessera::py
