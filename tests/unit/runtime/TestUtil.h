//===- TestUtil.h - Temporary directories and environment for tests -*- C++ -*-===//
#pragma once

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

namespace tessera::testutil {

/// A fresh directory under the system temp dir, removed with its contents.
struct TempDir {
  std::string path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "tessera-test-XXXXXX").string();
    path = mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

/// Sets an environment variable for the scope, restoring the old value.
struct ScopedEnv {
  std::string name;
  std::optional<std::string> old;
  ScopedEnv(const std::string& name, const std::string& value) : name(name) {
    if (const char* v = std::getenv(name.c_str())) old = v;
    setenv(name.c_str(), value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old)
      setenv(name.c_str(), old->c_str(), 1);
    else
      unsetenv(name.c_str());
  }
};

}  // namespace tessera::testutil
