//===- RegistryTest.cpp - Pass table, pipeline specs, the full pipeline ---===//

#include "PassTestUtil.h"

using namespace tessera::transforms;
using namespace tessera::transforms::testing;

namespace {

std::string errorOf(std::string_view spec) {
  auto m = parse("tt.func @f() {\n  tt.return\n}\n");
  try {
    runPasses(*m, spec);
  } catch (const tessera::Error& e) {
    return e.what();
  }
  return "";
}

TEST(Registry, EveryPassHasANameSummaryAndFactory) {
  std::vector<std::string> names;
  for (const PassInfo& info : passRegistry()) {
    names.push_back(info.name);
    EXPECT_FALSE(info.summary.empty()) << info.name;
    ASSERT_TRUE(info.create) << info.name;
    EXPECT_NE(info.create(info.defaultOptions), nullptr) << info.name;
    EXPECT_EQ(findPass(info.name), &info);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"inline", "canonicalize", "cse", "dce", "licm"}));
  EXPECT_EQ(findPass("nope"), nullptr);
}

TEST(Registry, SpecErrorsNameThePassAndTheProblem) {
  EXPECT_EQ(errorOf("cse, dce ,canonicalize{fold=true, regions=false}"), "");
  EXPECT_NE(errorOf("cse,frobnicate").find("unknown pass 'frobnicate'"), std::string::npos);
  EXPECT_NE(errorOf("cse,,dce").find("empty pass name"), std::string::npos);
  EXPECT_NE(errorOf("cse{x=1}").find("pass 'cse' has no option 'x'"), std::string::npos);
  EXPECT_NE(errorOf("canonicalize{fold}").find("expected key=value"), std::string::npos);
  EXPECT_NE(errorOf("canonicalize{max-rewrites=abc}").find("expects an integer"), std::string::npos);
}

TEST(Registry, UnknownPassFailsBeforeAnythingRuns) {
  auto m = parse(R"(
    tt.func @f() -> (i32) {
      %a = arith.constant {value = 2} : i32
      %s = arith.addi %a, %a : i32
      tt.return %s
    }
  )");
  std::string before = tessera::ir::print(*m);
  EXPECT_THROW(runPasses(*m, "canonicalize,bogus"), tessera::Error);
  EXPECT_EQ(tessera::ir::print(*m), before);
}

TEST(Registry, TileIRPipelineCleansAKernel) {
  // After inlining, the helper's "x * 1" folds, the two equal address
  // computations merge, the invariant splat leaves the loop and the dead
  // accumulator disappears.
  auto m = parse(R"(
    tt.func @scale(%v: tensor<16xf32>, %s: f32) -> (tensor<16xf32>) {
      %one = arith.constant {value = 1} : i32
      %t = tt.splat %s : tensor<16xf32>
      %r = arith.mulf %v, %t : tensor<16xf32>
      tt.return %r
    }
    tt.func @k(%p: !tt.ptr<f32>, %n: i32, %s: f32) attributes {kernel = true} {
      %lb = arith.constant {value = 0} : i32
      %st = arith.constant {value = 1} : i32
      %z = arith.constant {value = 0.0} : f32
      %w = scf.for %lb, %n, %st, %z : f32 {
      ^bb0(%i: i32, %acc: f32):
        %r = tt.make_range {end = 16, start = 0} : tensor<16xi32>
        %base = tt.splat %p : tensor<16x!tt.ptr<f32>>
        %ptr = tt.addptr %base, %r : tensor<16x!tt.ptr<f32>>
        %ptr2 = tt.addptr %base, %r : tensor<16x!tt.ptr<f32>>
        %v = tt.load %ptr : tensor<16xf32>
        %one = arith.constant {value = 1} : i32
        %i1 = arith.muli %i, %one : i32
        %sc = tt.call %v, %s {callee = "scale"} : tensor<16xf32>
        tt.store %ptr2, %sc
        %acc1 = arith.addf %acc, %s : f32
        scf.yield %acc1
      }
      tt.return
    }
  )");
  runTileIRPipeline(*m);
  EXPECT_EQ(tessera::ir::print(*m), canon(R"(
    tt.func @k(%p: !tt.ptr<f32>, %n: i32, %s: f32) attributes {kernel = true} {
      %lb = arith.constant {value = 0} : i32
      %st = arith.constant {value = 1} : i32
      %r = tt.make_range {end = 16, start = 0} : tensor<16xi32>
      %base = tt.splat %p : tensor<16x!tt.ptr<f32>>
      %ptr = tt.addptr %base, %r : tensor<16x!tt.ptr<f32>>
      %t = tt.splat %s : tensor<16xf32>
      scf.for %lb, %n, %st {
      ^bb0(%i: i32):
        %v = tt.load %ptr : tensor<16xf32>
        %sc = arith.mulf %v, %t : tensor<16xf32>
        tt.store %ptr, %sc
        scf.yield
      }
      tt.return
    }
  )"));
}

}  // namespace
