//===- StmtTest.cpp - Statements through ast.dump ---------------*- C++ -*-===//
//
// Every statement form, compared with the string CPython 3.12's ast.dump
// gives for the same source (written out by hand; PEP 695 forms follow the
// 3.12 documentation of TypeVar/ParamSpec/TypeVarTuple/TypeAlias).
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include "ParserTestUtil.h"

namespace tessera::py::test {
namespace {

const char* kNoArgs = "arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[])";

TEST(PyStmt, ModuleAndSimpleStatements) {
  EXPECT_EQ(dumpModule(""), "Module(body=[], type_ignores=[])");
  EXPECT_EQ(dumpModule("\n\n# only a comment\n"), "Module(body=[], type_ignores=[])");
  EXPECT_EQ(dumpModule("pass; x = 1;\n"),
            "Module(body=[Pass(), Assign(targets=[Name(id='x', ctx=Store())], value=Constant(value=1))], "
            "type_ignores=[])");
  EXPECT_EQ(dumpModule("x"), "Module(body=[Expr(value=Name(id='x', ctx=Load()))], type_ignores=[])");
  EXPECT_EQ(dumpStmt("print('hi', end='')"),
            "Expr(value=Call(func=Name(id='print', ctx=Load()), args=[Constant(value='hi')], "
            "keywords=[keyword(arg='end', value=Constant(value=''))]))");
}

TEST(PyStmt, Assignments) {
  EXPECT_EQ(dumpStmt("a, b = b, a"),
            "Assign(targets=[Tuple(elts=[Name(id='a', ctx=Store()), Name(id='b', ctx=Store())], ctx=Store())], "
            "value=Tuple(elts=[Name(id='b', ctx=Load()), Name(id='a', ctx=Load())], ctx=Load()))");
  EXPECT_EQ(dumpStmt("a = b = c"),
            "Assign(targets=[Name(id='a', ctx=Store()), Name(id='b', ctx=Store())], value=Name(id='c', "
            "ctx=Load()))");
  EXPECT_EQ(dumpStmt("*a, [b, c] = d"),
            "Assign(targets=[Tuple(elts=[Starred(value=Name(id='a', ctx=Store()), ctx=Store()), "
            "List(elts=[Name(id='b', ctx=Store()), Name(id='c', ctx=Store())], ctx=Store())], ctx=Store())], "
            "value=Name(id='d', ctx=Load()))");
  EXPECT_EQ(dumpStmt("a.b[c] = 1"),
            "Assign(targets=[Subscript(value=Attribute(value=Name(id='a', ctx=Load()), attr='b', ctx=Load()), "
            "slice=Name(id='c', ctx=Load()), ctx=Store())], value=Constant(value=1))");
  EXPECT_EQ(dumpStmt("x = yield y"),
            "Assign(targets=[Name(id='x', ctx=Store())], value=Yield(value=Name(id='y', ctx=Load())))");
  EXPECT_EQ(dumpStmt("x += 1"), "AugAssign(target=Name(id='x', ctx=Store()), op=Add(), value=Constant(value=1))");
  EXPECT_EQ(dumpStmt("x //= 2"),
            "AugAssign(target=Name(id='x', ctx=Store()), op=FloorDiv(), value=Constant(value=2))");
  EXPECT_EQ(dumpStmt("x **= 2"), "AugAssign(target=Name(id='x', ctx=Store()), op=Pow(), value=Constant(value=2))");
  EXPECT_EQ(dumpStmt("m @= w"),
            "AugAssign(target=Name(id='m', ctx=Store()), op=MatMult(), value=Name(id='w', ctx=Load()))");
  EXPECT_EQ(dumpStmt("a.b >>= 1"),
            "AugAssign(target=Attribute(value=Name(id='a', ctx=Load()), attr='b', ctx=Store()), op=RShift(), "
            "value=Constant(value=1))");
  EXPECT_EQ(dumpStmt("x: int"),
            "AnnAssign(target=Name(id='x', ctx=Store()), annotation=Name(id='int', ctx=Load()), simple=1)");
  EXPECT_EQ(dumpStmt("(x): int = 1"),
            "AnnAssign(target=Name(id='x', ctx=Store()), annotation=Name(id='int', ctx=Load()), "
            "value=Constant(value=1), simple=0)");
  EXPECT_EQ(dumpStmt("a.b: list[int] = []"),
            "AnnAssign(target=Attribute(value=Name(id='a', ctx=Load()), attr='b', ctx=Store()), "
            "annotation=Subscript(value=Name(id='list', ctx=Load()), slice=Name(id='int', ctx=Load()), "
            "ctx=Load()), value=List(elts=[], ctx=Load()), simple=0)");
}

TEST(PyStmt, SmallStatements) {
  EXPECT_EQ(dumpStmt("del a, b[0], c.d"),
            "Delete(targets=[Name(id='a', ctx=Del()), Subscript(value=Name(id='b', ctx=Load()), "
            "slice=Constant(value=0), ctx=Del()), Attribute(value=Name(id='c', ctx=Load()), attr='d', "
            "ctx=Del())])");
  EXPECT_EQ(dumpStmt("del (a, b)"),
            "Delete(targets=[Tuple(elts=[Name(id='a', ctx=Del()), Name(id='b', ctx=Del())], ctx=Del())])");
  EXPECT_EQ(dumpStmt("assert x, 'msg'"),
            "Assert(test=Name(id='x', ctx=Load()), msg=Constant(value='msg'))");
  EXPECT_EQ(dumpStmt("raise"), "Raise()");
  EXPECT_EQ(dumpStmt("raise E('x') from None"),
            "Raise(exc=Call(func=Name(id='E', ctx=Load()), args=[Constant(value='x')], keywords=[]), "
            "cause=Constant(value=None))");
  EXPECT_EQ(dumpStmt("global a, b"), "Global(names=['a', 'b'])");
  EXPECT_EQ(dumpStmt("def f():\n  nonlocal a\n").find("Nonlocal(names=['a'])") != std::string::npos, true);
  EXPECT_EQ(dumpStmt("import a.b.c as d, e"),
            "Import(names=[alias(name='a.b.c', asname='d'), alias(name='e')])");
  EXPECT_EQ(dumpStmt("from ..x.y import (a as b, c,)"),
            "ImportFrom(module='x.y', names=[alias(name='a', asname='b'), alias(name='c')], level=2)");
  EXPECT_EQ(dumpStmt("from . import *"), "ImportFrom(names=[alias(name='*')], level=1)");
  EXPECT_EQ(dumpStmt("from .... import x"), "ImportFrom(names=[alias(name='x')], level=4)");
  EXPECT_EQ(dumpStmt("import torch"), "Import(names=[alias(name='torch')])");
  EXPECT_EQ(dumpStmt("from triton import language as tl"),
            "ImportFrom(module='triton', names=[alias(name='language', asname='tl')], level=0)");
}

TEST(PyStmt, IfWhileFor) {
  EXPECT_EQ(dumpStmt("if a:\n    pass\nelif b:\n    x\nelse:\n    y\n"),
            "If(test=Name(id='a', ctx=Load()), body=[Pass()], orelse=[If(test=Name(id='b', ctx=Load()), "
            "body=[Expr(value=Name(id='x', ctx=Load()))], orelse=[Expr(value=Name(id='y', ctx=Load()))])])");
  EXPECT_EQ(dumpStmt("while x: x -= 1\nelse: pass"),
            "While(test=Name(id='x', ctx=Load()), body=[AugAssign(target=Name(id='x', ctx=Store()), op=Sub(), "
            "value=Constant(value=1))], orelse=[Pass()])");
  EXPECT_EQ(dumpStmt("for i, (j, k) in z:\n  break\nelse:\n  pass\n"),
            "For(target=Tuple(elts=[Name(id='i', ctx=Store()), Tuple(elts=[Name(id='j', ctx=Store()), "
            "Name(id='k', ctx=Store())], ctx=Store())], ctx=Store()), iter=Name(id='z', ctx=Load()), "
            "body=[Break()], orelse=[Pass()])");
  EXPECT_EQ(dumpStmt("for x in 1, 2: continue"),
            "For(target=Name(id='x', ctx=Store()), iter=Tuple(elts=[Constant(value=1), Constant(value=2)], "
            "ctx=Load()), body=[Continue()], orelse=[])");
  EXPECT_EQ(dumpStmt("if (n := f()) > 1: pass"),
            "If(test=Compare(left=NamedExpr(target=Name(id='n', ctx=Store()), value=Call(func=Name(id='f', "
            "ctx=Load()), args=[], keywords=[])), ops=[Gt()], comparators=[Constant(value=1)]), "
            "body=[Pass()], orelse=[])");
}

TEST(PyStmt, TryAndWith) {
  EXPECT_EQ(dumpStmt("try:\n  f()\nexcept ValueError as e:\n  raise X from e\nexcept (A, B):\n  pass\n"
                     "except:\n  raise\nelse:\n  y\nfinally:\n  z\n"),
            "Try(body=[Expr(value=Call(func=Name(id='f', ctx=Load()), args=[], keywords=[]))], "
            "handlers=[ExceptHandler(type=Name(id='ValueError', ctx=Load()), name='e', body=[Raise("
            "exc=Name(id='X', ctx=Load()), cause=Name(id='e', ctx=Load()))]), ExceptHandler(type=Tuple("
            "elts=[Name(id='A', ctx=Load()), Name(id='B', ctx=Load())], ctx=Load()), body=[Pass()]), "
            "ExceptHandler(body=[Raise()])], orelse=[Expr(value=Name(id='y', ctx=Load()))], "
            "finalbody=[Expr(value=Name(id='z', ctx=Load()))])");
  EXPECT_EQ(dumpStmt("try:\n  pass\nexcept* E:\n  pass\n"),
            "TryStar(body=[Pass()], handlers=[ExceptHandler(type=Name(id='E', ctx=Load()), body=[Pass()])], "
            "orelse=[], finalbody=[])");
  EXPECT_EQ(dumpStmt("try: pass\nfinally: pass"), "Try(body=[Pass()], handlers=[], orelse=[], finalbody=[Pass()])");
  EXPECT_EQ(dumpStmt("with open(f) as g, h: pass"),
            "With(items=[withitem(context_expr=Call(func=Name(id='open', ctx=Load()), args=[Name(id='f', "
            "ctx=Load())], keywords=[]), optional_vars=Name(id='g', ctx=Store())), withitem(context_expr="
            "Name(id='h', ctx=Load()))], body=[Pass()])");
  EXPECT_EQ(dumpStmt("with (a as b, c as d,):\n  pass\n"),
            "With(items=[withitem(context_expr=Name(id='a', ctx=Load()), optional_vars=Name(id='b', "
            "ctx=Store())), withitem(context_expr=Name(id='c', ctx=Load()), optional_vars=Name(id='d', "
            "ctx=Store()))], body=[Pass()])");
  EXPECT_EQ(dumpStmt("with (a, b) as c: pass"),
            "With(items=[withitem(context_expr=Tuple(elts=[Name(id='a', ctx=Load()), Name(id='b', "
            "ctx=Load())], ctx=Load()), optional_vars=Name(id='c', ctx=Store()))], body=[Pass()])");
  EXPECT_EQ(dumpStmt("with a as (b, c): pass"),
            "With(items=[withitem(context_expr=Name(id='a', ctx=Load()), optional_vars=Tuple(elts=[Name("
            "id='b', ctx=Store()), Name(id='c', ctx=Store())], ctx=Store()))], body=[Pass()])");
}

TEST(PyStmt, FunctionsAndClasses) {
  EXPECT_EQ(dumpStmt("def f(a, b: int = 1, /, c=2, *args: int, d, e=3, **kw) -> int:\n    return a\n"),
            "FunctionDef(name='f', args=arguments(posonlyargs=[arg(arg='a'), arg(arg='b', annotation="
            "Name(id='int', ctx=Load()))], args=[arg(arg='c')], vararg=arg(arg='args', annotation=Name("
            "id='int', ctx=Load())), kwonlyargs=[arg(arg='d'), arg(arg='e')], kw_defaults=[None, "
            "Constant(value=3)], kwarg=arg(arg='kw'), defaults=[Constant(value=1), Constant(value=2)]), "
            "body=[Return(value=Name(id='a', ctx=Load()))], decorator_list=[], returns=Name(id='int', "
            "ctx=Load()), type_params=[])");
  EXPECT_EQ(dumpStmt("@dec\n@dec2(1)\nclass A(B, metaclass=M):\n    x: int = 1\n"),
            "ClassDef(name='A', bases=[Name(id='B', ctx=Load())], keywords=[keyword(arg='metaclass', "
            "value=Name(id='M', ctx=Load()))], body=[AnnAssign(target=Name(id='x', ctx=Store()), "
            "annotation=Name(id='int', ctx=Load()), value=Constant(value=1), simple=1)], decorator_list=["
            "Name(id='dec', ctx=Load()), Call(func=Name(id='dec2', ctx=Load()), args=[Constant(value=1)], "
            "keywords=[])], type_params=[])");
  EXPECT_EQ(dumpStmt("async def f():\n  async with a as b:\n    async for x in y:\n      await x\n"),
            std::string("AsyncFunctionDef(name='f', args=") + kNoArgs +
                ", body=[AsyncWith(items=[withitem(context_expr=Name(id='a', ctx=Load()), optional_vars="
                "Name(id='b', ctx=Store()))], body=[AsyncFor(target=Name(id='x', ctx=Store()), iter=Name("
                "id='y', ctx=Load()), body=[Expr(value=Await(value=Name(id='x', ctx=Load())))], orelse=[])])], "
                "decorator_list=[], type_params=[])");
  EXPECT_EQ(dumpStmt("def g():\n  yield from x\n  return\n"),
            std::string("FunctionDef(name='g', args=") + kNoArgs +
                ", body=[Expr(value=YieldFrom(value=Name(id='x', ctx=Load()))), Return()], decorator_list=[], "
                "type_params=[])");
  EXPECT_EQ(dumpStmt("class A: pass"),
            "ClassDef(name='A', bases=[], keywords=[], body=[Pass()], decorator_list=[], type_params=[])");
  EXPECT_EQ(dumpStmt("def f(*args: *Ts): pass"),
            "FunctionDef(name='f', args=arguments(posonlyargs=[], args=[], vararg=arg(arg='args', annotation="
            "Starred(value=Name(id='Ts', ctx=Load()), ctx=Load())), kwonlyargs=[], kw_defaults=[], "
            "defaults=[]), body=[Pass()], decorator_list=[], type_params=[])");
}

TEST(PyStmt, TypeParamsAndTypeAlias) {
  EXPECT_EQ(dumpStmt("def f[T: int, *Ts, **P](x: T) -> T: pass"),
            "FunctionDef(name='f', args=arguments(posonlyargs=[], args=[arg(arg='x', annotation=Name(id='T', "
            "ctx=Load()))], kwonlyargs=[], kw_defaults=[], defaults=[]), body=[Pass()], decorator_list=[], "
            "returns=Name(id='T', ctx=Load()), type_params=[TypeVar(name='T', bound=Name(id='int', "
            "ctx=Load())), TypeVarTuple(name='Ts'), ParamSpec(name='P')])");
  EXPECT_EQ(dumpStmt("class A[T](B): pass"),
            "ClassDef(name='A', bases=[Name(id='B', ctx=Load())], keywords=[], body=[Pass()], "
            "decorator_list=[], type_params=[TypeVar(name='T')])");
  EXPECT_EQ(dumpStmt("type X = int | None"),
            "TypeAlias(name=Name(id='X', ctx=Store()), type_params=[], value=BinOp(left=Name(id='int', "
            "ctx=Load()), op=BitOr(), right=Constant(value=None)))");
  EXPECT_EQ(dumpStmt("type L[T] = list[T]"),
            "TypeAlias(name=Name(id='L', ctx=Store()), type_params=[TypeVar(name='T')], value=Subscript("
            "value=Name(id='list', ctx=Load()), slice=Name(id='T', ctx=Load()), ctx=Load()))");
  // `type` stays a plain name elsewhere.
  EXPECT_EQ(dumpStmt("type = 5"), "Assign(targets=[Name(id='type', ctx=Store())], value=Constant(value=5))");
  EXPECT_EQ(dumpStmt("type(x)"),
            "Expr(value=Call(func=Name(id='type', ctx=Load()), args=[Name(id='x', ctx=Load())], keywords=[]))");
}

TEST(PyStmt, Match) {
  EXPECT_EQ(dumpStmt("match x:\n  case [a, *rest]:\n    pass\n  case Point(1, y=var) if var > 2:\n    pass\n"
                     "  case {'k': v, **kw}:\n    pass\n  case (1 | 2) as n:\n    pass\n  case _:\n    pass\n"),
            "Match(subject=Name(id='x', ctx=Load()), cases=[match_case(pattern=MatchSequence(patterns=["
            "MatchAs(name='a'), MatchStar(name='rest')]), body=[Pass()]), match_case(pattern=MatchClass(cls="
            "Name(id='Point', ctx=Load()), patterns=[MatchValue(value=Constant(value=1))], kwd_attrs=['y'], "
            "kwd_patterns=[MatchAs(name='var')]), guard=Compare(left=Name(id='var', ctx=Load()), ops=[Gt()], "
            "comparators=[Constant(value=2)]), body=[Pass()]), match_case(pattern=MatchMapping(keys=["
            "Constant(value='k')], patterns=[MatchAs(name='v')], rest='kw'), body=[Pass()]), match_case("
            "pattern=MatchAs(pattern=MatchOr(patterns=[MatchValue(value=Constant(value=1)), MatchValue(value="
            "Constant(value=2))]), name='n'), body=[Pass()]), match_case(pattern=MatchAs(), body=[Pass()])])");
  EXPECT_EQ(dumpStmt("match a, b:\n  case -1 | 2+3j, *_: pass\n").substr(0, 40),
            "Match(subject=Tuple(elts=[Name(id='a', c");
  EXPECT_EQ(dumpStmt("match p:\n  case -1-2j | None | a.b: pass\n"),
            "Match(subject=Name(id='p', ctx=Load()), cases=[match_case(pattern=MatchOr(patterns=[MatchValue("
            "value=BinOp(left=UnaryOp(op=USub(), operand=Constant(value=1)), op=Sub(), right=Constant("
            "value=2j))), MatchSingleton(value=None), MatchValue(value=Attribute(value=Name(id='a', "
            "ctx=Load()), attr='b', ctx=Load()))]), body=[Pass()])])");
  EXPECT_EQ(dumpStmt("match x:\n  case (): pass\n  case [y]: pass\n"),
            "Match(subject=Name(id='x', ctx=Load()), cases=[match_case(pattern=MatchSequence(patterns=[]), "
            "body=[Pass()]), match_case(pattern=MatchSequence(patterns=[MatchAs(name='y')]), body=[Pass()])])");
  // `match` remains usable as a name.
  EXPECT_EQ(dumpStmt("match = 1"), "Assign(targets=[Name(id='match', ctx=Store())], value=Constant(value=1))");
  EXPECT_EQ(dumpStmt("match(x)"),
            "Expr(value=Call(func=Name(id='match', ctx=Load()), args=[Name(id='x', ctx=Load())], keywords=[]))");
  EXPECT_EQ(dumpStmt("match.group(1)").substr(0, 36), "Expr(value=Call(func=Attribute(value");
}

TEST(PyStmt, LineStructure) {
  EXPECT_EQ(dumpModule("x = [\n    1,\n    2,  # two\n]\n"),
            "Module(body=[Assign(targets=[Name(id='x', ctx=Store())], value=List(elts=[Constant(value=1), "
            "Constant(value=2)], ctx=Load()))], type_ignores=[])");
  EXPECT_EQ(dumpModule("x = 1 + \\\n    2\n"),
            "Module(body=[Assign(targets=[Name(id='x', ctx=Store())], value=BinOp(left=Constant(value=1), "
            "op=Add(), right=Constant(value=2)))], type_ignores=[])");
  EXPECT_EQ(dumpModule("if a:\n\tif b:\n\t\tx\n\n  # odd comment\n\ty\nz\n"),
            "Module(body=[If(test=Name(id='a', ctx=Load()), body=[If(test=Name(id='b', ctx=Load()), body=["
            "Expr(value=Name(id='x', ctx=Load()))], orelse=[]), Expr(value=Name(id='y', ctx=Load()))], "
            "orelse=[]), Expr(value=Name(id='z', ctx=Load()))], type_ignores=[])");
  EXPECT_EQ(dumpModule("x = 1\r\ny = 2\r\n"),
            "Module(body=[Assign(targets=[Name(id='x', ctx=Store())], value=Constant(value=1)), Assign("
            "targets=[Name(id='y', ctx=Store())], value=Constant(value=2))], type_ignores=[])");
  EXPECT_EQ(dumpModule("'''doc\nstring'''\n"),
            "Module(body=[Expr(value=Constant(value='doc\\nstring'))], type_ignores=[])");
}

TEST(PyStmt, Positions) {
  auto m = parseModule(source("def f(x):\n    if x:\n        return x + 1\n    return 0\n"));
  auto* f = m->body[0]->as<FunctionDef>();
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->line, 1);
  EXPECT_EQ(f->col, 1);
  EXPECT_EQ(f->endLine, 4);
  EXPECT_EQ(f->endCol, 13);
  EXPECT_EQ(f->sourceText, "def f(x):\n    if x:\n        return x + 1\n    return 0");
  EXPECT_EQ(f->args.args[0].col, 7);
  auto* ifs = f->body[0]->as<If>();
  ASSERT_NE(ifs, nullptr);
  EXPECT_EQ(ifs->line, 2);
  EXPECT_EQ(ifs->col, 5);
  EXPECT_EQ(ifs->endLine, 3);
  auto* ret = ifs->body[0]->as<Return>();
  EXPECT_EQ(ret->line, 3);
  EXPECT_EQ(ret->col, 9);
  auto* add = ret->value->as<BinOp>();
  EXPECT_EQ(add->col, 16);
  EXPECT_EQ(add->endCol, 21);
  EXPECT_EQ(add->right->col, 20);
  // Decorators are excluded from the definition's position and source text.
  auto m2 = parseModule(source("@triton.jit\ndef k(x):\n    pass\n"));
  auto* k = m2->body[0]->as<FunctionDef>();
  EXPECT_EQ(k->line, 2);
  EXPECT_EQ(k->decorators[0]->line, 1);
  EXPECT_EQ(k->decorators[0]->col, 2);
  EXPECT_EQ(k->sourceText, "def k(x):\n    pass");
}

}  // namespace
}  // namespace tessera::py::test
