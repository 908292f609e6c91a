//===- EncodingLayouts.cpp - Encodings as linear layouts ------------------===//
//
// The one place where an encoding of Encoding.h gets its meaning for a given
// shape (DESIGN.md decision 4): blocked, slice, linear, nvidia_mma (version
// 2, mma.sync; version 3, wgmma's accumulator) and dot_op (of version 2)
// encodings become register/lane/warp layouts,
// swizzled_shared becomes an offset -> element layout, following Triton
// 3.x's LinearLayoutConversions. Also Triton's default blocked encoding,
// the layout AssignLayouts starts from.
//
// Malformed encodings or shapes are reported with tessera::Error: encodings
// can come from parsed ttgir text.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <bit>

#include "tessera/Error.h"
#include "tessera/gpu/LinearLayout.h"

namespace tessera::gpu {

namespace {

bool isPow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

std::string ints(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

void checkShape(const std::vector<int64_t>& shape, ir::Encoding encoding) {
  for (int64_t s : shape)
    if (!isPow2(s))
      throw Error("layout of tensor shape " + ints(shape) + ": dims must be powers of two");
  if (encoding.rank() != static_cast<int64_t>(shape.size()))
    throw Error("encoding " + encoding.str() + " has rank " + std::to_string(encoding.rank()) +
                ", tensor shape " + ints(shape) + " has rank " + std::to_string(shape.size()));
}

void checkPow2s(const std::vector<int64_t>& v, const char* what, ir::Encoding encoding) {
  for (int64_t x : v)
    if (!isPow2(x)) throw Error(std::string(what) + " of " + encoding.str() + " must be powers of two");
}

void checkOrder(const std::vector<int64_t>& order, size_t rank, const std::string& context) {
  std::vector<int64_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  bool permutation = sorted.size() == rank;
  for (size_t i = 0; permutation && i < rank; ++i) permutation = sorted[i] == static_cast<int64_t>(i);
  if (!permutation)
    throw Error("order " + ints(order) + " of " + context + " is not a permutation of the " + std::to_string(rank) +
                " tensor dims");
}

/// Product over `order` (fastest first) of identity1D(sizes[d], in, d).
LinearLayout identityND(const std::vector<int64_t>& sizes, HwDim in, const std::vector<int64_t>& order) {
  int rank = static_cast<int>(sizes.size());
  LinearLayout ll = LinearLayout::empty(rank);
  for (int64_t d : order) ll = ll * LinearLayout::identity1D(sizes[d], in, static_cast<int>(d), rank);
  return ll;
}

LinearLayout blockedLayout(const std::vector<int64_t>& shape, ir::Encoding enc) {
  checkPow2s(enc.sizePerThread(), "sizePerThread", enc);
  checkPow2s(enc.threadsPerWarp(), "threadsPerWarp", enc);
  checkPow2s(enc.warpsPerCTA(), "warpsPerCTA", enc);
  checkOrder(enc.order(), shape.size(), enc.str());
  const auto& order = enc.order();
  LinearLayout tile = identityND(enc.sizePerThread(), HwDim::Register, order) *
                      identityND(enc.threadsPerWarp(), HwDim::Lane, order) *
                      identityND(enc.warpsPerCTA(), HwDim::Warp, order);
  return tile.resizedTo(shape, order);
}

/// The register/lane tile of one mma.sync fragment over a tile of
/// tileShape (rank >= 2; its last two dims are the matrix, the others 1),
/// whose `inner` dim is contiguous in a thread: kWidth registers along it,
/// then 4 lanes along it, 8 lanes along `outer`, then registers repeating
/// along `outer` and along `inner` (Triton's nvidiaMmaTile). This is the
/// PTX ISA's fragment layout: for the m16n8k16 accumulator, a thread of lane
/// l holds rows l/4 and l/4 + 8, columns 2 (l%4) and 2 (l%4) + 1.
LinearLayout mmaTile(const std::vector<int64_t>& tileShape, int64_t kWidth, int inner, int outer) {
  int rank = static_cast<int>(tileShape.size());
  int64_t m = tileShape[outer], n = tileShape[inner];
  if (m % 8 != 0 || n % (kWidth * 4) != 0)
    throw Error("mma tile " + ints(tileShape) + " does not hold whole fragments of kWidth " + std::to_string(kWidth));
  return LinearLayout::identity1D(kWidth, HwDim::Register, inner, rank) *
         LinearLayout::identity1D(4, HwDim::Lane, inner, rank) * LinearLayout::identity1D(8, HwDim::Lane, outer, rank) *
         LinearLayout::identity1D(m / 8, HwDim::Register, outer, rank) *
         LinearLayout::identity1D(n / (kWidth * 4), HwDim::Register, inner, rank);
}

/// Warps over warpsPerCTA, the last dim fastest (mma.sync) or the M dim
/// fastest (wgmma: the 4 warps of a warpgroup stack along M); along
/// `broadcastDim` (a dot operand's K) they all hold the same elements.
LinearLayout mmaWarps(const std::vector<int64_t>& warpsPerCTA, int broadcastDim = -1, bool mFastest = false) {
  int rank = static_cast<int>(warpsPerCTA.size());
  std::vector<int> order;
  for (int d = rank - 1; d >= 0; --d) order.push_back(d);
  if (mFastest) std::swap(order[0], order[1]);
  LinearLayout ll = LinearLayout::empty(rank);
  for (int d : order)
    ll = ll * (d == broadcastDim ? LinearLayout::zeros1D(warpsPerCTA[d], HwDim::Warp, rank)
                                 : LinearLayout::identity1D(warpsPerCTA[d], HwDim::Warp, d, rank));
  return ll;
}

void checkMma(ir::Encoding mma, bool v2Only) {
  if (mma.versionMajor() != 2 && (v2Only || mma.versionMajor() != 3))
    throw Error("layout of " + mma.str() + ": only version 2 (mma.sync)" + (v2Only ? "" : " and 3 (wgmma)") +
                " have a register layout here so far");
  checkPow2s(mma.warpsPerCTA(), "warpsPerCTA", mma);
  if (mma.warpsPerCTA().size() < 2) throw Error(mma.str() + " must have rank 2 or 3");
}

/// nvidia_mma, the accumulator: version 2 in 16 x 8 tiles per warp (N
/// fastest over the warps); version 3 in 16 x N tiles per warp (N of
/// instrShape), the warps of a warpgroup stacked along M (M fastest).
/// kWidth 2 along N; repeated over the shape N first.
LinearLayout mmaLayout(const std::vector<int64_t>& shape, ir::Encoding mma) {
  checkMma(mma, /*v2Only=*/false);
  int rank = static_cast<int>(shape.size());
  bool wgmma = mma.versionMajor() == 3;
  if (wgmma && (mma.instrShape().size() < 2 || !isPow2(mma.instrShape()[1]) || mma.instrShape()[1] < 8))
    throw Error("layout of " + mma.str() + ": instrShape must give a power-of-two N of at least 8");
  std::vector<int64_t> tileShape(rank, 1);
  tileShape[rank - 2] = 16;
  tileShape[rank - 1] = wgmma ? mma.instrShape()[1] : 8;
  LinearLayout ll = mmaTile(tileShape, 2, rank - 1, rank - 2) * mmaWarps(mma.warpsPerCTA(), -1, wgmma);
  std::vector<int64_t> repOrder;
  for (int d = rank - 1; d >= 0; --d) repOrder.push_back(d);
  return ll.resizedTo(shape, repOrder);
}

/// dot_op of an nvidia_mma version 2 parent: A (opIdx 0) in 16 x (8 kWidth)
/// tiles, B (opIdx 1) in (8 kWidth) x 8 tiles, K contiguous in a thread;
/// warps as the parent's, all holding the same K; repeated K first.
LinearLayout mmaV2OperandLayout(const std::vector<int64_t>& shape, ir::Encoding dot) {
  ir::Encoding mma = dot.parent();
  if (!mma.isNvidiaMma()) throw Error("layout of " + dot.str() + ": the parent must be an nvidia_mma encoding");
  checkMma(mma, /*v2Only=*/true);
  int64_t kWidth = dot.kWidth();
  if (!isPow2(kWidth) || kWidth > 8) throw Error("kWidth of " + dot.str() + " must be 1, 2, 4 or 8");
  int rank = static_cast<int>(shape.size());
  bool isA = dot.opIdx() == 0;
  int kDim = isA ? rank - 1 : rank - 2, nonK = isA ? rank - 2 : rank - 1;
  std::vector<int64_t> tileShape(rank, 1);
  tileShape[kDim] = 8 * kWidth;
  tileShape[nonK] = isA ? 16 : 8;
  LinearLayout ll = mmaTile(tileShape, kWidth, kDim, nonK) * mmaWarps(mma.warpsPerCTA(), kDim);
  std::vector<int64_t> repOrder = {kDim, nonK};
  for (int d = rank - 3; d >= 0; --d) repOrder.push_back(d);
  return ll.resizedTo(shape, repOrder);
}

/// nvmma_shared of a 2-D tile: offsets (in elements) -> coordinates. Within
/// an atom row of `atomCols` = swizzle bytes / element bytes columns, then
/// rows (16-byte chunk index XOR (row / perPhase) % maxPhase, perPhase =
/// 128 / swizzle bytes), then atoms along dim 1. Transposed: dim 0 is the
/// contiguous one, i.e. the layout of the [cols, rows] tile with the two
/// coordinates swapped (a K-contiguous B, an M-contiguous A).
LinearLayout nvmmaSharedLayout(const std::vector<int64_t>& shape, ir::Encoding enc) {
  if (shape.size() != 2) throw Error("layout of " + enc.str() + ": only 2-D tiles so far");
  bool transposed = enc.transposed();
  int64_t elemBytes = std::max<int64_t>(1, enc.elementBitWidth() / 8);
  int64_t rows = shape[transposed ? 1 : 0], cols = shape[transposed ? 0 : 1];
  int64_t swizzle = enc.swizzlingByteWidth();
  int64_t atomCols = swizzle ? std::min(cols, swizzle / elemBytes) : cols;
  int64_t chunk = 16 / elemBytes;
  int64_t perPhase = swizzle ? 128 / swizzle : 1;
  int64_t maxPhase = swizzle ? std::min(8 / perPhase, atomCols / chunk) : 1;
  LinearLayout::Bases bases;
  auto& offset = bases[static_cast<int>(HwDim::Register)];
  for (int64_t c = 1; c < atomCols; c *= 2) offset.push_back({0, c});
  for (int64_t r = 1; r < rows; r *= 2) offset.push_back({r, (chunk * ((r / perPhase) % std::max<int64_t>(1, maxPhase))) % atomCols});
  for (int64_t c = atomCols; c < cols; c *= 2) offset.push_back({0, c});
  if (transposed)
    for (auto& b : offset) std::swap(b[0], b[1]);
  return LinearLayout(std::move(bases), shape);
}

/// dot_op A (opIdx 0) of an nvidia_mma version 3 parent: wgmma's A from
/// registers. Per warp 16 rows x 16 K in the accumulator's fragment order
/// (a0..a3 = rows g, g+8 at K 2t, 2t+1, then the same at K 8 + 2t), the
/// warps of a warpgroup stacked along M as the parent's (warps along N
/// hold the same A), repeated along K first. This is the accumulator
/// layout read with 16-column groups, so a dot result cast to 16 bits
/// feeds the next dot's A without moving (attention's P V).
LinearLayout wgmmaRegisterOperandLayout(const std::vector<int64_t>& shape, ir::Encoding dot) {
  ir::Encoding mma = dot.parent();
  checkMma(mma, /*v2Only=*/false);
  if (dot.opIdx() != 0 || dot.kWidth() != 2 || shape.size() != 2)
    throw Error("layout of " + dot.str() + ": wgmma takes only a 2-D A (opIdx 0, kWidth 2) from registers");
  LinearLayout ll = mmaTile({16, 16}, 2, 1, 0) * mmaWarps(mma.warpsPerCTA(), /*broadcastDim=*/1, /*mFastest=*/true);
  return ll.resizedTo(shape, {1, 0});
}

LinearLayout linearLayout(const std::vector<int64_t>& shape, ir::Encoding enc) {
  const ir::LinearBases& given = enc.bases();
  if (given.size() != static_cast<size_t>(kNumHwDims))
    throw Error("linear encoding " + enc.str() + " must list register, lane, warp and block bases");
  LinearLayout::Bases bases;
  std::vector<int64_t> implied(shape.size(), 1);
  for (int d = 0; d < kNumHwDims; ++d)
    for (const auto& b : given[d]) {
      if (b.size() != shape.size())
        throw Error("linear encoding " + enc.str() + ": basis " + ints(b) + " does not have rank " +
                    std::to_string(shape.size()));
      for (size_t k = 0; k < b.size(); ++k) {
        if (b[k] < 0) throw Error("linear encoding " + enc.str() + ": negative basis coordinate");
        implied[k] = std::max(implied[k], static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(b[k]) + 1)));
      }
      bases[d].push_back(b);
    }
  if (implied != shape)
    throw Error("linear encoding " + enc.str() + " covers a tensor of shape " + ints(implied) + ", not " + ints(shape));
  return LinearLayout(std::move(bases), shape);
}

}  // namespace

LinearLayout toLinearLayout(const std::vector<int64_t>& shape, ir::Encoding encoding) {
  if (!encoding) throw Error("layout of a tensor without an encoding");
  switch (encoding.kind()) {
    case ir::EncodingKind::Blocked:
      checkShape(shape, encoding);
      return blockedLayout(shape, encoding);
    case ir::EncodingKind::Slice: {
      int64_t dim = encoding.sliceDim();
      if (dim < 0 || dim > static_cast<int64_t>(shape.size()))
        throw Error("slice dim " + std::to_string(dim) + " out of range in " + encoding.str());
      std::vector<int64_t> parentShape = shape;
      parentShape.insert(parentShape.begin() + dim, 1);
      return toLinearLayout(parentShape, encoding.parent()).droppedOutDim(static_cast<int>(dim));
    }
    case ir::EncodingKind::Linear:
      for (int64_t s : shape)
        if (!isPow2(s)) throw Error("layout of tensor shape " + ints(shape) + ": dims must be powers of two");
      return linearLayout(shape, encoding);
    case ir::EncodingKind::NvidiaMma:
      checkShape(shape, encoding);
      return mmaLayout(shape, encoding);
    case ir::EncodingKind::DotOperand:
      checkShape(shape, encoding);
      if (encoding.parent().isNvidiaMma() && encoding.parent().versionMajor() == 3)
        return wgmmaRegisterOperandLayout(shape, encoding);
      return mmaV2OperandLayout(shape, encoding);
    case ir::EncodingKind::SwizzledShared:
    case ir::EncodingKind::NvmmaShared:
      throw Error("toLinearLayout of shared encoding " + encoding.str() + " (use sharedToLinearLayout)");
  }
  throw Error("unknown encoding kind");
}

int64_t sharedContiguousDim(ir::Encoding shared) {
  if (shared.kind() == ir::EncodingKind::SwizzledShared) return shared.order()[0];
  return shared.transposed() ? 0 : 1;
}

bool isLdmatrixOperand(ir::Type t) {
  ir::Encoding enc = t.encoding();
  return t.rank() == 2 && enc && enc.isDotOperand() && enc.parent().isNvidiaMma() &&
         enc.parent().versionMajor() == 2 && enc.kWidth() == 2 && t.elementType().bitWidth() == 16;
}

LinearLayout sharedToLinearLayout(const std::vector<int64_t>& shape, ir::Encoding encoding) {
  if (!encoding || !encoding.isShared())
    throw Error("sharedToLinearLayout of a non-shared encoding " + (encoding ? encoding.str() : std::string("(none)")));
  checkShape(shape, encoding);
  if (encoding.isNvmmaShared()) return nvmmaSharedLayout(shape, encoding);
  checkPow2s({encoding.vec(), encoding.perPhase(), encoding.maxPhase()}, "vec, perPhase and maxPhase", encoding);
  const auto& order = encoding.order();
  checkOrder(order, shape.size(), encoding.str());
  int rank = static_cast<int>(shape.size());
  if (rank < 2) return identityND(shape, HwDim::Register, order);
  int64_t colDim = order[0], rowDim = order[1];
  int64_t numCols = shape[colDim], numRows = shape[rowDim];
  LinearLayout::Bases bases;
  auto& offset = bases[static_cast<int>(HwDim::Register)];
  for (int64_t col = 1; col < numCols; col *= 2) {
    std::vector<int64_t> b(rank, 0);
    b[colDim] = col;
    offset.push_back(std::move(b));
  }
  for (int64_t row = 1; row < numRows; row *= 2) {
    std::vector<int64_t> b(rank, 0);
    b[rowDim] = row;
    int64_t phase = (row / encoding.perPhase()) % encoding.maxPhase();
    b[colDim] = (encoding.vec() * phase) % numCols;
    offset.push_back(std::move(b));
  }
  std::vector<int64_t> sizes(rank, 1);
  sizes[colDim] = numCols;
  sizes[rowDim] = numRows;
  LinearLayout tile(std::move(bases), std::move(sizes));
  for (int i = 2; i < rank; ++i)
    tile = tile * LinearLayout::identity1D(shape[order[i]], HwDim::Register, static_cast<int>(order[i]), rank);
  return tile;
}

ir::Encoding defaultBlockedEncoding(const std::vector<int64_t>& shape, int numWarps, int64_t sizePerThread,
                                    std::vector<int64_t> order) {
  int rank = static_cast<int>(shape.size());
  for (int64_t s : shape)
    if (!isPow2(s)) throw Error("default layout of tensor shape " + ints(shape) + ": dims must be powers of two");
  if (!isPow2(numWarps)) throw Error("num_warps must be a power of two, got " + std::to_string(numWarps));
  if (!isPow2(sizePerThread)) throw Error("sizePerThread must be a power of two");
  if (order.empty())
    for (int k = rank - 1; k >= 0; --k) order.push_back(k);
  checkOrder(order, shape.size(), "default blocked encoding");
  std::vector<int64_t> spt(rank, 1), tpw(rank, 1), wpc(rank, 1);
  if (rank == 0) return ir::Encoding::blocked(spt, tpw, wpc, order);
  spt[order[0]] = std::min(sizePerThread, shape[order[0]]);
  int64_t lanes = 32, warps = numWarps;
  for (int i = 0; i + 1 < rank; ++i) {
    int64_t d = order[i];
    tpw[d] = std::min(lanes, std::max<int64_t>(1, shape[d] / spt[d]));
    lanes /= tpw[d];
    wpc[d] = std::min(warps, std::max<int64_t>(1, shape[d] / (spt[d] * tpw[d])));
    warps /= wpc[d];
  }
  tpw[order[rank - 1]] = lanes;
  wpc[order[rank - 1]] = warps;
  return ir::Encoding::blocked(spt, tpw, wpc, order);
}

}  // namespace tessera::gpu
