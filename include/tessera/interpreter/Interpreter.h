//===- tessera/interpreter/Interpreter.h - Running Tile IR on the CPU -----===//
//
// The interpreter executes a kernel function of a Tile IR module over a grid.
// Memory is host memory: pointer values are host addresses. Every allocation
// that kernels may touch is registered, so an unmasked access outside all
// registered allocations stops the run with the kernel name, the source
// line, the program id and the offending address.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/ir/IR.h"

namespace tessera::interp {

/// A runtime kernel argument, as raw bits: pointers are host addresses,
/// integers are sign/zero-extended to 64 bits per the parameter type, floats
/// are held as double. The tt.func argument type says how to read it.
struct RuntimeArg {
  uint64_t bits = 0;
  double f = 0;
  static RuntimeArg ptr(const void* p) { RuntimeArg a; a.bits = reinterpret_cast<uint64_t>(p); return a; }
  static RuntimeArg integer(int64_t v) { RuntimeArg a; a.bits = static_cast<uint64_t>(v); return a; }
  static RuntimeArg floating(double v) { RuntimeArg a; a.f = v; return a; }
};

struct LaunchConfig {
  int64_t grid[3] = {1, 1, 1};
  /// Worker threads for programs, at most the shared pool's; 0 = all of
  /// them (TESSERA_NUM_THREADS, else the CPUs this process may use).
  int numThreads = 0;
  int numWarps = 4;  ///< only informative (device_print of scalars)
  /// When nonzero, a program that runs more loop iterations (scf.for/while
  /// trips, summed) than this stops the launch with an Error (fuzzing and
  /// runaway `while` loops). The API sets it from TESSERA_INTERPRETER_LOOP_LIMIT.
  uint64_t loopIterationLimit = 0;
};

/// Registers host memory kernels may access (the API's interpreter tensors).
void registerAllocation(const void* base, size_t bytes, std::string name = "");
void unregisterAllocation(const void* base);

/// Stops the launches running now (and those starting until they see it)
/// at their next check, every 1024 loop iterations of a program: they
/// throw an Error "... interrupted at file:line:col". Async-signal-safe (an
/// atomic count): a SIGINT handler may call it (an endless `while` loop).
void interrupt();

/// Runs `kernel` (a tt.func with `kernel = true`) once per program of the
/// grid. Throws tessera::Error on out-of-bounds accesses, failed
/// device_asserts, interrupt(), or unsupported ops.
void run(const ir::Module& module, std::string_view kernel, const std::vector<RuntimeArg>& args,
         const LaunchConfig& config);

}  // namespace tessera::interp
