//===- PtxInlineAsmTest.cpp - tl.inline_asm_elementwise's operands ---------===//
//
// tl.inline_asm_elementwise with `pack` across element widths, as Triton
// passes them: elements of 32 bits or more one register each, narrower ones
// packed 32 / bits to a 32-bit register (four uint8 in one "r", four fp16 in
// two). The kernels of tests/e2e/kernels/debugging.py run here on PtxEval,
// the CPU model of the emitted PTX (the interpreter refuses inline asm;
// Debug.InlineAsmOnTheGpu runs them on a GPU), against C++ references, on
// block sizes that leave threads fewer than `pack` elements; ptxas
// assembles them where it is installed.
//
//===----------------------------------------------------------------------===//

#include "PtxEval.h"
#include "PtxTestUtil.h"

namespace tessera {
namespace {

using ptxeval::PtxEval;
using ptxtest::bytesOf;
using ptxtest::e2eKernel;
using ptxtest::valuesOf;

// Four uint8 per input register, four uint16 results in two output
// registers: each byte zero-extended.
TEST(PtxInlineAsm, PackedBytesWidenIntoTwoRegisters) {
  for (int64_t block : {int64_t(512), int64_t(64), int64_t(8)}) {
    SCOPED_TRACE("BLOCK " + std::to_string(block));
    gpu::PtxKernel k =
        ptxtest::compile(e2eKernel("debugging.py"), "inline_asm_widening", "*u8:16, *u16:16, BLOCK=" + std::to_string(block), 4);
    EXPECT_EQ(ptxtest::assemble(k, "sm_90a"), "");
    std::vector<uint8_t> x(block);
    for (int64_t i = 0; i < block; ++i) x[i] = static_cast<uint8_t>(i * 37 + 201);
    std::vector<uint8_t> xb = x, yb(block * 2, 0xEE);
    PtxEval eval(k.ptx);
    uint64_t a0 = eval.addBuffer(&xb), a1 = eval.addBuffer(&yb);
    eval.runBlock({a0, a1}, 32 * 4, k.sharedBytes);
    std::vector<uint16_t> y = valuesOf<uint16_t>(yb);
    for (int64_t i = 0; i < block; ++i) ASSERT_EQ(y[i], x[i]) << "element " << i;
  }
}

// Four int32 inputs, one register each, their low bytes packed into one
// output register of four int8.
TEST(PtxInlineAsm, WordsNarrowIntoOnePackedRegister) {
  for (int64_t block : {int64_t(512), int64_t(64), int64_t(8)}) {
    SCOPED_TRACE("BLOCK " + std::to_string(block));
    gpu::PtxKernel k =
        ptxtest::compile(e2eKernel("debugging.py"), "inline_asm_narrowing", "*i32:16, *i8:16, BLOCK=" + std::to_string(block), 4);
    EXPECT_EQ(ptxtest::assemble(k, "sm_90a"), "");
    std::vector<int32_t> x(block);
    for (int64_t i = 0; i < block; ++i) x[i] = static_cast<int32_t>(i * 2654435761u);
    std::vector<uint8_t> xb = bytesOf(x), yb(block, 0xEE);
    PtxEval eval(k.ptx);
    uint64_t a0 = eval.addBuffer(&xb), a1 = eval.addBuffer(&yb);
    eval.runBlock({a0, a1}, 32 * 4, k.sharedBytes);
    std::vector<int8_t> y = valuesOf<int8_t>(yb);
    for (int64_t i = 0; i < block; ++i) ASSERT_EQ(y[i], static_cast<int8_t>(x[i] & 0xFF)) << "element " << i;
  }
}

// Operands constrained "n" are immediates in the text (ptxas refuses a
// register for lop3's LUT): (a & b) | c with b and c immediates too.
TEST(PtxInlineAsm, ImmediateOperandsAreLiterals) {
  gpu::PtxKernel k = ptxtest::compile(e2eKernel("debugging.py"), "inline_asm_immediates", "*i32:16, *i32:16, BLOCK=128", 4);
  EXPECT_NE(k.ptx.find("lop3.b32"), std::string::npos);
  EXPECT_NE(k.ptx.find(", 983055, 1677747200, 234;"), std::string::npos) << k.ptx;
  EXPECT_EQ(ptxtest::assemble(k, "sm_90a"), "");
  std::vector<int32_t> x(128);
  for (int64_t i = 0; i < 128; ++i) x[i] = static_cast<int32_t>(i * 2654435761u);
  std::vector<uint8_t> xb = bytesOf(x), yb(128 * 4, 0xEE);
  PtxEval eval(k.ptx);
  uint64_t a0 = eval.addBuffer(&xb), a1 = eval.addBuffer(&yb);
  eval.runBlock({a0, a1}, 32 * 4, k.sharedBytes);
  std::vector<int32_t> y = valuesOf<int32_t>(yb);
  for (int64_t i = 0; i < 128; ++i)
    ASSERT_EQ(static_cast<uint32_t>(y[i]), (static_cast<uint32_t>(x[i]) & 0x000F000Fu) | 0x64006400u) << "element " << i;
}

}  // namespace
}  // namespace tessera
