//===- LICMTest.cpp - Loop-invariant code motion --------------------------===//

#include "PassTestUtil.h"

using namespace tessera::transforms::testing;

namespace {

void expectLICM(std::string_view input, std::string_view expected) { EXPECT_EQ(after("licm", input), canon(expected)); }
void expectUnchanged(std::string_view input) { expectLICM(input, input); }

TEST(LICM, HoistsInvariantChainsButNotMemoryOps) {
  expectLICM(R"(
    tt.func @f(%n: i32, %x: i32, %p: !tt.ptr<i32>) {
      %lb = arith.constant {value = 0} : i32
      %st = arith.constant {value = 1} : i32
      scf.for %lb, %n, %st {
      ^bb0(%i: i32):
        %a = arith.muli %x, %x : i32
        %b = arith.addi %a, %x : i32
        %c = arith.addi %b, %i : i32
        %l = tt.load %p : i32
        %d = arith.addi %l, %b : i32
        tt.store %p, %c
        tt.store %p, %d
        scf.yield
      }
      tt.return
    }
  )",
             R"(
    tt.func @f(%n: i32, %x: i32, %p: !tt.ptr<i32>) {
      %lb = arith.constant {value = 0} : i32
      %st = arith.constant {value = 1} : i32
      %a = arith.muli %x, %x : i32
      %b = arith.addi %a, %x : i32
      scf.for %lb, %n, %st {
      ^bb0(%i: i32):
        %c = arith.addi %b, %i : i32
        %l = tt.load %p : i32
        %d = arith.addi %l, %b : i32
        tt.store %p, %c
        tt.store %p, %d
        scf.yield
      }
      tt.return
    }
  )");
}

TEST(LICM, HoistsOutOfWholeNests) {
  expectLICM(R"(
    tt.func @f(%n: i32, %x: i32, %p: !tt.ptr<i32>) {
      %lb = arith.constant {value = 0} : i32
      %st = arith.constant {value = 1} : i32
      scf.for %lb, %n, %st {
      ^bb0(%i: i32):
        scf.for %lb, %n, %st {
        ^bb0(%j: i32):
          %a = arith.muli %x, %x : i32
          %b = arith.addi %a, %i : i32
          tt.store %p, %b
          scf.yield
        }
        scf.yield
      }
      tt.return
    }
  )",
             R"(
    tt.func @f(%n: i32, %x: i32, %p: !tt.ptr<i32>) {
      %lb = arith.constant {value = 0} : i32
      %st = arith.constant {value = 1} : i32
      %a = arith.muli %x, %x : i32
      scf.for %lb, %n, %st {
      ^bb0(%i: i32):
        %b = arith.addi %a, %i : i32
        scf.for %lb, %n, %st {
        ^bb0(%j: i32):
          tt.store %p, %b
          scf.yield
        }
        scf.yield
      }
      tt.return
    }
  )");
}

TEST(LICM, DivisionOnlyWithASafeConstantDivisor) {
  // %x / %y could trap when the loop runs zero times; %x / 4 cannot.
  expectLICM(R"(
    tt.func @f(%n: i32, %x: i32, %y: i32, %p: !tt.ptr<i32>) {
      %lb = arith.constant {value = 0} : i32
      %st = arith.constant {value = 1} : i32
      %four = arith.constant {value = 4} : i32
      scf.for %lb, %n, %st {
      ^bb0(%i: i32):
        %a = arith.divsi %x, %y : i32
        %b = arith.divsi %x, %four : i32
        tt.store %p, %a
        tt.store %p, %b
        scf.yield
      }
      tt.return
    }
  )",
             R"(
    tt.func @f(%n: i32, %x: i32, %y: i32, %p: !tt.ptr<i32>) {
      %lb = arith.constant {value = 0} : i32
      %st = arith.constant {value = 1} : i32
      %four = arith.constant {value = 4} : i32
      %b = arith.divsi %x, %four : i32
      scf.for %lb, %n, %st {
      ^bb0(%i: i32):
        %a = arith.divsi %x, %y : i32
        tt.store %p, %a
        tt.store %p, %b
        scf.yield
      }
      tt.return
    }
  )");
}

TEST(LICM, DisableLicmAndOpsUnderConditionsStay) {
  expectUnchanged(R"(
    tt.func @f(%n: i32, %x: i32, %c: i1, %p: !tt.ptr<i32>) {
      %lb = arith.constant {value = 0} : i32
      %st = arith.constant {value = 1} : i32
      scf.for %lb, %n, %st {disable_licm = true} {
      ^bb0(%i: i32):
        %a = arith.muli %x, %x : i32
        tt.store %p, %a
        scf.yield
      }
      scf.for %lb, %n, %st {
      ^bb0(%j: i32):
        scf.if %c {
          %b = arith.muli %x, %x : i32
          tt.store %p, %b
          scf.yield
        } {}
        scf.yield
      }
      tt.return
    }
  )");
}

TEST(LICM, HoistsFromWhileLoops) {
  expectLICM(R"(
    tt.func @f(%n: i32, %x: i32) -> (i32) {
      %lb = arith.constant {value = 0} : i32
      %w = scf.while %lb : i32 {
      ^bb0(%a: i32):
        %lim = arith.muli %n, %x : i32
        %c = arith.cmpi %a, %lim {predicate = "slt"} : i1
        scf.condition %c, %a
      } {
      ^bb0(%b: i32):
        %inc = arith.addi %x, %x : i32
        %b1 = arith.addi %b, %inc : i32
        scf.yield %b1
      }
      tt.return %w
    }
  )",
             R"(
    tt.func @f(%n: i32, %x: i32) -> (i32) {
      %lb = arith.constant {value = 0} : i32
      %lim = arith.muli %n, %x : i32
      %inc = arith.addi %x, %x : i32
      %w = scf.while %lb : i32 {
      ^bb0(%a: i32):
        %c = arith.cmpi %a, %lim {predicate = "slt"} : i1
        scf.condition %c, %a
      } {
      ^bb0(%b: i32):
        %b1 = arith.addi %b, %inc : i32
        scf.yield %b1
      }
      tt.return %w
    }
  )");
}

}  // namespace
