//===- ParseExpr.cpp - Expressions of Python 3.12 ---------------*- C++ -*-===//
//
// One function per precedence level of CPython's grammar, from
// star_expressions down to atom, plus displays (tuple, list, dict, set and
// their comprehensions), calls, subscripts with slices, and lambda. Binary
// operators are left-associative loops; `**` and unary operators recurse
// and are bounded by the depth guard.
//
//===----------------------------------------------------------------------===//

#include "frontend/python/Parser.h"

#include <unordered_set>

namespace tessera::py {

Parser::DepthGuard::DepthGuard(Parser& p, int n) : p(p), n(n) {
  p.depth_ += n;
  if (p.depth_ > kMaxDepth) {
    p.depth_ -= n;
    p.error(p.tok(), "too many nested expressions");
  }
}

void Parser::bumpDepth(const Token& at) {
  if (++depth_ > kMaxDepth) error(at, "too many nested expressions");
}

void Parser::error(int line, int col, const std::string& msg) const {
  reportError(SourceLoc{&file_, line, col}, msg);
}

void Parser::syntaxError() const {
  const Token& t = tok();
  if (t.kind == TokKind::Indent) error(t, "unexpected indent");
  if (t.kind == TokKind::EndMarker && i_ > 0 && prev().kind != TokKind::Newline)
    error(t, "unexpected EOF while parsing");
  error(t, "invalid syntax");
}

std::string Parser::expectIdentifier() {
  if (!atIdentifier()) syntaxError();
  std::string s(tok().text);
  advance();
  return s;
}

void Parser::expectOp(const char* op) {
  if (!acceptOp(op)) {
    if (op[0] == ':' && op[1] == 0) error(tok(), "expected ':'");
    syntaxError();
  }
}

bool Parser::canStartExpression(const Token& t) const {
  switch (t.kind) {
    case TokKind::Number:
    case TokKind::String: return true;
    case TokKind::Name:
      return !t.keyword || t.code == packTokenText("None") || t.code == packTokenText("True") || t.code == packTokenText("False") ||
             t.code == packTokenText("not") || t.code == packTokenText("lambda") || t.code == packTokenText("await");
    case TokKind::Op:
      return t.code == packTokenText("(") || t.code == packTokenText("[") || t.code == packTokenText("{") || t.code == packTokenText("-") || t.code == packTokenText("+") ||
             t.code == packTokenText("~") || t.code == packTokenText("...");
    default: return false;
  }
}

namespace {
ExprPtr makeTuple(ExprList elts, const Node& first, const Node& last) {
  auto t = std::make_unique<Tuple>();
  t->line = first.line, t->col = first.col, t->endLine = last.endLine, t->endCol = last.endCol;
  t->elts = std::move(elts);
  return t;
}

bool isLambdaOrExpressionEnd(const Token& t) {
  return t.kind == TokKind::Newline || t.kind == TokKind::EndMarker || t.isOp(")") ||
         t.isOp("]") || t.isOp("}") || t.isOp(",") || t.isOp(":") || t.isOp("=") || t.isOp(";");
}
}  // namespace

ExprPtr Parser::parseStarExpressions() {
  ExprPtr first = parseStarExpression();
  if (!atOp(",")) return first;
  ExprList elts;
  elts.push_back(std::move(first));
  while (acceptOp(",")) {
    if (!canStartExpression(tok()) && !atOp("*")) break;
    elts.push_back(parseStarExpression());
  }
  Node last;
  finishNode(last);
  Node firstPos = *elts.front();
  return makeTuple(std::move(elts), firstPos, last);
}

/// `*bitwise_or` (the caller has seen the '*').
ExprPtr Parser::parseStarred() {
  auto s = start<Starred>(tok());
  advance();
  DepthGuard g(*this);
  s->value = parseBitOr();
  return finish(std::move(s));
}

ExprPtr Parser::parseStarExpression() { return atOp("*") ? parseStarred() : parseExpression(); }

ExprPtr Parser::parseStarNamedExpression() { return atOp("*") ? parseStarred() : parseNamedExpression(); }

ExprPtr Parser::parseNamedExpression() {
  if (tok().kind == TokKind::Name && ahead().isOp(":=") && atIdentifier()) {
    auto n = start<NamedExpr>(tok());
    auto target = start<Name>(tok());
    target->id = tok().text;
    target->ctx = ExprContext::Store;
    advance();
    target = finish(std::move(target));
    n->target = std::move(target);
    advance();  // ':='
    DepthGuard g(*this);
    n->value = parseExpression();
    return finish(std::move(n));
  }
  ExprPtr e = parseExpression();
  if (atOp(":=")) error(*e, std::string("cannot use assignment expressions with ") + exprDescription(*e));
  return e;
}

ExprPtr Parser::parseExpression() {
  DepthGuard g(*this);
  if (atKw("lambda")) return parseLambda();
  const Token first = tok();
  ExprPtr body = parseDisjunction();
  if (!atKw("if")) return body;
  // A trailing `if` without `else` is a syntax error in an expression.
  auto e = start<IfExp>(first);
  advance();
  e->body = std::move(body);
  e->test = parseDisjunction();
  if (!acceptKw("else")) {
    if (isLambdaOrExpressionEnd(tok())) {
      error(e->line, e->col, "expected 'else' after 'if' expression");
    }
    syntaxError();
  }
  e->orelse = parseExpression();
  return finish(std::move(e));
}

/// `operand (keyword operand)*` as one BoolOp with all operands, like CPython.
ExprPtr Parser::parseBoolOp(BoolOpKind op, const char* keyword, ExprPtr (Parser::*operand)()) {
  const Token startTok = tok();
  ExprPtr first = (this->*operand)();
  if (!atKw(keyword)) return first;
  auto b = start<BoolOp>(startTok);
  b->op = op;
  b->values.push_back(std::move(first));
  while (acceptKw(keyword)) b->values.push_back((this->*operand)());
  return finish(std::move(b));
}

ExprPtr Parser::parseDisjunction() { return parseBoolOp(BoolOpKind::Or, "or", &Parser::parseConjunction); }
ExprPtr Parser::parseConjunction() { return parseBoolOp(BoolOpKind::And, "and", &Parser::parseInversion); }

ExprPtr Parser::parseInversion() {
  if (!atKw("not")) return parseComparison();
  auto u = start<UnaryOp>(tok());
  u->op = UnaryOpKind::Not;
  advance();
  DepthGuard g(*this);
  u->operand = parseInversion();
  return finish(std::move(u));
}

ExprPtr Parser::parseComparison() {
  const Token first = tok();
  ExprPtr left = parseBitOr();
  std::unique_ptr<Compare> cmp;
  while (true) {
    CmpOpKind op;
    const Token& t = tok();
    int width = 1;
    if (t.isOp("==")) op = CmpOpKind::Eq;
    else if (t.isOp("!=")) op = CmpOpKind::NotEq;
    else if (t.isOp("<")) op = CmpOpKind::Lt;
    else if (t.isOp("<=")) op = CmpOpKind::LtE;
    else if (t.isOp(">")) op = CmpOpKind::Gt;
    else if (t.isOp(">=")) op = CmpOpKind::GtE;
    else if (t.isName("in")) op = CmpOpKind::In;
    else if (t.isName("not") && ahead().isName("in")) op = CmpOpKind::NotIn, width = 2;
    else if (t.isName("is") && ahead().isName("not")) op = CmpOpKind::IsNot, width = 2;
    else if (t.isName("is")) op = CmpOpKind::Is;
    else break;
    if (!cmp) {
      cmp = start<Compare>(first);
      cmp->left = std::move(left);
    }
    for (int k = 0; k < width; ++k) advance();
    cmp->ops.push_back(op);
    cmp->comparators.push_back(parseBitOr());
  }
  if (!cmp) return left;
  return finish(std::move(cmp));
}

namespace {
/// Binary operators by precedence level.
bool binOpAt(const Token& t, int level, BinOpKind* op) {
  if (t.kind != TokKind::Op) return false;
  const uint64_t s = t.code;
  constexpr uint64_t (*P)(const char*) = packTokenText;
  switch (level) {
    case 0: if (s == P("|")) return *op = BinOpKind::BitOr, true; return false;
    case 1: if (s == P("^")) return *op = BinOpKind::BitXor, true; return false;
    case 2: if (s == P("&")) return *op = BinOpKind::BitAnd, true; return false;
    case 3:
      if (s == P("<<")) return *op = BinOpKind::LShift, true;
      if (s == P(">>")) return *op = BinOpKind::RShift, true;
      return false;
    case 4:
      if (s == P("+")) return *op = BinOpKind::Add, true;
      if (s == P("-")) return *op = BinOpKind::Sub, true;
      return false;
    case 5:
      if (s == P("*")) return *op = BinOpKind::Mult, true;
      if (s == P("/")) return *op = BinOpKind::Div, true;
      if (s == P("//")) return *op = BinOpKind::FloorDiv, true;
      if (s == P("%")) return *op = BinOpKind::Mod, true;
      if (s == P("@")) return *op = BinOpKind::MatMult, true;
      return false;
  }
  return false;
}
}  // namespace

// The five left-associative levels share one loop; each turn nests the
// result one level deeper, so it counts against the depth budget.
#define TESSERA_BINARY_LEVEL(NAME, LEVEL, NEXT)              \
  ExprPtr Parser::NAME() {                                   \
    const Token first = tok();                               \
    ExprPtr left = NEXT();                                   \
    BinOpKind op;                                            \
    int nested = 0;                                          \
    while (binOpAt(tok(), LEVEL, &op)) {                     \
      bumpDepth(tok());                                      \
      ++nested;                                              \
      advance();                                             \
      auto b = start<BinOp>(first);                          \
      b->left = std::move(left);                             \
      b->op = op;                                            \
      b->right = NEXT();                                     \
      left = finish(std::move(b));                           \
    }                                                        \
    depth_ -= nested;                                        \
    return left;                                             \
  }
TESSERA_BINARY_LEVEL(parseBitOr, 0, parseBitXor)
TESSERA_BINARY_LEVEL(parseBitXor, 1, parseBitAnd)
TESSERA_BINARY_LEVEL(parseBitAnd, 2, parseShift)
TESSERA_BINARY_LEVEL(parseShift, 3, parseSum)
TESSERA_BINARY_LEVEL(parseSum, 4, parseTerm)
TESSERA_BINARY_LEVEL(parseTerm, 5, parseFactor)
#undef TESSERA_BINARY_LEVEL

ExprPtr Parser::parseFactor() {
  const Token& t = tok();
  UnaryOpKind op;
  if (t.isOp("+")) op = UnaryOpKind::UAdd;
  else if (t.isOp("-")) op = UnaryOpKind::USub;
  else if (t.isOp("~")) op = UnaryOpKind::Invert;
  else return parsePower();
  auto u = start<UnaryOp>(t);
  u->op = op;
  advance();
  DepthGuard g(*this);
  u->operand = parseFactor();
  return finish(std::move(u));
}

ExprPtr Parser::parsePower() {
  const Token first = tok();
  ExprPtr base;
  if (atKw("await")) {
    auto a = start<Await>(tok());
    advance();
    DepthGuard g(*this);
    a->value = parsePrimary();
    base = finish(std::move(a));
  } else {
    base = parsePrimary();
  }
  if (!atOp("**")) return base;
  auto b = start<BinOp>(first);
  advance();
  DepthGuard g(*this);
  b->left = std::move(base);
  b->op = BinOpKind::Pow;
  b->right = parseFactor();
  return finish(std::move(b));
}

ExprPtr Parser::parsePrimary() {
  const Token first = tok();
  ExprPtr e = parseAtom();
  int nested = 0;
  while (true) {
    if (atOp(".")) {
      bumpDepth(tok()), ++nested;
      advance();
      auto a = start<Attribute>(first);
      a->value = std::move(e);
      a->attr = expectIdentifier();
      e = finish(std::move(a));
    } else if (atOp("(")) {
      bumpDepth(tok()), ++nested;
      auto c = start<Call>(first);
      c->func = std::move(e);
      parseCallArguments(*c);
      e = finish(std::move(c));
    } else if (atOp("[")) {
      bumpDepth(tok()), ++nested;
      advance();
      auto s = start<Subscript>(first);
      s->value = std::move(e);
      s->slice = parseSlices();
      expectOp("]");
      e = finish(std::move(s));
    } else {
      break;
    }
  }
  depth_ -= nested;
  return e;
}

ExprPtr Parser::parseAtom() {
  const Token& t = tok();
  switch (t.kind) {
    case TokKind::Number: return parseNumber();
    case TokKind::String: return parseStrings();
    case TokKind::Name: {
      if (t.code == packTokenText("None") || t.code == packTokenText("True") || t.code == packTokenText("False")) {
        auto c = start<Constant>(t);
        c->type = t.code == packTokenText("None") ? Constant::Type::None : Constant::Type::Bool;
        c->boolValue = t.code == packTokenText("True");
        advance();
        return finish(std::move(c));
      }
      if (t.keyword) syntaxError();
      auto n = start<Name>(t);
      n->id = t.text;
      advance();
      return finish(std::move(n));
    }
    case TokKind::Op:
      if (t.code == packTokenText("(")) return parseParenthesized();
      if (t.code == packTokenText("[")) return parseListDisplay();
      if (t.code == packTokenText("{")) return parseBraceDisplay();
      if (t.code == packTokenText("...")) {
        auto c = start<Constant>(t);
        c->type = Constant::Type::Ellipsis;
        advance();
        return finish(std::move(c));
      }
      syntaxError();
    default: syntaxError();
  }
}

/// After an element inside brackets: a juxtaposed expression means a
/// forgotten comma.
#define TESSERA_CHECK_COMMA(elem)                                                   \
  do {                                                                              \
    if (canStartExpression(tok()) && !atKw("not"))                                  \
      error(*(elem), "invalid syntax. Perhaps you forgot a comma?");                \
  } while (0)

ExprPtr Parser::parseParenthesized() {
  const Token& open = tok();
  DepthGuard g(*this);
  advance();
  if (atOp(")")) {
    auto t = start<Tuple>(open);
    advance();
    return finish(std::move(t));
  }
  if (atKw("yield")) {
    ExprPtr y = parseYield();
    expectOp(")");
    return y;
  }
  ExprPtr first = parseStarNamedExpression();
  if (atKw("for") || (atKw("async") && ahead().isName("for"))) {
    if (first->kind == ExprKind::Starred)
      error(*first, "iterable unpacking cannot be used in comprehension");
    auto gen = start<GeneratorExp>(open);
    gen->elt = std::move(first);
    gen->generators = parseComprehensionClauses();
    expectOp(")");
    return finish(std::move(gen));
  }
  if (!atOp(",")) {
    if (!atOp(")")) TESSERA_CHECK_COMMA(first);
    expectOp(")");
    if (first->kind == ExprKind::Starred) error(*first, "cannot use starred expression here");
    return first;
  }
  auto tup = start<Tuple>(open);
  tup->elts.push_back(std::move(first));
  while (acceptOp(",")) {
    if (atOp(")")) break;
    tup->elts.push_back(parseStarNamedExpression());
    if (!atOp(",") && !atOp(")")) TESSERA_CHECK_COMMA(tup->elts.back());
  }
  expectOp(")");
  return finish(std::move(tup));
}

ExprPtr Parser::parseListDisplay() {
  auto list = start<List>(tok());
  DepthGuard g(*this);
  advance();
  if (acceptOp("]")) return finish(std::move(list));
  ExprPtr first = parseStarNamedExpression();
  if (atKw("for") || (atKw("async") && ahead().isName("for"))) {
    if (first->kind == ExprKind::Starred)
      error(*first, "iterable unpacking cannot be used in comprehension");
    auto comp = startAt<ListComp>(*list);
    comp->elt = std::move(first);
    comp->generators = parseComprehensionClauses();
    expectOp("]");
    return finish(std::move(comp));
  }
  list->elts.push_back(std::move(first));
  while (true) {
    if (!atOp(",") && !atOp("]")) TESSERA_CHECK_COMMA(list->elts.back());
    if (!acceptOp(",") || atOp("]")) break;
    list->elts.push_back(parseStarNamedExpression());
  }
  expectOp("]");
  return finish(std::move(list));
}

ExprPtr Parser::parseBraceDisplay() {
  const Token& open = tok();
  DepthGuard g(*this);
  advance();
  if (atOp("}")) {
    auto d = start<Dict>(open);
    advance();
    return finish(std::move(d));
  }
  // Dict: the first entry is `**mapping` or `key: value`.
  ExprPtr firstKey, firstValue;
  if (atOp("**")) {
    advance();
    firstValue = parseBitOr();
  } else {
    firstKey = parseStarNamedExpression();
    if (atOp(":") && firstKey->kind != ExprKind::Starred) {
      advance();
      firstValue = parseExpression();
    }
  }
  if (!firstValue) {  // a set
    if (atKw("for") || (atKw("async") && ahead().isName("for"))) {
      if (firstKey->kind == ExprKind::Starred)
        error(*firstKey, "iterable unpacking cannot be used in comprehension");
      auto comp = start<SetComp>(open);
      comp->elt = std::move(firstKey);
      comp->generators = parseComprehensionClauses();
      expectOp("}");
      return finish(std::move(comp));
    }
    auto set = start<Set>(open);
    set->elts.push_back(std::move(firstKey));
    while (true) {
      if (!atOp(",") && !atOp("}")) TESSERA_CHECK_COMMA(set->elts.back());
      if (!acceptOp(",") || atOp("}")) break;
      set->elts.push_back(parseStarNamedExpression());
    }
    expectOp("}");
    return finish(std::move(set));
  }
  if (firstKey && (atKw("for") || (atKw("async") && ahead().isName("for")))) {
    auto comp = start<DictComp>(open);
    comp->key = std::move(firstKey);
    comp->value = std::move(firstValue);
    comp->generators = parseComprehensionClauses();
    expectOp("}");
    return finish(std::move(comp));
  }
  auto dict = start<Dict>(open);
  dict->keys.push_back(std::move(firstKey));
  dict->values.push_back(std::move(firstValue));
  while (acceptOp(",")) {
    if (atOp("}")) break;
    if (acceptOp("**")) {
      dict->keys.push_back(nullptr);
      dict->values.push_back(parseBitOr());
      continue;
    }
    ExprPtr key = parseExpression();
    if (!atOp(":")) {
      if (atOp("}") || atOp(",")) error(*key, "':' expected after dictionary key");
      syntaxError();
    }
    advance();
    dict->keys.push_back(std::move(key));
    dict->values.push_back(parseExpression());
  }
  if (!atOp("}") && !dict->values.empty()) TESSERA_CHECK_COMMA(dict->values.back());
  expectOp("}");
  return finish(std::move(dict));
}

std::vector<Comprehension> Parser::parseComprehensionClauses() {
  std::vector<Comprehension> gens;
  while (atKw("for") || (atKw("async") && ahead().isName("for"))) {
    Comprehension c;
    if (acceptKw("async")) c.isAsync = true;
    advance();  // for
    c.target = parseTargetList();
    setStore(*c.target, TargetUse::Comprehension);
    if (!acceptKw("in")) syntaxError();
    c.iter = parseDisjunction();
    while (acceptKw("if")) c.ifs.push_back(parseDisjunction());
    gens.push_back(std::move(c));
  }
  return gens;
}

ExprPtr Parser::parseTarget() {
  if (atOp("*")) {
    auto s = start<Starred>(tok());
    advance();
    DepthGuard g(*this);
    s->value = parseBitOr();
    return finish(std::move(s));
  }
  return parseBitOr();
}

ExprPtr Parser::parseTargetList() {
  ExprPtr first = parseTarget();
  if (!atOp(",")) return first;
  ExprList elts;
  elts.push_back(std::move(first));
  while (acceptOp(",")) {
    if (atKw("in") || atOp("=") || atOp(":") || atOp(")")) break;
    elts.push_back(parseTarget());
  }
  Node last;
  finishNode(last);
  Node firstPos = *elts.front();
  return makeTuple(std::move(elts), firstPos, last);
}

ExprPtr Parser::parseSlices() {
  ExprPtr first = parseSlice();
  if (!atOp(",") && first->kind != ExprKind::Starred) return first;
  ExprList elts;
  elts.push_back(std::move(first));
  while (acceptOp(",")) {
    if (atOp("]")) break;
    elts.push_back(parseSlice());
  }
  Node last;
  finishNode(last);
  Node firstPos = *elts.front();
  return makeTuple(std::move(elts), firstPos, last);
}

ExprPtr Parser::parseSlice() {
  if (atOp("*")) return parseStarNamedExpression();
  const Token& first = tok();
  ExprPtr lower;
  if (!atOp(":")) {
    lower = parseNamedExpression();
    if (!atOp(":")) return lower;
  }
  auto s = start<Slice>(first);
  s->lower = std::move(lower);
  advance();  // ':'
  if (!atOp(":") && !atOp(",") && !atOp("]")) s->upper = parseExpression();
  if (acceptOp(":")) {
    if (!atOp(",") && !atOp("]")) s->step = parseExpression();
  }
  return finish(std::move(s));
}

void Parser::parseCallArguments(Call& call) {
  const Token& open = tok();
  DepthGuard g(*this);
  advance();  // '('
  bool sawKeyword = false, sawDoubleStar = false;
  while (!atOp(")")) {
    const Token& at = tok();
    if (atOp("*") && !ahead().isOp(")")) {
      auto s = start<Starred>(at);
      advance();
      s->value = parseExpression();
      s = finish(std::move(s));
      if (sawDoubleStar) error(*s, "iterable argument unpacking follows keyword argument unpacking");
      call.args.push_back(std::move(s));
    } else if (atOp("**")) {
      Keyword k;
      k.line = at.line, k.col = at.col;
      advance();
      k.value = parseExpression();
      finishNode(k);
      call.keywords.push_back(std::move(k));
      sawDoubleStar = true;
    } else if (atIdentifier() && ahead().isOp("=")) {
      Keyword k;
      k.line = at.line, k.col = at.col;
      k.arg = std::string(at.text);
      advance();
      advance();
      k.value = parseExpression();
      finishNode(k);
      call.keywords.push_back(std::move(k));
      sawKeyword = true;
    } else {
      ExprPtr e = parseNamedExpression();
      if (atKw("for") || (atKw("async") && ahead().isName("for"))) {
        auto gen = start<GeneratorExp>(open);
        gen->elt = std::move(e);
        gen->generators = parseComprehensionClauses();
        bool sole = call.args.empty() && call.keywords.empty() && atOp(")");
        if (!sole) {
          finishNode(*gen);
          error(*gen->elt, "Generator expression must be parenthesized");
        }
        advance();  // ')'
        e = finish(std::move(gen));
        call.args.push_back(std::move(e));
        return;
      }
      if (atOp("=")) error(*e, "expression cannot contain assignment, perhaps you meant \"==\"?");
      if (sawDoubleStar) error(*e, "positional argument follows keyword argument unpacking");
      if (sawKeyword) error(*e, "positional argument follows keyword argument");
      call.args.push_back(std::move(e));
    }
    if (atOp(")")) break;
    if (!atOp(",")) {
      if (canStartExpression(tok()) && !call.args.empty())
        error(*call.args.back(), "invalid syntax. Perhaps you forgot a comma?");
      syntaxError();
    }
    advance();
  }
  advance();  // ')'
}

ExprPtr Parser::parseLambda() {
  auto l = start<Lambda>(tok());
  advance();  // lambda
  DepthGuard g(*this);
  l->args = parseParameters(":", /*annotations=*/false);
  expectColon();
  int savedLoops = loopDepth_;
  loopDepth_ = 0;
  ++funcDepth_, ++anyFuncDepth_;
  l->body = parseExpression();
  --funcDepth_, --anyFuncDepth_;
  loopDepth_ = savedLoops;
  return finish(std::move(l));
}

ExprPtr Parser::parseYield() {
  const Token& kw = tok();
  advance();  // yield
  if (acceptKw("from")) {
    auto y = start<YieldFrom>(kw);
    y->value = parseExpression();
    return finish(std::move(y));
  }
  auto y = start<Yield>(kw);
  if (canStartExpression(tok()) || atOp("*")) y->value = parseStarExpressions();
  return finish(std::move(y));
}

Arguments Parser::parseParameters(const char* closer, bool annotations) {
  Arguments a;
  bool seenSlash = false, seenStar = false, bareStar = false;
  const Token* starTok = nullptr;
  auto parseArg = [&](bool allowStarAnnotation) {
    Arg arg;
    arg.line = tok().line, arg.col = tok().col;
    arg.name = expectIdentifier();
    if (annotations && acceptOp(":")) {
      if (allowStarAnnotation && atOp("*")) arg.annotation = parseStarExpression();
      else arg.annotation = parseExpression();
    }
    finishNode(arg);
    return arg;
  };
  while (!atOp(closer)) {
    const Token& at = tok();
    if (atOp("/")) {
      if (seenSlash) error(at, "/ may appear only once");
      if (seenStar) error(at, "/ must be ahead of *");
      if (a.args.empty()) error(at, "at least one argument must precede /");
      seenSlash = true;
      advance();
      a.posonlyargs = std::move(a.args);
      a.args.clear();
    } else if (atOp("*")) {
      if (seenStar) error(at, "* argument may appear only once");
      seenStar = true;
      starTok = &at;
      advance();
      if (atOp(",") || atOp(closer)) {
        bareStar = true;
        if (atOp(closer) || ahead().isOp(closer)) error(at, "named arguments must follow bare *");
      } else {
        a.vararg = parseArg(/*allowStarAnnotation=*/true);
        if (atOp("=")) error(tok(), "var-positional argument cannot have default value");
      }
    } else if (atOp("**")) {
      advance();
      a.kwarg = parseArg(false);
      if (atOp("=")) error(tok(), "var-keyword argument cannot have default value");
      acceptOp(",");
      if (!atOp(closer)) error(tok(), "arguments cannot follow var-keyword argument");
      break;
    } else {
      Arg arg = parseArg(false);
      ExprPtr def;
      if (acceptOp("=")) def = parseExpression();
      if (seenStar) {
        a.kwDefaults.push_back(std::move(def));
        a.kwonlyargs.push_back(std::move(arg));
      } else {
        if (def) {
          a.defaults.push_back(std::move(def));
        } else if (!a.defaults.empty()) {
          error(arg, "parameter without a default follows parameter with a default");
        }
        a.args.push_back(std::move(arg));
      }
    }
    if (atOp(closer)) break;
    if (!atOp(",")) {
      if (!annotations && atOp(":")) break;
      if (std::string(closer) == ":" && atOp("(")) syntaxError();
      syntaxError();
    }
    advance();
  }
  if (bareStar && a.kwonlyargs.empty()) error(*starTok, "named arguments must follow bare *");
  checkUniqueParams(a);
  return a;
}

void Parser::checkUniqueParams(const Arguments& a) {
  std::vector<const Arg*> all;
  for (const Arg& x : a.posonlyargs) all.push_back(&x);
  for (const Arg& x : a.args) all.push_back(&x);
  if (a.vararg) all.push_back(&*a.vararg);
  for (const Arg& x : a.kwonlyargs) all.push_back(&x);
  if (a.kwarg) all.push_back(&*a.kwarg);
  std::unordered_set<std::string_view> seen;
  for (const Arg* arg : all)
    if (!seen.insert(arg->name).second)
      error(*arg, "duplicate argument '" + arg->name + "' in function definition");
}

}  // namespace tessera::py
