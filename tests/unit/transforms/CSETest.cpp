//===- CSETest.cpp - Common subexpression elimination ---------------------===//

#include "PassTestUtil.h"

using namespace tessera::transforms::testing;

namespace {

void expectCSE(std::string_view input, std::string_view expected) { EXPECT_EQ(after("cse", input), canon(expected)); }
void expectUnchanged(std::string_view input) { expectCSE(input, input); }

TEST(CSE, MergesEqualPureOpsAndCommutedOperands) {
  expectCSE(R"(
    tt.func @f(%x: i32, %y: i32) -> (i32, i32, i32, i32) {
      %a = arith.addi %x, %y : i32
      %b = arith.addi %x, %y : i32
      %c = arith.addi %y, %x : i32
      %d = arith.subi %x, %y : i32
      %e = arith.subi %y, %x : i32
      %u = arith.muli %a, %d : i32
      %v = arith.muli %b, %d : i32
      tt.return %u, %v, %c, %e
    }
  )",
            R"(
    tt.func @f(%x: i32, %y: i32) -> (i32, i32, i32, i32) {
      %a = arith.addi %x, %y : i32
      %d = arith.subi %x, %y : i32
      %e = arith.subi %y, %x : i32
      %u = arith.muli %a, %d : i32
      tt.return %u, %u, %a, %e
    }
  )");
}

TEST(CSE, AttributesAndTypesMustMatch) {
  // Different predicate, different result type, 0.0 vs -0.0: all distinct.
  expectUnchanged(R"(
    tt.func @f(%x: i32, %y: i32) -> (i1, i1, tensor<4xi32>, tensor<8xi32>, f32, f32) {
      %a = arith.cmpi %x, %y {predicate = "slt"} : i1
      %b = arith.cmpi %x, %y {predicate = "sle"} : i1
      %c = tt.splat %x : tensor<4xi32>
      %d = tt.splat %x : tensor<8xi32>
      %e = arith.constant {value = 0.0} : f32
      %g = arith.constant {value = -0.0} : f32
      tt.return %a, %b, %c, %d, %e, %g
    }
  )");
}

TEST(CSE, SideEffectsAreNeverMerged) {
  expectUnchanged(R"(
    tt.func @f(%p: !tt.ptr<i32>, %v: i32) -> (i32, i32) {
      %a = tt.load %p : i32
      tt.store %p, %v
      %b = tt.load %p : i32
      %c = tt.atomic_rmw %p, %v {kind = "add", scope = "gpu", sem = "acq_rel"} : i32
      %d = tt.atomic_rmw %p, %v {kind = "add", scope = "gpu", sem = "acq_rel"} : i32
      tt.return %a, %b
    }
  )");
}

TEST(CSE, OuterValuesDominateRegionsButNotTheOtherWayRound) {
  expectCSE(R"(
    tt.func @f(%c: i1, %x: i32) -> (i32, i32) {
      %a = arith.muli %x, %x : i32
      %r = scf.if %c : i32 {
        %in = arith.muli %x, %x : i32
        %k = arith.addi %x, %x : i32
        scf.yield %k
      } {
        %k2 = arith.addi %x, %x : i32
        scf.yield %k2
      }
      %after = arith.addi %x, %x : i32
      tt.return %r, %after
    }
  )",
            R"(
    tt.func @f(%c: i1, %x: i32) -> (i32, i32) {
      %a = arith.muli %x, %x : i32
      %r = scf.if %c : i32 {
        %k = arith.addi %x, %x : i32
        scf.yield %k
      } {
        %k2 = arith.addi %x, %x : i32
        scf.yield %k2
      }
      %after = arith.addi %x, %x : i32
      tt.return %r, %after
    }
  )");
}

TEST(CSE, ConstantsAndRangesInsideLoops) {
  expectCSE(R"(
    tt.func @f(%n: i32, %p: tensor<16x!tt.ptr<i32>>) {
      %lb = arith.constant {value = 0} : i32
      %st = arith.constant {value = 1} : i32
      %r0 = tt.make_range {end = 16, start = 0} : tensor<16xi32>
      scf.for %lb, %n, %st {
      ^bb0(%i: i32):
        %one = arith.constant {value = 1} : i32
        %r1 = tt.make_range {end = 16, start = 0} : tensor<16xi32>
        %q = tt.addptr %p, %r1 : tensor<16x!tt.ptr<i32>>
        %s = arith.addi %i, %one : i32
        %v = tt.splat %s : tensor<16xi32>
        tt.store %q, %v
        scf.yield
      }
      tt.return
    }
  )",
            R"(
    tt.func @f(%n: i32, %p: tensor<16x!tt.ptr<i32>>) {
      %lb = arith.constant {value = 0} : i32
      %st = arith.constant {value = 1} : i32
      %r0 = tt.make_range {end = 16, start = 0} : tensor<16xi32>
      scf.for %lb, %n, %st {
      ^bb0(%i: i32):
        %q = tt.addptr %p, %r0 : tensor<16x!tt.ptr<i32>>
        %s = arith.addi %i, %st : i32
        %v = tt.splat %s : tensor<16xi32>
        tt.store %q, %v
        scf.yield
      }
      tt.return
    }
  )");
}

}  // namespace
