//===- main.cpp - The tessera command-line tool ---------------------------===//
//
//   tessera compile FILE --kernel NAME --signature SIG [-D NAME=VALUE]...
//           [--num-warps N] [--num-stages N] [--maxnreg N] [--num-ctas N] [--arch ARCH]
//           --emit ttir|ttgir|ptx|cubin|sass|metadata|cpp [-o OUT] [--name ID]
//   tessera list FILE
//   tessera info
//   tessera bench TRACE.json     (bench.cpp)
//
// SIG is Triton's AOT notation ("*fp32:16, *fp32:16, i32, i32:16"): the
// kernel's non-constexpr parameters in order; constexprs come with -D (or
// inline in SIG, Triton's form). Every stage goes through the public API
// (Kernel::compile(...).asm_text(stage)): ttir, ttgir and ptx are pure C++
// and work on any machine; cubin and sass need the CUDA toolkit (nvJitLink,
// and nvdisasm or cuobjdump for sass) but no GPU. `info` says what this
// machine can do (toolkit, GPUs), for scripts and bug reports.
//
//===----------------------------------------------------------------------===//

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "CompileArgs.h"
#include "bench.h"
#include "tessera/aot.h"
#include "tessera/tessera.h"

namespace {

using tessera::cli::CompileArgs;
using tessera::cli::UsageError;
using tessera::cli::parseCompileArgs;

const char* kUsage =
    "usage:\n"
    "  tessera compile FILE --kernel NAME --signature SIG [-D NAME=VALUE]...\n"
    "          [--num-warps N] [--num-stages N] [--maxnreg N] [--num-ctas N] [--arch ARCH] --emit STAGE [-o OUT] [--name ID]\n"
    "          [--stop-after PASS]\n"
    "  tessera list [-I DIR]... FILE|PACKAGE   (the kernels and their parameters)\n"
    "  tessera info          (the CUDA toolkit and GPUs this machine has)\n"
    "  tessera bench TRACE   (per-kernel launches, run and compile time of a TESSERA_PROFILE=TRACE trace)\n"
    "  tessera COMMAND --help | tessera --help | --version\n";

const char* kCompileHelp =
    "usage: tessera compile FILE --kernel NAME --signature SIG [-D NAME=VALUE]... [-I DIR]...\n"
    "          [--num-warps N] [--num-stages N] [--maxnreg N] [--num-ctas N] [--arch ARCH] --emit STAGE [-o OUT] [--name ID]\n"
    "          [--stop-after PASS]\n"
    "\n"
    "Compiles one specialization of the @triton.jit kernel NAME of FILE and writes one stage of it.\n"
    "Options take their value as the next argument or after '=' (--emit=ptx).\n"
    "\n"
    "  -k, --kernel NAME     the kernel: its name in FILE, or module.name for one FILE imports\n"
    "  -I DIR                also search DIR for the modules FILE imports (before TESSERA_PATH and\n"
    "                        FILE's own directory and package root); repeatable\n"
    "  -s, --signature SIG   the kernel's non-constexpr parameters, in order, separated by commas:\n"
    "                          *TYPE      a pointer to TYPE (a tensor), e.g. *fp32\n"
    "                          TYPE       a scalar, e.g. i32, fp32\n"
    "                          ...:16     the value (a pointer's address) is a multiple of 16\n"
    "                          i32:1      the value is 1 (the parameter becomes a constant)\n"
    "                          tensordesc<bf16[64, 64]>  a host tensor descriptor\n"
    "                        TYPE: i1 i8 i16 i32 i64 u8 u16 u32 u64 fp8e4nv fp8e5 fp16 bf16 fp32 fp64\n"
    "                        e.g. \"*fp32:16, *fp32:16, i32, i32:16\". Triton's form, with every parameter and\n"
    "                        constexpr values inline (\"*fp32, i32, 1024\"), is accepted too.\n"
    "  -D NAME=VALUE         a constexpr parameter: an integer (Python's spelling: 10, 0x10, 0o10), a float,\n"
    "                        True/False, None, or a string such as a dtype name; given for a non-constexpr\n"
    "                        parameter (-D bias_ptr=None), it specializes that one and leaves the signature\n"
    "  -w, --num-warps N     warps per program: 1, 2, 4 (default), 8, 16 or 32\n"
    "  --num-stages N        software pipeline depth of loops with loads (default 3)\n"
    "  --maxnreg N           registers per thread, 16 to 255 (default: the assembler decides)\n"
    "  --num-ctas N          thread-block cluster size the kernel is compiled for (1, 2, 4 or 8;\n"
    "                        tl.extra.cuda.num_ctas()); launches choose their clusters\n"
    "  --arch ARCH           sm_80, sm_86, sm_89, sm_90, sm_90a, ... (default: GPU 0's, else sm_90a);\n"
    "                        with --emit cpp a comma-separated list\n"
    "  --emit STAGE          ttir | ttgir | ptx (no toolkit needed) | cubin | sass | metadata (JSON) |\n"
    "                        cpp (an ahead-of-time launcher; these need the CUDA toolkit)\n"
    "  -o, --output OUT      the file to write (default: stdout); with --emit cpp, OUT.h and OUT.cpp\n"
    "                        (a trailing .cpp or .h is dropped)\n"
    "  --name ID             with --emit cpp: the C++ name of the launcher (default: OUT's file name)\n"
    "  --stop-after PASS     with --emit ttgir: the IR right after that pass of the GPU lowering (a name\n"
    "                        TESSERA_DUMP=after-all prints, e.g. convert-to-gpu), or PASS:N for its N-th run\n";

const char* kListHelp =
    "usage: tessera list [-I DIR]... FILE|PACKAGE\n"
    "\n"
    "Lists the @triton.jit kernels of FILE, one per line with their parameters (constexpr ones marked\n"
    "': constexpr'). For a PACKAGE (a directory with __init__.py), every module of it, the kernels named\n"
    "module.kernel. -I DIR adds DIR to the module search path.\n";
const char* kInfoHelp =
    "usage: tessera info\n"
    "\n"
    "Says whether the CUDA toolkit (nvJitLink, NVRTC) is usable and lists the GPUs, one per line.\n";
const char* kBenchHelp =
    "usage: tessera bench TRACE\n"
    "\n"
    "Summarizes a trace written with TESSERA_PROFILE=TRACE: per kernel, its launches, run time and\n"
    "compile time.\n";

const char* kVersion = "tessera 0.1.0";

/// Writes `bytes` to `out` ("" or "-": stdout) completely, or throws.
void writeOutput(const std::string& out, const std::string& bytes) {
  if (out.empty() || out == "-") {
    if (std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size() || std::fflush(stdout) != 0)
      throw tessera::Error("cannot write to stdout: " + std::string(std::strerror(errno)));
    return;
  }
  std::ofstream o(out, std::ios::binary | std::ios::trunc);
  if (!o) throw tessera::Error("cannot open '" + out + "' for writing: " + std::strerror(errno));
  o.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  o.close();
  if (!o) throw tessera::Error("cannot write '" + out + "': " + std::strerror(errno));
}

/// The assembler's report as one JSON object (what Triton keeps as n_regs,
/// n_spills and shared), for scripts.
std::string metadataJson(const tessera::KernelMetadata& m) {
  std::ostringstream o;
  o << "{\"name\": \"" << m.name << "\", \"target\": \"" << m.target << "\", \"num_warps\": " << m.num_warps
    << ", \"num_stages\": " << m.num_stages << ", \"shared_bytes\": " << m.shared_bytes
    << ", \"static_shared_bytes\": " << m.static_shared_bytes << ", \"registers\": " << m.registers
    << ", \"spill_store_bytes\": " << m.spill_store_bytes << ", \"spill_load_bytes\": " << m.spill_load_bytes
    << ", \"stack_frame_bytes\": " << m.stack_frame_bytes << "}\n";
  return o.str();
}

int compileCommand(const std::vector<std::string>& args) {
  CompileArgs c = parseCompileArgs(args);
  bool toStdout = c.out.empty() || c.out == "-";
  // A cubin is binary: refuse to spray it on a terminal (pipes are fine).
  if (c.emit == "cubin" && toStdout && isatty(STDOUT_FILENO))
    throw UsageError("--emit cubin writes a binary file: give -o FILE (or redirect stdout)");
  if (c.emit == "cubin" || c.emit == "sass" || c.emit == "metadata" || c.emit == "cpp") {
    tessera::SystemInfo system = tessera::system_info();
    if (!system.toolkit)
      throw tessera::Error("--emit " + c.emit + " needs the CUDA toolkit to assemble the PTX (nvJitLink" +
                           std::string(c.emit == "sass" ? ", nvdisasm or cuobjdump" : "") +
                           "): " + system.toolkit_problem +
                           "\n(set CUDA_HOME to the toolkit; --emit ptx and ttgir need no toolkit)");
  }
  tessera::Program program = tessera::Program::from_file(c.file, c.program);
  if (c.emit == "cpp") {
    // One specialization per architecture of the comma-separated --arch.
    std::vector<tessera::CompiledKernel> perArch;
    std::stringstream archs(c.arch);
    for (std::string arch; std::getline(archs, arch, ',');)
      perArch.push_back(program.kernel(c.kernel).compile(c.signature, c.defines, c.options, arch));
    if (perArch.empty()) perArch.push_back(program.kernel(c.kernel).compile(c.signature, c.defines, c.options, ""));
    // -o gen/softmax.cpp and -o gen/softmax both write gen/softmax.{h,cpp};
    // the launcher is named after the file's stem unless --name says.
    std::string base = c.out;
    for (const char* ext : {".cpp", ".h", ".cc", ".hpp"})
      if (base.size() > std::strlen(ext) && base.compare(base.size() - std::strlen(ext), std::string::npos, ext) == 0)
        base.resize(base.size() - std::strlen(ext));
    size_t slash = base.find_last_of('/');
    std::string stem = slash == std::string::npos ? base : base.substr(slash + 1);
    std::string name = c.name.empty() ? stem : c.name;
    tessera::aot::Files files = tessera::aot::generate(name, perArch);
    writeOutput(base + ".h", files.header);
    writeOutput(base + ".cpp", files.source);
    return 0;
  }
  tessera::CompiledKernel compiled = program.kernel(c.kernel).compile(c.signature, c.defines, c.options, c.arch);
  if (!c.stopAfter.empty()) writeOutput(c.out, compiled.ir_after_pass(c.stopAfter));
  else writeOutput(c.out, c.emit == "metadata" ? metadataJson(compiled.metadata()) : compiled.asm_text(c.emit));
  return 0;
}

/// "name(x_ptr, n, BLOCK: constexpr)" for each kernel of `program`'s file.
void printKernels(const tessera::Program& program, const std::string& prefix) {
  for (const auto& name : program.kernel_names()) {
    std::cout << prefix << name << "(";
    auto params = program.kernel(name).parameters();
    for (size_t i = 0; i < params.size(); ++i)
      std::cout << (i ? ", " : "") << params[i].name << (params[i].is_constexpr ? ": constexpr" : "");
    std::cout << ")\n";
  }
}

int listCommand(const std::vector<std::string>& args) {
  tessera::ProgramOptions options;
  std::string file;
  for (size_t i = 0; i < args.size(); ++i) {
    if (tessera::cli::parseIncludeDir(args, i, options.search_path)) continue;
    if (args[i].size() > 1 && args[i][0] == '-') throw UsageError("unknown option '" + args[i] + "'");
    if (!file.empty()) throw UsageError("list expects exactly one FILE");
    file = args[i];
  }
  if (file.empty()) throw UsageError("list expects exactly one FILE");
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(file, ec) && fs::exists(fs::path(file) / "__init__.py", ec)) {
    // A package: each module of it, by its dotted name.
    std::vector<fs::path> files;
    for (auto it = fs::recursive_directory_iterator(file, ec); it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) break;
      if (it->is_regular_file(ec) && it->path().extension() == ".py") files.push_back(it->path());
    }
    std::sort(files.begin(), files.end());
    int status = 0;
    for (const fs::path& f : files) {
      // A module that does not load is said, and the others still listed.
      try {
        tessera::Program program = tessera::Program::from_file(f.string(), options);
        std::string module = program.modules().front().first;
        printKernels(program, module + ".");
      } catch (const tessera::Error& e) {
        std::cerr << e.what() << "\n";
        status = 1;
      }
    }
    return status;
  }
  printKernels(tessera::Program::from_file(file, options), "");
  return 0;
}

/// One line each: the version, the toolkit, every GPU. Never fails: a
/// missing toolkit or driver is reported, not an error.
int infoCommand(const std::vector<std::string>& args) {
  if (!args.empty()) throw UsageError("info takes no arguments");
  std::cout << kVersion << "\n";
  tessera::SystemInfo system = tessera::system_info();
  std::cout << "cpus: " << system.usable_cpus << " usable (affinity mask and cgroup quota); interpreter threads: "
            << tessera::Device::interpreter().multiprocessor_count() << "\n";
  if (system.toolkit)
    std::cout << "toolkit: available (ptx -> cubin with nvJitLink, libdevice with NVRTC)\n";
  else
    std::cout << "toolkit: unavailable: " << system.toolkit_problem << "\n";
  if (!system.gpu_problem.empty()) {
    std::cout << "gpu: none: " << system.gpu_problem << "\n";
    return 0;
  }
  for (size_t i = 0; i < system.gpus.size(); ++i) {
    const tessera::SystemInfo::Gpu& g = system.gpus[i];
    if (!g.problem.empty())
      std::cout << "gpu: cuda:" << i << " unusable: " << g.problem << "\n";
    else
      std::cout << "gpu: cuda:" << i << " " << g.name << " (" << g.arch << ", " << g.multiprocessors << " SMs)\n";
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
    std::cout << kVersion << "\n";
    return 0;
  }
  std::string command = args[0];
  args.erase(args.begin());
  for (const std::string& a : args)
    if (a == "--help" || a == "-h") {
      const char* help = command == "compile" ? kCompileHelp
                         : command == "list"  ? kListHelp
                         : command == "info"  ? kInfoHelp
                         : command == "bench" ? kBenchHelp
                                              : nullptr;
      if (!help) break;
      std::cout << help;
      return 0;
    }
  try {
    if (command == "compile") return compileCommand(args);
    if (command == "list") return listCommand(args);
    if (command == "info") return infoCommand(args);
    if (command == "bench") {
      if (args.size() != 1 || args[0].empty() || args[0][0] == '-')
        throw UsageError("bench takes one argument, the trace TESSERA_PROFILE wrote");
      return tessera::cli::benchCommand(args);
    }
    throw UsageError("unknown command '" + command + "'");
  } catch (const UsageError& e) {
    std::cerr << "tessera: " << e.what() << "\n" << kUsage;
    return 2;
  } catch (const tessera::Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    // Not a user's mistake: a bug in Tessera (please report it).
    std::cerr << "tessera: internal error: " << e.what() << "\n";
    return 3;
  }
}
