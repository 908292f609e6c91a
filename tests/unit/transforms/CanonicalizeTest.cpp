//===- CanonicalizeTest.cpp - Identities, shapes and control flow ---------===//
//
// Text in, text out: each case runs "canonicalize" on a function and compares
// with the expected function (both printed canonically).
//
//===----------------------------------------------------------------------===//

#include "PassTestUtil.h"

using namespace tessera::transforms::testing;

namespace {

void expectCanonicalize(std::string_view input, std::string_view expected) {
  EXPECT_EQ(after("canonicalize", input), canon(expected));
}

void expectUnchanged(std::string_view input) { expectCanonicalize(input, input); }

TEST(Canonicalize, IntegerIdentitiesOnEitherSide) {
  expectCanonicalize(R"(
    tt.func @f(%x: i32) -> (i32, i32, i32, i32, i32) {
      %z = arith.constant {value = 0} : i32
      %o = arith.constant {value = 1} : i32
      %a = arith.addi %z, %x : i32
      %m = arith.muli %x, %o : i32
      %s = arith.subi %a, %z : i32
      %r = arith.ori %z, %m : i32
      %d = arith.divsi %s, %o : i32
      tt.return %a, %m, %s, %r, %d
    }
  )",
                     R"(
    tt.func @f(%x: i32) -> (i32, i32, i32, i32, i32) {
      tt.return %x, %x, %x, %x, %x
    }
  )");
}

TEST(Canonicalize, IntegerAbsorbingAndSelfInverse) {
  // x*0, x&0, x-x, x^x are 0 for integers; x&x, x|x are x.
  expectCanonicalize(R"(
    tt.func @f(%x: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
      %z = arith.constant {value = 0} : tensor<4xi32>
      %m = arith.muli %x, %z : tensor<4xi32>
      %a = arith.andi %z, %x : tensor<4xi32>
      %s = arith.subi %x, %x : tensor<4xi32>
      %e = arith.xori %x, %x : tensor<4xi32>
      %n = arith.andi %x, %x : tensor<4xi32>
      tt.return %m, %a, %s, %e, %n
    }
  )",
                     R"(
    tt.func @f(%x: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
      %0 = arith.constant {value = 0} : tensor<4xi32>
      %1 = arith.constant {value = 0} : tensor<4xi32>
      %2 = arith.constant {value = 0} : tensor<4xi32>
      %3 = arith.constant {value = 0} : tensor<4xi32>
      tt.return %0, %1, %2, %3, %x
    }
  )");
}

TEST(Canonicalize, FloatIdentitiesOnlyWhenExact) {
  // x + (-0.0), x - 0.0, x * 1.0 and x / 1.0 are exact. x + 0.0 is not
  // (-0 + 0 = +0), x * 0.0 is not (NaN, inf, -0), x - x is not (NaN, inf).
  expectCanonicalize(R"(
    tt.func @f(%x: f32) -> (f32, f32, f32, f32, f32, f32, f32) {
      %nz = arith.constant {value = -0.0} : f32
      %pz = arith.constant {value = 0.0} : f32
      %one = arith.constant {value = 1.0} : f32
      %a = arith.addf %nz, %x : f32
      %b = arith.subf %x, %pz : f32
      %c = arith.mulf %one, %x : f32
      %d = arith.divf %x, %one : f32
      %e = arith.addf %x, %pz : f32
      %g = arith.mulf %x, %pz : f32
      %h = arith.subf %x, %x : f32
      tt.return %a, %b, %c, %d, %e, %g, %h
    }
  )",
                     R"(
    tt.func @f(%x: f32) -> (f32, f32, f32, f32, f32, f32, f32) {
      %pz = arith.constant {value = 0.0} : f32
      %e = arith.addf %x, %pz : f32
      %g = arith.mulf %x, %pz : f32
      %h = arith.subf %x, %x : f32
      tt.return %x, %x, %x, %x, %e, %g, %h
    }
  )");
}

TEST(Canonicalize, FoldsChainsThroughTheWorklist) {
  // ((2 + 3) * 4) << 1 = 40, in one run.
  expectCanonicalize(R"(
    tt.func @f() -> (i32) {
      %a = arith.constant {value = 2} : i32
      %b = arith.constant {value = 3} : i32
      %c = arith.constant {value = 4} : i32
      %s = arith.addi %a, %b : i32
      %m = arith.muli %s, %c : i32
      %o = arith.constant {value = 1} : i32
      %r = arith.shli %m, %o : i32
      tt.return %r
    }
  )",
                     R"(
    tt.func @f() -> (i32) {
      %0 = arith.constant {value = 40} : i32
      tt.return %0
    }
  )");
}

TEST(Canonicalize, DivisionByZeroIsNotFolded) {
  expectUnchanged(R"(
    tt.func @f() -> (i32, f32) {
      %a = arith.constant {value = 7} : i32
      %z = arith.constant {value = 0} : i32
      %d = arith.divsi %a, %z : i32
      %x = arith.constant {value = 1.0} : f32
      %y = arith.constant {value = 0.0} : f32
      %q = arith.divf %x, %y : f32
      tt.return %d, %q
    }
  )");
}

TEST(Canonicalize, SelectCmpAndCasts) {
  expectCanonicalize(R"(
    tt.func @f(%c: i1, %x: i32, %y: i32, %b: i8) -> (i32, i32, i1, i1, i8, i64, i64) {
      %t = arith.constant {value = 1} : i1
      %s0 = arith.select %t, %x, %y : i32
      %s1 = arith.select %c, %y, %y : i32
      %e = arith.cmpi %x, %x {predicate = "sle"} : i1
      %n = arith.cmpi %x, %x {predicate = "ult"} : i1
      %w = arith.extsi %b : i32
      %tr = arith.trunci %w : i8
      %u = arith.extui %b : i16
      %uu = arith.extsi %u : i64
      %ss = arith.extsi %w : i64
      tt.return %s0, %s1, %e, %n, %tr, %uu, %ss
    }
  )",
                     R"(
    tt.func @f(%c: i1, %x: i32, %y: i32, %b: i8) -> (i32, i32, i1, i1, i8, i64, i64) {
      %e = arith.constant {value = 1} : i1
      %n = arith.constant {value = 0} : i1
      %uu = arith.extui %b : i64
      %ss = arith.extsi %b : i64
      tt.return %x, %y, %e, %n, %b, %uu, %ss
    }
  )");
}

TEST(Canonicalize, ShapeOpsOfSplatsAndConstants) {
  expectCanonicalize(R"(
    tt.func @f(%x: f32, %t: tensor<4x8xf32>, %p: tensor<8x!tt.ptr<f32>>) -> (tensor<8xf32>, tensor<4x8xf32>, tensor<1x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<8x!tt.ptr<f32>>) {
      %c = arith.constant {value = 2.0} : f32
      %cs = tt.splat %c : tensor<8xf32>
      %s = tt.splat %x : tensor<1x8xf32>
      %b = tt.broadcast %s : tensor<4x8xf32>
      %v = tt.splat %x : tensor<8xf32>
      %e = tt.expand_dims %v {axis = 0} : tensor<1x8xf32>
      %same = tt.broadcast %t : tensor<4x8xf32>
      %r = tt.reshape %t : tensor<4x8xf32>
      %z = arith.constant {value = 0} : tensor<8xi32>
      %q = tt.addptr %p, %z : tensor<8x!tt.ptr<f32>>
      tt.return %cs, %b, %e, %same, %r, %q
    }
  )",
                     R"(
    tt.func @f(%x: f32, %t: tensor<4x8xf32>, %p: tensor<8x!tt.ptr<f32>>) -> (tensor<8xf32>, tensor<4x8xf32>, tensor<1x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<8x!tt.ptr<f32>>) {
      %cs = arith.constant {value = 2.0} : tensor<8xf32>
      %b = tt.splat %x : tensor<4x8xf32>
      %e = tt.splat %x : tensor<1x8xf32>
      tt.return %cs, %b, %e, %t, %t, %p
    }
  )");
}

TEST(Canonicalize, HintsAndSideEffectsStay) {
  // tt.hint carries facts for later passes; the store and load have effects.
  expectUnchanged(R"(
    tt.func @f(%p: !tt.ptr<i32>) {
      %c = arith.constant {value = 16} : i32
      %h = tt.hint %c {divisibility = [16]} : i32
      %v = tt.load %p : i32
      %l = tt.load %p : i32
      tt.store %p, %h
      tt.return
    }
  )");
}

TEST(Canonicalize, IfWithConstantConditionInlinesTheTakenRegion) {
  expectCanonicalize(R"(
    tt.func @f(%x: i32, %p: !tt.ptr<i32>) -> (i32) {
      %t = arith.constant {value = 0} : i1
      %r = scf.if %t : i32 {
        %a = arith.addi %x, %x : i32
        scf.yield %a
      } {
        %m = arith.muli %x, %x : i32
        tt.store %p, %m
        scf.yield %m
      }
      tt.return %r
    }
  )",
                     R"(
    tt.func @f(%x: i32, %p: !tt.ptr<i32>) -> (i32) {
      %m = arith.muli %x, %x : i32
      tt.store %p, %m
      tt.return %m
    }
  )");
}

TEST(Canonicalize, IfWithoutElseOnFalseDisappears) {
  expectCanonicalize(R"(
    tt.func @f(%p: !tt.ptr<i32>, %x: i32) {
      %t = arith.constant {value = 0} : i1
      scf.if %t {
        tt.store %p, %x
        scf.yield
      } {}
      tt.return
    }
  )",
                     R"(
    tt.func @f(%p: !tt.ptr<i32>, %x: i32) {
      tt.return
    }
  )");
}

TEST(Canonicalize, ForWithEmptyTripCountReturnsItsInits) {
  expectCanonicalize(R"(
    tt.func @f(%x: f32, %p: !tt.ptr<f32>) -> (f32) {
      %lb = arith.constant {value = 8} : i32
      %ub = arith.constant {value = 8} : i32
      %st = arith.constant {value = 1} : i32
      %r = scf.for %lb, %ub, %st, %x : f32 {
      ^bb0(%i: i32, %acc: f32):
        tt.store %p, %acc
        %n = arith.addf %acc, %acc : f32
        scf.yield %n
      }
      tt.return %r
    }
  )",
                     R"(
    tt.func @f(%x: f32, %p: !tt.ptr<f32>) -> (f32) {
      tt.return %x
    }
  )");
}

TEST(Canonicalize, LoopsWithUnknownOrPositiveTripCountsStay) {
  expectUnchanged(R"(
    tt.func @f(%n: i32, %p: !tt.ptr<i32>) {
      %lb = arith.constant {value = 0} : i32
      %ub = arith.constant {value = 4} : i32
      %st = arith.constant {value = 1} : i32
      scf.for %lb, %n, %st {
      ^bb0(%i: i32):
        tt.store %p, %i
        scf.yield
      }
      scf.for %lb, %ub, %st {
      ^bb0(%j: i32):
        tt.store %p, %j
        scf.yield
      }
      tt.return
    }
  )");
}

TEST(Canonicalize, AllOnesMasks) {
  // x & -1 = x; x | -1 = -1 (all ones at the width; i8 payload -1 is 0xFF).
  expectCanonicalize(R"(
    tt.func @f(%x: i8) -> (i8, i8) {
      %m = arith.constant {value = -1} : i8
      %a = arith.andi %m, %x : i8
      %o = arith.ori %x, %m : i8
      tt.return %a, %o
    }
  )",
                     R"(
    tt.func @f(%x: i8) -> (i8, i8) {
      %0 = arith.constant {value = -1} : i8
      tt.return %x, %0
    }
  )");
}

TEST(Canonicalize, FoldsInsideRegionsAndIsIdempotent) {
  const char* input = R"(
    tt.func @f(%n: i32, %p: !tt.ptr<i32>) {
      %lb = arith.constant {value = 0} : i32
      %st = arith.constant {value = 1} : i32
      %c3 = arith.constant {value = 3} : i32
      scf.for %lb, %n, %st {
      ^bb0(%i: i32):
        %six = arith.addi %c3, %c3 : i32
        %t = arith.cmpi %six, %c3 {predicate = "sgt"} : i1
        scf.if %t {
          %v = arith.muli %i, %six : i32
          tt.store %p, %v
          scf.yield
        } {}
        scf.yield
      }
      tt.return
    }
  )";
  const char* expected = R"(
    tt.func @f(%n: i32, %p: !tt.ptr<i32>) {
      %lb = arith.constant {value = 0} : i32
      %st = arith.constant {value = 1} : i32
      scf.for %lb, %n, %st {
      ^bb0(%i: i32):
        %six = arith.constant {value = 6} : i32
        %v = arith.muli %i, %six : i32
        tt.store %p, %v
        scf.yield
      }
      tt.return
    }
  )";
  std::string once = after("canonicalize", input);
  EXPECT_EQ(once, canon(expected));
  EXPECT_EQ(after("canonicalize", once), once);
}

TEST(Canonicalize, OptionsDisableFoldingAndRegions) {
  const char* input = R"(
    tt.func @f() -> (i32) {
      %a = arith.constant {value = 2} : i32
      %s = arith.addi %a, %a : i32
      tt.return %s
    }
  )";
  EXPECT_EQ(after("canonicalize{fold=false}", input), canon(input));
  EXPECT_THROW(after("canonicalize{fold=maybe}", input), tessera::Error);
  EXPECT_THROW(after("canonicalize{nonsense=1}", input), tessera::Error);
}

}  // namespace
