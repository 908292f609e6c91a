//===- bench_pdl.cpp - Programmatic dependent launch: a chain, timed -------===//
//
// bench/gpu/pdl.py's pdl_step launched as a chain of dependent kernels
// (step k reads step k-1's output) from C++, in three modes:
//   serial    USE_GDC=0, launch_pdl off: every launch waits for the previous
//   gdc       USE_GDC=1, launch_pdl off: the waits alone (their cost)
//   pdl       USE_GDC=1, launch_pdl on: a step starts, loads its weights and
//             waits while the previous one drains
// Each chain is checked against the host's result first (bit-exact: x * 0.5
// + w has one rounding). Timing: tessera::testing::do_bench of one whole
// chain (no L2 flush: the chain is the unit), the median, in rounds that
// alternate the modes; the table gives each mode's median over rounds as
// microseconds per step. A probe run per mode (STAMP=1) records each step's
// first start and last end (%globaltimer) and counts the steps that started
// before their predecessor ended. bench_pdl.py does the same under Triton.
//
//   bench_pdl [--chain L] [--sizes 65536,1048576] [--rounds R] [--json FILE] [--interpreter]
//
// --interpreter: the checks and probes on the CPU (small --sizes), untimed.
//
// One JSON line per (size, mode, round) and per probe; the table last.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tessera/tessera.h"
#include "tessera/testing.h"

using tessera::DType;

namespace {

struct Mode {
  const char* name;
  bool gdc, pdl;
};
const Mode kModes[] = {{"serial", false, false}, {"gdc", true, false}, {"pdl", true, true}};

std::vector<int64_t> parseList(const std::string& s) {
  std::vector<int64_t> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::stoll(item));
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  int chain = 32, rounds = 3;
  std::vector<int64_t> sizes = {1 << 16, 1 << 20, 1 << 22};
  std::string jsonPath;
  bool interpreter = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--chain") chain = std::stoi(next());
    else if (a == "--sizes") sizes = parseList(next());
    else if (a == "--rounds") rounds = std::stoi(next());
    else if (a == "--json") jsonPath = next();
    else if (a == "--interpreter") interpreter = true;
    else {
      std::cerr << "usage: bench_pdl [--chain L] [--sizes N,N] [--rounds R] [--json FILE] [--interpreter]\n";
      return 2;
    }
  }
  std::ofstream jsonFile;
  if (!jsonPath.empty()) jsonFile.open(jsonPath, std::ios::app);
  std::ostream& json = jsonPath.empty() ? std::cout : jsonFile;

  tessera::Device dev = interpreter ? tessera::Device::interpreter() : tessera::Device::cuda(0);
  if (interpreter) rounds = 0;  // checks and probes only: nothing to time
  auto program = tessera::Program::from_file(std::string(TESSERA_BENCH_GPU_DIR) + "/pdl.py");
  tessera::Kernel step = program.kernel("pdl_step");
  const int64_t BLOCK = 1024;

  // (size, mode) -> per-round microseconds per step.
  std::map<std::pair<int64_t, std::string>, std::vector<double>> perStep;
  std::map<std::pair<int64_t, std::string>, std::string> probes;
  for (int64_t n : sizes) {
    std::mt19937 rng(static_cast<unsigned>(n));
    std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
    std::vector<float> x0(n), w(n);
    for (auto& v : x0) v = uni(rng);
    for (auto& v : w) v = uni(rng);
    std::vector<float> want = x0;
    for (int k = 0; k < chain; ++k)
      for (int64_t i = 0; i < n; ++i) want[i] = want[i] * 0.5f + w[i];
    tessera::Tensor tx = dev.upload(x0, {n}), tw = dev.upload(w, {n});
    tessera::Tensor bufs[2] = {dev.zeros(DType::fp32, {n}), dev.zeros(DType::fp32, {n})};
    tessera::Tensor stamps = dev.zeros(DType::i64, {2 * chain});
    auto runChain = [&](const Mode& m, bool stamp) {
      tessera::LaunchOptions options;
      options.launch_pdl = m.pdl;
      for (int k = 0; k < chain; ++k) {
        const tessera::Tensor& prev = k == 0 ? tx : bufs[(k - 1) % 2];
        step.launch(dev, {(n + BLOCK - 1) / BLOCK}, {prev, tw, bufs[k % 2], stamps, n, int64_t(k)},
                    {{"BLOCK", BLOCK}, {"USE_GDC", int64_t(m.gdc)}, {"STAMP", int64_t(stamp)}}, options);
      }
    };
    for (const Mode& m : kModes) {  // check, then probe the overlap
      runChain(m, false);
      auto got = bufs[(chain - 1) % 2].download<float>();
      if (got != want) {
        std::cerr << "FAIL: n=" << n << " mode " << m.name << ": the chain's result differs from the host's\n";
        return 1;
      }
      std::vector<int64_t> init(2 * chain);
      for (int k = 0; k < chain; ++k) init[2 * k] = INT64_MAX, init[2 * k + 1] = 0;
      stamps = dev.upload(init, {2 * chain});
      runChain(m, true);
      auto t = stamps.download<int64_t>();
      int overlapped = 0;
      double gapSum = 0;
      for (int k = 0; k + 1 < chain; ++k) {
        int64_t gap = t[2 * (k + 1)] - t[2 * k + 1];  // next start - this end
        overlapped += gap < 0;
        gapSum += static_cast<double>(gap);
      }
      std::ostringstream line;
      line << "{\"kind\": \"pdl-probe\", \"provider\": \"tessera\", \"n\": " << n << ", \"chain\": " << chain
           << ", \"mode\": \"" << m.name << "\", \"overlapped_steps\": " << overlapped
           << ", \"mean_gap_ns\": " << gapSum / (chain - 1) << "}";
      json << line.str() << "\n";
      std::ostringstream cell;
      cell << overlapped << "/" << chain - 1 << ", " << static_cast<int64_t>(gapSum / (chain - 1)) << " ns";
      probes[{n, m.name}] = cell.str();
    }
    tessera::testing::BenchOptions bo;
    bo.flush_l2 = false;
    bo.warmup_ms = 10;
    bo.rep_ms = 50;
    for (int r = 0; r < rounds; ++r) {
      for (int j = 0; j < 3; ++j) {
        const Mode& m = kModes[(r % 2 == 0) ? j : 2 - j];  // alternate the order between rounds
        double ms = tessera::testing::do_bench(dev, [&] { runChain(m, false); }, bo).median_ms;
        double us = ms * 1000.0 / chain;
        perStep[{n, m.name}].push_back(us);
        json << "{\"kind\": \"pdl\", \"provider\": \"tessera\", \"n\": " << n << ", \"chain\": " << chain
             << ", \"mode\": \"" << m.name << "\", \"round\": " << r << ", \"us_per_step\": " << us << "}\n";
      }
    }
  }
  std::printf("\n| n | serial (us/step) | gdc waits only | pdl | pdl vs serial | overlapped steps, mean gap (pdl) | (serial) |\n");
  std::printf("| ---: | ---: | ---: | ---: | ---: | --- | --- |\n");
  for (int64_t n : sizes) {
    if (rounds == 0) continue;
    double s = median(perStep[{n, "serial"}]), g = median(perStep[{n, "gdc"}]), p = median(perStep[{n, "pdl"}]);
    std::printf("| %lld | %.2f | %.2f | %.2f | %.2fx | %s | %s |\n", static_cast<long long>(n), s, g, p, s / p,
                probes[{n, "pdl"}].c_str(), probes[{n, "serial"}].c_str());
  }
  return 0;
}
