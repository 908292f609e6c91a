//===- OpViews.cpp - Typed builders ------------------------------------------===//
//
// See tessera/ir/OpViews.h.
//
//===----------------------------------------------------------------------===//

#include "tessera/ir/OpViews.h"

namespace tessera::ir {

AsyncWaitOp buildAsyncWait(OpBuilder& b, int64_t num) {
  return AsyncWaitOp(b.create(OpCode::AsyncWait, {}, {}, {{"num", num}}));
}

WarpGroupDotWaitOp buildWarpGroupDotWait(OpBuilder& b, const std::vector<Value>& waited, int64_t pendings) {
  std::vector<Type> types;
  for (Value v : waited) types.push_back(v.type());
  return WarpGroupDotWaitOp(b.create(OpCode::WarpGroupDotWait, types, waited, {{"pendings", pendings}}));
}

BarrierExpectOp buildBarrierExpect(OpBuilder& b, Value barriers, Value index, Value pred, int64_t bytes) {
  return BarrierExpectOp(b.create(OpCode::BarrierExpect, {}, {barriers, index, pred}, {{"bytes", bytes}}));
}

WaitBarrierOp buildWaitBarrier(OpBuilder& b, Value barriers, Value index, Value phase) {
  return WaitBarrierOp(b.create(OpCode::WaitBarrier, {}, {barriers, index, phase}));
}

ArriveBarrierOp buildArriveBarrier(OpBuilder& b, Value barriers, Value index, Value pred) {
  return ArriveBarrierOp(b.create(OpCode::ArriveBarrier, {}, {barriers, index, pred}));
}

InitBarriersOp buildInitBarriers(OpBuilder& b, Value barriers, int64_t count) {
  AttrMap attrs;
  if (count != 1) attrs["count"] = count;  // the default, left out of the text
  return InitBarriersOp(b.create(OpCode::InitBarriers, {}, {barriers}, std::move(attrs)));
}

}  // namespace tessera::ir
