//===- GpuPasses.h - The Tile GPU IR passes (private to lib/gpu) -*- C++ -*-===//
//
// Run in this order by lowerToGpuIR (LowerToGpuIR.cpp):
//   assignLayouts            every tensor value gets an encoding; operands
//                            whose encoding differs from what an op needs get
//                            a ttg.convert_layout
//   rematerializeConversions converts of cheap producer chains (ranges,
//                            splats, index arithmetic) are replaced by copies
//                            of the chain made directly in the wanted layout
//   foldConversions          drops converts to the same encoding, merges
//                            convert(convert(x)), and converts whose two
//                            layouts are the same linear layout
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tessera/ir/IR.h"

namespace tessera::gpu {

void assignLayouts(ir::Operation* func, int numWarps);
/// Moves widening casts down to their first use (SinkCasts.cpp).
void sinkWideningCasts(ir::Operation* func);
/// Copies cheap index computations to each of their users (SinkCasts.cpp).
void rematerializeAtUses(ir::Operation* func);
void rematerializeConversions(ir::Operation* func);
void foldConversions(ir::Operation* func);

/// True for ops that compute a value only from their operands with no
/// memory access and no region (cheap to recompute in another layout).
bool isRematerializable(const ir::Operation* op);

}  // namespace tessera::gpu
