//===- ParsePattern.cpp - match statements and patterns ---------*- C++ -*-===//
//
// PEP 634 structural pattern matching. `match` is a soft keyword: the
// statement is tried first and, if the header is not `match <subject>:`
// followed by NEWLINE, the tokens are re-read as an ordinary statement
// (`match = 1`, `match(x)`). Patterns follow CPython's grammar: or-patterns,
// as-patterns, literals (with signed and complex numbers), captures, `_`,
// dotted values, groups and sequences, mappings with `**rest`, class
// patterns with positional and keyword sub-patterns.
//
//===----------------------------------------------------------------------===//

#include "frontend/python/Parser.h"

namespace tessera::py {

StmtPtr Parser::tryParseMatch() {
  const Token& first = tok();
  size_t save = i_;
  int saveDepth = depth_;
  ExprPtr subject;
  try {
    advance();  // match
    if (!canStartExpression(tok()) && !atOp("*")) {
      i_ = save;
      return nullptr;
    }
    ExprPtr e = parseStarNamedExpression();
    if (atOp(",")) {
      ExprList elts;
      elts.push_back(std::move(e));
      while (acceptOp(",")) {
        if (atOp(":")) break;
        elts.push_back(parseStarNamedExpression());
      }
      auto t = startAt<Tuple>(*elts.front());
      t->elts = std::move(elts);
      e = finish(std::move(t));
    }
    if (!atOp(":") || ahead().kind != TokKind::Newline) {
      i_ = save, depth_ = saveDepth;
      return nullptr;
    }
    subject = std::move(e);
  } catch (const Error&) {
    i_ = save, depth_ = saveDepth;
    return nullptr;
  }
  auto s = start<Match>(first);
  s->subject = std::move(subject);
  advance();  // ':'
  advance();  // NEWLINE
  if (tok().kind != TokKind::Indent)
    error(tok(), "expected an indented block after 'match' statement on line " + std::to_string(first.line));
  advance();
  while (tok().kind != TokKind::Dedent && tok().kind != TokKind::EndMarker) {
    if (!atKw("case")) syntaxError();
    int line = tok().line;
    advance();
    MatchCase c;
    c.pattern = parsePatterns();
    if (acceptKw("if")) c.guard = parseNamedExpression();
    expectColon();
    c.body = parseBlock("'case' statement", line);
    s->cases.push_back(std::move(c));
  }
  advance();  // DEDENT
  if (s->cases.empty()) syntaxError();
  const StmtList& body = s->cases.back().body;
  s->endLine = body.back()->endLine, s->endCol = body.back()->endCol;
  return s;
}

Parser::PatternPtr Parser::parsePatterns() {
  const Token& first = tok();
  PatternPtr p = parseMaybeStarPattern();
  if (!atOp(",")) {
    if (p->kind == Pattern::Kind::MatchStar) {
      auto seq = std::make_unique<Pattern>();
      seq->kind = Pattern::Kind::MatchSequence;
      seq->line = first.line, seq->col = first.col;
      seq->patterns.push_back(std::move(p));
      finishNode(*seq);
      return seq;
    }
    return p;
  }
  auto seq = std::make_unique<Pattern>();
  seq->kind = Pattern::Kind::MatchSequence;
  seq->line = first.line, seq->col = first.col;
  seq->patterns.push_back(std::move(p));
  while (acceptOp(",")) {
    if (atOp(":") || atKw("if")) break;
    seq->patterns.push_back(parseMaybeStarPattern());
  }
  finishNode(*seq);
  return seq;
}

Parser::PatternPtr Parser::parseMaybeStarPattern() {
  if (atOp("*")) return parseStarPattern();
  return parsePattern();
}

Parser::PatternPtr Parser::parseStarPattern() {
  auto p = start<Pattern>(tok());
  p->kind = Pattern::Kind::MatchStar;
  advance();  // '*'
  std::string name = expectIdentifier();
  if (name != "_") p->name = name;
  finishNode(*p);
  return p;
}

Parser::PatternPtr Parser::parsePattern() {
  DepthGuard g(*this);
  PatternPtr p = parseOrPattern();
  if (!atKw("as")) return p;
  advance();
  const Token& nameTok = tok();
  std::string name = expectIdentifier();
  if (name == "_") error(nameTok, "cannot use '_' as a target");
  auto as = std::make_unique<Pattern>();
  as->kind = Pattern::Kind::MatchAs;
  as->line = p->line, as->col = p->col;
  as->patterns.push_back(std::move(p));
  as->name = name;
  finishNode(*as);
  return as;
}

Parser::PatternPtr Parser::parseOrPattern() {
  PatternPtr first = parseClosedPattern();
  if (!atOp("|")) return first;
  auto orp = std::make_unique<Pattern>();
  orp->kind = Pattern::Kind::MatchOr;
  orp->line = first->line, orp->col = first->col;
  orp->patterns.push_back(std::move(first));
  while (acceptOp("|")) orp->patterns.push_back(parseClosedPattern());
  finishNode(*orp);
  return orp;
}

/// A signed number, optionally `+`/`-` an imaginary number, or strings.
ExprPtr Parser::parseLiteralPatternExpr() {
  if (tok().kind == TokKind::String) {
    ExprPtr s = parseStrings();
    if (s->kind == ExprKind::JoinedStr) error(*s, "patterns may only match literals and attribute lookups");
    return s;
  }
  const Token& first = tok();
  ExprPtr num;
  if (atOp("-")) {
    auto u = start<UnaryOp>(first);
    u->op = UnaryOpKind::USub;
    advance();
    if (tok().kind != TokKind::Number) syntaxError();
    u->operand = parseNumber();
    num = finish(std::move(u));
  } else {
    if (tok().kind != TokKind::Number) syntaxError();
    num = parseNumber();
  }
  if (atOp("+") || atOp("-")) {
    auto b = startAt<BinOp>(*num);
    b->op = atOp("+") ? BinOpKind::Add : BinOpKind::Sub;
    advance();
    if (tok().kind != TokKind::Number) syntaxError();
    b->left = std::move(num);
    b->right = parseNumber();
    auto* c = b->right->as<Constant>();
    if (!c || c->type != Constant::Type::Complex) error(*b->right, "imaginary number required in complex literal");
    return finish(std::move(b));
  }
  return num;
}

ExprPtr Parser::parseNameOrAttr() {
  auto n = start<Name>(tok());
  n->id = expectIdentifier();
  ExprPtr e = finish(std::move(n));
  while (acceptOp(".")) {
    auto a = startAt<Attribute>(*e);
    a->value = std::move(e);
    a->attr = expectIdentifier();
    e = finish(std::move(a));
  }
  return e;
}

Parser::PatternPtr Parser::parseClosedPattern() {
  const Token& t = tok();
  auto p = start<Pattern>(t);
  if (t.kind == TokKind::Number || t.kind == TokKind::String || t.isOp("-")) {
    p->kind = Pattern::Kind::MatchValue;
    p->value = parseLiteralPatternExpr();
    finishNode(*p);
    return p;
  }
  if (t.isName("None") || t.isName("True") || t.isName("False")) {
    p->kind = Pattern::Kind::MatchSingleton;
    p->value = parseAtom();
    finishNode(*p);
    return p;
  }
  if (t.kind == TokKind::Name && !t.keyword) {
    bool dotted = ahead().isOp(".");
    bool isClass = ahead().isOp("(");
    ExprPtr e;
    if (dotted || isClass) e = parseNameOrAttr();
    if (atOp("(")) {
      p->kind = Pattern::Kind::MatchClass;
      p->cls = std::move(e);
      parseClassPatternArgs(*p);
      finishNode(*p);
      return p;
    }
    if (e) {
      p->kind = Pattern::Kind::MatchValue;
      p->value = std::move(e);
      finishNode(*p);
      return p;
    }
    p->kind = Pattern::Kind::MatchAs;
    if (t.text != "_") p->name = std::string(t.text);
    advance();
    finishNode(*p);
    return p;
  }
  if (t.isOp("(") || t.isOp("[")) {
    const char* closer = t.isOp("(") ? ")" : "]";
    bool paren = t.isOp("(");
    advance();
    DepthGuard g(*this);
    p->kind = Pattern::Kind::MatchSequence;
    if (acceptOp(closer)) {
      finishNode(*p);
      return p;
    }
    PatternPtr first = parseMaybeStarPattern();
    if (paren && atOp(")") && first->kind != Pattern::Kind::MatchStar) {
      advance();
      return first;  // a group, not a sequence
    }
    p->patterns.push_back(std::move(first));
    while (acceptOp(",")) {
      if (atOp(closer)) break;
      p->patterns.push_back(parseMaybeStarPattern());
    }
    expectOp(closer);
    finishNode(*p);
    return p;
  }
  if (t.isOp("{")) return parseMappingPattern();
  syntaxError();
}

Parser::PatternPtr Parser::parseMappingPattern() {
  auto p = start<Pattern>(tok());
  p->kind = Pattern::Kind::MatchMapping;
  advance();  // '{'
  DepthGuard g(*this);
  while (!atOp("}")) {
    if (acceptOp("**")) {
      p->name = expectIdentifier();
      acceptOp(",");
      if (!atOp("}")) syntaxError();
      break;
    }
    const Token& k = tok();
    if (k.isName("None") || k.isName("True") || k.isName("False")) p->keys.push_back(parseAtom());
    else if (k.kind == TokKind::Name) p->keys.push_back(parseNameOrAttr());
    else p->keys.push_back(parseLiteralPatternExpr());
    expectColon();
    p->patterns.push_back(parsePattern());
    if (!acceptOp(",")) break;
  }
  expectOp("}");
  finishNode(*p);
  return p;
}

void Parser::parseClassPatternArgs(Pattern& p) {
  advance();  // '('
  DepthGuard g(*this);
  while (!atOp(")")) {
    if (atIdentifier() && ahead().isOp("=")) {
      p.kwdAttrs.emplace_back(tok().text);
      advance();
      advance();
      p.kwdPatterns.push_back(parsePattern());
    } else {
      if (!p.kwdAttrs.empty()) error(tok(), "positional patterns follow keyword patterns");
      p.patterns.push_back(parsePattern());
    }
    if (!acceptOp(",")) break;
  }
  expectOp(")");
}

}  // namespace tessera::py
