//===- HostTensorMaps.cpp - Descriptors the launch encodes ----------------===//
//
// See HostTensorMaps.h. A kernel argument here is a block argument of the
// function's entry block; its index is the PTX parameter's (the emitter
// packs the arguments first, in order) and its divisibility the
// function's "argN.divisibility" attribute.
//
//===----------------------------------------------------------------------===//

#include "gpu/HostTensorMaps.h"

#include <algorithm>
#include <climits>

#include "gpu/PointerArguments.h"
#include "tessera/ir/Matchers.h"
#include "tessera/ir/OpViews.h"

namespace tessera::gpu {

using namespace ir;

namespace {

constexpr int64_t kLimit = int64_t{1} << 40;  // bounds stay far from overflow

/// x, or none when it is too large to add or multiply safely.
std::optional<int64_t> small(int64_t x) {
  if (x > kLimit || x < -kLimit) return std::nullopt;
  return x;
}

/// The lower bound a tl.assume(v > c) or (v >= c) at the kernel's top
/// level (one that always runs) gives the argument v.
std::optional<int64_t> assumedLowerBound(Value v) {
  std::optional<int64_t> bound;
  for (OpOperand* use : v.uses()) {
    Operation* cmp = use->owner;
    if (!cmp->is(OpCode::CmpI) || use->index != 0) continue;
    std::optional<int64_t> c = ir::intConstantOf(cmp->operand(1));
    std::string pred = cmp->strAttr("predicate");
    if (!c || (pred != "sgt" && pred != "sge")) continue;
    bool assumed = false;
    for (OpOperand* u : cmp->result().uses()) {
      Operation* parent = u->owner->parentOp();
      assumed = assumed || (u->owner->is(OpCode::Assume) && parent && parent->is(OpCode::Func));
    }
    if (assumed && small(*c)) bound = std::max(bound.value_or(INT64_MIN), pred == "sgt" ? *c + 1 : *c);
  }
  return bound;
}

/// A lower bound of the integer scalar v (see provenNonNegative), or none.
std::optional<int64_t> lowerBound(Value v, int depth) {
  if (std::optional<int64_t> c = ir::intConstantOf(v)) return small(*c);
  if (depth > 16) return std::nullopt;
  Operation* def = v.definingOp();
  if (!def) {
    if (kernelArgumentIndex(v) >= 0) return assumedLowerBound(v);
    // An enclosing loop's induction variable counts up from lb by step.
    Operation* owner = v.ownerBlock()->parentOp();
    if (!owner || !owner->is(OpCode::For) || v.index() != 0) return std::nullopt;
    std::optional<int64_t> step = lowerBound(owner->operand(2), depth + 1);
    if (!step || *step < 0) return std::nullopt;
    return lowerBound(owner->operand(0), depth + 1);
  }
  auto lb = [&](unsigned i) { return lowerBound(def->operand(i), depth + 1); };
  auto nonNeg = [](std::optional<int64_t> x) { return x && *x >= 0; };
  // Sign-extending an i1 true gives -1; a 1-bit AND is a boolean.
  bool wide = def->numOperands() > 0 && def->operand(0).type().bitWidth() > 1;
  switch (def->code()) {
    case OpCode::GetProgramId: case OpCode::GetNumPrograms: case OpCode::ExtUI:
      return 0;
    case OpCode::ExtSI: case OpCode::Hint:
      return wide ? lb(0) : std::nullopt;
    case OpCode::AddI: {
      std::optional<int64_t> x = lb(0), y = lb(1);
      if (!x || !y) return std::nullopt;
      return small(*x + *y);
    }
    case OpCode::SubI: {  // minus a constant
      std::optional<int64_t> x = lb(0), c = ir::intConstantOf(def->operand(1));
      if (!x || !c) return std::nullopt;
      return small(*x - *c);
    }
    case OpCode::MulI: {
      std::optional<int64_t> x = lb(0), y = lb(1);
      int64_t product;
      if (!nonNeg(x) || !nonNeg(y) || __builtin_mul_overflow(*x, *y, &product)) return std::nullopt;
      return small(product);
    }
    case OpCode::DivSI: case OpCode::RemSI: {
      // A non-negative dividend (a zero divisor is undefined anyway).
      std::optional<int64_t> x = lb(0), y = def->is(OpCode::DivSI) ? lb(1) : std::optional<int64_t>(0);
      if (!nonNeg(x) || !nonNeg(y)) return std::nullopt;
      return 0;
    }
    case OpCode::MinSI: {
      std::optional<int64_t> x = lb(0), y = lb(1);
      if (!x || !y) return std::nullopt;
      return std::min(*x, *y);
    }
    case OpCode::MaxSI: {
      std::optional<int64_t> x = lb(0), y = lb(1);
      if (!x && !y) return std::nullopt;
      return std::max(x.value_or(INT64_MIN), y.value_or(INT64_MIN));
    }
    case OpCode::Select: {  // either value
      std::optional<int64_t> x = lb(1), y = lb(2);
      if (!x || !y) return std::nullopt;
      return std::min(*x, *y);
    }
    case OpCode::AndI:
      return wide && (nonNeg(lb(0)) || nonNeg(lb(1))) ? std::optional<int64_t>(0) : std::nullopt;
    default:
      return std::nullopt;
  }
}

/// What the launch computes `v` from: a kernel argument, possibly sign- or
/// zero-extended, or an integer constant.
std::optional<HostScalar> hostScalar(Value v) {
  HostScalar s;
  if (std::optional<int64_t> c = ir::intConstantOf(v); c && v.type().isInteger()) {
    s.constant = *c;
    return s;
  }
  Operation* def = v.definingOp();
  if (def && (def->is(OpCode::ExtSI) || def->is(OpCode::ExtUI))) {
    s.zeroExtend = def->is(OpCode::ExtUI);
    v = def->operand(0);
  }
  s.param = kernelArgumentIndex(v);
  if (s.param < 0) return std::nullopt;
  return s;
}

/// The factors of a product (arith.muli trees).
void factors(Value v, std::vector<Value>& out) {
  Operation* d = v.definingOp();
  if (d && d->is(OpCode::MulI)) {
    factors(d->operand(0), out);
    factors(d->operand(1), out);
    return;
  }
  out.push_back(v);
}

/// A base `arg + c * stride` (see hostTensorMapOf).
struct OuterBase {
  HostScalar base, stride;
  Value coordinate;  ///< c
};

std::optional<OuterBase> outerBase(Operation* func, Value v, int64_t elementBytes) {
  Operation* add = v.definingOp();
  if (!add || !add->is(OpCode::AddPtr) || add->operand(1).type().isTensor()) return std::nullopt;
  OuterBase ob;
  ob.base.param = kernelArgumentIndex(add->operand(0));
  if (ob.base.param < 0) return std::nullopt;
  std::vector<Value> fs;
  factors(add->operand(1), fs);
  int64_t constant = 1;
  for (Value f : fs) {
    if (std::optional<int64_t> c = ir::intConstantOf(f)) {
      constant *= *c;
      continue;
    }
    if (std::optional<HostScalar> s = hostScalar(f); s && ob.stride.param < 0) {
      ob.stride = *s;
      continue;
    }
    Operation* d = f.definingOp();
    Value inner = d && (d->is(OpCode::ExtSI) || d->is(OpCode::ExtUI)) ? d->operand(0) : f;
    if (ob.coordinate || !inner.type().isInteger(32) || !provenNonNegative(inner)) return std::nullopt;
    ob.coordinate = inner;
  }
  if (!ob.coordinate || constant <= 0) return std::nullopt;
  int64_t divisibility = constant * elementBytes;
  if (ob.stride.param >= 0) {
    ob.stride.scale = constant;
    std::string name = "arg" + std::to_string(ob.stride.param) + ".divisibility";
    divisibility *= func->hasAttr(name) ? func->intAttr(name) : 1;
  } else {
    ob.stride.constant = constant;
  }
  if (divisibility % 16 != 0) return std::nullopt;
  return ob;
}

/// CUtensorMapDataType of a TMA element (integers as unsigned of their
/// width, as the copy moves bits; floats keep their type so that NaN fill
/// knows them).
int driverDataType(Type elem) {
  switch (elem.bitWidth()) {
    case 8: return 0;                                                        // UINT8
    case 16: return elem == Type::bf16() ? 9 : elem == Type::f16() ? 6 : 1;  // BFLOAT16 / FLOAT16 / UINT16
    case 32: return elem == Type::f32() ? 7 : 2;                             // FLOAT32 / UINT32
    default: return elem == Type::f64() ? 8 : 4;                             // FLOAT64 / UINT64
  }
}

}  // namespace

Operation* enclosingFunc(Operation* op) {
  while (op && !op->is(OpCode::Func)) op = op->parentOp();
  return op;
}

int kernelArgumentIndex(Value v) {
  if (v.definingOp()) return -1;
  Block* block = v.parentBlock();
  Operation* owner = block ? block->parentOp() : nullptr;
  return owner && owner->is(OpCode::Func) ? static_cast<int>(v.index()) : -1;
}

int pointerArgumentIndex(Value ptr) {
  Value arg = pointerArgument(ptr);
  return arg ? kernelArgumentIndex(arg) : -1;
}

bool provenNonNegative(Value v) {
  std::optional<int64_t> bound = lowerBound(v, 0);
  return bound && *bound >= 0;
}

std::optional<HostTensorMap> hostTensorMapOf(Operation* create, Value& outer) {
  Operation* func = enclosingFunc(create);
  if (!func) return std::nullopt;
  HostTensorMap map;
  map.box = create->intArrayAttr("box");
  size_t rank = map.box.size();
  Type elem = create->operand(0).type().pointeeType();
  map.elementBytes = static_cast<int>(elem.bitWidth() / 8);
  map.dataType = driverDataType(elem);
  map.swizzle = static_cast<int>(create->intAttr("swizzle"));
  map.nanFill = create->strAttr("padding") == "nan";
  std::optional<HostScalar> s = hostScalar(create->operand(0));
  std::optional<OuterBase> ob;
  if (!s && (rank > 4 || !(ob = outerBase(func, create->operand(0), map.elementBytes)))) return std::nullopt;
  map.base = s ? *s : ob->base;
  TensormapCreateOp made(create);
  for (size_t i = 0; i < 2 * rank; ++i) {
    if (!(s = hostScalar(i < rank ? made.shape(i) : made.stride(i - rank)))) return std::nullopt;
    (i < rank ? map.shape : map.strides).push_back(*s);
  }
  if (ob) {  // an outermost dim as long as a non-negative i32 can be
    map.shape.insert(map.shape.begin(), HostScalar{-1, 0x7fffffff});
    map.strides.insert(map.strides.begin(), ob->stride);
    map.box.insert(map.box.begin(), 1);
    outer = ob->coordinate;
  }
  return map;
}

}  // namespace tessera::gpu
