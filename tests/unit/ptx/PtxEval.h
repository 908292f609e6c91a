//===- PtxEval.h - A CPU model of straight-line PTX for one thread -*- C++ -*-===//
//
// The PTX the emitter writes for conversions is straight-line integer and
// float code. PtxEval runs such a kernel for thread 0 of block 0 on the CPU so
// tests can compare its results bit for bit with the interpreter without a
// GPU: every ld.global returns the test's input, every st.global is recorded.
//
// The model covers the instructions the conversion code uses (bit ops,
// shifts, integer add/sub/min/max, setp, selp, mov, cvt between any integer
// and float types with rn/rz/rni/rzi, mul.rn.f32) and throws
// std::runtime_error naming any other line, so a test cannot silently
// evaluate something it does not understand. Hardware details the PTX ISA
// leaves open are modelled pessimistically: every float instruction that
// produces a NaN produces the canonical all-ones NaN, so code that must keep
// a NaN's sign has to do so with integer operations.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace tessera::ptxeval {

class PtxEval {
 public:
  /// Parses the body of the only .entry of `ptx`.
  explicit PtxEval(const std::string& ptx);

  struct Store {
    int bytes;
    uint64_t bits;
  };
  /// Runs the kernel once; every ld.global loads `input` (truncated to its
  /// width). Returns the st.global executions in order.
  std::vector<Store> run(uint64_t input);

 private:
  struct State {
    std::vector<uint64_t> regs;
    uint64_t input = 0;
    std::vector<Store> stores;
  };
  using Step = std::function<void(State&)>;
  int regIndex(const std::string& name);
  Step compile(const std::string& line);

  std::map<std::string, int> regNames_;
  std::vector<int> regBits_;
  std::vector<Step> steps_;
};

}  // namespace tessera::ptxeval
