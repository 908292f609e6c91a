//===- Libdevice.cpp - libdevice wrappers compiled with NVRTC -------------===//
//
// DESIGN.md decision 6: math functions come from CUDA's own library. The PTX
// backend calls `__tessera__nv_erff` (an .extern .func); here NVRTC compiles
//
//   extern "C" __device__ float __nv_erff(float);
//   extern "C" __device__ float __tessera__nv_erff(float a0) { return __nv_erff(a0); }
//
// with -rdc=true (so the wrappers stay visible) and -ftz=true (Triton links
// libdevice with FTZ reflected on), and the resulting PTX is the second
// nvJitLink input. One compilation per (set of wrappers, architecture),
// cached in memory and on disk as a cache entry "libdevice-<sha256>" (see
// DiskCache.h: published atomically, every file checked against its
// SHA-256 manifest, a corrupt entry recompiled and replaced). The key holds
// NVRTC's version and the identity of its libraries, which carry libdevice.
//
//===----------------------------------------------------------------------===//

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "runtime/DynamicLibrary.h"
#include "runtime/Toolkit.h"
#include "tessera/Error.h"
#include "tessera/runtime/DiskCache.h"
#include "tessera/runtime/Hash.h"
#include "tessera/support/Env.h"

namespace tessera::runtime {

namespace fs = std::filesystem;

namespace {

constexpr const char* kLibdeviceFormat = "libdevice-wrappers 1";

/// The C spelling of a libdevice argument/result type. libdevice's integer
/// parameters are 32/64-bit; signedness does not exist at the PTX level.
const char* cudaTypeName(ir::Type t) {
  if (!t || t.isTensor()) return nullptr;
  switch (t.kind()) {
    case ir::TypeKind::I8: return "signed char";
    case ir::TypeKind::I16: return "short";
    case ir::TypeKind::I32: return "int";
    case ir::TypeKind::I64: return "long long";
    case ir::TypeKind::F32: return "float";
    case ir::TypeKind::F64: return "double";
    default: return nullptr;
  }
}

std::string nvrtcLog(const NvrtcApi& api, NvrtcApi::Program program) {
  size_t size = 0;
  if (api.getProgramLogSize(program, &size) != 0 || size <= 1) return "";
  std::string log(size, '\0');
  api.getProgramLog(program, log.data());
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

/// Runs NVRTC; throws Error naming the kernel with NVRTC's log.
std::string compileWithNvrtc(const std::string& source, const std::vector<std::string>& options,
                             const std::string& kernelName) {
  const NvrtcApi& api = nvrtcApi();
  std::string prefix = "kernel '" + kernelName + "': ";
  if (!api.error.empty()) throw Error(prefix + "calls libdevice functions, which need NVRTC: " + api.error);
  NvrtcApi::Program program = nullptr;
  int r = api.createProgram(&program, source.c_str(), "tessera_libdevice.cu", 0, nullptr, nullptr);
  if (r != 0) throw Error(prefix + "NVRTC could not create a program: " + api.getErrorString(r));
  struct Guard {
    const NvrtcApi& api;
    NvrtcApi::Program& p;
    ~Guard() { api.destroyProgram(&p); }
  } guard{api, program};
  std::vector<const char*> argv;
  for (const auto& o : options) argv.push_back(o.c_str());
  r = api.compileProgram(program, static_cast<int>(argv.size()), argv.data());
  if (r != 0)
    throw Error(prefix + "compiling the libdevice wrappers with NVRTC failed: " + api.getErrorString(r) + "\n" +
                nvrtcLog(api, program) + "\nsource:\n" + source);
  size_t size = 0;
  r = api.getPTXSize(program, &size);
  if (r != 0) throw Error(prefix + "NVRTC produced no PTX: " + api.getErrorString(r));
  std::string ptx(size, '\0');
  api.getPTX(program, ptx.data());
  while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();
  return ptx;
}

/// A cached PTX file is usable when it defines every wrapper.
bool definesAll(const std::string& ptx, const std::vector<gpu::ExternFunction>& externs) {
  if (ptx.find(".version") == std::string::npos) return false;
  for (const auto& e : externs) {
    std::string wrapper = e.wrapper.empty() ? gpu::libdeviceWrapperName(e.symbol) : e.wrapper;
    if (ptx.find(".visible .func") == std::string::npos || ptx.find(" " + wrapper + "(") == std::string::npos)
      return false;
  }
  return true;
}

}  // namespace

std::string libdeviceIdentity() {
  static const std::string identity = [] {
    const NvrtcApi& api = nvrtcApi();
    if (!api.error.empty()) return std::string("no NVRTC");
    int major = 0, minor = 0;
    api.version(&major, &minor);
    std::string path = loadedLibraryPath(reinterpret_cast<const void*>(api.createProgram), api.path);
    std::string id = "NVRTC " + std::to_string(major) + "." + std::to_string(minor) + " " + fileIdentity(path);
    // libdevice's bitcode lives in NVRTC's builtins library beside it.
    std::error_code ec;
    std::vector<std::string> builtins;
    fs::path dir = fs::path(path).parent_path();
    if (!dir.empty())
      for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().filename().string().rfind("libnvrtc-builtins", 0) == 0) builtins.push_back(it->path().string());
    std::sort(builtins.begin(), builtins.end());
    for (const std::string& b : builtins) id += "; " + fileIdentity(b);
    return id;
  }();
  return identity;
}

const NvrtcApi& nvrtcApi() {
  static const NvrtcApi* api = [] {
    auto* a = new NvrtcApi();
    // Prefer the NVRTC next to the nvJitLink in use: their PTX versions match.
    std::vector<std::string> candidates;
    const std::string& linkPath = jitLinkApi().path;
    if (linkPath.find('/') != std::string::npos) {
      std::string dir = fs::path(linkPath).parent_path().string();
      for (const char* name : {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"}) {
        std::error_code ec;
        if (fs::exists(dir + "/" + name, ec)) candidates.push_back(dir + "/" + name);
      }
    }
    for (auto& c : toolkitLibraryCandidates({"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"}))
      candidates.push_back(c);
    static DynamicLibrary lib(candidates);
    if (!lib.isOpen()) {
      a->error = "NVRTC could not be opened; set CUDA_HOME to the CUDA toolkit (" + lib.error() + ")";
      return a;
    }
    a->path = lib.path();
    bool ok = lib.bind(a->createProgram, "nvrtcCreateProgram") && lib.bind(a->compileProgram, "nvrtcCompileProgram") &&
              lib.bind(a->getPTXSize, "nvrtcGetPTXSize") && lib.bind(a->getPTX, "nvrtcGetPTX") &&
              lib.bind(a->getProgramLogSize, "nvrtcGetProgramLogSize") &&
              lib.bind(a->getProgramLog, "nvrtcGetProgramLog") && lib.bind(a->destroyProgram, "nvrtcDestroyProgram") &&
              lib.bind(a->getErrorString, "nvrtcGetErrorString") && lib.bind(a->version, "nvrtcVersion");
    if (!ok) a->error = "NVRTC (" + lib.path() + ") lacks an entry point Tessera needs";
    return a;
  }();
  return *api;
}

std::string libdeviceSource(const std::vector<gpu::ExternFunction>& externs, const std::string& kernelName) {
  // Sorted by wrapper name and deduplicated: equal sets give equal text, so
  // the cache key does not depend on the order the backend met the calls.
  std::map<std::string, const gpu::ExternFunction*> byWrapper;
  for (const auto& e : externs) {
    std::string wrapper = e.wrapper.empty() ? gpu::libdeviceWrapperName(e.symbol) : e.wrapper;
    byWrapper.emplace(wrapper, &e);
  }
  std::ostringstream src;
  src << "// Tessera: libdevice wrappers (generated)\n";
  for (const auto& entry : byWrapper) {
    const std::string& wrapper = entry.first;
    const gpu::ExternFunction* e = entry.second;  // (a structured binding cannot be captured before C++20 in clang 14)
    auto spell = [&](ir::Type t) {
      const char* name = cudaTypeName(t);
      if (!name)
        throw Error("kernel '" + kernelName + "': libdevice function " + e->symbol + " uses the type " +
                    (t ? t.str() : std::string("<none>")) + ", which has no libdevice (CUDA C) spelling");
      return std::string(name);
    };
    std::string result = spell(e->resultType);
    std::string params, declParams, args;
    for (size_t i = 0; i < e->argTypes.size(); ++i) {
      std::string t = spell(e->argTypes[i]);
      std::string sep = i ? ", " : "";
      declParams += sep + t;
      params += sep + t + " a" + std::to_string(i);
      args += sep + "a" + std::to_string(i);
    }
    src << "extern \"C\" __device__ " << result << " " << e->symbol << "(" << declParams << ");\n"
        << "extern \"C\" __device__ " << result << " " << wrapper << "(" << params << ") { return " << e->symbol
        << "(" << args << "); }\n";
  }
  return src.str();
}

std::string libdevicePtx(const std::vector<gpu::ExternFunction>& externs, const gpu::Target& target,
                         const std::string& kernelName) {
  std::string source = libdeviceSource(externs, kernelName);
  std::string arch = "--gpu-architecture=compute_" + std::to_string(target.capability) +
                     (target.archSpecific ? "a" : "");
  std::vector<std::string> options = {arch, "-rdc=true", "-ftz=true"};

  Sha256 key;
  key.field(kLibdeviceFormat).field(source).field(libdeviceIdentity());
  for (const auto& o : options) key.field(o);
  std::string hex = key.hexDigest();

  static std::mutex mutex;
  static std::map<std::string, std::string> memory;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = memory.find(hex); it != memory.end()) return it->second;
  }
  std::string dir = cacheDirectory();
  std::string entry = "libdevice-" + hex;
  auto intact = [&](const CacheFiles& files) {
    auto it = files.find("ptx");
    return it != files.end() && definesAll(it->second, externs);
  };
  std::string ptx;
  if (!dir.empty() && !env::flag("TESSERA_ALWAYS_COMPILE"))
    if (std::optional<CacheFiles> files = loadCacheEntry(dir, entry, intact)) ptx = files->at("ptx");
  if (ptx.empty()) {
    ptx = compileWithNvrtc(source, options, kernelName);
    if (!dir.empty()) publishCacheEntry(dir, entry, {{"ptx", ptx}, {"source", source}}, intact);
  }
  std::lock_guard<std::mutex> lock(mutex);
  return memory.emplace(hex, ptx).first->second;
}

}  // namespace tessera::runtime
