//===- PtxEval.h - A CPU model of the PTX the emitter writes -----*- C++ -*-===//
//
// Tests compare the emitted PTX with the interpreter bit for bit without a
// GPU by running it here. Two modes:
//
//  * run(input): thread 0 of block 0 alone, every ld.global returns the
//    test's input and every st.global is recorded (one-element kernels:
//    conversions);
//  * runBlock(params, threads): a whole CTA on real buffers (addBuffer) with
//    shared memory, branches and bar.sync. Threads run one after another up
//    to the next barrier (a valid schedule of race-free code); shared and
//    global accesses outside their buffers throw.
//
// The model covers the instructions the emitter uses for conversions, data
// movement and tt.sort (bit ops, bfe/bfi, prmt, shifts, integer add/sub/mul/mad/
// min/max, setp, selp, mov and vector packs, cvt between any integer and
// float types with rn/rz/rni/rzi (and the packed f32 -> f16x2/bf16x2), f32/f64 add/sub/mul/fma, ld/st global and
// shared incl. .v2/.v4, stmatrix (warp-wide: written when the warp's last
// lane executes it), ldmatrix incl. .trans (every thread waits at it until all
// gave their row addresses), shfl.sync.idx of a whole warp (the same way), global atom/red adds incl. vectors, bra, bar.sync) and throws std::runtime_error naming
// any other line, so a test cannot silently evaluate something it does not
// understand. Hardware details the PTX ISA leaves open are modelled
// pessimistically: every float instruction that produces a NaN produces
// the canonical all-ones NaN, so code that must keep a NaN's sign has to do
// so with integer operations.
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
  /// Runs thread 0 alone; every ld.global loads `input` (truncated to its
  /// width), parameters read as 1. Returns the st.global executions in order.
  std::vector<Store> run(uint64_t input);

  /// Makes `bytes` global memory of the next runBlock; returns its address.
  uint64_t addBuffer(std::vector<uint8_t>* bytes);
  /// Runs block `ctaid` with `threads` threads; params[i] is the value of
  /// parameter i (pointers: addresses from addBuffer).
  void runBlock(const std::vector<uint64_t>& params, int threads, int sharedBytes, int ctaid = 0);

  struct Machine;
  struct Thread;
  /// An instruction: returns the next pc, or one of the codes below.
  using Step = std::function<int(Thread&)>;
  static constexpr int kNext = -1, kBarrier = -2, kExit = -3;
  /// Stop like at a barrier, and run the same instruction again after the
  /// other threads (a warp-wide instruction waiting for its lanes).
  static constexpr int kWait = -4;

 private:
  int regIndex(const std::string& name);
  Step compile(const std::string& line, std::map<std::string, int>& labels);

  std::map<std::string, int> regNames_;
  std::vector<int> regBits_;
  std::vector<Step> steps_;
  std::vector<std::pair<uint64_t, std::vector<uint8_t>*>> buffers_;
};

}  // namespace tessera::ptxeval
