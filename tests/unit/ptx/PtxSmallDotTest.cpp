//===- PtxSmallDotTest.cpp - tl.dot below the tensor cores' tiles ----------===//
//
// tl.dot with M or N below 16 (down to 1: a matrix-vector product) is
// computed with FMAs on the GPU (DotEncodings.cpp). The e2e kernel
// dot_small_shapes (tests/e2e/kernels/dot.py) compiled for sm_90a and sm_80
// runs here on PtxEval, the CPU model of the emitted PTX, one block of 4
// warps, on small integer values (exact in every dtype and order), against
// C++ sums; ptxas assembles each. Dot.SmallShapesDownToOne runs the same
// kernel on the interpreter and, in the GPU run, on a GPU.
//
//===----------------------------------------------------------------------===//

#include "PtxEval.h"
#include "PtxTestUtil.h"
#include "ir/FloatFormats.h"

namespace tessera {
namespace {

using ptxeval::PtxEval;
using ptxtest::bytesOf;
using ptxtest::e2eKernel;
using ptxtest::valuesOf;

TEST(PtxSmallDot, FmaProductsMatchTheSums) {
  struct Case {
    const char* type;  ///< the signature's element type
    int bytes;
    int64_t M, N, K;
  } cases[] = {{"fp16", 2, 64, 1, 128}, {"fp32", 4, 1, 32, 64}, {"bf16", 2, 16, 8, 32}, {"i8", 1, 4, 16, 32},
               {"fp16", 2, 64, 8, 32}};  // (M a multiple of 64: wgmma's shape but for N)
  for (const char* arch : {"sm_90a", "sm_80"})
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(arch) + " " + c.type + " " + std::to_string(c.M) + "x" + std::to_string(c.N) + "x" +
                   std::to_string(c.K));
      bool isInt = std::string(c.type) == "i8";
      std::string sig = std::string("*") + c.type + ":16, *" + c.type + ":16, *" + (isInt ? "i32" : "fp32") +
                        ":16, M=" + std::to_string(c.M) + ", N=" + std::to_string(c.N) + ", K=" + std::to_string(c.K);
      gpu::PtxKernel k = ptxtest::compile(e2eKernel("dot.py"), "dot_small_shapes", sig, 4, arch);
      EXPECT_EQ(ptxtest::assemble(k, arch), "");
      EXPECT_FALSE(ptxtest::has(k.ptx, "mma.sync") || ptxtest::has(k.ptx, "wgmma")) << "FMAs, not the tensor cores";
      std::vector<int> a(c.M * c.K), b(c.K * c.N);
      for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<int>(i * 7 % 9) - 4;
      for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<int>(i * 5 % 7) - 3;
      auto encode = [&](const std::vector<int>& v) {
        std::vector<uint8_t> out;
        for (int x : v) {
          if (c.bytes == 1) {
            out.push_back(static_cast<uint8_t>(static_cast<int8_t>(x)));
          } else if (c.bytes == 2) {
            float f = static_cast<float>(x);
            uint16_t h = std::string(c.type) == "fp16" ? ir::floats::floatToHalf(f) : ir::floats::floatToBF16(f);
            out.push_back(static_cast<uint8_t>(h));
            out.push_back(static_cast<uint8_t>(h >> 8));
          } else {
            std::vector<uint8_t> f = bytesOf(std::vector<float>{static_cast<float>(x)});
            out.insert(out.end(), f.begin(), f.end());
          }
        }
        return out;
      };
      std::vector<uint8_t> ab = encode(a), bb = encode(b), cb(c.M * c.N * 4, 0xEE);
      PtxEval eval(k.ptx);
      uint64_t p0 = eval.addBuffer(&ab), p1 = eval.addBuffer(&bb), p2 = eval.addBuffer(&cb);
      eval.runBlock({p0, p1, p2}, 32 * 4, k.sharedBytes);
      for (int64_t i = 0; i < c.M; ++i)
        for (int64_t j = 0; j < c.N; ++j) {
          int64_t want = 0;
          for (int64_t kk = 0; kk < c.K; ++kk) want += a[i * c.K + kk] * b[kk * c.N + j];
          int64_t got = isInt ? valuesOf<int32_t>(cb)[i * c.N + j]
                              : static_cast<int64_t>(valuesOf<float>(cb)[i * c.N + j]);
          ASSERT_EQ(got, want) << "C[" << i << "," << j << "]";
        }
    }
}

}  // namespace
}  // namespace tessera
