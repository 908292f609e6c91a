//===- tessera/runtime/DiskCache.h - Compiled kernels on disk ---*- C++ -*-===//
//
// The on-disk half of DESIGN.md §8. The cache directory ($TESSERA_CACHE_DIR,
// default ~/.cache/tessera) holds one directory per key:
//
//   <dir>/<key>/MANIFEST     "name size sha256" per file
//   <dir>/<key>/cubin, ptx, ttgir, metadata, ...
//
// Publishing is atomic: the files are written into a fresh temporary
// directory `<dir>/.tmp-<key>-<unique>` and rename()d to `<dir>/<key>`.
// Concurrent writers of one key race on that rename; the loser deletes its
// copy and uses the winner's, so a reader never sees a torn entry. Loading
// checks every file against the manifest (size and SHA-256): a corrupt or
// partial entry (disk full, tampering, a foreign tool) reads as a miss and
// is replaced by the next publish. Stray temporary directories are ignored
// and cleaned up once they are old.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "tessera/gpu/Target.h"
#include "tessera/runtime/Assembler.h"

namespace tessera::runtime {

/// Name -> contents of the files of one entry.
using CacheFiles = std::map<std::string, std::string>;

/// $TESSERA_CACHE_DIR, else $HOME/.cache/tessera; "" when neither is set
/// (then nothing is cached on disk).
std::string cacheDirectory();

/// The largest file a cache entry may hold (256 MiB): a larger one reads
/// as corrupt.
constexpr size_t kMaxCacheFileBytes = size_t{256} << 20;

/// The contents of `path` when it is a regular file (not a symbolic link,
/// FIFO, device or directory) of at most `maxBytes`; std::nullopt otherwise.
/// Never blocks on a FIFO and never reads an endless device: cache files
/// someone replaced count as corrupt.
std::optional<std::string> readRegularFile(const std::string& path, size_t maxBytes = kMaxCacheFileBytes);

/// "<path> <size> <mtime>" of a file (the path alone when it cannot be
/// stat'ed): changes whenever the file is replaced, e.g. by an upgrade.
std::string fileIdentity(const std::string& path);

/// The file a loaded shared library was mapped from, found from one of its
/// symbols (dladdr): a library opened by soname (libnvJitLink.so.13 on
/// LD_LIBRARY_PATH) has a real path too. `fallback` when it cannot be found.
std::string loadedLibraryPath(const void* symbol, const std::string& fallback);

/// Whether the files of an entry make sense to their reader (they decode);
/// an entry that fails it is as corrupt as one that fails its manifest.
using CacheEntryCheck = std::function<bool(const CacheFiles&)>;

/// The entry `key` of `dir` when present and intact (every file a regular
/// file that matches the manifest, and `valid` accepts them); std::nullopt
/// otherwise. Never throws.
std::optional<CacheFiles> loadCacheEntry(const std::string& dir, const std::string& key,
                                         const CacheEntryCheck& valid = {});

/// Publishes `files` as entry `key` of `dir` (created if needed). An entry
/// already there that is not intact by loadCacheEntry(dir, key, valid) is
/// replaced. Returns true when an intact entry for `key` exists afterwards
/// (ours or a concurrent writer's). Never throws: a cache that cannot be
/// written only costs a recompilation.
bool publishCacheEntry(const std::string& dir, const std::string& key, const CacheFiles& files,
                       const CacheEntryCheck& valid = {});

/// A tag that changes whenever the compiler may generate different code:
/// the project version, a format number bumped by hand, and the identity
/// (path, size, modification time) of the binary holding the compiler, so a
/// rebuilt Tessera never reuses an older build's cubins.
const std::string& compilerVersion();

/// A compiled kernel as stored in a cache entry: PTX stage (without the
/// extern list's types, which only assembling needs) and cubin.
struct KernelBinary {
  gpu::PtxKernel ptx;
  Cubin cubin;
};

/// Files of a cache entry for `binary` (cubin, ptx, ttgir, metadata).
CacheFiles serializeKernelBinary(const KernelBinary& binary);
/// The inverse; std::nullopt for missing files or a malformed metadata file.
std::optional<KernelBinary> deserializeKernelBinary(const CacheFiles& files);

}  // namespace tessera::runtime
