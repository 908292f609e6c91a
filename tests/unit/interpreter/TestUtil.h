//===- tests/unit/interpreter/TestUtil.h - Helpers for interpreter tests --===//
//
// Parse a kernel from IR text, own host buffers registered with the
// interpreter, and launch.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "tessera/Error.h"
#include "tessera/interpreter/Interpreter.h"
#include "tessera/ir/IR.h"

namespace tessera::interp::test {

/// A host buffer registered as an interpreter allocation for its lifetime.
template <class T> class Buffer {
 public:
  explicit Buffer(size_t n, std::string name = "buffer") : data_(n) {
    registerAllocation(data_.data(), n * sizeof(T), std::move(name));
  }
  Buffer(std::vector<T> values, std::string name = "buffer") : data_(std::move(values)) {
    registerAllocation(data_.data(), data_.size() * sizeof(T), std::move(name));
  }
  ~Buffer() { unregisterAllocation(data_.data()); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  T* data() { return data_.data(); }
  T& operator[](size_t i) { return data_[i]; }
  size_t size() const { return data_.size(); }
  std::vector<T>& vec() { return data_; }
  RuntimeArg arg() { return RuntimeArg::ptr(data_.data()); }

 private:
  std::vector<T> data_;
};

inline std::unique_ptr<ir::Module> parseKernel(const std::string& text) {
  auto module = ir::parseModule(text, "test.ttir");
  if (auto err = ir::verify(*module)) ADD_FAILURE() << "IR does not verify: " << *err;
  return module;
}

/// Parses `text` and runs kernel `name` over `grid` (x, y, z).
inline void launch(const std::string& text, const std::string& name, const std::vector<RuntimeArg>& args,
                   std::vector<int64_t> grid, int threads = 0) {
  auto module = parseKernel(text);
  LaunchConfig config;
  for (size_t i = 0; i < grid.size() && i < 3; ++i) config.grid[i] = grid[i];
  config.numThreads = threads;
  run(*module, name, args, config);
}

/// The message of the Error thrown by fn ("" if none).
template <class Fn> std::string errorOf(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

inline std::mt19937& rng() {
  static std::mt19937 gen(std::random_device{}());
  return gen;
}

}  // namespace tessera::interp::test
