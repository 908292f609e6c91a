//===- Parse.cpp - Entry points of the Python front end ---------*- C++ -*-===//
//
// parseModule / parseExpression (declared in AST.h): tokenize, then run the
// Parser over the tokens. Also the operator spellings used in messages.
//
//===----------------------------------------------------------------------===//

#include "frontend/python/AST.h"
#include "frontend/python/Lexer.h"
#include "frontend/python/Parser.h"

namespace tessera::py {

std::unique_ptr<Module> parseModule(SourceFileRef source) {
  auto module = std::make_unique<Module>();
  module->source = source;
  Parser parser(*source, tokenize(*source));
  module->body = parser.parseFile();
  return module;
}

ExprPtr parseExpression(SourceFileRef source) {
  Parser parser(*source, tokenize(*source));
  return parser.parseEvalInput();
}

const char* spelling(BinOpKind op) {
  switch (op) {
    case BinOpKind::Add: return "+";
    case BinOpKind::Sub: return "-";
    case BinOpKind::Mult: return "*";
    case BinOpKind::MatMult: return "@";
    case BinOpKind::Div: return "/";
    case BinOpKind::Mod: return "%";
    case BinOpKind::Pow: return "**";
    case BinOpKind::LShift: return "<<";
    case BinOpKind::RShift: return ">>";
    case BinOpKind::BitOr: return "|";
    case BinOpKind::BitXor: return "^";
    case BinOpKind::BitAnd: return "&";
    case BinOpKind::FloorDiv: return "//";
  }
  return "?";
}

const char* spelling(UnaryOpKind op) {
  switch (op) {
    case UnaryOpKind::Invert: return "~";
    case UnaryOpKind::Not: return "not";
    case UnaryOpKind::UAdd: return "+";
    case UnaryOpKind::USub: return "-";
  }
  return "?";
}

const char* spelling(CmpOpKind op) {
  switch (op) {
    case CmpOpKind::Eq: return "==";
    case CmpOpKind::NotEq: return "!=";
    case CmpOpKind::Lt: return "<";
    case CmpOpKind::LtE: return "<=";
    case CmpOpKind::Gt: return ">";
    case CmpOpKind::GtE: return ">=";
    case CmpOpKind::Is: return "is";
    case CmpOpKind::IsNot: return "is not";
    case CmpOpKind::In: return "in";
    case CmpOpKind::NotIn: return "not in";
  }
  return "?";
}

}  // namespace tessera::py
