//===- Dot.cpp - tt.dot on tensor cores (mma.sync) and with FMAs -----------===//
//
// AssignLayouts (DotEncodings.cpp) has put the operands in the layouts the
// computation wants, so each thread already holds exactly the elements it
// feeds in:
//
//  * nvidia_mma version 2 result: every 16 x 8 tile of the accumulator that
//    the thread's warp owns is one chain of mma.sync instructions along K
//    (m16n8k16 for fp16/bf16, m16n8k8 for tf32, m16n8k32 for int8). The
//    PTX ISA fixes which elements each lane passes in which register; lane
//    0's are found here by coordinates in the operands' linear layouts (the
//    other lanes' follow, the layouts being those fragments, MmaLayoutTest).
//    Operand registers are packed once per tile and reused across the tiles
//    that share them; the K loop is outermost so independent mma chains
//    interleave.
//  * nvidia_mma version 3 result (sm_90a): wgmma. A (K-major) and B
//    (N-major) arrive in shared memory (ttg.local_alloc, #ttg.nvmma_shared:
//    rows of up to 128 bytes in column atoms, 16-byte chunks XOR-swizzled
//    by row; the 32/64/128-byte swizzle of the row size), or transposed
//    (the flags say which); fp8 (e4m3/e5m2) tiles are always K-major, the
//    only form wgmma reads them in. Each warpgroup issues one
//    wgmma.mma_async m64nNk16 (fp8: k32, 32 bytes of K either way) per
//    64-row tile and K step with matrix
//    descriptors (start address >> 4 | LBO >> 4 << 16 | SBO >> 4 << 32 |
//    swizzle mode << 62), commits and waits for the group. The
//    accumulator fragment is the version-3 mma layout (EncodingLayouts.cpp):
//    d[4j + 2h + c] at rows g + 8h, column 8j + 2t + c of the warp's rows.
//  * any other result layout: FMAs. Result register r at (m, n) is
//    acc + sum over k of A[m, k] * B[k, n] in k order, with A's and B's
//    registers found by coordinates (fmaOperandLayout gives the thread all
//    of K for its rows and columns).
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "ptx/Emitter.h"
#include "tessera/ir/Matchers.h"
#include "tessera/ir/OpViews.h"
#include "tessera/Error.h"

namespace tessera::ptx {

using namespace ir;
using gpu::LinearLayout;

std::string pack32(Emitter& e, const Regs& regs, const std::vector<int64_t>& idx) {
  if (idx.size() == 1) return regs[idx[0]];
  std::string lo = e.reg(RegClass::B32);
  e.ins("mov.b32 " + lo + ", {" + regs[idx[0]] + ", " + regs[idx[1]] + "}");
  if (idx.size() == 2) return lo;
  // Four 8-bit values in b16 registers: bytes 0 and 2 of each pair.
  std::string hi = e.reg(RegClass::B32), out = e.reg(RegClass::B32);
  e.ins("mov.b32 " + hi + ", {" + regs[idx[2]] + ", " + regs[idx[3]] + "}");
  e.ins("prmt.b32 " + out + ", " + lo + ", " + hi + ", 0x6420");
  return out;
}

namespace {

/// wgmma.wait_group N; a wait for all groups (N = 0) right after another,
/// with no commit or label between, is dropped: nothing is outstanding.
void waitWgmma(Emitter& e, int64_t pendings) {
  if (pendings == 0 && e.wgmmaDrained()) return;
  e.ins("wgmma.wait_group.sync.aligned " + std::to_string(pendings));
  if (pendings == 0) e.noteWgmmaDrained();
}

/// Register index of each element coordinate a thread holds, read at lane 0
/// of warp 0 (the thread's own lane/warp part is the same XOR for all).
class RegisterFinder {
 public:
  RegisterFinder(Emitter& e, Type t) {
    const LinearLayout& ll = e.layout(t);
    int64_t n = e.numRegs(t);
    for (int64_t i = 0; i < n; ++i) index_.emplace(e.registerCoords(ll, i), i);
  }
  /// The register holding `coords`; a missing one is a layout bug.
  int64_t at(Emitter& e, Operation* op, const std::vector<int64_t>& coords) const {
    auto it = index_.find(coords);
    if (it == index_.end()) e.fail(op, "tt.dot: an operand layout does not hold the elements the product needs");
    return it->second;
  }

 private:
  std::map<std::vector<int64_t>, int64_t> index_;
};

std::vector<int64_t> offsetBy(std::vector<int64_t> c, int64_t dRow, int64_t dCol) {
  c[c.size() - 2] += dRow;
  c[c.size() - 1] += dCol;
  return c;
}

//===----------------------------------------------------------------------===//
// mma.sync
//===----------------------------------------------------------------------===//

struct MmaShape {
  std::string opcode;  ///< without operands
  int64_t k = 16;      ///< K of one instruction
  bool f16Acc = false;
};

MmaShape mmaShape(Emitter& e, Operation* op) {
  Type in = op->operand(0).type().elementType(), out = op->result().type().elementType();
  switch (in.kind()) {
    case TypeKind::F16:
      if (out.kind() == TypeKind::F16) return {"mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", 16, true};
      return {"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 16, false};
    case TypeKind::BF16: return {"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", 16, false};
    case TypeKind::F32: return {"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", 8, false};
    case TypeKind::I8: return {"mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", 32, false};
    default: e.fail(op, "tt.dot: no mma.sync for operands of type " + in.str());
  }
}

std::string joinRegs(const std::vector<std::string>& r) {
  std::string s = "{";
  for (size_t i = 0; i < r.size(); ++i) s += (i ? ", " : "") + r[i];
  return s + "}";
}

void emitMmaV2(Emitter& e, Operation* op) {
  DotOp dot(op);
  Value a = dot.a(), b = dot.b(), c = dot.acc(), d = dot.result();
  MmaShape shape = mmaShape(e, op);
  int64_t kWidth = a.type().encoding().kWidth();
  int64_t K = a.type().shape().back();
  RegisterFinder findA(e, a.type()), findB(e, b.type()), findC(e, d.type());
  const Regs& ra = e.regs(a);
  const Regs& rb = e.regs(b);
  const Regs& rc = e.regs(c);
  const LinearLayout& lc = e.layout(d.type());

  // Accumulator tiles: the registers at offsets (0,0), (0,1), (8,0), (8,1)
  // of each 16 x 8 tile, in the instruction's c0..c3 order.
  struct Tile {
    std::vector<int64_t> base;
    int64_t regs[4];
  };
  std::vector<Tile> tiles;
  int64_t numC = e.numRegs(d.type());
  for (int64_t r = 0; r < numC; ++r) {
    std::vector<int64_t> cc = e.registerCoords(lc, r);
    int rank = static_cast<int>(cc.size());
    if (cc[rank - 2] % 16 != 0 || cc[rank - 1] % 8 != 0) continue;
    if (findC.at(e, op, cc) != r) continue;  // a repeated register
    Tile t{cc, {}};
    for (int j = 0; j < 4; ++j) t.regs[j] = findC.at(e, op, offsetBy(cc, (j & 2) ? 8 : 0, j & 1));
    tiles.push_back(std::move(t));
  }

  // Current accumulator operands of each tile (b32; fp16 pairs packed).
  std::vector<std::vector<std::string>> acc(tiles.size());
  for (size_t t = 0; t < tiles.size(); ++t) {
    if (shape.f16Acc) {
      acc[t] = {pack32(e, rc, {tiles[t].regs[0], tiles[t].regs[1]}), pack32(e, rc, {tiles[t].regs[2], tiles[t].regs[3]})};
    } else {
      for (int j = 0; j < 4; ++j) acc[t].push_back(rc[tiles[t].regs[j]]);
    }
  }

  std::map<std::vector<int64_t>, std::vector<std::string>> packedA, packedB;
  auto operandA = [&](const std::vector<int64_t>& base) -> const std::vector<std::string>& {
    auto it = packedA.find(base);
    if (it != packedA.end()) return it->second;
    std::vector<std::string> regs;
    for (int j = 0; j < 4; ++j) {
      std::vector<int64_t> idx;
      for (int64_t x = 0; x < kWidth; ++x)
        idx.push_back(findA.at(e, op, offsetBy(base, (j & 1) ? 8 : 0, ((j & 2) ? 4 * kWidth : 0) + x)));
      regs.push_back(pack32(e, ra, idx));
    }
    return packedA[base] = std::move(regs);
  };
  auto operandB = [&](const std::vector<int64_t>& base) -> const std::vector<std::string>& {
    auto it = packedB.find(base);
    if (it != packedB.end()) return it->second;
    std::vector<std::string> regs;
    for (int j = 0; j < 2; ++j) {
      std::vector<int64_t> idx;
      for (int64_t x = 0; x < kWidth; ++x) idx.push_back(findB.at(e, op, offsetBy(base, (j ? 4 * kWidth : 0) + x, 0)));
      regs.push_back(pack32(e, rb, idx));
    }
    return packedB[base] = std::move(regs);
  };

  for (int64_t k0 = 0; k0 < K; k0 += shape.k) {
    for (size_t t = 0; t < tiles.size(); ++t) {
      std::vector<int64_t> aBase = tiles[t].base, bBase = tiles[t].base;
      int rank = static_cast<int>(aBase.size());
      aBase[rank - 1] = k0;
      bBase[rank - 2] = k0;
      const std::vector<std::string>& fa = operandA(aBase);
      const std::vector<std::string>& fb = operandB(bBase);
      std::vector<std::string> out;
      for (size_t j = 0; j < acc[t].size(); ++j) out.push_back(e.reg(RegClass::B32));
      e.ins(shape.opcode + " " + joinRegs(out) + ", " + joinRegs(fa) + ", " + joinRegs(fb) + ", " + joinRegs(acc[t]));
      acc[t] = std::move(out);
    }
  }

  Regs result(numC);
  for (size_t t = 0; t < tiles.size(); ++t) {
    if (shape.f16Acc) {
      for (int half = 0; half < 2; ++half) {
        std::string lo = e.reg(RegClass::B16), hi = e.reg(RegClass::B16);
        e.ins("mov.b32 {" + lo + ", " + hi + "}, " + acc[t][half]);
        result[tiles[t].regs[2 * half]] = lo;
        result[tiles[t].regs[2 * half + 1]] = hi;
      }
    } else {
      for (int j = 0; j < 4; ++j) result[tiles[t].regs[j]] = acc[t][j];
    }
  }
  for (int64_t r = 0; r < numC; ++r)
    if (result[r].empty()) result[r] = result[findC.at(e, op, e.registerCoords(lc, r))];
  e.bind(d, std::move(result));
}

//===----------------------------------------------------------------------===//
// wgmma
//===----------------------------------------------------------------------===//

/// The fields of a 64-bit wgmma matrix descriptor for a tile at byte
/// `address` (a b32 register): the low word (start address >> 4, LBO >> 4
/// << 16) in a register, the high word (SBO >> 4, swizzle mode << 30) a
/// constant.
struct DescriptorBase {
  std::string lo;
  int64_t hi;
};

DescriptorBase descriptorBase(Emitter& e, const std::string& address, int64_t lbo, int64_t sbo, int64_t swizzle) {
  std::string start = e.reg(RegClass::B32), lo = e.reg(RegClass::B32);
  e.ins("bfe.u32 " + start + ", " + address + ", 4, 14");
  e.ins("or.b32 " + lo + ", " + start + ", " + std::to_string((lbo >> 4) << 16));
  return {lo, (sbo >> 4) | (swizzle << 30)};
}

/// The descriptor `offset` bytes past the base: offset >> 4 added to the
/// start-address field (shared addresses are below 256 KiB, so the field's
/// 14 bits never carry), the high word a constant ptxas sees.
std::string descriptorAt(Emitter& e, const DescriptorBase& base, int64_t offset) {
  if (offset % 16 != 0) throw Error("wgmma descriptor offset not a multiple of 16 bytes");
  std::string lo = base.lo, d = e.reg(RegClass::B64);
  if (offset != 0) {
    lo = e.reg(RegClass::B32);
    e.ins("add.u32 " + lo + ", " + base.lo + ", " + std::to_string(offset >> 4));
  }
  e.ins("mov.b64 " + d + ", {" + lo + ", " + e.constInt(Type::i32(), base.hi) + "}");
  return d;
}

/// How wgmma's matrix descriptors describe a 2-D nvmma_shared tile of
/// 16-bit or 8-bit elements, as `rows` x `cols` with cols contiguous in
/// memory (in column atoms): the tile itself, or its transpose when the
/// encoding says dim 0 is the contiguous one.
struct SharedTile {
  int64_t elemBytes, rows, atomCols, rowBytes, atomBytes, swizzleMode;
  bool transposed;
  explicit SharedTile(Type t) {
    Encoding enc = t.encoding();
    transposed = enc.transposed();
    rows = t.shape()[transposed ? 1 : 0];
    int64_t cols = t.shape()[transposed ? 0 : 1];
    int64_t swizzle = enc.swizzlingByteWidth();
    int64_t bits = t.elementType().bitWidth();
    if ((bits != 16 && bits != 8) || (swizzle != 32 && swizzle != 64 && swizzle != 128))
      throw Error("wgmma operand " + t.str() + ": only 16- and 8-bit elements in 32/64/128-byte swizzled tiles are "
                  "lowered so far");
    elemBytes = bits / 8;
    atomCols = std::min<int64_t>(cols, swizzle / elemBytes);
    rowBytes = atomCols * elemBytes;
    atomBytes = rows * rowBytes;
    swizzleMode = swizzle == 128 ? 1 : swizzle == 64 ? 2 : 3;
  }
  /// Byte offset of element (r, c) of the memory view (rows x contiguous
  /// cols) where r is a multiple of 8 and c of the 16-byte chunk (the start
  /// of a descriptor).
  int64_t at(int64_t r, int64_t c) const {
    return (c / atomCols) * atomBytes + r * rowBytes + (c % atomCols) * elemBytes;
  }
  /// The descriptor offset of operand element (i, j) (i along the
  /// operand's dim 0) and whether the operand is K-major: A (M x K) is when
  /// not transposed, B (K x N) when transposed.
  int64_t operandAt(int64_t i, int64_t j) const { return transposed ? at(j, i) : at(i, j); }
  /// LBO / SBO: K-major tiles step 8 rows of the memory view per SBO (LBO
  /// unused with swizzling); MN-major ones also step whole column atoms
  /// per LBO.
  int64_t lbo(bool kMajor) const { return kMajor ? 16 : atomBytes; }
  int64_t sbo() const { return 8 * rowBytes; }
};

/// The registers of the scf.for iteration argument that `dot`'s result is
/// yielded to, when that is its only use and every read of the argument
/// (directly or through ttng.warp_group_dot_wait) comes before `dot` in
/// the body: the argument is dead by then, so the dot may accumulate there.
const Regs* carriedRegisters(Emitter& e, Operation* dot) {
  Value r = dot->result();
  Block* body = dot->block();
  if (!r.hasOneUse() || !body->parentOp() || !body->parentOp()->is(OpCode::For)) return nullptr;
  OpOperand* use = r.uses().front();
  if (use->owner != body->terminator()) return nullptr;
  Value carried = body->argument(use->index + 1);
  std::set<Operation*> before;
  for (Operation* o = body->front(); o && o != dot; o = o->nextOp()) before.insert(o);
  std::vector<Value> reads = {carried};
  for (size_t i = 0; i < reads.size(); ++i)
    for (OpOperand* u : reads[i].uses()) {
      if (!before.count(body->findAncestorOp(u->owner))) return nullptr;
      if (u->owner->is(OpCode::WarpGroupDotWait)) reads.push_back(u->owner->result(u->index));
    }
  return &e.regs(carried);
}

void emitWgmma(Emitter& e, Operation* op) {
  DotOp dot(op);
  Value a = dot.a(), b = dot.b(), c = dot.acc(), d = dot.result();
  const std::vector<int64_t>& shape = d.type().shape();
  int64_t K = a.type().shape()[1];
  int64_t instrN = d.type().encoding().instrShape()[1];
  // K per instruction: 32 bytes of A's and B's rows (16 fp16/bf16, 32 fp8).
  auto typeName = [&](Type t) -> std::string {
    switch (t.elementType().kind()) {
      case TypeKind::F16: return "f16";
      case TypeKind::BF16: return "bf16";
      case TypeKind::F8E4M3FN: return "e4m3";
      case TypeKind::F8E5M2: return "e5m2";
      default: e.fail(op, "tt.dot: wgmma is lowered for fp16, bf16, e4m3 and e5m2, not " + t.str());
    }
  };
  std::string aName = typeName(a.type()), bName = typeName(b.type());
  bool fp8 = a.type().elementType().bitWidth() == 8;
  int64_t kStep = fp8 ? 32 : 16;
  // A in registers: the dot_op layout of this result (WgmmaRegisterOperands.cpp).
  bool aInRegisters = a.type().encoding().isDotOperand();
  if ((!aInRegisters && !a.type().encoding().isNvmmaShared()) || !b.type().encoding().isNvmmaShared())
    e.fail(op, "tt.dot on wgmma needs B in shared memory (ttg.local_alloc with #ttg.nvmma_shared) and A there or "
               "in registers (#ttg.dot_op of the result's encoding)");
  // B: K x N, N-major (wgmma's transposed B) unless transposed (K-major).
  SharedTile tileB(b.type());
  bool bKMajor = tileB.transposed;
  // fp8 wgmma has no transpose flags: both operands are K-major.
  if (fp8 && (aInRegisters || !bKMajor || SharedTile(a.type()).transposed))
    e.fail(op, "tt.dot: fp8 wgmma reads A and B from K-major shared tiles");

  // The warpgroup's rows and columns: warp bits past the first two.
  const LinearLayout& lc = e.layout(d.type());
  LinearLayout::Bases groupBases;
  groupBases[static_cast<int>(HwDim::Lane)].assign(lc.numBases(HwDim::Lane), std::vector<int64_t>(2, 0));
  groupBases[static_cast<int>(HwDim::Warp)] = lc.bases(HwDim::Warp);
  for (int w = 0; w < 2 && w < lc.numBases(HwDim::Warp); ++w)
    groupBases[static_cast<int>(HwDim::Warp)][w] = std::vector<int64_t>(2, 0);
  LinearLayout group(groupBases, shape);
  // (linear in the coordinates: warpgroup offsets are multiples of 64 rows
  // and of whole column atoms)
  std::string bCols =
      e.threadLinear(group, [&](const std::vector<int64_t>& x) { return tileB.operandAt(0, x[1]); }, false);
  std::string bAddr = e.reg(RegClass::B32);
  e.ins("add.u32 " + bAddr + ", " + e.regs(b)[0] + ", " + bCols);
  // Each instruction's descriptors: the tile's base plus its offset.
  DescriptorBase bDesc = descriptorBase(e, bAddr, tileB.lbo(bKMajor), tileB.sbo(), tileB.swizzleMode);
  std::string bFlag = bKMajor ? "0" : "1";
  // A's operand text for the 64-row tile at m0 and the K step at k0, with
  // the flags after the scale-d predicate (scale-a/b 1, then the transpose
  // flags: 0 for a K-major operand; A in registers has none).
  std::function<std::string(int64_t, int64_t)> aOperand;
  std::string flags;
  if (aInRegisters) {
    // a0..a3: rows +0/+8 of the warp's 16 at K +0..1, then at K +8..9
    // (lane 0; the layout's lane and warp bits give the other threads').
    RegisterFinder findA(e, a.type());
    const Regs& ra = e.regs(a);
    aOperand = [&e, op, findA, &ra](int64_t m0, int64_t k0) {
      std::vector<std::string> r;
      for (int q = 0; q < 4; ++q) {
        int64_t row = m0 + 8 * (q & 1), col = k0 + 8 * (q >> 1);
        r.push_back(pack32(e, ra, {findA.at(e, op, {row, col}), findA.at(e, op, {row, col + 1})}));
      }
      return joinRegs(r);
    };
    flags = ", 1, 1, " + bFlag;
  } else {
    // A: M x K, K-major unless transposed.
    SharedTile tileA(a.type());
    std::string aRows =
        e.threadLinear(group, [&](const std::vector<int64_t>& x) { return tileA.operandAt(x[0], 0); }, false);
    std::string aAddr = e.reg(RegClass::B32);
    e.ins("add.u32 " + aAddr + ", " + e.regs(a)[0] + ", " + aRows);
    DescriptorBase aDesc = descriptorBase(e, aAddr, tileA.lbo(!tileA.transposed), tileA.sbo(), tileA.swizzleMode);
    aOperand = [&e, tileA, aDesc](int64_t m0, int64_t k0) { return descriptorAt(e, aDesc, tileA.operandAt(m0, k0)); };
    flags = std::string(", 1, 1, ") + (tileA.transposed ? "1" : "0") + ", " + bFlag;
  }
  if (fp8) flags = ", 1, 1";

  // Instruction tiles of this warp (lane 0): d0 of each at (m0, n0).
  RegisterFinder findC(e, d.type());
  const Regs& rc = e.regs(c);
  int64_t numC = e.numRegs(d.type());
  struct Tile {
    int64_t m0, n0;
    std::vector<int64_t> regs;
    std::vector<std::string> acc;
  };
  std::vector<Tile> tiles;
  // A loop-carried accumulator used only here is accumulated into in place:
  // no copies, so an asynchronous dot's registers are touched by nothing
  // but wgmma until its wait (ptxas would otherwise serialize the dots).
  // (Directly in that loop's body: in a nested loop the dot would run again
  // on its own result.)
  bool inPlace = !c.definingOp() && c.hasOneUse() && c.ownerBlock() == op->block() && c.ownerBlock()->parentOp() &&
                 c.ownerBlock()->parentOp()->is(OpCode::For);
  // An asynchronous dot that is not in place accumulates in the registers
  // of the iteration argument its result is carried to (PipelineLoops.cpp,
  // deferDotWait): no copy may read them while it runs.
  // One into a zero accumulator that is not carried writes fresh registers
  // nothing reads before its wait (ping-pong's Q K^T).
  const Regs* carriedTarget = nullptr;
  if (op->boolAttr("is_async") && !inPlace) {
    carriedTarget = carriedRegisters(e, op);
    if (!carriedTarget && !ir::isZeroConstant(c))
      e.fail(op, "tt.dot {is_async}: the accumulator must be a loop-carried value used only by this dot, or the "
                 "result only carried to the next iteration and read there before this dot");
  }
  // A zero accumulator is not copied: the first K step does not read it
  // (scale-d false).
  bool zeroAcc = !inPlace && ir::isZeroConstant(c);
  for (int64_t r = 0; r < numC; ++r) {
    std::vector<int64_t> cc = e.registerCoords(lc, r);
    if (cc[0] % 64 != 0 || cc[1] % instrN != 0) continue;
    Tile t{cc[0], cc[1], {}, {}};
    for (int64_t i = 0; i < instrN / 2; ++i) {
      int64_t reg = findC.at(e, op, {cc[0] + 8 * ((i >> 1) & 1), cc[1] + 8 * (i >> 2) + (i & 1)});
      std::string acc = inPlace ? rc[reg] : carriedTarget ? (*carriedTarget)[reg] : e.reg(RegClass::B32);
      if (!inPlace && !zeroAcc && acc != rc[reg]) e.ins("mov.b32 " + acc + ", " + rc[reg]);
      t.regs.push_back(reg);
      t.acc.push_back(acc);
    }
    tiles.push_back(std::move(t));
  }

  std::string opcode = "wgmma.mma_async.sync.aligned.m64n" + std::to_string(instrN) + "k" + std::to_string(kStep) +
                       ".f32." + aName + "." + bName;
  // Every operand register and descriptor is written before the fence:
  // a register written between two wgmmas makes ptxas insert another
  // fence (warpgroup.arrive) there.
  std::vector<std::string> instructions;
  for (int64_t k0 = 0; k0 < K; k0 += kStep) {
    for (Tile& t : tiles) {
      std::string aText = aOperand(t.m0, k0);
      std::string db = descriptorAt(e, bDesc, tileB.operandAt(k0, t.n0));
      // scale-d: accumulate, except into a zero accumulator's first step.
      instructions.push_back(opcode + " " + joinRegs(t.acc) + ", " + aText + ", " + db + ", " +
                             e.constPred(!(zeroAcc && k0 == 0)) + flags);
    }
  }
  e.ins("wgmma.fence.sync.aligned");
  for (const std::string& i : instructions) e.ins(i);
  e.ins("wgmma.commit_group.sync.aligned");
  e.noteWgmmaCommitted();
  if (!op->boolAttr("is_async")) waitWgmma(e, 0);

  Regs result(numC);
  for (const Tile& t : tiles)
    for (size_t i = 0; i < t.regs.size(); ++i) result[t.regs[i]] = t.acc[i];
  for (int64_t r = 0; r < numC; ++r)
    if (result[r].empty()) e.fail(op, "tt.dot: a wgmma accumulator register is not covered by an instruction tile");
  e.bind(d, std::move(result));
}

//===----------------------------------------------------------------------===//
// FMA
//===----------------------------------------------------------------------===//

std::string fmaOpcode(Emitter& e, Operation* op, Type acc) {
  switch (acc.kind()) {
    case TypeKind::F16: return "fma.rn.f16";
    case TypeKind::F32: return "fma.rn.f32";
    case TypeKind::F64: return "fma.rn.f64";
    case TypeKind::I32: return "mad.lo.s32";
    case TypeKind::I64: return "mad.lo.s64";
    default: e.fail(op, "tt.dot: no FMA for an accumulator of type " + acc.str());
  }
}

void emitFmaDot(Emitter& e, Operation* op) {
  DotOp dot(op);
  Value a = dot.a(), b = dot.b(), c = dot.acc(), d = dot.result();
  Type accType = d.type().elementType();
  Type inType = a.type().elementType();
  std::string fma = fmaOpcode(e, op, accType);
  int64_t K = a.type().shape().back();
  RegisterFinder findA(e, a.type()), findB(e, b.type());
  const Regs& ra = e.regs(a);
  const Regs& rb = e.regs(b);
  const Regs& rc = e.regs(c);
  // Operands widened to the accumulator type once per register.
  std::map<std::pair<int, int64_t>, std::string> widened;
  auto operand = [&](int which, int64_t i) -> const std::string& {
    auto it = widened.find({which, i});
    if (it != widened.end()) return it->second;
    const std::string& v = which == 0 ? ra[i] : rb[i];
    return widened[{which, i}] = inType == accType ? v : emitCast(e, op, v, inType, accType);
  };
  const LinearLayout& lc = e.layout(d.type());
  int64_t numC = e.numRegs(d.type());
  Regs result(numC);
  for (int64_t r = 0; r < numC; ++r) {
    std::vector<int64_t> cc = e.registerCoords(lc, r);
    int rank = static_cast<int>(cc.size());
    std::string sum = rc[r];
    for (int64_t k = 0; k < K; ++k) {
      std::vector<int64_t> ac = cc, bc = cc;
      ac[rank - 1] = k;
      bc[rank - 2] = k;
      std::string next = e.reg(accType);
      e.ins(fma + " " + next + ", " + operand(0, findA.at(e, op, ac)) + ", " + operand(1, findB.at(e, op, bc)) + ", " +
            sum);
      sum = next;
    }
    result[r] = sum;
  }
  e.bind(d, std::move(result));
}

}  // namespace

void emitDot(Emitter& e, Operation* op) {
  if (op->is(OpCode::WarpGroupDotWait)) {
    waitWgmma(e, op->intAttr("pendings"));
    for (unsigned i = 0; i < op->numOperands(); ++i) e.bind(op->result(i), e.regs(op->operand(i)));
    return;
  }
  Encoding enc = op->result().type().encoding();
  if (enc.isNvidiaMma()) {
    if (enc.versionMajor() == 3) return emitWgmma(e, op);
    if (enc.versionMajor() != 2) e.fail(op, "tt.dot: nvidia_mma version " + std::to_string(enc.versionMajor()) +
                                                " results are not lowered");
    return emitMmaV2(e, op);
  }
  emitFmaDot(e, op);
}

}  // namespace tessera::ptx
