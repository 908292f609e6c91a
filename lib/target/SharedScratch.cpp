//===- SharedScratch.cpp - Which ops may stage values in shared scratch ----===//
//
// See tessera/gpu/Target.h: the contract between allocate-shared-memory,
// which places the scratch area of these ops past the buffers live there,
// and the PTX emitter, which refuses scratch for any other op.
//
//===----------------------------------------------------------------------===//

#include "tessera/gpu/Target.h"

namespace tessera::gpu {

bool usesSharedScratch(const ir::Operation* op) {
  using ir::OpCode;
  switch (op->code()) {
    // Layout changes between threads go through shared memory.
    case OpCode::ConvertLayout: case OpCode::Broadcast: case OpCode::ExpandDims: case OpCode::Reshape:
    case OpCode::Trans: case OpCode::Flip: case OpCode::Join: case OpCode::Cat: case OpCode::Split:
    case OpCode::Gather: case OpCode::Histogram: case OpCode::Sort:
    // Partial results of other warps; thread 0's old value to every thread.
    case OpCode::Reduce: case OpCode::Scan: case OpCode::AtomicRMW: case OpCode::AtomicCAS:
    // A TMA copy outside a pipeline lands in scratch.
    case OpCode::DescriptorLoad:
      return true;
    default:
      return false;
  }
}

}  // namespace tessera::gpu
