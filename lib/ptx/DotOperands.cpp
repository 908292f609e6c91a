//===- DotOperands.cpp - 16-bit mma.sync operands through ldmatrix ---------===//
//
// A convert_layout into a #ttg.dot_op (mma version 2 parent, 16-bit
// elements, kWidth 2) is the operand load of a tensor-core dot: the tile
// goes to shared memory once and every warp reads its fragments back. The
// generic convert (Layouts.cpp) does that element by element at row-major
// offsets, with bank conflicts on both sides. Here, as in Triton:
//
//  * the tile is stored in a swizzled layout: rows along the dim that is
//    not contiguous in the source registers, 16-byte vectors of 8 elements
//    along the contiguous one, vector v of row r at v ^ ((r / perPhase) %
//    maxPhase) with perPhase = max(1, 128 bytes / row bytes) and maxPhase =
//    8 / perPhase, so the 8 rows one ldmatrix reads lie in distinct banks;
//  * each thread stores its registers as 16-byte (or narrower) vectors;
//  * fragments are read with ldmatrix: .x4 gives the four registers of an A
//    fragment (16 x 16) or the two of two B fragments (16 x 8 each), .x2 one
//    B fragment. Where the tile is stored with K not contiguous (A
//    column-major, or B row-major as usual), ldmatrix.trans transposes the
//    8 x 8 matrices on the way.
//
// The swizzled offset is linear over GF(2) in the element coordinates'
// bits, so a thread's addresses are one per-thread register (its lane and
// warp bits, Emitter::threadLinear) XOR compile-time constants.
//
//===----------------------------------------------------------------------===//

#include <map>

#include "ptx/Emitter.h"
#include "tessera/Error.h"

namespace tessera::ptx {

using namespace ir;
using gpu::LinearLayout;

namespace {

/// The dim along which the source registers are contiguous (16-byte
/// vectors form along it), else the last dim.
int contiguousDim(const LinearLayout& ll) {
  for (int d = 0; d < 2; ++d)
    if (ll.contiguousRegisters(d) > 1) return d;
  for (int d = 0; d < 2; ++d)
    if (!ll.bases(HwDim::Lane).empty() && ll.bases(HwDim::Lane)[0][d] == 1) return d;
  return 1;
}

std::string byteAddress(Emitter& e, const std::string& elementOffset, const std::string& base) {
  std::string addr = e.reg(RegClass::B32);
  e.ins("mad.lo.u32 " + addr + ", " + elementOffset + ", 2, " + base);
  return addr;
}

}  // namespace

void storeToSharedTile(Emitter& e, const Regs& values, const LinearLayout& ll, int vecDim,
                       const std::function<int64_t(const std::vector<int64_t>&)>& offset, const std::string& base,
                       int elemBytes) {
  std::string thread = e.threadLinear(ll, offset, false);
  // Vectors of up to 16 bytes; 8-bit elements go in words of four.
  int64_t vec = std::min<int64_t>(16 / elemBytes, ll.contiguousRegisters(vecDim));
  if (elemBytes == 1 && vec < 4) vec = 1;
  int64_t free = ll.freeVariableMasks()[static_cast<int>(HwDim::Register)];
  for (int64_t i = 0; i < static_cast<int64_t>(values.size()); i += vec) {
    if (i & free) continue;
    std::string addr = e.reg(RegClass::B32);
    e.ins("mad.lo.u32 " + addr + ", " + e.xorConst(thread, offset(ll.apply(HwDim::Register, i))) + ", " +
          std::to_string(elemBytes) + ", " + base);
    if (vec == 1) {
      e.ins(std::string(elemBytes == 1 ? "st.shared.u8 [" : "st.shared.b16 [") + addr + "], " + values[i]);
      continue;
    }
    std::string list;
    int64_t perWord = 4 / elemBytes;
    for (int64_t j = 0; j < vec; j += perWord) {
      std::vector<int64_t> idx;
      for (int64_t k = 0; k < perWord; ++k) idx.push_back(i + j + k);
      list += (j ? ", " : "") + pack32(e, values, idx);
    }
    int64_t words = vec / perWord;
    if (words == 1) e.ins("st.shared.b32 [" + addr + "], " + list);
    else e.ins("st.shared.v" + std::to_string(words) + ".b32 [" + addr + "], {" + list + "}");
  }
}

std::function<int64_t(const std::vector<int64_t>&)> sharedOffsets(Type shared) {
  gpu::LinearLayout ll = gpu::sharedToLinearLayout(shared.shape(), shared.encoding());
  // The offset of each single-bit coordinate; the layout is linear, so the
  // offset of any coordinates is the XOR of those of its bits.
  std::vector<std::vector<int64_t>> bitOffsets(shared.shape().size());
  for (size_t d = 0; d < shared.shape().size(); ++d)
    for (int64_t bit = 1; bit < shared.shape()[d]; bit *= 2) {
      std::vector<int64_t> c(shared.shape().size(), 0);
      c[d] = bit;
      auto hw = ll.invert(c, {HwDim::Register});
      if (!hw) throw Error("layout of " + shared.str() + " is not invertible");
      bitOffsets[d].push_back((*hw)[0]);
    }
  return [bitOffsets](const std::vector<int64_t>& c) {
    int64_t off = 0;
    for (size_t d = 0; d < c.size(); ++d)
      for (size_t b = 0; b < bitOffsets[d].size(); ++b)
        if (c[d] >> b & 1) off ^= bitOffsets[d][b];
    return off;
  };
}

void emitLocalAlloc(Emitter& e, Operation* op) {
  Type st = op->result().type();
  std::string base = e.localBuffer(op);
  if (op->numOperands() == 0) {  // a (multi-stage) buffer the program fills itself
    // Its memory may have been scratch until here (allocate-shared-memory reuses
    // dead ranges): every thread must be done reading that before the
    // copies into the buffer start (one barrier for consecutive buffers).
    Operation* prev = op->prevOp();
    if (!prev || !prev->is(OpCode::LocalAlloc) || prev->numOperands() != 0) e.barrier();
    e.bind(op->result(), {base});
    return;
  }
  Value x = op->operand(0);
  int64_t bits = st.elementType().bitWidth();
  if (st.rank() != 2 || (bits != 16 && bits != 8))
    e.fail(op, "ttg.local_alloc: only copies of 2-D tiles of 16- and 8-bit elements are lowered so far");
  // Consecutive allocs (a dot's A and B) share one barrier before their
  // stores (earlier readers of the buffers, e.g. the previous iteration's
  // dot, are done) and one after (the stores are visible).
  auto storingAlloc = [](Operation* o) { return o && o->is(OpCode::LocalAlloc) && o->numOperands() == 1; };
  if (!storingAlloc(op->prevOp())) e.barrier();
  // Vectors along the tile's contiguous dim (dim 0 when transposed).
  storeToSharedTile(e, e.regs(x), e.layout(x.type()), static_cast<int>(gpu::sharedContiguousDim(st.encoding())),
                    sharedOffsets(st), base, bits / 8);
  if (!storingAlloc(op->nextOp())) {
    // Tensor-core reads of shared memory go through the async proxy.
    if (e.options().target.capability >= 90) e.ins("fence.proxy.async.shared::cta");
    e.barrier();
  }
  e.bind(op->result(), {base});
}

namespace {

/// Reads the 16-bit mma.sync operand `dst` (op's result) from the swizzled
/// tile `tile` at shared address `base` with ldmatrix, and binds it.
void loadOperandFragments(Emitter& e, Operation* op, const SwizzledRows& tile, const std::string& base) {
  Type dst = op->result().type();
  Encoding enc = dst.encoding();
  const std::vector<int64_t>& shape = dst.shape();
  bool isA = enc.opIdx() == 0;
  int kDim = isA ? 1 : 0, nonK = 1 - kDim;
  const LinearLayout& dstLL = e.layout(dst);
  bool trans = tile.colDim != kDim;

  // Registers of the result by coordinates (lane 0, warp 0).
  std::map<std::vector<int64_t>, int64_t> index;
  int64_t n = e.numRegs(dst);
  for (int64_t i = 0; i < n; ++i) index.emplace(e.registerCoords(dstLL, i), i);
  // B: the thread's next N tile, 8 columns on unless warps along N take
  // turns (8 * their number on): an .x4 reads two N tiles at once.
  int64_t nextTile = 8;
  if (!isA) {
    int64_t nearest = 0;
    for (const auto& [c, i] : index)
      if (c[kDim] == 0 && c[nonK] >= 8 && (nearest == 0 || c[nonK] < nearest)) nearest = c[nonK];
    if (nearest != 0) nextTile = nearest;
  }

  // Lane l of an ldmatrix gives the address of row l % 8 of matrix l / 8.
  // Matrix offsets: A (nonK, k) = (0,0) (8,0) (0,8) (8,8), the registers
  // a0..a3; B (k, n) = (0,0) (8,0) (0,t) (8,t), b0 b1 of two N tiles t apart.
  auto unit = [](int dim, int64_t v) {
    std::vector<int64_t> b(2, 0);
    b[dim] = v;
    return b;
  };
  int rowDim = 1 - tile.colDim;
  LinearLayout::Bases bases;
  auto& lanes = bases[static_cast<int>(HwDim::Lane)];
  for (int64_t s : {1, 2, 4}) lanes.push_back(unit(rowDim, s));
  lanes.push_back(isA ? unit(nonK, 8) : unit(kDim, 8));
  lanes.push_back(isA ? unit(kDim, 8) : unit(nonK, nextTile));
  bases[static_cast<int>(HwDim::Warp)] = dstLL.bases(HwDim::Warp);
  LinearLayout addressLL(bases, shape);
  std::string thread =
      e.threadLinear(addressLL, [&](const std::vector<int64_t>& b) { return tile(b); }, false);
  Regs out(n);
  auto place = [&](const std::vector<int64_t>& at, const std::string& word) {
    std::vector<int64_t> next = at;
    next[kDim] += 1;
    auto lo = index.find(at), hi = index.find(next);
    if (lo == index.end() || hi == index.end()) e.fail(op, "ldmatrix fragment outside the dot operand layout");
    std::string l = e.reg(RegClass::B16), h = e.reg(RegClass::B16);
    e.ins("mov.b32 {" + l + ", " + h + "}, " + word);
    out[lo->second] = l;
    out[hi->second] = h;
  };
  auto add = [](std::vector<int64_t> c, int dim, int64_t v) {
    c[dim] += v;
    return c;
  };
  std::string opcode = std::string("ldmatrix.sync.aligned.m8n8.") + "%X" + (trans ? ".trans" : "") + ".shared.b16";
  auto load = [&](const std::vector<int64_t>& at, int count) {
    std::vector<std::string> regs;
    for (int j = 0; j < count; ++j) regs.push_back(e.reg(RegClass::B32));
    std::string list;
    for (int j = 0; j < count; ++j) list += (j ? ", " : "") + regs[j];
    std::string text = opcode;
    text.replace(text.find("%X"), 2, "x" + std::to_string(count));
    e.ins(text + " {" + list + "}, [" + byteAddress(e, e.xorConst(thread, tile(at)), base) + "]");
    return regs;
  };
  for (int64_t i = 0; i < n; ++i) {
    std::vector<int64_t> c = e.registerCoords(dstLL, i);
    if (!out[i].empty() || c[kDim] % 16 != 0 || c[nonK] % (isA ? 16 : 8) != 0) continue;
    if (isA) {
      std::vector<std::string> r = load(c, 4);
      place(c, r[0]);
      place(add(c, nonK, 8), r[1]);
      place(add(c, kDim, 8), r[2]);
      place(add(add(c, nonK, 8), kDim, 8), r[3]);
      continue;
    }
    std::vector<int64_t> right = add(c, nonK, nextTile);
    auto pair = index.find(right);
    bool both = pair != index.end() && out[pair->second].empty();
    std::vector<std::string> r = load(c, both ? 4 : 2);
    place(c, r[0]);
    place(add(c, kDim, 8), r[1]);
    if (both) {
      place(right, r[2]);
      place(add(right, kDim, 8), r[3]);
    }
  }
  for (int64_t i = 0; i < n; ++i)
    if (out[i].empty()) e.fail(op, "ldmatrix did not fill every register of the dot operand");
  e.bind(op->result(), std::move(out));
}

}  // namespace

bool emitDotOperandConvert(Emitter& e, Operation* op) {
  Type src = op->operand(0).type(), dst = op->result().type();
  if (!gpu::isLdmatrixOperand(dst)) return false;
  const std::vector<int64_t>& shape = dst.shape();
  const LinearLayout& srcLL = e.layout(src);
  SwizzledRows tile(shape, contiguousDim(srcLL));
  e.needScratch(shape[0] * shape[1] * 2);
  e.barrier();
  storeToSharedTile(e, e.regs(op->operand(0)), srcLL, tile.colDim, tile, e.smemBase(), 2);
  e.barrier();
  loadOperandFragments(e, op, tile, e.smemBase());
  return true;
}

void emitLocalLoad(Emitter& e, Operation* op) {
  Type src = op->operand(0).type(), dst = op->result().type();
  Encoding shared = src.encoding();
  if (!gpu::isLdmatrixOperand(dst) || shared.kind() != EncodingKind::SwizzledShared)
    e.fail(op, "ttg.local_load: only 16-bit mma.sync operands from #ttg.swizzled_shared tiles are lowered so far");
  SwizzledRows tile(dst.shape(), static_cast<int>(shared.order()[0]));
  auto offsets = sharedOffsets(src);
  for (int d = 0; d < 2; ++d)
    for (int64_t bit = 1; bit < dst.shape()[d]; bit *= 2) {
      std::vector<int64_t> c(2, 0);
      c[d] = bit;
      if (offsets(c) != tile(c)) e.fail(op, "ttg.local_load: " + src.str() + " is not the swizzled layout ldmatrix reads");
    }
  loadOperandFragments(e, op, tile, e.regs(op->operand(0))[0]);
}

}  // namespace tessera::ptx
