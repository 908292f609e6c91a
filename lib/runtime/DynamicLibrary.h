//===- DynamicLibrary.h - dlopen with a search list -------------*- C++ -*-===//
//
// The CUDA driver and the toolkit libraries (nvJitLink, NVRTC) are opened at
// run time (DESIGN.md decision 2) so one build serves machines with and
// without them. A DynamicLibrary tries a list of candidate paths in order and
// remembers what it tried, so the error a user sees says where it looked.
// Libraries are never closed: their function pointers live in process-wide
// tables that may be used until exit.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <vector>

namespace tessera::runtime {

class DynamicLibrary {
 public:
  /// Opens the first candidate that dlopen accepts. On failure isOpen() is
  /// false and error() lists every candidate with dlerror's reason.
  explicit DynamicLibrary(const std::vector<std::string>& candidates);

  bool isOpen() const { return handle_ != nullptr; }
  /// The candidate that opened.
  const std::string& path() const { return path_; }
  /// Why opening failed ("" when open).
  const std::string& error() const { return error_; }
  /// The symbol's address, or nullptr.
  void* symbol(const char* name) const;

  /// Casts symbol(name) to a function pointer type.
  template <class Fn> bool bind(Fn& fn, const char* name) const {
    fn = reinterpret_cast<Fn>(symbol(name));
    return fn != nullptr;
  }

 private:
  void* handle_ = nullptr;
  std::string path_;
  std::string error_;
};

/// Directories of the CUDA toolkit, in search order: $CUDA_HOME, $CUDA_PATH,
/// /usr/local/cuda (only those that exist).
std::vector<std::string> toolkitRoots();

/// Candidates for a toolkit library: `<root>/lib64/<name>` and
/// `<root>/lib/<name>` for every root and every name, then `<dir>/<name>`
/// for the directories of $TESSERA_CUDA_LIBRARY_PATH, then the bare names
/// (the loader's search path).
std::vector<std::string> toolkitLibraryCandidates(const std::vector<std::string>& names);

}  // namespace tessera::runtime
