//===- bench.h - `tessera bench`: the per-kernel table of a profile -------===//
#pragma once

#include <string>
#include <vector>

namespace tessera::cli {

/// `tessera bench TRACE.json`: prints launches, run time and compile time per
/// kernel, and the autotuning sweeps, of a trace TESSERA_PROFILE wrote.
/// Returns the exit status; throws tessera::Error for a missing or foreign file.
int benchCommand(const std::vector<std::string>& args);

}  // namespace tessera::cli
