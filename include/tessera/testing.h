//===- tessera/testing.h - Timing kernels like triton.testing ---*- C++ -*-===//
//
// do_bench with the semantics of triton.testing.do_bench: estimate one run,
// warm up for `warmup_ms`, then time `rep_ms` worth of runs, each bracketed
// by CUDA events, with the L2 cache flushed (a 256 MB buffer cleared) before
// each run. Used by the benchmarks and the autotuner.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <functional>
#include <vector>

#include "tessera/tessera.h"

#include "tessera/Export.h"

TESSERA_API_BEGIN
namespace tessera::testing {

struct BenchOptions {
  int warmup_ms = 25;
  int rep_ms = 100;
  bool flush_l2 = true;
  /// Clear the flush buffer with a kernel of 16-byte stores, as torch's
  /// zero_() does in Triton's do_bench (true), or with cuMemsetD8Async.
  bool flush_with_kernel = true;
  std::vector<double> quantiles;  ///< e.g. {0.2, 0.8}
  /// The stream `fn` launches on (a CUstream; nullptr: the default stream).
  /// The flushes and the timing events go there too, and only that stream
  /// is waited for. It must not be capturing a CUDA graph.
  void* stream = nullptr;
};

struct BenchResult {
  double median_ms = 0;
  double mean_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  std::vector<double> quantiles_ms;  ///< one per BenchOptions::quantiles
  int runs = 0;
};

/// Times `fn` (which launches work on `device`, on options.stream). Throws
/// tessera::Error on the interpreter device and on a capturing stream.
BenchResult do_bench(Device& device, const std::function<void()>& fn, const BenchOptions& options = {});

}  // namespace tessera::testing
TESSERA_API_END
