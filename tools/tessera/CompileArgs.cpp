//===- CompileArgs.cpp - The arguments of `tessera compile` ---------------===//

#include "CompileArgs.h"

#include <cstdint>
#include <cstdlib>
#include <optional>

#include "tessera/support/IntLiteral.h"

namespace tessera::cli {

namespace {

/// -D values: ints (as Python writes them), floats, True/False, None,
/// otherwise a string (dtype names etc.; quoted for the text "None").
tessera::Value parseDefineValue(const std::string& name, const std::string& text) {
  if (text == "None") return std::monostate{};
  if (text == "True" || text == "true") return true;
  if (text == "False" || text == "false") return false;
  int64_t i = 0;
  tessera::IntLiteralStatus status = tessera::parseIntLiteral(text, i);
  if (status == tessera::IntLiteralStatus::Ok) return i;
  if (status != tessera::IntLiteralStatus::NotAnInteger)
    throw UsageError("-D " + name + "=" + text + ": " + tessera::intLiteralError(text, status));
  char* end = nullptr;
  double d = std::strtod(text.c_str(), &end);
  if (!text.empty() && *end == '\0') return d;
  std::string s = text;
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front()) s = s.substr(1, s.size() - 2);
  return s;
}

int parseInt(const std::string& flag, const std::string& text) {
  int64_t v = 0;
  tessera::IntLiteralStatus status = tessera::parseIntLiteral(text, v);
  if (status == tessera::IntLiteralStatus::NotAnInteger) throw UsageError(flag + " expects an integer, got '" + text + "'");
  if (status != tessera::IntLiteralStatus::Ok) throw UsageError(flag + " " + tessera::intLiteralError(text, status));
  if (v < INT32_MIN || v > INT32_MAX) throw UsageError(flag + " " + text + " is out of range");
  return static_cast<int>(v);
}

}  // namespace

bool parseIncludeDir(const std::vector<std::string>& args, size_t& i, std::vector<std::string>& dirs) {
  const std::string& a = args[i];
  if (a.rfind("-I", 0) != 0 && a != "--include") return false;
  if (a.size() > 2 && a != "--include") {
    dirs.push_back(a.substr(2));
  } else {
    if (i + 1 >= args.size()) throw UsageError(a + " expects a directory");
    dirs.push_back(args[++i]);
  }
  if (dirs.back().empty()) throw UsageError("-I expects a directory");
  return true;
}

CompileArgs parseCompileArgs(const std::vector<std::string>& args) {
  CompileArgs c;
  for (size_t i = 0; i < args.size(); ++i) {
    if (parseIncludeDir(args, i, c.program.search_path)) continue;
    std::string a = args[i];
    // --opt=value is --opt value.
    std::optional<std::string> inlineValue;
    if (size_t eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos) {
      inlineValue = a.substr(eq + 1);
      a = a.substr(0, eq);
    }
    auto value = [&]() -> std::string {
      if (inlineValue) return *inlineValue;
      if (i + 1 >= args.size()) throw UsageError(a + " expects a value");
      return args[++i];
    };
    if (a == "--kernel" || a == "-k") c.kernel = value();
    else if (a == "--signature" || a == "-s") { c.signature = value(); c.haveSignature = true; }
    else if (a == "--emit") c.emit = value();
    else if (a == "-o" || a == "--output") c.out = value();
    else if (a == "--arch") c.arch = value();
    else if (a == "--num-warps" || a == "-w") c.options.num_warps = parseInt(a, value());
    else if (a == "--num-stages" || a == "-ns") c.options.num_stages = parseInt(a, value());
    else if (a == "--maxnreg") c.options.maxnreg = parseInt(a, value());
    else if (a == "--num-ctas") c.options.num_ctas = parseInt(a, value());
    else if (a == "--name") c.name = value();
    else if (a == "--stop-after") c.stopAfter = value();
    else if (a.rfind("-D", 0) == 0) {
      std::string def = a.size() > 2 ? a.substr(2) : value();
      size_t eq = def.find('=');
      if (eq == std::string::npos || eq == 0) throw UsageError("-D expects NAME=VALUE, got '" + def + "'");
      std::string name = def.substr(0, eq);
      if (c.defines.count(name)) throw UsageError("-D " + name + " is given twice");
      c.defines[name] = parseDefineValue(name, def.substr(eq + 1));
    } else if (inlineValue) throw UsageError("unknown option '" + a + "'");
    else if (!a.empty() && a[0] == '-' && a != "-") throw UsageError("unknown option '" + a + "'");
    else if (c.file.empty()) c.file = a;
    else throw UsageError("unexpected argument '" + a + "'");
  }
  if (c.file.empty()) throw UsageError("compile: missing FILE");
  if (c.kernel.empty()) throw UsageError("compile: missing --kernel NAME");
  if (!c.haveSignature) throw UsageError("compile: missing --signature SIG");
  if (c.emit != "ttir" && c.emit != "ttgir" && c.emit != "ptx" && c.emit != "cubin" && c.emit != "sass" &&
      c.emit != "metadata" && c.emit != "cpp")
    throw UsageError("--emit must be one of ttir, ttgir, ptx, cubin, sass, metadata, cpp; got '" + c.emit + "'");
  if (c.emit == "cpp" && (c.out.empty() || c.out == "-"))
    throw UsageError("--emit cpp writes OUT.h and OUT.cpp: give -o OUT");
  if (c.emit != "cpp" && !c.name.empty()) throw UsageError("--name names the launcher of --emit cpp");
  if (!c.stopAfter.empty() && c.emit != "ttgir")
    throw UsageError("--stop-after PASS stops the GPU lowering: only with --emit ttgir");
  if (c.emit != "cpp" && c.arch.find(',') != std::string::npos)
    throw UsageError("several architectures (--arch " + c.arch + ") only with --emit cpp");
  if (c.options.num_warps < 1 || c.options.num_warps > 32 || (c.options.num_warps & (c.options.num_warps - 1)))
    throw UsageError("--num-warps must be a power of two from 1 to 32, got " + std::to_string(c.options.num_warps));
  if (c.options.num_stages < 1) throw UsageError("--num-stages must be at least 1");
  c.program.arch = c.arch.substr(0, c.arch.find(','));
  return c;
}

}  // namespace tessera::cli
