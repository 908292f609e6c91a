//===- OpViewsTest.cpp - Named accessors and typed builders of ops --------===//

#include <gtest/gtest.h>

#include "tessera/ir/IR.h"
#include "tessera/ir/OpViews.h"

using namespace tessera::ir;

namespace {

const char* kIR = R"(tt.func @k(%arg0: !tt.ptr<f16>, %arg1: i64, %arg2: i64, %arg3: i32, %arg4: !tt.ptr<f32>) -> () attributes {kernel = true} {
  %one = arith.constant {value = 1} : i64
  %d = ttng.tensormap_create %arg0, %arg1, %arg2, %arg2, %one {box = [64, 32], host_encoded = true, padding = "nan", swizzle = 64} : !tt.ptr<i8>
  %c0 = arith.constant {value = 0} : i32
  %c1 = arith.constant {value = 1} : i32
  %f = arith.constant {value = 2.5} : f32
  %t = arith.constant {value = true} : i1
  %x = tt.load %arg4, %t, %f {volatile = true} : f32
  %y = tt.load %arg4 : f32
  %r = scf.for %c0, %arg3, %c1, %x : f32 {
  ^bb0(%i: i32, %acc: f32):
    %s = arith.addf %acc, %y : f32
    scf.yield %s
  }
  tt.store %arg4, %r
  tt.return
}
)";

TEST(OpViews, NameTheOperandsOpsDefDescribes) {
  auto module = parseModule(kIR);
  Operation* func = module->lookup("k");
  Block& body = funcBody(func);
  std::vector<Operation*> ops;
  for (Operation* op : body.ops()) ops.push_back(op);
  TensormapCreateOp create(ops[1]);
  EXPECT_EQ(create.base(), body.argument(0));
  ASSERT_EQ(create.rank(), 2u);
  EXPECT_EQ(create.shape(0), body.argument(1));
  EXPECT_EQ(create.shape(1), body.argument(2));
  EXPECT_EQ(create.stride(0), body.argument(2));
  EXPECT_EQ(create.stride(1), ops[0]->result());
  EXPECT_EQ(create.box(), (std::vector<int64_t>{64, 32}));
  EXPECT_EQ(create.swizzle(), 64);
  EXPECT_EQ(create.padding(), "nan");
  EXPECT_TRUE(create.hostEncoded());

  std::optional<LoadOp> masked = viewAs<LoadOp>(ops[6]);
  ASSERT_TRUE(masked);
  EXPECT_EQ(masked->ptr(), body.argument(4));
  EXPECT_EQ(masked->mask(), ops[5]->result());
  EXPECT_EQ(masked->other(), ops[4]->result());
  EXPECT_TRUE(masked->isVolatile());
  LoadOp plain(ops[7]);
  EXPECT_FALSE(plain.mask());
  EXPECT_FALSE(plain.other());
  EXPECT_FALSE(plain.isVolatile());
  EXPECT_EQ(plain.cache(), "");

  ForOp loop(ops[8]);
  EXPECT_EQ(loop.lowerBound(), ops[2]->result());
  EXPECT_EQ(loop.upperBound(), body.argument(3));
  EXPECT_EQ(loop.step(), ops[3]->result());
  ASSERT_EQ(loop.inits().size(), 1u);
  EXPECT_EQ(loop.inits()[0], ops[6]->result());
  EXPECT_EQ(loop.numIterArgs(), 1u);
  EXPECT_EQ(loop.inductionVar(), loop.body().argument(0));

  std::optional<StoreOp> store = definingAs<StoreOp>(Value());
  EXPECT_FALSE(store);
  EXPECT_FALSE(viewAs<StoreOp>(ops[6])) << "a load is not a store";
  EXPECT_FALSE(viewAs<LoadOp>(nullptr));
  StoreOp st(ops[9]);
  EXPECT_EQ(st.value(), loop->result(0));
  EXPECT_FALSE(st.mask());
  EXPECT_EQ(definingAs<ForOp>(st.value())->op(), loop.op());
}

TEST(OpViews, BuildersMakeVerifiedOps) {
  auto module = parseModule(R"(tt.func @k() -> () attributes {kernel = true} {
  %b = ttg.local_alloc : tensor<3xi64, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>>
  tt.return
}
)");
  Operation* func = module->lookup("k");
  Block& body = funcBody(func);
  Operation* alloc = body.front();
  OpBuilder b;
  b.setInsertionPoint(body.back());
  Value index = b.constantInt(Type::i32(), 1), pred = b.constantBool(true);
  InitBarriersOp init = buildInitBarriers(b, alloc->result(), 4);
  EXPECT_EQ(init.count(), 4);
  EXPECT_EQ(init.barriers(), alloc->result());
  EXPECT_FALSE(buildInitBarriers(b, alloc->result(), 1)->hasAttr("count")) << "the default is not written";
  BarrierExpectOp expect = buildBarrierExpect(b, alloc->result(), index, pred, 16384);
  EXPECT_EQ(expect.bytes(), 16384);
  EXPECT_EQ(expect.index(), index);
  WaitBarrierOp wait = buildWaitBarrier(b, alloc->result(), index, index);
  EXPECT_EQ(wait.phase(), index);
  ArriveBarrierOp arrive = buildArriveBarrier(b, alloc->result(), index, pred);
  EXPECT_EQ(arrive.pred(), pred);
  AsyncWaitOp asyncWait = buildAsyncWait(b, 2);
  EXPECT_EQ(asyncWait.num(), 2);
  EXPECT_EQ(verify(*module), std::nullopt) << print(*module);
}

}  // namespace
