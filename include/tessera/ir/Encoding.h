//===- tessera/ir/Encoding.h - GPU layouts attached to tensor types -*- C++ -*-===//
//
// Tile GPU IR (ttgir) is Tile IR whose tensor types carry an encoding: how
// the tensor's elements are spread over the registers, lanes and warps of a
// program (or laid out in shared memory). DESIGN.md decision 4: every
// encoding means one linear layout (lib/gpu/LinearLayout); the encodings
// below are the parameterized families that passes reason about and that
// print like Triton's:
//
//   #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4],
//                 warpsPerCTA = [4, 1], order = [1, 0]}>
//   #ttg.slice<{dim = 1, parent = #ttg.blocked<{...}>}>
//   #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
//   #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false,
//                      elementBitWidth = 16}>   (tensor-core operands in
//                                                shared memory)
//   #ttg.linear<{register = [[0, 1], [0, 2]], lane = [[0, 4], ...],
//                warp = [[1, 0]], block = []}>
//   #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2],
//                    instrShape = [16, 8]}>          (tensor-core results)
//   #ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{...}>, kWidth = 2}>
//                                                    (tensor-core operands)
//
// Encodings are interned like types: equal parameters give the same handle,
// so Encoding equality (and tensor Type equality) is pointer equality. The IR
// layer only stores, prints and parses them; what they mean for a given
// shape is lib/gpu's business (gpu::toLinearLayout).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::ir {

enum class EncodingKind : uint8_t { Blocked, Slice, SwizzledShared, Linear, NvidiaMma, DotOperand, NvmmaShared };

struct EncodingStorage;

/// The hardware index spaces of a linear encoding, in this order.
enum class HwDim : uint8_t { Register = 0, Lane = 1, Warp = 2, Block = 3 };
constexpr int kNumHwDims = 4;

/// bases[hwDim][i] = tensor coordinates (one per tensor dim) of bit i of that
/// hardware index.
using LinearBases = std::vector<std::vector<std::vector<int64_t>>>;

class Encoding {
 public:
  Encoding() = default;

  static Encoding blocked(std::vector<int64_t> sizePerThread, std::vector<int64_t> threadsPerWarp,
                          std::vector<int64_t> warpsPerCTA, std::vector<int64_t> order);
  /// The layout of a tensor with dim `dim` of the parent's removed (what a
  /// reduction along `dim` produces, and what expand_dims(dim) consumes).
  static Encoding slice(int64_t dim, Encoding parent);
  static Encoding swizzledShared(int64_t vec, int64_t perPhase, int64_t maxPhase, std::vector<int64_t> order);
  /// `bases` has kNumHwDims entries (register, lane, warp, block).
  static Encoding linear(LinearBases bases);
  /// The accumulator layout of NVIDIA tensor-core instructions: version 2
  /// is mma.sync (sm_80+), 3 is wgmma (sm_90a); `instrShape` the M x N (x K
  /// for version 3) of one instruction.
  static Encoding nvidiaMma(int64_t versionMajor, int64_t versionMinor, std::vector<int64_t> warpsPerCTA,
                            std::vector<int64_t> instrShape);
  /// Operand `opIdx` (0: A, 1: B) of a tensor-core dot whose result has
  /// layout `parent`; each thread holds `kWidth` consecutive elements along
  /// K (32 bits' worth: 2 for 16-bit types, 4 for 8-bit ones).
  static Encoding dotOperand(int64_t opIdx, Encoding parent, int64_t kWidth);
  /// A 2-D tile in shared memory as tensor-core instructions (wgmma) read
  /// it: dim 1 contiguous, in atoms of swizzlingByteWidth bytes per row
  /// (32, 64 or 128; 16-byte chunks XOR-swizzled by row) stacked along
  /// dim 0, atoms side by side along dim 1. `transposed` (dim 0 contiguous)
  /// is parsed and printed but not lowered yet.
  static Encoding nvmmaShared(int64_t swizzlingByteWidth, bool transposed, int64_t elementBitWidth);

  explicit operator bool() const { return impl_ != nullptr; }
  bool operator==(Encoding o) const { return impl_ == o.impl_; }
  bool operator!=(Encoding o) const { return impl_ != o.impl_; }
  bool operator<(Encoding o) const { return impl_ < o.impl_; }

  EncodingKind kind() const;
  bool isBlocked() const { return impl_ && kind() == EncodingKind::Blocked; }
  bool isSlice() const { return impl_ && kind() == EncodingKind::Slice; }
  /// Shared-memory encodings (swizzled_shared, nvmma_shared).
  bool isShared() const {
    return impl_ && (kind() == EncodingKind::SwizzledShared || kind() == EncodingKind::NvmmaShared);
  }
  bool isNvmmaShared() const { return impl_ && kind() == EncodingKind::NvmmaShared; }
  bool isLinear() const { return impl_ && kind() == EncodingKind::Linear; }
  bool isNvidiaMma() const { return impl_ && kind() == EncodingKind::NvidiaMma; }
  bool isDotOperand() const { return impl_ && kind() == EncodingKind::DotOperand; }

  /// Rank of the tensors this encoding applies to (slice: parent rank - 1).
  int64_t rank() const;

  // Blocked (warpsPerCTA also for nvidia_mma).
  const std::vector<int64_t>& sizePerThread() const;
  const std::vector<int64_t>& threadsPerWarp() const;
  const std::vector<int64_t>& warpsPerCTA() const;
  /// Blocked and shared: dims from fastest-varying to slowest.
  const std::vector<int64_t>& order() const;
  // Slice (parent also for dot_op).
  int64_t sliceDim() const;
  Encoding parent() const;
  // NVIDIA mma.
  int64_t versionMajor() const;
  int64_t versionMinor() const;
  const std::vector<int64_t>& instrShape() const;
  // Dot operand.
  int64_t opIdx() const;
  int64_t kWidth() const;
  // Swizzled shared.
  int64_t vec() const;
  int64_t perPhase() const;
  int64_t maxPhase() const;
  // NVMMA shared.
  int64_t swizzlingByteWidth() const;
  bool transposed() const;
  int64_t elementBitWidth() const;
  // Linear.
  const LinearBases& bases() const;

  /// Text form, e.g. "#ttg.blocked<{sizePerThread = [4], ...}>".
  std::string str() const;
  /// Parses the text form at text[pos]; returns a null Encoding (pos at the
  /// offending character) on failure.
  static Encoding parseAt(std::string_view text, size_t& pos);

  const EncodingStorage* impl() const { return impl_; }

 private:
  explicit Encoding(const EncodingStorage* impl) : impl_(impl) {}
  const EncodingStorage* impl_ = nullptr;
  friend struct EncodingUniquer;
};

}  // namespace tessera::ir
