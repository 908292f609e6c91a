//===- DCETest.cpp - Dead code elimination --------------------------------===//

#include "PassTestUtil.h"

using namespace tessera::transforms::testing;

namespace {

void expectDCE(std::string_view input, std::string_view expected) { EXPECT_EQ(after("dce", input), canon(expected)); }
void expectUnchanged(std::string_view input) { expectDCE(input, input); }

TEST(DCE, RemovesDeadChainsKeepsEffects) {
  expectDCE(R"(
    tt.func @f(%x: i32, %p: !tt.ptr<i32>) {
      %a = arith.addi %x, %x : i32
      %b = arith.muli %a, %a : i32
      %c = arith.subi %b, %x : i32
      %l = tt.load %p : i32
      %k = arith.addi %x, %l : i32
      tt.store %p, %k
      tt.return
    }
  )",
            R"(
    tt.func @f(%x: i32, %p: !tt.ptr<i32>) {
      %l = tt.load %p : i32
      %k = arith.addi %x, %l : i32
      tt.store %p, %k
      tt.return
    }
  )");
}

TEST(DCE, RemovesUnusedLoopCarriedValuesEvenWhenTheyFeedThemselves) {
  // %acc2 only feeds its own update; %acc1 reaches the return.
  expectDCE(R"(
    tt.func @f(%n: i32, %x: f32) -> (f32) {
      %lb = arith.constant {value = 0} : i32
      %st = arith.constant {value = 1} : i32
      %r:2 = scf.for %lb, %n, %st, %x, %x : f32, f32 {
      ^bb0(%i: i32, %acc1: f32, %acc2: f32):
        %a = arith.addf %acc1, %x : f32
        %b = arith.mulf %acc2, %acc1 : f32
        scf.yield %a, %b
      }
      tt.return %r#0
    }
  )",
            R"(
    tt.func @f(%n: i32, %x: f32) -> (f32) {
      %lb = arith.constant {value = 0} : i32
      %st = arith.constant {value = 1} : i32
      %r = scf.for %lb, %n, %st, %x : f32 {
      ^bb0(%i: i32, %acc1: f32):
        %a = arith.addf %acc1, %x : f32
        scf.yield %a
      }
      tt.return %r
    }
  )");
}

TEST(DCE, KeepsIterArgsThatLiveValuesDependOn) {
  // Result #1 is unused, but %acc2 feeds %acc1's update: both stay.
  expectUnchanged(R"(
    tt.func @f(%n: i32, %x: f32) -> (f32) {
      %lb = arith.constant {value = 0} : i32
      %st = arith.constant {value = 1} : i32
      %r:2 = scf.for %lb, %n, %st, %x, %x : f32, f32 {
      ^bb0(%i: i32, %acc1: f32, %acc2: f32):
        %a = arith.addf %acc1, %acc2 : f32
        %b = arith.mulf %acc2, %x : f32
        scf.yield %a, %b
      }
      tt.return %r#0
    }
  )");
}

TEST(DCE, RemovesPureLoopsAndIfsEntirely) {
  expectDCE(R"(
    tt.func @f(%n: i32, %c: i1, %x: f32) {
      %lb = arith.constant {value = 0} : i32
      %st = arith.constant {value = 1} : i32
      %r = scf.for %lb, %n, %st, %x : f32 {
      ^bb0(%i: i32, %acc: f32):
        %a = arith.addf %acc, %x : f32
        scf.yield %a
      }
      %s = scf.if %c : f32 {
        scf.yield %x
      } {
        %m = arith.mulf %x, %x : f32
        scf.yield %m
      }
      tt.return
    }
  )",
            R"(
    tt.func @f(%n: i32, %c: i1, %x: f32) {
      tt.return
    }
  )");
}

TEST(DCE, TrimsUnusedIfResultsKeepsEffects) {
  expectDCE(R"(
    tt.func @f(%c: i1, %x: f32, %p: !tt.ptr<f32>) -> (f32) {
      %s:2 = scf.if %c : f32, f32 {
        %m = arith.mulf %x, %x : f32
        tt.store %p, %x
        scf.yield %x, %m
      } {
        %a = arith.addf %x, %x : f32
        scf.yield %a, %a
      }
      tt.return %s#0
    }
  )",
            R"(
    tt.func @f(%c: i1, %x: f32, %p: !tt.ptr<f32>) -> (f32) {
      %s = scf.if %c : f32 {
        tt.store %p, %x
        scf.yield %x
      } {
        %a = arith.addf %x, %x : f32
        scf.yield %a
      }
      tt.return %s
    }
  )");
}

TEST(DCE, LoopsWithEffectsAndWhileLoopsStay) {
  expectUnchanged(R"(
    tt.func @f(%n: i32, %p: !tt.ptr<i32>) {
      %lb = arith.constant {value = 0} : i32
      %st = arith.constant {value = 1} : i32
      scf.for %lb, %n, %st {
      ^bb0(%i: i32):
        tt.store %p, %i
        scf.yield
      }
      %w = scf.while %lb : i32 {
      ^bb0(%a: i32):
        %c = arith.cmpi %a, %n {predicate = "slt"} : i1
        scf.condition %c, %a
      } {
      ^bb0(%b: i32):
        %b1 = arith.addi %b, %st : i32
        scf.yield %b1
      }
      tt.return
    }
  )");
}

TEST(DCE, ReduceBodiesLiveAndDieWithTheReduce) {
  expectDCE(R"(
    tt.func @f(%t: tensor<8xf32>) -> (f32) {
      %r = tt.reduce %t {axis = 0} : f32 {
      ^bb0(%a: f32, %b: f32):
        %m = arith.maxnumf %a, %b : f32
        tt.reduce.return %m
      }
      %d = tt.reduce %t {axis = 0} : f32 {
      ^bb0(%a2: f32, %b2: f32):
        %s = arith.addf %a2, %b2 : f32
        tt.reduce.return %s
      }
      tt.return %r
    }
  )",
            R"(
    tt.func @f(%t: tensor<8xf32>) -> (f32) {
      %r = tt.reduce %t {axis = 0} : f32 {
      ^bb0(%a: f32, %b: f32):
        %m = arith.maxnumf %a, %b : f32
        tt.reduce.return %m
      }
      tt.return %r
    }
  )");
}

TEST(DCE, TrimsUnusedWhileSlotsAndWhatFedThem) {
  // Forwarded slot 1 (%q) is unused after the loop and in the after region;
  // carried slot 1 (%s) is never read in the before region, so the product
  // that updated it dies too. The loop itself stays.
  expectDCE(R"(
    tt.func @f(%n: i32, %x: f32) -> (i32) {
      %z = arith.constant {value = 0} : i32
      %one = arith.constant {value = 1} : i32
      %w:2 = scf.while %z, %x : i32, i32 {
      ^bb0(%i: i32, %s: f32):
        %c = arith.cmpi %i, %n {predicate = "slt"} : i1
        scf.condition %c, %i, %i
      } {
      ^bb0(%j: i32, %q: i32):
        %j1 = arith.addi %j, %one : i32
        %m = arith.mulf %x, %x : f32
        scf.yield %j1, %m
      }
      tt.return %w#0
    }
  )",
            R"(
    tt.func @f(%n: i32, %x: f32) -> (i32) {
      %z = arith.constant {value = 0} : i32
      %one = arith.constant {value = 1} : i32
      %w = scf.while %z : i32 {
      ^bb0(%i: i32):
        %c = arith.cmpi %i, %n {predicate = "slt"} : i1
        scf.condition %c, %i
      } {
      ^bb0(%j: i32):
        %j1 = arith.addi %j, %one : i32
        scf.yield %j1
      }
      tt.return %w
    }
  )");
}

}  // namespace
