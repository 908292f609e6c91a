//===- PointerTilesToTma.cpp - Masked pointer tiles as TMA block loads ----===//
//
// Tile IR, sm_90a. The matmul of Triton's tutorials loads its operands
// through tiles of pointers:
//
//   a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
//   for k0 in range(0, K, BLOCK_K):
//       a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < K - k0), other=0.0)
//       acc += tl.dot(a, b)
//       a_ptrs += BLOCK_K
//
// (offs_m = m0 + arange(0, BLOCK_M), offs_k = arange(0, BLOCK_K)). That is
// the BLOCK_M x BLOCK_K block at (m0, k0) of an M x K tensor with strides
// (stride_am, 1), elements outside it read as 0: what one TMA copy does.
// Copied with cp.async instead, every thread computes 64-bit addresses and
// masks for its vectors each iteration: 4-11% more instructions in the loop
// than Triton's, and the pointer form was 0.93-0.98x Triton at 1024^3 and
// 2048^3 where the descriptor form of the same matmul is 1.01-1.25x.
// Here such a load becomes a block-pointer load,
//
//   tt.load(tt.make_tensor_ptr(a_ptr, [M, K], [stride_am, 1], [m0, k0]), boundary_check = [0, 1])
//
// which tma-descriptor-loads (run next) turns into a TMA copy.
//
// How the load is read. Integer index math is taken apart into a sum of
// terms coeff * f1 * f2 * ... (* arange along one tile dim), the f scalar
// values the kernel computes (arguments, program ids, quotients...):
// constants, make_range, splat, expand_dims, broadcast, addi, subi, muli
// and hints are looked through (a scalar extsi is a value of its own). The loop's induction variable is
// lb + step * j (j = the iteration number), and an iteration argument that
// the loop advances by a loop-invariant amount d (a_ptrs += BLOCK_K) is its
// initial value + j * d. The pointer tile must then be
//   base + sum over dims d of (off_d + arange_d) * stride_d
// with the strides loop-invariant and the last one 1 (or the first: the
// tile is copied transposed and read through tt.trans, as attention's K^T
// or a K-major B); the uniform terms are given to the dims whose stride
// divides them (the unit-stride dim last). All of a loop's wgmma operands
// become TMA copies, or none do.
// The mask must be an AND of one comparison per dim (none: the dim is not
// checked), `c + arange_d < U` (or <=, or the mirrored >, >=), which is
// `off_d + arange_d < U + off_d - c`: that right side is the dim's extent,
// and it must be loop-invariant (the K bound above: K - k0 + k0 = K). A
// dim without a comparison gets the extent 2^31 - 1. `other` must be 0.
//
// Wrapped indices. Triton's tutorial reads rows (pid_m * BLOCK_M + arange)
// % M of A, and columns % N of B, with no mask on them: the rows past M
// read rows r - M, whose products the store's mask drops. Such an index is
// taken as unwrapped, in bounds below the modulus (the dim's extent M),
// and TMA reads zeros past it. That is right where nothing keeps those
// rows: discarded() follows the tile through elementwise ops, the dot
// (A's rows are C's rows, B's columns C's columns), transposes and loop
// iteration arguments to stores whose mask drops the same rows
// (pid_m * BLOCK_M + arange < M); any other use (a reduction, an unmasked
// store) keeps the pointer loads.
//
// Negative offsets. TMA reads zeros below 0 in every dim, the pointer load
// reads memory there unless its mask says otherwise. An offset is that of
// the first iteration, loop-invariant, plus terms in j, which must be
// proven >= 0 (program ids, iteration numbers, quotients and remainders of
// such, and sums and products of them are). Where the first iteration's
// offset is not proven >= 0 and the mask does not check `c + arange_d >= 0`
// itself, it is checked once before the loop, by a tt.assert that is kept
// without debug (a trap: lib/ptx/Debug.cpp): a program that would read
// there stops with an error naming the load, instead of reading zeros.
// (The grouped tile order of the matmul above needs such a check: it
// divides the program id by a count computed from N.) So is the start of a
// wrapped index, which % reads differently below 0.
//
// Extents and strides must be constants or kernel arguments (the launch
// encodes the descriptor; no program makes one), offsets 32-bit index math
// (TMA's coordinates are i32: 64-bit math, `pid.to(tl.int64) * BLOCK`, is
// left to the pointer loads). An argument extent is checked to be >= 1 with
// the offsets (a descriptor cannot be empty); the checks of a load are one
// assert, which passes when the loop does not run.
//
// Only loads tma-descriptor-loads then takes and the pipeliner stages are
// rewritten (lower-to-gpu runs the pass only with num_stages >= 2; loops
// that write memory the loads may read are left alone, writes into other
// kernel arguments aside (PointerArguments.h); tma-descriptor-loads fences
// the async proxy's reads from earlier writes):
// an operand of a wgmma dot in the loop (directly or through tt.trans),
// with TMA's alignment (a 16-byte aligned base, strides other than the
// last a multiple of 16 bytes, by axis info), its box limits, and base,
// extents and strides computed outside the loop. The 32-bit index math is
// assumed not to overflow, as in the pointer form itself.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "gpu/GpuPasses.h"
#include "gpu/HostTensorMaps.h"
#include "gpu/PointerArguments.h"
#include "tessera/gpu/AxisInfo.h"
#include "tessera/ir/Builder.h"
#include "tessera/ir/Matchers.h"

namespace tessera::gpu {

using namespace ir;

namespace {

/// coeff * factors[0] * factors[1] * ... (* arange along `dim`, when >= 0).
struct Term {
  int64_t coeff = 0;
  std::vector<Value> factors;  ///< sorted by Sums::ordinal
  int dim = -1;
  int wrap = -1;  ///< an arange term read modulo Sums::wraps()[wrap]
};
using Sum = std::vector<Term>;

/// `(start + arange) % modulus`, the tutorial's wrapped rows.
struct Wrap {
  Sum start, modulus;
};

/// Whether two sums have the same terms.
bool sameSum(const Sum& a, const Sum& b) {
  if (a.size() != b.size()) return false;
  for (const Term& t : a)
    if (std::none_of(b.begin(), b.end(), [&](const Term& o) {
          return o.coeff == t.coeff && o.dim == t.dim && o.wrap == t.wrap && o.factors == t.factors;
        }))
      return false;
  return true;
}

constexpr size_t kMaxTerms = 64;  ///< larger expansions are given up on
/// Coefficients stay below this, so that sums of kMaxTerms terms cannot overflow.
constexpr int64_t kMaxCoeff = int64_t{1} << 40;
constexpr int64_t kUncheckedExtent = 0x7fffffff;

/// Integer and pointer index math as sums of terms, in one loop.
class Sums {
 public:
  explicit Sums(Operation* loop) : loop_(loop), iv_(loop->region(0).front().argument(0)) {}

  Value iv() const { return iv_; }
  Operation* loop() const { return loop_; }
  const std::vector<Wrap>& wraps() const { return wraps_; }

  /// An integer value (scalar or tensor) as a sum; nullopt when it is not
  /// affine in the aranges.
  std::optional<Sum> of(Value v) {
    if (self_) return ofUncached(v);  // may read self_ as a leaf
    auto it = memo_.find(v.impl());
    if (it != memo_.end()) return it->second;
    std::optional<Sum> s = ofUncached(v);
    memo_[v.impl()] = s;
    return s;
  }

  std::optional<Sum> ofUncached(Value v) {
    if (!v.type().elementType().isInteger()) return std::nullopt;
    if (v == self_) return Sum{leaf(v)};
    if (auto c = ir::intConstantOf(v)) {
      if (*c > kMaxCoeff || *c < -kMaxCoeff) return std::nullopt;
      return Sum{Term{*c, {}, -1}};
    }
    if (v == iv_) {  // lb + step * j
      auto lb = of(loop_->operand(0)), step = of(loop_->operand(2));
      if (!lb || !step) return std::nullopt;
      auto moved = product(*step, Sum{leaf(iv_)});
      if (!moved) return std::nullopt;
      return add(*lb, *moved);
    }
    if (v.isBlockArgument()) {
      if (std::optional<int> i = iterArg(v)) return advanced(v, *i, [this](Value x) { return of(x); });
      if (v.type().isTensor()) return std::nullopt;
      return Sum{leaf(v)};
    }
    Operation* def = v.definingOp();
    switch (def->code()) {
      case OpCode::MakeRange: {
        int64_t start = def->intAttr("start"), end = def->intAttr("end");
        Sum s{Term{start, {}, -1}};
        if (end - start > 1) s.push_back(Term{1, {}, 0});
        return normalized(s);
      }
      case OpCode::Splat: case OpCode::Broadcast: case OpCode::Hint:
        return of(def->operand(0));
      case OpCode::ExpandDims: {
        auto s = of(def->operand(0));
        if (!s) return std::nullopt;
        int axis = static_cast<int>(def->intAttr("axis"));
        for (Term& t : *s)
          if (t.dim >= axis) ++t.dim;
        return s;
      }
      case OpCode::RemSI: {
        if (!v.type().isTensor()) return Sum{leaf(v)};
        // (start + arange) % modulus: the arange term, tagged.
        auto x = of(def->operand(0)), m = of(def->operand(1));
        if (!x || !m || std::any_of(m->begin(), m->end(), [](const Term& t) { return t.dim >= 0; }))
          return std::nullopt;
        Wrap w;
        Term* arange = nullptr;
        for (Term& t : *x) {
          if (t.dim < 0) {
            w.start.push_back(t);
            continue;
          }
          if (arange || t.coeff != 1 || !t.factors.empty() || t.wrap >= 0) return std::nullopt;
          arange = &t;
        }
        if (!arange) return std::nullopt;
        w.modulus = *m;
        arange->wrap = static_cast<int>(wraps_.size());
        wraps_.push_back(std::move(w));
        return x;
      }
      case OpCode::AddI: case OpCode::SubI: case OpCode::MulI: {
        auto a = of(def->operand(0)), b = of(def->operand(1));
        if (!a || !b) return std::nullopt;
        if (def->is(OpCode::AddI)) return bounded(add(*a, *b));
        if (def->is(OpCode::SubI)) return bounded(add(*a, scaled(*b, -1)));
        return product(*a, *b);
      }
      default:
        if (v.type().isTensor()) return std::nullopt;
        return Sum{leaf(v)};
    }
  }

  /// A tile of pointers as its scalar base and a sum of element offsets.
  struct Pointers {
    Value base;
    Sum offsets;
  };
  std::optional<Pointers> pointers(Value v) {
    if (v == self_) return Pointers{v, {}};
    if (v.isBlockArgument()) {
      std::optional<int> i = iterArg(v);
      if (!i) return std::nullopt;
      return advanced(v, *i, [this](Value x) { return pointers(x); });
    }
    Operation* def = v.definingOp();
    switch (def->code()) {
      case OpCode::Splat:
        return Pointers{def->operand(0), {}};
      case OpCode::Broadcast: case OpCode::Hint:
        return pointers(def->operand(0));
      case OpCode::ExpandDims: {
        auto p = pointers(def->operand(0));
        if (!p) return std::nullopt;
        int axis = static_cast<int>(def->intAttr("axis"));
        for (Term& t : p->offsets)
          if (t.dim >= axis) ++t.dim;
        return p;
      }
      case OpCode::AddPtr: {
        if (!def->operand(0).type().isTensor()) return std::nullopt;
        auto p = pointers(def->operand(0));
        auto off = of(def->operand(1));
        if (!p || !off) return std::nullopt;
        auto sum = bounded(add(p->offsets, *off));
        if (!sum) return std::nullopt;
        p->offsets = *sum;
        return p;
      }
      default:
        return std::nullopt;
    }
  }

  /// Whether every factor of `s` is defined outside the loop (and none is
  /// the iteration number).
  bool invariant(const Sum& s) const {
    for (const Term& t : s)
      for (Value f : t.factors)
        if (!outsideLoop(f)) return false;
    return true;
  }
  bool outsideLoop(Value v) const {
    if (v == iv_) return false;
    Block* block = v.parentBlock();
    Operation* owner = block ? block->parentOp() : nullptr;
    return !(owner && loop_->isAncestorOf(owner));
  }

  /// Whether `v` (a scalar the kernel computes) is never negative.
  bool nonNegative(Value v) {
    if (v == iv_) return true;  // a term's factor j, the iteration number
    return provenNonNegative(v);
  }
  bool nonNegative(const Term& t) {
    if (t.coeff < 0) return false;
    for (Value f : t.factors)
      if (!nonNegative(f)) return false;
    return true;
  }

  static Sum add(Sum a, const Sum& b) {
    a.insert(a.end(), b.begin(), b.end());
    return normalizedStatic(std::move(a));
  }
  static Sum scaled(Sum a, int64_t k) {
    for (Term& t : a) t.coeff *= k;
    return normalizedStatic(std::move(a));
  }
  std::optional<Sum> product(const Sum& a, const Sum& b) {
    if (a.size() * b.size() > kMaxTerms) return std::nullopt;
    Sum out;
    for (const Term& x : a)
      for (const Term& y : b) {
        if (x.dim >= 0 && y.dim >= 0) return std::nullopt;
        Term t;
        if (__builtin_mul_overflow(x.coeff, y.coeff, &t.coeff) || t.coeff > kMaxCoeff || t.coeff < -kMaxCoeff)
          return std::nullopt;
        t.factors = x.factors;
        t.factors.insert(t.factors.end(), y.factors.begin(), y.factors.end());
        sortFactors(t.factors);
        t.dim = std::max(x.dim, y.dim);
        if (x.wrap >= 0 && y.wrap >= 0) return std::nullopt;
        t.wrap = std::max(x.wrap, y.wrap);
        out.push_back(std::move(t));
      }
    return normalized(std::move(out));
  }
  /// Orders factors by first appearance, so that the output is stable.
  void sortFactors(std::vector<Value>& fs) {
    std::sort(fs.begin(), fs.end(), [this](Value a, Value b) { return ordinal(a) < ordinal(b); });
  }
  Sum normalized(Sum s) {
    for (Term& t : s) sortFactors(t.factors);
    return normalizedStatic(std::move(s));
  }

 private:
  /// Like terms merged (factors already sorted), zeros dropped.
  static Sum normalizedStatic(Sum s) {
    Sum out;
    for (Term& t : s) {
      auto same = std::find_if(out.begin(), out.end(),
                               [&](const Term& o) {
                                 return o.dim == t.dim && o.wrap == t.wrap && o.factors == t.factors;
                               });
      if (same != out.end()) same->coeff += t.coeff;
      else out.push_back(std::move(t));
    }
    out.erase(std::remove_if(out.begin(), out.end(), [](const Term& t) { return t.coeff == 0; }), out.end());
    return out;
  }
  std::optional<Sum> bounded(Sum s) {
    if (s.size() > kMaxTerms) return std::nullopt;
    return s;
  }

  Term leaf(Value v) {
    ordinal(v);
    return Term{1, {v}, -1};
  }
  int ordinal(Value v) { return ordinals_.emplace(v.impl(), static_cast<int>(ordinals_.size())).first->second; }

  /// The index of `v` among the loop's iteration arguments.
  std::optional<int> iterArg(Value v) const {
    Block& body = loop_->region(0).front();
    if (v.ownerBlock() != &body || v.index() == 0) return std::nullopt;
    return static_cast<int>(v.index()) - 1;
  }

  /// Iteration argument `arg` (number i) is its initial value plus j times
  /// what each iteration adds, when the yielded value is `arg` plus a
  /// loop-invariant amount. `fn` is of() or pointers().
  template <typename Fn>
  auto advanced(Value arg, int i, Fn fn) -> decltype(fn(arg)) {
    if (self_) return std::nullopt;  // one at a time
    Value yielded = loop_->region(0).front().terminator()->operand(i);
    self_ = arg;
    auto step = fn(yielded);
    self_ = Value();
    auto init = fn(loop_->operand(3 + i));
    if (!step || !init) return std::nullopt;
    Sum* delta;
    Sum* start;
    if constexpr (std::is_same_v<decltype(step), std::optional<Pointers>>) {
      if (step->base != arg) return std::nullopt;
      delta = &step->offsets;
      start = &init->offsets;
    } else {
      // arg + delta: exactly one term that is arg itself.
      auto selfTerm = std::find_if(step->begin(), step->end(), [&](const Term& t) {
        return std::find(t.factors.begin(), t.factors.end(), arg) != t.factors.end();
      });
      if (selfTerm == step->end() || selfTerm->coeff != 1 || selfTerm->factors.size() != 1 || selfTerm->dim != -1)
        return std::nullopt;
      step->erase(selfTerm);
      delta = &*step;
      start = &*init;
    }
    for (const Term& t : *delta)
      for (Value f : t.factors)
        if (f == arg) return std::nullopt;
    if (!invariant(*delta)) return std::nullopt;
    auto moved = product(*delta, Sum{leaf(iv_)});
    if (!moved) return std::nullopt;
    auto sum = bounded(add(*start, *moved));
    if (!sum) return std::nullopt;
    *start = *sum;
    return init;
  }

  Operation* loop_;
  Value iv_;
  Value self_;  ///< the iteration argument being advanced, a leaf meanwhile
  std::map<ValueImpl*, int> ordinals_;
  std::map<ValueImpl*, std::optional<Sum>> memo_;  ///< of() outside advanced()
  std::vector<Wrap> wraps_;
};

/// Whether `d` divides `t` (factors as a multiset, coefficients).
bool divides(const Term& d, const Term& t) {
  if (d.coeff == 0 || t.coeff % d.coeff != 0) return false;
  std::vector<Value> rest = t.factors;
  for (Value f : d.factors) {
    auto it = std::find(rest.begin(), rest.end(), f);
    if (it == rest.end()) return false;
    rest.erase(it);
  }
  return true;
}

Term quotient(const Term& t, const Term& d) {
  Term q{t.coeff / d.coeff, t.factors, -1};
  for (Value f : d.factors) q.factors.erase(std::find(q.factors.begin(), q.factors.end(), f));
  return q;
}

/// One dim of the block: its stride, offset and extent (none: unchecked),
/// and whether the mask checks its lower bound.
struct Dim {
  Term stride;
  Sum offset;
  std::optional<Sum> extent;
  bool lowerChecked = false;
  int wrap = -1;  ///< the index is read modulo this Sums::wraps() entry
};

/// How one load is copied: its block (dims in the tile's order), the
/// unproven parts of its offsets, and whether the copy is of the
/// transposed tile (memory-contiguous along the tile's dim 0: attention's
/// K^T, K-major fp8 B), read through tt.trans.
struct Plan {
  Operation* load = nullptr;
  Value base;
  std::vector<Dim> dims;
  /// What the kernel checks before the loop, per dim: the first
  /// iteration's offset, the start of a wrapped index (>= 0), the extent
  /// (>= 1); empty where proven.
  std::vector<Sum> unproven, wrapStarts, extents;
  bool transposed = false;
};

/// A constant, or a kernel argument: what the launch encodes into the
/// descriptor (lib/ptx/Tma.cpp hostScalar), so that no program makes one.
bool hostEncodable(const Sum& s, Operation* func) {
  if (s.size() != 1 || s[0].dim >= 0) return false;
  const Term& t = s[0];
  if (t.factors.empty()) return t.coeff > 0;
  return t.coeff == 1 && t.factors.size() == 1 && t.factors[0].isBlockArgument() &&
         t.factors[0].ownerBlock()->parentOp() == func;
}

class Raiser {
 public:
  Raiser(Operation* func, const Target& target, int numWarps)
      : axis_(func), target_(target), numWarps_(numWarps), func_(func), kernel_(funcName(func)) {}

  /// The loads of `loop` that feed a wgmma dot become TMA copies, all of
  /// them or none: next to cp.async copies in one loop, the TMA copies were
  /// slower (attention's V with K^T by cp.async: 460 -> 429 TFLOP/s at
  /// head_dim 128 on the H100), and a loop of TMA copies alone can get a
  /// producer warpgroup.
  void rewriteLoop(Operation* loop, const std::vector<Operation*>& loads) {
    // A loop that writes memory the loads may read is not pipelined (its
    // copies would move ahead of the writes); unstaged, a TMA copy is
    // slower than the loads. Writes into other kernel arguments do not
    // count (PointerArguments.h; pipeline-dot-loops takes them alike).
    bool writes = false;
    loop->walk([&](Operation* op) {
      if (op == loop || !op->hasTrait(MemWrite)) return;
      for (Operation* load : loads) writes = writes || !writeSpares(op, pointerArgument(load->operand(0)));
    });
    if (writes) return;
    Sums sums(loop);
    std::vector<Plan> plans;
    for (Operation* load : loads) {
      if (!wgmmaOperandUse(load, target_, numWarps_)) continue;
      std::optional<Plan> p = plan(sums, load);
      if (!p) return;
      plans.push_back(std::move(*p));
    }
    for (const Plan& p : plans)
      for (int d = 0; d < static_cast<int>(p.dims.size()); ++d)
        if (p.dims[d].wrap >= 0 && !discarded(sums, p.load->result(), d, p.dims[d].wrap)) return;
    for (const Plan& p : plans) emit(sums, p);
  }

 private:
  /// Whether the rows along `dim` of `tile` (a loaded tile) where the index
  /// wrap `wrap` wraps around never reach memory: every use keeps them in
  /// their own rows (elementwise ops, the dot's M rows of A and N columns
  /// of B, transposes, loop-carried values) up to stores whose mask leaves
  /// them out (`start + arange < modulus` along that dim). Triton's
  /// tutorial reads rows (pid_m * BLOCK_M + arange) % M of A, and stores
  /// only rows pid_m * BLOCK_M + arange < M of C.
  bool discarded(Sums& sums, Value tile, int dim, int wrap) {
    const Wrap w = sums.wraps()[wrap];
    Sum bound = Sums::add(w.modulus, Sums::scaled(w.start, -1));  // the extent at offset 0
    std::set<std::pair<ValueImpl*, int>> seen;
    std::vector<std::pair<Value, int>> work = {{tile, dim}};
    while (!work.empty()) {
      auto [v, d] = work.back();
      work.pop_back();
      if (!v.type().isTensor() || v.type().rank() != 2) return false;
      if (!seen.insert({v.impl(), d}).second) continue;
      for (OpOperand* use : v.uses()) {
        Operation* op = use->owner;
        if (op->is(OpCode::Dot)) {
          // A's rows are C's rows, B's columns C's columns; a wrapped K
          // would mix into every element.
          if ((use->index == 0 && d != 0) || (use->index == 1 && d != 1)) return false;
          work.push_back({op->result(), d});
        } else if (op->is(OpCode::Trans) && op->intArrayAttr("order") == std::vector<int64_t>{1, 0}) {
          work.push_back({op->result(), 1 - d});
        } else if (op->hasTrait(Elementwise) && op->numResults() == 1 && !op->is(OpCode::InlineAsm)) {
          // (inline asm packs several elements of a thread, of other rows)
          work.push_back({op->result(), d});
        } else if (op->is(OpCode::Yield) && op->parentOp() && op->parentOp()->is(OpCode::For)) {
          // Into a later iteration: the same rows only while the wrap's
          // start and modulus are the loop's invariants.
          Operation* loop = op->parentOp();
          for (const Sum* part : {&w.start, &w.modulus})
            for (const Term& t : *part)
              for (Value f : t.factors) {
                Block* block = f.parentBlock();
                Operation* owner = block ? block->parentOp() : nullptr;
                if (f == sums.iv() || (owner && loop->isAncestorOf(owner))) return false;
              }
          work.push_back({loop->region(0).front().argument(use->index + 1), d});
          work.push_back({loop->result(use->index), d});
        } else if (op->is(OpCode::Store) && use->index == 1 && op->numOperands() == 3) {
          std::vector<Dim> dims(2);
          if (!readMask(sums, op->operand(2), dims, {0, 1}) || !dims[d].extent || !sameSum(*dims[d].extent, bound))
            return false;
        } else {
          return false;
        }
      }
    }
    return true;
  }

  std::optional<Plan> plan(Sums& sums, Operation* load) {
    Type tile = load->result().type();
    int rank = static_cast<int>(tile.rank());
    if (load->numOperands() > 3 || load->boolAttr("volatile") || rank != 2) return std::nullopt;
    if (load->numOperands() == 3 && !ir::isZeroConstant(load->operand(2))) return std::nullopt;
    Plan p;
    p.load = load;
    auto ptrs = sums.pointers(load->operand(0));
    if (!ptrs || ptrs->base.type().isTensor() || !sums.outsideLoop(ptrs->base)) return std::nullopt;
    p.base = ptrs->base;
    p.dims.resize(rank);
    if (!splitOffsets(sums, ptrs->offsets, p.dims, tile, p.transposed)) return std::nullopt;
    Type copied = p.transposed ? Type::tensor({tile.shape()[1], tile.shape()[0]}, tile.elementType()) : tile;
    if (!tmaCanCopyTile(copied, "zero") || !isStageableWgmmaOperand(load, target_, numWarps_, p.transposed))
      return std::nullopt;
    std::vector<int> identity(rank);
    for (int d = 0; d < rank; ++d) identity[d] = d;
    if (load->numOperands() >= 2 && !readMask(sums, load->operand(1), p.dims, identity)) return std::nullopt;
    // A wrapped index (start + arange) % modulus is in bounds where
    // start + arange < modulus, and reads row (start + arange) - modulus
    // past that: TMA reads zeros there, which is right only where nothing
    // keeps those rows (discarded(), per loop).
    for (Dim& d : p.dims) {
      if (d.wrap < 0) continue;
      if (d.extent) return std::nullopt;
      const Wrap w = sums.wraps()[d.wrap];
      d.extent = Sums::add(Sums::add(w.modulus, d.offset), Sums::scaled(w.start, -1));
    }
    // j at most once per term: materialize() reads it as (iv - lb) / step.
    for (const Dim& d : p.dims)
      for (const Term& t : d.offset)
        if (std::count(t.factors.begin(), t.factors.end(), sums.iv()) > 1) return std::nullopt;
    for (const Dim& d : p.dims)
      if (d.extent && !sums.invariant(*d.extent)) return std::nullopt;
    // Extents and strides the launch encodes; the offsets 32-bit index math
    // (TMA's coordinates are i32; 64-bit math would be cut).
    p.extents.resize(rank);
    p.wrapStarts.resize(rank);
    for (int d = 0; d < rank; ++d) {
      const Dim& dim = p.dims[d];
      if ((dim.extent && !hostEncodable(*dim.extent, func_)) || !hostEncodable(Sum{dim.stride}, func_))
        return std::nullopt;
      if (dim.extent && !(*dim.extent)[0].factors.empty()) p.extents[d] = *dim.extent;
      for (const Term& t : dim.offset)
        for (Value f : t.factors)
          if (f.type() != Type::i32()) return std::nullopt;
      if (dim.wrap >= 0) {  // (start + arange) % m reads row start + arange - m only where start >= 0
        Sum start = sums.wraps()[dim.wrap].start;
        if (!sums.invariant(start)) return std::nullopt;
        for (const Term& t : start) {
          for (Value f : t.factors)
            if (f.type() != Type::i32()) return std::nullopt;
          if (!sums.nonNegative(t)) p.wrapStarts[d] = start;
        }
      }
    }
    // An offset is its first iteration's (loop-invariant terms) plus terms
    // in j, which must be proven non-negative. Where the first is not, it
    // is checked, whole, before the loop.
    p.unproven.resize(rank);
    for (int d = 0; d < rank; ++d) {
      if (p.dims[d].lowerChecked) continue;
      Sum first;
      bool proven = true;
      for (const Term& t : p.dims[d].offset) {
        bool inJ = std::find(t.factors.begin(), t.factors.end(), sums.iv()) != t.factors.end();
        if (inJ && !sums.nonNegative(t)) return std::nullopt;
        if (inJ) continue;
        first.push_back(t);
        proven = proven && sums.nonNegative(t);
      }
      if (!sums.invariant(first)) return std::nullopt;
      if (!proven) p.unproven[d] = first;
    }
    return p;
  }

  /// Strides from the arange terms, offsets from the uniform ones (each to
  /// the first dim, non-unit strides first, whose stride divides it). The
  /// unit stride is the last dim's, or dim 0's (`transposed`).
  bool splitOffsets(Sums& sums, const Sum& offsets, std::vector<Dim>& dims, Type tile, bool& transposed) {
    int rank = static_cast<int>(dims.size());
    std::vector<bool> seen(rank, false);
    Sum uniform;
    for (const Term& t : offsets) {
      if (t.dim < 0) {
        uniform.push_back(t);
        continue;
      }
      if (seen[t.dim]) return false;
      seen[t.dim] = true;
      dims[t.dim].stride = Term{t.coeff, t.factors, -1};
      dims[t.dim].wrap = t.wrap;
      if (t.coeff <= 0 || !sums.invariant(Sum{dims[t.dim].stride})) return false;
    }
    for (int d = 0; d < rank; ++d)
      if (!seen[d]) return false;
    auto unit = [&](int d) { return dims[d].stride.coeff == 1 && dims[d].stride.factors.empty(); };
    transposed = !unit(rank - 1);
    if (transposed && (rank != 2 || !unit(0))) return false;
    int contiguous = transposed ? 0 : rank - 1;
    int64_t bytes = tile.elementType().bitWidth() / 8;
    for (int d = 0; d < rank; ++d) {
      if (d == contiguous) continue;
      int64_t divisibility = dims[d].stride.coeff;
      for (Value f : dims[d].stride.factors) divisibility *= axis_.get(f).divisibility[0];
      if (divisibility * bytes % 16 != 0) return false;
    }
    std::vector<int> order(rank);
    for (int d = 0; d < rank; ++d) order[d] = d;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return dims[a].stride.factors.size() > dims[b].stride.factors.size() ||
             (dims[a].stride.factors.size() == dims[b].stride.factors.size() &&
              std::abs(dims[a].stride.coeff) > std::abs(dims[b].stride.coeff));
    });
    for (const Term& t : uniform) {
      auto d = std::find_if(order.begin(), order.end(), [&](int d) { return divides(dims[d].stride, t); });
      if (d == order.end()) return false;
      dims[*d].offset = Sums::add(dims[*d].offset, Sum{quotient(t, dims[*d].stride)});
    }
    return true;
  }

  /// Reads an AND of comparisons into the dims' extents; `toTile` maps the
  /// dims of `mask` to the tile's.
  bool readMask(Sums& sums, Value mask, std::vector<Dim>& dims, std::vector<int> toTile) {
    Type t = mask.type();
    if (auto c = ir::intConstantOf(mask)) return *c != 0;  // all true: nothing checked
    Operation* def = mask.definingOp();
    if (!def || !t.isTensor()) return false;
    switch (def->code()) {
      case OpCode::AndI:
        return readMask(sums, def->operand(0), dims, toTile) && readMask(sums, def->operand(1), dims, toTile);
      case OpCode::Broadcast:
        return readMask(sums, def->operand(0), dims, toTile);
      case OpCode::ExpandDims: {
        int axis = static_cast<int>(def->intAttr("axis"));
        std::vector<int> inner = toTile;
        inner.erase(inner.begin() + axis);
        return readMask(sums, def->operand(0), dims, inner);
      }
      case OpCode::CmpI:
        return readComparison(sums, def, dims, toTile);
      default:
        return false;
    }
  }

  /// `index < bound` (or <=, or mirrored: >, >=) for the dim's extent, or
  /// `index >= low` with low at the block's 0 (TMA's own lower bound).
  bool readComparison(Sums& sums, Operation* cmp, std::vector<Dim>& dims, const std::vector<int>& toTile) {
    std::string pred = cmp->strAttr("predicate");
    if (pred != "slt" && pred != "sle" && pred != "sgt" && pred != "sge") return false;
    auto lhs = sums.of(cmp->operand(0)), rhs = sums.of(cmp->operand(1));
    if (!lhs || !rhs) return false;
    // x < y or x <= y.
    bool strict = pred == "slt" || pred == "sgt";
    if (pred == "sgt" || pred == "sge") std::swap(lhs, rhs);
    bool upper = hasArange(*lhs);
    if (upper == hasArange(*rhs)) return false;
    const Sum& index = upper ? *lhs : *rhs;
    Sum limit = upper ? *rhs : *lhs;
    if (upper != strict) limit = Sums::add(limit, Sum{Term{1, {}, -1}});  // index < limit / index >= limit
    // index = c + arange along one dim, coefficient 1.
    int dim = -1;
    Sum c;
    for (const Term& t : index) {
      if (t.dim < 0) {
        c.push_back(t);
        continue;
      }
      if (dim >= 0 || t.coeff != 1 || !t.factors.empty() || t.wrap >= 0 || t.dim >= static_cast<int>(toTile.size()))
        return false;
      dim = toTile[t.dim];
    }
    if (dim < 0) return false;
    Dim& d = dims[dim];
    // In the block's coordinates: off + arange against limit + off - c.
    Sum shifted = Sums::add(Sums::add(limit, d.offset), Sums::scaled(c, -1));
    if (!upper) {
      if (!shifted.empty() || d.lowerChecked) return false;
      d.lowerChecked = true;
      return true;
    }
    if (d.extent) return false;
    d.extent = shifted;
    return true;
  }

  static bool hasArange(const Sum& s) {
    return std::any_of(s.begin(), s.end(), [](const Term& t) { return t.dim >= 0; });
  }

  void emit(Sums& sums, const Plan& p) {
    Operation* loop = sums.loop();
    Operation* load = p.load;
    int rank = static_cast<int>(p.dims.size());
    OpBuilder b;
    b.setLoc(load->loc());
    b.setInsertionPoint(loop);
    // The checks, before the loop, when it runs (one assert per load):
    // offsets and wrapped starts >= 0, extents >= 1.
    Value ok;
    std::vector<std::string> reasons;
    auto check = [&](const Sum& value, Type type, int64_t least) {
      if (value.empty()) return false;
      Value v = materialize(b, sums, value, type);
      Value c = b.create(OpCode::CmpI, {Type::i1()}, {v, b.constantInt(type, least)}, {{"predicate", "sge"}})->result();
      ok = ok ? b.create(OpCode::AndI, {Type::i1()}, {ok, c})->result() : c;
      return true;
    };
    std::string emptyDims;  // "0" or "0, 1"
    for (int d = 0; d < rank; ++d) {
      std::string dim = std::to_string(d);
      if (check(p.unproven[d], Type::i32(), 0))
        reasons.push_back("its offset along dim " + dim +
                          " is negative (TMA cannot read below 0; with `& (offs >= 0)` in the mask it would read zeros "
                          "there)");
      if (check(p.wrapStarts[d], Type::i32(), 0))
        reasons.push_back("its wrapped index (%) along dim " + dim + " starts below 0");
      if (check(p.extents[d], Type::i64(), 1)) emptyDims += (emptyDims.empty() ? "" : ", ") + dim;
    }
    if (!emptyDims.empty())
      reasons.push_back("its extent along dim" + std::string(emptyDims.size() > 1 ? "s " : " ") + emptyDims +
                        " is 0 or less while the loop runs (TMA cannot copy from an empty tensor)");
    if (ok) {
      Value skipped = b.create(OpCode::CmpI, {Type::i1()}, {loop->operand(0), loop->operand(1)}, {{"predicate", "sge"}})
                          ->result();
      ok = b.create(OpCode::OrI, {Type::i1()}, {ok, skipped})->result();
      Location l = load->loc();
      std::string message = "tl.load at " +
                             (l.known() ? *l.file + ":" + std::to_string(l.line) + ":" + std::to_string(l.col) : "?") +
                             ": its tile is copied by TMA, and a program stops here where ";
      for (size_t i = 0; i < reasons.size(); ++i) message += (i ? "; or where " : "") + reasons[i];
      b.create(OpCode::Assert, {}, {ok},
               {{"message", message},
                {"file", l.known() ? *l.file : std::string("<unknown>")},
                {"func", kernel_},
                {"line", int64_t{l.line}},
                {"always", true}});
    }
    // The block in memory order: the tile's, or transposed.
    std::vector<int> order(rank);
    for (int d = 0; d < rank; ++d) order[d] = p.transposed ? rank - 1 - d : d;
    std::vector<Value> operands = {p.base};
    for (int d : order)
      operands.push_back(p.dims[d].extent ? materialize(b, sums, *p.dims[d].extent, Type::i64())
                                          : b.constantInt(Type::i64(), kUncheckedExtent));
    for (int d : order) operands.push_back(materialize(b, sums, Sum{p.dims[d].stride}, Type::i64()));
    b.setInsertionPoint(load);
    for (int d : order) operands.push_back(materialize(b, sums, p.dims[d].offset, Type::i32()));
    Type tile = load->result().type();
    std::vector<int64_t> shape, memoryOrder(rank), checked(rank);
    for (int d : order) shape.push_back(tile.shape()[d]);
    for (int d = 0; d < rank; ++d) {
      memoryOrder[d] = rank - 1 - d;
      checked[d] = d;
    }
    Type copied = Type::tensor(shape, tile.elementType());
    Value make = b.create(OpCode::MakeTensorPtr, {Type::pointer(copied)}, operands, {{"order", memoryOrder}})->result();
    Value loaded =
        b.create(OpCode::Load, {copied}, {make}, {{"boundary_check", checked}, {"padding", std::string("zero")}})
            ->result();
    if (p.transposed)
      loaded = b.create(OpCode::Trans, {tile}, {loaded}, {{"order", std::vector<int64_t>{1, 0}}})->result();
    load->result().replaceAllUsesWith(loaded);
    load->erase();
  }

  /// `s` computed as a scalar of type `ty` (i32 or i64) at b's insertion
  /// point. The iteration number j only appears as j * step = iv - lb.
  Value materialize(OpBuilder& b, Sums& sums, const Sum& s, Type ty) {
    Value iv = sums.iv();
    Operation* loop = sums.loop();
    auto cast = [&](Value v) {
      if (v.type() == ty) return v;
      OpCode code = v.type().bitWidth() < ty.bitWidth() ? OpCode::ExtSI : OpCode::TruncI;
      return b.create(code, {ty}, {v})->result();
    };
    Value sum;
    for (const Term& t0 : s) {
      Term t = t0;
      std::vector<Value> vals;
      if (std::find(t.factors.begin(), t.factors.end(), iv) != t.factors.end()) {
        t.factors.erase(std::find(t.factors.begin(), t.factors.end(), iv));
        Value lb = loop->operand(0), step = loop->operand(2);
        Value span = iv;  // iv - lb = j * step
        if (ir::intConstantOf(lb).value_or(1) != 0)
          span = b.create(OpCode::SubI, {iv.type()}, {iv, lb})->result();
        auto stepConst = ir::intConstantOf(step);
        auto stepAt = std::find(t.factors.begin(), t.factors.end(), step);
        if (stepConst && *stepConst != 0 && t.coeff % *stepConst == 0) {
          t.coeff /= *stepConst;
        } else if (stepAt != t.factors.end()) {
          t.factors.erase(stepAt);
        } else {
          span = b.create(OpCode::DivSI, {iv.type()}, {span, step})->result();
        }
        vals.push_back(cast(span));
      }
      for (Value f : t.factors) vals.push_back(cast(f));
      Value term = t.coeff == 1 && !vals.empty() ? Value() : b.constantInt(ty, t.coeff);
      for (Value v : vals) term = term ? b.create(OpCode::MulI, {ty}, {term, v})->result() : v;
      sum = sum ? b.create(OpCode::AddI, {ty}, {sum, term})->result() : term;
    }
    return sum ? sum : b.constantInt(ty, 0);
  }

  AxisInfoAnalysis axis_;
  Target target_;
  int numWarps_;
  Operation* func_;
  std::string kernel_;
};

}  // namespace

void pointerTilesToTma(Operation* func, const Target& target, int numWarps) {
  if (target.capability != 90 || !target.archSpecific) return;  // as tma-descriptor-loads
  std::vector<Operation*> loops;
  std::map<Operation*, std::vector<Operation*>> loads;
  func->walk([&](Operation* op) {
    if (!op->is(OpCode::Load) || !op->operand(0).type().isTensor() || !op->parentOp() ||
        !op->parentOp()->is(OpCode::For))
      return;
    std::vector<Operation*>& of = loads[op->parentOp()];
    if (of.empty()) loops.push_back(op->parentOp());
    of.push_back(op);
  });
  if (loops.empty()) return;
  Raiser raiser(func, target, numWarps);
  for (Operation* loop : loops) raiser.rewriteLoop(loop, loads[loop]);
}

}  // namespace tessera::gpu
