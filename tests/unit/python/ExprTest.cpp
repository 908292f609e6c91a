//===- ExprTest.cpp - Expressions through ast.dump --------------*- C++ -*-===//
//
// Every expression form, compared with the string CPython 3.12's ast.dump
// gives for the same source (written out by hand).
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include "ParserTestUtil.h"

namespace tessera::py::test {
namespace {

TEST(PyExpr, NamesAndConstants) {
  EXPECT_EQ(dumpExpr("x"), "Name(id='x', ctx=Load())");
  EXPECT_EQ(dumpExpr("None"), "Constant(value=None)");
  EXPECT_EQ(dumpExpr("True"), "Constant(value=True)");
  EXPECT_EQ(dumpExpr("False"), "Constant(value=False)");
  EXPECT_EQ(dumpExpr("..."), "Constant(value=Ellipsis)");
  EXPECT_EQ(dumpExpr("print"), "Name(id='print', ctx=Load())");
  EXPECT_EQ(dumpExpr("match"), "Name(id='match', ctx=Load())");
}

TEST(PyExpr, Numbers) {
  EXPECT_EQ(dumpExpr("42"), "Constant(value=42)");
  EXPECT_EQ(dumpExpr("1_000_000"), "Constant(value=1000000)");
  EXPECT_EQ(dumpExpr("0xff"), "Constant(value=255)");
  EXPECT_EQ(dumpExpr("0X_FF"), "Constant(value=255)");
  EXPECT_EQ(dumpExpr("0o17"), "Constant(value=15)");
  EXPECT_EQ(dumpExpr("0b1010"), "Constant(value=10)");
  EXPECT_EQ(dumpExpr("0"), "Constant(value=0)");
  EXPECT_EQ(dumpExpr("00"), "Constant(value=0)");
  EXPECT_EQ(dumpExpr("1.5"), "Constant(value=1.5)");
  EXPECT_EQ(dumpExpr(".5"), "Constant(value=0.5)");
  EXPECT_EQ(dumpExpr("5."), "Constant(value=5.0)");
  EXPECT_EQ(dumpExpr("1e10"), "Constant(value=10000000000.0)");
  EXPECT_EQ(dumpExpr("1E16"), "Constant(value=1e+16)");
  EXPECT_EQ(dumpExpr("1.5e-3"), "Constant(value=0.0015)");
  EXPECT_EQ(dumpExpr("1e-5"), "Constant(value=1e-05)");
  EXPECT_EQ(dumpExpr("0.0001"), "Constant(value=0.0001)");
  EXPECT_EQ(dumpExpr("1e400"), "Constant(value=inf)");
  EXPECT_EQ(dumpExpr("2j"), "Constant(value=2j)");
  EXPECT_EQ(dumpExpr("1.5J"), "Constant(value=1.5j)");
  EXPECT_EQ(dumpExpr("9223372036854775807"), "Constant(value=9223372036854775807)");
}

TEST(PyExpr, BigIntegersKeepDecimalText) {
  auto e = parseExpression(source("9223372036854775808"));
  auto* c = e->as<Constant>();
  ASSERT_TRUE(c && c->bigInt);
  EXPECT_EQ(*c->bigInt, "9223372036854775808");
  EXPECT_EQ(dumpExpr("123456789012345678901234567890"), "Constant(value=123456789012345678901234567890)");
  // 2**80 - 1 and 2**64 in other bases, converted to decimal.
  EXPECT_EQ(dumpExpr("0xFFFFFFFFFFFFFFFFFFFF"), "Constant(value=1208925819614629174706175)");
  EXPECT_EQ(dumpExpr("0o2000000000000000000000"), "Constant(value=18446744073709551616)");
  EXPECT_EQ(dumpExpr("0b1" + std::string(64, '0')), "Constant(value=18446744073709551616)");
}

TEST(PyExpr, HugeRadixLiteralsParseInLinearTime) {
  // Converting 128k hex digits to decimal took ~10 s (quadratic); a million
  // would run past ctest's limit. Beyond what a constexpr can hold the
  // literal keeps its text, with its leading zeros dropped.
  std::string hex = "0x000" + std::string(1 << 20, 'f');
  auto e = parseExpression(source(hex));
  auto* c = e->as<Constant>();
  ASSERT_TRUE(c && c->bigInt);
  EXPECT_EQ(c->bigInt->size(), (1u << 20) + 2);
  EXPECT_EQ(c->bigInt->substr(0, 4), "0xff");
  EXPECT_EQ(dumpExpr("0b" + std::string(1 << 20, '1')).substr(0, 20), "Constant(value=0b111");
  EXPECT_EQ(dumpExpr("0o7" + std::string(1 << 20, '0')).substr(0, 20), "Constant(value=0o700");
  // At the edge: 1050 hex digits (4200 bits) still become decimal text.
  std::string edge = dumpExpr("0x1" + std::string(1049, '0'));
  EXPECT_EQ(edge.find("0x"), std::string::npos) << edge.substr(0, 40);
}

TEST(PyExpr, Strings) {
  EXPECT_EQ(dumpExpr("'abc'"), "Constant(value='abc')");
  EXPECT_EQ(dumpExpr("\"it's\""), "Constant(value=\"it's\")");
  EXPECT_EQ(dumpExpr("'a\\tb\\n'"), "Constant(value='a\\tb\\n')");
  EXPECT_EQ(dumpExpr("'\\x41\\101\\u00e9\\U0001F600'"), "Constant(value='AAé😀')");
  EXPECT_EQ(dumpExpr("r'\\d+\\n'"), "Constant(value='\\\\d+\\\\n')");
  EXPECT_EQ(dumpExpr("'a' 'b' \"c\""), "Constant(value='abc')");
  EXPECT_EQ(dumpExpr("u'x' R'y'"), "Constant(value='xy')");
  EXPECT_EQ(dumpExpr("b'ab\\x00\\xff'"), "Constant(value=b'ab\\x00\\xff')");
  EXPECT_EQ(dumpExpr("Rb'\\n' bR'x'"), "Constant(value=b'\\\\nx')");
  EXPECT_EQ(dumpExpr("'''one\ntwo'''"), "Constant(value='one\\ntwo')");
  EXPECT_EQ(dumpExpr("'a\\\nb'"), "Constant(value='ab')");
  EXPECT_EQ(dumpExpr("'\\q'"), "Constant(value='\\\\q')");
  EXPECT_EQ(dumpExpr("'é'"), "Constant(value='é')");
}

TEST(PyExpr, FStrings) {
  EXPECT_EQ(dumpExpr("f'a{b}c'"),
            "JoinedStr(values=[Constant(value='a'), FormattedValue(value=Name(id='b', ctx=Load()), "
            "conversion=-1), Constant(value='c')])");
  EXPECT_EQ(dumpExpr("f'{x!r:>{w}}'"),
            "JoinedStr(values=[FormattedValue(value=Name(id='x', ctx=Load()), conversion=114, "
            "format_spec=JoinedStr(values=[Constant(value='>'), FormattedValue(value=Name(id='w', "
            "ctx=Load()), conversion=-1), Constant(value='')]))])");
  EXPECT_EQ(dumpExpr("f'{x=}'"),
            "JoinedStr(values=[Constant(value='x='), FormattedValue(value=Name(id='x', ctx=Load()), "
            "conversion=114)])");
  EXPECT_EQ(dumpExpr("f'{x = :.2f}'"),
            "JoinedStr(values=[Constant(value='x = '), FormattedValue(value=Name(id='x', ctx=Load()), "
            "conversion=-1, format_spec=JoinedStr(values=[Constant(value='.2f')]))])");
  EXPECT_EQ(dumpExpr("f'{{}}{a!s}{b!a}'"),
            "JoinedStr(values=[Constant(value='{}'), FormattedValue(value=Name(id='a', ctx=Load()), "
            "conversion=115), FormattedValue(value=Name(id='b', ctx=Load()), conversion=97)])");
  EXPECT_EQ(dumpExpr("'a' f'b{c}' 'd'"),
            "JoinedStr(values=[Constant(value='ab'), FormattedValue(value=Name(id='c', ctx=Load()), "
            "conversion=-1), Constant(value='d')])");
  EXPECT_EQ(dumpExpr("f''"), "JoinedStr(values=[])");
  EXPECT_EQ(dumpExpr("f'{x:}'"),
            "JoinedStr(values=[FormattedValue(value=Name(id='x', ctx=Load()), conversion=-1, "
            "format_spec=JoinedStr(values=[]))])");
  EXPECT_EQ(dumpExpr("f'{a[\"k\"]}'"),
            "JoinedStr(values=[FormattedValue(value=Subscript(value=Name(id='a', ctx=Load()), "
            "slice=Constant(value='k'), ctx=Load()), conversion=-1)])");
  // PEP 701: the same quote may be reused inside a field.
  EXPECT_EQ(dumpExpr("f\"{x + \"s\"}\""),
            "JoinedStr(values=[FormattedValue(value=BinOp(left=Name(id='x', ctx=Load()), op=Add(), "
            "right=Constant(value='s')), conversion=-1)])");
  EXPECT_EQ(dumpExpr("f'{a:{b}{c}}'"),
            "JoinedStr(values=[FormattedValue(value=Name(id='a', ctx=Load()), conversion=-1, "
            "format_spec=JoinedStr(values=[FormattedValue(value=Name(id='b', ctx=Load()), conversion=-1), "
            "FormattedValue(value=Name(id='c', ctx=Load()), conversion=-1), Constant(value='')]))])");
  EXPECT_EQ(dumpExpr("f'{a != b}'"),
            "JoinedStr(values=[FormattedValue(value=Compare(left=Name(id='a', ctx=Load()), ops=[NotEq()], "
            "comparators=[Name(id='b', ctx=Load())]), conversion=-1)])");
  EXPECT_EQ(dumpExpr("rf'\\d{x}'"),
            "JoinedStr(values=[Constant(value='\\\\d'), FormattedValue(value=Name(id='x', ctx=Load()), "
            "conversion=-1)])");
  EXPECT_EQ(dumpExpr("f'{f\"{1}\"}'"),
            "JoinedStr(values=[FormattedValue(value=JoinedStr(values=[FormattedValue(value=Constant(value=1), "
            "conversion=-1)]), conversion=-1)])");
}

TEST(PyExpr, Operators) {
  EXPECT_EQ(dumpExpr("a + b * c"),
            "BinOp(left=Name(id='a', ctx=Load()), op=Add(), right=BinOp(left=Name(id='b', ctx=Load()), "
            "op=Mult(), right=Name(id='c', ctx=Load())))");
  EXPECT_EQ(dumpExpr("a - b - c"),
            "BinOp(left=BinOp(left=Name(id='a', ctx=Load()), op=Sub(), right=Name(id='b', ctx=Load())), "
            "op=Sub(), right=Name(id='c', ctx=Load()))");
  EXPECT_EQ(dumpExpr("a ** b ** c"),
            "BinOp(left=Name(id='a', ctx=Load()), op=Pow(), right=BinOp(left=Name(id='b', ctx=Load()), "
            "op=Pow(), right=Name(id='c', ctx=Load())))");
  EXPECT_EQ(dumpExpr("-a ** -b"),
            "UnaryOp(op=USub(), operand=BinOp(left=Name(id='a', ctx=Load()), op=Pow(), "
            "right=UnaryOp(op=USub(), operand=Name(id='b', ctx=Load()))))");
  EXPECT_EQ(dumpExpr("~a // b % c @ d"),
            "BinOp(left=BinOp(left=BinOp(left=UnaryOp(op=Invert(), operand=Name(id='a', ctx=Load())), "
            "op=FloorDiv(), right=Name(id='b', ctx=Load())), op=Mod(), right=Name(id='c', ctx=Load())), "
            "op=MatMult(), right=Name(id='d', ctx=Load()))");
  EXPECT_EQ(dumpExpr("a << 1 | b >> 2 & c ^ d"),
                "BinOp(left=BinOp(left=Name(id='a', ctx=Load()), op=LShift(), right=Constant(value=1)), "
                "op=BitOr(), right=BinOp(left=BinOp(left=BinOp(left=Name(id='b', ctx=Load()), op=RShift(), "
                "right=Constant(value=2)), op=BitAnd(), right=Name(id='c', ctx=Load())), op=BitXor(), "
                "right=Name(id='d', ctx=Load())))");
  EXPECT_EQ(dumpExpr("+a / b"),
            "BinOp(left=UnaryOp(op=UAdd(), operand=Name(id='a', ctx=Load())), op=Div(), "
            "right=Name(id='b', ctx=Load()))");
}

TEST(PyExpr, BooleanAndComparison) {
  EXPECT_EQ(dumpExpr("not a and b or c"),
            "BoolOp(op=Or(), values=[BoolOp(op=And(), values=[UnaryOp(op=Not(), operand=Name(id='a', "
            "ctx=Load())), Name(id='b', ctx=Load())]), Name(id='c', ctx=Load())])");
  EXPECT_EQ(dumpExpr("a and b and c"),
            "BoolOp(op=And(), values=[Name(id='a', ctx=Load()), Name(id='b', ctx=Load()), "
            "Name(id='c', ctx=Load())])");
  EXPECT_EQ(dumpExpr("a < b <= c"),
            "Compare(left=Name(id='a', ctx=Load()), ops=[Lt(), LtE()], comparators=[Name(id='b', "
            "ctx=Load()), Name(id='c', ctx=Load())])");
  EXPECT_EQ(dumpExpr("a is not b not in c"),
            "Compare(left=Name(id='a', ctx=Load()), ops=[IsNot(), NotIn()], comparators=[Name(id='b', "
            "ctx=Load()), Name(id='c', ctx=Load())])");
  EXPECT_EQ(dumpExpr("a == b != c > d >= e is f in g"),
            "Compare(left=Name(id='a', ctx=Load()), ops=[Eq(), NotEq(), Gt(), GtE(), Is(), In()], "
            "comparators=[Name(id='b', ctx=Load()), Name(id='c', ctx=Load()), Name(id='d', ctx=Load()), "
            "Name(id='e', ctx=Load()), Name(id='f', ctx=Load()), Name(id='g', ctx=Load())])");
  EXPECT_EQ(dumpExpr("a if b else c if d else e"),
            "IfExp(test=Name(id='b', ctx=Load()), body=Name(id='a', ctx=Load()), orelse=IfExp(test=Name("
            "id='d', ctx=Load()), body=Name(id='c', ctx=Load()), orelse=Name(id='e', ctx=Load())))");
  EXPECT_EQ(dumpExpr("(n := 10)"),
            "NamedExpr(target=Name(id='n', ctx=Store()), value=Constant(value=10))");
}

TEST(PyExpr, CallsAttributesSubscripts) {
  EXPECT_EQ(dumpExpr("f(a, *b, c=1, *d, **e)"),
            "Call(func=Name(id='f', ctx=Load()), args=[Name(id='a', ctx=Load()), Starred(value=Name(id='b', "
            "ctx=Load()), ctx=Load()), Starred(value=Name(id='d', ctx=Load()), ctx=Load())], "
            "keywords=[keyword(arg='c', value=Constant(value=1)), keyword(value=Name(id='e', ctx=Load()))])");
  EXPECT_EQ(dumpExpr("f(x for x in y)"),
            "Call(func=Name(id='f', ctx=Load()), args=[GeneratorExp(elt=Name(id='x', ctx=Load()), "
            "generators=[comprehension(target=Name(id='x', ctx=Store()), iter=Name(id='y', ctx=Load()), "
            "ifs=[], is_async=0)])], keywords=[])");
  EXPECT_EQ(dumpExpr("a.b(c)[d].e"),
            "Attribute(value=Subscript(value=Call(func=Attribute(value=Name(id='a', ctx=Load()), attr='b', "
            "ctx=Load()), args=[Name(id='c', ctx=Load())], keywords=[]), slice=Name(id='d', ctx=Load()), "
            "ctx=Load()), attr='e', ctx=Load())");
  EXPECT_EQ(dumpExpr("a[1:2, ::3, 4]"),
            "Subscript(value=Name(id='a', ctx=Load()), slice=Tuple(elts=[Slice(lower=Constant(value=1), "
            "upper=Constant(value=2)), Slice(step=Constant(value=3)), Constant(value=4)], ctx=Load()), "
            "ctx=Load())");
  EXPECT_EQ(dumpExpr("a[:]"), "Subscript(value=Name(id='a', ctx=Load()), slice=Slice(), ctx=Load())");
  EXPECT_EQ(dumpExpr("a[None, :]"),
            "Subscript(value=Name(id='a', ctx=Load()), slice=Tuple(elts=[Constant(value=None), Slice()], "
            "ctx=Load()), ctx=Load())");
  EXPECT_EQ(dumpExpr("a[*b]"),
            "Subscript(value=Name(id='a', ctx=Load()), slice=Tuple(elts=[Starred(value=Name(id='b', "
            "ctx=Load()), ctx=Load())], ctx=Load()), ctx=Load())");
  EXPECT_EQ(dumpExpr("a[b:=1]"),
            "Subscript(value=Name(id='a', ctx=Load()), slice=NamedExpr(target=Name(id='b', ctx=Store()), "
            "value=Constant(value=1)), ctx=Load())");
  EXPECT_EQ(dumpExpr("await x"), "Await(value=Name(id='x', ctx=Load()))");
  EXPECT_EQ(dumpExpr("f()"), "Call(func=Name(id='f', ctx=Load()), args=[], keywords=[])");
}

TEST(PyExpr, Displays) {
  EXPECT_EQ(dumpExpr("()"), "Tuple(elts=[], ctx=Load())");
  EXPECT_EQ(dumpExpr("(1,)"), "Tuple(elts=[Constant(value=1)], ctx=Load())");
  EXPECT_EQ(dumpExpr("1, 2"), "Tuple(elts=[Constant(value=1), Constant(value=2)], ctx=Load())");
  EXPECT_EQ(dumpExpr("(1)"), "Constant(value=1)");
  EXPECT_EQ(dumpExpr("[1, *a,]"),
            "List(elts=[Constant(value=1), Starred(value=Name(id='a', ctx=Load()), ctx=Load())], ctx=Load())");
  EXPECT_EQ(dumpExpr("{}"), "Dict(keys=[], values=[])");
  EXPECT_EQ(dumpExpr("{'a': 1, **b}"),
            "Dict(keys=[Constant(value='a'), None], values=[Constant(value=1), Name(id='b', ctx=Load())])");
  EXPECT_EQ(dumpExpr("{**b}"), "Dict(keys=[None], values=[Name(id='b', ctx=Load())])");
  EXPECT_EQ(dumpExpr("{1, 2}"), "Set(elts=[Constant(value=1), Constant(value=2)])");
  EXPECT_EQ(dumpExpr("[x for x in y if x if z for w in x]"),
            "ListComp(elt=Name(id='x', ctx=Load()), generators=[comprehension(target=Name(id='x', "
            "ctx=Store()), iter=Name(id='y', ctx=Load()), ifs=[Name(id='x', ctx=Load()), Name(id='z', "
            "ctx=Load())], is_async=0), comprehension(target=Name(id='w', ctx=Store()), iter=Name(id='x', "
            "ctx=Load()), ifs=[], is_async=0)])");
  EXPECT_EQ(dumpExpr("{k: v for k, v in d}"),
            "DictComp(key=Name(id='k', ctx=Load()), value=Name(id='v', ctx=Load()), "
            "generators=[comprehension(target=Tuple(elts=[Name(id='k', ctx=Store()), Name(id='v', "
            "ctx=Store())], ctx=Store()), iter=Name(id='d', ctx=Load()), ifs=[], is_async=0)])");
  EXPECT_EQ(dumpExpr("{x async for x in y}"),
            "SetComp(elt=Name(id='x', ctx=Load()), generators=[comprehension(target=Name(id='x', "
            "ctx=Store()), iter=Name(id='y', ctx=Load()), ifs=[], is_async=1)])");
  EXPECT_EQ(dumpExpr("(x for x in (a if b else c))").substr(0, 12), "GeneratorExp");
}

TEST(PyExpr, LambdaAndYield) {
  EXPECT_EQ(dumpExpr("lambda: 0"),
            "Lambda(args=arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]), "
            "body=Constant(value=0))");
  EXPECT_EQ(dumpExpr("lambda a, /, b=1, *c, d, e=2, **f: a"),
            "Lambda(args=arguments(posonlyargs=[arg(arg='a')], args=[arg(arg='b')], vararg=arg(arg='c'), "
            "kwonlyargs=[arg(arg='d'), arg(arg='e')], kw_defaults=[None, Constant(value=2)], "
            "kwarg=arg(arg='f'), defaults=[Constant(value=1)]), body=Name(id='a', ctx=Load()))");
  EXPECT_EQ(dumpExpr("lambda *, k: k"),
            "Lambda(args=arguments(posonlyargs=[], args=[], kwonlyargs=[arg(arg='k')], kw_defaults=[None], "
            "defaults=[]), body=Name(id='k', ctx=Load()))");
  EXPECT_EQ(dumpExpr("(yield)"), "Yield()");
  EXPECT_EQ(dumpExpr("(yield a, b)"),
            "Yield(value=Tuple(elts=[Name(id='a', ctx=Load()), Name(id='b', ctx=Load())], ctx=Load()))");
  EXPECT_EQ(dumpExpr("(yield from g)"), "YieldFrom(value=Name(id='g', ctx=Load()))");
}

TEST(PyExpr, Positions) {
  auto e = parseExpression(source("foo(a, bb.c)"));
  auto* call = e->as<Call>();
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->line, 1);
  EXPECT_EQ(call->col, 1);
  EXPECT_EQ(call->endCol, 13);
  auto* attr = call->args[1]->as<Attribute>();
  ASSERT_NE(attr, nullptr);
  EXPECT_EQ(attr->col, 8);
  EXPECT_EQ(attr->endCol, 12);
  auto* base = attr->value->as<Name>();
  EXPECT_EQ(base->col, 8);
  EXPECT_EQ(base->endCol, 10);
  // Columns count UTF-8 bytes: 'é' is two bytes.
  auto e2 = parseExpression(source("'é' + x"));
  auto* bin = e2->as<BinOp>();
  ASSERT_NE(bin, nullptr);
  EXPECT_EQ(bin->right->col, 8);
  // f-string fields keep their real positions.
  auto e3 = parseExpression(source("f'ab{cd}'"));
  auto* js = e3->as<JoinedStr>();
  ASSERT_EQ(js->values.size(), 2u);
  auto* fv = js->values[1]->as<FormattedValue>();
  ASSERT_NE(fv, nullptr);
  EXPECT_EQ(fv->value->col, 6);
  EXPECT_EQ(fv->value->endCol, 8);
}

}  // namespace
}  // namespace tessera::py::test

// A node that starts with a parenthesized operand starts at the '(' (CPython
// 3.12's col_offset + 1; end columns are one past the last character).
TEST(PyExpr, ParenthesizedOperandsStartAtTheParen) {
  using tessera::py::ExprKind;
  struct Case { const char* src; ExprKind kind; int col, endCol; };
  const Case cases[] = {
      {"(a > 3) % b", ExprKind::BinOp, 1, 12},     {"(a).b", ExprKind::Attribute, 1, 6},
      {"(f)(x)", ExprKind::Call, 1, 7},            {"(x)[0]", ExprKind::Subscript, 1, 7},
      {"(a) if c else d", ExprKind::IfExp, 1, 16}, {"(a) or b", ExprKind::BoolOp, 1, 9},
      {"(a) < b", ExprKind::Compare, 1, 8},        {"-(a) ** 2", ExprKind::UnaryOp, 1, 10},
      {"(a) ** 2", ExprKind::BinOp, 1, 9},
  };
  for (const Case& c : cases) {
    tessera::py::ExprPtr e = tessera::py::parseExpression(tessera::py::test::source(c.src));
    SCOPED_TRACE(c.src);
    EXPECT_EQ(e->kind, c.kind);
    EXPECT_EQ(e->col, c.col);
    EXPECT_EQ(e->endCol, c.endCol);
  }
  // The operand inside keeps its own position.
  tessera::py::ExprPtr e = tessera::py::parseExpression(tessera::py::test::source("(a > 3) % b"));
  EXPECT_EQ(e->as<tessera::py::BinOp>()->left->col, 2);
}

// Host-code strings may use \N{NAME}; Tessera accepts the well-formed escape
// without a name table (it never evaluates host strings): U+FFFD stands in.
TEST(PyExpr, NamedUnicodeEscapeIsAccepted) {
  tessera::py::ExprPtr e = tessera::py::parseExpression(tessera::py::test::source("'deg\\N{DEGREE SIGN}C'"));
  const auto* c = e->as<tessera::py::Constant>();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->strValue, "deg\xEF\xBF\xBD" "C");
}
