//===- Layouts.cpp - Data movement between layouts and shapes --------------===//
//
// make_range, splat, and every op that moves elements without computing:
// convert_layout, broadcast, expand_dims, reshape, trans, join, split, cat,
// flip, gather, histogram. All of them are one primitive: each result
// register needs the element at source coordinates f(result coordinates),
// where f is linear over the coordinate bits plus a constant XOR (shapes
// are powers of two, so reshape, transposition, broadcast and flip all are).
//
//  * In-thread when f maps the result layout's lane and warp bases exactly
//    onto the source layout's: then result register j is a copy of the
//    source register holding f(coords of j), found by inverting the source
//    layout over its registers at compile time. No instruction is emitted.
//  * Otherwise through shared memory: every thread writes its registers at
//    the row-major offset of their coordinates, a barrier, then every thread
//    reads the offsets of f(its result coordinates). Offsets of a linear
//    layout split into a compile-time register part XOR a per-thread part.
//
//===----------------------------------------------------------------------===//

#include <functional>

#include "ptx/Emitter.h"
#include "tessera/ir/Builder.h"

namespace tessera::ptx {

using namespace ir;
using gpu::LinearLayout;

namespace {

/// f(c) = linear(c) XOR offset, from result coordinates to source ones.
struct CoordMap {
  std::function<std::vector<int64_t>(const std::vector<int64_t>&)> linear;
  std::vector<int64_t> offset;  ///< source coordinates XORed in (empty: none)

  std::vector<int64_t> apply(const std::vector<int64_t>& c, bool withOffset) const {
    std::vector<int64_t> s = linear(c);
    if (withOffset)
      for (size_t d = 0; d < offset.size(); ++d) s[d] ^= offset[d];
    return s;
  }
};

std::vector<int64_t> rowMajorStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d) s[d] = s[d + 1] * shape[d + 1];
  return s;
}

int64_t flat(const std::vector<int64_t>& c, const std::vector<int64_t>& strides) {
  int64_t f = 0;
  for (size_t d = 0; d < c.size(); ++d) f += c[d] * strides[d];
  return f;
}

int elemBytes(Type elem) {
  RegClass c = Emitter::regClass(elem);
  return c == RegClass::B64 ? 8 : c == RegClass::B32 ? 4 : 2;
}

std::string bitsOf(int bytes) { return "b" + std::to_string(bytes * 8); }

/// How move() lays a value out in the scratch buffer: row-major, with the
/// 16-byte chunks of each row XORed with the row index (mod the chunks per
/// row, at most 8). The threads of an mma fragment hold the same columns of
/// 8 rows; unswizzled, rows of 128 bytes or more start in the same bank and
/// their stores conflict 8 ways. The swizzle is linear over the offset
/// bits, so register and thread parts still combine by XOR. gather keeps
/// the plain layout (its reads compute offsets from indices).
struct ScratchSwizzle {
  int rowShift = 0;    ///< log2(elements per row)
  int chunkShift = 0;  ///< log2(elements per 16-byte chunk)
  int64_t mask = 0;    ///< chunks XORed - 1 (0: no swizzle)
  int64_t apply(int64_t offset) const { return offset ^ (((offset >> rowShift) & mask) << chunkShift); }
};

int log2Of(int64_t v) {
  int k = 0;
  while ((int64_t{1} << k) < v) ++k;
  return k;
}

ScratchSwizzle scratchSwizzle(const std::vector<int64_t>& shape, int bytes) {
  ScratchSwizzle sw;
  if (shape.size() < 2 || shape[shape.size() - 2] < 2) return sw;
  int64_t rowElems = shape.back(), chunkElems = 16 / bytes;
  int64_t chunks = rowElems / chunkElems;
  if (chunks < 2) return sw;
  sw.rowShift = log2Of(rowElems);
  sw.chunkShift = log2Of(chunkElems);
  sw.mask = std::min<int64_t>(chunks, 8) - 1;
  return sw;
}

/// Scratch offsets (elements) of `ll`'s coordinates mapped through `f`:
/// linear over coordinate bits, plus the swizzle.
struct ScratchOffsets {
  const LinearLayout& ll;
  const CoordMap& f;
  std::vector<int64_t> strides;
  ScratchSwizzle swizzle;

  int64_t linear(const std::vector<int64_t>& basis) const { return swizzle.apply(flat(f.apply(basis, false), strides)); }
  int64_t ofRegister(int64_t i) const { return swizzle.apply(flat(f.apply(ll.apply(HwDim::Register, i), true), strides)); }
  std::string thread(Emitter& e) const {
    return e.threadLinear(ll, [this](const std::vector<int64_t>& b) { return linear(b); }, false);
  }

  /// The widest vector (a power of two of elements, at most 16 bytes) of
  /// registers i .. i+v-1 (i a multiple of v) at consecutive, aligned
  /// offsets whatever the thread: 1 when there is none.
  int64_t vectorWidth(int bytes, int64_t skippedRegisters) const {
    int64_t n = ll.inDimSize(HwDim::Register);
    for (int64_t v = 16 / bytes; v > 1; v /= 2) {
      bool ok = n % v == 0 && (skippedRegisters & (v - 1)) == 0;
      for (HwDim d : {HwDim::Lane, HwDim::Warp})
        for (const auto& b : ll.bases(d)) ok = ok && (linear(b) & (v - 1)) == 0;
      for (int64_t i = 0; i < n && ok; i += v) {
        int64_t lead = ofRegister(i);
        ok = lead % v == 0;
        for (int64_t t = 1; t < v && ok; ++t) ok = ofRegister(i + t) == lead + t;
      }
      if (ok) return v;
    }
    return 1;
  }
};

/// st.shared of registers regs[0 .. v-1] (consecutive elements of `bytes`
/// each) at addr: 16-bit elements of a vector packed in pairs into b32
/// words.
void storeVector(Emitter& e, const std::string& addr, const Regs& regs, int bytes) {
  std::vector<std::string> words;
  if (bytes == 2 && regs.size() > 1) {
    for (size_t k = 0; k < regs.size(); k += 2) {
      std::string w = e.reg(RegClass::B32);
      e.ins("mov.b32 " + w + ", {" + regs[k] + ", " + regs[k + 1] + "}");
      words.push_back(w);
    }
    bytes = 4;
  } else {
    words = regs;
  }
  std::string list = words[0];
  for (size_t k = 1; k < words.size(); ++k) list += ", " + words[k];
  std::string v = words.size() == 1 ? "" : "v" + std::to_string(words.size()) + ".";
  e.ins("st.shared." + v + bitsOf(bytes) + " [" + addr + "], " + (words.size() == 1 ? list : "{" + list + "}"));
}

/// ld.shared of v consecutive elements of `bytes` at addr, as registers.
Regs loadVector(Emitter& e, const std::string& addr, int64_t v, int bytes) {
  bool pairs = bytes == 2;
  int wordBytes = pairs ? 4 : bytes;
  int64_t words = pairs ? v / 2 : v;
  RegClass c = wordBytes == 8 ? RegClass::B64 : RegClass::B32;
  std::vector<std::string> w;
  for (int64_t k = 0; k < words; ++k) w.push_back(e.reg(c));
  std::string list = w[0];
  for (int64_t k = 1; k < words; ++k) list += ", " + w[k];
  std::string vec = words == 1 ? "" : "v" + std::to_string(words) + ".";
  e.ins("ld.shared." + vec + bitsOf(wordBytes) + " " + (words == 1 ? list : "{" + list + "}") + ", [" + addr + "]");
  if (!pairs) return w;
  Regs out;
  for (const std::string& word : w) {
    std::string lo = e.reg(RegClass::B16), hi = e.reg(RegClass::B16);
    e.ins("mov.b32 {" + lo + ", " + hi + "}, " + word);
    out.push_back(lo);
    out.push_back(hi);
  }
  return out;
}

/// A 16-bit container for predicates in shared memory.
std::string predToB16(Emitter& e, const std::string& p) {
  std::string d = e.reg(RegClass::B16);
  e.ins("selp.b16 " + d + ", 1, 0, " + p);
  return d;
}

std::string b16ToPred(Emitter& e, const std::string& h) {
  std::string d = e.reg(RegClass::Pred);
  e.ins("setp.ne.b16 " + d + ", " + h + ", 0");
  return d;
}

/// stmatrix (sm_90): a 16-bit value in an mma accumulator fragment layout
/// (register bit 0 and lane bits 0-1 walk 8 columns, lane bits 2-4 the 8
/// rows of an 8 x 8 matrix; the other register bits whole matrices) goes to
/// scratch as 8 x 8 matrices, one stmatrix.x4 per 8 registers, when each
/// matrix row is 8 consecutive, 16-byte aligned elements there. Lane l
/// gives the address of row l % 8 of the thread's matrix l / 8. The 128 x
/// 256 fp16 matmul epilogue: 16 stmatrix.x4 per thread instead of 64
/// st.shared.b32 (Triton stores this tile with 16-byte vectors and reads it
/// with ldmatrix; either way 4x fewer shared stores). Measured on the H200
/// against st.shared: matmul and attention within +-3% (noise), so the
/// epilogue was not what kept matmul below Triton. False when it does not
/// apply.
bool storeWithStmatrix(Emitter& e, const Regs& values, const LinearLayout& ll, Type elem, const ScratchOffsets& at) {
  if (e.options().target.capability < 90 || elem.bitWidth() != 16 || ll.rank() != 2 || values.size() % 8 != 0 ||
      ll.freeVariableMasks()[static_cast<int>(HwDim::Register)] != 0 || ll.numBases(HwDim::Register) < 3)
    return false;
  using C = std::vector<int64_t>;
  const auto& lanes = ll.bases(HwDim::Lane);
  const auto& regs = ll.bases(HwDim::Register);
  if (lanes != std::vector<C>{{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}} || regs[0] != C{0, 1}) return false;
  // Rows of 8 consecutive elements, matrices and warps at multiples of 8.
  if (at.linear({0, 1}) != 1 || at.linear({0, 2}) != 2 || at.linear({0, 4}) != 4) return false;
  std::vector<C> rowStarts = {C{1, 0}, C{2, 0}, C{4, 0}};
  rowStarts.insert(rowStarts.end(), regs.begin() + 1, regs.end());
  rowStarts.insert(rowStarts.end(), ll.bases(HwDim::Warp).begin(), ll.bases(HwDim::Warp).end());
  for (const C& b : rowStarts)
    if (at.linear(b) % 8 != 0) return false;
  LinearLayout::Bases bases;
  bases[static_cast<int>(HwDim::Lane)] = {C{1, 0}, C{2, 0}, C{4, 0}, regs[1], regs[2]};
  bases[static_cast<int>(HwDim::Warp)] = ll.bases(HwDim::Warp);
  LinearLayout rowAddresses(bases, ll.outDimSizes());
  std::string thread = e.threadLinear(rowAddresses, [&](const C& b) { return at.linear(b); }, false);
  for (int64_t i = 0; i < static_cast<int64_t>(values.size()); i += 8) {
    std::string idx = e.xorConst(thread, at.ofRegister(i)), addr = e.reg(RegClass::B32);
    e.ins("mad.lo.u32 " + addr + ", " + idx + ", 2, " + e.smemBase());
    std::vector<std::string> words;
    for (int64_t m = 0; m < 4; ++m) words.push_back(pack32(e, values, {i + 2 * m, i + 2 * m + 1}));
    e.ins("stmatrix.sync.aligned.m8n8.x4.shared.b16 [" + addr + "], {" + words[0] + ", " + words[1] + ", " +
          words[2] + ", " + words[3] + "}");
  }
  return true;
}

/// Writes all registers of a value in layout `ll` (shape `shape`) to the
/// scratch buffer at row-major offsets, `swizzle`d (none: the plain layout
/// gather reads), registers consecutive there as vectors, or with stmatrix
/// where it applies. The caller puts the barriers around it.
void storeToScratch(Emitter& e, const Regs& values, const LinearLayout& ll, Type elem,
                    const std::vector<int64_t>& shape, ScratchSwizzle swizzle = {}) {
  int bytes = elemBytes(elem);
  int64_t numel = 1;
  for (int64_t s : shape) numel *= s;
  e.needScratch(numel * bytes);
  CoordMap identity{[](const std::vector<int64_t>& c) { return c; }, {}};
  ScratchOffsets at{ll, identity, rowMajorStrides(shape), swizzle};
  if (storeWithStmatrix(e, values, ll, elem, at)) return;
  int64_t free = ll.freeVariableMasks()[static_cast<int>(HwDim::Register)];
  int64_t v = elem.isInteger(1) ? 1 : at.vectorWidth(bytes, free);
  // The register part is XORed into the thread part (they share bits in
  // general linear layouts, so no add).
  std::string thread = at.thread(e);
  for (int64_t i = 0; i < static_cast<int64_t>(values.size()); i += v) {
    if (i & free) continue;
    std::string idx = e.xorConst(thread, at.ofRegister(i)), addr = e.reg(RegClass::B32);
    e.ins("mad.lo.u32 " + addr + ", " + idx + ", " + std::to_string(bytes) + ", " + e.smemBase());
    Regs vector(values.begin() + i, values.begin() + i + v);
    if (elem.isInteger(1)) vector[0] = predToB16(e, vector[0]);
    storeVector(e, addr, vector, bytes);
  }
}

std::string loadScratch(Emitter& e, Type elem, const std::string& addr, int64_t offsetBytes = 0) {
  int bytes = elemBytes(elem);
  std::string d = e.reg(bytes == 8 ? RegClass::B64 : bytes == 4 ? RegClass::B32 : RegClass::B16);
  e.ins("ld.shared." + bitsOf(bytes) + " " + d + ", [" + addr + "+" + std::to_string(offsetBytes) + "]");
  return elem.isInteger(1) ? b16ToPred(e, d) : d;
}

/// The registers of layout `ll` (coordinates mapped through `f` into the
/// row-major `shape`) read from the scratch buffer, `swizzle`d.
Regs readScratch(Emitter& e, const LinearLayout& ll, const CoordMap& f, const std::vector<int64_t>& shape, Type elem,
                 ScratchSwizzle swizzle) {
  int bytes = elemBytes(elem);
  ScratchOffsets at{ll, f, rowMajorStrides(shape), swizzle};
  int64_t v = elem.isInteger(1) ? 1 : at.vectorWidth(bytes, 0);
  std::string thread = at.thread(e);
  Regs out;
  for (int64_t j = 0; j < ll.inDimSize(HwDim::Register); j += v) {
    std::string idx = e.xorConst(thread, at.ofRegister(j)), addr = e.reg(RegClass::B32);
    e.ins("mad.lo.u32 " + addr + ", " + idx + ", " + std::to_string(bytes) + ", " + e.smemBase());
    if (v == 1) {
      out.push_back(loadScratch(e, elem, addr));
      continue;
    }
    Regs loaded = loadVector(e, addr, v, bytes);
    out.insert(out.end(), loaded.begin(), loaded.end());
  }
  return out;
}

/// The primitive of the file comment.
Regs move(Emitter& e, const Regs& src, const LinearLayout& srcLL, const std::vector<int64_t>& srcShape,
          const LinearLayout& dstLL, const CoordMap& f, Type elem) {
  // In-thread?
  bool inThread = true;
  for (HwDim d : {HwDim::Lane, HwDim::Warp, HwDim::Block}) {
    if (dstLL.numBases(d) != srcLL.numBases(d)) { inThread = false; break; }
    for (int b = 0; b < dstLL.numBases(d) && inThread; ++b)
      inThread = f.apply(dstLL.bases(d)[b], false) == srcLL.bases(d)[b];
  }
  int64_t n = dstLL.inDimSize(HwDim::Register);
  Regs out;
  if (inThread) {
    for (int64_t j = 0; j < n && inThread; ++j) {
      std::vector<int64_t> want = f.apply(dstLL.apply(HwDim::Register, j), true);
      auto hw = srcLL.invert(want, {HwDim::Register});
      if (!hw) { inThread = false; break; }
      out.push_back(src[(*hw)[0]]);
    }
    if (inThread) return out;
    out.clear();
  }
  // Through shared memory (swizzled; vectors where registers are
  // consecutive there).
  ScratchSwizzle swizzle = scratchSwizzle(srcShape, elemBytes(elem));
  e.barrier();
  storeToScratch(e, src, srcLL, elem, srcShape, swizzle);
  e.barrier();
  return readScratch(e, dstLL, f, srcShape, elem, swizzle);
}

}  // namespace

Regs loadFromScratch(Emitter& e, const LinearLayout& ll, const std::vector<int64_t>& shape, Type elem) {
  CoordMap identity{[](const std::vector<int64_t>& c) { return c; }, {}};
  return readScratch(e, ll, identity, shape, elem, ScratchSwizzle{});
}

namespace {

CoordMap identityMap() {
  return {[](const std::vector<int64_t>& c) { return c; }, {}};
}

Regs moveOp(Emitter& e, Value src, Type dstType, const CoordMap& f) {
  Type st = src.type();
  return move(e, e.regs(src), e.layout(st), st.shape(), e.layout(dstType), f, st.elementType());
}

void emitMakeRange(Emitter& e, Operation* op) {
  Type t = op->result().type();
  const LinearLayout& ll = e.layout(t);
  int64_t start = op->intAttr("start");
  std::string thread = e.threadCoord(ll, 0);
  Regs out;
  for (int64_t i = 0; i < ll.inDimSize(HwDim::Register); ++i) {
    int64_t c = ll.apply(HwDim::Register, i)[0];
    std::string x = e.reg(RegClass::B32), d = e.reg(RegClass::B32);
    x = e.xorConst(thread, c);
    if (start == 0) {
      out.push_back(x);
      continue;
    }
    e.ins("add.s32 " + d + ", " + x + ", " + std::to_string(start));
    out.push_back(d);
  }
  e.bind(op->result(), out);
}

/// A value seen as the concatenation of two register sets along a new top
/// register bit (join / cat sources).
LinearLayout withTopRegisterBasis(const LinearLayout& ll, std::vector<int64_t> basis,
                                  std::vector<int64_t> sizes) {
  LinearLayout::Bases bases = ll.bases();
  bases[static_cast<int>(HwDim::Register)].push_back(std::move(basis));
  return LinearLayout(bases, std::move(sizes));
}

void emitGather(Emitter& e, Operation* op) {
  Value src = op->operand(0), index = op->operand(1);
  int64_t axis = op->intAttr("axis");
  Type st = src.type(), rt = op->result().type();
  Type elem = st.elementType();
  e.barrier();
  storeToScratch(e, e.regs(src), e.layout(st), elem, st.shape());
  e.barrier();
  const LinearLayout& ll = e.layout(rt);
  std::vector<int64_t> strides = rowMajorStrides(st.shape());
  int rank = static_cast<int>(rt.rank());
  std::vector<std::string> thread;
  for (int d = 0; d < rank; ++d) thread.push_back(e.threadCoord(ll, d));
  Type it = index.type().elementType();
  Regs out;
  int bytes = elemBytes(elem);
  for (int64_t j = 0; j < ll.inDimSize(HwDim::Register); ++j) {
    std::vector<int64_t> c = ll.apply(HwDim::Register, j);
    std::string acc = e.constInt(Type::i32(), 0);
    for (int d = 0; d < rank; ++d) {
      std::string coord;
      if (d == axis) {
        coord = it.bitWidth() == 32 ? e.at(index, j) : emitCast(e, op, e.at(index, j), it, Type::i32());
      } else {
        coord = e.reg(RegClass::B32);
        coord = e.xorConst(thread[d], c[d]);
      }
      std::string next = e.reg(RegClass::B32);
      e.ins("mad.lo.s32 " + next + ", " + coord + ", " + std::to_string(strides[d]) + ", " + acc);
      acc = next;
    }
    std::string addr = e.reg(RegClass::B32);
    e.ins("mad.lo.u32 " + addr + ", " + acc + ", " + std::to_string(bytes) + ", " + e.smemBase());
    out.push_back(loadScratch(e, elem, addr));
  }
  e.bind(op->result(), out);
}

void emitHistogram(Emitter& e, Operation* op) {
  Value x = op->operand(0);
  Type rt = op->result().type();
  int64_t bins = rt.shape()[0];
  int threads = 32 * e.options().numWarps;
  e.needScratch(bins * 4);
  e.barrier();
  // Zero the bins cooperatively.
  std::string tid = e.threadId();
  for (int64_t k = 0; k < bins; k += threads) {
    std::string idx = e.reg(RegClass::B32), p = e.reg(RegClass::Pred), addr = e.reg(RegClass::B32);
    e.ins("add.u32 " + idx + ", " + tid + ", " + std::to_string(k));
    e.ins("setp.lt.u32 " + p + ", " + idx + ", " + std::to_string(bins));
    e.ins("mad.lo.u32 " + addr + ", " + idx + ", 4, " + e.smemBase());
    e.ins("@" + p + " st.shared.b32 [" + addr + "], 0");
  }
  e.barrier();
  const LinearLayout& ll = e.layout(x.type());
  auto freeMasks = ll.freeVariableMasks();
  // Each element counts once: only the owner of duplicated elements adds.
  std::string owner = e.threadBitsZero(freeMasks[1], freeMasks[2]);
  Type it = x.type().elementType();
  for (int64_t i = 0; i < ll.inDimSize(HwDim::Register); ++i) {
    if (i & freeMasks[0]) continue;
    std::string v = it.bitWidth() == 32 ? e.at(x, i) : emitCast(e, op, e.at(x, i), it, Type::i32());
    std::string inRange = e.reg(RegClass::Pred), p = e.reg(RegClass::Pred), addr = e.reg(RegClass::B32);
    e.ins("setp.lt.u32 " + inRange + ", " + v + ", " + std::to_string(bins));
    e.ins("and.pred " + p + ", " + inRange + ", " + owner);
    if (op->numOperands() > 1) {
      std::string q = e.reg(RegClass::Pred);
      e.ins("and.pred " + q + ", " + p + ", " + e.at(op->operand(1), i));
      p = q;
    }
    e.ins("mad.lo.u32 " + addr + ", " + v + ", 4, " + e.smemBase());
    e.ins("@" + p + " red.shared.add.u32 [" + addr + "], 1");
  }
  e.barrier();
  const LinearLayout& rl = e.layout(rt);
  std::string thread = e.threadCoord(rl, 0);
  Regs out;
  for (int64_t j = 0; j < rl.inDimSize(HwDim::Register); ++j) {
    std::string idx = e.reg(RegClass::B32), addr = e.reg(RegClass::B32);
    idx = e.xorConst(thread, rl.apply(HwDim::Register, j)[0]);
    e.ins("mad.lo.u32 " + addr + ", " + idx + ", 4, " + e.smemBase());
    out.push_back(loadScratch(e, Type::i32(), addr));
  }
  e.bind(op->result(), out);
}

}  // namespace


void emitLayoutOp(Emitter& e, Operation* op) {
  switch (op->code()) {
    case OpCode::MakeRange: return emitMakeRange(e, op);
    case OpCode::Splat: {
      Regs r(e.numRegs(op->result().type()), e.regs(op->operand(0))[0]);
      return e.bind(op->result(), r);
    }
    case OpCode::Hint: return e.bind(op->result(), e.regs(op->operand(0)));
    case OpCode::ConvertLayout:
      if (emitDotOperandConvert(e, op)) return;
      return e.bind(op->result(), moveOp(e, op->operand(0), op->result().type(), identityMap()));
    case OpCode::Broadcast: {
      std::vector<int64_t> srcShape = op->operand(0).type().shape();
      CoordMap f{[srcShape](const std::vector<int64_t>& c) {
                   std::vector<int64_t> s = c;
                   for (size_t d = 0; d < s.size(); ++d)
                     if (srcShape[d] == 1) s[d] = 0;
                   return s;
                 },
                 {}};
      return e.bind(op->result(), moveOp(e, op->operand(0), op->result().type(), f));
    }
    case OpCode::ExpandDims: {
      int64_t axis = op->intAttr("axis");
      CoordMap f{[axis](const std::vector<int64_t>& c) {
                   std::vector<int64_t> s = c;
                   s.erase(s.begin() + axis);
                   return s;
                 },
                 {}};
      return e.bind(op->result(), moveOp(e, op->operand(0), op->result().type(), f));
    }
    case OpCode::Reshape: {
      std::vector<int64_t> srcShape = op->operand(0).type().shape(), dstShape = op->result().type().shape();
      std::vector<int64_t> ds = rowMajorStrides(dstShape);
      CoordMap f{[srcShape, ds](const std::vector<int64_t>& c) {
                   int64_t idx = flat(c, ds);
                   std::vector<int64_t> s(srcShape.size());
                   for (int d = static_cast<int>(srcShape.size()) - 1; d >= 0; --d) {
                     s[d] = idx % srcShape[d];
                     idx /= srcShape[d];
                   }
                   return s;
                 },
                 {}};
      return e.bind(op->result(), moveOp(e, op->operand(0), op->result().type(), f));
    }
    case OpCode::Trans: {
      std::vector<int64_t> order = op->intArrayAttr("order");
      CoordMap f{[order](const std::vector<int64_t>& c) {
                   std::vector<int64_t> s(c.size());
                   for (size_t i = 0; i < order.size(); ++i) s[order[i]] = c[i];
                   return s;
                 },
                 {}};
      return e.bind(op->result(), moveOp(e, op->operand(0), op->result().type(), f));
    }
    case OpCode::Flip: {
      Type t = op->operand(0).type();
      int64_t dim = op->intAttr("dim");
      std::vector<int64_t> offset(t.rank(), 0);
      offset[dim] = t.shape()[dim] - 1;
      CoordMap f{[](const std::vector<int64_t>& c) { return c; }, offset};
      return e.bind(op->result(), moveOp(e, op->operand(0), op->result().type(), f));
    }
    case OpCode::Join: case OpCode::Cat: {
      Value a = op->operand(0), b = op->operand(1);
      Type at = a.type();
      const LinearLayout& la = e.layout(at);
      LinearLayout combined;
      std::vector<int64_t> shape = op->result().type().shape();
      if (op->is(OpCode::Join)) {
        std::vector<int64_t> basis(at.rank() + 1, 0);
        basis[at.rank()] = 1;
        combined = withTopRegisterBasis(la.insertedOutDim(static_cast<int>(at.rank())), basis, shape);
      } else {
        combined = withTopRegisterBasis(la, {at.shape()[0]}, shape);
      }
      Regs src = e.regs(a);
      const Regs& rb = e.regs(b);
      src.insert(src.end(), rb.begin(), rb.end());
      return e.bind(op->result(), move(e, src, combined, shape, e.layout(op->result().type()), identityMap(),
                                       at.elementType()));
    }
    case OpCode::Split: {
      Value x = op->operand(0);
      int rank = static_cast<int>(x.type().rank());
      for (int k = 0; k < 2; ++k) {
        std::vector<int64_t> offset(rank, 0);
        offset[rank - 1] = k;
        CoordMap f{[](const std::vector<int64_t>& c) {
                     std::vector<int64_t> s = c;
                     s.push_back(0);
                     return s;
                   },
                   offset};
        e.bind(op->result(k), moveOp(e, x, op->result(k).type(), f));
      }
      return;
    }
    case OpCode::Gather: return emitGather(e, op);
    case OpCode::Histogram: return emitHistogram(e, op);
    case OpCode::Sort: return emitSort(e, op);
    default:
      e.fail(op, "unexpected layout op");
  }
}

}  // namespace tessera::ptx
