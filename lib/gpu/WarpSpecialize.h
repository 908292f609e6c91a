//===- WarpSpecialize.h - The producer warpgroup of a TMA pipeline -*- C++ -*-===//
//
// pipeline-dot-loops can hand the TMA copies of a loop to a producer
// warpgroup (ttng.warp_specialize, Ops.def): its region runs on 4 warps
// more than the kernel's num_warps, one thread of them, from the start of
// the kernel, while the kernel's own warps only wait for the stages and
// read them. The region is built with values of the kernel body (loop
// bounds, the copies' coordinates); these helpers say whether the
// producer can compute them itself at the kernel's start, and copy the
// chains that compute them into the region.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <set>

#include "tessera/ir/IR.h"

namespace tessera::gpu {

/// Whether the producer can compute `v` at the start of the kernel: a
/// kernel argument, or a scalar result of a pure op (or of a
/// ttng.tensormap_create) of the entry block whose operands it can compute
/// too. `seen` memoizes the ops already accepted.
bool producerCanCompute(ir::Value v, std::set<ir::Operation*>& seen);

/// Copies into the start of the region of `ws` the chains of ops outside
/// it that compute what its ops use, except the values defined before `ws`
/// (the buffers and barriers it shares with the consumers), and makes the
/// region use the copies. Every such value must satisfy producerCanCompute.
void isolateProducer(ir::Operation* ws);

/// setmaxnreg targets for a kernel of `numWarps` warps plus the producer
/// warpgroup: {producer, consumer} registers per thread.
std::pair<int64_t, int64_t> producerConsumerRegisters(int64_t numWarps);

}  // namespace tessera::gpu
