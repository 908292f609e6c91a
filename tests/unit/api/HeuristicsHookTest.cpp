//===- HeuristicsHookTest.cpp - @triton.heuristics the host language evaluates ---===//
//
// Kernel::set_heuristics_hook: the host evaluator evaluates a kernel's
// heuristics; when it cannot (here NumPy, which it does not model), the
// hook evaluates all of them, given the constexprs named at launch and the
// autotune config's values. Without a hook that is the evaluator's located
// error; a hook that leaves a heuristic out gets the same error; a hook is
// not asked when the evaluator can do the work. Runs on the interpreter.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include "tessera/tessera.h"

namespace {

using namespace tessera;

constexpr const char* kSource = R"(
import numpy as np
import triton
import triton.language as tl

@triton.heuristics({"BLOCK": lambda a: int(2 ** np.ceil(np.log2(a["n"]))), "TWICE": lambda a: a["BLOCK"] * 2})
@triton.jit
def pow2(out_ptr, facts_ptr, n, BLOCK: tl.constexpr, TWICE: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, offs.to(tl.float32), mask=offs < n)
    tl.store(facts_ptr, BLOCK)
    tl.store(facts_ptr + 1, TWICE)

@triton.autotune(configs=[triton.Config({"BLOCK": 32}), triton.Config({"BLOCK": 64})], key=["n"])
@triton.heuristics({"TILES": lambda a: int(np.ceil(a["n"] / a["BLOCK"]))})
@triton.jit
def tiles(facts_ptr, n, BLOCK: tl.constexpr, TILES: tl.constexpr):
    tl.store(facts_ptr, BLOCK)
    tl.store(facts_ptr + 1, TILES)

@triton.heuristics({"EVEN": lambda a: a["n"] % 2 == 0})
@triton.jit
def plain(facts_ptr, n, EVEN: tl.constexpr):
    tl.store(facts_ptr, EVEN)

@triton.jit
def bare(facts_ptr):
    tl.store(facts_ptr, 1)
)";

int64_t nextPow2(int64_t n) {
  int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

TEST(HeuristicsHook, EvaluatesWhatTheHostEvaluatorCannot) {
  Device dev = Device::interpreter();
  Kernel k = Program::from_source(kSource, "heuristics_hook.py").kernel("pow2");
  Tensor out = dev.zeros(DType::fp32, {64}), facts = dev.zeros(DType::i32, {2});
  try {
    k.launch(dev, {1}, {out, facts, int64_t(37)});
    FAIL() << "the host evaluator evaluated NumPy";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'BLOCK' could not be evaluated"), std::string::npos) << e.what();
  }
  int calls = 0;
  // The hook's values are what the kernel gets.
  for (int64_t n : {37, 64, 3}) {
    k.set_heuristics_hook([&, n](const Meta& meta) {
      ++calls;
      EXPECT_TRUE(meta.empty());  // nothing given by name, no autotune
      return Meta{{"BLOCK", nextPow2(n)}, {"TWICE", 2 * nextPow2(n)}};
    });
    k.launch(dev, {1}, {out, facts, n});
    std::vector<int32_t> f = facts.download<int32_t>();
    EXPECT_EQ(f[0], nextPow2(n)) << n;
    EXPECT_EQ(f[1], 2 * nextPow2(n)) << n;
    std::vector<float> o = out.download<float>();
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(o[i], static_cast<float>(i)) << n;
  }
  EXPECT_EQ(calls, 3);
  // A hook that leaves a heuristic out: the evaluator's error.
  k.set_heuristics_hook([](const Meta&) { return Meta{{"BLOCK", int64_t(64)}}; });
  EXPECT_THROW(k.launch(dev, {1}, {out, facts, int64_t(37)}), Error);
}

TEST(HeuristicsHook, SeesTheAutotuneConfigsValues) {
  Device dev = Device::interpreter();
  Kernel k = Program::from_source(kSource, "heuristics_hook_tuned.py").kernel("tiles");
  std::vector<int64_t> blocks;
  k.set_heuristics_hook([&](const Meta& meta) {
    int64_t block = meta_int(meta, "BLOCK");
    blocks.push_back(block);
    return Meta{{"TILES", (int64_t(100) + block - 1) / block}};
  });
  Tensor facts = dev.zeros(DType::i32, {2});
  k.launch(dev, {1}, {facts, int64_t(100)});
  std::vector<int32_t> f = facts.download<int32_t>();
  EXPECT_EQ(f[0], 32);  // the interpreter runs the first config
  EXPECT_EQ(f[1], 4);
  ASSERT_FALSE(blocks.empty());
  EXPECT_EQ(blocks.back(), 32);
}

TEST(HeuristicsHook, IsNotAskedWhenTheHostEvaluatorCan) {
  Device dev = Device::interpreter();
  Kernel k = Program::from_source(kSource, "heuristics_hook_plain.py").kernel("plain");
  int calls = 0;
  k.set_heuristics_hook([&](const Meta&) {
    ++calls;
    return Meta{{"EVEN", false}};
  });
  Tensor facts = dev.zeros(DType::i32, {1});
  k.launch(dev, {1}, {facts, int64_t(10)});
  EXPECT_EQ(facts.download<int32_t>()[0], 1);
  EXPECT_EQ(calls, 0);
  try {
    Program::from_source(kSource, "heuristics_hook_bare.py").kernel("bare").set_heuristics_hook([](const Meta&) {
      return Meta{};
    });
    FAIL() << "a hook for a kernel without @triton.heuristics was taken";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'bare' has no @triton.heuristics"), std::string::npos) << e.what();
  }
}

}  // namespace
