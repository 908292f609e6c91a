//===- DotTest.cpp - tl.dot and matmul kernels ----------------------------===//
//
// kernels/dot.py against double-precision products of the (rounded) inputs:
// fp32 (ieee and default precision), fp16, bf16, int8 (exact), fp8 e4m3 and
// e5m2, out_dtype=fp16, acc=, a batched 3-D dot and a grouped-ordering
// matmul whose M, N, K are not multiples of the blocks.
//
//===----------------------------------------------------------------------===//

#include <array>

#include "e2e/Harness.h"

using namespace e2e;
using tessera::DType;

namespace {

const char* kFile = "dot.py";

class Dot : public ::testing::Test {};

struct Mat {
  std::vector<float> values;  ///< already rounded to the operand dtype
  tessera::Tensor tensor;
};

Mat randomMat(Rng& rng, DType dtype, int64_t rows, int64_t cols, float range) {
  Mat m;
  m.values = rng.floats(rows * cols, -range, range);
  for (auto& v : m.values) {
    switch (dtype) {
      case DType::fp16: v = roundHalf(v); break;
      case DType::bf16: v = roundBf16(v); break;
      case DType::fp8e4nv: v = fp8e4nvToFloat(floatToFp8e4nv(v)); break;
      case DType::fp8e5: v = fp8e5ToFloat(floatToFp8e5(v)); break;
      case DType::i8: v = std::round(v); break;
      default: break;
    }
  }
  if (dtype == DType::i8) {
    std::vector<int8_t> q(m.values.begin(), m.values.end());
    m.tensor = dev().upload(q, {rows, cols});
  } else {
    m.tensor = uploadAs(dtype, m.values, {rows, cols});
  }
  return m;
}

/// Reference product with per-element error bounds: |got - want| <=
/// rel * sum_k |a_ik b_kj| + 1e-6.
void checkProduct(const std::vector<float>& got, const std::vector<float>& a, const std::vector<float>& b,
                  int64_t M, int64_t N, int64_t K, double rel, const std::string& what,
                  const std::vector<float>* bias = nullptr) {
  ASSERT_EQ(got.size(), static_cast<size_t>(M * N)) << what;
  int bad = 0;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double s = bias ? (*bias)[i * N + j] : 0.0, mag = std::fabs(s);
      for (int64_t k = 0; k < K; ++k) {
        s += double(a[i * K + k]) * b[k * N + j];
        mag += std::fabs(double(a[i * K + k]) * b[k * N + j]);
      }
      double err = std::fabs(got[i * N + j] - s);
      if (!(err <= rel * mag + 1e-6) && bad++ < 8)
        ADD_FAILURE() << what << " C[" << i << "," << j << "]: got " << got[i * N + j] << ", want " << s;
    }
  EXPECT_EQ(bad, 0) << what;
}

void runSingleTile(DType dtype, const std::string& precision, double rel) {
  SCOPED_TRACE(std::string(tessera::dtype_name(dtype)) + " " + precision);
  E2E_RNG(rng);
  int64_t M = 20, N = 28, K = 40;
  auto a = randomMat(rng, dtype, M, K, dtype == DType::i8 ? 100.0f : 2.0f);
  auto b = randomMat(rng, dtype, K, N, dtype == DType::i8 ? 100.0f : 2.0f);
  bool isInt = dtype == DType::i8;
  auto c = dev().zeros(isInt ? DType::i32 : DType::fp32, {M, N});
  kernel(kFile, "dot_single_tile")
      .launch(dev(), {1}, {a.tensor, b.tensor, c, M, N, K},
              {{"BM", int64_t(32)}, {"BN", int64_t(32)}, {"BK", int64_t(64)}, {"PRECISION", precision}});
  if (isInt) {
    std::vector<int32_t> want(M * N, 0);
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j)
        for (int64_t k = 0; k < K; ++k)
          want[i * N + j] += static_cast<int32_t>(a.values[i * K + k]) * static_cast<int32_t>(b.values[k * N + j]);
    expectEqual(c.download<int32_t>(), want, "int8 dot -> int32");
  } else {
    checkProduct(c.download<float>(), a.values, b.values, M, N, K, rel, "dot");
  }
}

// M or N below 16, down to 1 (Triton's minimum dot size on NVIDIA): a
// matrix-vector product (N = 1), a row times a matrix (M = 1) and small
// tiles, in fp16, bf16, fp32 and int8, against float64 (int32) sums.
TEST_F(Dot, SmallShapesDownToOne) {
  E2E_RNG(rng);
  struct Case {
    DType dtype;
    int64_t M, N, K;
  } cases[] = {{DType::fp16, 64, 1, 128}, {DType::fp32, 1, 32, 64}, {DType::bf16, 16, 8, 32},
               {DType::fp32, 2, 16, 16}, {DType::i8, 4, 16, 32}};
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(tessera::dtype_name(c.dtype)) + " " + std::to_string(c.M) + "x" + std::to_string(c.N) +
                 "x" + std::to_string(c.K));
    bool isInt = c.dtype == DType::i8;
    auto a = randomMat(rng, c.dtype, c.M, c.K, isInt ? 100.0f : 2.0f);
    auto b = randomMat(rng, c.dtype, c.K, c.N, isInt ? 100.0f : 2.0f);
    auto out = dev().zeros(isInt ? DType::i32 : DType::fp32, {c.M, c.N});
    kernel(kFile, "dot_small_shapes").launch(dev(), {1}, {a.tensor, b.tensor, out}, {{"M", c.M}, {"N", c.N}, {"K", c.K}});
    if (isInt) {
      std::vector<int32_t> want(c.M * c.N, 0);
      for (int64_t i = 0; i < c.M; ++i)
        for (int64_t j = 0; j < c.N; ++j)
          for (int64_t k = 0; k < c.K; ++k)
            want[i * c.N + j] += static_cast<int32_t>(a.values[i * c.K + k]) * static_cast<int32_t>(b.values[k * c.N + j]);
      expectEqual(out.download<int32_t>(), want, "int8");
    } else {
      checkProduct(out.download<float>(), a.values, b.values, c.M, c.N, c.K, c.dtype == DType::fp32 ? 2e-3 : 1e-5,
                   "small dot");
    }
  }
}

TEST_F(Dot, Fp32Ieee) { runSingleTile(DType::fp32, "ieee", 1e-5); }
// The default precision for fp32 is tf32 on the GPU: 10-bit mantissas.
TEST_F(Dot, Fp32DefaultPrecision) { runSingleTile(DType::fp32, "default", 2e-3); }
TEST_F(Dot, Fp16) { runSingleTile(DType::fp16, "default", 1e-5); }
TEST_F(Dot, Bf16) { runSingleTile(DType::bf16, "default", 1e-5); }
TEST_F(Dot, Int8) { runSingleTile(DType::i8, "default", 0); }
TEST_F(Dot, Fp8E4nv) { runSingleTile(DType::fp8e4nv, "default", 1e-5); }
TEST_F(Dot, Fp8E5) { runSingleTile(DType::fp8e5, "default", 1e-5); }

TEST_F(Dot, Fp16OutDtype) {
  E2E_RNG(rng);
  const int64_t M = 16, N = 32, K = 32;
  auto a = randomMat(rng, DType::fp16, M, K, 1.0f);
  auto b = randomMat(rng, DType::fp16, K, N, 1.0f);
  auto c = dev().zeros(DType::fp16, {M, N});
  kernel(kFile, "dot_fp16_out").launch(dev(), {1}, {a.tensor, b.tensor, c}, {{"BM", M}, {"BN", N}, {"BK", K}});
  // fp16 accumulation: allow fp16 rounding of partial sums.
  checkProduct(downloadFloats(c), a.values, b.values, M, N, K, 1e-2, "dot out_dtype=fp16");
}

TEST_F(Dot, AccumulatorArgument) {
  E2E_RNG(rng);
  int64_t M = 19, N = 30, K = 77;
  auto a = randomMat(rng, DType::fp32, M, K, 1.0f);
  auto b = randomMat(rng, DType::fp32, K, N, 1.0f);
  auto bias = rng.floats(M * N, -5, 5);
  auto tbias = dev().upload(bias, {M, N});
  auto c = dev().zeros(DType::fp32, {M, N});
  kernel(kFile, "dot_accumulate")
      .launch(dev(), {1}, {a.tensor, b.tensor, tbias, c, M, N, K},
              {{"BM", int64_t(32)}, {"BN", int64_t(32)}, {"BK", int64_t(32)}});
  checkProduct(c.download<float>(), a.values, b.values, M, N, K, 1e-5, "bias + sum of dot(acc=)", &bias);
}

TEST_F(Dot, Batched3D) {
  E2E_RNG(rng);
  const int64_t B = 2, M = 16, N = 16, K = 32;
  auto a = rng.floats(B * M * K, -1, 1), b = rng.floats(B * K * N, -1, 1);
  auto ta = dev().upload(a, {B, M, K}), tb = dev().upload(b, {B, K, N});
  auto c = dev().zeros(DType::fp32, {B, M, N});
  kernel(kFile, "batched_dot").launch(dev(), {1}, {ta, tb, c}, {{"BATCH", B}, {"M", M}, {"N", N}, {"K", K}});
  auto got = c.download<float>();
  for (int64_t bi = 0; bi < B; ++bi) {
    std::vector<float> gotB(got.begin() + bi * M * N, got.begin() + (bi + 1) * M * N);
    std::vector<float> aB(a.begin() + bi * M * K, a.begin() + (bi + 1) * M * K);
    std::vector<float> bB(b.begin() + bi * K * N, b.begin() + (bi + 1) * K * N);
    checkProduct(gotB, aB, bB, M, N, K, 1e-5, "batch " + std::to_string(bi));
  }
}

void runGroupedMatmul(DType inType, DType outType, double rel) {
  SCOPED_TRACE(std::string(tessera::dtype_name(inType)) + " -> " + tessera::dtype_name(outType));
  E2E_RNG(rng);
  int64_t M = 67, N = 45, K = 83;
  auto a = randomMat(rng, inType, M, K, 1.0f);
  auto b = randomMat(rng, inType, K, N, 1.0f);
  auto c = dev().zeros(outType, {M, N});
  int64_t calls = 0;
  kernel(kFile, "matmul_grouped")
      .launch(dev(), gridFn([&](const tessera::Meta& m) {
                ++calls;
                return std::vector<int64_t>{cdiv(M, metaInt(m, "BLOCK_M")) * cdiv(N, metaInt(m, "BLOCK_N"))};
              }),
              {a.tensor, b.tensor, c, M, N, K, K, int64_t(1), N, int64_t(1), N, int64_t(1)},
              {{"BLOCK_M", int64_t(16)}, {"BLOCK_N", int64_t(32)}, {"BLOCK_K", int64_t(32)}, {"GROUP_M", int64_t(2)}});
  EXPECT_GE(calls, 1);
  checkProduct(downloadFloats(c), a.values, b.values, M, N, K, rel, "grouped matmul");
}

TEST_F(Dot, GroupedMatmulFp32) { runGroupedMatmul(DType::fp32, DType::fp32, 1e-5); }
TEST_F(Dot, GroupedMatmulFp16) { runGroupedMatmul(DType::fp16, DType::fp16, 2e-3); }

// The tile shapes matmuls use, on 4 and 8 warps, with M, N, K that are not
// multiples of them. On sm_90a these run on wgmma (64-row warpgroup tiles,
// K steps of 16 within 32/64/128-byte swizzled rows of A, B in 64-column
// atoms; K = 128 as two 64-column atoms of A; narrow N down to one n16
// instruction per warpgroup, as attention's scores on 32-key blocks),
// elsewhere on mma.sync; fp32 output, so the check sees the accumulation
// itself.
TEST_F(Dot, TensorCoreTileShapes) {
  struct Config {
    int64_t bm, bn, bk;
    int warps;
  } configs[] = {{64, 64, 32, 4},  {128, 64, 64, 4}, {64, 128, 16, 4}, {128, 128, 32, 8}, {64, 256, 64, 8},
                 {128, 64, 128, 4}, {64, 32, 64, 4},  {64, 16, 32, 4},  {128, 32, 64, 8},  {64, 32, 32, 8}};
  for (DType dtype : {DType::fp16, DType::bf16}) {
    E2E_RNG(rng);
    int64_t M = 150, N = 197, K = 211;
    auto a = randomMat(rng, dtype, M, K, 1.0f);
    auto b = randomMat(rng, dtype, K, N, 1.0f);
    for (const Config& cfg : configs) {
      SCOPED_TRACE(std::string(tessera::dtype_name(dtype)) + " " + std::to_string(cfg.bm) + "x" + std::to_string(cfg.bn) +
                   "x" + std::to_string(cfg.bk) + ", " + std::to_string(cfg.warps) + " warps");
      auto c = dev().zeros(DType::fp32, {M, N});
      tessera::LaunchOptions options;
      options.num_warps = cfg.warps;
      kernel(kFile, "matmul_grouped")
          .launch(dev(), {cdiv(M, cfg.bm) * cdiv(N, cfg.bn)},
                  {a.tensor, b.tensor, c, M, N, K, K, int64_t(1), N, int64_t(1), N, int64_t(1)},
                  {{"BLOCK_M", cfg.bm}, {"BLOCK_N", cfg.bn}, {"BLOCK_K", cfg.bk}, {"GROUP_M", int64_t(4)}}, options);
      checkProduct(downloadFloats(c), a.values, b.values, M, N, K, 1e-4, "matmul");
    }
  }
}

// The same tiles with rows TMA can copy (N, K multiples of 16 elements: the
// strides specialize as such). On sm_90a pointer-tiles-to-tma makes the
// masked pointer tiles TMA copies: both, or one next to the other's cp.async
// copies in the same loop (N = 197: B's rows are not 16-byte aligned; K =
// 211: A's). The loop runs over tl.cdiv(K, BLOCK_K) iterations (K offset
// k * BLOCK_K); every dim has a partial block. Elsewhere, as before.
TEST_F(Dot, TensorCoreTilesFromAlignedPointerTiles) {
  struct Case {
    DType dtype;
    int64_t M, N, K;
    int64_t bm, bn, bk;
    int warps;
  } cases[] = {{DType::fp16, 150, 208, 240, 64, 64, 32, 4},   {DType::fp16, 150, 208, 240, 128, 128, 32, 8},
               {DType::bf16, 150, 208, 240, 64, 256, 64, 8},  {DType::bf16, 150, 208, 240, 128, 64, 128, 4},
               {DType::fp16, 150, 197, 240, 128, 64, 64, 4},  {DType::bf16, 150, 208, 211, 64, 128, 16, 4},
               {DType::fp16, 150, 208, 211, 64, 32, 64, 4}};
  for (const Case& t : cases) {
    SCOPED_TRACE(std::string(tessera::dtype_name(t.dtype)) + " " + std::to_string(t.M) + "x" + std::to_string(t.N) +
                 "x" + std::to_string(t.K) + " on " + std::to_string(t.bm) + "x" + std::to_string(t.bn) + "x" +
                 std::to_string(t.bk) + ", " + std::to_string(t.warps) + " warps");
    E2E_RNG(rng);
    auto a = randomMat(rng, t.dtype, t.M, t.K, 1.0f);
    auto b = randomMat(rng, t.dtype, t.K, t.N, 1.0f);
    auto c = dev().zeros(DType::fp32, {t.M, t.N});
    tessera::LaunchOptions options;
    options.num_warps = t.warps;
    kernel(kFile, "matmul_grouped")
        .launch(dev(), {cdiv(t.M, t.bm) * cdiv(t.N, t.bn)},
                {a.tensor, b.tensor, c, t.M, t.N, t.K, t.K, int64_t(1), t.N, int64_t(1), t.N, int64_t(1)},
                {{"BLOCK_M", t.bm}, {"BLOCK_N", t.bn}, {"BLOCK_K", t.bk}, {"GROUP_M", int64_t(4)}}, options);
    checkProduct(downloadFloats(c), a.values, b.values, t.M, t.N, t.K, 1e-4, "matmul");
  }
}

// Triton's tutorial form: the edge tiles' rows and columns wrap around (%
// M, % N) instead of being masked, and only the store's mask drops what
// they give. On sm_90a both operands are TMA copies (pointer-tiles-to-tma
// proves the wrapped rows never reach memory; TMA reads zeros there). With
// ROW_SUMS the kernel also stores the first tile row's column sums over all
// BLOCK_M rows, wrapped ones included: then the loads must stay pointer
// loads, and the sums count rows r % M.
TEST_F(Dot, WrappedRowsMatmul) {
  E2E_RNG(rng);
  const int64_t M = 100, N = 208, K = 240;
  auto a = randomMat(rng, DType::fp16, M, K, 1.0f);
  auto b = randomMat(rng, DType::fp16, K, N, 1.0f);
  std::vector<double> ref(M * N, 0.0);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t j = 0; j < N; ++j) ref[i * N + j] += double(a.values[i * K + k]) * b.values[k * N + j];
  struct Config {
    int64_t bm, bn, bk;
    int warps;
  } configs[] = {{64, 64, 32, 4}, {128, 128, 64, 8}};
  for (const Config& cfg : configs)
    for (int64_t rowSums : {0, 1}) {
      SCOPED_TRACE(std::to_string(cfg.bm) + "x" + std::to_string(cfg.bn) + "x" + std::to_string(cfg.bk) +
                   (rowSums ? ", column sums" : ""));
      auto c = dev().zeros(DType::fp32, {M + 1, N});
      tessera::LaunchOptions options;
      options.num_warps = cfg.warps;
      kernel(kFile, "matmul_wrapped_rows")
          .launch(dev(), {cdiv(M, cfg.bm) * cdiv(N, cfg.bn)}, {a.tensor, b.tensor, c, M, N, K, K, N, N},
                  {{"BLOCK_M", cfg.bm}, {"BLOCK_N", cfg.bn}, {"BLOCK_K", cfg.bk}, {"GROUP_M", int64_t(4)},
                   {"ROW_SUMS", rowSums}},
                  options);
      std::vector<float> got = downloadFloats(c);
      checkProduct(std::vector<float>(got.begin(), got.begin() + M * N), a.values, b.values, M, N, K, 1e-4,
                   "wrapped rows");
      if (!rowSums) continue;
      int bad = 0;
      for (int64_t j = 0; j < N; ++j) {
        double want = 0, mag = 0;
        for (int64_t r = 0; r < cfg.bm; ++r) {
          want += ref[(r % M) * N + j];
          mag += std::fabs(ref[(r % M) * N + j]);
        }
        if (!(std::fabs(got[M * N + j] - want) <= 1e-4 * mag + 1e-3) && bad++ < 8)
          ADD_FAILURE() << "column sum " << j << ": got " << got[M * N + j] << ", want " << want;
      }
      EXPECT_EQ(bad, 0);
    }
}

// A kernel that doubles its rows of A in place, then multiplies them: on
// sm_90a the product's loads are TMA copies, which read through the async
// proxy, so the loop gets a proxy fence after the stores (and the kernel's
// tl.debug_barrier orders the other threads' stores first).
TEST_F(Dot, TmaCopiesSeeEarlierStores) {
  E2E_RNG(rng);
  const int64_t M = 100, N = 64, K = 96, BM = 64;
  auto a = randomMat(rng, DType::fp16, M, K, 1.0f);
  auto b = randomMat(rng, DType::fp16, K, N, 1.0f);
  auto c = dev().zeros(DType::fp32, {M, N});
  kernel(kFile, "matmul_after_scaling_rows")
      .launch(dev(), {cdiv(M, BM)}, {a.tensor, b.tensor, c, M, N, K, K, N, N},
              {{"BLOCK_M", BM}, {"BLOCK_N", N}, {"BLOCK_K", int64_t(32)}});
  std::vector<float> doubled = a.values;
  for (float& v : doubled) v *= 2;  // exact in fp16
  EXPECT_EQ(downloadFloats(a.tensor), doubled);
  checkProduct(downloadFloats(c), doubled, b.values, M, N, K, 1e-4, "product of the doubled rows");
}

// Row blocks that start 8 rows above A, as a halo would (the first
// program's offset is -8). With `rm >= 0` in the mask, those rows read
// zeros, which is what TMA reads there: the product is right. Without it,
// the pointer load would read the 8 rows before A. On sm_90a that load is
// a TMA copy, which cannot, so the program stops with a trap, and the
// error names the load; the interpreter reports the out-of-bounds read.
TEST_F(Dot, PointerTileRowsAboveTheTensor) {
  E2E_RNG(rng);
  const int64_t M = 100, N = 64, K = 96, BM = 64, BN = 64, SHIFT = 8;
  auto a = randomMat(rng, DType::fp16, M, K, 1.0f);
  auto b = randomMat(rng, DType::fp16, K, N, 1.0f);
  auto c = dev().zeros(DType::fp32, {M, N});
  auto launch = [&](bool checkLow) {
    kernel(kFile, "matmul_shifted_rows")
        .launch(dev(), {cdiv(M + SHIFT, BM), cdiv(N, BN)}, {a.tensor, b.tensor, c, M, N, K, K, N, N},
                {{"SHIFT", SHIFT}, {"CHECK_LOW", int64_t(checkLow)}, {"BLOCK_M", BM}, {"BLOCK_N", BN},
                 {"BLOCK_K", int64_t(32)}});
  };
  launch(true);
  checkProduct(downloadFloats(c), a.values, b.values, M, N, K, 1e-4, "shifted rows");
  if (onGpu() && dev().arch() != "sm_90a") return;  // pointer tiles are TMA copies on sm_90a only
  expectLaunchFailure([&] { launch(false); }, {"out-of-bounds load", "matmul_shifted_rows"},
                      {"'matmul_shifted_rows' stops with a trap when a check Tessera added fails",
                       "its offset along dim 0 is negative"});
}

}  // namespace

namespace {

/// `m` (rows x cols, row-major values) stored column-major with leading
/// dimension `ld` >= rows: a kernel reading it with strides (1, ld) sees
/// memory contiguous along dim 0.
tessera::Tensor columnMajor(DType dtype, const std::vector<float>& m, int64_t rows, int64_t cols, int64_t ld) {
  std::vector<float> t(static_cast<size_t>(cols * ld), 0.0f);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) t[j * ld + i] = m[i * cols + j];
  return uploadAs(dtype, t, {cols, ld});
}

// A and B stored row- or column-major. On sm_90a a tile contiguous along
// its dim 0 (A^T: M-major A; B^T: K-major B) goes to shared memory as it
// lies, in a transposed nvmma_shared layout, and wgmma reads it with its
// transpose flag off (B) or on (A); with a leading dimension divisible by
// 16 the pipeliner copies such tiles with 16-byte cp.async along dim 0,
// with an odd one (M, K themselves) they go through registers. Odd M, N,
// K; the tile shapes of the matmul configs.
TEST_F(Dot, TensorCoreOperandMajorness) {
  struct Config {
    int64_t bm, bn, bk;
    int warps, stages;
  } configs[] = {{64, 128, 32, 4, 4}, {128, 256, 64, 8, 3}, {128, 64, 128, 4, 2}, {64, 32, 64, 4, 3}};
  for (DType dtype : {DType::fp16, DType::bf16}) {
    E2E_RNG(rng);
    int64_t M = 150, N = 197, K = 211;
    auto a = randomMat(rng, dtype, M, K, 1.0f);
    auto b = randomMat(rng, dtype, K, N, 1.0f);
    for (bool padded : {true, false}) {
      int64_t lda = padded ? 160 : M, ldb = padded ? 224 : K;
      tessera::Tensor aCol = columnMajor(dtype, a.values, M, K, lda), bCol = columnMajor(dtype, b.values, K, N, ldb);
      for (bool aColumns : {false, true})
        for (bool bColumns : {false, true}) {
          if (!aColumns && !bColumns) continue;  // TensorCoreTileShapes
          for (const Config& cfg : configs) {
            if (!padded && cfg.bm != 64) continue;
            SCOPED_TRACE(std::string(tessera::dtype_name(dtype)) + (aColumns ? " A col-major" : " A row-major") +
                         (bColumns ? ", B col-major " : ", B row-major ") + (padded ? "(ld % 16 == 0) " : "") +
                         std::to_string(cfg.bm) + "x" + std::to_string(cfg.bn) + "x" + std::to_string(cfg.bk) + ", " +
                         std::to_string(cfg.warps) + " warps, " + std::to_string(cfg.stages) + " stages");
            auto c = dev().zeros(DType::fp32, {M, N});
            tessera::LaunchOptions options;
            options.num_warps = cfg.warps;
            options.num_stages = cfg.stages;
            int64_t sam = aColumns ? 1 : K, sak = aColumns ? lda : 1;
            int64_t sbk = bColumns ? 1 : N, sbn = bColumns ? ldb : 1;
            kernel(kFile, "matmul_grouped")
                .launch(dev(), {cdiv(M, cfg.bm) * cdiv(N, cfg.bn)},
                        {aColumns ? aCol : a.tensor, bColumns ? bCol : b.tensor, c, M, N, K, sam, sak, sbk, sbn, N,
                         int64_t(1)},
                        {{"BLOCK_M", cfg.bm}, {"BLOCK_N", cfg.bn}, {"BLOCK_K", cfg.bk}, {"GROUP_M", int64_t(4)}},
                        options);
            checkProduct(downloadFloats(c), a.values, b.values, M, N, K, 1e-4, "matmul");
          }
        }
    }
  }
}

// fp8 operands (e4m3, e5m2, one of each) on wgmma (sm_90a; elsewhere as
// exact fp16): wgmma reads fp8 tiles only K-major, so B stored column-major
// (K contiguous) goes to shared memory as it lies (by cp.async when K keeps
// rows 16-byte aligned), and B stored row-major is transposed on its way
// through registers. wgmma adds fp8 products with fewer bits than fp32:
// 2e-3 of the magnitude sum, where a misplaced element shows at ~1.
TEST_F(Dot, Fp8TensorCoreMatmul) {
  struct Config {
    int64_t bm, bn, bk;
    int warps, stages;
  } configs[] = {{128, 256, 128, 8, 3}, {128, 128, 64, 4, 4}, {64, 128, 32, 4, 4}};
  const std::pair<DType, DType> types[] = {
      {DType::fp8e4nv, DType::fp8e4nv}, {DType::fp8e5, DType::fp8e5}, {DType::fp8e4nv, DType::fp8e5}};
  const std::array<int64_t, 3> shapes[] = {{150, 197, 211}, {130, 200, 208}};
  for (auto [aType, bType] : types)
    for (auto [M, N, K] : shapes) {
      E2E_RNG(rng);
      auto a = randomMat(rng, aType, M, K, 1.0f);
      auto b = randomMat(rng, bType, K, N, 1.0f);
      tessera::Tensor bCol = columnMajor(bType, b.values, K, N, K);
      for (bool bColumns : {true, false})
        for (const Config& cfg : configs) {
          SCOPED_TRACE(std::string(tessera::dtype_name(aType)) + " x " + tessera::dtype_name(bType) + ", " +
                       std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K) +
                       (bColumns ? ", B col-major, " : ", B row-major, ") + std::to_string(cfg.bm) + "x" +
                       std::to_string(cfg.bn) + "x" + std::to_string(cfg.bk) + ", " + std::to_string(cfg.warps) +
                       " warps");
          auto c = dev().zeros(DType::fp32, {M, N});
          tessera::LaunchOptions options;
          options.num_warps = cfg.warps;
          options.num_stages = cfg.stages;
          int64_t sbk = bColumns ? 1 : N, sbn = bColumns ? K : 1;
          kernel(kFile, "matmul_grouped")
              .launch(dev(), {cdiv(M, cfg.bm) * cdiv(N, cfg.bn)},
                      {a.tensor, bColumns ? bCol : b.tensor, c, M, N, K, K, int64_t(1), sbk, sbn, N, int64_t(1)},
                      {{"BLOCK_M", cfg.bm}, {"BLOCK_N", cfg.bn}, {"BLOCK_K", cfg.bk}, {"GROUP_M", int64_t(4)}},
                      options);
          checkProduct(downloadFloats(c), a.values, b.values, M, N, K, 2e-3, "fp8 matmul");
        }
    }
}

}  // namespace

namespace {

// Two chained dots, the second one's A computed in registers: on sm_90a the
// first dot's accumulator, cast to 16 bits, is wgmma's A operand from
// registers with no shared-memory copy. Small integers keep every product
// and sum exact in fp16/bf16 and fp32, so any misplaced fragment shows.
TEST_F(Dot, ChainedDotsRegisterOperand) {
  struct Config {
    int64_t bm, bn, bk, bd;
    int warps;
  } configs[] = {{64, 64, 32, 64, 4}, {128, 64, 64, 64, 4}, {128, 128, 32, 128, 8}, {128, 64, 16, 128, 8}};
  for (DType dtype : {DType::fp16, DType::bf16})
    for (const Config& cfg : configs) {
      SCOPED_TRACE(std::string(tessera::dtype_name(dtype)) + " " + std::to_string(cfg.bm) + "x" +
                   std::to_string(cfg.bn) + "x" + std::to_string(cfg.bk) + " then x" + std::to_string(cfg.bd) + ", " +
                   std::to_string(cfg.warps) + " warps");
      E2E_RNG(rng);
      int64_t M = 200, N = cfg.bn - 5, K = cfg.bk - 3, D = cfg.bd - 7;
      auto ints = [&](int64_t n) {
        std::vector<float> v = rng.floats(n, -2.49f, 2.49f);
        for (float& x : v) x = std::round(x);
        return v;
      };
      std::vector<float> a = ints(M * K), b = ints(K * N), v = ints(N * D);
      auto o = dev().zeros(DType::fp32, {M, D});
      tessera::LaunchOptions options;
      options.num_warps = cfg.warps;
      kernel(kFile, "chained_dots")
          .launch(dev(), {cdiv(M, cfg.bm)},
                  {uploadAs(dtype, a, {M, K}), uploadAs(dtype, b, {K, N}), uploadAs(dtype, v, {N, D}), o, M, N, K, D},
                  {{"BM", cfg.bm}, {"BN", cfg.bn}, {"BK", cfg.bk}, {"BD", cfg.bd}}, options);
      std::vector<float> want(M * D, 0.0f);
      for (int64_t i = 0; i < M; ++i)
        for (int64_t n = 0; n < N; ++n) {
          double p = 0;
          for (int64_t k = 0; k < K; ++k) p += double(a[i * K + k]) * b[k * N + n];
          for (int64_t d = 0; d < D; ++d) want[i * D + d] += static_cast<float>(p * v[n * D + d]);
        }
      expectEqual(downloadFloats(o), want, "(A @ B) @ V");
    }
}

}  // namespace

namespace {

// A K-contiguous B tile that also has another use: its shared copy for
// wgmma is transposed while its registers run along N, so the copy must
// store element by element along the tile's contiguous dim, not in vectors
// along N.
TEST_F(Dot, ColumnMajorOperandWithASecondUse) {
  for (DType dtype : {DType::fp16, DType::bf16}) {
    SCOPED_TRACE(tessera::dtype_name(dtype));
    E2E_RNG(rng);
    int64_t M = 61, N = 120, K = 48;
    auto a = randomMat(rng, dtype, M, K, 1.0f);
    auto b = randomMat(rng, dtype, K, N, 1.0f);
    std::vector<float> bt(K * N);
    for (int64_t k = 0; k < K; ++k)
      for (int64_t n = 0; n < N; ++n) bt[n * K + k] = b.values[k * N + n];
    auto c = dev().zeros(DType::fp32, {M, N});
    auto sums = dev().zeros(DType::fp32, {N});
    kernel(kFile, "dot_column_major_b_two_uses")
        .launch(dev(), {1}, {a.tensor, uploadAs(dtype, bt, {N, K}), c, sums, M, N, K},
                {{"BM", int64_t(64)}, {"BN", int64_t(128)}, {"BK", int64_t(64)}});
    checkProduct(downloadFloats(c), a.values, b.values, M, N, K, 1e-4, "A @ B");
    std::vector<float> want(N, 0.0f);
    for (int64_t n = 0; n < N; ++n) {
      double s = 0;
      for (int64_t k = 0; k < K; ++k) s += b.values[k * N + n];
      want[n] = static_cast<float>(s);
    }
    std::vector<float> got = downloadFloats(sums);
    for (int64_t n = 0; n < N; ++n) EXPECT_NEAR(got[n], want[n], 1e-4) << "column " << n;
  }
}

}  // namespace

namespace {

// A persistent matmul (fewer programs than tiles, each walking tiles pid,
// pid + P, ... in grouped order) with the epilogue fused on the
// accumulator: + bias, leaky ReLU, cast to fp16. With N and K multiples of
// 16 (16-byte aligned rows) the inner K loop is pipelined on sm_90a inside
// the outer tile loop, so the stage buffers are refilled once per tile
// after the previous tile's epilogue used shared memory; with odd N and K
// the loads stay plain loads. The descriptor form (descriptors made once,
// before the tile loop) is copied by TMA there, on mbarriers initialized
// again for every tile's K loop.
struct PersistentConfig {
  int64_t bm, bn, bk;
  int warps, stages, programs;
};

void runPersistentMatmul(const char* kernelName, DType dtype, int64_t M, int64_t N, int64_t K,
                         const PersistentConfig& cfg) {
  SCOPED_TRACE(std::string(kernelName) + " " + tessera::dtype_name(dtype) + " " + std::to_string(M) + "x" + std::to_string(N) + "x" +
               std::to_string(K) + ", tiles " + std::to_string(cfg.bm) + "x" + std::to_string(cfg.bn) + "x" +
               std::to_string(cfg.bk) + ", " + std::to_string(cfg.programs) + " programs");
  E2E_RNG(rng);
  auto a = randomMat(rng, dtype, M, K, 1.0f);
  auto b = randomMat(rng, dtype, K, N, 1.0f);
  std::vector<float> bias = rng.floats(N, -4.0f, 4.0f);
  auto c = dev().zeros(DType::fp16, {M, N});
  tessera::LaunchOptions options;
  options.num_warps = cfg.warps;
  options.num_stages = cfg.stages;
  kernel(kFile, kernelName)
      .launch(dev(), {cfg.programs},
              {a.tensor, b.tensor, dev().upload(bias, {N}), c, M, N, K, K, int64_t(1), N, int64_t(1), N, int64_t(1)},
              {{"BLOCK_M", cfg.bm}, {"BLOCK_N", cfg.bn}, {"BLOCK_K", cfg.bk}, {"GROUP_M", int64_t(4)}}, options);
  std::vector<float> got = downloadFloats(c);
  int bad = 0;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double s = bias[j], mag = std::fabs(s);
      for (int64_t k = 0; k < K; ++k) {
        s += double(a.values[i * K + k]) * b.values[k * N + j];
        mag += std::fabs(double(a.values[i * K + k]) * b.values[k * N + j]);
      }
      double want = s > 0 ? s : 0.125 * s;
      // fp32 accumulation, then one fp16 rounding of the result.
      double tol = 1e-4 * mag + std::ldexp(std::fabs(want), -10) + 1e-3;
      if (!(std::fabs(got[i * N + j] - want) <= tol) && bad++ < 8)
        ADD_FAILURE() << "C[" << i << "," << j << "]: got " << got[i * N + j] << ", want " << want;
    }
  EXPECT_EQ(bad, 0);
}

/// Both dtypes, each config, at an aligned size and at `oddN` x `oddK`.
template <size_t N>
void runPersistentMatmuls(const char* kernelName, const PersistentConfig (&configs)[N], int64_t oddN, int64_t oddK) {
  for (DType dtype : {DType::fp16, DType::bf16})
    for (const PersistentConfig& cfg : configs) {
      runPersistentMatmul(kernelName, dtype, 300, 208, 224, cfg);
      runPersistentMatmul(kernelName, dtype, 300, oddN, oddK, cfg);
    }
}

TEST_F(Dot, PersistentMatmulWithFusedEpilogue) {
  const PersistentConfig configs[] = {{64, 64, 32, 4, 3, 5}, {128, 128, 64, 8, 3, 3}, {128, 256, 64, 8, 3, 2}};
  runPersistentMatmuls("matmul_persistent_epilogue", configs, 197, 211);
}

TEST_F(Dot, PersistentDescriptorMatmulWithFusedEpilogue) {
  const PersistentConfig configs[] = {{64, 64, 32, 4, 3, 5}, {128, 128, 64, 8, 4, 3}, {128, 256, 64, 8, 3, 2}};
  runPersistentMatmuls("matmul_persistent_epilogue_descriptor", configs, 197, 224);
}

}  // namespace
