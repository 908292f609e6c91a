//===- AxisInfo.cpp - Contiguity, divisibility and constancy of values ----===//
//
// A forward dataflow analysis over one tt.func (Triton's AxisInfo; the lattice
// and its meaning are documented in tessera/gpu/AxisInfo.h). Layout
// assignment uses it to order dims and size vectors for coalescing, and the
// PTX emitter to choose vector widths of loads and stores.
//
// How it runs: one pass over the function in program order (SSA, structured
// control flow, so every operand is visited before its use), with a fixpoint
// at each loop: iteration arguments start at their init's info and are met
// with the yielded info until nothing changes. The meet only lowers values
// (gcd of powers of two, a constant kept only when both sides agree), so the
// fixpoint terminates.
//
// Soundness beyond Triton: when a transfer function shrinks contiguity from
// c to c' < c, the operand's divisibility is re-read at the new group size
// ("effective divisibility": the start of every aligned c'-group inside a
// c-group starting at a multiple of D is a multiple of min(D, c')). Triton
// keeps D there, which can claim too much (arange + non-uniform values).
// Where Triton uses a rule that needs a whole dim to be constant
// (isConstantDim), the rules here ask only that the other operand is
// constant over the aligned groups in question (its constancy enters the
// gcd), which is the same on full-dim constants and also covers partial ones.
//
//===----------------------------------------------------------------------===//

#include "tessera/ir/OpViews.h"
#include "tessera/gpu/AxisInfo.h"
#include "tessera/gpu/LinearLayout.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <sstream>

namespace tessera::gpu {

using namespace ir;

namespace {

constexpr int64_t kMax = AxisInfo::kMaxDivisor;

/// The largest power of two dividing v (kMax for 0 and beyond).
int64_t highestPow2Divisor(int64_t v) {
  if (v == 0) return kMax;
  uint64_t u = static_cast<uint64_t>(v);
  u &= ~u + 1;
  return u >= static_cast<uint64_t>(kMax) ? kMax : static_cast<int64_t>(u);
}

int64_t gcd(int64_t a, int64_t b) { return std::gcd(a, b); }
int64_t gcd(int64_t a, int64_t b, int64_t c) { return std::gcd(std::gcd(a, b), c); }
int64_t gcd(int64_t a, int64_t b, int64_t c, int64_t d) { return std::gcd(gcd(a, b, c), d); }
int64_t multiplyDivisor(int64_t a, int64_t b) { return std::min(a * b, kMax); }  // both <= 2^30

int rankOf(Type t) { return std::max<int>(1, static_cast<int>(t.rank())); }

/// Size of dim d of t (1 for scalars), as a power of two that divides it.
int64_t dimSize(Type t, int d) { return t.isTensor() ? highestPow2Divisor(t.shape()[d]) : 1; }

/// Integers and (non-block) pointers, scalar or tensor: the values tracked.
bool isTracked(Type t) {
  if (!t) return false;
  Type e = t.elementType();
  return e.isInteger() || (e.isPointer() && !e.isBlockPointer());
}

/// Bytes per element a pointer (tensor) points to (at least 1).
int64_t pointeeBytes(Type ptrType) {
  Type p = ptrType.elementType().pointeeType();
  return std::max<int64_t>(1, p.bitWidth() / 8);
}

unsigned intWidth(Type t) {
  Type e = t.elementType();
  return e.isInteger() ? e.bitWidth() : 64;
}

/// v as a value of the type: i1 is 0/1, others sign-extended from their width.
int64_t wrap(uint64_t v, unsigned width) {
  if (width >= 64) return static_cast<int64_t>(v);
  if (width == 1) return static_cast<int64_t>(v & 1);
  uint64_t m = (uint64_t{1} << width) - 1;
  v &= m;
  if (v >> (width - 1)) v |= ~m;
  return static_cast<int64_t>(v);
}

uint64_t zext(int64_t v, unsigned width) {
  if (width >= 64) return static_cast<uint64_t>(v);
  return static_cast<uint64_t>(v) & ((uint64_t{1} << width) - 1);
}

/// The divisibility of x along d that holds at the start of every aligned
/// group of c elements (x's own groups are x.contiguity[d] long).
int64_t effDiv(const AxisInfo& x, int d, int64_t c) {
  return x.contiguity[d] > c ? std::min(x.divisibility[d], c) : x.divisibility[d];
}

bool isConst(const AxisInfo& x, int64_t v) { return x.constantValue && *x.constantValue == v; }

/// Meet of two facts about one value (loop joins, branch joins).
AxisInfo meet(const AxisInfo& a, const AxisInfo& b) {
  AxisInfo r;
  for (size_t d = 0; d < a.contiguity.size(); ++d) {
    int64_t c = gcd(a.contiguity[d], b.contiguity[d]);
    r.contiguity.push_back(c);
    r.divisibility.push_back(gcd(effDiv(a, int(d), c), effDiv(b, int(d), c)));
    r.constancy.push_back(gcd(a.constancy[d], b.constancy[d]));
  }
  if (a.constantValue == b.constantValue) r.constantValue = a.constantValue;
  return r;
}

/// A known constant of type t (a scalar or a splat tensor).
AxisInfo constantInfo(int64_t v, Type t) {
  int rank = rankOf(t);
  AxisInfo r = AxisInfo::pessimistic(rank);
  for (int d = 0; d < rank; ++d) {
    r.divisibility[d] = highestPow2Divisor(v);
    r.constancy[d] = dimSize(t, d);
  }
  r.constantValue = v;
  return r;
}

/// A scalar's info seen as the splat to `t` (tensors pass through).
AxisInfo splatTo(const AxisInfo& s, Type scalarOrTensor, Type t) {
  if (scalarOrTensor.isTensor() || !t.isTensor()) return s;
  int rank = rankOf(t);
  AxisInfo r = AxisInfo::pessimistic(rank);
  for (int d = 0; d < rank; ++d) {
    r.divisibility[d] = s.divisibility[0];
    r.constancy[d] = dimSize(t, d);
  }
  r.constantValue = s.constantValue;
  return r;
}

class Analyzer {
 public:
  explicit Analyzer(std::map<ValueImpl*, AxisInfo>& info) : info_(info) {}

  void run(Operation* func) {
    Block& body = funcBody(func);
    for (unsigned i = 0; i < body.numArguments(); ++i) {
      Value arg = body.argument(i);
      if (!isTracked(arg.type())) continue;
      AxisInfo a = AxisInfo::pessimistic(rankOf(arg.type()));
      std::string prefix = "arg" + std::to_string(i) + ".";
      for (const char* key : {"divisibility", "tt.divisibility"})
        if (int64_t v = func->intAttr(prefix + key, 0); v > 0) a.divisibility[0] = highestPow2Divisor(v);
      info_[arg.impl()] = a;
    }
    visitBlock(body);
  }

 private:
  std::map<ValueImpl*, AxisInfo>& info_;

  AxisInfo get(Value v) const {
    auto it = info_.find(v.impl());
    if (it != info_.end()) return it->second;
    return AxisInfo::pessimistic(rankOf(v.type()));
  }
  /// Operand i of op seen at the shape of op's result.
  AxisInfo operandAt(Operation* op, unsigned i) const {
    Value v = op->operand(i);
    return splatTo(get(v), v.type(), op->result(0).type());
  }
  void set(Value v, AxisInfo a) {
    if (isTracked(v.type())) info_[v.impl()] = std::move(a);
  }

  void visitBlock(Block& block) {
    for (Operation* op = block.front(); op; op = op->nextOp()) visitOp(op);
  }

  void visitOp(Operation* op) {
    switch (op->code()) {
      case OpCode::For: return visitFor(op);
      case OpCode::While: return visitWhile(op);
      case OpCode::If: return visitIf(op);
      default: break;
    }
    // Other region ops (reduce, scan): their block arguments are unknown.
    for (unsigned r = 0; r < op->numRegions(); ++r)
      for (unsigned b = 0; b < op->region(r).numBlocks(); ++b) visitBlock(*op->region(r).block(b));
    if (op->numResults() != 1) return;
    Value res = op->result(0);
    if (!isTracked(res.type())) return;
    AxisInfo a = transfer(op);
    assert(static_cast<int>(a.contiguity.size()) == rankOf(res.type()) && "axis info rank mismatch");
    set(res, std::move(a));
  }

  //===--------------------------------------------------------------------===//
  // Control flow
  //===--------------------------------------------------------------------===//

  /// Meets `yielded` into the block arguments args[first..]; true if any changed.
  bool meetInto(Block& block, unsigned first, const std::vector<Value>& yielded) {
    bool changed = false;
    for (size_t k = 0; k < yielded.size(); ++k) {
      Value arg = block.argument(first + static_cast<unsigned>(k));
      if (!isTracked(arg.type())) continue;
      AxisInfo old = get(arg);
      AxisInfo m = meet(old, get(yielded[k]));
      if (m == old) continue;
      set(arg, std::move(m));
      changed = true;
    }
    return changed;
  }

  void visitFor(Operation* op) {
    Block& body = op->region(0).front();
    Value iv = body.argument(0);
    // iv = lb + k * step.
    AxisInfo ivInfo = AxisInfo::pessimistic(1);
    ForOp loop(op);
    ivInfo.divisibility[0] = gcd(get(loop.lowerBound()).divisibility[0], get(loop.step()).divisibility[0]);
    set(iv, ivInfo);
    for (size_t k = 0; k < loop.numIterArgs(); ++k) set(loop.iterArg(k), get(loop.init(k)));
    do visitBlock(body);
    while (meetInto(body, 1, body.terminator()->operands()));
    for (size_t k = 0; k < loop.numIterArgs(); ++k) set(loop.iterResult(k), get(loop.iterArg(k)));
  }

  void visitWhile(Operation* op) {
    Block& before = op->region(0).front();
    Block& after = op->region(1).front();
    for (unsigned k = 0; k < op->numOperands(); ++k) set(before.argument(k), get(op->operand(k)));
    std::vector<Value> forwarded;
    do {
      visitBlock(before);
      forwarded = before.terminator()->operands();
      forwarded.erase(forwarded.begin());  // the condition
      for (size_t k = 0; k < forwarded.size(); ++k) set(after.argument(unsigned(k)), get(forwarded[k]));
      visitBlock(after);
    } while (meetInto(before, 0, after.terminator()->operands()));
    for (unsigned k = 0; k < op->numResults(); ++k) set(op->result(k), get(forwarded[k]));
  }

  void visitIf(Operation* op) {
    visitBlock(op->region(0).front());
    bool hasElse = !op->region(1).empty();
    if (hasElse) visitBlock(op->region(1).front());
    if (!hasElse || op->numResults() == 0) return;
    Operation* thenYield = op->region(0).front().terminator();
    Operation* elseYield = op->region(1).front().terminator();
    for (unsigned k = 0; k < op->numResults(); ++k)
      set(op->result(k), meet(get(thenYield->operand(k)), get(elseYield->operand(k))));
  }

  //===--------------------------------------------------------------------===//
  // Transfer functions of single-result ops
  //===--------------------------------------------------------------------===//

  AxisInfo transfer(Operation* op) {
    Type t = op->result(0).type();
    int rank = rankOf(t);
    switch (op->code()) {
      case OpCode::Constant:
        if (auto* v = std::get_if<int64_t>(op->attr("value"))) return constantInfo(wrap(*v, intWidth(t)), t);
        return AxisInfo::pessimistic(rank);
      case OpCode::MakeRange: {
        AxisInfo r = AxisInfo::pessimistic(1);
        r.contiguity[0] = dimSize(t, 0);
        r.divisibility[0] = highestPow2Divisor(op->intAttr("start"));
        return r;
      }
      case OpCode::Splat: return splatTo(get(op->operand(0)), op->operand(0).type(), t);
      case OpCode::Broadcast: return broadcast(op);
      case OpCode::ExpandDims: return expandDims(op);
      case OpCode::Reshape: return reshape(op);
      case OpCode::Trans: {
        AxisInfo x = get(op->operand(0)), r = x;
        std::vector<int64_t> order = op->intArrayAttr("order");
        for (int d = 0; d < rank; ++d) {
          r.contiguity[d] = x.contiguity[order[d]];
          r.divisibility[d] = x.divisibility[order[d]];
          r.constancy[d] = x.constancy[order[d]];
        }
        return r;
      }
      case OpCode::ConvertLayout:
      case OpCode::ExtSI:
      case OpCode::ExtUI:
      case OpCode::TruncI:
      case OpCode::IntToPtr:
      case OpCode::PtrToInt:
      case OpCode::Bitcast:
      case OpCode::PtrBitcast: return cast(op);
      case OpCode::Hint: return hint(op);
      case OpCode::AddI: return addLike(op, 1, false);
      case OpCode::SubI: return addLike(op, 1, false, /*sub=*/true);
      case OpCode::AddPtr: return addLike(op, pointeeBytes(t), true);
      case OpCode::MulI: return mul(op);
      case OpCode::DivSI:
      case OpCode::DivUI: return div(op);
      case OpCode::RemSI:
      case OpCode::RemUI: return rem(op);
      case OpCode::AndI:
      case OpCode::OrI:
      case OpCode::XOrI: return bitwise(op);
      case OpCode::ShLI:
      case OpCode::ShRSI:
      case OpCode::ShRUI: return shift(op);
      case OpCode::MaxSI:
      case OpCode::MaxUI:
      case OpCode::MinSI:
      case OpCode::MinUI: return minMax(op);
      case OpCode::CmpI: return cmp(op);
      case OpCode::Select: return select(op);
      default: break;
    }
    // A pure elementwise function of values constant over a group is
    // constant over it; nothing else is known.
    AxisInfo r = AxisInfo::pessimistic(rank);
    if (!op->hasTrait(Pure) || !op->hasTrait(Elementwise) || op->numOperands() == 0) return r;
    for (int d = 0; d < rank; ++d) r.constancy[d] = dimSize(t, d);
    for (unsigned i = 0; i < op->numOperands(); ++i) {
      if (!isTracked(op->operand(i).type())) return AxisInfo::pessimistic(rank);
      AxisInfo x = operandAt(op, i);
      for (int d = 0; d < rank; ++d) r.constancy[d] = gcd(r.constancy[d], x.constancy[d]);
    }
    return r;
  }

  AxisInfo broadcast(Operation* op) {
    Type from = op->operand(0).type(), to = op->result(0).type();
    AxisInfo x = get(op->operand(0)), r = x;
    for (int d = 0; d < rankOf(to); ++d) {
      if (!from.isTensor() || from.shape()[d] != 1 || to.shape()[d] == 1) continue;
      r.contiguity[d] = 1;
      r.constancy[d] = dimSize(to, d);
    }
    return r;
  }

  AxisInfo expandDims(Operation* op) {
    AxisInfo x = get(op->operand(0)), r = x;
    int axis = static_cast<int>(op->intAttr("axis"));
    // Along the new dim (size 1) every element is a group: its divisibility
    // must hold for every element, which per-element facts of x give.
    int64_t div = x.constantValue ? highestPow2Divisor(*x.constantValue) : kMax;
    if (!x.constantValue)
      for (size_t d = 0; d < x.contiguity.size(); ++d) div = gcd(div, effDiv(x, int(d), 1));
    r.contiguity.insert(r.contiguity.begin() + axis, 1);
    r.divisibility.insert(r.divisibility.begin() + axis, div);
    r.constancy.insert(r.constancy.begin() + axis, 1);
    return r;
  }

  /// Row-major reshape: dims are kept when only size-1 dims are added or
  /// dropped; otherwise the innermost dim keeps what fits in it and the
  /// others keep only per-element divisibility.
  AxisInfo reshape(Operation* op) {
    Type from = op->operand(0).type(), to = op->result(0).type();
    AxisInfo x = get(op->operand(0));
    if (x.constantValue) return constantInfo(*x.constantValue, to);
    int rank = rankOf(to);
    AxisInfo r = AxisInfo::pessimistic(rank);
    if (op->boolAttr("allow_reorder")) return r;
    auto nonUnit = [](Type t) {
      std::vector<int64_t> dims;
      for (int64_t d = 0; d < t.rank(); ++d)
        if (t.shape()[d] != 1) dims.push_back(d);
      return dims;
    };
    std::vector<int64_t> fromDims = nonUnit(from), toDims = nonUnit(to);
    bool sameNonUnit = fromDims.size() == toDims.size();
    for (size_t k = 0; sameNonUnit && k < fromDims.size(); ++k)
      sameNonUnit = from.shape()[fromDims[k]] == to.shape()[toDims[k]];
    int64_t elemDiv = kMax;
    for (size_t d = 0; d < x.contiguity.size(); ++d) elemDiv = gcd(elemDiv, effDiv(x, int(d), 1));
    for (int d = 0; d < rank; ++d) r.divisibility[d] = elemDiv;
    if (sameNonUnit) {
      for (size_t k = 0; k < toDims.size(); ++k) {
        r.contiguity[toDims[k]] = x.contiguity[fromDims[k]];
        r.divisibility[toDims[k]] = x.divisibility[fromDims[k]];
        r.constancy[toDims[k]] = x.constancy[fromDims[k]];
      }
      return r;
    }
    // The innermost dim of `to` splits (or equals) the innermost of `from`.
    int64_t inner = to.shape().back(), fromInner = from.shape().back();
    if (inner > 0 && fromInner % inner == 0) {
      int fl = static_cast<int>(from.rank()) - 1;
      int64_t n = highestPow2Divisor(inner);
      r.contiguity[rank - 1] = std::min(x.contiguity[fl], n);
      r.divisibility[rank - 1] = effDiv(x, fl, r.contiguity[rank - 1]);
      r.constancy[rank - 1] = std::min(x.constancy[fl], n);
    }
    return r;
  }

  AxisInfo cast(Operation* op) {
    Type from = op->operand(0).type(), to = op->result(0).type();
    if (!isTracked(from)) return AxisInfo::pessimistic(rankOf(to));
    AxisInfo r = get(op->operand(0));
    if (r.constantValue) {
      unsigned fw = intWidth(from), tw = intWidth(to);
      if (op->is(OpCode::ExtUI)) r.constantValue = wrap(zext(*r.constantValue, fw), tw);
      else if (op->is(OpCode::ExtSI) && fw == 1) r.constantValue = -*r.constantValue;  // i1 true is -1
      else r.constantValue = wrap(static_cast<uint64_t>(*r.constantValue), tw);
    }
    // Contiguity counts elements: a pointer cast to another element size
    // moves by a different number of its own elements, and an address as an
    // integer moves by the element size.
    bool keepsContiguity = true;
    if (op->is(OpCode::PtrBitcast)) keepsContiguity = pointeeBytes(from) == pointeeBytes(to);
    if (op->is(OpCode::PtrToInt)) keepsContiguity = pointeeBytes(from) == 1;
    if (op->is(OpCode::IntToPtr)) keepsContiguity = pointeeBytes(to) == 1;
    if (!keepsContiguity) std::fill(r.contiguity.begin(), r.contiguity.end(), 1);
    return r;
  }

  /// tt.hint: the user's facts (powers of two they imply) join ours.
  AxisInfo hint(Operation* op) {
    Type t = op->result(0).type();
    AxisInfo r = get(op->operand(0));
    auto apply = [&](const char* name, std::vector<int64_t>& field, bool capAtDim) {
      if (!op->hasAttr(name)) return;
      std::vector<int64_t> vals = op->intArrayAttr(name);
      for (size_t d = 0; d < field.size() && d < vals.size(); ++d) {
        if (vals[d] <= 0) continue;
        int64_t v = highestPow2Divisor(vals[d]);
        if (capAtDim) v = std::min(v, dimSize(t, int(d)));
        field[d] = std::max(field[d], v);
      }
    };
    apply("divisibility", r.divisibility, false);
    apply("contiguity", r.contiguity, true);
    apply("constancy", r.constancy, true);
    return r;
  }

  /// Folds a binary op on two known constants; nullopt when undefined.
  static std::optional<int64_t> fold(Operation* op, int64_t a, int64_t b) {
    unsigned w = intWidth(op->operand(0).type());
    uint64_t ua = zext(a, w), ub = zext(b, w);
    switch (op->code()) {
      case OpCode::AddI: return wrap(ua + ub, w);
      case OpCode::SubI: return wrap(ua - ub, w);
      case OpCode::MulI: return wrap(ua * ub, w);
      case OpCode::DivSI:
        if (b == 0 || (b == -1 && a == std::numeric_limits<int64_t>::min())) return std::nullopt;
        return wrap(static_cast<uint64_t>(a / b), w);
      case OpCode::RemSI:
        if (b == 0 || b == -1) return b == -1 ? std::optional<int64_t>(0) : std::nullopt;
        return wrap(static_cast<uint64_t>(a % b), w);
      case OpCode::DivUI: return ub == 0 ? std::nullopt : std::optional<int64_t>(wrap(ua / ub, w));
      case OpCode::RemUI: return ub == 0 ? std::nullopt : std::optional<int64_t>(wrap(ua % ub, w));
      case OpCode::AndI: return wrap(ua & ub, w);
      case OpCode::OrI: return wrap(ua | ub, w);
      case OpCode::XOrI: return wrap(ua ^ ub, w);
      case OpCode::ShLI: return ub >= w ? 0 : wrap(ua << ub, w);
      case OpCode::ShRUI: return ub >= w ? 0 : wrap(ua >> ub, w);
      case OpCode::ShRSI: return wrap(static_cast<uint64_t>(a >> std::min<uint64_t>(ub, 63)), w);
      case OpCode::MaxSI: return std::max(a, b);
      case OpCode::MinSI: return std::min(a, b);
      case OpCode::MaxUI: return wrap(std::max(ua, ub), w);
      case OpCode::MinUI: return wrap(std::min(ua, ub), w);
      default: return std::nullopt;
    }
  }

  /// Both operands at the result's shape, and the folded constant if any.
  struct Binary {
    AxisInfo lhs, rhs;
    std::optional<AxisInfo> folded;
  };
  Binary binary(Operation* op) {
    Binary b{operandAt(op, 0), operandAt(op, 1), std::nullopt};
    if (b.lhs.constantValue && b.rhs.constantValue && !op->is(OpCode::AddPtr))
      if (auto v = fold(op, *b.lhs.constantValue, *b.rhs.constantValue))
        b.folded = constantInfo(*v, op->result(0).type());
    return b;
  }

  /// addi / subi / addptr (offsets scaled by `scale` bytes).
  AxisInfo addLike(Operation* op, int64_t scale, bool ptr, bool sub = false) {
    Binary b = binary(op);
    if (b.folded) return *b.folded;
    const AxisInfo &l = b.lhs, &r = b.rhs;
    AxisInfo res = AxisInfo::pessimistic(static_cast<int>(l.contiguity.size()));
    for (size_t i = 0; i < l.contiguity.size(); ++i) {
      int d = int(i);
      // Contiguous + constant over the group is contiguous (x - contiguous
      // decreases, so subi keeps only the lhs case).
      int64_t c = gcd(l.contiguity[d], r.constancy[d]);
      if (!sub) c = std::max(c, gcd(l.constancy[d], r.contiguity[d]));
      res.contiguity[d] = c;
      int64_t rdiv = effDiv(r, d, c);
      if (ptr) rdiv = multiplyDivisor(rdiv, scale);
      res.divisibility[d] = gcd(effDiv(l, d, c), rdiv);
      res.constancy[d] = gcd(l.constancy[d], r.constancy[d]);
    }
    if (ptr && l.constantValue && r.constantValue)
      res.constantValue = static_cast<int64_t>(static_cast<uint64_t>(*l.constantValue) +
                                               static_cast<uint64_t>(*r.constantValue) * scale);
    return res;
  }

  AxisInfo mul(Operation* op) {
    Binary b = binary(op);
    if (b.folded) return *b.folded;
    const AxisInfo &l = b.lhs, &r = b.rhs;
    if (isConst(l, 0) || isConst(r, 0)) return constantInfo(0, op->result(0).type());
    AxisInfo res = AxisInfo::pessimistic(static_cast<int>(l.contiguity.size()));
    for (size_t i = 0; i < l.contiguity.size(); ++i) {
      int d = int(i);
      int64_t c = std::max(isConst(r, 1) ? l.contiguity[d] : 1, isConst(l, 1) ? r.contiguity[d] : 1);
      res.contiguity[d] = c;
      res.divisibility[d] = multiplyDivisor(effDiv(l, d, c), effDiv(r, d, c));
      res.constancy[d] = gcd(l.constancy[d], r.constancy[d]);
    }
    return res;
  }

  AxisInfo div(Operation* op) {
    Binary b = binary(op);
    if (b.folded) return *b.folded;
    const AxisInfo &l = b.lhs, &r = b.rhs;
    if (isConst(r, 1)) return l;
    if (isConst(l, 0)) return l;
    AxisInfo res = AxisInfo::pessimistic(static_cast<int>(l.contiguity.size()));
    std::optional<int64_t> pow2;  // a positive power-of-two divisor
    if (r.constantValue && *r.constantValue > 0 && highestPow2Divisor(*r.constantValue) == *r.constantValue)
      pow2 = *r.constantValue;
    for (size_t i = 0; i < l.contiguity.size(); ++i) {
      int d = int(i);
      // Aligned runs of g consecutive values (starting at a multiple of g)
      // divided by a multiple of g all give one quotient (Triton's rule;
      // like Triton it assumes non-negative dividends for divsi).
      int64_t k = gcd(l.constancy[d], r.constancy[d]);
      if (l.contiguity[d] > 1)
        k = std::max(k, gcd(l.contiguity[d], l.divisibility[d], effDiv(r, d, 1), r.constancy[d]));
      res.constancy[d] = k;
      // An exact division by 2^j of a multiple of D is a multiple of D / 2^j.
      if (pow2 && l.contiguity[d] == 1 && l.divisibility[d] >= *pow2)
        res.divisibility[d] = std::max<int64_t>(1, l.divisibility[d] / *pow2);
    }
    return res;
  }

  AxisInfo rem(Operation* op) {
    Binary b = binary(op);
    if (b.folded) return *b.folded;
    const AxisInfo &l = b.lhs, &r = b.rhs;
    if (isConst(r, 1)) return constantInfo(0, op->result(0).type());
    AxisInfo res = AxisInfo::pessimistic(static_cast<int>(l.contiguity.size()));
    for (size_t i = 0; i < l.contiguity.size(); ++i) {
      int d = int(i);
      // An aligned run of g consecutive values modulo a multiple of g stays
      // consecutive (Triton's rule; non-negative dividends assumed).
      int64_t c = 1;
      if (l.contiguity[d] > 1) c = gcd(l.contiguity[d], l.divisibility[d], effDiv(r, d, 1), r.constancy[d]);
      res.contiguity[d] = c;
      res.divisibility[d] = gcd(effDiv(l, d, c), effDiv(r, d, c));
      res.constancy[d] = gcd(l.constancy[d], r.constancy[d]);
    }
    return res;
  }

  /// and/or/xor: per-element divisibility, constancy; x & (2^j - 1) is
  /// x mod 2^j (two's complement), so it keeps contiguity like remui.
  AxisInfo bitwise(Operation* op) {
    Binary b = binary(op);
    if (b.folded) return *b.folded;
    AxisInfo l = b.lhs, r = b.rhs;
    bool isAnd = op->is(OpCode::AndI);
    if (isAnd && l.constantValue && !r.constantValue) std::swap(l, r);
    std::optional<int64_t> modulus;  // and with 2^j - 1
    if (isAnd && r.constantValue && *r.constantValue >= 0 && *r.constantValue < kMax &&
        highestPow2Divisor(*r.constantValue + 1) == *r.constantValue + 1)
      modulus = *r.constantValue + 1;
    AxisInfo res = AxisInfo::pessimistic(static_cast<int>(l.contiguity.size()));
    for (size_t i = 0; i < l.contiguity.size(); ++i) {
      int d = int(i);
      res.constancy[d] = gcd(l.constancy[d], r.constancy[d]);
      if (modulus && l.contiguity[d] > 1) {
        int64_t c = gcd(l.contiguity[d], l.divisibility[d], *modulus, r.constancy[d]);
        res.contiguity[d] = c;
        res.divisibility[d] = gcd(effDiv(l, d, c), *modulus);
        continue;
      }
      int64_t ld = effDiv(l, d, 1), rd = effDiv(r, d, 1);
      // x & y keeps the zero low bits of either; x | y, x ^ y of both.
      res.divisibility[d] = isAnd ? std::max(ld, rd) : std::min(ld, rd);
    }
    return res;
  }

  AxisInfo shift(Operation* op) {
    Binary b = binary(op);
    if (b.folded) return *b.folded;
    const AxisInfo &l = b.lhs, &r = b.rhs;
    int rank = static_cast<int>(l.contiguity.size());
    AxisInfo res = AxisInfo::pessimistic(rank);
    for (int d = 0; d < rank; ++d) res.constancy[d] = gcd(l.constancy[d], r.constancy[d]);
    unsigned w = intWidth(op->result(0).type());
    if (!r.constantValue || *r.constantValue < 0 || *r.constantValue >= int64_t(w)) return res;
    int64_t a = *r.constantValue;
    if (a == 0) return l;
    int64_t pow = a >= 30 ? kMax : int64_t{1} << a;
    for (int d = 0; d < rank; ++d) {
      int64_t ld = effDiv(l, d, 1);
      if (op->is(OpCode::ShLI)) {
        res.divisibility[d] = multiplyDivisor(ld, pow);
        continue;
      }
      // x >> a is floor(x / 2^a): constant over aligned runs of 2^a.
      res.divisibility[d] = std::max<int64_t>(1, ld / pow);
      if (l.contiguity[d] > 1) res.constancy[d] = std::max(res.constancy[d], gcd(l.contiguity[d], l.divisibility[d], pow));
    }
    return res;
  }

  AxisInfo minMax(Operation* op) {
    Binary b = binary(op);
    if (b.folded) return *b.folded;
    const AxisInfo &l = b.lhs, &r = b.rhs;
    AxisInfo res = AxisInfo::pessimistic(static_cast<int>(l.contiguity.size()));
    for (size_t i = 0; i < l.contiguity.size(); ++i) {
      int d = int(i);
      res.divisibility[d] = gcd(effDiv(l, d, 1), effDiv(r, d, 1));
      res.constancy[d] = gcd(l.constancy[d], r.constancy[d]);
    }
    return res;
  }

  /// cmpi: a run of g consecutive values starting at a multiple of g,
  /// compared (lt / ge) with a multiple of g, gives one answer (Triton's
  /// rule); gt / le with the contiguous side on the right likewise.
  AxisInfo cmp(Operation* op) {
    Type t = op->result(0).type();
    AxisInfo l = splatTo(get(op->operand(0)), op->operand(0).type(), t);
    AxisInfo r = splatTo(get(op->operand(1)), op->operand(1).type(), t);
    std::string pred = op->strAttr("predicate");
    if (l.constantValue && r.constantValue) {
      unsigned w = intWidth(op->operand(0).type());
      int64_t a = *l.constantValue, c = *r.constantValue;
      uint64_t ua = zext(a, w), uc = zext(c, w);
      bool v = pred == "eq"    ? a == c
               : pred == "ne"  ? a != c
               : pred == "slt" ? a < c
               : pred == "sle" ? a <= c
               : pred == "sgt" ? a > c
               : pred == "sge" ? a >= c
               : pred == "ult" ? ua < uc
               : pred == "ule" ? ua <= uc
               : pred == "ugt" ? ua > uc
                               : ua >= uc;
      return constantInfo(v ? 1 : 0, t);
    }
    bool ltGe = pred == "slt" || pred == "ult" || pred == "sge" || pred == "uge";
    bool gtLe = pred == "sgt" || pred == "ugt" || pred == "sle" || pred == "ule";
    AxisInfo res = AxisInfo::pessimistic(rankOf(t));
    if (!t.isTensor()) return res;
    for (int d = 0; d < rankOf(t); ++d) {
      int64_t k = gcd(l.constancy[d], r.constancy[d]);
      if (ltGe && l.contiguity[d] > 1)
        k = std::max(k, gcd(l.contiguity[d], l.divisibility[d], effDiv(r, d, 1), r.constancy[d]));
      if (gtLe && r.contiguity[d] > 1)
        k = std::max(k, gcd(r.contiguity[d], r.divisibility[d], effDiv(l, d, 1), l.constancy[d]));
      res.constancy[d] = k;
    }
    return res;
  }

  AxisInfo select(Operation* op) {
    Type t = op->result(0).type();
    AxisInfo cond = get(op->operand(0));
    AxisInfo l = operandAt(op, 1), r = operandAt(op, 2);
    if (cond.constantValue) return *cond.constantValue ? l : r;
    bool scalarCond = !op->operand(0).type().isTensor();
    AxisInfo res = AxisInfo::pessimistic(rankOf(t));
    for (int d = 0; d < rankOf(t); ++d) {
      int64_t groups = scalarCond ? kMax : cond.constancy[d];
      int64_t c = gcd(l.contiguity[d], r.contiguity[d], groups);
      res.contiguity[d] = c;
      res.divisibility[d] = gcd(effDiv(l, d, c), effDiv(r, d, c));
      res.constancy[d] = gcd(l.constancy[d], r.constancy[d], groups);
    }
    if (l.constantValue && l.constantValue == r.constantValue) res.constantValue = l.constantValue;
    return res;
  }
};

}  // namespace

//===----------------------------------------------------------------------===//
// AxisInfo
//===----------------------------------------------------------------------===//

AxisInfo AxisInfo::pessimistic(int rank) {
  AxisInfo a;
  a.contiguity.assign(rank, 1);
  a.divisibility.assign(rank, 1);
  a.constancy.assign(rank, 1);
  return a;
}

std::string AxisInfo::str() const {
  auto list = [](const std::vector<int64_t>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
  };
  return "contiguity = " + list(contiguity) + ", divisibility = " + list(divisibility) +
         ", constancy = " + list(constancy);
}

//===----------------------------------------------------------------------===//
// AxisInfoAnalysis
//===----------------------------------------------------------------------===//

AxisInfoAnalysis::AxisInfoAnalysis(ir::Operation* func) : pessimisticScalar_(AxisInfo::pessimistic(1)) {
  assert(func && func->is(OpCode::Func) && "AxisInfoAnalysis runs on a tt.func");
  if (func->numRegions() == 0 || func->region(0).empty()) return;
  Analyzer(info_).run(func);
}

const AxisInfo& AxisInfoAnalysis::get(ir::Value v) const {
  if (!v) return pessimisticScalar_;
  auto it = info_.find(v.impl());
  if (it != info_.end()) return it->second;
  int rank = rankOf(v.type());
  auto [pit, inserted] = pessimisticByRank_.try_emplace(rank, AxisInfo::pessimistic(rank));
  return pit->second;
}

int64_t AxisInfoAnalysis::vectorElements(ir::Value ptr, int dim) const {
  if (!ptr || !ptr.type().isTensor()) return 1;
  const AxisInfo& a = get(ptr);
  int64_t bytes = pointeeBytes(ptr.type());
  return std::max<int64_t>(1, std::min(a.contiguity[dim], a.divisibility[dim] / bytes));
}

int64_t AxisInfoAnalysis::maskConstancy(ir::Value mask, int dim) const {
  if (!mask || !mask.type().isTensor()) return AxisInfo::kMaxDivisor;  // uniform over the tensor
  return std::max<int64_t>(1, get(mask).constancy[dim]);
}


AccessVector accessVector(const AxisInfoAnalysis& axis, Value ptr, Value mask, const LinearLayout& ll,
                          int64_t elemBytes) {
  const AxisInfo& info = axis.get(ptr);
  int rank = ll.rank();
  int dim = rank - 1;
  for (int d = rank - 1; d >= 0; --d)
    if (info.contiguity[d] > info.contiguity[dim]) dim = d;
  int64_t vec = std::min<int64_t>(ll.contiguousRegisters(dim), axis.vectorElements(ptr, dim));
  vec = std::min<int64_t>(vec, std::max<int64_t>(1, 16 / elemBytes));
  if (mask) vec = std::min<int64_t>(vec, axis.maskConstancy(mask, dim));
  // Every other basis must move along `dim` by whole vectors.
  auto aligned = [&](int64_t v) {
    for (int d = 0; d < kNumHwDims; ++d) {
      const auto& bases = ll.bases(static_cast<HwDim>(d));
      for (size_t b = 0; b < bases.size(); ++b) {
        if (d == 0 && (int64_t{1} << b) < v) continue;
        if (bases[b][dim] % v != 0) return false;
      }
    }
    return true;
  };
  vec = std::max<int64_t>(vec, 1);
  while (vec > 1 && !aligned(vec)) vec /= 2;
  // Sub-word groups (2 x i8, ...) are not worth packing: one element each.
  if (vec * elemBytes < 4) vec = 1;
  return {dim, vec};
}

}  // namespace tessera::gpu
