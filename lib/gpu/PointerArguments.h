//===- PointerArguments.h - Which kernel argument a pointer points into -*- C++ -*-===//
//
// The passes that move or duplicate loads (pipeline-dot-loops,
// pointer-tiles-to-tma, transposed-loads) must not move a load past a write
// it could observe. Like Triton's pipeliner, they take distinct pointer
// arguments of a kernel not to alias; these helpers say which argument a
// pointer is computed from, and whether a write leaves the memory behind an
// argument alone.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tessera/ir/IR.h"

namespace tessera::gpu {

/// The kernel argument `ptr` (a pointer or pointer tensor, a block pointer
/// or a descriptor) is computed from by offsets, splats, broadcasts,
/// reshapes, transposes, layout conversions or a descriptor made from it;
/// a loop's iteration argument stands for its initial value when the loop
/// yields it back as itself plus offsets (p += BLOCK; a pointer swapped or
/// selected each iteration stands for nothing). Null when it is computed
/// otherwise (loaded from memory, selected, cast from an integer).
ir::Value pointerArgument(ir::Value ptr);

/// Whether `write` (an op that writes memory) leaves alone what is read
/// through the kernel argument `read` (pointerArgument of a load; null:
/// unknown): it is a tt.store or a relaxed tt.atomic_rmw through another
/// argument. Ordered atomics, barriers, prints and writes through pointers
/// of unknown origin spare nothing.
bool writeSpares(ir::Operation* write, ir::Value read);

}  // namespace tessera::gpu
