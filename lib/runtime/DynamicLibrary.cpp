//===- DynamicLibrary.cpp - dlopen with a search list ---------------------===//
//
// See DynamicLibrary.h. Paths come from CUDA_HOME / CUDA_PATH and the default
// install location, then TESSERA_CUDA_LIBRARY_PATH; bare sonames go through
// the loader's own search.
//
//===----------------------------------------------------------------------===//

#include "runtime/DynamicLibrary.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>

namespace tessera::runtime {

DynamicLibrary::DynamicLibrary(const std::vector<std::string>& candidates) {
  for (const std::string& candidate : candidates) {
    dlerror();
    handle_ = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_) {
      path_ = candidate;
      error_.clear();
      return;
    }
    const char* why = dlerror();
    error_ += (error_.empty() ? "" : "; ") + std::string(why ? why : candidate + ": cannot open");
  }
  if (candidates.empty()) error_ = "no candidate paths";
}

void* DynamicLibrary::symbol(const char* name) const { return handle_ ? dlsym(handle_, name) : nullptr; }

std::vector<std::string> toolkitRoots() {
  std::vector<std::string> roots;
  auto add = [&](const std::string& dir) {
    std::error_code ec;
    if (dir.empty() || !std::filesystem::is_directory(dir, ec)) return;
    for (const auto& r : roots)
      if (r == dir) return;
    roots.push_back(dir);
  };
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* v = std::getenv(var)) add(v);
  add("/usr/local/cuda");
  return roots;
}

std::vector<std::string> toolkitLibraryCandidates(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const std::string& root : toolkitRoots())
    for (const char* sub : {"/lib64/", "/lib/"})
      for (const std::string& name : names) {
        std::string path = root + sub + name;
        std::error_code ec;
        if (std::filesystem::exists(path, ec)) out.push_back(path);
      }
  // Then directories named by TESSERA_CUDA_LIBRARY_PATH: the NVIDIA runtime
  // wheels of a PyTorch environment (nvidia/*/lib), which the Python
  // package finds, so that no separate toolkit is needed there.
  if (const char* extra = std::getenv("TESSERA_CUDA_LIBRARY_PATH")) {
    std::string dirs = extra;
    for (size_t start = 0; start <= dirs.size();) {
      size_t end = dirs.find(':', start);
      if (end == std::string::npos) end = dirs.size();
      std::string dir = dirs.substr(start, end - start);
      for (const std::string& name : names) {
        std::error_code ec;
        if (!dir.empty() && std::filesystem::exists(dir + "/" + name, ec)) out.push_back(dir + "/" + name);
      }
      start = end + 1;
    }
  }
  for (const std::string& name : names) out.push_back(name);
  return out;
}

}  // namespace tessera::runtime
