//===- RobustnessTest.cpp - Limits, garbage input, speed --------*- C++ -*-===//
//
// The parser must never crash, hang or blow the stack: deep nesting is cut
// off with a syntax error, random and mutated input either parses or throws
// tessera::Error, and a 2000-line file parses in milliseconds.
//
//===----------------------------------------------------------------------===//

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <random>

#include "ParserTestUtil.h"

namespace tessera::py::test {
namespace {

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

TEST(PyRobustness, NestingLimits) {
  // 200 brackets are fine, 201 are "too many" (CPython's tokenizer limit).
  EXPECT_EQ(errorOf("x = " + repeat("(", 200) + "1" + repeat(")", 200) + "\n"), "no error");
  EXPECT_EQ(errorOf("x = " + repeat("(", 201) + "1" + repeat(")", 201) + "\n"), "1:205: too many nested parentheses");
  EXPECT_EQ(errorOf(repeat("[", 100000)), "1:201: too many nested parentheses");
  EXPECT_NE(errorOf("x = " + repeat("-", 100000) + "1\n").find("too many nested expressions"), std::string::npos);
  EXPECT_EQ(errorOf("x = " + repeat("not ", 100000) + "1\n").substr(0, 40).find("too many nested expressions") !=
                std::string::npos,
            true);
  EXPECT_NE(errorOf("x = " + repeat("lambda: ", 50000) + "1\n").find("too many nested expressions"), std::string::npos);
  EXPECT_NE(errorOf("x = 1" + repeat(" + 1", 100000) + "\n").find("too many nested expressions"), std::string::npos);
  EXPECT_NE(errorOf("x = a" + repeat(".b", 100000) + "\n").find("too many nested expressions"), std::string::npos);
  EXPECT_NE(errorOf("x = f" + repeat("()", 100000) + "\n").find("too many nested expressions"), std::string::npos);
  EXPECT_NE(errorOf("x = " + repeat("f'{", 1000) + repeat("}'", 1000) + "\n").find("too many nested"),
            std::string::npos);
  // A long flat chain of a realistic size is fine.
  EXPECT_EQ(errorOf("x = 1" + repeat(" + 1", 1000) + "\n"), "no error");
  // Indentation: 100 levels are allowed, the 101st is not.
  std::string deep;
  for (int i = 0; i < 101; ++i) deep += std::string(i, ' ') + "if x:\n";
  deep += std::string(101, ' ') + "pass\n";
  EXPECT_EQ(errorOf(deep), "102:102: too many levels of indentation");
}

/// Random token soup from Python's vocabulary.
std::string randomProgram(std::mt19937& rng) {
  static const char* const kPieces[] = {
      "x",  "y",  "def", "class", "if", "else", "elif", "for", "in", "while", "try", "except", "finally",
      "with", "as", "lambda", "yield", "return", "match", "case", "type", "async", "await", "not", "and",
      "(", ")", "[", "]", "{", "}", ":", ",", ";", ".", "=", "==", ":=", "+", "-", "*", "**", "/", "//",
      "@", "->", "...", "!", "|", "&", "'s'", "\"", "'", "f'", "{", "}", "f'{x}'", "f'{x!r:>{w}}'",
      "1", "0x1F", "1.5e3", "2j", "1_0", "\\", "\n", "\n", "\n", "    ", "\t", "#c", "'''", "b'", "r'",
      "\xe2\x80\xa6", "\xc3\xa9", "\xff", "$", "0b", "1e", "_"};
  std::uniform_int_distribution<size_t> pick(0, sizeof(kPieces) / sizeof(kPieces[0]) - 1);
  std::uniform_int_distribution<int> len(1, 60);
  std::string out;
  int n = len(rng);
  for (int i = 0; i < n; ++i) {
    out += kPieces[pick(rng)];
    if (rng() % 3 == 0) out += ' ';
  }
  return out;
}

TEST(PyRobustness, RandomTokenSoupNeverCrashes) {
  std::mt19937 rng(12345);
  int parsed = 0, rejected = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string src = randomProgram(rng);
    try {
      auto m = parseModule(source(src));
      dump(*m);
      ++parsed;
    } catch (const Error&) {
      ++rejected;
    }
  }
  EXPECT_EQ(parsed + rejected, 20000);
  EXPECT_GT(rejected, 0);
}

TEST(PyRobustness, RandomBytesAndMutationsNeverCrash) {
  const std::string base =
      "import triton\nimport triton.language as tl\n\n@triton.jit\ndef k(x_ptr, n, BLOCK: tl.constexpr):\n"
      "    pid = tl.program_id(0)\n    offs = pid * BLOCK + tl.arange(0, BLOCK)\n"
      "    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)\n    tl.store(x_ptr + offs, x * 2, mask=offs < n)\n"
      "    print(f\"{pid=} {x!r:>{BLOCK}}\")\n";
  std::mt19937 rng(777);
  for (int i = 0; i < 20000; ++i) {
    std::string src = base;
    int edits = 1 + rng() % 4;
    for (int e = 0; e < edits; ++e) {
      size_t at = rng() % (src.size() + 1);
      switch (rng() % 3) {
        case 0: src.insert(at, 1, static_cast<char>(rng() % 256)); break;
        case 1: if (at < src.size()) src.erase(at, 1 + rng() % 5); break;
        default: src.insert(at, base.substr(rng() % base.size(), rng() % 20)); break;
      }
    }
    try {
      auto m = parseModule(source(src));
      dump(*m);
    } catch (const Error&) {
    }
  }
  for (int i = 0; i < 2000; ++i) {
    std::string src(rng() % 200, '\0');
    for (char& c : src) c = static_cast<char>(rng() % 256);
    try {
      parseModule(source(src));
    } catch (const Error&) {
    }
  }
  SUCCEED();
}

TEST(PyRobustness, TwoThousandLinesParseInMilliseconds) {
  std::string unit =
      "@triton.jit\n"
      "def kernel_NAME(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):\n"
      "    pid = tl.program_id(axis=0)\n"
      "    block_start = pid * BLOCK_SIZE\n"
      "    offsets = block_start + tl.arange(0, BLOCK_SIZE)\n"
      "    mask = offsets < n_elements\n"
      "    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)\n"
      "    y = tl.where(x > 0, x, x * 0.01) + tl.exp(-x) / (1 + tl.abs(x))\n"
      "    for i in range(0, 4):\n"
      "        y += tl.sum(x[:, None] * y[None, :], axis=1) if i % 2 == 0 else 0\n"
      "    tl.store(y_ptr + offsets, y, mask=mask)\n"
      "\n";
  std::string src;
  int lines = 0;
  for (int i = 0; lines < 2000; ++i) {
    std::string u = unit;
    u.replace(u.find("NAME"), 4, std::to_string(i));
    src += u;
    lines += 12;
  }
  auto t0 = std::chrono::steady_clock::now();
  auto m = parseModule(source(src));
  auto t1 = std::chrono::steady_clock::now();
  double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  EXPECT_EQ(m->body.size(), 167u);
  RecordProperty("parse_ms", std::to_string(ms));
  // A few milliseconds in release builds; generous bound for loaded CI machines.
  EXPECT_LT(ms, 100.0) << "2000 lines took " << ms << " ms";
}

}  // namespace
}  // namespace tessera::py::test
