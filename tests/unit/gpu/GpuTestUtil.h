//===- GpuTestUtil.h - Helpers shared by the GPU layer's unit tests -*- C++ -*-===//
#pragma once

#include <gtest/gtest.h>

#include "tessera/ir/IR.h"

namespace tessera::gpu::test {

/// The n-th op (walk order) of `func` with this opcode; a test failure
/// printing the function when there is none.
inline ir::Operation* nthOp(ir::Operation* func, ir::OpCode code, int n = 0) {
  ir::Operation* found = nullptr;
  int seen = 0;
  func->walk([&](ir::Operation* o) {
    if (o->is(code) && seen++ == n) found = o;
  });
  EXPECT_NE(found, nullptr) << "no op #" << n << " " << ir::mnemonic(code) << " in\n" << ir::print(func);
  return found;
}

}  // namespace tessera::gpu::test
