//===- EnvTest.cpp - TESSERA_* variables are checked, not ignored ---------===//
//
// Once, TESSERA_INTERPRETER_LOOP_LIMIT=abc or -1 meant "no limit",
// TESSERA_DUMP=foo did nothing and TESSERA_MAXNREG=1 emitted an unchecked
// .maxnreg. Every read now goes through env::knobs(): a value a knob cannot
// take is an error naming the variable, the value and what it accepts.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <set>

#include "tessera/Error.h"
#include "tessera/support/Env.h"

namespace {

using namespace tessera;

struct Set {
  std::string name;
  Set(const std::string& n, const std::string& v) : name(n) { setenv(n.c_str(), v.c_str(), 1); }
  ~Set() { unsetenv(name.c_str()); }
};

std::string errorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(Env, IntegersAreCheckedAgainstTheirRange) {
  const char* limit = "TESSERA_INTERPRETER_LOOP_LIMIT";
  unsetenv(limit);
  EXPECT_EQ(env::integer(limit), std::nullopt);
  {
    Set s(limit, "");
    EXPECT_EQ(env::integer(limit), std::nullopt);
  }
  {
    Set s(limit, "12345");
    EXPECT_EQ(env::integer(limit), 12345);
  }
  for (const char* bad : {"abc", "-1", "12x", "99999999999999999999", "-", "1e6", " 5"}) {
    Set s(limit, bad);
    std::string e = errorOf([&] { env::integer(limit); });
    EXPECT_NE(e.find(std::string("TESSERA_INTERPRETER_LOOP_LIMIT='") + bad + "' is not valid"), std::string::npos) << e;
    EXPECT_NE(e.find("an integer from 0 to"), std::string::npos) << e;
  }
  for (const char* bad : {"1", "15", "256", "100000"}) {
    Set s("TESSERA_MAXNREG", bad);
    EXPECT_NE(errorOf([] { env::integer("TESSERA_MAXNREG"); }).find("from 16 to 255"), std::string::npos) << bad;
  }
  Set ok("TESSERA_MAXNREG", "255");
  EXPECT_EQ(env::integer("TESSERA_MAXNREG"), 255);
}

TEST(Env, FlagsAndChoices) {
  const char* f = "TESSERA_ALWAYS_COMPILE";
  unsetenv(f);
  EXPECT_FALSE(env::flag(f));
  EXPECT_TRUE(env::flag("TESSERA_POINTER_TMA", true));
  for (const char* on : {"1", "true", "YES", "on"}) {
    Set s(f, on);
    EXPECT_TRUE(env::flag(f)) << on;
  }
  for (const char* off : {"0", "false", "No", "off", ""}) {
    Set s(f, off);
    EXPECT_FALSE(env::flag(f, false)) << off;
  }
  {
    Set s(f, "2");
    EXPECT_NE(errorOf([&] { env::flag(f); }).find("expected 1 or 0"), std::string::npos);
  }
  Set a("TESSERA_ASSEMBLER", "PTXAS");
  EXPECT_EQ(env::choice("TESSERA_ASSEMBLER", "nvjitlink"), "ptxas");
  Set b("TESSERA_CUDA_ALLOCATOR", "malloc");
  std::string e = errorOf([] { env::choice("TESSERA_CUDA_ALLOCATOR", "pool"); });
  EXPECT_NE(e.find("TESSERA_CUDA_ALLOCATOR='malloc' is not valid: expected one of pool, plain"), std::string::npos) << e;
}

TEST(Env, ListsKeepKnownWordsAndWarnOnce) {
  Set s("TESSERA_DUMP", "ttir, foo,PTX,,foo");
  testing::internal::CaptureStderr();
  std::vector<std::string> words = env::list("TESSERA_DUMP");
  env::list("TESSERA_DUMP");
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(words, (std::vector<std::string>{"ttir", "ptx"}));
  EXPECT_NE(err.find("TESSERA_DUMP: ignoring unknown 'foo' (expected a comma-separated list of ttir, ttgir, ptx, "
                     "sass, all, after-all)"),
            std::string::npos)
      << err;
  // One warning for 'foo', though it is listed twice and the list read twice.
  size_t count = 0;
  for (size_t p = err.find("ignoring unknown"); p != std::string::npos; p = err.find("ignoring unknown", p + 1)) ++count;
  EXPECT_EQ(count, 1u) << err;
}

TEST(Env, OnlyCodeChangingKnobsEnterTheCacheKey) {
  for (const env::Knob& k : env::knobs()) unsetenv(k.name);
  EXPECT_EQ(env::codeKnobs(), "");
  Set a("TESSERA_MAXNREG", "64");
  Set b("TESSERA_PRINT_RECOMPILES", "1");
  EXPECT_EQ(env::codeKnobs(), "TESSERA_MAXNREG=64\n");
  std::set<std::string> names;
  for (const env::Knob& k : env::knobs()) {
    EXPECT_TRUE(names.insert(k.name).second) << "twice: " << k.name;
    EXPECT_EQ(env::find(k.name), &k);
    EXPECT_GT(std::string(k.summary).size(), 10u) << k.name;
  }
  EXPECT_EQ(env::find("TESSERA_NO_SUCH_KNOB"), nullptr);
}

}  // namespace
