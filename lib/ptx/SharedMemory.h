//===- SharedMemory.h - Where each shared buffer of a kernel lives -*- C++ -*-===//
//
// Each ttg.local_alloc owns a buffer (1024-byte aligned: the swizzle atoms
// of wgmma operands) from its op to its last use; a use inside a loop that
// does not contain the alloc keeps the buffer until the loop ends (the next
// iteration reads it again), and uses through ttg.memdesc_index count as
// uses of the buffer. Buffers are placed first fit in program order at the
// lowest 1024-byte aligned offset that no buffer live at the same time
// holds, so two pipelined loops one after the other share their stages'
// bytes. The scratch area that converts and reductions use
// between two barriers starts after the buffers live where scratch is used,
// so the epilogue of a pipelined matmul reuses the dead stage buffers
// instead of adding to them (a 128x256 tile with 4 stages: 192 KiB of
// stages, then 128 KiB of scratch for the fp32 convert, fits in 192 KiB).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "tessera/ir/IR.h"

namespace tessera::ptx {

class SharedMemoryPlan {
 public:
  explicit SharedMemoryPlan(ir::Operation* func);

  /// Byte offset of the buffer of `alloc` from global_smem.
  int64_t offset(ir::Operation* alloc) const { return buffers_.at(alloc).offset; }
  /// Program position of `op` (pre-order over the kernel), -1 if unknown.
  int64_t position(ir::Operation* op) const;
  /// Bytes of all buffers together (the scratch area at worst starts here).
  int64_t buffersEnd() const { return end_; }
  /// The first byte past every buffer live at one of `positions`.
  int64_t scratchOffset(const std::vector<int64_t>& positions) const;

 private:
  struct Buffer {
    int64_t offset = 0, bytes = 0, first = 0, last = 0;
  };
  void number(ir::Block& block);
  int64_t lastUse(ir::Operation* alloc, ir::Value v) const;

  std::map<ir::Operation*, int64_t> position_, regionEnd_;
  std::map<ir::Operation*, Buffer> buffers_;
  int64_t next_ = 0, end_ = 0;
};

}  // namespace tessera::ptx
