//===- TestUtil.h - Helpers for the frontend unit tests ---------*- C++ -*-===//
//
// compileIR(source, kernel, signature) compiles a kernel and returns the
// printed, verified Tile IR; compileError(...) returns the diagnostic text.
// Signatures use a compact form: "*fp32:16, i32, BLOCK=128" (pointers,
// scalars with optional ":16" divisibility, constexprs as NAME=VALUE in
// parameter order).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "tessera/frontend/Frontend.h"
#include "tessera/ir/IR.h"

namespace tessera::frontend::test {

inline std::vector<ParamSpec> parseSpecs(const std::string& sig) {
  std::vector<ParamSpec> specs;
  std::stringstream ss(sig);
  std::string item;
  while (std::getline(ss, item, ',')) {
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    if (item.empty()) continue;
    ParamSpec s;
    if (auto eq = item.find('='); eq != std::string::npos) {
      std::string v = item.substr(eq + 1);
      s.kind = ParamSpec::Kind::Constexpr;
      if (v == "None") s.value = std::monostate{};
      else if (v == "True" || v == "False") s.value = v == "True";
      else if (v.find_first_not_of("-0123456789") == std::string::npos) s.value = int64_t(std::stoll(v));
      else if (v.find_first_not_of("-0123456789.e") == std::string::npos) s.value = std::stod(v);
      else s.value = v;
    } else {
      if (auto c = item.find(":16"); c != std::string::npos) {
        s.divisibleBy16 = true;
        item = item.substr(0, c);
      }
      s.kind = item[0] == '*' ? ParamSpec::Kind::Pointer : ParamSpec::Kind::Scalar;
      s.type = item;
    }
    specs.push_back(s);
  }
  return specs;
}

inline std::shared_ptr<SourceProgram> load(const std::string& src) {
  return SourceProgram::load(std::make_shared<SourceFile>("k.py", src));
}

inline std::string compileIR(const std::string& src, const std::string& kernel, const std::string& sig,
                             CompileOptions opts = {}) {
  auto prog = load(src);
  CompileResult r = prog->compile(kernel, parseSpecs(sig), opts);
  if (auto err = ir::verify(*r.module)) ADD_FAILURE() << "verifier: " << *err << "\n" << ir::print(*r.module);
  return ir::print(*r.module);
}

/// The diagnostic of a failing compile ("" if it compiled).
inline std::string compileError(const std::string& src, const std::string& kernel, const std::string& sig,
                                CompileOptions opts = {}) {
  try {
    auto prog = load(src);
    prog->compile(kernel, parseSpecs(sig), opts);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

inline int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

}  // namespace tessera::frontend::test
