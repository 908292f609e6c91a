//===- LaunchPathsTest.cpp - Repeated launches and prepared launches -------===//
//
// The warm launch path remembers launch shapes (argument kinds, dtypes,
// alignment, integer properties, constexprs, options) and skips binding and
// specialization for launches of a known shape; PreparedLaunch resolves a
// launch once. Both must give exactly what a fresh launch gives: repeated
// launches with new tensors and scalars of the same shape, then of other
// shapes (n % 16 == 0, n == 1, a misaligned tensor, another BLOCK, another
// num_warps), each against a C++ reference; a tensor of the wrong device
// after the shape is known; a prepared launch issued twice.
//
//===----------------------------------------------------------------------===//

#include "e2e/Harness.h"
#include "tessera/dlpack.h"

using namespace e2e;
using tessera::DType;

namespace {

const char* kFile = "basics.py";

std::vector<float> added(const std::vector<float>& x, const std::vector<float>& y, int64_t n) {
  std::vector<float> out(x.size(), 0.f);
  for (int64_t i = 0; i < n; ++i) out[i] = x[i] + y[i];
  return out;
}

TEST(LaunchPaths, RepeatedLaunchesOfKnownAndNewShapes) {
  E2E_RNG(rng);
  tessera::Kernel k = kernel(kFile, "vector_add");
  struct Case {
    int64_t n, block;
    int warps;
  };
  // 1001 and 3001 share a shape (not % 16, not 1, i32); 1024 does not; n == 1
  // is a constexpr; BLOCK and num_warps change the specialization.
  const Case cases[] = {{1001, 256, 4}, {3001, 256, 4}, {1001, 256, 4}, {1024, 256, 4},
                        {1, 256, 4},    {3001, 128, 4}, {3001, 256, 8}, {2048, 256, 4}};
  for (const Case& c : cases) {
    SCOPED_TRACE("n=" + std::to_string(c.n) + " BLOCK=" + std::to_string(c.block) + " warps=" + std::to_string(c.warps));
    const int64_t size = 3200;
    auto x = rng.floats(size, -10, 10), y = rng.floats(size, -10, 10);
    auto tx = dev().upload(x, {size}), ty = dev().upload(y, {size});
    auto out = dev().zeros(DType::fp32, {size});
    tessera::LaunchOptions o;
    o.num_warps = c.warps;
    k.launch(dev(), {cdiv(c.n, c.block)}, {tx, ty, out, c.n}, {{"BLOCK", c.block}}, o);
    expectSameBits(out.download<float>(), added(x, y, c.n), "x + y");
  }
}

// A constexpr given by position specializes on its value: BLOCK 64 then
// 128 with otherwise equal arguments are two kernels (the warm path must not
// reuse the first); an annotated float parameter given an integer gets the
// integer's value.
TEST(LaunchPaths, PositionalConstexprsAndAnnotatedScalars) {
  E2E_RNG(rng);
  const int64_t n = 1000;
  auto x = rng.floats(n, -10, 10), y = rng.floats(n, -10, 10);
  auto tx = dev().upload(x, {n}), ty = dev().upload(y, {n});
  tessera::Kernel k = kernel(kFile, "vector_add");
  for (int64_t block : {int64_t(64), int64_t(128), int64_t(64)}) {
    SCOPED_TRACE("BLOCK " + std::to_string(block));
    auto out = dev().zeros(DType::fp32, {n});
    k.launch(dev(), {cdiv(n, block)}, {tx, ty, out, n, block});
    expectSameBits(out.download<float>(), added(x, y, n), "x + y");
  }
  auto out = dev().zeros(DType::fp32, {n});
  kernel(kFile, "scaled_copy").launch(dev(), {cdiv(n, 256)}, {tx, out, n, int64_t(3)}, {{"BLOCK", int64_t(256)}});
  std::vector<float> want(n);
  for (int64_t i = 0; i < n; ++i) want[i] = x[i] * 3.0f;
  expectSameBits(out.download<float>(), want, "x * 3 (an int for a tl.float32 parameter)");
}

TEST(LaunchPaths, WrongDeviceTensorAfterTheShapeIsKnown) {
  if (!onGpu()) GTEST_SKIP() << "needs a second kind of device: the GPU's tensors against an interpreter tensor";
  const int64_t n = 100;
  auto x = dev().zeros(DType::fp32, {n}), y = dev().zeros(DType::fp32, {n}), out = dev().zeros(DType::fp32, {n});
  tessera::Kernel k = kernel(kFile, "vector_add");
  k.launch(dev(), {1}, {x, y, out, n}, {{"BLOCK", int64_t(128)}});
  tessera::Device host = tessera::Device::interpreter();
  auto hostX = host.zeros(DType::fp32, {n});
  std::string msg = errorOf([&] { k.launch(dev(), {1}, {hostX, y, out, n}, {{"BLOCK", int64_t(128)}}); });
  EXPECT_NE(msg.find("vector_add"), std::string::npos) << msg;
  EXPECT_NE(msg.find("x_ptr"), std::string::npos) << msg;
  EXPECT_NE(msg.find("interpreter"), std::string::npos) << msg;
}

TEST(LaunchPaths, PreparedLaunchIssuedTwice) {
  E2E_RNG(rng);
  const int64_t n = 2999, block = 512;
  auto x = rng.floats(n, -10, 10), y = rng.floats(n, -10, 10);
  auto tx = dev().upload(x, {n}), ty = dev().upload(y, {n});
  auto out = dev().zeros(DType::fp32, {n}), out2 = dev().zeros(DType::fp32, {n});
  tessera::Kernel k = kernel(kFile, "vector_add");
  tessera::PreparedLaunch p = k.prepare(dev(), {cdiv(n, block)}, {tx, ty, out, n}, {{"BLOCK", block}});
  EXPECT_EQ(p.cu_function() != nullptr, onGpu());
  if (onGpu()) {
    EXPECT_EQ(p.grid(), (std::vector<int64_t>{cdiv(n, block), 1, 1}));
    EXPECT_EQ(p.block_threads(), 128);
  }
  p.launch();
  dev().synchronize();
  expectSameBits(out.download<float>(), added(x, y, n), "first launch");
  // The prepared launch writes `out`, not `out2`; launching again rewrites it.
  out = tessera::Tensor();
  p.launch();
  expectSameBits(out2.download<float>(), std::vector<float>(n, 0.f), "untouched tensor");
  // Errors surface at prepare time, as at launch.
  std::string msg = errorOf([&] { k.prepare(dev(), {1}, {tx, ty}, {{"BLOCK", block}}); });
  EXPECT_NE(msg.find("vector_add"), std::string::npos) << msg;
}

// Triton's launch syntax: kernel[grid](args..., BLOCK=..., num_warps=...)
// as kernel[grid](args..., kw("BLOCK", ...), num_warps(...)), keywords and
// options anywhere in the list; then again (the warm path), and a wrong
// keyword reported like launch()'s.
TEST(LaunchPaths, GridCallSugar) {
  E2E_RNG(rng);
  tessera::Kernel k = kernel(kFile, "vector_add");
  for (int64_t n : {int64_t(3001), int64_t(777)}) {
    auto x = rng.floats(n, -10, 10), y = rng.floats(n, -10, 10);
    auto tx = dev().upload(x, {n}), ty = dev().upload(y, {n});
    auto out = dev().zeros(DType::fp32, {n});
    k[{cdiv(n, 128)}](tessera::on_device(dev()), tx, ty, tessera::kw("BLOCK", 128), out, n, tessera::num_warps(2));
    expectSameBits(out.download<float>(), added(x, y, n), "x + y");
  }
  auto t = dev().zeros(DType::fp32, {16});
  std::string msg = errorOf([&] { k[{1}](tessera::on_device(dev()), t, t, t, int64_t(16), tessera::kw("BLOK", 16)); });
  EXPECT_NE(msg.find("BLOK"), std::string::npos) << msg;
}

// DLPack on the test's device (CUDA memory on the GPU): a tensor exported
// and imported again is the same memory, a kernel writes through the
// imported handle; a foreign producer's tensor that starts `byte_offset`
// bytes into its allocation is read from there; the producer's deleter runs
// once, after the last Tensor over its memory is gone.
TEST(LaunchPaths, DLPackSharesDeviceMemory) {
  E2E_RNG(rng);
  const int64_t n = 1337, block = 256;
  tessera::Kernel k = kernel(kFile, "vector_add");
  auto x = rng.floats(n, -10, 10), y = rng.floats(n, -10, 10);
  auto tx = dev().upload(x, {n}), ty = dev().upload(y, {n});
  auto out = dev().zeros(DType::fp32, {n});
  auto* exported = static_cast<tessera::dlpack::ManagedTensor*>(tessera::to_dlpack(out));
  EXPECT_EQ(exported->dl_tensor.device.device_type, onGpu() ? 2 : 1);
  tessera::Tensor alias = tessera::from_dlpack(exported);
  EXPECT_EQ(alias.data_ptr(), out.data_ptr());
  k.launch(dev(), {cdiv(n, block)}, {tx, ty, alias, n}, {{"BLOCK", block}});
  expectSameBits(out.download<float>(), added(x, y, n), "through the imported alias");

  // A foreign tensor: the last n floats of a (n + 16)-float block, given as
  // its start plus byte_offset, as producers that slice a buffer do.
  const int64_t pad = 16;
  auto big = rng.floats(n + pad, -10, 10);
  auto tbig = dev().upload(big, {n + pad});
  struct Producer {
    tessera::Tensor keep;
    int64_t shape[1];
    tessera::dlpack::ManagedTensor managed{};
    int deleted = 0;
  } producer;
  producer.keep = tbig;
  producer.shape[0] = n;
  producer.managed.dl_tensor = {reinterpret_cast<void*>(tbig.data_ptr()), {onGpu() ? 2 : 1, 0}, 1, {2, 32, 1},
                                producer.shape, nullptr, uint64_t(pad * 4)};
  producer.managed.manager_ctx = &producer;
  producer.managed.deleter = [](tessera::dlpack::ManagedTensor* self) {
    auto* p = static_cast<Producer*>(self->manager_ctx);
    ++p->deleted;
    p->keep = tessera::Tensor();
  };
  {
    tessera::Tensor sliced = tessera::from_dlpack(&producer.managed);
    EXPECT_EQ(sliced.data_ptr(), tbig.data_ptr() + uint64_t(pad * 4));
    auto out2 = dev().zeros(DType::fp32, {n});
    k.launch(dev(), {cdiv(n, block)}, {sliced, ty, out2, n}, {{"BLOCK", block}});
    std::vector<float> tail(big.begin() + pad, big.end());
    expectSameBits(out2.download<float>(), added(tail, y, n), "offset import + y");
    EXPECT_EQ(producer.deleted, 0);
  }
  EXPECT_EQ(producer.deleted, 1);
}

}  // namespace

namespace {

// A graph of two dependent launches (out = x + y, then y2 = out + x)
// recorded once and replayed: each replay computes from the tensors' current
// contents (a GPU graph keeps the addresses, the interpreter reruns the
// recording), so new inputs written between replays give new results.
TEST(LaunchPaths, GraphReplaysItsLaunches) {
  E2E_RNG(rng);
  tessera::Kernel k = kernel(kFile, "vector_add");
  const int64_t n = 1234, block = 256;
  auto tx = dev().zeros(DType::fp32, {n}), ty = dev().zeros(DType::fp32, {n});
  auto out = dev().zeros(DType::fp32, {n}), out2 = dev().zeros(DType::fp32, {n});
  tessera::Meta meta{{"BLOCK", block}};
  k.launch(dev(), {cdiv(n, block)}, {tx, ty, out, n}, meta);  // compiled before the capture
  tessera::Graph g = tessera::Graph::capture(dev(), [&](void* stream) {
    tessera::LaunchOptions on;
    on.stream = stream;
    k.launch(dev(), {cdiv(n, block)}, {tx, ty, out, n}, meta, on);
    k.launch(dev(), {cdiv(n, block)}, {out, tx, out2, n}, meta, on);
  });
  for (int replay = 0; replay < 3; ++replay) {
    auto x = rng.floats(n, -10, 10), y = rng.floats(n, -10, 10);
    // New inputs written into the graph's tensors (x * 1 copies exactly).
    tessera::Kernel copy = kernel(kFile, "scaled_copy");
    copy.launch(dev(), {cdiv(n, block)}, {dev().upload(x, {n}), tx, n, 1.0}, meta);
    copy.launch(dev(), {cdiv(n, block)}, {dev().upload(y, {n}), ty, n, 1.0}, meta);
    g.replay();
    dev().synchronize();
    std::vector<float> sum = added(x, y, n);
    expectSameBits(out.download<float>(), sum, "x + y from the graph");
    expectSameBits(out2.download<float>(), added(sum, x, n), "(x + y) + x from the graph");
  }
}

}  // namespace

namespace {

// Grids of four dims are refused by name on every path (the dims are kept
// inline up to three, and beyond).
TEST(LaunchPaths, FourDimensionalGridIsAnError) {
  tessera::Kernel k = kernel(kFile, "vector_add");
  auto t = dev().zeros(DType::fp32, {8});
  for (int warm = 0; warm < 2; ++warm) {
    k.launch(dev(), {1}, {t, t, t, int64_t(8)}, {{"BLOCK", int64_t(8)}});
    std::string msg = errorOf([&] { k.launch(dev(), {1, 1, 1, 1}, {t, t, t, int64_t(8)}, {{"BLOCK", int64_t(8)}}); });
    EXPECT_NE(msg.find("grid must have 1 to 3 dimensions, got 4"), std::string::npos) << msg;
  }
  tessera::GridDims d{5, 6, 7, 8};
  EXPECT_EQ(std::vector<int64_t>(d), (std::vector<int64_t>{5, 6, 7, 8}));
  EXPECT_EQ(d.size(), 4u);
  EXPECT_EQ(d[3], 8);
}

}  // namespace
