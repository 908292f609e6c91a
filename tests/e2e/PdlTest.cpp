//===- PdlTest.cpp - Programmatic dependent launch, tl.extra.cuda ------------===//
//
// kernels/pdl.py: a chain of dependent kernels launched with launch_pdl
// (LaunchOptions, and a config's kwargs), each waiting for its predecessor
// with tl.extra.cuda.gdc_wait in the three spellings real code uses (and
// Triton's inline-PTX copy on the GPU), against the chain computed here;
// num_warps()/num_threads() as constexprs, smid() and globaltimer().
// launch_cooperative_grid: a grid-wide barrier on the GPU, and the driver's
// refusal of a cooperative grid larger than the GPU holds.
//
//===----------------------------------------------------------------------===//

#include "e2e/Harness.h"

using namespace e2e;
using tessera::DType;

namespace {

const char* kFile = "pdl.py";

/// The chain on the host: x_k = (x_{k-1} ^ (w*3 + k)) + (x_{k-1} >> 3).
std::vector<int32_t> chainReference(std::vector<int32_t> x, const std::vector<int32_t>& w, int steps) {
  for (int k = 1; k <= steps; ++k)
    for (size_t i = 0; i < x.size(); ++i) x[i] = (x[i] ^ (w[i] * 3 + k)) + (x[i] >> 3);
  return x;
}

TEST(Pdl, DependentChain) {
  E2E_RNG(rng);
  const int64_t n = onGpu() ? 1000003 : 20011, BLOCK = 1024;
  const int steps = 9;
  auto x0 = rng.ints<int32_t>(n, -1000000, 1000000);
  auto w = rng.ints<int32_t>(n, -5000, 5000);
  auto tw = dev().upload(w, {n});
  std::vector<int32_t> want = chainReference(x0, w, steps);
  for (bool pdl : {true, false}) {
    for (const char* name : {"chain_step", "chain_step_asm"}) {
      bool asmForm = std::string(name) == "chain_step_asm";
      if (asmForm && !onGpu()) continue;  // the interpreter refuses inline PTX
      SCOPED_TRACE(std::string(name) + (pdl ? " with launch_pdl" : " without"));
      std::vector<tessera::Tensor> bufs = {dev().upload(x0, {n}), dev().zeros(DType::i32, {n}),
                                           dev().zeros(DType::i32, {n})};
      tessera::LaunchOptions options;
      options.launch_pdl = pdl;
      for (int k = 1; k <= steps; ++k) {
        tessera::Meta meta = {{"BLOCK", BLOCK}};
        if (!asmForm) meta["FORM"] = int64_t(k % 3);
        // Ping-pong between two outputs after the input: step k reads what step k-1 wrote.
        const tessera::Tensor& prev = bufs[k == 1 ? 0 : 1 + (k - 1) % 2];
        const tessera::Tensor& out = bufs[1 + k % 2];
        kernel(kFile, name).launch(dev(), {cdiv(n, BLOCK)}, {prev, tw, out, n, int64_t(k)}, meta, options);
      }
      expectEqual(bufs[1 + steps % 2].download<int32_t>(), want, "the chain's last output");
    }
  }
}

TEST(Pdl, LaunchPdlFromAConfig) {
  E2E_RNG(rng);
  const int64_t n = 5003;
  const int steps = 5;
  auto x0 = rng.ints<int32_t>(n, -100000, 100000);
  auto w = rng.ints<int32_t>(n, -500, 500);
  auto tw = dev().upload(w, {n});
  std::vector<tessera::Tensor> bufs = {dev().upload(x0, {n}), dev().zeros(DType::i32, {n}),
                                       dev().zeros(DType::i32, {n})};
  for (int k = 1; k <= steps; ++k) {
    const tessera::Tensor& prev = bufs[k == 1 ? 0 : 1 + (k - 1) % 2];
    const tessera::Tensor& out = bufs[1 + k % 2];
    kernel(kFile, "chain_step_tuned")
        .launch(dev(), gridFn([&](const tessera::Meta& m) { return std::vector<int64_t>{cdiv(n, metaInt(m, "BLOCK"))}; }),
                {prev, tw, out, n, int64_t(k)}, {});
  }
  expectEqual(bufs[1 + steps % 2].download<int32_t>(), chainReference(x0, w, steps), "the tuned chain");

  auto x = dev().zeros(DType::i32, {16});
  std::string msg = errorOf([&] { kernel(kFile, "bad_pdl_config").launch(dev(), {1}, {x, int64_t(16)}, {}); });
  EXPECT_NE(msg.find("launch_pdl must be True or False"), std::string::npos) << msg;
  EXPECT_NE(msg.find("bad_pdl_config"), std::string::npos) << msg;
}

TEST(Pdl, CudaInfo) {
  const int64_t programs = 3;
  for (int warps : {4, 8}) {
    SCOPED_TRACE("num_warps=" + std::to_string(warps));
    auto out = dev().zeros(DType::i32, {3 + programs});
    auto times = dev().zeros(DType::i64, {2 * programs});
    tessera::LaunchOptions options;
    options.num_warps = warps;
    kernel(kFile, "cuda_info").launch(dev(), {programs}, {out, times}, {}, options);
    auto o = out.download<int32_t>();
    auto t = times.download<int64_t>();
    int32_t threads = 32 * warps;
    EXPECT_EQ(o[0], warps);
    EXPECT_EQ(o[1], threads);
    EXPECT_EQ(o[2], threads * (threads - 1) / 2);
    int sms = onGpu() ? dev().multiprocessor_count() : 1;
    for (int64_t p = 0; p < programs; ++p) {
      EXPECT_GE(o[3 + p], 0);
      EXPECT_LT(o[3 + p], sms);
      EXPECT_GT(t[2 * p], 0);
      EXPECT_GE(t[2 * p + 1], t[2 * p]) << "the timer runs forward";
    }
  }
}

TEST(LaunchAttributes, CooperativeGrid) {
  tessera::LaunchOptions coop;
  coop.launch_cooperative_grid = true;
  // Accepted everywhere (the interpreter has nothing to change).
  const int64_t small = 7;
  auto ids = dev().zeros(DType::i32, {small});
  kernel(kFile, "fill_program_ids").launch(dev(), {small}, {ids}, {}, coop);
  std::vector<int32_t> want(small);
  for (int64_t i = 0; i < small; ++i) want[i] = static_cast<int32_t>(i);
  EXPECT_EQ(ids.download<int32_t>(), want);
  if (!onGpu()) return;  // the barrier needs programs running at once; the interpreter does not promise it

  E2E_RNG(rng);
  const int64_t programs = dev().multiprocessor_count(), BLOCK = 256;
  auto x = rng.ints<int32_t>(programs * BLOCK, -1000, 1000);
  int32_t total = 0;
  for (int32_t v : x) total += v;
  auto partial = dev().zeros(DType::i32, {programs}), counter = dev().zeros(DType::i32, {1}),
       out = dev().zeros(DType::i32, {programs});
  kernel(kFile, "grid_barrier_sum")
      .launch(dev(), {programs}, {dev().upload(x, {programs * BLOCK}), partial, counter, out},
              {{"BLOCK", BLOCK}, {"MAXP", int64_t(1024)}}, coop);
  EXPECT_EQ(out.download<int32_t>(), std::vector<int32_t>(programs, total)) << "every program saw every partial";

  // The attribute reaches the driver: a cooperative grid far beyond what the
  // GPU holds at once is refused, the same grid launched normally runs.
  const int64_t huge = 1 << 20;
  auto many = dev().zeros(DType::i32, {huge});
  std::string msg = errorOf([&] { kernel(kFile, "fill_program_ids").launch(dev(), {huge}, {many}, {}, coop); });
  EXPECT_NE(msg.find("COOPERATIVE_LAUNCH_TOO_LARGE"), std::string::npos) << msg;
  EXPECT_NE(msg.find("fill_program_ids"), std::string::npos) << msg;
  kernel(kFile, "fill_program_ids").launch(dev(), {huge}, {many}, {});
  EXPECT_EQ(many.download<int32_t>()[huge - 1], huge - 1);
}

// num_ctas (Triton's thread-block clusters): on sm_90a a grid whose x is a
// multiple launches in clusters of num_ctas consecutive programs (each
// program's %cluster_ctarank is its id modulo the size), and
// tl.extra.cuda.num_ctas() is the launch's; a grid that is not a multiple
// launches without clusters; other sizes are refused, naming num_ctas.
TEST(LaunchAttributes, ThreadBlockClusters) {
  for (int ctas : {1, 2, 4, 8}) {
    for (int64_t grid : {int64_t(16), int64_t(12)}) {
      SCOPED_TRACE("num_ctas=" + std::to_string(ctas) + " grid=" + std::to_string(grid));
      tessera::LaunchOptions o;
      o.num_ctas = ctas;
      auto out = dev().zeros(DType::i32, {grid * 3});
      kernel(kFile, "cluster_ranks").launch(dev(), {grid}, {out}, {{"ON_GPU", onGpu()}}, o);
      auto got = out.download<int32_t>();
      bool clustered = onGpu() && grid % ctas == 0;
      for (int64_t p = 0; p < grid; ++p) {
        EXPECT_EQ(got[p * 3], ctas) << "program " << p;
        if (!onGpu()) continue;
        EXPECT_EQ(got[p * 3 + 1], clustered ? p % ctas : 0) << "program " << p;
        EXPECT_EQ(got[p * 3 + 2], clustered ? ctas : 1) << "program " << p;
      }
    }
  }
  tessera::LaunchOptions bad;
  bad.num_ctas = 3;
  auto out = dev().zeros(DType::i32, {3});
  std::string msg = errorOf([&] { kernel(kFile, "cluster_ranks").launch(dev(), {1}, {out}, {{"ON_GPU", false}}, bad); });
  EXPECT_NE(msg.find("num_ctas must be 1, 2, 4 or 8"), std::string::npos) << msg;
}

}  // namespace
