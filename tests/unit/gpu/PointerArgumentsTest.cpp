//===- PointerArgumentsTest.cpp - Which kernel argument a pointer points into -===//
//
// lib/gpu/PointerArguments.h decides which loads the loop passes may move
// past a loop's writes: a write spares a load only when both point into
// known, different kernel arguments. Checked on Triton-language kernels
// after the Tile IR pipeline (as the GPU passes see them): pointers
// advanced in a loop keep their argument; pointers swapped, selected or
// loaded from memory have none (so nothing moves past a write through
// them); only stores and relaxed atomics into another argument spare a load.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include "../frontend/TestUtil.h"
#include "GpuTestUtil.h"
#include "gpu/PointerArguments.h"
#include "tessera/transforms/Passes.h"

namespace tessera::gpu {
namespace {

using ir::OpCode;
using ir::Operation;
using ir::Value;

const char* kKernels = R"(
import triton
import triton.language as tl

@triton.jit
def advanced(a_ptr, b_ptr, out_ptr, N):
    offs = tl.arange(0, 64)
    p = a_ptr + offs
    for i in range(N):
        x = tl.load(p)
        tl.store(out_ptr + offs, x)
        tl.atomic_add(b_ptr + offs, x, sem="relaxed")
        tl.atomic_add(b_ptr + offs, x)
        tl.store(a_ptr + 64 + offs, x)
        p += 64

@triton.jit
def swapped(a_ptr, b_ptr, N):
    offs = tl.arange(0, 64)
    src = a_ptr + offs
    dst = b_ptr + offs
    for i in range(N):
        tl.store(dst, tl.load(src))
        src, dst = dst, src

@triton.jit
def selected(a_ptr, b_ptr, table, flag):
    offs = tl.arange(0, 64)
    p = tl.where(flag > 0, a_ptr, b_ptr)
    q = tl.load(table).to(tl.pointer_type(tl.float32))
    tl.store(p + offs, tl.load(q + offs))
)";

struct Compiled {
  std::unique_ptr<ir::Module> module;
  Operation* func = nullptr;
  /// The n-th op (walk order) with this opcode.
  Operation* op(OpCode code, int n = 0) const { return test::nthOp(func, code, n); }
  Value arg(unsigned i) const { return func->region(0).front().argument(i); }
};

Compiled compile(const std::string& kernel, const std::string& sig) {
  auto prog = frontend::test::load(kKernels);
  frontend::CompileResult r = prog->compile(kernel, frontend::test::parseSpecs(sig), {});
  transforms::runTileIRPipeline(*r.module);
  Compiled c;
  c.module = std::move(r.module);
  c.func = c.module->lookup(r.kernelName);
  return c;
}

TEST(PointerArguments, AdvancedPointersKeepTheirArgument) {
  Compiled c = compile("advanced", "*fp32:16, *fp32:16, *fp32:16, i32");
  ASSERT_NE(c.func, nullptr);
  Operation* load = c.op(OpCode::Load);
  Value read = pointerArgument(load->operand(0));
  EXPECT_EQ(read, c.arg(0)) << ir::print(c.func);
  Operation* toOut = c.op(OpCode::Store, 0);
  Operation* relaxed = c.op(OpCode::AtomicRMW, 0);
  Operation* ordered = c.op(OpCode::AtomicRMW, 1);
  Operation* toA = c.op(OpCode::Store, 1);
  EXPECT_EQ(pointerArgument(toOut->operand(0)), c.arg(2));
  EXPECT_TRUE(writeSpares(toOut, read)) << "a store into another argument";
  EXPECT_TRUE(writeSpares(relaxed, read)) << "a relaxed atomic into another argument";
  EXPECT_FALSE(writeSpares(ordered, read)) << "an acq_rel atomic orders what follows it";
  EXPECT_FALSE(writeSpares(toA, read)) << "a store into the argument the load reads";
  EXPECT_FALSE(writeSpares(toOut, Value())) << "a load of unknown origin";
}

TEST(PointerArguments, SwappedSelectedAndLoadedPointersHaveNoArgument) {
  Compiled s = compile("swapped", "*fp32:16, *fp32:16, i32");
  ASSERT_NE(s.func, nullptr);
  EXPECT_FALSE(pointerArgument(s.op(OpCode::Load)->operand(0))) << ir::print(s.func);
  EXPECT_FALSE(pointerArgument(s.op(OpCode::Store)->operand(0)));
  EXPECT_FALSE(writeSpares(s.op(OpCode::Store), s.arg(0)));
  Compiled w = compile("selected", "*fp32:16, *fp32:16, *i64:16, i32");
  ASSERT_NE(w.func, nullptr);
  EXPECT_FALSE(pointerArgument(w.op(OpCode::Store)->operand(0))) << "selected\n" << ir::print(w.func);
  EXPECT_FALSE(pointerArgument(w.op(OpCode::Load, 1)->operand(0))) << "loaded from memory";
  EXPECT_EQ(pointerArgument(w.op(OpCode::Load, 0)->operand(0)), w.arg(2));
}

}  // namespace
}  // namespace tessera::gpu
