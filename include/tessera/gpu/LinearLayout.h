//===- tessera/gpu/LinearLayout.h - Layouts as linear maps over GF(2) -*- C++ -*-===//
//
// DESIGN.md decision 4 (the approach of the "Linear Layouts" paper, Triton
// 3.x). A LinearLayout maps hardware indices to tensor coordinates:
//
//   in dims  : register, lane, warp, block   (HwDim; sizes are powers of two)
//   out dims : the tensor dims 0..rank-1      (sizes are powers of two)
//
// It is linear over GF(2): each in dim d has log2(size(d)) basis vectors;
// the coordinates of a hardware index are the XOR of the bases of its set
// bits, e.g. for register r = 0b101: bases[Register][0] ^ bases[Register][2].
// A zero basis means "duplicate": those hardware indices hold the same
// element (a broadcast lane, a replicated warp).
//
// Shared-memory layouts use the same class with one in dim, Register standing
// for the element offset in the buffer (see sharedToLinearLayout).
//
// Every encoding of Encoding.h has exactly one linear layout per shape
// (toLinearLayout); conversions, vector widths, broadcast detection and
// swizzles are computed here rather than case by case.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tessera/ir/Encoding.h"
#include "tessera/ir/Types.h"

namespace tessera::gpu {

using ir::HwDim;
using ir::kNumHwDims;

class LinearLayout {
 public:
  /// bases[d][i][k]: out-dim k coordinate of bit i of in dim d.
  using Bases = std::array<std::vector<std::vector<int64_t>>, kNumHwDims>;

  LinearLayout() = default;
  /// `outDimSizes` gives each tensor dim's size (power of two); every basis
  /// has outDimSizes.size() entries, each below its dim's size.
  LinearLayout(Bases bases, std::vector<int64_t> outDimSizes);

  /// size-element identity: in dim `in` bit i -> out dim `out` coordinate 2^i;
  /// other out dims (of `rank`) are 0. `size` is a power of two.
  static LinearLayout identity1D(int64_t size, HwDim in, int outDim, int rank);
  /// `size` (power of two) hardware indices of `in` that all map to 0.
  static LinearLayout zeros1D(int64_t size, HwDim in, int rank);
  /// No bases; out dims of size 1.
  static LinearLayout empty(int rank);

  int rank() const { return static_cast<int>(outSizes_.size()); }
  const std::vector<int64_t>& outDimSizes() const { return outSizes_; }
  int64_t outDimSize(int dim) const { return outSizes_[dim]; }
  int64_t totalOutSize() const;
  const Bases& bases() const { return bases_; }
  const std::vector<std::vector<int64_t>>& bases(HwDim d) const { return bases_[static_cast<int>(d)]; }
  int numBases(HwDim d) const { return static_cast<int>(bases(d).size()); }
  int64_t inDimSize(HwDim d) const { return int64_t{1} << numBases(d); }

  /// Coordinates of one hardware index (XOR of the bases of the set bits).
  std::vector<int64_t> apply(HwDim d, int64_t index) const;
  /// Coordinates of a full hardware index (register, lane, warp, block).
  std::vector<int64_t> apply(const std::array<int64_t, kNumHwDims>& index) const;

  /// Product (Triton's operator*): in dims present in both get this layout's
  /// bases first, then `other`'s; out-dim coordinates of `other` are scaled
  /// past this layout's extent in the same out dim (i.e. other's dim k basis
  /// value v becomes v * outDimSize(k)); out sizes multiply.
  LinearLayout operator*(const LinearLayout& other) const;

  /// Bit mask per in dim of the free variables: the bases that are zero or
  /// the XOR of earlier ones (order register, lane, warp, block; low bits
  /// first). Flipping a free bit never reaches an element the non-free bits
  /// cannot, so the indices whose masked bits are zero hold every element of
  /// the image exactly once: a store must write each element once, so only
  /// those indices write. For blocked/slice layouts the free bases are exactly
  /// the zero ones (broadcast lanes and warps).
  std::array<int64_t, kNumHwDims> freeVariableMasks() const;

  /// True when the map from all in dims to out coordinates is injective and
  /// surjective onto the out space (no duplicates, every element held).
  bool isBijective() const;
  /// True when every element of the out space is reached.
  bool isSurjective() const;

  /// How many consecutive registers (starting at register 0, in steps of
  /// register index 1) hold consecutive elements along out dim `dim` with all
  /// other coordinates unchanged: the largest 2^k such that register bases
  /// 0..k-1 are 1, 2, 4, ... along `dim` and 0 elsewhere.
  int64_t contiguousRegisters(int dim) const;

  /// Out coordinates -> the hardware index that holds them, restricted to
  /// the in dims in `dims` (others taken as 0); nullopt when no such index
  /// exists (or a coordinate is outside its out dim). When several hold it,
  /// the one whose free bits (freeVariableMasks() of the layout restricted to
  /// `dims`) are zero, which is also the smallest comparing (block, warp,
  /// lane, register) lexicographically. Gaussian elimination over GF(2).
  std::optional<std::array<int64_t, kNumHwDims>> invert(const std::vector<int64_t>& coords,
                                                         std::vector<HwDim> dims = {HwDim::Register, HwDim::Lane,
                                                                                    HwDim::Warp, HwDim::Block}) const;

  /// A layout with the given out dims sizes changed by dropping bases
  /// (registers) or zeroing them (other in dims) that reach past `shape`,
  /// and adding register bases (identity) where the layout is smaller than
  /// `shape`. This is how a shape-independent encoding (blocked) is applied
  /// to a concrete shape: a tile larger than the tensor broadcasts, a smaller
  /// one repeats in registers. `shape` entries are powers of two.
  /// Precisely: coordinate bits at or above shape[k] are cleared (for
  /// single-bit bases: the basis is zeroed); a register basis that this
  /// makes zero is dropped. Repetition bases are appended dim by dim in
  /// `order` (fastest first, Triton's minor-to-major; default rank-1 .. 0),
  /// each dim's from low to high.
  LinearLayout resizedTo(const std::vector<int64_t>& shape, const std::vector<int64_t>& order = {}) const;

  /// The layout with out dim `dim` removed (its coordinates dropped); register
  /// bases that become zero are removed, other zero bases stay (broadcast).
  LinearLayout droppedOutDim(int dim) const;
  /// Inserts a size-1 out dim at `dim` (all bases get a 0 coordinate there).
  LinearLayout insertedOutDim(int dim) const;
  /// Out dims permuted: result dim i = this dim order[i].
  LinearLayout transposedOuts(const std::vector<int64_t>& order) const;
  /// Out dims reshaped row-major (the flattened index of each basis is kept):
  /// same total size, new dim sizes `shape` (powers of two).
  LinearLayout reshapedOuts(const std::vector<int64_t>& shape) const;

  bool operator==(const LinearLayout& other) const {
    return bases_ == other.bases_ && outSizes_ == other.outSizes_;
  }
  bool operator!=(const LinearLayout& other) const { return !(*this == other); }

  /// "register = [[0, 1], [0, 2]], lane = [...], warp = [...], block = [] -> [8, 32]"
  std::string str() const;
  /// The equivalent #ttg.linear encoding.
  ir::Encoding toEncoding() const;

 private:
  Bases bases_;
  std::vector<int64_t> outSizes_;
};

/// The linear layout of a distributed encoding (blocked, slice, linear,
/// nvidia_mma version 2 and its dot_op operands: the PTX ISA's mma.sync
/// fragments, as Triton's nvidiaMmaTile) for a
/// tensor of `shape` (powers of two). The lane and warp counts are the
/// encoding's (blocked: product of threadsPerWarp / warpsPerCTA).
/// Blocked: identity over sizePerThread (register), threadsPerWarp (lane),
/// warpsPerCTA (warp), each product taken along `order` (fastest first), then
/// resizedTo(shape, order). Slice(dim, parent): the parent's layout for
/// `shape` with a size-1 dim inserted at `dim`, then droppedOutDim(dim).
/// Linear: the bases as given; the out sizes they imply (per dim, the
/// smallest power of two above every coordinate) must equal `shape`.
/// Throws tessera::Error on a shape or encoding that does not fit (rank,
/// non-power-of-two sizes, a shared or null encoding).
LinearLayout toLinearLayout(const std::vector<int64_t>& shape, ir::Encoding encoding);

/// Shared-memory layout of a swizzled_shared encoding: Register = element
/// offset in the buffer -> tensor coords, the buffer row-major along `order`
/// (order[0] fastest). A row is order[0]'s extent; the row index used for
/// the swizzle is the coordinate along order[1] (as in Triton: dims
/// order[2..] are outer copies of the 2-D swizzled tile). Within a row the
/// 'vec'-element group index is XORed with ((row / perPhase) % maxPhase)
/// (modulo the number of groups in a row), Triton's swizzle.
LinearLayout sharedToLinearLayout(const std::vector<int64_t>& shape, ir::Encoding encoding);

/// The dim of a 2-D shared tile that its rows run along (memory-contiguous):
/// order[0] of a swizzled_shared encoding; dim 1 of an nvmma_shared one, or
/// dim 0 when it is transposed.
int64_t sharedContiguousDim(ir::Encoding shared);

/// True for 16-bit mma.sync operands (#ttg.dot_op of an nvidia_mma version
/// 2 parent, kWidth 2, rank 2): the fragments ldmatrix reads from a
/// swizzled shared tile.
bool isLdmatrixOperand(ir::Type t);

/// The default blocked encoding Triton picks for a tensor of `shape` with
/// `numWarps` warps: `sizePerThread` elements per thread along order[0]
/// (clamped to the shape; order defaults to rank-1 .. 0), 32 lanes spread
/// fastest dim first (min(remaining, shape/sizePerThread) per dim), then
/// warps the same way over what the lanes leave uncovered; the slowest dim
/// takes all remaining lanes and warps.
ir::Encoding defaultBlockedEncoding(const std::vector<int64_t>& shape, int numWarps, int64_t sizePerThread = 1,
                                    std::vector<int64_t> order = {});

}  // namespace tessera::gpu
