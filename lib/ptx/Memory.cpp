//===- Memory.cpp - Loads, stores, atomics, block pointers ----------------===//
//
// Global memory ops over tensors of pointers. Registers are grouped into
// vectors of up to 16 bytes when (a) the layout gives the thread that many
// consecutive elements along the fastest dim in consecutive registers, (b)
// axis info proves the addresses contiguous and aligned, and (c) the mask is
// constant over the group; one predicated ld/st.global.v4.b32 then moves the
// group. Masked-off lanes of a load keep `other` (0 without it).
//
// Stores and atomics write each element once: a layout may hold an element
// in several lanes/warps (broadcast) or registers; only the owner (zero free
// bits) writes. Scalar stores and atomics run on thread 0 only; a scalar
// atomic's old value reaches the other threads through shared memory, and
// so do a tensor atomic's old values to the threads that hold copies.
// Floating-point adds on sm_90+ use the vector atomics of PTX 8.1 on the
// same groups as stores (atom/red .v2/.v4 .f32, .v2/.v4/.v8 .f16/.bf16;
// atomic per element, as the scalar form): a fused attention backward's dQ
// accumulation issues a quarter of the L2 atomic requests. An unread
// relaxed or release add is a `red`.
//
// Block pointers (tt.make_tensor_ptr) are kept as registers
// [base, shape..., strides..., offsets...]; loads and stores through them
// compute each element's address and boundary predicate.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cmath>

#include "ptx/Emitter.h"
#include "tessera/ir/OpViews.h"

namespace tessera::ptx {

using namespace ir;
using gpu::LinearLayout;

namespace {

int regBytes(Type elem) {
  RegClass c = Emitter::regClass(elem);
  return c == RegClass::B64 ? 8 : c == RegClass::B32 ? 4 : 2;
}

std::string cacheSuffix(Operation* op, bool isLoad) {
  std::string c = op->strAttr("cache");
  if (!c.empty() && c[0] == '.') c = c.substr(1);
  if (isLoad && op->boolAttr("volatile")) return "";
  return c.empty() ? "" : "." + c;
}

/// (lane & laneFree) == 0 && (warp & warpFree) == 0: this thread owns the
/// elements it holds (no other thread with a lower index holds them too).
std::string ownerPredicate(Emitter& e, const LinearLayout& ll) {
  auto free = ll.freeVariableMasks();
  if (free[1] == 0 && free[2] == 0) return "";
  return e.threadBitsZero(free[1], free[2]);
}

std::string threadZeroPredicate(Emitter& e) {
  // The producer warpgroup's one thread is not thread 0 (nothing scalar
  // is stored there today; if it were, that thread stores it).
  if (e.inProducer()) return e.isThreadZero();
  std::string p = e.reg(RegClass::Pred);
  e.ins("setp.eq.u32 " + p + ", " + e.threadId() + ", 0");
  return p;
}

std::string andPred(Emitter& e, const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  std::string d = e.reg(RegClass::Pred);
  e.ins("and.pred " + d + ", " + a + ", " + b);
  return d;
}


/// Splits 32-bit words into elements of `elem` (2-byte or 1-byte values in
/// 16-bit registers), or passes 4/8-byte elements through.
Regs unpackWords(Emitter& e, const Regs& words, Type elem, int64_t count) {
  int eb = static_cast<int>(elem.byteWidth());
  if (eb >= 4) return words;
  Regs out;
  for (const auto& w : words) {
    if (eb == 2) {
      std::string lo = e.reg(RegClass::B16), hi = e.reg(RegClass::B16);
      e.ins("mov.b32 {" + lo + ", " + hi + "}, " + w);
      out.push_back(lo);
      out.push_back(hi);
    } else {
      for (int k = 0; k < 4; ++k) {
        std::string b = e.reg(RegClass::B32), h = e.reg(RegClass::B16);
        e.ins(std::string(elem.isInteger(8) ? "bfe.s32 " : "bfe.u32 ") + b + ", " + w + ", " + std::to_string(8 * k) +
              ", 8");
        e.ins("cvt.u16.u32 " + h + ", " + b);
        out.push_back(h);
      }
    }
  }
  out.resize(count);
  return out;
}

Regs packWords(Emitter& e, const Regs& elems, Type elem) {
  int eb = static_cast<int>(elem.byteWidth());
  if (eb >= 4) return elems;
  Regs words;
  if (eb == 2) {
    for (size_t i = 0; i < elems.size(); i += 2) {
      std::string w = e.reg(RegClass::B32);
      e.ins("mov.b32 " + w + ", {" + elems[i] + ", " + elems[i + 1] + "}");
      words.push_back(w);
    }
    return words;
  }
  for (size_t i = 0; i < elems.size(); i += 4) {
    std::string acc = e.constInt(Type::i32(), 0);
    for (int k = 0; k < 4; ++k) {
      std::string b = e.reg(RegClass::B32), m = e.reg(RegClass::B32), next = e.reg(RegClass::B32);
      e.ins("cvt.u32.u16 " + b + ", " + elems[i + k]);
      e.ins("and.b32 " + m + ", " + b + ", 255");
      e.ins("bfi.b32 " + next + ", " + m + ", " + acc + ", " + std::to_string(8 * k) + ", 8");
      acc = next;
    }
    words.push_back(acc);
  }
  return words;
}

/// Value registers as stored in memory: i1 as a byte.
std::string toMemory(Emitter& e, Type elem, const std::string& v) {
  if (!elem.isInteger(1)) return v;
  std::string d = e.reg(RegClass::B16);
  e.ins("selp.b16 " + d + ", 1, 0, " + v);
  return d;
}

struct Access {
  int64_t vec;       ///< elements per access
  int64_t bytes;     ///< bytes per access
  std::string type;  ///< "b32" / "v2.b32" / "b16" / "u8" ...
  int64_t words;     ///< registers moved by the instruction
  int wordBytes;
};

Access accessFor(int64_t vec, Type elem) {
  int64_t eb = elem.isInteger(1) ? 1 : elem.byteWidth();
  Access a{vec, vec * eb, "", 1, 4};
  if (a.bytes >= 4) {
    a.wordBytes = eb == 8 ? 8 : 4;
    a.words = a.bytes / a.wordBytes;
    std::string w = a.wordBytes == 8 ? "b64" : "b32";
    a.type = a.words == 1 ? w : "v" + std::to_string(a.words) + "." + w;
  } else if (a.bytes == 2) {
    a.type = "b16";
    a.wordBytes = 2;
  } else {
    a.type = "u8";
    a.wordBytes = 1;
  }
  return a;
}

std::string wordReg(Emitter& e, int wordBytes) {
  return e.reg(wordBytes == 8 ? RegClass::B64 : wordBytes == 4 ? RegClass::B32 : RegClass::B16);
}

std::string list(const Regs& r) {
  std::string s;
  for (size_t i = 0; i < r.size(); ++i) s += (i ? ", " : "") + r[i];
  return r.size() == 1 ? s : "{" + s + "}";
}

void emitTensorLoad(Emitter& e, Operation* op) {
  LoadOp load(op);
  Value ptr = load.ptr(), mask = load.mask(), other = load.other();
  Type rt = op->result().type();
  Type elem = rt.elementType();
  bool tensor = rt.isTensor();
  int64_t n = e.numRegs(rt);
  int64_t eb = elem.isInteger(1) ? 1 : elem.byteWidth();
  // tl.atomic_load: one element per access, with its memory order.
  std::string sem = op->strAttr("sem");
  int64_t vec = tensor && sem.empty() ? vectorWidth(e, ptr, mask, e.layout(rt), eb) : 1;
  Access a = accessFor(vec, elem);
  std::string ld = !sem.empty() ? "ld." + sem + "." + op->strAttr("scope") + ".global."
                   : op->boolAttr("volatile") ? "ld.volatile.global."
                                              : "ld.global" + cacheSuffix(op, true) + ".";
  Regs out;
  std::vector<Regs> packed;
  for (int64_t i = 0; i < n; i += vec) {
    std::string pred = mask ? e.at(mask, i) : "";
    // Initial words: `other` packed, or zeros.
    Regs init;
    for (int64_t k = 0; k < vec; ++k) {
      std::string o = other ? toMemory(e, elem, e.at(other, i + k)) : e.constInt(elem.isInteger(1) ? Type::i8() : elem, 0);
      init.push_back(o);
    }
    Regs words;
    if (a.wordBytes >= 4) {
      Regs packed = packWords(e, init, elem);
      for (const auto& p : packed) {
        std::string w = wordReg(e, a.wordBytes);
        e.ins(std::string(a.wordBytes == 8 ? "mov.b64 " : "mov.b32 ") + w + ", " + p);
        words.push_back(w);
      }
    } else {
      std::string w = e.reg(RegClass::B16);
      e.ins("mov.b16 " + w + ", " + init[0]);
      words.push_back(w);
    }
    e.ins((pred.empty() ? "" : "@" + pred + " ") + ld + a.type + " " + list(words) + ", [" + e.at(ptr, i) + "]");
    if (a.wordBytes >= 4 && eb < 4 && !elem.isInteger(1)) {
      packed.push_back(words);
      continue;
    }
    Regs vals = a.wordBytes >= 4 ? unpackWords(e, words, elem, vec) : words;
    for (auto& v : vals) {
      if (elem.isInteger(1)) {
        std::string p = e.reg(RegClass::Pred);
        e.ins("setp.ne.b16 " + p + ", " + v + ", 0");
        v = p;
      } else if (elem.isInteger(8) && a.wordBytes < 4) {
        std::string s = e.reg(RegClass::B16);
        e.ins("cvt.s16.s8 " + s + ", " + v);
        v = s;
      }
    }
    out.insert(out.end(), vals.begin(), vals.end());
  }
  if (packed.empty()) return e.bind(op->result(), out);
  // Sub-word elements stay packed in their words until first used.
  Regs names;
  for (int64_t i = 0; i < n; ++i) names.push_back(e.reg(elem));
  Emitter* em = &e;
  e.bindDeferred(op->result(), names, [em, packed, names, elem, vec]() {
    size_t at = 0;
    for (const Regs& words : packed) {
      Regs vals = unpackWords(*em, words, elem, vec);
      for (const auto& v : vals) {
        std::string d = names[at++];
        if (elem.isInteger(8)) em->ins("cvt.s16.s8 " + d + ", " + v);
        else em->ins("mov.b16 " + d + ", " + v);
      }
    }
  });
}

void emitTensorStore(Emitter& e, Operation* op) {
  StoreOp store(op);
  Value ptr = store.ptr(), value = store.value(), mask = store.mask();
  Type vt = value.type();
  Type elem = vt.elementType();
  bool tensor = ptr.type().isTensor();
  int64_t n = tensor ? e.numRegs(ptr.type()) : 1;
  int64_t eb = elem.isInteger(1) ? 1 : elem.byteWidth();
  std::string owner;
  int64_t regFree = 0;
  int64_t vec = 1;
  if (tensor) {
    const LinearLayout& ll = e.layout(ptr.type());
    owner = ownerPredicate(e, ll);
    regFree = ll.freeVariableMasks()[0];
    vec = vectorWidth(e, ptr, mask, ll, eb);
  } else {
    owner = threadZeroPredicate(e);
  }
  // tl.atomic_store: one element per access, with its memory order.
  std::string sem = op->strAttr("sem");
  if (!sem.empty()) vec = 1;
  Access a = accessFor(vec, elem);
  std::string st = sem.empty() ? "st.global" + cacheSuffix(op, false) + "."
                               : "st." + sem + "." + op->strAttr("scope") + ".global.";
  for (int64_t i = 0; i < n; i += vec) {
    if (i & regFree) continue;
    std::string pred = andPred(e, owner, mask ? e.at(mask, i) : "");
    Regs vals;
    for (int64_t k = 0; k < vec; ++k) vals.push_back(toMemory(e, elem, e.at(value, i + k)));
    Regs words = a.wordBytes >= 4 ? packWords(e, vals, elem) : vals;
    e.ins((pred.empty() ? "" : "@" + pred + " ") + st + a.type + " [" + e.at(ptr, i) + "], " + list(words));
  }
}

//===----------------------------------------------------------------------===//
// Atomics
//===----------------------------------------------------------------------===//

std::string semScope(Operation* op) {
  std::string sem = op->strAttr("sem", "acq_rel"), scope = op->strAttr("scope", "gpu");
  if (sem.empty()) sem = "acq_rel";
  if (scope.empty()) scope = "gpu";
  return "." + sem + "." + scope;
}

// Semantics against the interpreter (lib/interpreter/Memory.cpp):
//  * fmax/fmin order floats as sign-magnitude integers, choosing by the sign
//    bit of the NEW value: non-negative -> signed max (min), negative ->
//    unsigned min (max). The interpreter does exactly this on the bits, so
//    both agree for -0.0 (sign bit set: 0x80000000 as unsigned is the
//    smallest negative, as signed the smallest value of all: max(-0, +0) =
//    +0, max(+0, -0) = +0, min(+0, -0) = -0, min(-0, +0) = -0) and for
//    NaN (a NaN is ordered by its bits: +NaN beats +inf in fmax and loses
//    to every non-negative value in fmin; -NaN the mirror), not like
//    IEEE maxNum.
//  * fadd rounds once per update like the interpreter's CAS loop (f16/bf16
//    sums are exact in f32, so rounding the f32 sum is one rounding). The
//    PTX ISA lets atom.add.f32 flush subnormal inputs and results to zero;
//    the interpreter keeps them (Triton's GPU code flushes the same way).
//  * 16-bit atomics without an instruction on the target run as a CAS loop
//    on atom.cas.b16 (sm_70+): bf16 add before sm_90, f16/bf16 fmax/fmin
//    and exchange.

/// Whether `kind` on `elem` is one atom instruction on the target.
bool nativeAtomic(Emitter& e, const std::string& kind, Type elem) {
  if (kind == "cas" || elem.bitWidth() != 16) return true;
  if (kind == "fadd") return elem.kind() == TypeKind::F16 || e.options().target.capability >= 90;
  return false;
}

/// The new 16-bit value of a CAS-loop atomic from the current one.
std::string casUpdate(Emitter& e, Operation* op, const std::string& kind, Type elem, const std::string& cur,
                      const std::string& v) {
  if (kind == "xchg") return v;
  std::string d = e.reg(RegClass::B16);
  if (kind == "fadd") {  // bf16 (f16 has atom.add.noftz.f16)
    std::string a = e.reg(RegClass::B32), b = e.reg(RegClass::B32), sum = e.reg(RegClass::B32);
    e.ins("mov.b32 " + a + ", {" + e.constInt(Type::i16(), 0) + ", " + cur + "}");
    e.ins("mov.b32 " + b + ", {" + e.constInt(Type::i16(), 0) + ", " + v + "}");
    e.ins("add.rn.f32 " + sum + ", " + a + ", " + b);
    e.ins("cvt.rn.bf16.f32 " + d + ", " + sum);
    return d;
  }
  if (kind != "fmax" && kind != "fmin") e.fail(op, "atomic " + kind + " on " + elem.str() + " is not supported on the GPU");
  bool max = kind == "fmax";
  std::string neg = e.reg(RegClass::Pred), s = e.reg(RegClass::B16), u = e.reg(RegClass::B16);
  e.ins("setp.lt.s16 " + neg + ", " + v + ", 0");
  e.ins(std::string(max ? "max" : "min") + ".s16 " + s + ", " + cur + ", " + v);
  e.ins(std::string(max ? "min" : "max") + ".u16 " + u + ", " + cur + ", " + v);
  e.ins("selp.b16 " + d + ", " + u + ", " + s + ", " + neg);
  return d;
}

/// A 16-bit read-modify-write as a compare-and-swap loop; returns the old
/// value (0 where `pred` is false).
std::string casLoopAtomic(Emitter& e, Operation* op, const std::string& kind, Type elem, const std::string& pred,
                          const std::string& ptr, const std::string& v) {
  std::string cur = e.reg(RegClass::B16), seen = e.reg(RegClass::B16), again = e.reg(RegClass::Pred);
  std::string loop = e.newLabel("cas_loop"), done = e.newLabel("cas_done");
  e.ins("mov.b16 " + cur + ", " + e.constInt(Type::i16(), 0));
  if (!pred.empty()) e.ins("@!" + pred + " bra " + done);
  e.ins("ld.relaxed.gpu.global.b16 " + cur + ", [" + ptr + "]");
  e.raw(loop + ":");
  std::string next = casUpdate(e, op, kind, elem, cur, v);
  e.ins("atom" + semScope(op) + ".global.cas.b16 " + seen + ", [" + ptr + "], " + cur + ", " + next);
  e.ins("setp.ne.b16 " + again + ", " + seen + ", " + cur);
  e.ins("mov.b16 " + cur + ", " + seen);
  e.ins("@" + again + " bra " + loop);
  e.raw(done + ":");
  return cur;
}

std::string atomicOne(Emitter& e, Operation* op, Type elem, const std::string& pred, const std::string& ptr,
                      const Regs& vals) {
  std::string kind = op->is(OpCode::AtomicCAS) ? "cas" : op->strAttr("kind");
  if (!nativeAtomic(e, kind, elem)) return casLoopAtomic(e, op, kind, elem, pred, ptr, vals[0]);
  std::string ss = semScope(op);
  unsigned bits = elem.bitWidth();
  std::string b = "b" + std::to_string(bits), u = "u" + std::to_string(bits), s = "s" + std::to_string(bits);
  std::string guard = pred.empty() ? "" : "@" + pred + " ";
  std::string d = e.reg(elem);
  if (kind == "fmax" || kind == "fmin") {
    // Floats ordered as sign-magnitude: non-negative values by signed max,
    // negative ones by unsigned min (and the reverse for fmin).
    Type it = Type::integer(bits);
    std::string neg = e.reg(RegClass::Pred), pos = e.reg(RegClass::Pred);
    e.ins("setp.lt." + s + " " + neg + ", " + vals[0] + ", 0");
    e.ins("not.pred " + pos + ", " + neg);
    std::string gp = pred.empty() ? pos : andPred(e, pred, pos);
    std::string gn = pred.empty() ? neg : andPred(e, pred, neg);
    bool max = kind == "fmax";
    e.ins("mov.b" + std::to_string(bits) + " " + d + ", " + e.constInt(it, 0));
    e.ins("@" + gp + " atom" + ss + ".global." + (max ? "max." : "min.") + s + " " + d + ", [" + ptr + "], " +
          vals[0]);
    e.ins("@" + gn + " atom" + ss + ".global." + (max ? "min." : "max.") + u + " " + d + ", [" + ptr + "], " +
          vals[0]);
    return d;
  }
  std::string opname;
  if (kind == "add") opname = "add." + u;
  else if (kind == "fadd") opname = elem.kind() == TypeKind::F16 ? "add.noftz.f16" : elem.kind() == TypeKind::BF16 ? "add.noftz.bf16" : "add.f" + std::to_string(bits);
  else if (kind == "max") opname = "max." + s;
  else if (kind == "min") opname = "min." + s;
  else if (kind == "umax") opname = "max." + u;
  else if (kind == "umin") opname = "min." + u;
  else if (kind == "and" || kind == "or" || kind == "xor") opname = kind + "." + b;
  else if (kind == "xchg") opname = "exch." + b;
  else if (kind == "cas") opname = "cas." + b;
  else e.fail(op, "unsupported atomic kind '" + kind + "'");
  std::string args = vals[0];
  if (vals.size() > 1) args += ", " + vals[1];
  // A masked-off lane's old value is 0, as on the interpreter.
  if (!guard.empty() && op->result().hasUses())
    e.ins("mov.b" + std::to_string(bits) + " " + d + ", " + e.constInt(Type::integer(bits), 0));
  e.ins(guard + "atom" + ss + ".global." + opname + " " + d + ", [" + ptr + "], " + args);
  return d;
}

/// Elements per vector atomic of a tensor atomic_rmw: floating-point adds
/// on sm_90+ (PTX 8.1's vector atom/red) over accessVector's groups; else 1.
int64_t atomicVectorWidth(Emitter& e, Operation* op, Type elem, const LinearLayout& ll) {
  if (!op->is(OpCode::AtomicRMW) || op->strAttr("kind") != "fadd" || e.options().target.capability < 90) return 1;
  TypeKind k = elem.kind();
  if (k != TypeKind::F32 && k != TypeKind::F16 && k != TypeKind::BF16) return 1;
  Value mask = op->numOperands() > 2 ? op->operand(2) : Value();
  int64_t vec = vectorWidth(e, op->operand(0), mask, ll, elem.byteWidth());
  return vec >= 2 ? vec : 1;
}

/// One vector floating-point add of `vals` at `ptr` (atomicVectorWidth's
/// group); the old values, 0 where `pred` is false, when the result is read.
Regs vectorAtomicAdd(Emitter& e, Operation* op, Type elem, const std::string& pred, const std::string& ptr,
                     const Regs& vals, bool resultUsed) {
  std::string sem = op->strAttr("sem", "acq_rel");
  bool reduce = !resultUsed && (sem == "relaxed" || sem == "release");
  // add.v4.f32, add.noftz.v8.bf16 (16-bit adds keep subnormals, as the scalar form).
  bool f32 = elem.kind() == TypeKind::F32;
  std::string opname = std::string(f32 ? "add" : "add.noftz") + ".v" + std::to_string(vals.size()) +
                       (f32 ? ".f32" : elem.kind() == TypeKind::F16 ? ".f16" : ".bf16");
  e.requirePtxVersion(81);
  std::string guard = pred.empty() ? "" : "@" + pred + " ";
  if (reduce) {
    e.ins(guard + "red" + semScope(op) + ".global." + opname + " [" + ptr + "], " + list(vals));
    return Regs(vals.size(), e.constInt(elem, 0));
  }
  Regs old;
  for (size_t k = 0; k < vals.size(); ++k) {
    old.push_back(e.reg(elem));
    if (!pred.empty())
      e.ins("mov.b" + std::to_string(elem.bitWidth()) + " " + old.back() + ", " + e.constInt(elem, 0));
  }
  e.ins(guard + "atom" + semScope(op) + ".global." + opname + " " + list(old) + ", [" + ptr + "], " + list(vals));
  return old;
}

/// A tensor atomic's old values in every thread that holds a copy of an
/// element (free lane or warp bits of `ll`): only the owner ran the atomic,
/// the copies hold 0, and later ops read copies (a layout change stores
/// from every thread). The owners store their registers by thread, the
/// others read their owner's (thread id with the free bits cleared).
void broadcastFromOwners(Emitter& e, const LinearLayout& ll, Type elem, Regs& values) {
  auto free = ll.freeVariableMasks();
  if (free[1] == 0 && free[2] == 0) return;
  int bytes = regBytes(elem);
  std::string bits = "b" + std::to_string(8 * bytes);
  int64_t perThread = static_cast<int64_t>(values.size()) * bytes;
  e.needScratch(32 * e.options().numWarps * perThread);
  std::string tid = e.threadId(), own = e.reg(RegClass::B32), at = e.reg(RegClass::B32), from = e.reg(RegClass::B32);
  std::string pred = ownerPredicate(e, ll);
  e.barrier();
  e.ins("mad.lo.u32 " + at + ", " + tid + ", " + std::to_string(perThread) + ", " + e.smemBase());
  for (size_t i = 0; i < values.size(); ++i)
    e.ins("@" + pred + " st.shared." + bits + " [" + at + "+" + std::to_string(i * bytes) + "], " + values[i]);
  e.barrier();
  e.ins("and.b32 " + own + ", " + tid + ", " + std::to_string(~(free[1] | (free[2] << 5)) & 0xffffffffLL));
  e.ins("mad.lo.u32 " + from + ", " + own + ", " + std::to_string(perThread) + ", " + e.smemBase());
  for (size_t i = 0; i < values.size(); ++i) {
    std::string d = e.reg(elem);
    e.ins("ld.shared." + bits + " " + d + ", [" + from + "+" + std::to_string(i * bytes) + "]");
    values[i] = d;
  }
}

void emitAtomic(Emitter& e, Operation* op) {
  Value ptr = op->operand(0);
  bool cas = op->is(OpCode::AtomicCAS);
  unsigned numVals = cas ? 2 : 1;
  Value mask = !cas && op->numOperands() > 2 ? op->operand(2) : Value();
  Type rt = op->result().type();
  Type elem = rt.elementType();
  // 16-bit: f16/bf16 read-modify-writes, and compare-and-swap of any 16-bit type.
  bool ok16 = elem.kind() == TypeKind::F16 || elem.kind() == TypeKind::BF16 || (cas && elem.bitWidth() == 16);
  if (elem.bitWidth() < 32 && !ok16) e.fail(op, "atomics on " + elem.str() + " are not supported on the GPU");
  bool tensor = ptr.type().isTensor();
  if (!tensor) {
    std::string owner = threadZeroPredicate(e);
    std::string pred = andPred(e, owner, mask ? e.at(mask, 0) : "");
    Regs vals;
    for (unsigned k = 0; k < numVals; ++k) vals.push_back(e.at(op->operand(1 + k), 0));
    std::string old = atomicOne(e, op, elem, pred, e.at(ptr, 0), vals);
    if (!op->result().hasUses()) return e.bind(op->result(), {old});
    // Broadcast thread 0's old value.
    int bytes = regBytes(elem);
    e.needScratch(bytes);
    e.barrier();
    e.ins("@" + owner + " st.shared.b" + std::to_string(bytes * 8) + " [" + e.smemBase() + "], " + old);
    e.barrier();
    std::string d = e.reg(elem);
    e.ins("ld.shared.b" + std::to_string(bytes * 8) + " " + d + ", [" + e.smemBase() + "]");
    return e.bind(op->result(), {d});
  }
  const LinearLayout& ll = e.layout(ptr.type());
  std::string owner = ownerPredicate(e, ll);
  int64_t regFree = ll.freeVariableMasks()[0];
  Regs out;
  bool used = op->result().hasUses();
  // Groups of `vec` registers (one vector atomic each; single registers
  // otherwise), a group with a free register bit a copy of an earlier one.
  int64_t vec = atomicVectorWidth(e, op, elem, ll);
  for (int64_t i = 0; i < e.numRegs(ptr.type()); i += vec) {
    if (i & regFree) {
      for (int64_t k = 0; k < vec; ++k) out.push_back(out[(i & ~regFree) + k]);
      continue;
    }
    std::string pred = andPred(e, owner, mask ? e.at(mask, i) : "");
    if (vec > 1) {
      Regs vals;
      for (int64_t k = 0; k < vec; ++k) vals.push_back(e.at(op->operand(1), i + k));
      Regs old = vectorAtomicAdd(e, op, elem, pred, e.at(ptr, i), vals, used);
      out.insert(out.end(), old.begin(), old.end());
      continue;
    }
    Regs vals;
    for (unsigned k = 0; k < numVals; ++k) vals.push_back(e.at(op->operand(1 + k), i));
    out.push_back(atomicOne(e, op, elem, pred, e.at(ptr, i), vals));
  }
  if (used) broadcastFromOwners(e, ll, elem, out);
  e.bind(op->result(), out);
}

//===----------------------------------------------------------------------===//
// Block pointers
//===----------------------------------------------------------------------===//

void emitMakeTensorPtr(Emitter& e, Operation* op) {
  Regs r;
  for (Value v : op->operands()) r.push_back(e.regs(v)[0]);
  e.bind(op->result(), r);
}

void emitAdvance(Emitter& e, Operation* op) {
  Regs r = e.regs(op->operand(0));
  int rank = static_cast<int>((r.size() - 1) / 3);
  for (int d = 0; d < rank; ++d) {
    std::string n = e.reg(RegClass::B32);
    e.ins("add.s32 " + n + ", " + r[1 + 2 * rank + d] + ", " + e.regs(op->operand(1 + d))[0]);
    r[1 + 2 * rank + d] = n;
  }
  e.bind(op->result(), r);
}

/// Address and in-bounds predicate of every register of a block access.
void blockAddresses(Emitter& e, Operation* op, const Regs& bp, Type tensorType, Regs& addrs, Regs& preds) {
  const LinearLayout& ll = e.layout(tensorType);
  int rank = static_cast<int>(tensorType.rank());
  std::vector<int64_t> check = op->intArrayAttr("boundary_check");
  Type elem = tensorType.elementType();
  int64_t eb = elem.isInteger(1) ? 1 : elem.byteWidth();
  std::vector<std::string> thread;
  for (int d = 0; d < rank; ++d) thread.push_back(e.threadCoord(ll, d));
  for (int64_t j = 0; j < ll.inDimSize(HwDim::Register); ++j) {
    std::vector<int64_t> c = ll.apply(HwDim::Register, j);
    std::string addr = bp[0];
    std::string pred;
    for (int d = 0; d < rank; ++d) {
      std::string x = e.reg(RegClass::B32), idx = e.reg(RegClass::B32), wide = e.reg(RegClass::B64),
                  next = e.reg(RegClass::B64), scaled = e.reg(RegClass::B64);
      x = e.xorConst(thread[d], c[d]);
      e.ins("add.s32 " + idx + ", " + x + ", " + bp[1 + 2 * rank + d]);
      e.ins("cvt.s64.s32 " + wide + ", " + idx);
      e.ins("mul.lo.s64 " + scaled + ", " + bp[1 + rank + d] + ", " + std::to_string(eb));
      e.ins("mad.lo.s64 " + next + ", " + wide + ", " + scaled + ", " + addr);
      addr = next;
      if (std::find(check.begin(), check.end(), d) != check.end()) {
        std::string lo = e.reg(RegClass::Pred), hi = e.reg(RegClass::Pred), in = e.reg(RegClass::Pred);
        e.ins("setp.ge.s64 " + lo + ", " + wide + ", 0");
        e.ins("setp.lt.s64 " + hi + ", " + wide + ", " + bp[1 + d]);
        e.ins("and.pred " + in + ", " + lo + ", " + hi);
        pred = andPred(e, pred, in);
      }
    }
    addrs.push_back(addr);
    preds.push_back(pred);
  }
}

void emitBlockLoad(Emitter& e, Operation* op) {
  Type rt = op->result().type();
  Type elem = rt.elementType();
  Regs addrs, preds;
  blockAddresses(e, op, e.regs(op->operand(0)), rt, addrs, preds);
  Access a = accessFor(1, elem);
  std::string padding = op->strAttr("padding");
  Regs out;
  for (size_t j = 0; j < addrs.size(); ++j) {
    std::string w = a.wordBytes >= 4 ? wordReg(e, a.wordBytes) : e.reg(RegClass::B16);
    std::string fill = padding == "nan" && elem.isFloat() ? e.constFloat(elem, std::nan(""))
                                                          : e.constInt(elem.isInteger(1) ? Type::i8() : elem, 0);
    e.ins(std::string(a.wordBytes == 8 ? "mov.b64 " : a.wordBytes == 4 ? "mov.b32 " : "mov.b16 ") + w + ", " + fill);
    e.ins((preds[j].empty() ? "" : "@" + preds[j] + " ") + "ld.global." + a.type + " " + w + ", [" + addrs[j] + "]");
    if (elem.isInteger(1)) {
      std::string p = e.reg(RegClass::Pred);
      e.ins("setp.ne.b16 " + p + ", " + w + ", 0");
      w = p;
    } else if (elem.isInteger(8)) {
      std::string s = e.reg(RegClass::B16);
      e.ins("cvt.s16.s8 " + s + ", " + w);
      w = s;
    }
    out.push_back(w);
  }
  e.bind(op->result(), out);
}

void emitBlockStore(Emitter& e, Operation* op) {
  Value value = op->operand(1);
  Type vt = value.type();
  Type elem = vt.elementType();
  Regs addrs, preds;
  blockAddresses(e, op, e.regs(op->operand(0)), vt, addrs, preds);
  const LinearLayout& ll = e.layout(vt);
  std::string owner = ownerPredicate(e, ll);
  int64_t regFree = ll.freeVariableMasks()[0];
  Access a = accessFor(1, elem);
  for (size_t j = 0; j < addrs.size(); ++j) {
    if (static_cast<int64_t>(j) & regFree) continue;
    std::string pred = andPred(e, owner, preds[j]);
    e.ins((pred.empty() ? "" : "@" + pred + " ") + "st.global." + a.type + " [" + addrs[j] + "], " +
          toMemory(e, elem, e.at(value, j)));
  }
}

}  // namespace

/// Elements per vector access for a tensor memory op (gpu::accessVector).
int64_t vectorWidth(Emitter& e, Value ptr, Value mask, const LinearLayout& ll, int64_t elemBytes) {
  return gpu::accessVector(e.axisInfo(), ptr, mask, ll, elemBytes).elements;
}

void emitMemory(Emitter& e, Operation* op) {
  switch (op->code()) {
    case OpCode::Load:
      if (op->operand(0).type().isBlockPointer()) return emitBlockLoad(e, op);
      return emitTensorLoad(e, op);
    case OpCode::Store:
      if (op->operand(0).type().isBlockPointer()) return emitBlockStore(e, op);
      return emitTensorStore(e, op);
    case OpCode::AtomicRMW: case OpCode::AtomicCAS: return emitAtomic(e, op);
    case OpCode::MakeTensorPtr: return emitMakeTensorPtr(e, op);
    case OpCode::Advance: return emitAdvance(e, op);
    default: e.fail(op, "unexpected memory op");
  }
}

}  // namespace tessera::ptx
