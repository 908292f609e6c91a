//===- FuzzRegressionTest.cpp - Replays inputs the fuzzer once broke on ---===//
//
// Every file in tests/fuzz/regressions/ once crashed or hung the pipeline,
// and every file in tests/fuzz/regressions-api/ the command line or launch
// binding (or seeds that target); each must now end in a diagnostic or a
// clean run.
//
//===----------------------------------------------------------------------===//

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "../../fuzz/FuzzApiInput.h"
#include "../../fuzz/FuzzOneInput.h"

namespace {

/// Runs `fuzz` on every file of tests/fuzz/<dir>; returns how many.
int replay(const char* dir, void (*fuzz)(std::string_view)) {
  namespace fs = std::filesystem;
  int count = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(TESSERA_SOURCE_DIR) / "tests" / "fuzz" / dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    SCOPED_TRACE(entry.path().string());
    fuzz(ss.str());
    ++count;
  }
  return count;
}

}  // namespace

TEST(FuzzRegressions, EveryRecordedInputRunsCleanly) { EXPECT_GT(replay("regressions", tessera::fuzz::fuzzOneInput), 0); }

TEST(FuzzRegressions, EveryRecordedApiInputRunsCleanly) {
  EXPECT_GT(replay("regressions-api", tessera::fuzz::fuzzApiInput), 0);
}
