//===- DiskCache.cpp - Atomic, self-checking cache entries ----------------===//
//
// See tessera/runtime/DiskCache.h: entries are directories published with
// one rename(); loads verify a manifest of sizes and SHA-256 digests.
//
//===----------------------------------------------------------------------===//

#include "tessera/runtime/DiskCache.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "tessera/runtime/Hash.h"
#include "tessera/support/Env.h"

namespace tessera::runtime {

namespace fs = std::filesystem;

namespace {

/// Bump when the layout of entries or anything else not covered by the
/// binary's identity changes what a cached entry means.
constexpr const char* kCacheFormat = "1";
constexpr const char* kProjectVersion = "0.1.0";
constexpr const char* kManifest = "MANIFEST";

bool validFileName(const std::string& name) {
  return !name.empty() && name[0] != '.' && name.find('/') == std::string::npos && name != kManifest;
}

std::optional<std::string> readFile(const fs::path& path) { return readRegularFile(path.string()); }

bool writeFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  return out.good();
}

/// Makes a unique, empty directory `<dir>/<prefix>XXXXXX`; "" on failure.
std::string makeTempDir(const std::string& dir, const std::string& prefix) {
  std::string tmpl = dir + "/" + prefix + "XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) return "";
  return buf.data();
}

/// Removes temporary/trash directories older than an hour (crashed writers).
/// Once per process and directory: a scan of a large cache is not free.
void cleanupStaleTemps(const std::string& dir) {
  static std::mutex mutex;
  static std::vector<std::string> done;
  {
    std::lock_guard<std::mutex> lock(mutex);
    for (const auto& d : done)
      if (d == dir) return;
    done.push_back(dir);
  }
  std::error_code ec;
  auto now = fs::file_time_type::clock::now();
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.rfind(".tmp-", 0) != 0 && name.rfind(".trash-", 0) != 0) continue;
    std::error_code ec2;
    auto mtime = fs::last_write_time(it->path(), ec2);
    if (!ec2 && now - mtime > std::chrono::hours(1)) fs::remove_all(it->path(), ec2);
  }
}

}  // namespace

std::optional<std::string> readRegularFile(const std::string& path, size_t maxBytes) {
  // O_NONBLOCK: opening a FIFO does not wait for a writer; O_NOFOLLOW: a
  // symbolic link (to /dev/zero, say) is refused, not followed.
  int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || static_cast<uint64_t>(st.st_size) > maxBytes) return std::nullopt;
  std::string text(static_cast<size_t>(st.st_size), '\0');
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = read(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;  // shrank while we read: a writer is at work
    done += static_cast<size_t>(n);
  }
  char extra;
  if (read(fd, &extra, 1) != 0) return std::nullopt;  // grew while we read
  return text;
}

std::string fileIdentity(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return path;
  return path + " " + std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

std::string loadedLibraryPath(const void* symbol, const std::string& fallback) {
  Dl_info info{};
  if (symbol && dladdr(symbol, &info) && info.dli_fname && info.dli_fname[0] == '/') return info.dli_fname;
  return fallback;
}

std::string cacheDirectory() {
  // Set but empty: no disk cache (env::text would read it as unset).
  if (env::find("TESSERA_CACHE_DIR"); const char* dir = std::getenv("TESSERA_CACHE_DIR")) return dir;
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/tessera";
  return "";
}

std::optional<CacheFiles> loadCacheEntry(const std::string& dir, const std::string& key,
                                         const CacheEntryCheck& valid) {
  if (dir.empty() || key.empty()) return std::nullopt;
  fs::path entry = fs::path(dir) / key;
  std::optional<std::string> manifest = readFile(entry / kManifest);
  if (!manifest) return std::nullopt;
  CacheFiles files;
  std::istringstream lines(*manifest);
  std::string name, digest;
  size_t size = 0;
  while (lines >> name >> size >> digest) {
    if (!validFileName(name)) return std::nullopt;
    std::optional<std::string> text = readFile(entry / name);
    if (!text || text->size() != size || sha256Hex(*text) != digest) return std::nullopt;
    files[name] = std::move(*text);
  }
  if (!lines.eof() || files.empty()) return std::nullopt;
  if (valid && !valid(files)) return std::nullopt;
  return files;
}

bool publishCacheEntry(const std::string& dir, const std::string& key, const CacheFiles& files,
                       const CacheEntryCheck& valid) {
  if (dir.empty() || key.empty() || key[0] == '.' || key.find('/') != std::string::npos) return false;
  std::error_code ec;
  fs::create_directories(dir, ec);
  std::string tmp = makeTempDir(dir, ".tmp-" + key + "-");
  if (tmp.empty()) return false;
  // Phase 1: the files and their manifest, in a directory no reader looks at.
  std::string manifest;
  bool ok = true;
  for (const auto& [name, text] : files) {
    if (!validFileName(name)) {
      ok = false;
      break;
    }
    ok = ok && writeFile(fs::path(tmp) / name, text);
    manifest += name + " " + std::to_string(text.size()) + " " + sha256Hex(text) + "\n";
  }
  ok = ok && writeFile(fs::path(tmp) / kManifest, manifest);
  if (!ok) {
    fs::remove_all(tmp, ec);
    return false;
  }
  // Phase 2: one rename makes the entry visible. If the name is taken, an
  // intact entry (a concurrent writer's) wins; a corrupt one is moved aside.
  std::string final = dir + "/" + key;
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (std::rename(tmp.c_str(), final.c_str()) == 0) {
      cleanupStaleTemps(dir);
      return true;
    }
    if (errno != ENOTEMPTY && errno != EEXIST) break;
    if (loadCacheEntry(dir, key, valid)) {
      fs::remove_all(tmp, ec);
      return true;
    }
    std::string trash = makeTempDir(dir, ".trash-" + key + "-");
    if (trash.empty()) break;
    // rename() onto an empty directory replaces it; if another writer moved
    // the corrupt entry first, the next attempt simply succeeds.
    if (std::rename(final.c_str(), trash.c_str()) != 0) fs::remove(trash, ec);
    fs::remove_all(trash, ec);
  }
  fs::remove_all(tmp, ec);
  return static_cast<bool>(loadCacheEntry(dir, key, valid));
}

const std::string& compilerVersion() {
  static const std::string version = [] {
    std::string v = std::string("tessera ") + kProjectVersion + "; cache format " + kCacheFormat;
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&compilerVersion), &info) && info.dli_fname)
      v += "; build " + fileIdentity(info.dli_fname);
    return v;
  }();
  return version;
}

//===----------------------------------------------------------------------===//
// Kernel binaries
//===----------------------------------------------------------------------===//

namespace {

/// A host tensor map's fields on one line: data type, element bytes,
/// swizzle, NaN fill, rank, box, then base, shape and strides as
/// p<param> (sign-extended), u<param> (zero-extended), either followed by
/// *<scale> when multiplied, or c<constant>.
std::string tensorMapText(const gpu::HostTensorMap& m) {
  std::ostringstream out;
  auto scalar = [&](const gpu::HostScalar& v) {
    if (v.param < 0) out << " c" << v.constant;
    else out << (v.zeroExtend ? " u" : " p") << v.param << (v.scale != 1 ? "*" + std::to_string(v.scale) : "");
  };
  out << m.dataType << " " << m.elementBytes << " " << m.swizzle << " " << (m.nanFill ? 1 : 0) << " " << m.box.size();
  for (int64_t b : m.box) out << " " << b;
  scalar(m.base);
  for (const gpu::HostScalar& v : m.shape) scalar(v);
  for (const gpu::HostScalar& v : m.strides) scalar(v);
  return out.str();
}

std::optional<gpu::HostTensorMap> parseTensorMap(std::istream& in) {
  gpu::HostTensorMap m;
  int nan = 0;
  size_t rank = 0;
  if (!(in >> m.dataType >> m.elementBytes >> m.swizzle >> nan >> rank) || rank < 1 || rank > 5) return std::nullopt;
  m.nanFill = nan != 0;
  m.box.resize(rank);
  for (int64_t& b : m.box)
    if (!(in >> b)) return std::nullopt;
  auto scalar = [&](gpu::HostScalar& v) {
    std::string word;
    if (!(in >> word) || word.size() < 2) return false;
    try {
      if (word[0] == 'c') v.constant = std::stoll(word.substr(1));
      else if (word[0] == 'p' || word[0] == 'u') {
        size_t star = word.find('*');
        v.param = std::stoi(word.substr(1, star == std::string::npos ? std::string::npos : star - 1));
        v.zeroExtend = word[0] == 'u';
        if (star != std::string::npos) v.scale = std::stoll(word.substr(star + 1));
      } else {
        return false;
      }
    } catch (const std::exception&) {
      return false;
    }
    return true;
  };
  m.shape.resize(rank);
  m.strides.resize(rank);
  if (!scalar(m.base)) return std::nullopt;
  for (gpu::HostScalar& v : m.shape)
    if (!scalar(v)) return std::nullopt;
  for (gpu::HostScalar& v : m.strides)
    if (!scalar(v)) return std::nullopt;
  return m;
}

}  // namespace

CacheFiles serializeKernelBinary(const KernelBinary& binary) {
  const gpu::PtxKernel& k = binary.ptx;
  const Cubin& c = binary.cubin;
  std::ostringstream meta;
  meta << "format " << kCacheFormat << "\n"
       << "name " << k.name << "\n"
       << "num_warps " << k.numWarps << "\n"
       << "shared_bytes " << k.sharedBytes << "\n"
       << "uses_printf " << (k.usesPrintf ? 1 : 0) << "\n"
       << "global_scratch_bytes " << k.globalScratchBytes << "\n"
       << "registers " << c.registers << "\n"
       << "spill_store_bytes " << c.spillStoreBytes << "\n"
       << "spill_load_bytes " << c.spillLoadBytes << "\n"
       << "stack_frame_bytes " << c.stackFrameBytes << "\n"
       << "static_shared_bytes " << c.staticSharedBytes << "\n";
  for (const gpu::KernelParam& p : k.params) meta << "param " << p.bytes << " " << p.type.str() << "\n";
  for (size_t i = 0; i < k.params.size(); ++i)
    if (k.params[i].tensorMap >= 0) meta << "tensor_map " << i << " " << tensorMapText(k.tensorMaps[k.params[i].tensorMap]) << "\n";
  for (const gpu::ExternFunction& e : k.externs) meta << "extern " << e.symbol << " " << e.wrapper << "\n";
  for (const std::string& check : k.runtimeChecks) meta << "runtime_check " << check << "\n";
  return CacheFiles{{"metadata", meta.str()},
                    {"cubin", std::string(c.bytes.begin(), c.bytes.end())},
                    {"ptx", k.ptx},
                    {"ttgir", k.ttgir},
                    {"log", c.infoLog}};
}

std::optional<KernelBinary> deserializeKernelBinary(const CacheFiles& files) {
  for (const char* required : {"metadata", "cubin", "ptx", "ttgir"})
    if (!files.count(required)) return std::nullopt;
  KernelBinary b;
  gpu::PtxKernel& k = b.ptx;
  Cubin& c = b.cubin;
  std::istringstream lines(files.at("metadata"));
  std::string line;
  bool sawFormat = false, sawName = false;
  while (std::getline(lines, line)) {
    std::istringstream in(line);
    std::string field;
    in >> field;
    auto integer = [&](int& out) { return static_cast<bool>(in >> out); };
    bool ok = true;
    if (field == "format") {
      std::string f;
      ok = (in >> f) && f == kCacheFormat;
      sawFormat = true;
    } else if (field == "name") {
      ok = static_cast<bool>(in >> k.name);
      sawName = true;
    } else if (field == "num_warps") {
      ok = integer(k.numWarps);
    } else if (field == "shared_bytes") {
      ok = integer(k.sharedBytes);
    } else if (field == "uses_printf") {
      int v = 0;
      ok = integer(v);
      k.usesPrintf = v != 0;
    } else if (field == "global_scratch_bytes") {
      ok = integer(k.globalScratchBytes);
    } else if (field == "registers") {
      ok = integer(c.registers);
    } else if (field == "spill_store_bytes") {
      ok = integer(c.spillStoreBytes);
    } else if (field == "spill_load_bytes") {
      ok = integer(c.spillLoadBytes);
    } else if (field == "stack_frame_bytes") {
      ok = integer(c.stackFrameBytes);
    } else if (field == "static_shared_bytes") {
      ok = integer(c.staticSharedBytes);
    } else if (field == "param") {
      gpu::KernelParam p;
      std::string type;
      ok = integer(p.bytes) && std::getline(in >> std::ws, type);
      p.type = ok ? ir::Type::parse(type) : ir::Type();
      ok = ok && static_cast<bool>(p.type);
      k.params.push_back(p);
    } else if (field == "tensor_map") {
      size_t param = 0;
      std::optional<gpu::HostTensorMap> m;
      ok = (in >> param) && param < k.params.size() && (m = parseTensorMap(in));
      if (ok) {
        k.params[param].tensorMap = static_cast<int>(k.tensorMaps.size());
        k.tensorMaps.push_back(*m);
      }
    } else if (field == "extern") {
      gpu::ExternFunction e;
      ok = static_cast<bool>(in >> e.symbol >> e.wrapper);
      k.externs.push_back(e);
    } else if (field == "runtime_check") {
      std::string text;
      ok = static_cast<bool>(std::getline(in >> std::ws, text));
      k.runtimeChecks.push_back(text);
    } else if (!field.empty()) {
      ok = false;
    }
    if (!ok) return std::nullopt;
  }
  if (!sawFormat || !sawName) return std::nullopt;
  if (k.globalScratchBytes > 0) {
    if (k.params.empty()) return std::nullopt;
    k.params.back().globalScratch = true;
  }
  const std::string& cubin = files.at("cubin");
  if (cubin.size() < 4 || cubin.compare(0, 4, "\x7f" "ELF") != 0) return std::nullopt;
  c.bytes.assign(cubin.begin(), cubin.end());
  k.ptx = files.at("ptx");
  k.ttgir = files.at("ttgir");
  if (auto it = files.find("log"); it != files.end()) c.infoLog = it->second;
  return b;
}

}  // namespace tessera::runtime
