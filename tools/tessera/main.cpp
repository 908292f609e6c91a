//===- main.cpp - The tessera command-line tool ---------------------------===//
//
//   tessera compile FILE --kernel NAME --signature SIG [-D NAME=VALUE]...
//           [--num-warps N] [--num-stages N] [--arch sm_90a] --emit ttir [-o OUT]
//   tessera list FILE
//
// SIG is Triton's AOT notation ("*fp32:16, *fp32:16, i32, i32:16"): the
// kernel's non-constexpr parameters in order; constexprs come with -D (or
// inline in SIG, Triton's form). Built on the public library only.
//
//===----------------------------------------------------------------------===//

#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "tessera/tessera.h"

namespace {

const char* kUsage =
    "usage:\n"
    "  tessera compile FILE --kernel NAME --signature SIG [-D NAME=VALUE]...\n"
    "          [--num-warps N] [--num-stages N] [--arch ARCH] --emit ttir|ttgir|ptx|cubin|sass [-o OUT]\n"
    "  tessera list FILE\n"
    "  tessera --help | --version\n";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// -D values: ints, floats, True/False, otherwise a string (dtype names etc.).
tessera::Value parseDefineValue(const std::string& text) {
  if (text == "True" || text == "true") return true;
  if (text == "False" || text == "false") return false;
  char* end = nullptr;
  long long i = std::strtoll(text.c_str(), &end, 0);
  if (!text.empty() && *end == '\0') return static_cast<int64_t>(i);
  double d = std::strtod(text.c_str(), &end);
  if (!text.empty() && *end == '\0') return d;
  std::string s = text;
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front()) s = s.substr(1, s.size() - 2);
  return s;
}

int parseInt(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0') throw UsageError(flag + " expects an integer, got '" + text + "'");
  return static_cast<int>(v);
}

int compileCommand(const std::vector<std::string>& args) {
  std::string file, kernel, signature, emit, out, arch;
  bool haveSignature = false;
  tessera::Meta defines;
  tessera::LaunchOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) throw UsageError(a + " expects a value");
      return args[++i];
    };
    if (a == "--kernel" || a == "-k") kernel = value();
    else if (a == "--signature" || a == "-s") { signature = value(); haveSignature = true; }
    else if (a == "--emit") emit = value();
    else if (a == "-o" || a == "--output") out = value();
    else if (a == "--arch") arch = value();
    else if (a == "--num-warps" || a == "-w") options.num_warps = parseInt(a, value());
    else if (a == "--num-stages" || a == "-ns") options.num_stages = parseInt(a, value());
    else if (a.rfind("-D", 0) == 0) {
      std::string def = a.size() > 2 ? a.substr(2) : value();
      size_t eq = def.find('=');
      if (eq == std::string::npos || eq == 0) throw UsageError("-D expects NAME=VALUE, got '" + def + "'");
      defines[def.substr(0, eq)] = parseDefineValue(def.substr(eq + 1));
    } else if (!a.empty() && a[0] == '-') throw UsageError("unknown option '" + a + "'");
    else if (file.empty()) file = a;
    else throw UsageError("unexpected argument '" + a + "'");
  }
  if (file.empty()) throw UsageError("compile: missing FILE");
  if (kernel.empty()) throw UsageError("compile: missing --kernel NAME");
  if (!haveSignature) throw UsageError("compile: missing --signature SIG");
  if (emit.empty()) emit = "ttir";
  if (emit != "ttir" && emit != "ttgir" && emit != "ptx" && emit != "cubin" && emit != "sass")
    throw UsageError("--emit must be one of ttir, ttgir, ptx, cubin, sass; got '" + emit + "'");

  tessera::Program program = tessera::Program::from_file(file);
  tessera::CompiledKernel compiled = program.kernel(kernel).compile(signature, defines, options, arch);
  std::string text = compiled.asm_text(emit);
  if (out.empty() || out == "-") {
    std::cout << text;
  } else {
    std::ofstream o(out, std::ios::binary);
    if (!o) throw tessera::Error("cannot write '" + out + "'");
    o << text;
  }
  return 0;
}

int listCommand(const std::vector<std::string>& args) {
  if (args.size() != 1) throw UsageError("list expects exactly one FILE");
  tessera::Program program = tessera::Program::from_file(args[0]);
  for (const auto& name : program.kernel_names()) {
    std::cout << name << "(";
    auto params = program.kernel(name).parameter_names();
    for (size_t i = 0; i < params.size(); ++i) std::cout << (i ? ", " : "") << params[i];
    std::cout << ")\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kUsage;
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    std::cout << "tessera 0.1.0\n";
    return 0;
  }
  std::string command = args[0];
  args.erase(args.begin());
  try {
    if (command == "compile") return compileCommand(args);
    if (command == "list") return listCommand(args);
    throw UsageError("unknown command '" + command + "'");
  } catch (const UsageError& e) {
    std::cerr << "tessera: " << e.what() << "\n" << kUsage;
    return 2;
  } catch (const tessera::Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
}
