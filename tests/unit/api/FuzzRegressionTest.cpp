//===- FuzzRegressionTest.cpp - Replays inputs the fuzzer once broke on ---===//
//
// Every file in tests/fuzz/regressions/ once crashed or hung the pipeline;
// each must now end in a diagnostic or a clean run.
//
//===----------------------------------------------------------------------===//

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "../../fuzz/FuzzOneInput.h"

TEST(FuzzRegressions, EveryRecordedInputRunsCleanly) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(TESSERA_SOURCE_DIR) / "tests" / "fuzz" / "regressions";
  int count = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    SCOPED_TRACE(entry.path().string());
    tessera::fuzz::fuzzOneInput(ss.str());
    ++count;
  }
  EXPECT_GT(count, 0);
}
