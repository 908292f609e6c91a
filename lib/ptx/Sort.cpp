//===- Sort.cpp - tt.sort: a bitonic network in shared memory -------------===//
//
// tt.sort sorts every row (the last dim) of a tensor, ascending or
// `descending`, with the interpreter's semantics (lib/interpreter/
// TensorOps.cpp): a STABLE sort by value where floats compare as numbers
// (-0.0 == +0.0, NaN equal to +inf, so NaNs go last ascending and first
// descending, among the infinities in their original order) and integers as
// signed numbers. Shapes are powers of two, so every row has N = 2^n
// elements and a bitonic network sorts it.
//
// Phase 1 of 3: every thread writes its elements to shared memory at their
// row-major offsets (region V) and, for each element, a record whose
// unsigned order is the sort order (region K):
//   keys of <= 32 bits: one u64 (orderKey32 << 32 | column), where
//     orderKey32 maps the value to an unsigned integer with the wanted order
//     (floats: NaN -> +inf, -0 -> +0, then the sign-magnitude flip;
//     integers: sign bit flipped) and is complemented when descending;
//   64-bit keys: the u64 order key and a separate u32 column.
// Equal values differ in their column, so records are distinct and the
// unstable network produces the stable order.
// Phase 2: all threads run the network together: for each stage (k, j),
// thread t compare-exchanges the pairs t, t + T, ... (T threads) of all
// rows, a barrier between stages. Loops are emitted as loops (the stage
// count grows as log^2 N).
// Phase 3: every thread reads the records at its result coordinates and
// loads the element of the original column from region V.
//
//===----------------------------------------------------------------------===//

#include <cstdio>

#include "ptx/Emitter.h"

namespace tessera::ptx {

using namespace ir;
using gpu::LinearLayout;

namespace {

int log2i(int64_t v) {
  int l = 0;
  while ((int64_t{1} << l) < v) ++l;
  return l;
}

class SortEmitter {
 public:
  SortEmitter(Emitter& e, Operation* op) : e_(e), op_(op) {}

  void run();

 private:
  std::string r32() { return e_.reg(RegClass::B32); }
  std::string r64() { return e_.reg(RegClass::B64); }
  std::string p() { return e_.reg(RegClass::Pred); }
  std::string op3(const std::string& opcode, const std::string& a, const std::string& b, bool wide = false) {
    std::string d = wide ? r64() : r32();
    e_.ins(opcode + " " + d + ", " + a + ", " + b);
    return d;
  }

  /// Row-major element offset of register i's element for this thread.
  std::string flatOffset(const LinearLayout& ll, int64_t i);
  std::string threadFlat(const LinearLayout& ll);
  std::string orderKey(const std::string& v);
  void storeElement(const std::string& v, const std::string& flat);
  void network();
  std::string loadResult(const std::string& flat);

  Emitter& e_;
  Operation* op_;
  Type elem_;
  bool wide_ = false;      ///< 64-bit keys: separate key and column arrays
  bool descending_ = false;
  int64_t numel_ = 0, n_ = 0;  ///< elements, row length
  std::vector<int64_t> strides_;
  int valueBytes_ = 0;
  int64_t keysAt_ = 0, colsAt_ = 0;  ///< byte offsets of region K (and the columns)
  std::map<const LinearLayout*, std::string> threadFlat_;
};

std::string SortEmitter::threadFlat(const LinearLayout& ll) {
  auto it = threadFlat_.find(&ll);
  if (it != threadFlat_.end()) return it->second;
  // Coordinates of a power-of-two shape occupy disjoint bits of the
  // row-major offset: the thread part is an OR of shifted coordinates.
  std::string acc = e_.constInt(Type::i32(), 0);
  for (size_t d = 0; d < strides_.size(); ++d) {
    std::string c = e_.threadCoord(ll, static_cast<int>(d));
    acc = op3("or.b32", acc, op3("shl.b32", c, std::to_string(log2i(strides_[d]))));
  }
  int64_t bits = 0;
  for (HwDim hw : {HwDim::Lane, HwDim::Warp})
    for (const auto& basis : ll.bases(hw))
      for (size_t d = 0; d < basis.size(); ++d) bits |= basis[d] * strides_[d];
  e_.noteBits(acc, bits);
  threadFlat_[&ll] = acc;
  return acc;
}

std::string SortEmitter::flatOffset(const LinearLayout& ll, int64_t i) {
  std::vector<int64_t> c = ll.apply(HwDim::Register, i);
  int64_t off = 0;
  for (size_t d = 0; d < c.size(); ++d) off += c[d] * strides_[d];
  return e_.xorConst(threadFlat(ll), off);
}

/// An unsigned integer (b32, or b64 for 64-bit keys) whose order is the
/// sort order of the values (ascending; complemented when descending).
std::string SortEmitter::orderKey(const std::string& v) {
  std::string key;
  if (elem_.isInteger(1)) {
    key = r32();
    e_.ins("selp.b32 " + key + ", 1, 0, " + v);
  } else if (elem_.isInteger() || elem_.isPointer()) {
    std::string wideV = v;
    if (elem_.bitWidth() <= 16) {
      wideV = r32();
      e_.ins("cvt.s32.s16 " + wideV + ", " + v);
    }
    key = wide_ ? op3("xor.b64", wideV, "0x8000000000000000", true) : op3("xor.b32", wideV, "0x80000000");
  } else {
    // Floats: as f32 bits (exact for every narrower float), or f64 bits.
    std::string u = elem_.kind() == TypeKind::F64 || elem_.kind() == TypeKind::F32
                        ? v
                        : emitCast(e_, nullptr, v, elem_, Type::f32());
    std::string w = wide_ ? "64" : "32";
    std::string nan = p(), zero = p();
    e_.ins("setp.nan.f" + w + " " + nan + ", " + u + ", " + u);
    std::string inf = wide_ ? "0x7FF0000000000000" : "0x7F800000";
    std::string noNan = wide_ ? r64() : r32();
    e_.ins("selp.b" + w + " " + noNan + ", " + inf + ", " + u + ", " + nan);
    std::string mag = op3("and.b" + w, noNan, wide_ ? "0x7FFFFFFFFFFFFFFF" : "0x7FFFFFFF", wide_);
    e_.ins("setp.eq.b" + w + " " + zero + ", " + mag + ", 0");
    std::string x = wide_ ? r64() : r32();
    e_.ins("selp.b" + w + " " + x + ", 0, " + noNan + ", " + zero);
    // Negative: flip every bit; non-negative: flip the sign bit.
    std::string sign = op3("shr.s" + w, x, wide_ ? "63" : "31", wide_);
    std::string mask = op3("or.b" + w, sign, wide_ ? "0x8000000000000000" : "0x80000000", wide_);
    key = op3("xor.b" + w, x, mask, wide_);
  }
  if (!descending_) return key;
  std::string d = wide_ ? r64() : r32();
  e_.ins(std::string("not.b") + (wide_ ? "64 " : "32 ") + d + ", " + key);
  return d;
}

void SortEmitter::storeElement(const std::string& v, const std::string& flat) {
  std::string base = e_.smemBase();
  std::string value = v;
  if (elem_.isInteger(1)) {
    value = e_.reg(RegClass::B16);
    e_.ins("selp.b16 " + value + ", 1, 0, " + v);
  }
  std::string va = r32();
  e_.ins("mad.lo.u32 " + va + ", " + flat + ", " + std::to_string(valueBytes_) + ", " + base);
  e_.ins("st.shared.b" + std::to_string(valueBytes_ * 8) + " [" + va + "], " + value);
  std::string key = orderKey(v);
  std::string col = op3("and.b32", flat, std::to_string(n_ - 1));
  std::string ka = r32();
  e_.ins("mad.lo.u32 " + ka + ", " + flat + ", 8, " + base);
  if (!wide_) {
    std::string rec = r64();
    e_.ins("mov.b64 " + rec + ", {" + col + ", " + key + "}");
    e_.ins("st.shared.b64 [" + ka + "+" + std::to_string(keysAt_) + "], " + rec);
    return;
  }
  e_.ins("st.shared.b64 [" + ka + "+" + std::to_string(keysAt_) + "], " + key);
  std::string ca = r32();
  e_.ins("mad.lo.u32 " + ca + ", " + flat + ", 4, " + base);
  e_.ins("st.shared.b32 [" + ca + "+" + std::to_string(colsAt_) + "], " + col);
}

void SortEmitter::network() {
  int threads = 32 * e_.options().numWarps;
  int64_t pairs = numel_ / 2;
  std::string base = e_.smemBase();
  std::string tid = e_.threadId();
  // Loop registers (updated in place).
  std::string k = r32(), j = r32(), pair = r32(), jm1 = r32(), notJm1 = r32();
  std::string lk = e_.newLabel("sort_k"), lj = e_.newLabel("sort_j"), lp = e_.newLabel("sort_pair"),
              lend = e_.newLabel("sort_stage_end");
  e_.ins("mov.u32 " + k + ", 2");
  e_.raw(lk + ":");
  e_.ins("shr.u32 " + j + ", " + k + ", 1");
  e_.raw(lj + ":");
  e_.ins("sub.u32 " + jm1 + ", " + j + ", 1");
  e_.ins("not.b32 " + notJm1 + ", " + jm1);
  e_.ins("mov.u32 " + pair + ", " + tid);
  e_.raw(lp + ":");
  std::string done = p();
  e_.ins("setp.ge.u32 " + done + ", " + pair + ", " + std::to_string(pairs));
  e_.ins("@" + done + " bra " + lend);
  // Pair -> elements i < l = i + j: insert a 0 bit at j's position. Rows
  // are aligned to N > j, so this indexes all rows at once.
  std::string i = op3("or.b32", op3("shl.b32", op3("and.b32", pair, notJm1), "1"), op3("and.b32", pair, jm1));
  std::string l = op3("add.u32", i, j);
  // Sort direction of this block of k: descending where (i & k) within the row.
  std::string dirBit = op3("and.b32", op3("and.b32", i, k), std::to_string(n_ - 1));
  std::string down = p();
  e_.ins("setp.ne.u32 " + down + ", " + dirBit + ", 0");
  std::string ai = r32(), al = r32();
  e_.ins("mad.lo.u32 " + ai + ", " + i + ", 8, " + base);
  e_.ins("mad.lo.u32 " + al + ", " + l + ", 8, " + base);
  std::string at = "+" + std::to_string(keysAt_) + "]";
  std::string a = r64(), b = r64(), gt = p(), swap = p();
  e_.ins("ld.shared.b64 " + a + ", [" + ai + at);
  e_.ins("ld.shared.b64 " + b + ", [" + al + at);
  e_.ins("setp.gt.u64 " + gt + ", " + a + ", " + b);
  std::string ci, cl, ca, cb;
  if (wide_) {
    // Equal keys: the column decides.
    ci = r32(), cl = r32(), ca = r32(), cb = r32();
    std::string eq = p(), cgt = p(), tie = p(), any = p();
    e_.ins("mad.lo.u32 " + ci + ", " + i + ", 4, " + base);
    e_.ins("mad.lo.u32 " + cl + ", " + l + ", 4, " + base);
    std::string cat = "+" + std::to_string(colsAt_) + "]";
    e_.ins("ld.shared.b32 " + ca + ", [" + ci + cat);
    e_.ins("ld.shared.b32 " + cb + ", [" + cl + cat);
    e_.ins("setp.eq.u64 " + eq + ", " + a + ", " + b);
    e_.ins("setp.gt.u32 " + cgt + ", " + ca + ", " + cb);
    e_.ins("and.pred " + tie + ", " + eq + ", " + cgt);
    e_.ins("or.pred " + any + ", " + gt + ", " + tie);
    gt = any;
  }
  e_.ins("xor.pred " + swap + ", " + gt + ", " + down);
  e_.ins("@" + swap + " st.shared.b64 [" + ai + at + ", " + b);
  e_.ins("@" + swap + " st.shared.b64 [" + al + at + ", " + a);
  if (wide_) {
    std::string cat = "+" + std::to_string(colsAt_) + "]";
    e_.ins("@" + swap + " st.shared.b32 [" + ci + cat + ", " + cb);
    e_.ins("@" + swap + " st.shared.b32 [" + cl + cat + ", " + ca);
  }
  e_.ins("add.u32 " + pair + ", " + pair + ", " + std::to_string(threads));
  e_.ins("bra " + lp);
  e_.raw(lend + ":");
  e_.barrier();
  std::string moreJ = p(), moreK = p();
  e_.ins("shr.u32 " + j + ", " + j + ", 1");
  e_.ins("setp.ne.u32 " + moreJ + ", " + j + ", 0");
  e_.ins("@" + moreJ + " bra " + lj);
  e_.ins("shl.b32 " + k + ", " + k + ", 1");
  e_.ins("setp.le.u32 " + moreK + ", " + k + ", " + std::to_string(n_));
  e_.ins("@" + moreK + " bra " + lk);
}

std::string SortEmitter::loadResult(const std::string& flat) {
  std::string base = e_.smemBase();
  std::string col;
  if (!wide_) {
    std::string ka = r32(), rec = r64(), hi = r32();
    col = r32();
    e_.ins("mad.lo.u32 " + ka + ", " + flat + ", 8, " + base);
    e_.ins("ld.shared.b64 " + rec + ", [" + ka + "+" + std::to_string(keysAt_) + "]");
    e_.ins("mov.b64 {" + col + ", " + hi + "}, " + rec);
  } else {
    std::string ca = r32();
    col = r32();
    e_.ins("mad.lo.u32 " + ca + ", " + flat + ", 4, " + base);
    e_.ins("ld.shared.b32 " + col + ", [" + ca + "+" + std::to_string(colsAt_) + "]");
  }
  char mask[16];
  std::snprintf(mask, sizeof mask, "0x%08X", static_cast<uint32_t>(~(n_ - 1)));
  std::string row = op3("and.b32", flat, mask);
  std::string src = op3("or.b32", row, col);
  std::string va = r32();
  e_.ins("mad.lo.u32 " + va + ", " + src + ", " + std::to_string(valueBytes_) + ", " + base);
  RegClass c = valueBytes_ == 8 ? RegClass::B64 : valueBytes_ == 4 ? RegClass::B32 : RegClass::B16;
  std::string v = e_.reg(c);
  e_.ins("ld.shared.b" + std::to_string(valueBytes_ * 8) + " " + v + ", [" + va + "]");
  if (!elem_.isInteger(1)) return v;
  std::string b = p();
  e_.ins("setp.ne.b16 " + b + ", " + v + ", 0");
  return b;
}

void SortEmitter::run() {
  Value x = op_->operand(0);
  Type t = x.type(), rt = op_->result().type();
  elem_ = t.elementType();
  descending_ = op_->boolAttr("descending");
  std::vector<int64_t> shape = t.shape();
  numel_ = 1;
  for (int64_t s : shape) numel_ *= s;
  n_ = shape.back();
  if (n_ <= 1) return e_.bind(op_->result(), e_.regs(x));
  strides_.assign(shape.size(), 1);
  for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d) strides_[d] = strides_[d + 1] * shape[d + 1];
  RegClass rc = Emitter::regClass(elem_);
  wide_ = rc == RegClass::B64;
  valueBytes_ = rc == RegClass::B64 ? 8 : rc == RegClass::B32 ? 4 : 2;
  keysAt_ = (numel_ * valueBytes_ + 7) / 8 * 8;
  colsAt_ = keysAt_ + numel_ * 8;
  e_.needScratch(wide_ ? colsAt_ + numel_ * 4 : colsAt_);

  // Phase 1: values and records to shared memory.
  const LinearLayout& ll = e_.layout(t);
  int64_t regFree = ll.freeVariableMasks()[static_cast<int>(HwDim::Register)];
  const Regs& in = e_.regs(x);
  e_.barrier();
  for (int64_t i = 0; i < static_cast<int64_t>(in.size()); ++i)
    if (!(i & regFree)) storeElement(in[i], flatOffset(ll, i));
  e_.barrier();
  // Phase 2: the network (ends with a barrier).
  network();
  // Phase 3: the sorted rows, in the result's layout.
  const LinearLayout& rl = e_.layout(rt);
  Regs out;
  for (int64_t i = 0; i < rl.inDimSize(HwDim::Register); ++i) out.push_back(loadResult(flatOffset(rl, i)));
  e_.bind(op_->result(), out);
}

}  // namespace

void emitSort(Emitter& e, Operation* op) { SortEmitter(e, op).run(); }

}  // namespace tessera::ptx
