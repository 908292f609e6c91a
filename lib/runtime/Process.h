//===- Process.h - Running a toolkit program (private) ----------*- C++ -*-===//
//
// Internal to lib/runtime: a scratch directory that removes itself, and
// running a program with arguments (no shell) while capturing its output.
// Used for ptxas (whole-program assembly) and nvdisasm / cuobjdump.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <vector>

namespace tessera::runtime {

/// A fresh directory under the system's temporary directory, removed with
/// everything in it when destroyed. Throws tessera::Error when it cannot be
/// created.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& purpose);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }
  /// path()/name
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

/// Runs argv[0] with argv (no shell), stdout and stderr together into
/// `output`. Returns the exit status, or -1 when it could not be started or
/// was killed by a signal.
int runProgram(const std::vector<std::string>& argv, std::string& output);

/// Writes `bytes` to `path` completely; throws tessera::Error otherwise.
void writeFileOrThrow(const std::string& path, const std::string& bytes);
/// The contents of `path`; throws tessera::Error when it cannot be read.
std::string readFileOrThrow(const std::string& path);

}  // namespace tessera::runtime
