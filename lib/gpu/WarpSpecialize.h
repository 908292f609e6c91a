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
/// too. With a persistent loop `outer` (an scf.for of the entry block whose
/// loops the producer serves), also its induction variable and such
/// results of ops of its body: the producer computes them in its own copy
/// of the loop. `seen` memoizes the ops already accepted.
bool producerCanCompute(ir::Value v, std::set<ir::Operation*>& seen, ir::Operation* outer = nullptr);

/// Copies into the start of the region of `ws` the chains of ops outside
/// it that compute what its ops use, except the values defined before `ws`
/// (the buffers and barriers it shares with the consumers), and makes the
/// region use the copies. Every such value must satisfy producerCanCompute.
/// Values of the body of `outer` are copied into the start of the body of
/// `producerOuter` (the producer's copy of that loop), its induction
/// variable standing for outer's.
void isolateProducer(ir::Operation* ws, ir::Operation* outer = nullptr, ir::Operation* producerOuter = nullptr);

/// setmaxnreg targets for a kernel of `numWarps` warps plus the producer
/// warpgroup: {producer, consumer} registers per thread.
std::pair<int64_t, int64_t> producerConsumerRegisters(int64_t numWarps);

}  // namespace tessera::gpu
