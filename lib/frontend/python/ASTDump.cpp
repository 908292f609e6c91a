//===- ASTDump.cpp - ast.dump-style printing --------------------*- C++ -*-===//
//
// Prints the tree exactly as Python 3.12's `ast.dump(node)` does with its
// defaults (no positions, no indentation): fields in CPython's order,
// optional fields that are None left out, empty lists kept, constants as
// Python's repr() would print them. The parser tests compare against these
// strings, so the format is kept stable.
//
//===----------------------------------------------------------------------===//

#include <charconv>
#include <cmath>
#include <cstdio>

#include "frontend/python/AST.h"

namespace tessera::py {
namespace {

/// Python's repr() of a float: shortest round-trip digits, fixed notation
/// for exponents in [-4, 16), else d.ddde+XX. `complexPart` drops the
/// ".0" that repr(float) adds to integral values (as repr(complex) does).
std::string floatRepr(double v, bool complexPart) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  size_t e = sci.find('e');
  std::string mant = sci.substr(0, e);
  int exp = std::stoi(sci.substr(e + 1));
  bool neg = mant[0] == '-';
  if (neg) mant.erase(0, 1);
  std::string digits;
  for (char c : mant)
    if (c != '.') digits += c;
  std::string out = neg ? "-" : "";
  if (exp >= -4 && exp < 16) {
    if (exp < 0) {
      out += "0." + std::string(-exp - 1, '0') + digits;
    } else if (static_cast<int>(digits.size()) <= exp + 1) {
      out += digits + std::string(exp + 1 - digits.size(), '0');
      if (!complexPart) out += ".0";
    } else {
      out += digits.substr(0, exp + 1) + "." + digits.substr(exp + 1);
    }
    return out;
  }
  out += digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  snprintf(buf, sizeof buf, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
  return out + buf;
}

/// Python's repr() of a str (UTF-8) or bytes value.
std::string stringRepr(const std::string& s, bool isBytes) {
  bool hasSingle = s.find('\'') != std::string::npos;
  bool hasDouble = s.find('"') != std::string::npos;
  char quote = hasSingle && !hasDouble ? '"' : '\'';
  std::string out = isBytes ? "b" : "";
  out += quote;
  char buf[16];
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '\\') out += "\\\\";
    else if (c == static_cast<unsigned char>(quote)) out += std::string("\\") + quote;
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7F || (isBytes && c >= 0x80)) {
      snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else if (c < 0x80) {
      out += static_cast<char>(c);
    } else {
      // Decode one code point; printable ones are kept as they are.
      int n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
      uint32_t cp = n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
      for (int k = 1; k < n && i + k < s.size(); ++k) cp = (cp << 6) | (s[i + k] & 0x3F);
      // Approximates Python's str.isprintable(): separators, format and
      // private-use characters, surrogates and noncharacters are escaped.
      bool printable = !(cp <= 0xA0 || cp == 0xAD || (cp >= 0x2000 && cp <= 0x200F) ||
                         (cp >= 0x2028 && cp <= 0x202F) || (cp >= 0x205F && cp <= 0x206F) ||
                         cp == 0x3000 || cp == 0xFEFF || (cp >= 0xD800 && cp <= 0xF8FF) ||
                         (cp & 0xFFFE) == 0xFFFE || cp >= 0xF0000);
      if (printable) {
        out += s.substr(i, n);
      } else if (cp < 0x100) {
        snprintf(buf, sizeof buf, "\\x%02x", cp);
        out += buf;
      } else if (cp < 0x10000) {
        snprintf(buf, sizeof buf, "\\u%04x", cp);
        out += buf;
      } else {
        snprintf(buf, sizeof buf, "\\U%08x", cp);
        out += buf;
      }
      i += n - 1;
    }
  }
  out += quote;
  return out;
}

const char* binOpName(BinOpKind op) {
  switch (op) {
    case BinOpKind::Add: return "Add()";
    case BinOpKind::Sub: return "Sub()";
    case BinOpKind::Mult: return "Mult()";
    case BinOpKind::MatMult: return "MatMult()";
    case BinOpKind::Div: return "Div()";
    case BinOpKind::Mod: return "Mod()";
    case BinOpKind::Pow: return "Pow()";
    case BinOpKind::LShift: return "LShift()";
    case BinOpKind::RShift: return "RShift()";
    case BinOpKind::BitOr: return "BitOr()";
    case BinOpKind::BitXor: return "BitXor()";
    case BinOpKind::BitAnd: return "BitAnd()";
    case BinOpKind::FloorDiv: return "FloorDiv()";
  }
  return "?";
}

const char* unaryOpName(UnaryOpKind op) {
  switch (op) {
    case UnaryOpKind::Invert: return "Invert()";
    case UnaryOpKind::Not: return "Not()";
    case UnaryOpKind::UAdd: return "UAdd()";
    case UnaryOpKind::USub: return "USub()";
  }
  return "?";
}

const char* cmpOpName(CmpOpKind op) {
  switch (op) {
    case CmpOpKind::Eq: return "Eq()";
    case CmpOpKind::NotEq: return "NotEq()";
    case CmpOpKind::Lt: return "Lt()";
    case CmpOpKind::LtE: return "LtE()";
    case CmpOpKind::Gt: return "Gt()";
    case CmpOpKind::GtE: return "GtE()";
    case CmpOpKind::Is: return "Is()";
    case CmpOpKind::IsNot: return "IsNot()";
    case CmpOpKind::In: return "In()";
    case CmpOpKind::NotIn: return "NotIn()";
  }
  return "?";
}

const char* ctxName(ExprContext c) {
  return c == ExprContext::Load ? "Load()" : c == ExprContext::Store ? "Store()" : "Del()";
}

/// Builds "Node(field=value, ...)" strings.
class Dumper {
 public:
  std::string out;

  void expr(const Expr* e);
  void stmt(const Stmt& s);
  void pattern(const Pattern& p);

 private:
  bool first_ = true;

  /// Starts "Name(" and returns the previous first_ state to restore.
  bool open(const char* name) {
    out += name;
    out += '(';
    bool saved = first_;
    first_ = true;
    return saved;
  }
  void close(bool saved) {
    out += ')';
    first_ = saved;
  }
  void field(const char* name) {
    if (!first_) out += ", ";
    first_ = false;
    out += name;
    out += '=';
  }
  void exprField(const char* name, const ExprPtr& e, bool optional = true) {
    if (!e && optional) return;
    field(name);
    expr(e.get());
  }
  void raw(const char* name, const std::string& text) {
    field(name);
    out += text;
  }
  void exprs(const char* name, const ExprList& list) {
    field(name);
    out += '[';
    for (size_t i = 0; i < list.size(); ++i) {
      if (i) out += ", ";
      expr(list[i].get());
    }
    out += ']';
  }
  void stmts(const char* name, const StmtList& list) {
    field(name);
    out += '[';
    for (size_t i = 0; i < list.size(); ++i) {
      if (i) out += ", ";
      stmt(*list[i]);
    }
    out += ']';
  }
  template <class T, class F> void list(const char* name, const std::vector<T>& items, F each) {
    field(name);
    out += '[';
    for (size_t i = 0; i < items.size(); ++i) {
      if (i) out += ", ";
      each(items[i]);
    }
    out += ']';
  }
  void names(const char* name, const std::vector<std::string>& items) {
    list(name, items, [&](const std::string& s) { out += stringRepr(s, false); });
  }
  void arg(const Arg& a) {
    bool s = open("arg");
    raw("arg", stringRepr(a.name, false));
    exprField("annotation", a.annotation);
    close(s);
  }
  void arguments(const Arguments& a) {
    bool s = open("arguments");
    list("posonlyargs", a.posonlyargs, [&](const Arg& x) { arg(x); });
    list("args", a.args, [&](const Arg& x) { arg(x); });
    if (a.vararg) {
      field("vararg");
      arg(*a.vararg);
    }
    list("kwonlyargs", a.kwonlyargs, [&](const Arg& x) { arg(x); });
    exprs("kw_defaults", a.kwDefaults);
    if (a.kwarg) {
      field("kwarg");
      arg(*a.kwarg);
    }
    exprs("defaults", a.defaults);
    close(s);
  }
  void keyword(const Keyword& k) {
    bool s = open("keyword");
    if (k.arg) raw("arg", stringRepr(*k.arg, false));
    exprField("value", k.value);
    close(s);
  }
  void comprehensions(const std::vector<Comprehension>& gens) {
    list("generators", gens, [&](const Comprehension& c) {
      bool s = open("comprehension");
      exprField("target", c.target);
      exprField("iter", c.iter);
      exprs("ifs", c.ifs);
      raw("is_async", c.isAsync ? "1" : "0");
      close(s);
    });
  }
  void typeParams(const std::vector<TypeParam>& params) {
    list("type_params", params, [&](const TypeParam& p) {
      const char* kind = p.kind == TypeParam::Kind::TypeVar     ? "TypeVar"
                         : p.kind == TypeParam::Kind::ParamSpec ? "ParamSpec"
                                                                : "TypeVarTuple";
      bool s = open(kind);
      raw("name", stringRepr(p.name, false));
      exprField("bound", p.bound);
      close(s);
    });
  }
  void patterns(const char* name, const std::vector<std::unique_ptr<Pattern>>& ps) {
    list(name, ps, [&](const std::unique_ptr<Pattern>& p) { pattern(*p); });
  }
  void constant(const Constant& c);
};

void Dumper::constant(const Constant& c) {
  bool s = open("Constant");
  field("value");
  switch (c.type) {
    case Constant::Type::None: out += "None"; break;
    case Constant::Type::Bool: out += c.boolValue ? "True" : "False"; break;
    case Constant::Type::Int: out += c.bigInt ? *c.bigInt : std::to_string(c.intValue); break;
    case Constant::Type::Float: out += floatRepr(c.floatValue, false); break;
    case Constant::Type::Complex: out += floatRepr(c.floatValue, true) + "j"; break;
    case Constant::Type::Str: out += stringRepr(c.strValue, false); break;
    case Constant::Type::Bytes: out += stringRepr(c.strValue, true); break;
    case Constant::Type::Ellipsis: out += "Ellipsis"; break;
  }
  close(s);
}

void Dumper::expr(const Expr* e) {
  if (!e) {
    out += "None";
    return;
  }
  switch (e->kind) {
    case ExprKind::Constant: return constant(static_cast<const Constant&>(*e));
    case ExprKind::Name: {
      auto& n = static_cast<const Name&>(*e);
      bool s = open("Name");
      raw("id", stringRepr(n.id, false));
      raw("ctx", ctxName(n.ctx));
      return close(s);
    }
    case ExprKind::Attribute: {
      auto& n = static_cast<const Attribute&>(*e);
      bool s = open("Attribute");
      exprField("value", n.value);
      raw("attr", stringRepr(n.attr, false));
      raw("ctx", ctxName(n.ctx));
      return close(s);
    }
    case ExprKind::Subscript: {
      auto& n = static_cast<const Subscript&>(*e);
      bool s = open("Subscript");
      exprField("value", n.value);
      exprField("slice", n.slice);
      raw("ctx", ctxName(n.ctx));
      return close(s);
    }
    case ExprKind::Starred: {
      auto& n = static_cast<const Starred&>(*e);
      bool s = open("Starred");
      exprField("value", n.value);
      raw("ctx", ctxName(n.ctx));
      return close(s);
    }
    case ExprKind::List:
    case ExprKind::Tuple: {
      bool isList = e->kind == ExprKind::List;
      const ExprList& elts = isList ? static_cast<const List&>(*e).elts : static_cast<const Tuple&>(*e).elts;
      ExprContext ctx = isList ? static_cast<const List&>(*e).ctx : static_cast<const Tuple&>(*e).ctx;
      bool s = open(isList ? "List" : "Tuple");
      exprs("elts", elts);
      raw("ctx", ctxName(ctx));
      return close(s);
    }
    case ExprKind::Slice: {
      auto& n = static_cast<const Slice&>(*e);
      bool s = open("Slice");
      exprField("lower", n.lower);
      exprField("upper", n.upper);
      exprField("step", n.step);
      return close(s);
    }
    case ExprKind::BoolOp: {
      auto& n = static_cast<const BoolOp&>(*e);
      bool s = open("BoolOp");
      raw("op", n.op == BoolOpKind::And ? "And()" : "Or()");
      exprs("values", n.values);
      return close(s);
    }
    case ExprKind::NamedExpr: {
      auto& n = static_cast<const NamedExpr&>(*e);
      bool s = open("NamedExpr");
      exprField("target", n.target);
      exprField("value", n.value);
      return close(s);
    }
    case ExprKind::BinOp: {
      auto& n = static_cast<const BinOp&>(*e);
      bool s = open("BinOp");
      exprField("left", n.left);
      raw("op", binOpName(n.op));
      exprField("right", n.right);
      return close(s);
    }
    case ExprKind::UnaryOp: {
      auto& n = static_cast<const UnaryOp&>(*e);
      bool s = open("UnaryOp");
      raw("op", unaryOpName(n.op));
      exprField("operand", n.operand);
      return close(s);
    }
    case ExprKind::Lambda: {
      auto& n = static_cast<const Lambda&>(*e);
      bool s = open("Lambda");
      field("args");
      arguments(n.args);
      exprField("body", n.body);
      return close(s);
    }
    case ExprKind::IfExp: {
      auto& n = static_cast<const IfExp&>(*e);
      bool s = open("IfExp");
      exprField("test", n.test);
      exprField("body", n.body);
      exprField("orelse", n.orelse);
      return close(s);
    }
    case ExprKind::Dict: {
      auto& n = static_cast<const Dict&>(*e);
      bool s = open("Dict");
      exprs("keys", n.keys);
      exprs("values", n.values);
      return close(s);
    }
    case ExprKind::Set: {
      bool s = open("Set");
      exprs("elts", static_cast<const Set&>(*e).elts);
      return close(s);
    }
    case ExprKind::ListComp:
    case ExprKind::SetComp:
    case ExprKind::GeneratorExp: {
      const char* name = e->kind == ExprKind::ListComp ? "ListComp"
                         : e->kind == ExprKind::SetComp ? "SetComp"
                                                        : "GeneratorExp";
      const ExprPtr& elt = e->kind == ExprKind::ListComp ? static_cast<const ListComp&>(*e).elt
                           : e->kind == ExprKind::SetComp ? static_cast<const SetComp&>(*e).elt
                                                          : static_cast<const GeneratorExp&>(*e).elt;
      const auto& gens = e->kind == ExprKind::ListComp ? static_cast<const ListComp&>(*e).generators
                         : e->kind == ExprKind::SetComp ? static_cast<const SetComp&>(*e).generators
                                                        : static_cast<const GeneratorExp&>(*e).generators;
      bool s = open(name);
      exprField("elt", elt);
      comprehensions(gens);
      return close(s);
    }
    case ExprKind::DictComp: {
      auto& n = static_cast<const DictComp&>(*e);
      bool s = open("DictComp");
      exprField("key", n.key);
      exprField("value", n.value);
      comprehensions(n.generators);
      return close(s);
    }
    case ExprKind::Await: {
      bool s = open("Await");
      exprField("value", static_cast<const Await&>(*e).value);
      return close(s);
    }
    case ExprKind::Yield: {
      bool s = open("Yield");
      exprField("value", static_cast<const Yield&>(*e).value);
      return close(s);
    }
    case ExprKind::YieldFrom: {
      bool s = open("YieldFrom");
      exprField("value", static_cast<const YieldFrom&>(*e).value);
      return close(s);
    }
    case ExprKind::Compare: {
      auto& n = static_cast<const Compare&>(*e);
      bool s = open("Compare");
      exprField("left", n.left);
      list("ops", n.ops, [&](CmpOpKind op) { out += cmpOpName(op); });
      exprs("comparators", n.comparators);
      return close(s);
    }
    case ExprKind::Call: {
      auto& n = static_cast<const Call&>(*e);
      bool s = open("Call");
      exprField("func", n.func);
      exprs("args", n.args);
      list("keywords", n.keywords, [&](const Keyword& k) { keyword(k); });
      return close(s);
    }
    case ExprKind::FormattedValue: {
      auto& n = static_cast<const FormattedValue&>(*e);
      bool s = open("FormattedValue");
      exprField("value", n.value);
      raw("conversion", std::to_string(n.conversion));
      exprField("format_spec", n.formatSpec);
      return close(s);
    }
    case ExprKind::JoinedStr: {
      bool s = open("JoinedStr");
      exprs("values", static_cast<const JoinedStr&>(*e).values);
      return close(s);
    }
  }
}

void Dumper::pattern(const Pattern& p) {
  switch (p.kind) {
    case Pattern::Kind::MatchValue:
    case Pattern::Kind::MatchSingleton: {
      bool s = open(p.kind == Pattern::Kind::MatchValue ? "MatchValue" : "MatchSingleton");
      if (p.kind == Pattern::Kind::MatchValue) {
        exprField("value", p.value);
      } else {
        // MatchSingleton(value=None/True/False) holds the bare value.
        auto* c = p.value ? p.value->as<Constant>() : nullptr;
        raw("value", !c || c->type == Constant::Type::None ? "None" : c->boolValue ? "True" : "False");
      }
      return close(s);
    }
    case Pattern::Kind::MatchSequence: {
      bool s = open("MatchSequence");
      patterns("patterns", p.patterns);
      return close(s);
    }
    case Pattern::Kind::MatchMapping: {
      bool s = open("MatchMapping");
      exprs("keys", p.keys);
      patterns("patterns", p.patterns);
      if (p.name) raw("rest", stringRepr(*p.name, false));
      return close(s);
    }
    case Pattern::Kind::MatchClass: {
      bool s = open("MatchClass");
      exprField("cls", p.cls);
      patterns("patterns", p.patterns);
      names("kwd_attrs", p.kwdAttrs);
      patterns("kwd_patterns", p.kwdPatterns);
      return close(s);
    }
    case Pattern::Kind::MatchStar: {
      bool s = open("MatchStar");
      if (p.name) raw("name", stringRepr(*p.name, false));
      return close(s);
    }
    case Pattern::Kind::MatchAs: {
      bool s = open("MatchAs");
      if (!p.patterns.empty()) {
        field("pattern");
        pattern(*p.patterns[0]);
      }
      if (p.name) raw("name", stringRepr(*p.name, false));
      return close(s);
    }
    case Pattern::Kind::MatchOr: {
      bool s = open("MatchOr");
      patterns("patterns", p.patterns);
      return close(s);
    }
  }
}

void Dumper::stmt(const Stmt& st) {
  switch (st.kind) {
    case StmtKind::FunctionDef:
    case StmtKind::AsyncFunctionDef: {
      auto& n = static_cast<const FunctionDef&>(st);
      bool s = open(n.isAsync ? "AsyncFunctionDef" : "FunctionDef");
      raw("name", stringRepr(n.name, false));
      field("args");
      arguments(n.args);
      stmts("body", n.body);
      exprs("decorator_list", n.decorators);
      exprField("returns", n.returns);
      typeParams(n.typeParams);
      return close(s);
    }
    case StmtKind::ClassDef: {
      auto& n = static_cast<const ClassDef&>(st);
      bool s = open("ClassDef");
      raw("name", stringRepr(n.name, false));
      exprs("bases", n.bases);
      list("keywords", n.keywords, [&](const Keyword& k) { keyword(k); });
      stmts("body", n.body);
      exprs("decorator_list", n.decorators);
      typeParams(n.typeParams);
      return close(s);
    }
    case StmtKind::Return: {
      bool s = open("Return");
      exprField("value", static_cast<const Return&>(st).value);
      return close(s);
    }
    case StmtKind::Delete: {
      bool s = open("Delete");
      exprs("targets", static_cast<const Delete&>(st).targets);
      return close(s);
    }
    case StmtKind::Assign: {
      auto& n = static_cast<const Assign&>(st);
      bool s = open("Assign");
      exprs("targets", n.targets);
      exprField("value", n.value);
      return close(s);
    }
    case StmtKind::TypeAlias: {
      auto& n = static_cast<const TypeAlias&>(st);
      bool s = open("TypeAlias");
      exprField("name", n.name);
      typeParams(n.typeParams);
      exprField("value", n.value);
      return close(s);
    }
    case StmtKind::AugAssign: {
      auto& n = static_cast<const AugAssign&>(st);
      bool s = open("AugAssign");
      exprField("target", n.target);
      raw("op", binOpName(n.op));
      exprField("value", n.value);
      return close(s);
    }
    case StmtKind::AnnAssign: {
      auto& n = static_cast<const AnnAssign&>(st);
      bool s = open("AnnAssign");
      exprField("target", n.target);
      exprField("annotation", n.annotation);
      exprField("value", n.value);
      raw("simple", n.simple ? "1" : "0");
      return close(s);
    }
    case StmtKind::For:
    case StmtKind::AsyncFor: {
      auto& n = static_cast<const For&>(st);
      bool s = open(n.isAsync ? "AsyncFor" : "For");
      exprField("target", n.target);
      exprField("iter", n.iter);
      stmts("body", n.body);
      stmts("orelse", n.orelse);
      return close(s);
    }
    case StmtKind::While: {
      auto& n = static_cast<const While&>(st);
      bool s = open("While");
      exprField("test", n.test);
      stmts("body", n.body);
      stmts("orelse", n.orelse);
      return close(s);
    }
    case StmtKind::If: {
      auto& n = static_cast<const If&>(st);
      bool s = open("If");
      exprField("test", n.test);
      stmts("body", n.body);
      stmts("orelse", n.orelse);
      return close(s);
    }
    case StmtKind::With:
    case StmtKind::AsyncWith: {
      auto& n = static_cast<const With&>(st);
      bool s = open(n.isAsync ? "AsyncWith" : "With");
      list("items", n.items, [&](const WithItem& item) {
        bool s2 = open("withitem");
        exprField("context_expr", item.contextExpr);
        exprField("optional_vars", item.optionalVars);
        close(s2);
      });
      stmts("body", n.body);
      return close(s);
    }
    case StmtKind::Match: {
      auto& n = static_cast<const Match&>(st);
      bool s = open("Match");
      exprField("subject", n.subject);
      list("cases", n.cases, [&](const MatchCase& c) {
        bool s2 = open("match_case");
        field("pattern");
        pattern(*c.pattern);
        exprField("guard", c.guard);
        stmts("body", c.body);
        close(s2);
      });
      return close(s);
    }
    case StmtKind::Raise: {
      auto& n = static_cast<const Raise&>(st);
      bool s = open("Raise");
      exprField("exc", n.exc);
      exprField("cause", n.cause);
      return close(s);
    }
    case StmtKind::Try:
    case StmtKind::TryStar: {
      auto& n = static_cast<const Try&>(st);
      bool s = open(n.isStar ? "TryStar" : "Try");
      stmts("body", n.body);
      list("handlers", n.handlers, [&](const ExceptHandler& h) {
        bool s2 = open("ExceptHandler");
        exprField("type", h.type);
        if (h.name) raw("name", stringRepr(*h.name, false));
        stmts("body", h.body);
        close(s2);
      });
      stmts("orelse", n.orelse);
      stmts("finalbody", n.finalbody);
      return close(s);
    }
    case StmtKind::Assert: {
      auto& n = static_cast<const Assert&>(st);
      bool s = open("Assert");
      exprField("test", n.test);
      exprField("msg", n.msg);
      return close(s);
    }
    case StmtKind::Import:
    case StmtKind::ImportFrom: {
      bool isFrom = st.kind == StmtKind::ImportFrom;
      const auto& aliases = isFrom ? static_cast<const ImportFrom&>(st).names : static_cast<const Import&>(st).names;
      bool s = open(isFrom ? "ImportFrom" : "Import");
      if (isFrom && !static_cast<const ImportFrom&>(st).module.empty())
        raw("module", stringRepr(static_cast<const ImportFrom&>(st).module, false));
      list("names", aliases, [&](const Alias& a) {
        bool s2 = open("alias");
        raw("name", stringRepr(a.name, false));
        if (a.asname) raw("asname", stringRepr(*a.asname, false));
        close(s2);
      });
      if (isFrom) raw("level", std::to_string(static_cast<const ImportFrom&>(st).level));
      return close(s);
    }
    case StmtKind::Global: {
      bool s = open("Global");
      names("names", static_cast<const Global&>(st).names);
      return close(s);
    }
    case StmtKind::Nonlocal: {
      bool s = open("Nonlocal");
      names("names", static_cast<const Nonlocal&>(st).names);
      return close(s);
    }
    case StmtKind::Expr: {
      bool s = open("Expr");
      exprField("value", static_cast<const ExprStmt&>(st).value);
      return close(s);
    }
    case StmtKind::Pass: out += "Pass()"; return;
    case StmtKind::Break: out += "Break()"; return;
    case StmtKind::Continue: out += "Continue()"; return;
  }
}

}  // namespace

std::string dump(const Expr& expr) {
  Dumper d;
  d.expr(&expr);
  return d.out;
}

std::string dump(const Stmt& stmt) {
  Dumper d;
  d.stmt(stmt);
  return d.out;
}

std::string dump(const Module& module) {
  Dumper d;
  d.out += "Module(body=[";
  for (size_t i = 0; i < module.body.size(); ++i) {
    if (i) d.out += ", ";
    d.stmt(*module.body[i]);
  }
  d.out += "], type_ignores=[])";
  return d.out;
}

}  // namespace tessera::py
