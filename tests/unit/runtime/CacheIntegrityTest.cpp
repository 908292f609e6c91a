//===- CacheIntegrityTest.cpp - Cache files someone else replaced ---------===//
//
// The disk cache reads only regular files of bounded size: a FIFO, a device,
// a symbolic link or a directory where a cache file should be is a corrupt
// entry (a miss that the next publish replaces), never a hang. An entry whose
// manifest verifies but which its reader cannot decode is corrupt too, and is
// replaced rather than kept forever.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "TestUtil.h"
#include "tessera/runtime/DiskCache.h"

namespace {

using namespace tessera;
using runtime::CacheFiles;
using testutil::TempDir;
namespace fs = std::filesystem;

const std::string kKey = "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210";

CacheFiles sample(const std::string& tag) { return {{"cubin", "\x7f" "ELF" + tag}, {"metadata", "name " + tag}}; }

double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

TEST(CacheIntegrity, ReadsOnlyRegularFilesOfBoundedSize) {
  TempDir tmp;
  std::string file = tmp.path + "/f";
  std::ofstream(file) << "twelve bytes";
  EXPECT_EQ(runtime::readRegularFile(file), "twelve bytes");
  EXPECT_EQ(runtime::readRegularFile(file, 12), "twelve bytes");
  EXPECT_FALSE(runtime::readRegularFile(file, 11));  // over the cap
  EXPECT_FALSE(runtime::readRegularFile(tmp.path));  // a directory
  EXPECT_FALSE(runtime::readRegularFile(tmp.path + "/missing"));
  ASSERT_EQ(mkfifo((tmp.path + "/fifo").c_str(), 0600), 0);
  auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(runtime::readRegularFile(tmp.path + "/fifo"));  // no writer: once a hang
  fs::create_symlink("/dev/zero", tmp.path + "/zero");
  EXPECT_FALSE(runtime::readRegularFile(tmp.path + "/zero"));  // endless: once a hang
  fs::create_symlink(file, tmp.path + "/link");
  EXPECT_FALSE(runtime::readRegularFile(tmp.path + "/link"));  // cache files are never links
  EXPECT_LT(secondsSince(start), 5.0);
}

TEST(CacheIntegrity, SpecialFilesInAnEntryAreCorruptAndReplaced) {
  TempDir tmp;
  std::string entry = tmp.path + "/" + kKey;
  for (int kind = 0; kind < 3; ++kind) {
    SCOPED_TRACE(kind);
    ASSERT_TRUE(runtime::publishCacheEntry(tmp.path, kKey, sample("a")));
    fs::remove(entry + "/cubin");
    if (kind == 0) ASSERT_EQ(mkfifo((entry + "/cubin").c_str(), 0600), 0);
    if (kind == 1) fs::create_symlink("/dev/zero", entry + "/cubin");
    if (kind == 2) fs::create_directory(entry + "/cubin");
    auto start = std::chrono::steady_clock::now();
    EXPECT_FALSE(runtime::loadCacheEntry(tmp.path, kKey));
    ASSERT_TRUE(runtime::publishCacheEntry(tmp.path, kKey, sample("b")));
    EXPECT_EQ(runtime::loadCacheEntry(tmp.path, kKey), sample("b"));
    EXPECT_LT(secondsSince(start), 5.0);
    fs::remove_all(entry);
  }
  // The manifest itself replaced by a FIFO.
  ASSERT_TRUE(runtime::publishCacheEntry(tmp.path, kKey, sample("a")));
  fs::remove(entry + "/MANIFEST");
  ASSERT_EQ(mkfifo((entry + "/MANIFEST").c_str(), 0600), 0);
  EXPECT_FALSE(runtime::loadCacheEntry(tmp.path, kKey));
  ASSERT_TRUE(runtime::publishCacheEntry(tmp.path, kKey, sample("c")));
  EXPECT_EQ(runtime::loadCacheEntry(tmp.path, kKey), sample("c"));
}

TEST(CacheIntegrity, AnEntryItsReaderCannotDecodeIsReplaced) {
  TempDir tmp;
  // Intact by its manifest, but the reader wants a metadata naming "b".
  auto namesB = [](const CacheFiles& f) { return f.count("metadata") && f.at("metadata") == "name b"; };
  ASSERT_TRUE(runtime::publishCacheEntry(tmp.path, kKey, sample("a")));
  EXPECT_TRUE(runtime::loadCacheEntry(tmp.path, kKey));
  EXPECT_FALSE(runtime::loadCacheEntry(tmp.path, kKey, namesB));
  // Once, the old entry won and the new one was dropped: every run recompiled.
  ASSERT_TRUE(runtime::publishCacheEntry(tmp.path, kKey, sample("b"), namesB));
  EXPECT_EQ(runtime::loadCacheEntry(tmp.path, kKey, namesB), sample("b"));
  // An intact entry still wins over a second writer's.
  ASSERT_TRUE(runtime::publishCacheEntry(tmp.path, kKey, sample("c")));
  EXPECT_EQ(runtime::loadCacheEntry(tmp.path, kKey), sample("b"));
}

TEST(CacheIntegrity, KernelEntriesThatDoNotDecodeAreCorrupt) {
  // deserializeKernelBinary is the check the kernel cache passes: a
  // manifest-valid entry with a foreign cubin or a garbled metadata file
  // does not decode.
  runtime::KernelBinary b;
  b.ptx.name = "k";
  b.ptx.ptx = ".version 8.0";
  b.cubin.bytes = {0x7f, 'E', 'L', 'F', 1, 2};
  CacheFiles files = runtime::serializeKernelBinary(b);
  ASSERT_TRUE(runtime::deserializeKernelBinary(files));
  CacheFiles foreign = files;
  foreign["cubin"] = "MZ not an ELF";
  EXPECT_FALSE(runtime::deserializeKernelBinary(foreign));
  CacheFiles garbled = files;
  garbled["metadata"] += "registers lots\n";
  EXPECT_FALSE(runtime::deserializeKernelBinary(garbled));
}

}  // namespace
