//===- ParserTest.cpp - Text form: parse, print, round-trip, errors -------===//

#include <gtest/gtest.h>

#include <cmath>

#include "tessera/Error.h"
#include "tessera/ir/Builder.h"

using namespace tessera::ir;

namespace {

std::string roundTrip(std::string_view text) { return print(*parseModule(text, "t.ttir")); }

/// The error message of parsing `text` ("" when it parses).
std::string parseError(std::string_view text) {
  try {
    parseModule(text, "bad.ttir");
  } catch (const tessera::Error& e) {
    return e.what();
  }
  return "";
}

const char* kCanonical =
    "tt.func @kernel(%arg0: !tt.ptr<f32> {divisibility = 16, \"odd key\" = \"v\"}, %arg1: i32) -> (f32) "
    "attributes {kernel = true, noinline = false} {\n"
    "  %0 = tt.get_program_id {axis = 0} : i32\n"
    "  %1 = arith.constant {value = 1.5} : f32\n"
    "  %2 = arith.constant {value = 0} : i32\n"
    "  %3:2 = scf.for %2, %arg1, %0, %1, %1 : f32, f32 {\n"
    "  ^bb0(%arg2: i32, %arg3: f32, %arg4: f32):\n"
    "    %4 = arith.addf %arg3, %arg4 : f32\n"
    "    scf.yield %4, %arg4\n"
    "  }\n"
    "  %5 = tt.make_range {end = 128, start = 0} : tensor<128xi32>\n"
    "  %6 = tt.splat %arg0 : tensor<128x!tt.ptr<f32>>\n"
    "  %7 = tt.addptr %6, %5 : tensor<128x!tt.ptr<f32>>\n"
    "  %8 = tt.load %7 {cache = \"\", evict = \"evict_last\"} : tensor<128xf32>\n"
    "  %9 = tt.reduce %8 {axis = 0} : f32 {\n"
    "  ^bb0(%arg5: f32, %arg6: f32):\n"
    "    %10 = arith.maxnumf %arg5, %arg6 : f32\n"
    "    tt.reduce.return %10\n"
    "  }\n"
    "  %11 = arith.cmpf %9, %3#0 {predicate = \"olt\"} : i1\n"
    "  scf.if %11 {\n"
    "    gpu.barrier\n"
    "    tt.print %9, %3#1 {hex = false, is_signed = [0, 0], prefix = \"x\\n\\\"\\x01\"}\n"
    "    scf.yield\n"
    "  } {}\n"
    "  tt.return %9\n"
    "}\n"
    "\n"
    "tt.func @decl() -> ()\n"
    "\n"
    "tt.func @empty() {\n"
    "}\n";

TEST(Parser, CanonicalTextRoundTripsExactly) {
  EXPECT_EQ(roundTrip(kCanonical), kCanonical);
  EXPECT_EQ(roundTrip(roundTrip(kCanonical)), kCanonical);
}

TEST(Parser, BuildsTheExpectedStructure) {
  auto m = parseModule(kCanonical);
  ASSERT_EQ(m->functions().size(), 3u);
  Operation* f = m->lookup("kernel");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->intAttr("arg0.divisibility"), 16);
  EXPECT_EQ(f->strAttr("arg0.odd key"), "v");
  EXPECT_TRUE(f->boolAttr("kernel"));
  Block& body = funcBody(f);
  EXPECT_EQ(body.numArguments(), 2u);
  EXPECT_EQ(body.argument(0).type(), Type::pointer(Type::f32()));
  auto ops = body.ops();
  Operation* loop = ops[3];
  ASSERT_TRUE(loop->is(OpCode::For));
  EXPECT_EQ(loop->numResults(), 2u);
  EXPECT_EQ(loop->operand(1), body.argument(1));
  Block& loopBody = loop->region(0).front();
  EXPECT_EQ(loopBody.numArguments(), 3u);
  EXPECT_EQ(loopBody.front()->operand(0), loopBody.argument(1));
  EXPECT_EQ(loopBody.back()->operand(1), loopBody.argument(2));
  Operation* ifOp = ops[10];
  ASSERT_TRUE(ifOp->is(OpCode::If));
  EXPECT_EQ(ifOp->region(1).numBlocks(), 0u);
  Operation* printOp = ifOp->region(0).front().ops()[1];
  EXPECT_EQ(printOp->strAttr("prefix"), "x\n\"\x01");
  EXPECT_EQ(printOp->operand(1), loop->result(1));
  EXPECT_TRUE(m->lookup("decl")->region(0).empty());
  EXPECT_EQ(m->lookup("empty")->region(0).front().size(), 0u);
  // Ops get their position in the text when no loc(...) is given.
  EXPECT_EQ(ops[1]->loc().line, 3);
  EXPECT_EQ(ops[1]->loc().col, 8);
}

TEST(Parser, HandWrittenNamesAreCanonicalised) {
  const char* text = R"(
    // A comment line.
    tt.func @f(%x: i32, %y: i32) {
      %a, %b = tt.split %j : i32, i32  // invalid types are fine for the parser
      %s = arith.addi %x, %y : i32
      %r:2 = scf.while %s, %x : i32, i32 {
      ^before(%p: i32, %q: i32):
        %c = arith.cmpi %p, %q {predicate = "slt"} : i1
        scf.condition %c, %p, %q
      } {
      ^after(%p: i32, %q: i32):
        scf.yield %q, %p
      }
      tt.return %r#1
    }
  )";
  // %j is undefined: first check the error, then fix the text.
  EXPECT_NE(parseError(text).find("use of undefined value %j"), std::string::npos);
  std::string fixed = text;
  fixed.replace(fixed.find("%j"), 2, "%x");
  EXPECT_EQ(roundTrip(fixed),
            "tt.func @f(%arg0: i32, %arg1: i32) {\n"
            "  %0:2 = tt.split %arg0 : i32, i32\n"
            "  %1 = arith.addi %arg0, %arg1 : i32\n"
            "  %2:2 = scf.while %1, %arg0 : i32, i32 {\n"
            "  ^bb0(%arg2: i32, %arg3: i32):\n"
            "    %3 = arith.cmpi %arg2, %arg3 {predicate = \"slt\"} : i1\n"
            "    scf.condition %3, %arg2, %arg3\n"
            "  } {\n"
            "  ^bb0(%arg4: i32, %arg5: i32):\n"
            "    scf.yield %arg5, %arg4\n"
            "  }\n"
            "  tt.return %2#1\n"
            "}\n");
}

TEST(Parser, FloatAttributesRoundTripExactly) {
  const double values[] = {0.1, 1.0 / 3.0, -0.0, 1e-300, 5e-324, 1.7976931348623157e308, 123456789.0,
                           std::ldexp(1.0, -24), 65504.0, 1e20};
  for (double v : values) {
    std::unique_ptr<Operation> func(Operation::create(OpCode::Func, {}, {}, {}, {{"sym_name", "f"}}, 1));
    OpBuilder b(func->region(0).addBlock());
    b.constantFloat(Type::f64(), v);
    Module m;
    m.addFunction(func.release());
    std::string text = print(m);
    auto parsed = parseModule(text);
    double back = funcBody(parsed->functions()[0]).front()->floatAttr("value");
    EXPECT_EQ(std::signbit(back), std::signbit(v)) << text;
    EXPECT_EQ(back, v) << text;
    EXPECT_EQ(print(*parsed), text);
  }
  auto m = parseModule(
      "tt.func @f() {\n  %0 = arith.constant {value = inf} : f32\n  %1 = arith.constant {value = -inf} : f32\n"
      "  %2 = arith.constant {value = nan} : f32\n  %3 = arith.constant {value = 2.5e-3} : f32\n}\n");
  auto ops = funcBody(m->functions()[0]).ops();
  EXPECT_TRUE(std::isinf(ops[0]->floatAttr("value")) && ops[0]->floatAttr("value") > 0);
  EXPECT_TRUE(std::isinf(ops[1]->floatAttr("value")) && ops[1]->floatAttr("value") < 0);
  EXPECT_TRUE(std::isnan(ops[2]->floatAttr("value")));
  EXPECT_EQ(ops[3]->floatAttr("value"), 0.0025);
  EXPECT_NE(print(*m).find("{value = 0.0025}"), std::string::npos);
}

TEST(Parser, AllAttributeKinds) {
  auto m = parseModule(
      "tt.func @f() {\n"
      "  tt.assert {a = unit, b = true, c = -42, d = 2.0, e = \"s\", f = [], g = [1, -2], "
      "h = type<!tt.ptr<tensor<2x2xf16>>>, i = types<>, j = types<i1, f8E5M2>}\n}\n");
  Operation* op = funcBody(m->functions()[0]).front();
  EXPECT_TRUE(std::holds_alternative<std::monostate>(*op->attr("a")));
  EXPECT_EQ(std::get<bool>(*op->attr("b")), true);
  EXPECT_EQ(std::get<int64_t>(*op->attr("c")), -42);
  EXPECT_EQ(std::get<double>(*op->attr("d")), 2.0);
  EXPECT_EQ(std::get<std::string>(*op->attr("e")), "s");
  EXPECT_TRUE(std::get<std::vector<int64_t>>(*op->attr("f")).empty());
  EXPECT_EQ(std::get<std::vector<int64_t>>(*op->attr("g")), (std::vector<int64_t>{1, -2}));
  EXPECT_EQ(std::get<Type>(*op->attr("h")), Type::pointer(Type::tensor({2, 2}, Type::f16())));
  EXPECT_TRUE(std::get<std::vector<Type>>(*op->attr("i")).empty());
  EXPECT_EQ(std::get<std::vector<Type>>(*op->attr("j")),
            (std::vector<Type>{Type::i1(), Type::scalar(TypeKind::F8E5M2)}));
  std::string text = print(*m);
  EXPECT_EQ(roundTrip(text), text);
}

TEST(Parser, LocationsRoundTrip) {
  const char* text =
      "tt.func @f(%arg0: i32) {\n"
      "  %0 = arith.addi %arg0, %arg0 : i32 loc(\"k.py\":3:7)\n"
      "  scf.if %0 {\n"
      "    scf.yield loc(\"k.py\":4:1)\n"
      "  } {} loc(\"k \\\"q\\\".py\":5:2)\n"
      "  tt.return loc(\"k.py\":6:3)\n"
      "} loc(\"k.py\":1:1)\n";
  auto m = parseModule(text);
  EXPECT_EQ(print(*m, PrintOptions{true}), text);
  Operation* add = funcBody(m->functions()[0]).front();
  EXPECT_EQ(*add->loc().file, "k.py");
  EXPECT_EQ(add->loc().line, 3);
  EXPECT_EQ(add->loc().col, 7);
}

TEST(Parser, ErrorsPointAtTheProblem) {
  std::string e = parseError("tt.func @f() {\n  %0 = arith.frob : i32\n}\n");
  EXPECT_EQ(e,
            "bad.ttir:2:8: error: unknown operation 'arith.frob'\n"
            "      %0 = arith.frob : i32\n"
            "           ^");
  e = parseError("tt.func @f() {\n  %0 = arith.constant {value = 1} : i33\n}\n");
  EXPECT_NE(e.find("bad.ttir:2:37: error: expected a type"), std::string::npos) << e;
  e = parseError("tt.func @f(%a: i32) {\n  %a = arith.addi %a, %a : i32\n}\n");
  EXPECT_NE(e.find("bad.ttir:2:3: error: redefinition of value %a"), std::string::npos) << e;
  e = parseError("tt.func @f(%a: i32) {\n  arith.addi %a, %a : i32\n}\n");
  EXPECT_NE(e.find("defines 0 result(s) but lists 1 result type(s)"), std::string::npos) << e;
  e = parseError("tt.func @f(%a: i32) {\n  %0 = tt.split %a : i32, i32\n}\n");
  EXPECT_NE(e.find("bad.ttir:2:3: error: 'tt.split' defines 1 result(s) but lists 2 result type(s)"),
            std::string::npos) << e;
  e = parseError("tt.func @f(%a: i32) {\n  %0:2 = tt.split %a : i32, i32\n  tt.return %0\n}\n");
  EXPECT_NE(e.find("bad.ttir:3:13: error: %0 has several results; use %0#N"), std::string::npos) << e;
  e = parseError("tt.func @f() {\n  scf.if %c {\n");
  EXPECT_NE(e.find("use of undefined value %c"), std::string::npos) << e;
  e = parseError("tt.func @f(%c: i1) {\n  scf.if %c {\n");
  EXPECT_NE(e.find("expected '}' to end the region"), std::string::npos) << e;
  e = parseError("tt.func @f() {\n  tt.print {prefix = \"abc}\n}\n");
  EXPECT_NE(e.find("bad.ttir:2:22: error: unterminated string"), std::string::npos) << e;
  e = parseError("tt.func @f() {\n}\ntt.func @f() {\n}\n");
  EXPECT_NE(e.find("bad.ttir:3:1: error: redefinition of function @f"), std::string::npos) << e;
  e = parseError("tt.func @f(%a: i32)\n");
  EXPECT_NE(e.find("bad.ttir:1:1: error: a function without a body cannot have parameters"),
            std::string::npos) << e;
  e = parseError("%0 = arith.constant {value = 1} : i32\n");
  EXPECT_NE(e.find("bad.ttir:1:1: error: expected 'tt.func' at the top level"), std::string::npos) << e;
}

TEST(Parser, ValuesAreScopedByRegion) {
  std::string e = parseError(
      "tt.func @f(%c: i1) {\n"
      "  scf.if %c {\n"
      "    %inner = arith.addi %c, %c : i1\n"
      "    scf.yield\n"
      "  } {}\n"
      "  tt.return %inner\n"
      "}\n");
  EXPECT_NE(e.find("bad.ttir:6:13: error: use of undefined value %inner"), std::string::npos) << e;
  // The same name may be reused in a sibling region.
  EXPECT_EQ(parseError("tt.func @f(%c: i1) {\n"
                       "  scf.if %c {\n    %t = arith.addi %c, %c : i1\n    scf.yield\n  } {\n"
                       "    %t = arith.addi %c, %c : i1\n    scf.yield\n  }\n  tt.return\n}\n"),
            "");
}

}  // namespace
