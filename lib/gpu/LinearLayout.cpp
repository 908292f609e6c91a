//===- LinearLayout.cpp - Layouts as linear maps over GF(2) ---------------===//
//
// The algebra of tessera/gpu/LinearLayout.h. A layout is a matrix over GF(2)
// whose columns are the bases of the in dims (register, lane, warp, block)
// and whose rows are the bits of the out coordinates. Everything that needs
// more than one basis at a time (rank, free variables, inversion) packs the
// out coordinates into one bit vector (dim 0's bits lowest, then dim 1's, ...)
// and runs Gaussian elimination on those vectors; the rest is bookkeeping on
// the basis lists.
//
//===----------------------------------------------------------------------===//

#include "tessera/gpu/LinearLayout.h"

#include <algorithm>
#include <bit>
#include <cassert>

namespace tessera::gpu {

namespace {

bool isPow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }
int log2Exact(int64_t v) {
  assert(isPow2(v) && "expected a power of two");
  return std::countr_zero(static_cast<uint64_t>(v));
}

constexpr std::array<HwDim, kNumHwDims> kAllHwDims = {HwDim::Register, HwDim::Lane, HwDim::Warp, HwDim::Block};

/// Out coordinates as one bit vector: dim k occupies bits [offset[k],
/// offset[k] + log2(size[k])). Coordinates are below their dim's size, so
/// packing is concatenation (and linear over GF(2)).
struct OutBits {
  std::vector<int> offset, width;
  int total = 0;

  explicit OutBits(const std::vector<int64_t>& sizes) {
    for (int64_t s : sizes) {
      offset.push_back(total);
      width.push_back(log2Exact(s));
      total += width.back();
    }
    assert(total <= 64 && "out space exceeds 2^64 elements");
  }
  uint64_t pack(const std::vector<int64_t>& coords) const {
    uint64_t v = 0;
    for (size_t k = 0; k < coords.size(); ++k) v |= static_cast<uint64_t>(coords[k]) << offset[k];
    return v;
  }
};

/// An incremental XOR basis (Gaussian elimination over GF(2)). Each row has
/// a distinct pivot (its highest set bit) and remembers which input columns
/// were combined to make it.
class Gf2Basis {
 public:
  /// Adds column `index` with value `v`; false when v depends on the columns
  /// added before (it is then a free variable).
  /// A negative index records no combination (rank-only uses).
  bool add(uint64_t v, int index) {
    uint64_t combo = index >= 0 ? uint64_t{1} << index : 0;
    reduce(v, combo);
    if (v == 0) return false;
    rows_[63 - std::countl_zero(v)] = {v, combo, true};
    return true;
  }
  /// The columns whose XOR is `target`, or nullopt.
  std::optional<uint64_t> solve(uint64_t target) const {
    uint64_t combo = 0;
    reduce(target, combo);
    if (target != 0) return std::nullopt;
    return combo;
  }
  int rank() const {
    return static_cast<int>(std::count_if(rows_.begin(), rows_.end(), [](const Row& r) { return r.used; }));
  }

 private:
  struct Row {
    uint64_t value = 0, combo = 0;
    bool used = false;
  };
  void reduce(uint64_t& v, uint64_t& combo) const {
    for (int bit = 63; bit >= 0; --bit) {
      if (!((v >> bit) & 1) || !rows_[bit].used) continue;
      v ^= rows_[bit].value;
      combo ^= rows_[bit].combo;
    }
  }
  std::array<Row, 64> rows_{};
};

}  // namespace

LinearLayout::LinearLayout(Bases bases, std::vector<int64_t> outDimSizes)
    : bases_(std::move(bases)), outSizes_(std::move(outDimSizes)) {
#ifndef NDEBUG
  for (int64_t s : outSizes_) assert(isPow2(s) && "out dim sizes must be powers of two");
  for (const auto& dim : bases_)
    for (const auto& basis : dim) {
      assert(basis.size() == outSizes_.size() && "basis rank differs from the out rank");
      for (size_t k = 0; k < basis.size(); ++k)
        assert(basis[k] >= 0 && basis[k] < outSizes_[k] && "basis coordinate outside its out dim");
    }
#endif
}

LinearLayout LinearLayout::identity1D(int64_t size, HwDim in, int outDim, int rank) {
  assert(outDim >= 0 && outDim < rank);
  Bases bases;
  for (int i = 0; i < log2Exact(size); ++i) {
    std::vector<int64_t> b(rank, 0);
    b[outDim] = int64_t{1} << i;
    bases[static_cast<int>(in)].push_back(std::move(b));
  }
  std::vector<int64_t> sizes(rank, 1);
  sizes[outDim] = size;
  return LinearLayout(std::move(bases), std::move(sizes));
}

LinearLayout LinearLayout::zeros1D(int64_t size, HwDim in, int rank) {
  Bases bases;
  bases[static_cast<int>(in)].assign(log2Exact(size), std::vector<int64_t>(rank, 0));
  return LinearLayout(std::move(bases), std::vector<int64_t>(rank, 1));
}

LinearLayout LinearLayout::empty(int rank) { return LinearLayout(Bases{}, std::vector<int64_t>(rank, 1)); }

int64_t LinearLayout::totalOutSize() const {
  int64_t n = 1;
  for (int64_t s : outSizes_) n *= s;
  return n;
}

std::vector<int64_t> LinearLayout::apply(HwDim d, int64_t index) const {
  assert(index >= 0 && index < inDimSize(d) && "hardware index out of range");
  std::vector<int64_t> out(rank(), 0);
  const auto& bs = bases(d);
  for (size_t i = 0; i < bs.size(); ++i) {
    if (!((index >> i) & 1)) continue;
    for (int k = 0; k < rank(); ++k) out[k] ^= bs[i][k];
  }
  return out;
}

std::vector<int64_t> LinearLayout::apply(const std::array<int64_t, kNumHwDims>& index) const {
  std::vector<int64_t> out(rank(), 0);
  for (HwDim d : kAllHwDims) {
    std::vector<int64_t> part = apply(d, index[static_cast<int>(d)]);
    for (int k = 0; k < rank(); ++k) out[k] ^= part[k];
  }
  return out;
}

LinearLayout LinearLayout::operator*(const LinearLayout& other) const {
  assert(rank() == other.rank() && "product of layouts of different ranks");
  Bases bases = bases_;
  for (int d = 0; d < kNumHwDims; ++d)
    for (std::vector<int64_t> b : other.bases_[d]) {
      for (int k = 0; k < rank(); ++k) b[k] *= outSizes_[k];
      bases[d].push_back(std::move(b));
    }
  std::vector<int64_t> sizes(rank());
  for (int k = 0; k < rank(); ++k) sizes[k] = outSizes_[k] * other.outSizes_[k];
  return LinearLayout(std::move(bases), std::move(sizes));
}

std::array<int64_t, kNumHwDims> LinearLayout::freeVariableMasks() const {
  OutBits packing(outSizes_);
  Gf2Basis basis;
  std::array<int64_t, kNumHwDims> masks{};
  int column = 0;
  for (int d = 0; d < kNumHwDims; ++d)
    for (size_t i = 0; i < bases_[d].size(); ++i, ++column) {
      assert(column < 64 && "more than 64 in bits");
      if (!basis.add(packing.pack(bases_[d][i]), column)) masks[d] |= int64_t{1} << i;
    }
  return masks;
}

bool LinearLayout::isSurjective() const {
  OutBits packing(outSizes_);
  Gf2Basis basis;
  for (const auto& dim : bases_)
    for (const auto& b : dim) basis.add(packing.pack(b), -1);
  return basis.rank() == packing.total;
}

bool LinearLayout::isBijective() const {
  int inBits = 0;
  for (const auto& dim : bases_) inBits += static_cast<int>(dim.size());
  return inBits == OutBits(outSizes_).total && isSurjective();
}

int64_t LinearLayout::contiguousRegisters(int dim) const {
  const auto& regs = bases(HwDim::Register);
  int64_t n = 1;
  for (size_t i = 0; i < regs.size(); ++i) {
    for (int k = 0; k < rank(); ++k)
      if (regs[i][k] != (k == dim ? (int64_t{1} << i) : 0)) return n;
    n *= 2;
  }
  return n;
}

std::optional<std::array<int64_t, kNumHwDims>> LinearLayout::invert(const std::vector<int64_t>& coords,
                                                                     std::vector<HwDim> dims) const {
  assert(static_cast<int>(coords.size()) == rank() && "coordinate rank differs from the layout");
  for (int k = 0; k < rank(); ++k)
    if (coords[k] < 0 || coords[k] >= outSizes_[k]) return std::nullopt;
  // Columns in the order register, lane, warp, block (low bits first), so
  // the pivots are the earliest independent bases and the free ones are
  // those of freeVariableMasks() restricted to `dims`.
  OutBits packing(outSizes_);
  Gf2Basis basis;
  std::vector<std::pair<int, int>> columns;  // (in dim, bit)
  for (HwDim d : kAllHwDims) {
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) continue;
    const auto& bs = bases(d);
    for (size_t i = 0; i < bs.size(); ++i) {
      assert(columns.size() < 64 && "more than 64 in bits");
      basis.add(packing.pack(bs[i]), static_cast<int>(columns.size()));
      columns.emplace_back(static_cast<int>(d), static_cast<int>(i));
    }
  }
  std::optional<uint64_t> combo = basis.solve(packing.pack(coords));
  if (!combo) return std::nullopt;
  std::array<int64_t, kNumHwDims> index{};
  for (size_t c = 0; c < columns.size(); ++c)
    if ((*combo >> c) & 1) index[columns[c].first] |= int64_t{1} << columns[c].second;
  return index;
}

LinearLayout LinearLayout::resizedTo(const std::vector<int64_t>& shape, const std::vector<int64_t>& order) const {
  assert(static_cast<int>(shape.size()) == rank() && "resize to a shape of another rank");
  for (int64_t s : shape) assert(isPow2(s) && "resize to a non-power-of-two shape");
  // Shrink: keep only the coordinate bits below shape[k] (for the single-bit
  // bases of blocked layouts: zero the bases that reach past the shape).
  // Register bases that this turns into zero are dropped.
  Bases bases;
  for (int d = 0; d < kNumHwDims; ++d)
    for (std::vector<int64_t> b : bases_[d]) {
      bool truncated = false, zero = true;
      for (int k = 0; k < rank(); ++k) {
        if (b[k] >= shape[k]) {
          b[k] &= shape[k] - 1;
          truncated = true;
        }
        zero = zero && b[k] == 0;
      }
      if (d == static_cast<int>(HwDim::Register) && truncated && zero) continue;
      bases[d].push_back(std::move(b));
    }
  LinearLayout shrunk(std::move(bases), [&] {
    std::vector<int64_t> sizes(outSizes_);
    for (int k = 0; k < rank(); ++k) sizes[k] = std::min(sizes[k], shape[k]);
    return sizes;
  }());
  // Grow: repeat in registers along the dims in `order`, fastest first.
  std::vector<int64_t> dimsFastestFirst = order;
  if (dimsFastestFirst.empty())
    for (int k = rank() - 1; k >= 0; --k) dimsFastestFirst.push_back(k);
  assert(static_cast<int>(dimsFastestFirst.size()) == rank() && "order of another rank");
  LinearLayout result = shrunk;
  for (int64_t k : dimsFastestFirst) {
    int64_t have = result.outSizes_[k];
    if (have < shape[k]) result = result * identity1D(shape[k] / have, HwDim::Register, static_cast<int>(k), rank());
  }
  return result;
}

LinearLayout LinearLayout::droppedOutDim(int dim) const {
  assert(dim >= 0 && dim < rank());
  Bases bases;
  for (int d = 0; d < kNumHwDims; ++d)
    for (std::vector<int64_t> b : bases_[d]) {
      bool wasZero = std::all_of(b.begin(), b.end(), [](int64_t v) { return v == 0; });
      b.erase(b.begin() + dim);
      bool isZero = std::all_of(b.begin(), b.end(), [](int64_t v) { return v == 0; });
      if (d == static_cast<int>(HwDim::Register) && isZero && !wasZero) continue;
      bases[d].push_back(std::move(b));
    }
  std::vector<int64_t> sizes = outSizes_;
  sizes.erase(sizes.begin() + dim);
  return LinearLayout(std::move(bases), std::move(sizes));
}

LinearLayout LinearLayout::insertedOutDim(int dim) const {
  assert(dim >= 0 && dim <= rank());
  Bases bases = bases_;
  for (auto& d : bases)
    for (auto& b : d) b.insert(b.begin() + dim, 0);
  std::vector<int64_t> sizes = outSizes_;
  sizes.insert(sizes.begin() + dim, 1);
  return LinearLayout(std::move(bases), std::move(sizes));
}

LinearLayout LinearLayout::transposedOuts(const std::vector<int64_t>& order) const {
  assert(static_cast<int>(order.size()) == rank() && "transpose order of another rank");
  Bases bases;
  for (int d = 0; d < kNumHwDims; ++d)
    for (const auto& b : bases_[d]) {
      std::vector<int64_t> t(rank());
      for (int i = 0; i < rank(); ++i) t[i] = b[order[i]];
      bases[d].push_back(std::move(t));
    }
  std::vector<int64_t> sizes(rank());
  for (int i = 0; i < rank(); ++i) sizes[i] = outSizes_[order[i]];
  return LinearLayout(std::move(bases), std::move(sizes));
}

LinearLayout LinearLayout::reshapedOuts(const std::vector<int64_t>& shape) const {
  int64_t total = 1;
  for (int64_t s : shape) total *= s;
  assert(total == totalOutSize() && "reshape changes the number of elements");
  (void)total;
  Bases bases;
  for (int d = 0; d < kNumHwDims; ++d)
    for (const auto& b : bases_[d]) {
      int64_t flat = 0;
      for (int k = 0; k < rank(); ++k) flat = flat * outSizes_[k] + b[k];
      std::vector<int64_t> r(shape.size());
      for (int k = static_cast<int>(shape.size()) - 1; k >= 0; --k) {
        r[k] = flat % shape[k];
        flat /= shape[k];
      }
      bases[d].push_back(std::move(r));
    }
  return LinearLayout(std::move(bases), shape);
}

std::string LinearLayout::str() const {
  static const char* kNames[kNumHwDims] = {"register", "lane", "warp", "block"};
  auto ints = [](const std::vector<int64_t>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
  };
  std::string out;
  for (int d = 0; d < kNumHwDims; ++d) {
    out += std::string(d ? ", " : "") + kNames[d] + " = [";
    for (size_t i = 0; i < bases_[d].size(); ++i) out += (i ? ", " : "") + ints(bases_[d][i]);
    out += "]";
  }
  return out + " -> " + ints(outSizes_);
}

ir::Encoding LinearLayout::toEncoding() const {
  ir::LinearBases bases(bases_.begin(), bases_.end());
  return ir::Encoding::linear(std::move(bases));
}

}  // namespace tessera::gpu
