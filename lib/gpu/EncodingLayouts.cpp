//===- EncodingLayouts.cpp - Encodings as linear layouts ------------------===//
//
// The one place where an encoding of Encoding.h gets its meaning for a given
// shape (DESIGN.md decision 4): blocked, slice and linear encodings become
// register/lane/warp layouts, swizzled_shared becomes an offset -> element
// layout, following Triton 3.x's LinearLayoutConversions. Also Triton's
// default blocked encoding, the layout AssignLayouts starts from.
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
    case ir::EncodingKind::SwizzledShared:
      throw Error("toLinearLayout of shared encoding " + encoding.str() + " (use sharedToLinearLayout)");
  }
  throw Error("unknown encoding kind");
}

LinearLayout sharedToLinearLayout(const std::vector<int64_t>& shape, ir::Encoding encoding) {
  if (!encoding || !encoding.isShared())
    throw Error("sharedToLinearLayout of a non-shared encoding " + (encoding ? encoding.str() : std::string("(none)")));
  checkShape(shape, encoding);
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
