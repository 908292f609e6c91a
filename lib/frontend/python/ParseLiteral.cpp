//===- ParseLiteral.cpp - Numbers, strings and f-strings --------*- C++ -*-===//
//
// Number tokens become Constants: ints that fit in int64 keep their value,
// larger ones their decimal digits (hex, octal and binary literals are
// converted to decimal up to 4200 bits; beyond, they keep their text), floats and imaginary numbers go through strtod.
// Adjacent string tokens are concatenated; as soon as one is an f-string the
// result is a JoinedStr whose adjacent literal pieces are merged, as CPython
// does. The expression of each replacement field is parsed by a nested
// Parser over the tokens the lexer collected for it.
//
//===----------------------------------------------------------------------===//

#include <cstdlib>

#include "frontend/python/Parser.h"

namespace tessera::py {
namespace {

/// Converts digits in `base` to decimal text (arbitrary precision; base 1e9
/// limbs, least significant first).
std::string toDecimal(const std::string& digits, int base) {
  std::vector<uint32_t> limbs{0};
  for (char c : digits) {
    int d = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
    uint64_t carry = d;
    for (uint32_t& limb : limbs) {
      uint64_t v = static_cast<uint64_t>(limb) * base + carry;
      limb = static_cast<uint32_t>(v % 1000000000u);
      carry = v / 1000000000u;
    }
    if (carry) limbs.push_back(static_cast<uint32_t>(carry));
  }
  std::string out = std::to_string(limbs.back());
  for (size_t i = limbs.size() - 1; i-- > 0;) {
    std::string part = std::to_string(limbs[i]);
    out += std::string(9 - part.size(), '0') + part;
  }
  return out;
}

}  // namespace

ExprPtr Parser::parseNumber() {
  const Token& t = tok();
  auto c = start<Constant>(t);
  std::string text;
  for (char ch : t.text)
    if (ch != '_') text += ch;
  advance();
  c = finish(std::move(c));
  char last = text.back();
  if (last == 'j' || last == 'J') {
    c->type = Constant::Type::Complex;
    text.pop_back();
    c->floatValue = std::strtod(text.c_str(), nullptr);
    return c;
  }
  int base = 10;
  std::string digits = text;
  if (text.size() > 1 && text[0] == '0' && (text[1] | 0x20) != '.' && !isdigit(text[1]) &&
      (text[1] | 0x20) != 'e') {
    char b = text[1] | 0x20;
    base = b == 'x' ? 16 : b == 'o' ? 8 : 2;
    digits = text.substr(2);
  } else if (text.find_first_of(".eE") != std::string::npos) {
    c->type = Constant::Type::Float;
    c->floatValue = std::strtod(text.c_str(), nullptr);
    return c;
  }
  c->type = Constant::Type::Int;
  // Accumulate while the value fits in int64; fall back to big decimal text.
  uint64_t v = 0;
  bool overflow = false;
  for (char ch : digits) {
    int d = ch <= '9' ? ch - '0' : (ch | 0x20) - 'a' + 10;
    if (v > (static_cast<uint64_t>(INT64_MAX) - d) / base) {
      overflow = true;
      break;
    }
    v = v * base + d;
  }
  if (!overflow) {
    c->intValue = static_cast<int64_t>(v);
    return c;
  }
  size_t nz = digits.find_first_not_of('0');
  std::string significant = digits.substr(nz);
  // Conversion to decimal is quadratic in the digits, so only numbers a
  // constexpr can hold (BigInt's 4096 bits) are converted; a longer literal
  // keeps its own text ("0x..."), which the code generator reports as too
  // large if a kernel uses it (host code may hold any literal).
  int bitsPerDigit = base == 16 ? 4 : base == 8 ? 3 : 1;
  if (base == 10 || significant.size() * bitsPerDigit > 4200)
    c->bigInt = base == 10 ? significant : text.substr(0, 2) + significant;
  else
    c->bigInt = toDecimal(significant, base);
  return c;
}

ExprPtr Parser::parseStrings() {
  const Token& first = tok();
  bool anyF = false, anyBytes = false, anyStr = false;
  size_t n = 0;
  while (ahead(n).kind == TokKind::String) {
    const Token& t = ahead(n);
    anyF |= t.str->fstr != nullptr;
    (t.str->isBytes ? anyBytes : anyStr) = true;
    ++n;
  }
  if (anyBytes && anyStr) error(first, "cannot mix bytes and nonbytes literals");
  if (!anyF) {
    auto c = start<Constant>(first);
    c->type = anyBytes ? Constant::Type::Bytes : Constant::Type::Str;
    for (size_t k = 0; k < n; ++k) {
      c->strValue += tok().str->value;
      advance();
    }
    return finish(std::move(c));
  }
  auto js = start<JoinedStr>(first);
  std::string pending;
  for (size_t k = 0; k < n; ++k) {
    const Token& t = tok();
    if (t.str->fstr) appendFStringParts(t.str->fstr->parts, js->values, pending, t);
    else pending += t.str->value;
    advance();
  }
  finishNode(*js);
  if (!pending.empty()) {
    auto c = startAt<Constant>(*js);
    copyPos(*c, *js);
    c->type = Constant::Type::Str;
    c->strValue = std::move(pending);
    js->values.push_back(std::move(c));
  }
  return js;
}

void Parser::appendFStringParts(const std::vector<FStringPart>& parts, ExprList& out,
                                std::string& pending, const Token& strTok) {
  for (const FStringPart& p : parts) {
    if (!p.isField) {
      pending += p.literal;
      continue;
    }
    pending += p.debugText;
    if (!pending.empty()) {
      auto c = std::make_unique<Constant>();
      c->line = strTok.line, c->col = strTok.col, c->endLine = strTok.endLine, c->endCol = strTok.endCol;
      c->type = Constant::Type::Str;
      c->strValue = std::move(pending);
      pending.clear();
      out.push_back(std::move(c));
    }
    out.push_back(makeFormattedValue(p, strTok));
  }
}

ExprPtr Parser::makeFormattedValue(const FStringPart& field, const Token& strTok) {
  auto fv = std::make_unique<FormattedValue>();
  fv->line = field.line, fv->col = field.col, fv->endLine = field.endLine, fv->endCol = field.endCol;
  DepthGuard g(*this, 4);
  Parser sub(file_, field.tokens, depth_);
  sub.funcDepth_ = funcDepth_;
  sub.anyFuncDepth_ = anyFuncDepth_;
  sub.loopDepth_ = loopDepth_;
  fv->value = sub.parseFStringField();
  fv->conversion = field.conversion;
  if (!field.debugText.empty() && field.conversion == -1 && !field.hasSpec) fv->conversion = 'r';
  if (field.hasSpec) {
    auto spec = std::make_unique<JoinedStr>();
    spec->line = field.line, spec->col = field.col, spec->endLine = field.endLine, spec->endCol = field.endCol;
    std::string pending;
    appendFStringParts(field.spec, spec->values, pending, strTok);
    // CPython 3.12 ends a spec whose last part is a field with an empty
    // Constant (f"{x:{w}}"); mirror it so dumps match.
    bool endsWithField = !field.spec.empty() && field.spec.back().isField;
    if (!pending.empty() || endsWithField) {
      auto c = std::make_unique<Constant>();
      copyPos(*c, *spec);
      c->type = Constant::Type::Str;
      c->strValue = std::move(pending);
      spec->values.push_back(std::move(c));
    }
    fv->formatSpec = std::move(spec);
  }
  return fv;
}

ExprPtr Parser::parseFStringField() {
  ExprPtr e;
  if (atKw("yield")) {
    e = parseYield();
  } else {
    e = parseStarExpressions();
    if (e->kind == ExprKind::Starred) error(*e, "f-string: cannot use starred expression here");
  }
  if (tok().kind != TokKind::EndMarker) {
    if (atOp("=") || atOp("!") || atOp(":")) syntaxError();
    error(tok(), "f-string: expecting '}'");
  }
  return e;
}

}  // namespace tessera::py
