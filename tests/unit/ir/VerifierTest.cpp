//===- VerifierTest.cpp - Structural and type rules -----------------------===//
//
// Each case is a small function that breaks exactly one rule; the expected
// message names the rule. Valid counterparts show the rule is not
// over-eager.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include "tessera/Error.h"
#include "tessera/ir/Builder.h"

using namespace tessera::ir;

namespace {

/// The verifier message for `body` wrapped in a function ("" when valid).
std::string verifyBody(const std::string& params, const std::string& body,
                       const std::string& results = "") {
  std::string text = "tt.func @f(" + params + ")" + (results.empty() ? "" : " -> (" + results + ")") +
                     " {\n" + body + "}\n";
  auto m = parseModule(text, "v.ttir");
  return verify(*m).value_or("");
}

void expectError(const std::string& params, const std::string& body, const std::string& needle,
                 const std::string& results = "") {
  std::string msg = verifyBody(params, body, results);
  EXPECT_NE(msg.find(needle), std::string::npos) << "expected '" << needle << "' in:\n" << msg;
}

TEST(Verifier, AcceptsValidIR) {
  EXPECT_EQ(verifyBody("%p: !tt.ptr<f32>, %n: i32",
                       "  %0 = tt.get_program_id {axis = 0} : i32\n"
                       "  %1 = tt.make_range {end = 64, start = 0} : tensor<64xi32>\n"
                       "  %2 = tt.splat %0 : tensor<64xi32>\n"
                       "  %3 = arith.addi %1, %2 : tensor<64xi32>\n"
                       "  %4 = tt.splat %n : tensor<64xi32>\n"
                       "  %5 = arith.cmpi %3, %4 {predicate = \"slt\"} : tensor<64xi1>\n"
                       "  %6 = tt.splat %p : tensor<64x!tt.ptr<f32>>\n"
                       "  %7 = tt.addptr %6, %3 : tensor<64x!tt.ptr<f32>>\n"
                       "  %8 = tt.load %7, %5 : tensor<64xf32>\n"
                       "  %9 = tt.reduce %8 {axis = 0} : f32 {\n"
                       "  ^bb0(%a: f32, %b: f32):\n"
                       "    %s = arith.addf %a, %b : f32\n"
                       "    tt.reduce.return %s\n"
                       "  }\n"
                       "  %10 = arith.truncf %8 : tensor<64xf16>\n"
                       "  %11 = arith.extf %10 : tensor<64xf32>\n"
                       "  tt.store %7, %11, %5\n"
                       "  tt.return %9\n",
                       "f32"),
            "");
}

TEST(Verifier, ReportsLocationNameAndOp) {
  EXPECT_EQ(verifyBody("%a: i32", "  %0 = arith.addf %a, %a : i32\n  tt.return\n"),
            "v.ttir:2:8: 'arith.addf' op needs float operands\n  %0 = arith.addf %arg0, %arg0 : i32");
  auto m = parseModule("tt.func @f(%a: i32) {\n  %0 = arith.addf %a, %a : i32\n  tt.return\n}\n", "v.ttir");
  try {
    verifyOrThrow(*m, "cse");
    FAIL() << "verifyOrThrow did not throw";
  } catch (const tessera::Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("verifier failed after cse: v.ttir:2:8: 'arith.addf' op", 0), 0u);
  }
}

TEST(Verifier, Terminators) {
  expectError("", "  %0 = arith.constant {value = 1} : i32\n", "'tt.func' op region block must end with 'tt.return'");
  expectError("", "  tt.return\n  gpu.barrier\n  tt.return\n", "is a terminator but not the last op");
  expectError("%c: i1", "  scf.if %c {\n    gpu.barrier\n  } {}\n  tt.return\n",
              "'scf.if' op region block must end with 'scf.yield', found 'gpu.barrier'");
  expectError("%c: i1", "  scf.if %c {\n    tt.return\n  } {}\n  tt.return\n", "'tt.return' op must be in a tt.func");
  expectError("", "  scf.yield\n", "'scf.yield' op must end an scf.for, scf.if");
  expectError("", "  %0 = arith.constant {value = 1} : i32\n  tt.return %0\n", "returned types (i32) do not match ()");
}

TEST(Verifier, OperandsMustBeVisible) {
  // Build IR where an op uses a value defined inside a sibling region, which
  // the parser would refuse.
  auto m = parseModule(
      "tt.func @f(%c: i1) {\n"
      "  scf.if %c {\n    %0 = arith.andi %c, %c : i1\n    scf.yield\n  } {}\n"
      "  %1 = arith.ori %c, %c : i1\n"
      "  tt.return\n}\n");
  Block& body = funcBody(m->functions()[0]);
  Operation* inner = body.front()->region(0).front().front();
  Operation* orOp = body.ops()[1];
  orOp->setOperand(1, inner->result());
  std::string msg = verify(*m).value_or("");
  EXPECT_NE(msg.find("'arith.ori' op operand #1 is not defined before its use"), std::string::npos) << msg;
  // Use before definition in the same block.
  orOp->setOperand(1, body.argument(0));
  orOp->moveBefore(body.front());
  body.front()->setOperand(0, body.ops()[1]->region(0).front().front()->result());
  msg = verify(*m).value_or("");
  EXPECT_NE(msg.find("operand #0 is not defined before its use"), std::string::npos) << msg;
}

TEST(Verifier, ElementwiseAndSameType) {
  expectError("%a: tensor<4xi32>, %b: tensor<8xi32>", "  %0 = arith.addi %a, %b : tensor<4xi32>\n  tt.return\n",
              "operand #1 type tensor<8xi32> does not have the shape of tensor<4xi32>");
  expectError("%a: i32, %b: i64", "  %0 = arith.addi %a, %b : i32\n  tt.return\n",
              "operand type i64 differs from the result type i32");
  expectError("%a: tensor<4xi32>, %b: i32", "  %0 = arith.muli %a, %b : tensor<4xi32>\n  tt.return\n",
              "operand #1 is a scalar but other operands are tensors");
  expectError("%a: f32", "  %0 = arith.cmpf %a, %a {predicate = \"olt\"} : f32\n  tt.return\n",
              "result must be i1, got f32");
  expectError("%a: f32", "  %0 = arith.cmpf %a, %a {predicate = \"slt\"} : i1\n  tt.return\n",
              "invalid predicate \"slt\"");
  // A scalar condition may select whole tensors.
  EXPECT_EQ(verifyBody("%c: i1, %a: tensor<4xf32>", "  %0 = arith.select %c, %a, %a : tensor<4xf32>\n  tt.return\n"),
            "");
}

TEST(Verifier, Casts) {
  expectError("%a: i32", "  %0 = arith.extsi %a : i16\n  tt.return\n", "must widen: i32 -> i16");
  expectError("%a: i32", "  %0 = arith.trunci %a : i64\n  tt.return\n", "must narrow: i32 -> i64");
  expectError("%a: f16", "  %0 = arith.extf %a : bf16\n  tt.return\n", "must widen: f16 -> bf16");
  expectError("%a: f32", "  %0 = arith.sitofp %a : f16\n  tt.return\n", "casts an integer to a float");
  expectError("%a: f32", "  %0 = arith.bitcast %a : i16\n  tt.return\n", "needs equal bit widths");
  expectError("%a: tensor<2xi32>", "  %0 = arith.sitofp %a : tensor<4xf32>\n  tt.return\n", "does not have the shape");
  EXPECT_EQ(verifyBody("%a: f32", "  %0 = arith.truncf %a {rounding = \"rtz\"} : f8E4M3FN\n  tt.return\n"), "");
}

TEST(Verifier, PointersAndMemory) {
  expectError("%p: !tt.ptr<f32>", "  %0 = tt.load %p : f16\n  tt.return\n", "result must be f32, got f16");
  expectError("%p: tensor<4x!tt.ptr<f32>>, %m: tensor<8xi1>", "  %0 = tt.load %p, %m : tensor<4xf32>\n  tt.return\n",
              "mask must be tensor<4xi1>, got tensor<8xi1>");
  expectError("%p: !tt.ptr<f32>, %v: f16", "  tt.store %p, %v\n  tt.return\n", "stored value must be f32, got f16");
  expectError("%p: !tt.ptr<f32>, %o: f32", "  %0 = tt.addptr %p, %o : !tt.ptr<f32>\n  tt.return\n",
              "offset must be integer");
  expectError("%p: !tt.ptr<f32>, %v: f32",
              "  %0 = tt.atomic_rmw %p, %v {kind = \"mul\"} : f32\n  tt.return\n", "invalid kind \"mul\"");
  EXPECT_EQ(verifyBody("%p: !tt.ptr<f16>, %s: i64, %o: i32",
                       "  %0 = tt.make_tensor_ptr %p, %s, %s, %s, %s, %o, %o {order = [1, 0]} : "
                       "!tt.ptr<tensor<16x32xf16>>\n"
                       "  %1 = tt.advance %0, %o, %o : !tt.ptr<tensor<16x32xf16>>\n"
                       "  %2 = tt.load %1 {boundary_check = [0], padding = \"zero\"} : tensor<16x32xf16>\n"
                       "  tt.store %1, %2\n  tt.return\n"),
            "");
  expectError("%p: !tt.ptr<f16>, %s: i64, %o: i32",
              "  %0 = tt.make_tensor_ptr %p, %s, %s, %s, %o, %o, %o : !tt.ptr<tensor<16x32xf16>>\n  tt.return\n",
              "stride operands must be i64");
}

TEST(Verifier, ShapeOps) {
  expectError("%a: tensor<4xf32>", "  %0 = tt.expand_dims %a {axis = 1} : tensor<1x4xf32>\n  tt.return\n",
              "result must be tensor<4x1xf32>");
  expectError("%a: tensor<4x1xf32>", "  %0 = tt.broadcast %a : tensor<4x8xf16>\n  tt.return\n", "element types differ");
  expectError("%a: tensor<2x4xf32>", "  %0 = tt.broadcast %a : tensor<4x4xf32>\n  tt.return\n", "cannot broadcast");
  expectError("%a: tensor<2x4xf32>", "  %0 = tt.trans %a {order = [0, 0]} : tensor<4x2xf32>\n  tt.return\n",
              "must be a permutation");
  EXPECT_EQ(verifyBody("%a: tensor<2x4x8xf32>", "  %0 = tt.trans %a {order = [2, 0, 1]} : tensor<8x2x4xf32>\n  tt.return\n"),
            "");
  expectError("", "  %0 = tt.make_range {end = 16, start = 0} : tensor<32xi32>\n  tt.return\n",
              "result must be tensor<16xi32>");
  expectError("%a: tensor<2x4xf32>", "  %0 = tt.reshape %a : tensor<3x3xf32>\n  tt.return\n", "changes the element count");
  EXPECT_EQ(verifyBody("%a: tensor<4xf32>", "  %0 = tt.join %a, %a : tensor<4x2xf32>\n"
                                            "  %1:2 = tt.split %0 : tensor<4xf32>, tensor<4xf32>\n  tt.return\n"),
            "");
  expectError("%a: tensor<4x8xf32>, %b: tensor<8x2xf32>, %c: tensor<4x4xf32>",
              "  %0 = tt.dot %a, %b, %c : tensor<4x4xf32>\n  tt.return\n", "shapes do not multiply");
}

TEST(Verifier, RegionOps) {
  const char* forBody =
      "  %c0 = arith.constant {value = 0} : i32\n"
      "  %r = scf.for %c0, %n, %c0, %x : f32 {\n"
      "  ^bb0(%iv: i32, %acc: f32):\n"
      "    scf.yield %iv\n"
      "  }\n  tt.return\n";
  expectError("%n: i32, %x: f32", forBody, "'scf.for' op yielded types (i32) do not match (f32)");
  expectError("%n: i64, %x: f32",
              "  %c0 = arith.constant {value = 0} : i32\n  scf.for %c0, %n, %c0 {\n  ^bb0(%iv: i32):\n    scf.yield\n  }\n"
              "  tt.return\n",
              "bounds and step must be scalar integers of one type");
  expectError("%c: i1", "  %0 = scf.if %c : i32 {\n    %1 = arith.constant {value = 0} : i32\n    scf.yield %1\n  } {}\n  tt.return\n",
              "region #1 must have one block, got 0");
  expectError("%c: tensor<2xi1>", "  scf.if %c {\n    scf.yield\n  } {}\n  tt.return\n", "condition must be a scalar i1");
  expectError("%a: tensor<4xf32>",
              "  %0 = tt.reduce %a {axis = 0} : f32 {\n  ^bb0(%x: f32):\n    tt.reduce.return %x\n  }\n  tt.return\n",
              "combine region argument types (f32) do not match (f32, f32)");
  expectError("%a: tensor<4x2xf32>",
              "  %0 = tt.scan %a {axis = 2} : tensor<4x2xf32> {\n  ^bb0(%x: f32, %y: f32):\n    tt.scan.return %x\n"
              "  }\n  tt.return\n",
              "attribute 'axis' = 2 is out of range for rank 2");
  expectError("%a: i32",
              "  %0 = scf.while %a : i32 {\n  ^bb0(%x: i32):\n    scf.condition %x, %x\n  } {\n  ^bb0(%y: i32):\n"
              "    scf.yield %y\n  }\n  tt.return\n",
              "scf.condition needs a scalar i1 condition first");
  expectError("%a: i32", "  %0 = tt.call %a {callee = \"g\"} : i32\n  tt.return\n", "calls an unknown function @g");
}

}  // namespace
