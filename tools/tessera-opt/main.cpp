//===- tessera-opt/main.cpp - Run Tile IR and Tile GPU IR passes on IR text ===//
//
//   tessera-opt [FILE|-] [--pass=a,b{opt=1}] [--print-ir-after-all] [--print-locations]
//               [--emit-ptx=ARCH] [-o OUT]
//   tessera-opt --list-passes
//
// --pass-pipeline= is --pass= (the compiler's GPU pipeline is such a string:
// gpu::gpuPipeline). --print-ir-after-all prints the IR after each pass, once
// verified, to stderr.
//
// Parses Tile IR text (stdin when FILE is "-" or missing), verifies it, runs
// the passes (each followed by the verifier, inside runPasses), verifies
// again and prints the result. --emit-ptx=ARCH (sm_80, sm_90a, ...) prints
// instead the PTX of each kernel of the result, which must be Tile GPU IR
// that went through the GPU pipeline's last passes (encode-host-tensormaps,
// allocate-shared-memory: lit tests of the emitter run them first); the
// kernel's num_warps attribute gives its warps. Every error goes to stderr
// with exit code 1.
// The Tile GPU IR passes (tessera/gpu/Passes.h: convert-to-gpu, ...) are
// registered at start-up next to the Tile IR ones.
//
//===----------------------------------------------------------------------===//

#include <fstream>
#include <iostream>
#include <sstream>

#include "tessera/Error.h"
#include "tessera/gpu/Passes.h"
#include "tessera/ir/IR.h"
#include "tessera/ptx/Backend.h"
#include "tessera/transforms/Passes.h"

namespace {

struct Options {
  std::string input = "-";
  std::string output = "-";
  std::string passes;
  bool hasPasses = false;
  bool printLocations = false;
  bool listPasses = false;
  bool printAfterAll = false;
  std::string emitPtx;  ///< the architecture, or "" for IR text
};

void usage(std::ostream& os) {
  os << "usage: tessera-opt [FILE|-] [--pass=a,b{opt=1}] [--print-ir-after-all] [--print-locations]\n"
        "                  [--emit-ptx=ARCH] [-o OUT]\n"
        "       tessera-opt --list-passes\n";
}

/// Returns false (after printing why) on a bad command line.
bool parseArgs(int argc, char** argv, Options& opts) {
  bool haveInput = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg.substr(0, 7) == "--pass=" || arg.substr(0, 16) == "--pass-pipeline=") {
      opts.passes = std::string(arg.substr(arg.find('=') + 1));
      opts.hasPasses = true;
    } else if (arg.substr(0, 11) == "--emit-ptx=") {
      opts.emitPtx = std::string(arg.substr(11));
    } else if (arg == "--print-ir-after-all") {
      opts.printAfterAll = true;
    } else if (arg == "--print-locations") {
      opts.printLocations = true;
    } else if (arg == "--list-passes") {
      opts.listPasses = true;
    } else if (arg == "-o") {
      if (++i == argc) {
        std::cerr << "tessera-opt: -o needs a file name\n";
        return false;
      }
      opts.output = argv[i];
    } else if (arg == "-h" || arg == "--help") {
      usage(std::cout);
      std::exit(0);
    } else if ((arg.size() > 1 && arg[0] == '-') || haveInput) {
      std::cerr << "tessera-opt: unexpected argument '" << arg << "'\n";
      usage(std::cerr);
      return false;
    } else {
      opts.input = std::string(arg);
      haveInput = true;
    }
  }
  return true;
}

std::string readInput(const std::string& path) {
  std::ostringstream text;
  if (path == "-") {
    text << std::cin.rdbuf();
    return text.str();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw tessera::Error("cannot open input file '" + path + "'");
  text << in.rdbuf();
  return text.str();
}

int run(const Options& opts) {
  if (opts.listPasses) {
    for (const auto& pass : tessera::transforms::passRegistry()) {
      std::cout << pass.name << " - " << pass.summary;
      for (const auto& [key, value] : pass.defaultOptions) std::cout << " [" << key << "=" << value << "]";
      std::cout << "\n";
    }
    return 0;
  }
  std::string text = readInput(opts.input);
  auto module = tessera::ir::parseModule(text, opts.input == "-" ? "<stdin>" : opts.input);
  tessera::ir::verifyOrThrow(*module, "parsing");
  if (opts.hasPasses) {
    tessera::transforms::PassRunOptions run;
    if (opts.printAfterAll)
      run.afterPass = [&opts](const std::string& pass, const tessera::ir::Module& m) {
        std::cerr << "// ----- after " << pass << " -----\n"
                  << tessera::ir::print(m, tessera::ir::PrintOptions{opts.printLocations}) << std::flush;
      };
    tessera::transforms::runPasses(*module, opts.passes, run);
    tessera::ir::verifyOrThrow(*module, "--pass=" + opts.passes);
  }
  std::string result;
  if (!opts.emitPtx.empty()) {
    tessera::gpu::GpuOptions options;
    options.target = tessera::gpu::Target::parse(opts.emitPtx);
    bool anyKernel = false;
    for (tessera::ir::Operation* f : module->functions()) anyKernel = anyKernel || f->boolAttr("kernel");
    for (tessera::ir::Operation* f : module->functions()) {
      if (anyKernel && !f->boolAttr("kernel")) continue;
      options.numWarps = static_cast<int>(f->intAttr("num_warps", 4));
      result += tessera::ptx::emitPtx(*module, tessera::ir::funcName(f), options).ptx;
    }
  } else {
    result = tessera::ir::print(*module, tessera::ir::PrintOptions{opts.printLocations});
  }
  if (opts.output == "-") {
    std::cout << result;
    return 0;
  }
  std::ofstream out(opts.output, std::ios::binary);
  if (!(out << result)) throw tessera::Error("cannot write output file '" + opts.output + "'");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options opts;
  if (!parseArgs(argc, argv, opts)) return 1;
  try {
    tessera::gpu::registerGpuPasses();
    return run(opts);
  } catch (const tessera::Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
}
