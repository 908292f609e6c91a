//===- PtxAtomicsTest.cpp - Tensor atomics' PTX on the CPU model ----------===//
//
// tests/e2e/kernels/atomics.py's atomic_old_to_copies compiled for sm_90a
// and run by PtxEval over a whole CTA: float and int adds whose old values
// a layout change reads in every thread. On a 1 x 16 tile most threads hold
// copies of an element (only its owner adds; the copies take the owner's
// old value through shared memory), on 4 x 64 the floats go as vector
// atomics (atom...v2.f32). Each element must be added to once and every
// copy of its old value must be the value before the add: what
// Atomics.OldValuesReachEveryCopyOfAnElement checks on a GPU, here without
// one.
//
//===----------------------------------------------------------------------===//

#include <cstring>

#include "PtxEval.h"
#include "PtxTestUtil.h"

namespace tessera {
namespace {

using ptxeval::PtxEval;

using ptxtest::bytesOf;
using ptxtest::e2eKernel;
using ptxtest::valuesOf;

TEST(PtxAtomics, OldValuesReachEveryCopyOfAnElement) {
  const int64_t rep = 8, warps = 4;
  struct Case {
    int64_t rows, cols;
    const char* floatAtom;  ///< the float atomic the PTX must use
  } cases[] = {{1, 16, "atom.acq_rel.gpu.global.add.f32"}, {4, 64, "atom.acq_rel.gpu.global.add.v2.f32"}};
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.rows) + " x " + std::to_string(c.cols));
    gpu::PtxKernel k = ptxtest::compile(e2eKernel("atomics.py"), "atomic_old_to_copies",
                                        "*fp32:16, *i32:16, *fp32:16, *i32:16, ROWS=" + std::to_string(c.rows) +
                                            ", COLS=" + std::to_string(c.cols) + ", REP=" + std::to_string(rep),
                                        warps);
    EXPECT_TRUE(ptxtest::has(k.ptx, c.floatAtom)) << k.ptx;
    const int64_t n = c.rows * c.cols;
    std::vector<float> fstart(n);
    std::vector<int32_t> istart(n);
    for (int64_t i = 0; i < n; ++i) {
      fstart[i] = 3.0f * static_cast<float>(i) + 1.0f;
      istart[i] = static_cast<int32_t>(5 * i - 7);
    }
    std::vector<uint8_t> facc = bytesOf(fstart), iacc = bytesOf(istart);
    std::vector<uint8_t> fout(n * rep * 4, 0xEE), iout(n * rep * 4, 0xEE);
    PtxEval eval(k.ptx);
    uint64_t a0 = eval.addBuffer(&facc), a1 = eval.addBuffer(&iacc), a2 = eval.addBuffer(&fout),
             a3 = eval.addBuffer(&iout);
    eval.runBlock({a0, a1, a2, a3}, 32 * warps, k.sharedBytes);
    std::vector<float> fo = valuesOf<float>(fout), fa = valuesOf<float>(facc);
    std::vector<int32_t> io = valuesOf<int32_t>(iout), ia = valuesOf<int32_t>(iacc);
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(fa[i], fstart[i] + 1.0f) << "float element " << i << " added to once";
      ASSERT_EQ(ia[i], istart[i] + 1) << "int element " << i << " added to once";
      for (int64_t r = 0; r < rep; ++r) {
        ASSERT_EQ(fo[i * rep + r], fstart[i]) << "float old value of element " << i << ", copy " << r;
        ASSERT_EQ(io[i * rep + r], istart[i]) << "int old value of element " << i << ", copy " << r;
      }
    }
  }
}

// atomic_add_tile's float adds of a 11 x 64 tile (one block of 16 rows, the
// last 5 masked) from 3 programs run one after another: relaxed unread adds
// are `red` vectors, read ones `atom` vectors, .v4.f32 and .v8.bf16. The
// sums are exact (small integers), each element's old values are its start
// plus 0, 1, 2 (programs in order), and the masked rows' are 0.
TEST(PtxAtomics, VectorAddsOfTilesSumAndReturnOldValues) {
  const int64_t rows = 11, cols = 64, programs = 3, n = rows * cols, padded = 16 * cols;
  for (const char* type : {"fp32", "bf16"}) {
    for (bool returnOld : {false, true}) {
      SCOPED_TRACE(std::string(type) + (returnOld ? ", old values read" : ", relaxed"));
      bool f32 = std::string(type) == "fp32";
      std::string sig = std::string("*") + type + ":16, *" + type + ":16, *" + type +
                        ":16, i32, COLS=64, BLOCK_R=16, RETURN_OLD=" + (returnOld ? "True" : "False");
      gpu::PtxKernel k = ptxtest::compile(e2eKernel("atomics.py"), "atomic_add_tile", sig, 4);
      std::string want = std::string(returnOld ? "atom.acq_rel" : "red.relaxed") + ".gpu.global.add." +
                         (f32 ? "v4.f32" : "noftz.v8.bf16");
      EXPECT_TRUE(ptxtest::has(k.ptx, want)) << want;
      int bytes = f32 ? 4 : 2;
      auto encode = [&](float v) {
        uint32_t u;
        std::memcpy(&u, &v, 4);
        return f32 ? uint64_t{u} : uint64_t{u >> 16};  // exact small integers: bf16 is the top half
      };
      auto decode = [&](const std::vector<uint8_t>& b, int64_t i) {
        uint32_t u = 0;
        std::memcpy(&u, b.data() + i * bytes, bytes);
        if (!f32) u <<= 16;
        float v;
        std::memcpy(&v, &u, 4);
        return v;
      };
      std::vector<uint8_t> acc(n * bytes), vals(programs * n * bytes), olds(programs * padded * bytes, 0xEE);
      std::vector<float> start(n), add(programs * n);
      for (int64_t i = 0; i < n; ++i) {
        start[i] = static_cast<float>(8 * (i % 8));
        uint64_t e = encode(start[i]);
        std::memcpy(acc.data() + i * bytes, &e, bytes);
      }
      for (int64_t i = 0; i < programs * n; ++i) {
        add[i] = returnOld ? 1.0f : static_cast<float>(static_cast<int>(i % 17) - 8);
        uint64_t e = encode(add[i]);
        std::memcpy(vals.data() + i * bytes, &e, bytes);
      }
      PtxEval eval(k.ptx);
      uint64_t a0 = eval.addBuffer(&acc), a1 = eval.addBuffer(&vals), a2 = eval.addBuffer(&olds);
      for (int p = 0; p < programs; ++p) eval.runBlock({a0, a1, a2, uint64_t(rows)}, 128, k.sharedBytes, p);
      for (int64_t i = 0; i < n; ++i) {
        float sum = start[i];
        for (int64_t p = 0; p < programs; ++p) sum += add[p * n + i];
        ASSERT_EQ(decode(acc, i), sum) << "element " << i;
        if (!returnOld) continue;
        for (int64_t p = 0; p < programs; ++p)
          ASSERT_EQ(decode(olds, p * padded + i), start[i] + static_cast<float>(p))
              << "element " << i << ", program " << p;
      }
      if (returnOld)  // the masked rows' old values are 0, as on the interpreter
        for (int64_t p = 0; p < programs; ++p)
          for (int64_t i = n; i < padded; ++i) ASSERT_EQ(decode(olds, p * padded + i), 0.0f) << "masked element " << i;
    }
  }
}

}  // namespace
}  // namespace tessera
