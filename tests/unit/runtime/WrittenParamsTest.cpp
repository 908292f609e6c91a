//===- WrittenParamsTest.cpp - Which tensor arguments a kernel may write ---===//
//
// detail::writtenParams on kernels compiled from source: plain stores and
// atomics, pointers that go through loops, selects, block pointers and
// helper calls, and the cases it must give up on (pointers made from
// integers or loaded from memory). The autotuner saves only what it marks.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include "api/Internal.h"
#include "tessera/tessera.h"

namespace tessera {
namespace {

const char* kSource = R"(
import triton
import triton.language as tl

@triton.jit
def axpy(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)

@triton.jit
def histogram(x_ptr, counts_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.atomic_add(counts_ptr + v, 1, mask=offs < n)

@triton.jit
def pick_in_loop(a_ptr, b_ptr, c_ptr, n, FLAG: tl.constexpr, BLOCK: tl.constexpr):
    p = a_ptr
    for i in range(0, n):
        p = tl.where(i % 2 == 0, b_ptr, p)
    tl.store(p + tl.arange(0, BLOCK), tl.load(c_ptr + tl.arange(0, BLOCK)))

@triton.jit
def _write(dst, val, BLOCK: tl.constexpr):
    tl.store(dst + tl.arange(0, BLOCK), val)

@triton.jit
def via_helper_and_block_ptr(src_ptr, dst_ptr, blk_ptr, BLOCK: tl.constexpr):
    v = tl.load(src_ptr + tl.arange(0, BLOCK))
    _write(dst_ptr, v, BLOCK)
    bp = tl.make_block_ptr(blk_ptr, shape=(BLOCK,), strides=(1,), offsets=(0,), block_shape=(BLOCK,), order=(0,))
    tl.store(bp, v)

@triton.jit
def asm_store(x_ptr, dst_ptr, BLOCK: tl.constexpr):
    addr = (dst_ptr + tl.arange(0, BLOCK)).to(tl.int64)
    v = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.inline_asm_elementwise("st.global.b32 [$1], $2; mov.b32 $0, 0;", "=r,l,r", [addr, v], dtype=tl.int32,
                              is_pure=False, pack=1)

@triton.jit
def from_integer(x_ptr, addr, BLOCK: tl.constexpr):
    p = addr.to(tl.pointer_type(tl.float32))
    tl.store(p + tl.arange(0, BLOCK), tl.load(x_ptr + tl.arange(0, BLOCK)))
)";

std::optional<std::vector<bool>> written(const char* kernel, const std::string& signature, const Meta& meta) {
  static Program program = Program::from_source(kSource, "written.py");
  Kernel k = program.kernel(kernel);
  CompiledKernel c = k.compile(signature, meta, {}, "sm_90a");
  return detail::writtenParams(*c.impl(), k.parameter_names().size());
}

TEST(WrittenParams, StoresAndAtomics) {
  auto w = written("axpy", "*fp32:16, *fp32:16, *fp32:16, i32", {{"BLOCK", int64_t(128)}});
  ASSERT_TRUE(w);
  EXPECT_EQ(*w, (std::vector<bool>{false, false, true, false, false}));
  w = written("histogram", "*i32:16, *i32:16, i32", {{"BLOCK", int64_t(64)}});
  ASSERT_TRUE(w);
  EXPECT_EQ(*w, (std::vector<bool>{false, true, false, false}));
}

TEST(WrittenParams, LoopCarriedSelectedHelperAndBlockPointers) {
  // The loop may leave p at a or b: both may be written, c is only read.
  auto w = written("pick_in_loop", "*fp32:16, *fp32:16, *fp32:16, i32", {{"FLAG", int64_t(1)}, {"BLOCK", int64_t(32)}});
  ASSERT_TRUE(w);
  EXPECT_EQ(*w, (std::vector<bool>{true, true, false, false, false, false}));
  w = written("via_helper_and_block_ptr", "*fp32:16, *fp32:16, *fp32:16", {{"BLOCK", int64_t(32)}});
  ASSERT_TRUE(w);
  EXPECT_EQ(*w, (std::vector<bool>{false, true, true, false}));
}

// An address passed to inline assembly as an integer still counts.
TEST(WrittenParams, InlineAsmWritesThroughIntegerAddresses) {
  auto w = written("asm_store", "*i32:16, *i32:16", {{"BLOCK", int64_t(32)}});
  ASSERT_TRUE(w);
  EXPECT_TRUE((*w)[1]);
}

TEST(WrittenParams, UntraceablePointersGiveUp) {
  EXPECT_FALSE(written("from_integer", "*fp32:16, i64", {{"BLOCK", int64_t(32)}}));
}

}  // namespace
}  // namespace tessera
