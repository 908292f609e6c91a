//===- ParseStmt.cpp - Statements of Python 3.12 ----------------*- C++ -*-===//
//
// Statements and blocks. Compound statements dispatch on their keyword;
// simple statements are separated by ';' and end at NEWLINE. The soft
// keywords are recognised only where CPython does: `match` and `type` at
// the start of a statement (with backtracking for `match`), `case` inside
// a match block. Also reports the errors CPython raises at compile time
// for misplaced `return`, `break`, `continue`, `nonlocal`, `await`.
//
//===----------------------------------------------------------------------===//

#include "frontend/python/Parser.h"

namespace tessera::py {

StmtList Parser::parseFile() {
  StmtList body;
  while (tok().kind == TokKind::Newline) advance();
  while (tok().kind != TokKind::EndMarker) parseStatement(body);
  return body;
}

ExprPtr Parser::parseEvalInput() {
  while (tok().kind == TokKind::Indent || tok().kind == TokKind::Newline) advance();
  ExprPtr e = parseStarExpressions();
  while (tok().kind == TokKind::Newline || tok().kind == TokKind::Dedent) advance();
  if (tok().kind != TokKind::EndMarker) syntaxError();
  return e;
}

StmtList Parser::parseBlock(const std::string& what, int line) {
  StmtList body;
  if (tok().kind != TokKind::Newline) {
    parseSimpleStatements(body);
    return body;
  }
  advance();
  if (tok().kind != TokKind::Indent)
    error(tok(), "expected an indented block after " + what + " on line " + std::to_string(line));
  advance();
  while (tok().kind != TokKind::Dedent && tok().kind != TokKind::EndMarker) parseStatement(body);
  advance();  // DEDENT
  return body;
}

void Parser::parseStatement(StmtList& out) {
  const Token& t = tok();
  if (t.kind == TokKind::Indent) error(t, "unexpected indent");
  if (t.kind == TokKind::Name) {
    if (t.code == packTokenText("if")) return out.push_back(parseIf("if"));
    if (t.code == packTokenText("while")) return out.push_back(parseWhile());
    if (t.code == packTokenText("for")) return out.push_back(parseFor(t, false));
    if (t.code == packTokenText("try")) return out.push_back(parseTry());
    if (t.code == packTokenText("with")) return out.push_back(parseWith(t, false));
    if (t.code == packTokenText("def")) return out.push_back(parseFunctionDef(t, {}, false));
    if (t.code == packTokenText("class")) return out.push_back(parseClassDef({}));
    if (t.code == packTokenText("async")) {
      const Token& next = ahead();
      const Token& first = t;
      if (next.isName("def")) {
        advance();
        return out.push_back(parseFunctionDef(first, {}, true));
      }
      if (next.isName("for")) {
        advance();
        return out.push_back(parseFor(first, true));
      }
      if (next.isName("with")) {
        advance();
        return out.push_back(parseWith(first, true));
      }
      advance();
      syntaxError();
    }
    if (t.code == packTokenText("match")) {
      if (StmtPtr m = tryParseMatch()) return out.push_back(std::move(m));
    }
    if (t.code == packTokenText("elif") || t.code == packTokenText("else") || t.code == packTokenText("except") || t.code == packTokenText("finally")) syntaxError();
  }
  if (t.isOp("@")) return out.push_back(parseDecorated());
  parseSimpleStatements(out);
}

void Parser::parseSimpleStatements(StmtList& out) {
  while (true) {
    out.push_back(parseSimpleStatement());
    if (!acceptOp(";")) break;
    if (tok().kind == TokKind::Newline) break;
  }
  if (tok().kind != TokKind::Newline) {
    if (out.back()->kind == StmtKind::Expr) {
      auto* e = static_cast<ExprStmt*>(out.back().get());
      if (auto* n = e->value->as<Name>(); n && (n->id == "print" || n->id == "exec") &&
                                           canStartExpression(tok()))
        error(*e, "Missing parentheses in call to '" + n->id + "'. Did you mean " + n->id + "(...)?");
    }
    syntaxError();
  }
  advance();
}

StmtPtr Parser::parseSimpleStatement() {
  const Token& t = tok();
  if (t.kind == TokKind::Name) {
    if (t.code == packTokenText("pass")) {
      auto s = start<Pass>(t);
      advance();
      return finish(std::move(s));
    }
    if (t.code == packTokenText("break") || t.code == packTokenText("continue")) {
      if (loopDepth_ == 0)
        error(t, t.code == packTokenText("break") ? "'break' outside loop" : "'continue' not properly in loop");
      StmtPtr s = t.code == packTokenText("break") ? StmtPtr(start<Break>(t)) : StmtPtr(start<Continue>(t));
      advance();
      return finish(std::move(s));
    }
    if (t.code == packTokenText("return")) {
      if (funcDepth_ == 0) error(t, "'return' outside function");
      auto s = start<Return>(t);
      advance();
      if (canStartExpression(tok()) || atOp("*")) s->value = parseStarExpressions();
      return finish(std::move(s));
    }
    if (t.code == packTokenText("raise")) {
      auto s = start<Raise>(t);
      advance();
      if (canStartExpression(tok())) {
        s->exc = parseExpression();
        if (acceptKw("from")) s->cause = parseExpression();
      }
      return finish(std::move(s));
    }
    if (t.code == packTokenText("global") || t.code == packTokenText("nonlocal")) {
      if (t.code == packTokenText("nonlocal") && anyFuncDepth_ == 0) error(t, "nonlocal declaration not allowed at module level");
      std::vector<std::string> names;
      advance();
      names.push_back(expectIdentifier());
      while (acceptOp(",")) names.push_back(expectIdentifier());
      if (t.code == packTokenText("global")) {
        auto s = start<Global>(t);
        s->names = std::move(names);
        return finish(std::move(s));
      }
      auto s = start<Nonlocal>(t);
      s->names = std::move(names);
      return finish(std::move(s));
    }
    if (t.code == packTokenText("del")) {
      auto s = start<Delete>(t);
      advance();
      // `del a, b` has two targets; `del (a, b)` one Tuple target.
      do {
        if (tok().kind == TokKind::Newline || atOp(";")) break;
        ExprPtr target = parseTarget();
        setDelete(*target);
        s->targets.push_back(std::move(target));
      } while (acceptOp(","));
      if (s->targets.empty()) syntaxError();
      return finish(std::move(s));
    }
    if (t.code == packTokenText("assert")) {
      auto s = start<Assert>(t);
      advance();
      s->test = parseExpression();
      if (acceptOp(",")) s->msg = parseExpression();
      return finish(std::move(s));
    }
    if (t.code == packTokenText("import")) return parseImport();
    if (t.code == packTokenText("from")) return parseFromImport();
    if (t.code == packTokenText("type") && atTypeAlias()) return parseTypeAlias();
  }
  return parseExpressionStatement();
}

StmtPtr Parser::parseExpressionStatement() {
  const Token& first = tok();
  ExprPtr e = atKw("yield") ? parseYield() : parseStarExpressions();
  if (atOp(":")) {
    auto s = start<AnnAssign>(first);
    if (e->kind == ExprKind::Tuple) error(*e, "only single target (not tuple) can be annotated");
    if (e->kind == ExprKind::List) error(*e, "only single target (not list) can be annotated");
    if (e->kind != ExprKind::Name && e->kind != ExprKind::Attribute && e->kind != ExprKind::Subscript)
      error(*e, "illegal target for annotation");
    setStore(*e, TargetUse::Annotated);
    s->simple = e->kind == ExprKind::Name && !first.isOp("(");
    s->target = std::move(e);
    advance();
    s->annotation = parseExpression();
    if (acceptOp("=")) s->value = atKw("yield") ? parseYield() : parseStarExpressions();
    return finish(std::move(s));
  }
  if (atOp("=")) {
    auto s = start<Assign>(first);
    s->targets.push_back(std::move(e));
    ExprPtr value;
    while (acceptOp("=")) {
      ExprPtr v = atKw("yield") ? parseYield() : parseStarExpressions();
      if (atOp("=")) {
        s->targets.push_back(std::move(v));
        continue;
      }
      value = std::move(v);
    }
    bool single = s->targets.size() == 1;
    for (ExprPtr& target : s->targets) setStore(*target, TargetUse::Assign, single);
    s->value = std::move(value);
    return finish(std::move(s));
  }
  static const struct { const char* op; BinOpKind kind; } kAug[] = {
      {"+=", BinOpKind::Add},     {"-=", BinOpKind::Sub},       {"*=", BinOpKind::Mult},
      {"@=", BinOpKind::MatMult}, {"/=", BinOpKind::Div},       {"%=", BinOpKind::Mod},
      {"&=", BinOpKind::BitAnd},  {"|=", BinOpKind::BitOr},     {"^=", BinOpKind::BitXor},
      {"<<=", BinOpKind::LShift}, {">>=", BinOpKind::RShift},   {"**=", BinOpKind::Pow},
      {"//=", BinOpKind::FloorDiv}};
  for (const auto& aug : kAug) {
    if (!atOp(aug.op)) continue;
    setStore(*e, TargetUse::AugAssign);
    auto s = start<AugAssign>(first);
    advance();
    s->target = std::move(e);
    s->op = aug.kind;
    s->value = atKw("yield") ? parseYield() : parseStarExpressions();
    return finish(std::move(s));
  }
  if (atOp(":=")) error(tok(), "invalid syntax");
  auto s = start<ExprStmt>(first);
  s->value = std::move(e);
  return finish(std::move(s));
}

StmtPtr Parser::parseImport() {
  auto s = start<Import>(tok());
  advance();
  do {
    Alias a;
    a.line = tok().line, a.col = tok().col;
    a.name = expectIdentifier();
    while (acceptOp(".")) a.name += "." + expectIdentifier();
    if (acceptKw("as")) a.asname = expectIdentifier();
    finishNode(a);
    s->names.push_back(std::move(a));
  } while (acceptOp(","));
  return finish(std::move(s));
}

StmtPtr Parser::parseFromImport() {
  auto s = start<ImportFrom>(tok());
  advance();
  while (atOp(".") || atOp("...")) {
    s->level += atOp(".") ? 1 : 3;
    advance();
  }
  if (!atKw("import")) {
    s->module = expectIdentifier();
    while (acceptOp(".")) s->module += "." + expectIdentifier();
  } else if (s->level == 0) {
    syntaxError();
  }
  if (!acceptKw("import")) syntaxError();
  if (atOp("*")) {
    Alias a;
    a.line = tok().line, a.col = tok().col;
    a.name = "*";
    advance();
    finishNode(a);
    s->names.push_back(std::move(a));
    return finish(std::move(s));
  }
  bool paren = acceptOp("(");
  while (true) {
    Alias a;
    a.line = tok().line, a.col = tok().col;
    a.name = expectIdentifier();
    if (acceptKw("as")) a.asname = expectIdentifier();
    finishNode(a);
    s->names.push_back(std::move(a));
    if (!acceptOp(",")) break;
    if (paren && atOp(")")) break;
    if (!paren && tok().kind == TokKind::Newline)
      error(prev(), "trailing comma not allowed without surrounding parentheses");
  }
  if (paren) expectOp(")");
  return finish(std::move(s));
}

StmtPtr Parser::parseIf(const char* kw) {
  const Token& first = tok();
  auto s = start<If>(first);
  advance();
  s->test = parseNamedExpression();
  expectColon();
  s->body = parseBlock(std::string("'") + kw + "' statement", first.line);
  if (atKw("elif")) {
    s->orelse.push_back(parseIf("elif"));
  } else if (atKw("else")) {
    int line = tok().line;
    advance();
    expectColon();
    s->orelse = parseBlock("'else' statement", line);
  }
  if (s->orelse.empty()) {
    s->endLine = s->body.back()->endLine, s->endCol = s->body.back()->endCol;
  } else {
    s->endLine = s->orelse.back()->endLine, s->endCol = s->orelse.back()->endCol;
  }
  return s;
}

namespace {
template <class T> void endAtLastStmt(T& s, const StmtList& body, const StmtList& orelse) {
  const StmtList& last = orelse.empty() ? body : orelse;
  if (last.empty()) return;
  s.endLine = last.back()->endLine;
  s.endCol = last.back()->endCol;
}
}  // namespace

StmtPtr Parser::parseWhile() {
  const Token& first = tok();
  auto s = start<While>(first);
  advance();
  s->test = parseNamedExpression();
  expectColon();
  ++loopDepth_;
  s->body = parseBlock("'while' statement", first.line);
  --loopDepth_;
  if (atKw("else")) {
    int line = tok().line;
    advance();
    expectColon();
    s->orelse = parseBlock("'else' statement", line);
  }
  endAtLastStmt(*s, s->body, s->orelse);
  return s;
}

StmtPtr Parser::parseFor(const Token& first, bool isAsync) {
  auto s = start<For>(first);
  s->isAsync = isAsync;
  int line = tok().line;
  advance();  // for
  s->target = parseTargetList();
  setStore(*s->target, TargetUse::For);
  if (!acceptKw("in")) syntaxError();
  s->iter = parseStarExpressions();
  expectColon();
  ++loopDepth_;
  s->body = parseBlock("'for' statement", line);
  --loopDepth_;
  if (atKw("else")) {
    int elseLine = tok().line;
    advance();
    expectColon();
    s->orelse = parseBlock("'else' statement", elseLine);
  }
  endAtLastStmt(*s, s->body, s->orelse);
  return s;
}

StmtPtr Parser::parseWith(const Token& first, bool isAsync) {
  auto s = start<With>(first);
  s->isAsync = isAsync;
  int line = tok().line;
  advance();  // with
  auto parseItem = [&] {
    WithItem item;
    item.contextExpr = parseExpression();
    if (acceptKw("as")) {
      item.optionalVars = parseTarget();
      setStore(*item.optionalVars, TargetUse::With);
    }
    return item;
  };
  // `with (a as b, c as d):` -- try the parenthesized form first.
  bool done = false;
  if (atOp("(")) {
    size_t save = i_;
    int saveDepth = depth_;
    try {
      advance();
      std::vector<WithItem> items;
      while (!atOp(")")) {
        items.push_back(parseItem());
        if (!acceptOp(",")) break;
      }
      if (acceptOp(")") && atOp(":")) {
        s->items = std::move(items);
        done = true;
      }
    } catch (const Error&) {
    }
    if (!done) i_ = save, depth_ = saveDepth;
  }
  if (!done) {
    s->items.push_back(parseItem());
    while (acceptOp(",")) s->items.push_back(parseItem());
  }
  expectColon();
  s->body = parseBlock("'with' statement", line);
  endAtLastStmt(*s, s->body, StmtList());
  return s;
}

StmtPtr Parser::parseTry() {
  const Token& first = tok();
  auto s = start<Try>(first);
  advance();
  expectColon();
  s->body = parseBlock("'try' statement", first.line);
  bool plain = false, star = false;
  while (atKw("except")) {
    const Token& ex = tok();
    ExceptHandler h;
    h.line = ex.line, h.col = ex.col;
    advance();
    bool isStar = acceptOp("*");
    (isStar ? star : plain) = true;
    if (plain && star) error(ex, "cannot have both 'except' and 'except*' on the same 'try'");
    if (!atOp(":")) {
      h.type = parseExpression();
      if (atOp(",")) {
        error(*h.type, "multiple exception types must be parenthesized");
      }
      if (acceptKw("as")) h.name = expectIdentifier();
    } else if (isStar) {
      error(tok(), "expected one or more exception types");
    }
    expectColon();
    h.body = parseBlock(isStar ? "'except*' block" : "'except' statement", ex.line);
    h.endLine = h.body.back()->endLine, h.endCol = h.body.back()->endCol;
    s->handlers.push_back(std::move(h));
  }
  s->isStar = star;
  if (atKw("else")) {
    if (s->handlers.empty()) syntaxError();
    int line = tok().line;
    advance();
    expectColon();
    s->orelse = parseBlock("'else' statement", line);
  }
  if (atKw("finally")) {
    int line = tok().line;
    advance();
    expectColon();
    s->finalbody = parseBlock("'finally' statement", line);
  }
  if (s->handlers.empty() && s->finalbody.empty()) error(tok(), "expected 'except' or 'finally' block");
  const StmtList& last = !s->finalbody.empty() ? s->finalbody : !s->orelse.empty() ? s->orelse : s->body;
  if (s->finalbody.empty() && s->orelse.empty()) {
    s->endLine = s->handlers.back().endLine, s->endCol = s->handlers.back().endCol;
  } else {
    s->endLine = last.back()->endLine, s->endCol = last.back()->endCol;
  }
  return s;
}

std::vector<TypeParam> Parser::parseTypeParams() {
  std::vector<TypeParam> params;
  advance();  // '['
  while (!atOp("]")) {
    TypeParam p;
    p.line = tok().line, p.col = tok().col;
    if (acceptOp("*")) p.kind = TypeParam::Kind::TypeVarTuple;
    else if (acceptOp("**")) p.kind = TypeParam::Kind::ParamSpec;
    p.name = expectIdentifier();
    if (atOp(":")) {
      if (p.kind != TypeParam::Kind::TypeVar)
        error(tok(), p.kind == TypeParam::Kind::ParamSpec ? "cannot use bound with ParamSpec"
                                                          : "cannot use bound with TypeVarTuple");
      advance();
      p.bound = parseExpression();
    }
    finishNode(p);
    params.push_back(std::move(p));
    if (!acceptOp(",")) break;
  }
  if (params.empty()) error(tok(), "Type parameter list cannot be empty");
  expectOp("]");
  return params;
}

StmtPtr Parser::parseFunctionDef(const Token& first, ExprList decorators, bool isAsync) {
  auto s = start<FunctionDef>(first);
  int line = tok().line;
  advance();  // def
  s->isAsync = isAsync;
  s->decorators = std::move(decorators);
  s->name = expectIdentifier();
  if (atOp("[")) s->typeParams = parseTypeParams();
  if (!atOp("(")) error(tok(), "expected '('");
  advance();
  {
    DepthGuard g(*this);
    s->args = parseParameters(")", /*annotations=*/true);
  }
  expectOp(")");
  if (acceptOp("->")) s->returns = parseExpression();
  expectColon();
  int savedLoops = loopDepth_;
  loopDepth_ = 0;
  ++funcDepth_, ++anyFuncDepth_;
  s->body = parseBlock("function definition", line);
  --funcDepth_, --anyFuncDepth_;
  loopDepth_ = savedLoops;
  endAtLastStmt(*s, s->body, StmtList());
  // Source text from `def` (or `async`) to the end of the body.
  std::string_view startLine = file_.line(s->line), endLine = file_.line(s->endLine);
  size_t begin = static_cast<size_t>(startLine.data() - file_.text().data()) + s->col - 1;
  size_t end = static_cast<size_t>(endLine.data() - file_.text().data()) + s->endCol - 1;
  if (begin <= end && end <= file_.text().size()) s->sourceText = file_.text().substr(begin, end - begin);
  return s;
}

StmtPtr Parser::parseClassDef(ExprList decorators) {
  const Token& first = tok();
  auto s = start<ClassDef>(first);
  advance();
  s->decorators = std::move(decorators);
  s->name = expectIdentifier();
  if (atOp("[")) s->typeParams = parseTypeParams();
  if (atOp("(")) {
    Call call;  // reuse the argument parser
    parseCallArguments(call);
    s->bases = std::move(call.args);
    s->keywords = std::move(call.keywords);
  }
  expectColon();
  int savedLoops = loopDepth_, savedFunc = funcDepth_;
  loopDepth_ = funcDepth_ = 0;
  s->body = parseBlock("class definition", first.line);
  loopDepth_ = savedLoops, funcDepth_ = savedFunc;
  endAtLastStmt(*s, s->body, StmtList());
  return s;
}

StmtPtr Parser::parseDecorated() {
  ExprList decorators;
  while (acceptOp("@")) {
    decorators.push_back(parseNamedExpression());
    if (tok().kind != TokKind::Newline) syntaxError();
    advance();
  }
  const Token& t = tok();
  if (t.isName("def")) return parseFunctionDef(t, std::move(decorators), false);
  if (t.isName("class")) return parseClassDef(std::move(decorators));
  if (t.isName("async") && ahead().isName("def")) {
    advance();
    return parseFunctionDef(t, std::move(decorators), true);
  }
  syntaxError();
}

bool Parser::atTypeAlias() const {
  return ahead().kind == TokKind::Name && !ahead().keyword &&
         (ahead(2).isOp("=") || ahead(2).isOp("["));
}

StmtPtr Parser::parseTypeAlias() {
  auto s = start<TypeAlias>(tok());
  advance();  // type
  auto name = start<Name>(tok());
  name->id = expectIdentifier();
  name->ctx = ExprContext::Store;
  s->name = finish(std::move(name));
  if (atOp("[")) s->typeParams = parseTypeParams();
  expectOp("=");
  s->value = parseExpression();
  return finish(std::move(s));
}

}  // namespace tessera::py
