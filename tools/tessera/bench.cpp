//===- bench.cpp - `tessera bench TRACE`: a per-kernel table of a profile ---===//
//
// Reads a trace that TESSERA_PROFILE=FILE wrote (Profile.cpp's Chrome-trace
// format: one event object per line) and prints one row per kernel: its
// launches, the time they ran as total, mean, min and max, and the time
// spent compiling it (Tile IR, PTX, cubin, module load); then each
// autotuning sweep. Run time is the "gpu" track's (CUDA events around each
// launch; a sweep's timed runs, marked "autotune", are counted with the
// sweep, not as launches); a kernel with no such events ran on the interpreter, whose
// launch calls are the execution, so their CPU time is used ("cpu" in the
// clock column). Sorted by total run time, the costliest kernel first.
//
//===----------------------------------------------------------------------===//

#include "bench.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "tessera/Error.h"

namespace tessera::cli {

namespace {

/// The JSON string value of `key` in one event line ("" if absent).
std::optional<std::string> stringField(const std::string& line, const std::string& key) {
  std::string needle = "\"" + key + "\": \"";
  size_t at = line.find(needle);
  if (at == std::string::npos) return std::nullopt;
  std::string out;
  for (size_t i = at + needle.size(); i < line.size(); ++i) {
    char c = line[i];
    if (c == '"') return out;
    if (c != '\\' || i + 1 >= line.size()) {
      out += c;
      continue;
    }
    char e = line[++i];
    switch (e) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'u':
        if (i + 4 < line.size()) out += static_cast<char>(std::strtol(line.substr(i + 1, 4).c_str(), nullptr, 16));
        i += 4;
        break;
      default: out += e;  // \" \\ \/
    }
  }
  return std::nullopt;  // unterminated
}

std::optional<double> numberField(const std::string& line, const std::string& key) {
  std::string needle = "\"" + key + "\": ";
  size_t at = line.find(needle);
  if (at == std::string::npos) return std::nullopt;
  const char* start = line.c_str() + at + needle.size();
  char* end = nullptr;
  double v = std::strtod(start, &end);
  if (end == start) return std::nullopt;
  return v;
}

struct Timings {
  int count = 0;
  double totalUs = 0, minUs = 0, maxUs = 0;
  void add(double us) {
    minUs = count ? std::min(minUs, us) : us;
    maxUs = count ? std::max(maxUs, us) : us;
    totalUs += us;
    ++count;
  }
};

struct KernelRow {
  std::string name;
  Timings gpu, calls;  ///< the gpu track; the launch calls (CPU)
  Timings sweepRuns;   ///< gpu events of autotuning sweeps' timed runs
  double compileUs = 0;
  const Timings& run() const { return gpu.count ? gpu : calls; }
};

}  // namespace

int benchCommand(const std::vector<std::string>& args) {
  if (args.size() != 1 || args[0].empty() || args[0][0] == '-')
    throw Error("tessera bench: expected one argument, the trace TESSERA_PROFILE wrote (tessera bench TRACE.json)");
  std::ifstream in(args[0]);
  if (!in) throw Error("tessera bench: cannot read '" + args[0] + "'");
  std::map<std::string, KernelRow> rows;
  std::vector<std::pair<std::string, double>> sweeps;
  bool sawTrace = false;
  int lineNo = 0;
  for (std::string line; std::getline(in, line);) {
    ++lineNo;
    if (line.find("\"traceEvents\"") != std::string::npos) sawTrace = true;
    auto cat = stringField(line, "cat");
    auto name = stringField(line, "name");
    auto dur = numberField(line, "dur");
    if (!cat || !name) continue;
    if (!dur) throw Error(args[0] + ":" + std::to_string(lineNo) + ": an event without a duration");
    if (*cat == "gpu" || *cat == "launch") {
      KernelRow& r = rows[*name];
      r.name = *name;
      bool sweepRun = *cat == "gpu" && line.find("\"autotune\": true") != std::string::npos;
      (sweepRun ? r.sweepRuns : *cat == "gpu" ? r.gpu : r.calls).add(*dur);
    } else if (*cat == "compile") {
      // "ttir NAME", "ptx NAME", "cubin NAME", "load NAME".
      size_t space = name->find(' ');
      std::string kernel = space == std::string::npos ? *name : name->substr(space + 1);
      rows[kernel].name = kernel;
      rows[kernel].compileUs += *dur;
    } else if (*cat == "autotune") {
      sweeps.push_back({*name, *dur});
    }
  }
  if (!sawTrace) throw Error("tessera bench: '" + args[0] + "' is not a trace TESSERA_PROFILE wrote (no traceEvents)");
  std::vector<KernelRow> sorted;
  for (auto& [_, r] : rows) sorted.push_back(r);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const KernelRow& a, const KernelRow& b) { return a.run().totalUs > b.run().totalUs; });
  size_t width = 6;
  for (const KernelRow& r : sorted) width = std::max(width, r.name.size());
  std::printf("%-*s %9s %13s %11s %11s %11s %12s %6s\n", static_cast<int>(width), "kernel", "launches",
              "run total ms", "mean us", "min us", "max us", "compile ms", "clock");
  for (const KernelRow& r : sorted) {
    const Timings& t = r.run();
    if (t.count)
      std::printf("%-*s %9d %13.3f %11.2f %11.2f %11.2f %12.2f %6s\n", static_cast<int>(width), r.name.c_str(),
                  t.count, t.totalUs / 1e3, t.totalUs / t.count, t.minUs, t.maxUs, r.compileUs / 1e3,
                  r.gpu.count ? "gpu" : "cpu");
    else
      std::printf("%-*s %9d %13s %11s %11s %11s %12.2f %6s\n", static_cast<int>(width), r.name.c_str(), 0, "-", "-",
                  "-", "-", r.compileUs / 1e3, "-");
  }
  for (const auto& [kernel, us] : sweeps) {
    std::printf("autotuning sweep: %s, %.2f ms", kernel.c_str(), us / 1e3);
    auto it = rows.find(kernel);
    if (it != rows.end() && it->second.sweepRuns.count)
      std::printf(" (%d timed runs, %.3f ms of GPU time in all sweeps of it)", it->second.sweepRuns.count,
                  it->second.sweepRuns.totalUs / 1e3);
    std::printf("\n");
  }
  if (sorted.empty() && sweeps.empty()) std::printf("(no kernel launches or compiles in this trace)\n");
  return 0;
}

}  // namespace tessera::cli
