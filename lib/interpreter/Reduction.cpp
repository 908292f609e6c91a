//===- interpreter/Reduction.cpp - tt.reduce and tt.scan ------------------===//
//
// Combine regions are arbitrary scalar code. Reductions run as a tree: each
// step combines the first half of the remaining positions along the axis
// with the second half, running the region ONCE on vectors of all those lane
// pairs (frame.lanes = number of pairs), so a reduction of N elements runs
// the region log2(N) times. Scans run the region once per position along the
// axis, on the vector of all other lanes. Regions that are not lane-safe
// (control flow, tensors) run once per scalar pair instead.
//
// Operands are viewed as [outer, R, inner] with R the reduced axis.
//
//===----------------------------------------------------------------------===//

// Kernels are tight loops over contiguous buffers: let GCC vectorize them.
#pragma GCC optimize("O3")

#include "interpreter/ArithOps.h"
#include "interpreter/Codecs.h"

namespace tessera::interp {
namespace {

using ir::OpCode;

/// In-place tree reduction of a [outer, R, inner] buffer with a known op.
using FastReduceFn = void (*)(uint8_t* work, int64_t outer, int64_t R, int64_t inner);

struct ReduceData {
  int64_t outer = 1, extent = 1, inner = 1;
  std::vector<int> bytes;  ///< per operand
  bool reverse = false;
  FastReduceFn fast = nullptr;  ///< set when the region is one known binary op
};

/// The same pairing as the generic tree (position i with i + R/2, the odd last
/// position carried), computed in place with the op's scalar semantics.
template <class S, class Apply> void treeInPlace(uint8_t* bytes, int64_t outer, int64_t R, int64_t inner) {
  S* w = reinterpret_cast<S*>(bytes);
  while (R > 1) {
    int64_t h = R / 2, odd = R % 2, newR = h + odd;
    for (int64_t o = 0; o < outer; ++o) {
      S* src = w + o * R * inner;
      S* dst = w + o * newR * inner;
      for (int64_t i = 0; i < h * inner; ++i) dst[i] = Apply::apply(src[i], src[h * inner + i]);
      if (odd) std::memmove(dst + h * inner, src + (R - 1) * inner, inner * sizeof(S));
    }
    R = newR;
  }
}

template <class Cd, class Op> struct FloatApply {
  static typename Cd::S apply(typename Cd::S a, typename Cd::S b) {
    return Cd::enc(Op::apply(Cd::dec(a), Cd::dec(b)));
  }
};
template <class T, class Op> struct IntApply {
  static T apply(T a, T b) { return Op::apply(a, b); }
};

template <class Op> FastReduceFn pickFastFloat(ir::TypeKind k) {
  return withFloatCodec(k, []<class Cd>(Cd) -> FastReduceFn {
    return &treeInPlace<typename Cd::S, FloatApply<Cd, Op>>;
  });
}
template <class Op> FastReduceFn pickFastInt(ir::Type t) {
  return withIntType(t, []<class T>(T) -> FastReduceFn { return &treeInPlace<T, IntApply<T, Op>>; });
}

/// A fast reducer when the combine region is `return op(arg0, arg1)`.
FastReduceFn fastReducer(ir::Operation* op) {
  if (op->numOperands() != 1 || op->region(0).empty()) return nullptr;
  ir::Block& block = op->region(0).front();
  ir::Operation* first = block.front();
  if (!first || block.size() != 2 || first->numResults() != 1 || first->numOperands() != 2) return nullptr;
  ir::Operation* term = first->nextOp();
  if (term->numOperands() != 1 || term->operand(0) != first->result(0)) return nullptr;
  ir::Value a = block.argument(0), b = block.argument(1);
  bool inOrder = first->operand(0) == a && first->operand(1) == b;
  bool swapped = first->operand(0) == b && first->operand(1) == a;
  if (!inOrder && !(swapped && first->hasTrait(ir::Commutative))) return nullptr;
  ir::Type t = first->result(0).type();
  if (t.isTensor() || t.isPointer() || t.isInteger(1)) return nullptr;
  using ir::OpCode;
  using namespace ops;
  switch (first->code()) {
  case OpCode::AddF: return pickFastFloat<AddF>(t.kind());
  case OpCode::MulF: return pickFastFloat<MulF>(t.kind());
  case OpCode::MaxNumF: return pickFastFloat<MaxNumF>(t.kind());
  case OpCode::MinNumF: return pickFastFloat<MinNumF>(t.kind());
  case OpCode::MaximumF: return pickFastFloat<MaximumF>(t.kind());
  case OpCode::MinimumF: return pickFastFloat<MinimumF>(t.kind());
  case OpCode::AddI: return pickFastInt<AddI>(t);
  case OpCode::MulI: return pickFastInt<MulI>(t);
  case OpCode::AndI: return pickFastInt<AndI>(t);
  case OpCode::OrI: return pickFastInt<OrI>(t);
  case OpCode::XOrI: return pickFastInt<XOrI>(t);
  case OpCode::MaxSI: return pickFastInt<MaxSI>(t);
  case OpCode::MinSI: return pickFastInt<MinSI>(t);
  case OpCode::MaxUI: return pickFastInt<MaxUI>(t);
  case OpCode::MinUI: return pickFastInt<MinUI>(t);
  default: return nullptr;
  }
}

/// Copies `count` elements of `bytes` each.
inline void copyElems(uint8_t* dst, const uint8_t* src, int64_t count, int bytes) {
  std::memcpy(dst, src, static_cast<size_t>(count) * bytes);
}

/// Runs the combine region with `lanes` lanes; arguments must be set.
inline void runCombine(const BlockPlan& region, Frame& f, int64_t lanes) {
  int64_t saved = f.lanes;
  f.lanes = lanes;
  runBlock(region, f);
  f.lanes = saved;
}

void reduceOp(const Instr& in, Frame& f) {
  const auto& rd = *static_cast<const ReduceData*>(in.aux);
  const BlockPlan& region = *in.regions[0];
  size_t n = in.in.size();
  ThreadContext& ctx = *f.ctx;
  int64_t outer = rd.outer, R = rd.extent, inner = rd.inner;
  // Working copies (scratch 8.. per operand).
  std::vector<uint8_t*> work(n);
  for (size_t k = 0; k < n; ++k) {
    size_t total = static_cast<size_t>(outer * R * inner) * rd.bytes[k];
    work[k] = ctx.scratchBuf(8 + static_cast<int>(k), total + 8);
    std::memcpy(work[k], f.slots[in.in[k]].data, total);
  }
  if (rd.fast) {
    rd.fast(work[0], outer, R, inner);
  } else if (region.laneSafe) {
    while (R > 1) {
      int64_t h = R / 2, odd = R % 2;
      int64_t lanes = outer * h * inner;
      for (size_t k = 0; k < n; ++k) {
        int b = rd.bytes[k];
        Slot& acc = f.slots[region.args[k]];
        Slot& next = f.slots[region.args[n + k]];
        acc.ensure(lanes * b + 8);
        next.ensure(lanes * b + 8);
        acc.n = next.n = lanes;
        for (int64_t o = 0; o < outer; ++o) {
          const uint8_t* row = work[k] + o * R * inner * b;
          copyElems(acc.data + o * h * inner * b, row, h * inner, b);
          copyElems(next.data + o * h * inner * b, row + h * inner * b, h * inner, b);
        }
      }
      runCombine(region, f, lanes);
      int64_t newR = h + odd;
      for (size_t k = 0; k < n; ++k) {
        int b = rd.bytes[k];
        const uint8_t* res = f.slots[region.yields[k]].data;
        // Compact in place: row o of the result goes to o * newR * inner.
        for (int64_t o = 0; o < outer; ++o) {
          uint8_t* dst = work[k] + o * newR * inner * b;
          if (odd) {
            // The unpaired last position moves to index h (read it before overwriting).
            std::memmove(dst + h * inner * b, work[k] + (o * R + R - 1) * inner * b, inner * b);
          }
          copyElems(dst, res + o * h * inner * b, h * inner, b);
        }
      }
      R = newR;
    }
  } else {
    // Sequential: for every (outer, inner) lane fold positions 1..R-1 into 0.
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        for (int64_t r = 1; r < R; ++r) {
          for (size_t k = 0; k < n; ++k) {
            int b = rd.bytes[k];
            Slot& acc = f.slots[region.args[k]];
            Slot& next = f.slots[region.args[n + k]];
            acc.ensure(16);
            next.ensure(16);
            acc.n = next.n = 1;
            std::memcpy(acc.data, work[k] + (o * R * inner + i) * b, b);
            std::memcpy(next.data, work[k] + ((o * R + r) * inner + i) * b, b);
          }
          runCombine(region, f, 1);
          for (size_t k = 0; k < n; ++k)
            std::memcpy(work[k] + (o * R * inner + i) * rd.bytes[k], f.slots[region.yields[k]].data, rd.bytes[k]);
        }
      }
    }
    // Compact: position 0 of each row.
    for (size_t k = 0; k < n; ++k) {
      int b = rd.bytes[k];
      for (int64_t o = 1; o < outer; ++o) std::memmove(work[k] + o * inner * b, work[k] + o * R * inner * b, inner * b);
    }
  }
  for (size_t k = 0; k < n; ++k) {
    int b = rd.bytes[k];
    Slot& out = f.slots[in.out[k]];
    out.ensure(outer * inner * b + 8);
    out.n = outer * inner;
    std::memcpy(out.data, work[k], outer * inner * b);
  }
}

void scanOp(const Instr& in, Frame& f) {
  const auto& rd = *static_cast<const ReduceData*>(in.aux);
  const BlockPlan& region = *in.regions[0];
  size_t n = in.in.size();
  int64_t outer = rd.outer, R = rd.extent, inner = rd.inner;
  for (size_t k = 0; k < n; ++k) copySlot(f, in.out[k], in.in[k], rd.bytes[k]);
  int64_t lanes = region.laneSafe ? outer * inner : 1;
  int64_t passes = region.laneSafe ? 1 : outer * inner;
  for (int64_t pass = 0; pass < passes; ++pass) {
    for (int64_t step = 1; step < R; ++step) {
      int64_t r = rd.reverse ? R - 1 - step : step;
      int64_t prev = rd.reverse ? r + 1 : r - 1;
      for (size_t k = 0; k < n; ++k) {
        int b = rd.bytes[k];
        Slot& acc = f.slots[region.args[k]];
        Slot& next = f.slots[region.args[n + k]];
        acc.ensure(lanes * b + 8);
        next.ensure(lanes * b + 8);
        acc.n = next.n = lanes;
        const uint8_t* src = f.slots[in.out[k]].data;
        if (region.laneSafe) {
          for (int64_t o = 0; o < outer; ++o) {
            copyElems(acc.data + o * inner * b, src + (o * R + prev) * inner * b, inner, b);
            copyElems(next.data + o * inner * b, src + (o * R + r) * inner * b, inner, b);
          }
        } else {
          int64_t o = pass / inner, i = pass % inner;
          std::memcpy(acc.data, src + ((o * R + prev) * inner + i) * b, b);
          std::memcpy(next.data, src + ((o * R + r) * inner + i) * b, b);
        }
      }
      runCombine(region, f, lanes);
      for (size_t k = 0; k < n; ++k) {
        int b = rd.bytes[k];
        uint8_t* dst = f.slots[in.out[k]].data;
        const uint8_t* res = f.slots[region.yields[k]].data;
        if (region.laneSafe) {
          for (int64_t o = 0; o < outer; ++o) copyElems(dst + (o * R + r) * inner * b, res + o * inner * b, inner, b);
        } else {
          int64_t o = pass / inner, i = pass % inner;
          std::memcpy(dst + ((o * R + r) * inner + i) * b, res, b);
        }
      }
    }
  }
}

}  // namespace

bool buildReduction(ir::Operation* op, Instr& in, PlanBuilder& b) {
  if (!op->is(OpCode::Reduce) && !op->is(OpCode::Scan)) return false;
  auto rd = std::make_shared<ReduceData>();
  if (op->numOperands() == 0) planError(op, "reduction without operands");
  ir::Type t = op->operand(0).type();
  std::vector<int64_t> shape = t.isTensor() ? t.shape() : std::vector<int64_t>{1};
  int64_t axis = op->intAttr("axis", 0);
  if (axis < 0) axis += static_cast<int64_t>(shape.size());
  if (axis < 0 || axis >= static_cast<int64_t>(shape.size())) planError(op, "reduction axis out of range");
  for (int64_t d = 0; d < axis; ++d) rd->outer *= shape[d];
  rd->extent = shape[axis];
  for (size_t d = axis + 1; d < shape.size(); ++d) rd->inner *= shape[d];
  for (ir::Value v : op->operands()) rd->bytes.push_back(storageBytes(v.type()));
  rd->reverse = op->boolAttr("reverse");
  in.regions.push_back(b.buildRegion(op->region(0)));
  const BlockPlan& region = *in.regions[0];
  size_t n = op->numOperands();
  if (region.args.size() != 2 * n || region.yields.size() != n)
    planError(op, "combine region must take " + std::to_string(2 * n) + " arguments and return " +
                      std::to_string(n) + " values");
  if (op->is(OpCode::Reduce)) rd->fast = fastReducer(op);
  in.fn = op->is(OpCode::Reduce) ? &reduceOp : &scanOp;
  in.aux = rd.get();
  in.owned = rd;
  return true;
}

}  // namespace tessera::interp
