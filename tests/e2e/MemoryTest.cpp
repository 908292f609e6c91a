//===- MemoryTest.cpp - Loads, stores, block pointers ---------------------===//
//
// kernels/memory.py: masked loads with `other` (runtime scalar and literal),
// volatile loads, cache/eviction hints, 2-D tiles addressed through strides
// (a transposed view), make_block_ptr/advance with boundary_check and both
// padding options, scalar loads/stores, bool tensors and int64 offsets.
//
//===----------------------------------------------------------------------===//

#include <tuple>

#include "e2e/Harness.h"

using namespace e2e;
using tessera::DType;

namespace {

const char* kFile = "memory.py";

TEST(Memory, MaskedLoadOther) {
  E2E_RNG(rng);
  int64_t n = 1000, block = 128, grid = cdiv(n, block);
  auto x = rng.floats(n, -3, 3);
  float fill = rng.uniform(10, 20);
  auto tx = dev().upload(x, {n});
  auto out = dev().zeros(DType::fp32, {2 * grid * block});
  kernel(kFile, "masked_copy_other").launch(dev(), {grid}, {tx, out, n, fill}, {{"BLOCK", block}});
  std::vector<float> want(2 * grid * block);
  for (int64_t i = 0; i < grid * block; ++i) {
    want[i] = i < n ? x[i] : fill;
    want[grid * block + i] = i < n ? x[i] : -1.5f;
  }
  expectSameBits(out.download<float>(), want, "masked lanes take `other`");
}

TEST(Memory, StridedTileCopyOfTransposedView) {
  E2E_RNG(rng);
  // src is stored as N x M (row-major); read it as the M x N view with
  // strides (1, M), i.e. its transpose.
  int64_t M = 45, N = 70;
  auto src = rng.floats(M * N, -8, 8);
  auto ts = dev().upload(src, {N, M});
  int64_t ldd = 75;  // padded destination rows
  std::vector<float> init(M * ldd, 42.0f);
  auto td = dev().upload(init, {M, ldd});
  kernel(kFile, "strided_tile_copy")
      .launch(dev(), gridFn([&](const tessera::Meta& m) {
                return std::vector<int64_t>{cdiv(M, metaInt(m, "BM")), cdiv(N, metaInt(m, "BN"))};
              }),
              {ts, td, M, N, int64_t(1), M, ldd, int64_t(1)}, {{"BM", int64_t(16)}, {"BN", int64_t(32)}});
  std::vector<float> want = init;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) want[i * ldd + j] = src[j * M + i] * 2.0f + 1.0f;
  expectClose(td.download<float>(), want, 1e-7, 0, "dst = 2 * src^T + 1");
}

TEST(Memory, BlockPointersAdvanceBoundaryCheck) {
  E2E_RNG(rng);
  int64_t M = 37, N = 90;
  const int64_t BM = 16, BN = 32;
  auto x = rng.floats(M * N, -1, 1);
  auto tx = dev().upload(x, {M, N});
  auto out = dev().zeros(DType::fp32, {M, N});
  auto sums = dev().zeros(DType::fp32, {M});
  kernel(kFile, "block_ptr_rows")
      .launch(dev(), {cdiv(M, BM)}, {tx, out, sums, M, N, N, int64_t(1)}, {{"BM", BM}, {"BN", BN}});
  std::vector<float> wOut(M * N), wSums(M);
  for (int64_t i = 0; i < M; ++i) {
    double s = 0;
    for (int64_t j = 0; j < N; ++j) {
      s += x[i * N + j];
      wOut[i * N + j] = x[i * N + j] * 3.0f;
    }
    wSums[i] = static_cast<float>(s);
  }
  expectSameBits(out.download<float>(), wOut, "block pointer store");
  expectClose(sums.download<float>(), wSums, 1e-5, 1e-5, "row sums through advance");
}

// A @jit helper called on block pointers of two block shapes ([16, 32] and
// [32, 16]) gives each call its own shape: out = A + B^T, exact.
TEST(Memory, BlockPointersOfTwoShapesThroughOneHelper) {
  E2E_RNG(rng);
  int64_t M = 13, N = 27;
  auto a = rng.floats(M * N, -1, 1), b = rng.floats(N * M, -1, 1);
  auto out = dev().zeros(DType::fp32, {M, N});
  kernel(kFile, "block_ptr_helper_two_shapes")
      .launch(dev(), {1}, {dev().upload(a, {M, N}), dev().upload(b, {N, M}), out, M, N},
              {{"BM", int64_t(16)}, {"BN", int64_t(32)}});
  std::vector<float> want(M * N);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) want[i * N + j] = a[i * N + j] + b[j * M + i];
  expectSameBits(out.download<float>(), want, "A + B^T through one helper");
}

/// `name` loads an 8 x 16 block of a 5 x 11 matrix with padding "nan" and
/// stores the whole block: the matrix, then NaN.
void expectNanPadding(const char* name) {
  SCOPED_TRACE(name);
  E2E_RNG(rng);
  int64_t M = 5, N = 11;
  const int64_t BM = 8, BN = 16;
  auto x = rng.floats(M * N, -1, 1);
  auto out = dev().zeros(DType::fp32, {BM, BN});
  kernel(kFile, name).launch(dev(), {1}, {dev().upload(x, {M, N}), out, M, N}, {{"BM", BM}, {"BN", BN}});
  std::vector<float> want(BM * BN, std::nanf(""));
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) want[i * BN + j] = x[i * N + j];
  expectSameBits(out.download<float>(), want, "padding_option=nan");
}

TEST(Memory, BlockPointerNanPadding) { expectNanPadding("block_ptr_nan_padding"); }

// tl.make_tensor_descriptor with desc.load / desc.store: tiles at the edges
// of a 37 x N matrix read zeros past them and store nothing there, with
// rows 16-byte aligned (112 floats) and not (90). No dot reads these
// blocks, so they are masked pointer tiles on every target.
TEST(Memory, TensorDescriptorTiles) {
  E2E_RNG(rng);
  for (int64_t N : {90, 112}) {
    SCOPED_TRACE("N = " + std::to_string(N));
    int64_t M = 37;
    const int64_t BM = 16, BN = 32;
    auto x = rng.floats(M * N, -1, 1);
    auto out = dev().upload(std::vector<float>(M * N, -7.0f), {M, N});
    kernel(kFile, "descriptor_tiles")
        .launch(dev(), {cdiv(M, BM), cdiv(N, BN)}, {dev().upload(x, {M, N}), out, M, N}, {{"BM", BM}, {"BN", BN}});
    std::vector<float> want(M * N);
    for (int64_t i = 0; i < M * N; ++i) want[i] = x[i] * 2.0f + 1.0f;
    expectSameBits(out.download<float>(), want, "descriptor load/store");
  }
}

// Once, the helper's body read the first descriptor's tensor for both calls
// (x + 2x instead of x + 2y) and referred to the caller's values directly.
TEST(Memory, TensorDescriptorsThroughAHelper) {
  E2E_RNG(rng);
  const int64_t M = 37, N = 90, BM = 16, BN = 32;
  auto x = rng.floats(M * N, -1, 1), y = rng.floats(M * N, -1, 1);
  auto out = dev().zeros(DType::fp32, {M, N});
  kernel(kFile, "descriptors_through_a_helper")
      .launch(dev(), {cdiv(M, BM), cdiv(N, BN)}, {dev().upload(x, {M, N}), dev().upload(y, {M, N}), out, M, N},
              {{"BM", BM}, {"BN", BN}});
  std::vector<float> want(M * N);
  for (int64_t i = 0; i < M * N; ++i) want[i] = x[i] + 2.0f * y[i];
  expectSameBits(out.download<float>(), want, "x + 2 y through one helper");
}

TEST(Memory, TensorDescriptorNanPadding) { expectNanPadding("descriptor_nan_padding"); }

// A 3-D descriptor whose blocks overhang every dim of a 5 x 7 x 37 tensor.
TEST(Memory, TensorDescriptor3D) {
  E2E_RNG(rng);
  int64_t A = 5, B = 7, C = 37;
  const int64_t BA = 2, BB = 4, BC = 16;
  auto x = rng.floats(A * B * C, -1, 1);
  auto out = dev().upload(std::vector<float>(A * B * C, 9.0f), {A, B, C});
  kernel(kFile, "descriptor_3d")
      .launch(dev(), {cdiv(A, BA), cdiv(B, BB), cdiv(C, BC)}, {dev().upload(x, {A, B, C}), out, A, B, C},
              {{"BA", BA}, {"BB", BB}, {"BC", BC}});
  std::vector<float> want(x.size());
  for (size_t i = 0; i < x.size(); ++i) want[i] = x[i] - 0.5f;
  expectSameBits(out.download<float>(), want, "3-D descriptor");
}

/// `got` (M x N, fp16-rounded) is A @ B of the fp32 values `a`, `b`:
/// float64 sums, fp32 accumulation error and one fp16 rounding allowed.
void expectProduct(const std::vector<float>& got, const std::vector<float>& a, const std::vector<float>& b, int64_t M,
                   int64_t N, int64_t K) {
  int bad = 0;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double s = 0, mag = 0;
      for (int64_t k = 0; k < K; ++k) {
        s += double(a[i * K + k]) * b[k * N + j];
        mag += std::fabs(double(a[i * K + k]) * b[k * N + j]);
      }
      double tol = 1e-4 * mag + std::ldexp(std::fabs(s), -10) + 1e-3;
      if (!(std::fabs(got[i * N + j] - s) <= tol) && bad++ < 8)
        ADD_FAILURE() << "C[" << i << "," << j << "]: got " << got[i * N + j] << ", want " << s;
    }
  EXPECT_EQ(bad, 0);
}

/// C = A @ B with `kernelName` (tests/e2e/kernels/memory.py: a_ptr, b_ptr,
/// c_ptr, M, N, K, then `strides` as given, 64 x 128 x 32 blocks): fp16 in,
/// fp32 accumulation, fp16 out, against float64 sums. M is not a multiple
/// of the block; with N = 208 every row is 16-byte aligned.
void expectBlockMatmul(const char* kernelName, bool passStrides) {
  E2E_RNG(rng);
  for (auto [N, warps, stages] : {std::tuple{200, 4, 3}, {200, 8, 3}, {208, 4, 3}, {208, 8, 1}, {208, 8, 4}}) {
    SCOPED_TRACE(std::string(kernelName) + ", N = " + std::to_string(N) + ", " + std::to_string(warps) + " warps, " +
                 std::to_string(stages) + " stages");
    int64_t M = 150, K = 208;
    auto a = rng.floats(M * K, -1, 1), b = rng.floats(K * N, -1, 1);
    for (float& v : a) v = roundHalf(v);
    for (float& v : b) v = roundHalf(v);
    auto c = dev().zeros(DType::fp16, {M, N});
    tessera::LaunchOptions options;
    options.num_warps = warps;
    options.num_stages = stages;
    std::vector<tessera::Arg> args = {uploadAs(DType::fp16, a, {M, K}), uploadAs(DType::fp16, b, {K, N}), c, M, N, K};
    if (passStrides) args.insert(args.end(), {K, N, N});
    kernel(kFile, kernelName)
        .launch(dev(), {cdiv(M, 64), cdiv(N, 128)}, args,
                {{"BLOCK_M", int64_t(64)}, {"BLOCK_N", int64_t(128)}, {"BLOCK_K", int64_t(32)}}, options);
    expectProduct(downloadFloats(c), a, b, M, N, K);
  }
}

// The descriptor form of a matmul. On sm_90a, TMA copies the tiles whose
// rows are aligned (A's always, B's with N = 208) into the pipeline's
// stages; with num_stages = 1 they are copied once per iteration.
TEST(Memory, TensorDescriptorMatmul) { expectBlockMatmul("descriptor_matmul", false); }

// The block-pointer form (tl.advance in the loop): the loop carries the
// pointers' offsets, so the tiles are pipelined like the descriptor form's.
TEST(Memory, BlockPointerMatmul) { expectBlockMatmul("block_ptr_matmul", true); }

// K = 0: no loop iteration runs, and C is all zeros. On sm_90a the
// launch encodes A's and B's descriptors (gpu::HostTensorMap); TMA cannot
// describe an empty tensor, so they are passed zeroed and never read.
TEST(Memory, BlockMatmulsOfEmptyK) {
  for (bool blockPtr : {false, true}) {
    SCOPED_TRACE(blockPtr ? "block_ptr_matmul" : "descriptor_matmul");
    int64_t M = 70, N = 208, K = 0;
    auto c = uploadAs(DType::fp16, std::vector<float>(M * N, 3.0f), {M, N});
    std::vector<tessera::Arg> args = {dev().zeros(DType::fp16, {M, K}), dev().zeros(DType::fp16, {K, N}), c, M, N, K};
    if (blockPtr) args.insert(args.end(), {K, N, N});
    kernel(kFile, blockPtr ? "block_ptr_matmul" : "descriptor_matmul")
        .launch(dev(), {cdiv(M, 64), cdiv(N, 128)}, args,
                {{"BLOCK_M", int64_t(64)}, {"BLOCK_N", int64_t(128)}, {"BLOCK_K", int64_t(32)}});
    for (float v : downloadFloats(c)) ASSERT_EQ(v, 0.0f);
  }
}

// Tensor descriptors made on the host (TensorDescriptor arguments): a
// matmul whose A, B and C all come as descriptors (16-byte aligned rows:
// TMA on sm_90a), and the blocks of a 37 x 92 matrix with NaN padding past
// its edges (desc.shape in the kernel). A descriptor whose rows are not
// 16-byte aligned, or whose block is not a power of two, is refused at
// launch, with the parameter's name, as Triton's TensorDescriptor does.
TEST(Memory, HostTensorDescriptors) {
  E2E_RNG(rng);
  {
    int64_t M = 150, N = 208, K = 208;
    auto a = rng.floats(M * K, -1, 1), b = rng.floats(K * N, -1, 1);
    for (float& v : a) v = roundHalf(v);
    for (float& v : b) v = roundHalf(v);
    auto c = dev().zeros(DType::fp16, {M, N});
    auto td = [](const tessera::Tensor& t, std::vector<int64_t> block) {
      return tessera::TensorDescriptor::from_tensor(t, std::move(block));
    };
    kernel(kFile, "host_descriptor_matmul")
        .launch(dev(), {cdiv(M, 64), cdiv(N, 128)},
                {td(uploadAs(DType::fp16, a, {M, K}), {64, 32}), td(uploadAs(DType::fp16, b, {K, N}), {32, 128}),
                 td(c, {64, 128}), K},
                {{"BLOCK_M", int64_t(64)}, {"BLOCK_N", int64_t(128)}, {"BLOCK_K", int64_t(32)}});
    expectProduct(downloadFloats(c), a, b, M, N, K);
  }
  {
    const int64_t M = 37, N = 92, BM = 16, BN = 32, GM = cdiv(M, BM), GN = cdiv(N, BN);
    auto x = rng.floats(M * N, -1, 1);
    auto out = dev().zeros(DType::fp32, {GM * BM, GN * BN});
    kernel(kFile, "host_descriptor_blocks")
        .launch(dev(), {GM, GN},
                {tessera::TensorDescriptor::from_tensor(dev().upload(x, {M, N}), {BM, BN}, "nan"), out},
                {{"BM", BM}, {"BN", BN}});
    std::vector<float> got = out.download<float>();
    int bad = 0;
    for (int64_t i = 0; i < GM * BM; ++i)
      for (int64_t j = 0; j < GN * BN; ++j) {
        float g = got[i * GN * BN + j];
        bool inside = i < M && j < N;
        if ((inside ? g != x[i * N + j] : !std::isnan(g)) && bad++ < 8)
          ADD_FAILURE() << "out[" << i << "," << j << "] = " << g << (inside ? ", want x" : ", want NaN");
      }
    EXPECT_EQ(bad, 0);
    // 90 floats a row: not 16-byte aligned.
    auto unaligned = dev().upload(std::vector<float>(M * 90, 1.0f), {M, 90});
    std::string msg = errorOf([&] {
      kernel(kFile, "host_descriptor_blocks")
          .launch(dev(), {GM, GN}, {tessera::TensorDescriptor::from_tensor(unaligned, {BM, BN}), out},
                  {{"BM", BM}, {"BN", BN}});
    });
    EXPECT_NE(msg.find("tensor descriptor argument 'x_desc'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("multiples of 16 bytes"), std::string::npos) << msg;
    // A block of 24 columns: not a power of two.
    msg = errorOf([&] {
      kernel(kFile, "host_descriptor_blocks")
          .launch(dev(), {GM, GN}, {tessera::TensorDescriptor::from_tensor(dev().upload(x, {M, N}), {BM, 24}), out},
                  {{"BM", BM}, {"BN", BN}});
    });
    EXPECT_NE(msg.find("'x_desc': block_shape entries must be powers of two"), std::string::npos) << msg;
  }
}

TEST(Memory, ScalarPointersAndBoolTensors) {
  E2E_RNG(rng);
  int64_t n = 50;
  int32_t base = static_cast<int32_t>(rng.integer(-1000, 1000));
  auto s = dev().upload(std::vector<int32_t>{base, 0}, {2});
  std::vector<bool> flags(n);
  for (int64_t i = 0; i < n; ++i) flags[i] = rng.integer(0, 1);
  auto tf = dev().upload(flags, {n});
  auto out = dev().zeros(DType::i32, {n});
  kernel(kFile, "scalar_and_bool").launch(dev(), {1}, {s, tf, out, n}, {{"BLOCK", int64_t(64)}});
  std::vector<int32_t> want(n);
  for (int64_t i = 0; i < n; ++i) want[i] = flags[i] ? base + static_cast<int32_t>(i) : -static_cast<int32_t>(i);
  expectEqual(out.download<int32_t>(), want, "where(bool flags)");
  expectEqual(s.download<int32_t>(), std::vector<int32_t>{base, 2 * base}, "scalar store");
}

TEST(Memory, Int64Offsets) {
  E2E_RNG(rng);
  int64_t n = 200, start = 77;
  auto x = rng.ints<int32_t>(n, -99999, 99999);
  auto tx = dev().upload(x, {n});
  auto out = dev().upload(std::vector<int32_t>(128, -1), {128});
  kernel(kFile, "int64_offsets").launch(dev(), {1}, {tx, out, start, n}, {{"BLOCK", int64_t(128)}});
  std::vector<int32_t> want(128, -1);
  for (int64_t i = 0; i < 128 && start + i < n; ++i) want[i] = x[start + i];
  expectEqual(out.download<int32_t>(), want, "int64 offsets");
}

}  // namespace
