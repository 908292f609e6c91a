//===- Reduce.cpp - tt.reduce and tt.scan ----------------------------------===//
//
// Reductions along one axis of a tensor in layout L, in three levels, each
// combining with the op's own combine region (so sums, max, argmax tuples
// and user combine functions all take the same path):
//   1. in-thread: registers whose coordinates differ only along the axis;
//   2. across lanes: a butterfly of shfl.sync.bfly over the lane bits whose
//      basis moves along the axis (every lane ends with the warp's result);
//   3. across warps: partials of the warps along the axis go through shared
//      memory; every thread then combines them in warp order.
// Duplicated registers (zero register bases) are skipped so a sum counts
// each element once. The result is in slice(L, axis): its registers are the
// groups of step 1, found by coordinate.
//
// Scans: in-thread prefix over each thread's registers along the axis, then
// the thread totals go through shared memory and each thread folds the
// totals of the threads before it (in axis order) into its prefix.
//
//===----------------------------------------------------------------------===//

#include <map>

#include "ptx/Emitter.h"

namespace tessera::ptx {

using namespace ir;
using gpu::LinearLayout;

Regs emitCombine(Emitter& e, Region& region, const Regs& args) {
  Block& block = region.front();
  for (unsigned i = 0; i < block.numArguments(); ++i) e.bind(block.argument(i), {args[i]});
  e.emitBlock(block);
  Operation* term = block.terminator();
  Regs out;
  for (Value v : term->operands()) out.push_back(e.regs(v)[0]);
  return out;
}

namespace {

int bytesOf(Type elem) {
  RegClass c = Emitter::regClass(elem);
  return c == RegClass::B64 ? 8 : c == RegClass::B32 ? 4 : 2;
}

/// shfl.sync.bfly of one scalar register of any class.
std::string shuffleXor(Emitter& e, Type elem, const std::string& v, int laneMask) {
  RegClass c = Emitter::regClass(elem);
  std::string m = std::to_string(laneMask);
  auto shfl32 = [&](const std::string& x) {
    std::string d = e.reg(RegClass::B32);
    e.ins("shfl.sync.bfly.b32 " + d + ", " + x + ", " + m + ", 31, -1");
    return d;
  };
  switch (c) {
    case RegClass::B32: return shfl32(v);
    case RegClass::B64: {
      std::string lo = e.reg(RegClass::B32), hi = e.reg(RegClass::B32), d = e.reg(RegClass::B64);
      e.ins("mov.b64 {" + lo + ", " + hi + "}, " + v);
      std::string a = shfl32(lo), b = shfl32(hi);
      e.ins("mov.b64 " + d + ", {" + a + ", " + b + "}");
      return d;
    }
    case RegClass::B16: {
      std::string w = e.reg(RegClass::B32), d = e.reg(RegClass::B16);
      e.ins("cvt.u32.u16 " + w + ", " + v);
      e.ins("cvt.u16.u32 " + d + ", " + shfl32(w));
      return d;
    }
    case RegClass::Pred: {
      std::string w = e.reg(RegClass::B32), d = e.reg(RegClass::Pred);
      e.ins("selp.b32 " + w + ", 1, 0, " + v);
      e.ins("setp.ne.b32 " + d + ", " + shfl32(w) + ", 0");
      return d;
    }
  }
  return v;
}

std::string toStorable(Emitter& e, Type elem, const std::string& v) {
  if (!elem.isInteger(1)) return v;
  std::string d = e.reg(RegClass::B16);
  e.ins("selp.b16 " + d + ", 1, 0, " + v);
  return d;
}

std::string fromStorable(Emitter& e, Type elem, const std::string& v) {
  if (!elem.isInteger(1)) return v;
  std::string d = e.reg(RegClass::Pred);
  e.ins("setp.ne.b16 " + d + ", " + v + ", 0");
  return d;
}

std::vector<int64_t> project(std::vector<int64_t> c, int64_t axis) {
  c[axis] = 0;
  return c;
}

void emitReduce(Emitter& e, Operation* op) {
  int64_t axis = op->intAttr("axis");
  unsigned n = op->numOperands();
  Type t = op->operand(0).type();
  const LinearLayout& ll = e.layout(t);
  std::vector<Type> elems;
  for (Value v : op->operands()) elems.push_back(v.type().elementType());
  for (HwDim d : {HwDim::Register, HwDim::Lane, HwDim::Warp})
    for (const auto& b : ll.bases(d))
      for (int64_t k = 0; k < ll.rank(); ++k)
        if (k != axis && b[k] != 0 && b[axis] != 0)
          e.fail(op, "reduction over a layout that mixes the reduced axis with another dim");
  Region& combine = op->region(0);
  auto combineWith = [&](Regs acc, const Regs& next) {
    Regs args = acc;
    args.insert(args.end(), next.begin(), next.end());
    return emitCombine(e, combine, args);
  };

  // 1. In-thread, in ascending axis order (register order along the axis).
  int64_t regFree = ll.freeVariableMasks()[0];
  std::map<std::vector<int64_t>, Regs> groups;
  std::vector<std::vector<int64_t>> keys;
  for (int64_t i = 0; i < ll.inDimSize(HwDim::Register); ++i) {
    if (i & regFree) continue;
    std::vector<int64_t> key = project(ll.apply(HwDim::Register, i), axis);
    Regs vals;
    for (unsigned k = 0; k < n; ++k) vals.push_back(e.at(op->operand(k), i));
    auto it = groups.find(key);
    if (it == groups.end()) {
      groups.emplace(key, vals);
      keys.push_back(key);
    } else {
      it->second = combineWith(it->second, vals);
    }
  }
  // 2. Lanes.
  const auto& laneBases = ll.bases(HwDim::Lane);
  for (size_t b = 0; b < laneBases.size(); ++b) {
    if (laneBases[b][axis] == 0) continue;
    for (auto& key : keys) {
      Regs& acc = groups[key];
      Regs other;
      for (unsigned k = 0; k < n; ++k) other.push_back(shuffleXor(e, elems[k], acc[k], 1 << b));
      acc = combineWith(acc, other);
    }
  }
  // 3. Warps. Each thread's partial goes to scratch entry
  // (partial p = the warp's index along the axis, group g, slot s), where the
  // slot tells apart threads that hold different groups: the lane and warp
  // bits that do not move along the axis (duplicate lanes share a slot).
  const auto& warpBases = ll.bases(HwDim::Warp);
  std::vector<int> axisWarpBits;
  for (size_t b = 0; b < warpBases.size(); ++b)
    if (warpBases[b][axis] != 0) axisWarpBits.push_back(static_cast<int>(b));
  if (!axisWarpBits.empty()) {
    int64_t numGroups = static_cast<int64_t>(keys.size());
    int64_t partials = int64_t{1} << axisWarpBits.size();
    std::string slot = e.constInt(Type::i32(), 0), axisIdx = e.constInt(Type::i32(), 0);
    int slotBits = 0, axisPos = 0, nonAxisLaneBits = 0;
    int64_t axisLaneMask = 0;
    auto deposit = [&](const std::string& id, int bit, std::string& acc, int to) {
      std::string b = e.reg(RegClass::B32), next = e.reg(RegClass::B32);
      e.ins("bfe.u32 " + b + ", " + id + ", " + std::to_string(bit) + ", 1");
      e.ins("mad.lo.u32 " + next + ", " + b + ", " + std::to_string(int64_t{1} << to) + ", " + acc);
      acc = next;
    };
    for (size_t b = 0; b < laneBases.size(); ++b) {
      bool zero = true;
      for (int64_t v : laneBases[b]) zero = zero && v == 0;
      if (laneBases[b][axis] != 0) axisLaneMask |= int64_t{1} << b;
      else if (!zero) deposit(e.laneId(), static_cast<int>(b), slot, slotBits++), ++nonAxisLaneBits;
    }
    for (size_t b = 0; b < warpBases.size(); ++b) {
      bool zero = true;
      for (int64_t v : warpBases[b]) zero = zero && v == 0;
      if (warpBases[b][axis] != 0) deposit(e.warpId(), static_cast<int>(b), axisIdx, axisPos++);
      else if (!zero) deposit(e.warpId(), static_cast<int>(b), slot, slotBits++);
    }
    int64_t threadSlots = int64_t{1} << slotBits;
    int64_t stride = numGroups * threadSlots;  // entries per partial
    std::vector<int64_t> regionOffset;
    int64_t off = 0;
    for (Type el : elems) {
      regionOffset.push_back(off);
      off += partials * stride * bytesOf(el);
    }
    e.needScratch(off);
    auto entryAddress = [&](const std::string& entry, unsigned k) {
      std::string addr = e.reg(RegClass::B32);
      e.ins("mad.lo.u32 " + addr + ", " + entry + ", " + std::to_string(bytesOf(elems[k])) + ", " + e.smemBase());
      return addr;
    };
    // Only lanes at the start of their axis run write (the others hold the
    // same value after the butterfly).
    std::string writer;
    if (axisLaneMask) {
      std::string m = e.reg(RegClass::B32);
      writer = e.reg(RegClass::Pred);
      e.ins("and.b32 " + m + ", " + e.laneId() + ", " + std::to_string(axisLaneMask));
      e.ins("setp.eq.u32 " + writer + ", " + m + ", 0");
    }
    e.barrier();
    for (int64_t g = 0; g < numGroups; ++g) {
      const Regs& acc = groups[keys[g]];
      std::string entry = e.reg(RegClass::B32), idx = e.reg(RegClass::B32);
      e.ins("mad.lo.u32 " + entry + ", " + axisIdx + ", " + std::to_string(stride) + ", " + slot);
      e.ins("add.u32 " + idx + ", " + entry + ", " + std::to_string(g * threadSlots));
      for (unsigned k = 0; k < n; ++k) {
        int bits = bytesOf(elems[k]) * 8;
        e.ins((writer.empty() ? "" : "@" + writer + " ") + "st.shared.b" + std::to_string(bits) + " [" +
              entryAddress(idx, k) + "+" + std::to_string(regionOffset[k]) + "], " + toStorable(e, elems[k], acc[k]));
      }
    }
    e.barrier();
    auto loadEntry = [&](const std::string& idx, unsigned k) {
      int bits = bytesOf(elems[k]) * 8;
      std::string d = e.reg(bits == 64 ? RegClass::B64 : bits == 32 ? RegClass::B32 : RegClass::B16);
      e.ins("ld.shared.b" + std::to_string(bits) + " " + d + ", [" + entryAddress(idx, k) + "+" +
            std::to_string(regionOffset[k]) + "]");
      return fromStorable(e, elems[k], d);
    };
    if (nonAxisLaneBits == 0 && partials <= 32) {
      // Every lane of a warp needs the same groups: lane l fetches partial
      // l % P, a butterfly over the low lane bits combines the P partials.
      std::string p = e.reg(RegClass::B32);
      e.ins("and.b32 " + p + ", " + e.laneId() + ", " + std::to_string(partials - 1));
      for (int64_t g = 0; g < numGroups; ++g) {
        std::string entry = e.reg(RegClass::B32), idx = e.reg(RegClass::B32);
        e.ins("mad.lo.u32 " + entry + ", " + p + ", " + std::to_string(stride) + ", " + slot);
        e.ins("add.u32 " + idx + ", " + entry + ", " + std::to_string(g * threadSlots));
        Regs acc;
        for (unsigned k = 0; k < n; ++k) acc.push_back(loadEntry(idx, k));
        for (int64_t m = 1; m < partials; m *= 2) {
          Regs other;
          for (unsigned k = 0; k < n; ++k) other.push_back(shuffleXor(e, elems[k], acc[k], static_cast<int>(m)));
          acc = combineWith(acc, other);
        }
        groups[keys[g]] = acc;
      }
    } else {
      for (int64_t g = 0; g < numGroups; ++g) {
        Regs acc;
        for (int64_t q = 0; q < partials; ++q) {
          std::string idx = e.reg(RegClass::B32);
          e.ins("add.u32 " + idx + ", " + slot + ", " + std::to_string(q * stride + g * threadSlots));
          Regs vals;
          for (unsigned k = 0; k < n; ++k) vals.push_back(loadEntry(idx, k));
          acc = q == 0 ? vals : combineWith(acc, vals);
        }
        groups[keys[g]] = acc;
      }
    }
  }
  // Results.
  for (unsigned k = 0; k < n; ++k) {
    Type rt = op->result(k).type();
    if (!rt.isTensor()) {
      e.bind(op->result(k), {groups[keys[0]][k]});
      continue;
    }
    const LinearLayout& rl = e.layout(rt);
    Regs out;
    for (int64_t j = 0; j < rl.inDimSize(HwDim::Register); ++j) {
      std::vector<int64_t> c = rl.apply(HwDim::Register, j);
      c.insert(c.begin() + axis, 0);
      auto it = groups.find(c);
      if (it == groups.end()) e.fail(op, "internal error: reduction result register without a group");
      out.push_back(it->second[k]);
    }
    e.bind(op->result(k), out);
  }
}


/// Scan: (1) inclusive scan of each thread's chunks (runs of consecutive
/// axis positions in consecutive registers), (2) chunk totals to shared
/// memory, Hillis-Steele scan over them there (all threads cooperating,
/// order kept, so non-commutative combines work), (3) each chunk folds the
/// total of the chunks before it into its elements.
void emitScan(Emitter& e, Operation* op) {
  int64_t axis = op->intAttr("axis");
  bool reverse = op->boolAttr("reverse");
  unsigned n = op->numOperands();
  Type t = op->operand(0).type();
  const LinearLayout& ll = e.layout(t);
  std::vector<Type> elems;
  for (Value v : op->operands()) elems.push_back(v.type().elementType());
  Region& combine = op->region(0);
  auto combineWith = [&](const Regs& acc, const Regs& next) {
    Regs args = acc;
    args.insert(args.end(), next.begin(), next.end());
    return emitCombine(e, combine, args);
  };
  int64_t size = t.shape()[axis];
  int64_t chunk = ll.contiguousRegisters(static_cast<int>(axis));
  if (ll.rank() > 1) {
    // contiguousRegisters counts registers 0.. along `axis` only when they are
    // the lowest register bases; otherwise use chunks of one.
    const auto& regs = ll.bases(HwDim::Register);
    int64_t c = 1;
    for (size_t b = 0; b < regs.size() && regs[b][axis] == (int64_t{1} << b); ++b) {
      bool pure = true;
      for (int64_t k = 0; k < ll.rank(); ++k) pure = pure && (k == axis || regs[b][k] == 0);
      if (!pure) break;
      c *= 2;
    }
    chunk = c;
  }
  int64_t numRegs = ll.inDimSize(HwDim::Register);
  std::vector<Regs> vals(numRegs);
  for (int64_t i = 0; i < numRegs; ++i)
    for (unsigned k = 0; k < n; ++k) vals[i].push_back(e.at(op->operand(k), i));
  // (1) in-chunk scans; register i belongs to chunk i / chunk.
  for (int64_t base = 0; base < numRegs; base += chunk) {
    for (int64_t s = 1; s < chunk; ++s) {
      int64_t i = reverse ? base + chunk - 1 - s : base + s;
      int64_t prev = reverse ? i + 1 : i - 1;
      vals[i] = combineWith(vals[prev], vals[i]);
    }
  }
  std::vector<Regs> result = vals;
  bool threadsAlongAxis = false;
  for (HwDim d : {HwDim::Lane, HwDim::Warp})
    for (const auto& b : ll.bases(d)) threadsAlongAxis = threadsAlongAxis || b[axis] != 0;
  const auto& regBases = ll.bases(HwDim::Register);
  bool registersBeyondChunk = false;
  for (size_t b = 0; b < regBases.size(); ++b)
    if ((int64_t{1} << b) >= chunk && regBases[b][axis] != 0) registersBeyondChunk = true;
  if (threadsAlongAxis || registersBeyondChunk) {
    // (2) chunk totals: entry (row, q) with row = the flat index of the
    // non-axis coordinates and q = chunk position along the axis.
    std::vector<int64_t> shape = t.shape();
    int64_t chunks = size / chunk;
    int64_t rows = t.numElements() / size;
    int64_t entries = rows * chunks;
    std::vector<int64_t> offsets;
    int64_t total = 0;
    for (Type el : elems) {
      offsets.push_back(total);
      total += 2 * entries * bytesOf(el);  // two buffers: ping-pong
    }
    e.needScratch(total);
    int rank = ll.rank();
    std::vector<std::string> thread;
    for (int d = 0; d < rank; ++d) thread.push_back(e.threadCoord(ll, d));
    auto entryIndex = [&](int64_t reg) {  // register -> b32 entry index
      std::vector<int64_t> c = ll.apply(HwDim::Register, reg);
      std::string acc = e.constInt(Type::i32(), 0);
      int64_t rowStride = 1;
      for (int d = rank - 1; d >= 0; --d) {
        if (d == axis) continue;
        std::string x = e.reg(RegClass::B32), next = e.reg(RegClass::B32);
        x = e.xorConst(thread[d], c[d]);
        e.ins("mad.lo.u32 " + next + ", " + x + ", " + std::to_string(rowStride * chunks) + ", " + acc);
        acc = next;
        rowStride *= shape[d];
      }
      std::string x = e.reg(RegClass::B32), q = e.reg(RegClass::B32), next = e.reg(RegClass::B32);
      x = e.xorConst(thread[axis], c[axis]);
      e.ins("shr.u32 " + q + ", " + x + ", " + std::to_string(__builtin_ctzll(chunk)));
      if (reverse) {
        std::string r = e.reg(RegClass::B32);
        e.ins("sub.u32 " + r + ", " + std::to_string(chunks - 1) + ", " + q);
        q = r;
      }
      e.ins("add.u32 " + next + ", " + acc + ", " + q);
      return next;
    };
    auto address = [&](const std::string& entry, unsigned k, int buffer) {
      std::string a = e.reg(RegClass::B32), b = e.reg(RegClass::B32);
      e.ins("mad.lo.u32 " + a + ", " + entry + ", " + std::to_string(bytesOf(elems[k])) + ", " + e.smemBase());
      e.ins("add.u32 " + b + ", " + a + ", " + std::to_string(offsets[k] + buffer * entries * bytesOf(elems[k])));
      return b;
    };
    auto loadEntry = [&](const std::string& addr, unsigned k) {
      int bits = bytesOf(elems[k]) * 8;
      std::string d = e.reg(bits == 64 ? RegClass::B64 : bits == 32 ? RegClass::B32 : RegClass::B16);
      e.ins("ld.shared.b" + std::to_string(bits) + " " + d + ", [" + addr + "]");
      return fromStorable(e, elems[k], d);
    };
    auto storeEntry = [&](const std::string& addr, unsigned k, const std::string& v, const std::string& pred) {
      int bits = bytesOf(elems[k]) * 8;
      e.ins((pred.empty() ? "" : "@" + pred + " ") + "st.shared.b" + std::to_string(bits) + " [" + addr + "], " +
            toStorable(e, elems[k], v));
    };
    e.barrier();
    std::vector<std::string> entryOf(numRegs);
    for (int64_t base = 0; base < numRegs; base += chunk) {
      int64_t last = reverse ? base : base + chunk - 1;
      entryOf[base] = entryIndex(base);
      for (unsigned k = 0; k < n; ++k) storeEntry(address(entryOf[base], k, 0), k, vals[last][k], "");
    }
    e.barrier();
    // Hillis-Steele over each row's chunk totals, in the scan direction
    // (entries were stored reversed for reverse scans).
    int threads = 32 * e.options().numWarps;
    std::string tid = e.threadId();
    int buffer = 0;
    for (int64_t stride = 1; stride < chunks; stride *= 2) {
      for (int64_t first = 0; first < entries; first += threads) {
        std::string idx = e.reg(RegClass::B32), inRange = e.reg(RegClass::Pred), q = e.reg(RegClass::B32),
                    hasPrev = e.reg(RegClass::Pred), prevIdx = e.reg(RegClass::B32);
        e.ins("add.u32 " + idx + ", " + tid + ", " + std::to_string(first));
        e.ins("setp.lt.u32 " + inRange + ", " + idx + ", " + std::to_string(entries));
        std::string skip = e.newLabel("scan_skip");
        e.ins("@!" + inRange + " bra " + skip);
        e.ins("rem.u32 " + q + ", " + idx + ", " + std::to_string(chunks));
        e.ins("setp.ge.u32 " + hasPrev + ", " + q + ", " + std::to_string(stride));
        e.ins("sub.u32 " + prevIdx + ", " + idx + ", " + std::to_string(stride));
        Regs cur, prev;
        for (unsigned k = 0; k < n; ++k) cur.push_back(loadEntry(address(idx, k, buffer), k));
        std::string noPrev = e.newLabel("scan_noprev");
        Regs out;
        for (unsigned k = 0; k < n; ++k) out.push_back(e.reg(elems[k]));
        auto mov = [&](const Regs& from) {
          for (unsigned k = 0; k < n; ++k) {
            RegClass c = Emitter::regClass(elems[k]);
            std::string m = c == RegClass::Pred ? "mov.pred" : c == RegClass::B16 ? "mov.b16" : c == RegClass::B32 ? "mov.b32" : "mov.b64";
            e.ins(m + " " + out[k] + ", " + from[k]);
          }
        };
        mov(cur);
        e.ins("@!" + hasPrev + " bra " + noPrev);
        for (unsigned k = 0; k < n; ++k) prev.push_back(loadEntry(address(prevIdx, k, buffer), k));
        mov(combineWith(prev, cur));
        e.raw(noPrev + ":");
        for (unsigned k = 0; k < n; ++k) storeEntry(address(idx, k, 1 - buffer), k, out[k], "");
        e.raw(skip + ":");
      }
      e.barrier();
      buffer = 1 - buffer;
    }
    // (3) fold the inclusive total of the previous chunk into each chunk.
    for (int64_t base = 0; base < numRegs; base += chunk) {
      std::string q = e.reg(RegClass::B32), hasPrev = e.reg(RegClass::Pred), prevIdx = e.reg(RegClass::B32);
      e.ins("rem.u32 " + q + ", " + entryOf[base] + ", " + std::to_string(chunks));
      e.ins("setp.ne.u32 " + hasPrev + ", " + q + ", 0");
      e.ins("sub.u32 " + prevIdx + ", " + entryOf[base] + ", 1");
      Regs prev;
      std::string safeIdx = e.reg(RegClass::B32);
      e.ins("selp.b32 " + safeIdx + ", " + prevIdx + ", " + entryOf[base] + ", " + hasPrev);
      for (unsigned k = 0; k < n; ++k) prev.push_back(loadEntry(address(safeIdx, k, buffer), k));
      for (int64_t s = 0; s < chunk; ++s) {
        Regs folded = combineWith(prev, vals[base + s]);
        for (unsigned k = 0; k < n; ++k) {
          std::string d = e.reg(elems[k]);
          RegClass c = Emitter::regClass(elems[k]);
          if (c == RegClass::Pred) {
            std::string x = e.reg(RegClass::Pred), y = e.reg(RegClass::Pred), nh = e.reg(RegClass::Pred);
            e.ins("and.pred " + x + ", " + hasPrev + ", " + folded[k]);
            e.ins("not.pred " + nh + ", " + hasPrev);
            e.ins("and.pred " + y + ", " + nh + ", " + vals[base + s][k]);
            e.ins("or.pred " + d + ", " + x + ", " + y);
          } else {
            std::string b = c == RegClass::B16 ? "b16" : c == RegClass::B32 ? "b32" : "b64";
            e.ins("selp." + b + " " + d + ", " + folded[k] + ", " + vals[base + s][k] + ", " + hasPrev);
          }
          result[base + s][k] = d;
        }
      }
    }
  }
  for (unsigned k = 0; k < n; ++k) {
    Regs out;
    for (int64_t i = 0; i < numRegs; ++i) out.push_back(result[i][k]);
    e.bind(op->result(k), out);
  }
}

}  // namespace

void emitReduction(Emitter& e, Operation* op) {
  if (op->is(OpCode::Reduce)) return emitReduce(e, op);
  return emitScan(e, op);
}

}  // namespace tessera::ptx
