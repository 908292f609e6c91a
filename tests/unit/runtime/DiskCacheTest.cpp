//===- DiskCacheTest.cpp - Atomic, self-checking disk cache entries -------===//
//
// Entries round-trip; concurrent publishers of one key all end with an
// intact entry; stray temp directories, partial and corrupt entries read as
// misses and are replaced; kernel binaries serialize losslessly.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "TestUtil.h"
#include "tessera/runtime/DiskCache.h"

namespace {

using namespace tessera;
using runtime::CacheFiles;
using testutil::TempDir;
namespace fs = std::filesystem;

const std::string kKey = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

CacheFiles sample(const std::string& tag) {
  std::string binary = "\x7f" "ELF";
  binary += std::string("\0\1\2\3", 4) + tag;
  return {{"cubin", binary}, {"ptx", ".version 8.0 // " + tag}, {"metadata", "name k\n"}};
}

int countStrays(const std::string& dir) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string()[0] == '.') ++n;
  return n;
}

TEST(DiskCache, PublishThenLoad) {
  TempDir tmp;
  std::string dir = tmp.path + "/nested/cache";  // created on demand
  EXPECT_FALSE(runtime::loadCacheEntry(dir, kKey));
  ASSERT_TRUE(runtime::publishCacheEntry(dir, kKey, sample("a")));
  auto loaded = runtime::loadCacheEntry(dir, kKey);
  ASSERT_TRUE(loaded);
  EXPECT_EQ(*loaded, sample("a"));
  EXPECT_TRUE(fs::exists(dir + "/" + kKey + "/MANIFEST"));
  EXPECT_EQ(countStrays(dir), 0);
  // A second publish of the key keeps the intact first entry.
  EXPECT_TRUE(runtime::publishCacheEntry(dir, kKey, sample("b")));
  EXPECT_EQ(*runtime::loadCacheEntry(dir, kKey), sample("a"));
  EXPECT_EQ(countStrays(dir), 0);
}

TEST(DiskCache, ConcurrentPublishersAllSeeAnIntactEntry) {
  TempDir tmp;
  for (int round = 0; round < 20; ++round) {
    std::string key = kKey.substr(0, 60) + std::to_string(1000 + round);
    std::vector<std::thread> threads;
    std::vector<int> ok(6, 0);
    for (int t = 0; t < 6; ++t)
      threads.emplace_back([&, t] {
        ok[t] = runtime::publishCacheEntry(tmp.path, key, sample("writer" + std::to_string(t)));
        // Right after publishing, whoever won, the entry reads back intact.
        auto e = runtime::loadCacheEntry(tmp.path, key);
        ok[t] = ok[t] && e && e->at("ptx").rfind(".version 8.0 // writer", 0) == 0;
      });
    for (auto& th : threads) th.join();
    for (int t = 0; t < 6; ++t) EXPECT_TRUE(ok[t]) << "round " << round << " writer " << t;
  }
  EXPECT_EQ(countStrays(tmp.path), 0);
}

TEST(DiskCache, StaleTempDirectoryIsIgnored) {
  TempDir tmp;
  // A writer that crashed mid-publish leaves its temp directory behind.
  std::string stale = tmp.path + "/.tmp-" + kKey + "-dead01";
  fs::create_directories(stale);
  std::ofstream(stale + "/cubin") << "half a cubin";
  std::ofstream(stale + "/MANIFEST") << "cubin 999 deadbeef\n";
  EXPECT_FALSE(runtime::loadCacheEntry(tmp.path, kKey));
  ASSERT_TRUE(runtime::publishCacheEntry(tmp.path, kKey, sample("fresh")));
  EXPECT_EQ(*runtime::loadCacheEntry(tmp.path, kKey), sample("fresh"));
  EXPECT_TRUE(fs::exists(stale));  // young: left for its writer, harmless
}

TEST(DiskCache, CorruptOrPartialEntriesAreMissesAndGetReplaced) {
  TempDir tmp;
  ASSERT_TRUE(runtime::publishCacheEntry(tmp.path, kKey, sample("a")));
  std::string entry = tmp.path + "/" + kKey;
  {
    std::fstream f(entry + "/cubin", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(5);
    f.put('X');  // same size, different bytes
  }
  EXPECT_FALSE(runtime::loadCacheEntry(tmp.path, kKey));
  ASSERT_TRUE(runtime::publishCacheEntry(tmp.path, kKey, sample("b")));
  EXPECT_EQ(*runtime::loadCacheEntry(tmp.path, kKey), sample("b"));

  fs::remove(entry + "/ptx");  // partial
  EXPECT_FALSE(runtime::loadCacheEntry(tmp.path, kKey));
  fs::remove(entry + "/MANIFEST");  // no manifest at all
  EXPECT_FALSE(runtime::loadCacheEntry(tmp.path, kKey));
  ASSERT_TRUE(runtime::publishCacheEntry(tmp.path, kKey, sample("c")));
  EXPECT_EQ(*runtime::loadCacheEntry(tmp.path, kKey), sample("c"));
  EXPECT_EQ(countStrays(tmp.path), 0);
}

TEST(DiskCache, RejectsUnsafeKeysAndNames) {
  TempDir tmp;
  EXPECT_FALSE(runtime::publishCacheEntry(tmp.path, "../escape", sample("a")));
  EXPECT_FALSE(runtime::publishCacheEntry(tmp.path, ".hidden", sample("a")));
  EXPECT_FALSE(runtime::publishCacheEntry(tmp.path, kKey, {{"../x", "y"}}));
  EXPECT_FALSE(runtime::loadCacheEntry(tmp.path, kKey));
  EXPECT_EQ(countStrays(tmp.path), 0);
}

TEST(DiskCache, DirectoryFromEnvironment) {
  testutil::ScopedEnv env("TESSERA_CACHE_DIR", "/some/where");
  EXPECT_EQ(runtime::cacheDirectory(), "/some/where");
  unsetenv("TESSERA_CACHE_DIR");
  testutil::ScopedEnv home("HOME", "/home/u");
  EXPECT_EQ(runtime::cacheDirectory(), "/home/u/.cache/tessera");
}

TEST(DiskCache, KernelBinaryRoundTrip) {
  runtime::KernelBinary b;
  b.ptx.name = "matmul_kernel";
  b.ptx.ptx = ".version 8.0\n.target sm_90a\n";
  b.ptx.ttgir = "#blocked = ...\n";
  b.ptx.params = {{ir::Type::pointer(ir::Type::f16()), 8}, {ir::Type::i32(), 4}, {ir::Type::f32(), 4},
                  {ir::Type::i1(), 1}, {ir::Type::i64(), 8}};
  b.ptx.sharedBytes = 98304;
  b.ptx.numWarps = 8;
  b.ptx.usesPrintf = true;
  b.ptx.externs = {{"__nv_erff", "__tessera__nv_erff", {ir::Type::f32()}, ir::Type::f32()}};
  b.ptx.runtimeChecks = {"tl.load at k.py:3:7: a program whose offset along dim 0 is negative stops here",
                         "a second check, with `code` (and: punctuation)"};
  b.cubin.bytes = {'\x7f', 'E', 'L', 'F', '\0', '\xff'};
  b.cubin.registers = 168;
  b.cubin.spillStoreBytes = 12;
  b.cubin.spillLoadBytes = 8;
  b.cubin.stackFrameBytes = 16;
  b.cubin.staticSharedBytes = 1024;
  b.cubin.infoLog = "ptxas info : Used 168 registers";
  auto back = runtime::deserializeKernelBinary(runtime::serializeKernelBinary(b));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->ptx.name, "matmul_kernel");
  EXPECT_EQ(back->ptx.ptx, b.ptx.ptx);
  EXPECT_EQ(back->ptx.ttgir, b.ptx.ttgir);
  ASSERT_EQ(back->ptx.params.size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(back->ptx.params[i].type, b.ptx.params[i].type) << i;
    EXPECT_EQ(back->ptx.params[i].bytes, b.ptx.params[i].bytes) << i;
  }
  EXPECT_EQ(back->ptx.sharedBytes, 98304);
  EXPECT_EQ(back->ptx.numWarps, 8);
  EXPECT_TRUE(back->ptx.usesPrintf);
  ASSERT_EQ(back->ptx.externs.size(), 1u);
  EXPECT_EQ(back->ptx.externs[0].wrapper, "__tessera__nv_erff");
  EXPECT_EQ(back->ptx.runtimeChecks, b.ptx.runtimeChecks);
  EXPECT_EQ(back->cubin.bytes, b.cubin.bytes);
  EXPECT_EQ(back->cubin.registers, 168);
  EXPECT_EQ(back->cubin.spillStoreBytes, 12);
  EXPECT_EQ(back->cubin.spillLoadBytes, 8);
  EXPECT_EQ(back->cubin.stackFrameBytes, 16);
  EXPECT_EQ(back->cubin.staticSharedBytes, 1024);
  EXPECT_EQ(back->cubin.infoLog, b.cubin.infoLog);

  CacheFiles files = runtime::serializeKernelBinary(b);
  files["metadata"] += "param 4 not_a_type\n";
  EXPECT_FALSE(runtime::deserializeKernelBinary(files));
  files = runtime::serializeKernelBinary(b);
  files.erase("cubin");
  EXPECT_FALSE(runtime::deserializeKernelBinary(files));
  files = runtime::serializeKernelBinary(b);
  files["cubin"] = "not an ELF";
  EXPECT_FALSE(runtime::deserializeKernelBinary(files));
}

// Host tensor maps (TMA descriptors the launch encodes) keep their fields
// and their parameters across the cache.
TEST(DiskCache, TensorMapsRoundTrip) {
  runtime::KernelBinary b;
  b.ptx.name = "matmul_kernel_descriptor";
  b.ptx.params = {{ir::Type::pointer(ir::Type::bf16()), 8}, {ir::Type::i32(), 4}, {ir::Type::i64(), 8}};
  gpu::HostTensorMap m;
  m.base.param = 0;
  m.shape = {gpu::HostScalar{1, 0, true}, gpu::HostScalar{-1, 4096, false}};
  m.strides = {gpu::HostScalar{2, 0, false, 64}, gpu::HostScalar{-1, 1, false}};
  m.box = {128, 64};
  m.elementBytes = 2;
  m.dataType = 9;
  m.swizzle = 128;
  m.nanFill = true;
  gpu::HostTensorMap other = m;
  other.box = {64, 64};
  other.nanFill = false;
  other.base.constant = -7;  // ignored: it reads a parameter
  b.ptx.tensorMaps = {m, other};
  for (int k = 0; k < 2; ++k) {
    gpu::KernelParam p{ir::Type::pointer(ir::Type::i8()), 128};
    p.tensorMap = k;
    b.ptx.params.push_back(p);
  }
  b.cubin.bytes = {'\x7f', 'E', 'L', 'F'};
  auto back = runtime::deserializeKernelBinary(runtime::serializeKernelBinary(b));
  ASSERT_TRUE(back);
  ASSERT_EQ(back->ptx.params.size(), 5u);
  EXPECT_EQ(back->ptx.params[2].tensorMap, -1);
  EXPECT_EQ(back->ptx.params[3].tensorMap, 0);
  EXPECT_EQ(back->ptx.params[4].tensorMap, 1);
  EXPECT_EQ(back->ptx.params[4].bytes, 128);
  ASSERT_EQ(back->ptx.tensorMaps.size(), 2u);
  EXPECT_EQ(back->ptx.tensorMaps[0], m);
  other.base.constant = 0;
  EXPECT_EQ(back->ptx.tensorMaps[1], other);

  CacheFiles files = runtime::serializeKernelBinary(b);
  files["metadata"] += "tensor_map 9 9 2 128 0 2 64 64 p0 p1 p1 p2 c1\n";  // no such parameter
  EXPECT_FALSE(runtime::deserializeKernelBinary(files));
  files = runtime::serializeKernelBinary(b);
  files["metadata"] += "tensor_map 3 9 2 128 0 2 64 64 p0 p1 x1 p2 c1\n";  // not a scalar
  EXPECT_FALSE(runtime::deserializeKernelBinary(files));
}

}  // namespace
