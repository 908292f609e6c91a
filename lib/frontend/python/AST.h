//===- AST.h - Python 3.12 abstract syntax tree ----------------*- C++ -*-===//
//
// The tree mirrors CPython's `ast` module (Python 3.12) node for node, so the
// Python documentation of `ast` is its documentation: a kernel file is a
// Module of statements, each node carries the 1-based line and column of its
// first character. Field names follow `ast` (snake_case there, lowerCamel
// here: `orelse`, `keywords`, `decorator_list` -> decorators).
//
// Ownership: a Module owns every node through unique_ptr; nodes are
// immutable once parsed. Dispatch with `node->kind` and `as<T>()`:
//
//   if (auto* call = expr->as<Call>()) ... call->func, call->args ...
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tessera/support/Diagnostics.h"

namespace tessera::py {

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;
using ExprList = std::vector<ExprPtr>;
using StmtList = std::vector<StmtPtr>;

struct Node {
  int line = 0;  ///< 1-based line of the node's first character.
  int col = 0;   ///< 1-based column of the node's first character.
  int endLine = 0;
  int endCol = 0;  ///< 1-based column one past the last character.
};

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

enum class ExprKind {
  BoolOp, NamedExpr, BinOp, UnaryOp, Lambda, IfExp, Dict, Set, ListComp,
  SetComp, DictComp, GeneratorExp, Await, Yield, YieldFrom, Compare, Call,
  FormattedValue, JoinedStr, Constant, Attribute, Subscript, Starred, Name,
  List, Tuple, Slice,
};

enum class ExprContext { Load, Store, Del };
enum class BoolOpKind { And, Or };
enum class BinOpKind { Add, Sub, Mult, MatMult, Div, Mod, Pow, LShift, RShift, BitOr, BitXor, BitAnd, FloorDiv };
enum class UnaryOpKind { Invert, Not, UAdd, USub };
enum class CmpOpKind { Eq, NotEq, Lt, LtE, Gt, GtE, Is, IsNot, In, NotIn };

/// Python spelling of an operator ("+", "//", "not in", ...), for messages.
const char* spelling(BinOpKind op);
const char* spelling(UnaryOpKind op);
const char* spelling(CmpOpKind op);

struct Expr : Node {
  explicit Expr(ExprKind kind) : kind(kind) {}
  virtual ~Expr() = default;
  const ExprKind kind;
  template <class T> T* as() { return kind == T::Kind ? static_cast<T*>(this) : nullptr; }
  template <class T> const T* as() const { return kind == T::Kind ? static_cast<const T*>(this) : nullptr; }
};

template <ExprKind K> struct ExprNode : Expr {
  static constexpr ExprKind Kind = K;
  ExprNode() : Expr(K) {}
};

/// A literal. Integers keep their source digits when they do not fit in
/// int64 (`bigInt` holds the decimal text then); strings are decoded.
struct Constant : ExprNode<ExprKind::Constant> {
  enum class Type { None, Bool, Int, Float, Complex, Str, Bytes, Ellipsis };
  Type type = Type::None;
  bool boolValue = false;
  int64_t intValue = 0;
  std::optional<std::string> bigInt;  ///< decimal digits (with '-' never) when the int overflows int64;
                                      ///< "0x..." text beyond 4200 bits
  double floatValue = 0;              ///< Float, and the imaginary part of Complex
  std::string strValue;               ///< Str (UTF-8) and Bytes (raw bytes)
};

struct Name : ExprNode<ExprKind::Name> { std::string id; ExprContext ctx = ExprContext::Load; };
struct Attribute : ExprNode<ExprKind::Attribute> { ExprPtr value; std::string attr; ExprContext ctx = ExprContext::Load; };
struct Subscript : ExprNode<ExprKind::Subscript> { ExprPtr value; ExprPtr slice; ExprContext ctx = ExprContext::Load; };
struct Starred : ExprNode<ExprKind::Starred> { ExprPtr value; ExprContext ctx = ExprContext::Load; };
struct List : ExprNode<ExprKind::List> { ExprList elts; ExprContext ctx = ExprContext::Load; };
struct Tuple : ExprNode<ExprKind::Tuple> { ExprList elts; ExprContext ctx = ExprContext::Load; };
/// `lower:upper:step` inside a subscript; absent parts are null.
struct Slice : ExprNode<ExprKind::Slice> { ExprPtr lower, upper, step; };

struct BoolOp : ExprNode<ExprKind::BoolOp> { BoolOpKind op = BoolOpKind::And; ExprList values; };
struct NamedExpr : ExprNode<ExprKind::NamedExpr> { ExprPtr target, value; };
struct BinOp : ExprNode<ExprKind::BinOp> { ExprPtr left; BinOpKind op = BinOpKind::Add; ExprPtr right; };
struct UnaryOp : ExprNode<ExprKind::UnaryOp> { UnaryOpKind op = UnaryOpKind::Not; ExprPtr operand; };
struct IfExp : ExprNode<ExprKind::IfExp> { ExprPtr test, body, orelse; };
struct Compare : ExprNode<ExprKind::Compare> { ExprPtr left; std::vector<CmpOpKind> ops; ExprList comparators; };

struct Keyword : Node {
  std::optional<std::string> arg;  ///< nullopt for `**kwargs`
  ExprPtr value;
};
struct Call : ExprNode<ExprKind::Call> { ExprPtr func; ExprList args; std::vector<Keyword> keywords; };

/// One argument of a def or lambda.
struct Arg : Node {
  std::string name;
  ExprPtr annotation;  ///< may be null
};
struct Arguments {
  std::vector<Arg> posonlyargs;
  std::vector<Arg> args;
  std::optional<Arg> vararg;
  std::vector<Arg> kwonlyargs;
  ExprList kwDefaults;  ///< parallel to kwonlyargs; null where there is none
  std::optional<Arg> kwarg;
  ExprList defaults;  ///< for the last defaults.size() of posonlyargs+args
};
struct Lambda : ExprNode<ExprKind::Lambda> { Arguments args; ExprPtr body; };

struct Comprehension {
  ExprPtr target, iter;
  ExprList ifs;
  bool isAsync = false;
};
struct ListComp : ExprNode<ExprKind::ListComp> { ExprPtr elt; std::vector<Comprehension> generators; };
struct SetComp : ExprNode<ExprKind::SetComp> { ExprPtr elt; std::vector<Comprehension> generators; };
struct GeneratorExp : ExprNode<ExprKind::GeneratorExp> { ExprPtr elt; std::vector<Comprehension> generators; };
struct DictComp : ExprNode<ExprKind::DictComp> { ExprPtr key, value; std::vector<Comprehension> generators; };
/// `keys[i]` is null for a `**mapping` entry.
struct Dict : ExprNode<ExprKind::Dict> { ExprList keys, values; };
struct Set : ExprNode<ExprKind::Set> { ExprList elts; };
struct Await : ExprNode<ExprKind::Await> { ExprPtr value; };
struct Yield : ExprNode<ExprKind::Yield> { ExprPtr value; /* may be null */ };
struct YieldFrom : ExprNode<ExprKind::YieldFrom> { ExprPtr value; };
/// `{value!conversion:format_spec}` inside an f-string; conversion is -1, 's', 'r' or 'a'.
struct FormattedValue : ExprNode<ExprKind::FormattedValue> { ExprPtr value; int conversion = -1; ExprPtr formatSpec; };
/// An f-string: Constant(Str) and FormattedValue parts.
struct JoinedStr : ExprNode<ExprKind::JoinedStr> { ExprList values; };

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

enum class StmtKind {
  FunctionDef, AsyncFunctionDef, ClassDef, Return, Delete, Assign, TypeAlias,
  AugAssign, AnnAssign, For, AsyncFor, While, If, With, AsyncWith, Match,
  Raise, Try, TryStar, Assert, Import, ImportFrom, Global, Nonlocal, Expr,
  Pass, Break, Continue,
};

struct Stmt : Node {
  explicit Stmt(StmtKind kind) : kind(kind) {}
  virtual ~Stmt() = default;
  const StmtKind kind;
  template <class T> T* as() { return kind == T::Kind ? static_cast<T*>(this) : nullptr; }
  template <class T> const T* as() const { return kind == T::Kind ? static_cast<const T*>(this) : nullptr; }
};

template <StmtKind K> struct StmtNode : Stmt {
  static constexpr StmtKind Kind = K;
  StmtNode() : Stmt(K) {}
};

/// PEP 695 type parameter (`def f[T: int, *Ts, **P]`).
struct TypeParam : Node {
  enum class Kind { TypeVar, ParamSpec, TypeVarTuple } kind = Kind::TypeVar;
  std::string name;
  ExprPtr bound;  ///< TypeVar only; may be null
};

/// Also used for AsyncFunctionDef (isAsync = true).
struct FunctionDef : StmtNode<StmtKind::FunctionDef> {
  std::string name;
  Arguments args;
  StmtList body;
  ExprList decorators;
  ExprPtr returns;  ///< may be null
  std::vector<TypeParam> typeParams;
  bool isAsync = false;
  /// Source text of the whole definition, decorators excluded (for hashing).
  std::string sourceText;
};
struct ClassDef : StmtNode<StmtKind::ClassDef> {
  std::string name;
  ExprList bases;
  std::vector<Keyword> keywords;
  StmtList body;
  ExprList decorators;
  std::vector<TypeParam> typeParams;
};
struct Return : StmtNode<StmtKind::Return> { ExprPtr value; /* may be null */ };
struct Delete : StmtNode<StmtKind::Delete> { ExprList targets; };
/// `a = b = value`: targets = [a, b].
struct Assign : StmtNode<StmtKind::Assign> { ExprList targets; ExprPtr value; };
struct TypeAlias : StmtNode<StmtKind::TypeAlias> { ExprPtr name; std::vector<TypeParam> typeParams; ExprPtr value; };
struct AugAssign : StmtNode<StmtKind::AugAssign> { ExprPtr target; BinOpKind op = BinOpKind::Add; ExprPtr value; };
/// `target: annotation = value` (value may be null); simple = target is a bare name.
struct AnnAssign : StmtNode<StmtKind::AnnAssign> { ExprPtr target, annotation, value; bool simple = true; };
/// Also AsyncFor (isAsync = true).
struct For : StmtNode<StmtKind::For> { ExprPtr target, iter; StmtList body, orelse; bool isAsync = false; };
struct While : StmtNode<StmtKind::While> { ExprPtr test; StmtList body, orelse; };
/// `elif` chains are nested Ifs in orelse, as in CPython.
struct If : StmtNode<StmtKind::If> { ExprPtr test; StmtList body, orelse; };
struct WithItem { ExprPtr contextExpr, optionalVars; };
/// Also AsyncWith (isAsync = true).
struct With : StmtNode<StmtKind::With> { std::vector<WithItem> items; StmtList body; bool isAsync = false; };

/// Patterns of `match` statements (PEP 634).
struct Pattern : Node {
  enum class Kind { MatchValue, MatchSingleton, MatchSequence, MatchMapping, MatchClass, MatchStar, MatchAs, MatchOr };
  Kind kind = Kind::MatchValue;
  ExprPtr value;                     ///< MatchValue; MatchSingleton holds a Constant
  std::vector<std::unique_ptr<Pattern>> patterns;  ///< Sequence/Mapping values/Class positional/Or/As inner (size 1)
  ExprList keys;                     ///< MatchMapping
  ExprPtr cls;                       ///< MatchClass
  std::vector<std::string> kwdAttrs; ///< MatchClass
  std::vector<std::unique_ptr<Pattern>> kwdPatterns;
  std::optional<std::string> name;   ///< MatchStar/MatchAs capture, MatchMapping rest
};
struct MatchCase { std::unique_ptr<Pattern> pattern; ExprPtr guard; StmtList body; };
struct Match : StmtNode<StmtKind::Match> { ExprPtr subject; std::vector<MatchCase> cases; };

struct Raise : StmtNode<StmtKind::Raise> { ExprPtr exc, cause; };
struct ExceptHandler : Node { ExprPtr type; std::optional<std::string> name; StmtList body; };
/// Also TryStar (isStar = true).
struct Try : StmtNode<StmtKind::Try> {
  StmtList body;
  std::vector<ExceptHandler> handlers;
  StmtList orelse, finalbody;
  bool isStar = false;
};
struct Assert : StmtNode<StmtKind::Assert> { ExprPtr test, msg; };
struct Alias : Node { std::string name; std::optional<std::string> asname; };
struct Import : StmtNode<StmtKind::Import> { std::vector<Alias> names; };
/// `from ..module import names`; module may be empty for `from . import x`.
struct ImportFrom : StmtNode<StmtKind::ImportFrom> { std::string module; std::vector<Alias> names; int level = 0; };
struct Global : StmtNode<StmtKind::Global> { std::vector<std::string> names; };
struct Nonlocal : StmtNode<StmtKind::Nonlocal> { std::vector<std::string> names; };
struct ExprStmt : StmtNode<StmtKind::Expr> { ExprPtr value; };
struct Pass : StmtNode<StmtKind::Pass> {};
struct Break : StmtNode<StmtKind::Break> {};
struct Continue : StmtNode<StmtKind::Continue> {};

/// A parsed file. Keeps the SourceFile alive for the diagnostics that point
/// into it.
struct Module {
  SourceFileRef source;
  StmtList body;
};

/// Parses a whole Python 3.12 module. A syntax error anywhere throws
/// tessera::Error formatted like Python's ("invalid syntax", "expected ':'",
/// "unindent does not match any outer indentation level", ...) with
/// file:line:col and a caret.
std::unique_ptr<Module> parseModule(SourceFileRef source);

/// Parses a single expression (used for `-D NAME=VALUE` values and tests).
ExprPtr parseExpression(SourceFileRef source);

/// Debug dump in the style of `ast.dump` (used by the parser tests).
std::string dump(const Expr& expr);
std::string dump(const Stmt& stmt);
std::string dump(const Module& module);

}  // namespace tessera::py
