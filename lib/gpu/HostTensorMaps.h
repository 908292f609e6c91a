//===- HostTensorMaps.h - Descriptors the launch encodes -------*- C++ -*-===//
//
// Which ttng.tensormap_create ops the launch can encode on the host
// (gpu::HostTensorMap) instead of the kernel writing a descriptor into
// global memory: encode-host-tensormaps turns those into
// ttng.host_tensormap (128-byte kernel parameters), and the pipeliner lets
// a producer warpgroup run ahead of a persistent loop only over
// descriptors made that way (a descriptor rewritten in memory for the next
// tile could change under copies still in flight). With the facts about
// kernel arguments both need. Private to lib/gpu.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <optional>

#include "tessera/gpu/Target.h"
#include "tessera/ir/IR.h"

namespace tessera::gpu {

/// The function op around `op` (the kernel), or null.
ir::Operation* enclosingFunc(ir::Operation* op);

/// The index of the kernel argument `v` is (a block argument of the
/// function's entry block, the PTX parameter of that index), or -1.
int kernelArgumentIndex(ir::Value v);

/// The index of the kernel argument a pointer, or a tile of pointers,
/// points into (PointerArguments.h's pointerArgument), or -1.
int pointerArgumentIndex(ir::Value ptr);

/// Whether the integer scalar `v` is never negative, from lower bounds:
/// constants, program ids and counts (0), kernel arguments a tl.assume
/// bounds (`tl.assume(n > 0)`: 1), the induction variable of a loop
/// counting up from its lower bound, and sums, differences with a
/// constant, products, quotients, remainders, minimums, maximums and
/// selects of such values (overflow aside, as in the kernel itself). tl.cdiv(n, 128)
/// with n > 0 assumed is.
bool provenNonNegative(ir::Value v);

/// The descriptor `create` (a ttng.tensormap_create) makes, when the
/// launch can encode it: base, shape and strides kernel arguments or
/// constants, or a base `arg + c * stride` with `c` a scalar proven never
/// negative (attention's per-head q_ptr + head * seq_len * HEAD_DIM) and
/// `stride` a constant times at most one argument, a multiple of 16
/// bytes. The descriptor then starts at `arg` and gets one more,
/// outermost dim of that stride, and `outer` is set to `c`: the copies'
/// coordinate in that dim.
std::optional<HostTensorMap> hostTensorMapOf(ir::Operation* create, ir::Value& outer);

}  // namespace tessera::gpu
