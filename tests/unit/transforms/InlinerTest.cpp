//===- InlinerTest.cpp - Inlining tt.call ---------------------------------===//

#include "PassTestUtil.h"

using namespace tessera::transforms::testing;

namespace {

void expectInline(std::string_view input, std::string_view expected) {
  EXPECT_EQ(after("inline", input), canon(expected));
}

TEST(Inliner, InlinesNestedCallsAndRemovesDeadCallees) {
  expectInline(R"(
    tt.func @sq(%a: i32) -> (i32) {
      %m = arith.muli %a, %a : i32
      tt.return %m
    }
    tt.func @sq_plus(%a: i32, %b: i32) -> (i32) {
      %s = tt.call %a {callee = "sq"} : i32
      %r = arith.addi %s, %b : i32
      tt.return %r
    }
    tt.func @k(%x: i32, %p: !tt.ptr<i32>) attributes {kernel = true} {
      %v = tt.call %x, %x {callee = "sq_plus"} : i32
      %w = tt.call %v {callee = "sq"} : i32
      tt.store %p, %w
      tt.return
    }
  )",
               R"(
    tt.func @k(%x: i32, %p: !tt.ptr<i32>) attributes {kernel = true} {
      %m = arith.muli %x, %x : i32
      %r = arith.addi %m, %x : i32
      %m2 = arith.muli %r, %r : i32
      tt.store %p, %m2
      tt.return
    }
  )");
}

TEST(Inliner, NoinlineFunctionsStayAndAreKept) {
  const char* input = R"(
    tt.func @helper(%a: i32) -> (i32) attributes {noinline = true} {
      %m = arith.muli %a, %a : i32
      tt.return %m
    }
    tt.func @k(%x: i32) -> (i32) attributes {kernel = true} {
      %v = tt.call %x {callee = "helper"} : i32
      tt.return %v
    }
  )";
  expectInline(input, input);
}

TEST(Inliner, CallsInsideRegionsAndUncalledFunctionsSurvive) {
  // @lonely was never called: it is a root, not garbage.
  expectInline(R"(
    tt.func @one() -> (f32) {
      %c = arith.constant {value = 1.0} : f32
      tt.return %c
    }
    tt.func @lonely(%a: f32) -> (f32) {
      tt.return %a
    }
    tt.func @k(%c: i1) -> (f32) attributes {kernel = true} {
      %r = scf.if %c : f32 {
        %o = tt.call {callee = "one"} : f32
        scf.yield %o
      } {
        %z = arith.constant {value = 0.0} : f32
        scf.yield %z
      }
      tt.return %r
    }
  )",
               R"(
    tt.func @lonely(%a: f32) -> (f32) {
      tt.return %a
    }
    tt.func @k(%c: i1) -> (f32) attributes {kernel = true} {
      %r = scf.if %c : f32 {
        %o = arith.constant {value = 1.0} : f32
        scf.yield %o
      } {
        %z = arith.constant {value = 0.0} : f32
        scf.yield %z
      }
      tt.return %r
    }
  )");
}

TEST(Inliner, DeclarationsStayCalled) {
  const char* input = R"(
    tt.func @ext() -> (i32)
    tt.func @k(%x: i32) -> (i32) attributes {kernel = true} {
      %v = tt.call {callee = "ext"} : i32
      tt.return %v
    }
  )";
  expectInline(input, input);
}

TEST(Inliner, RecursionIsLeftAsCalls) {
  const char* input = R"(
    tt.func @a(%x: i32) -> (i32) attributes {kernel = true} {
      %r = tt.call %x {callee = "b"} : i32
      tt.return %r
    }
    tt.func @b(%x: i32) -> (i32) {
      %r = tt.call %x {callee = "a"} : i32
      tt.return %r
    }
  )";
  // @b is inlined into @a once; the call back to @a (a cycle) stays.
  expectInline(input, R"(
    tt.func @a(%x: i32) -> (i32) attributes {kernel = true} {
      %r = tt.call %x {callee = "a"} : i32
      tt.return %r
    }
  )");
}

}  // namespace
