//===- interpreter/Memory.cpp - Pointers, loads, stores and atomics -------===//
//
// Pointers are host addresses. Every unmasked lane of a load, store or
// atomic is checked against the launch's allocation snapshot (the last hit
// is cached per thread, so the common case is two compares). Masked-off
// loads produce `other` (or 0). Block pointers carry base, shape, strides
// and offsets; their loads pad out-of-bounds elements of the checked
// dimensions with zero or NaN and their stores drop them. Atomics are true
// host atomics (std::atomic_ref, CAS loops for floats).
//
//===----------------------------------------------------------------------===//

// Kernels are tight loops over contiguous buffers: let GCC vectorize them.
#pragma GCC optimize("O3")

#include <algorithm>
#include <atomic>
#include <cmath>

#include "interpreter/Codecs.h"

namespace tessera::interp {
namespace {

using ir::OpCode;

//===----------------------------------------------------------------------===//
// addptr
//===----------------------------------------------------------------------===//

template <class Off> void addPtr(const Instr& in, Frame& f) {
  int64_t n = in.count * f.lanes;
  const uint64_t* p = f.in<uint64_t>(in.in[0], n, 0);
  const Off* o = f.in<Off>(in.in[1], n, 1);
  uint64_t* __restrict r = f.out<uint64_t>(in.out[0], n);
  uint64_t size = static_cast<uint64_t>(in.p[0]);
  if (in.p[1] >= 0) {  // power-of-two element size: a shift
    unsigned shift = static_cast<unsigned>(in.p[1]);
    for (int64_t i = 0; i < n; ++i) r[i] = p[i] + (static_cast<uint64_t>(static_cast<int64_t>(o[i])) << shift);
    return;
  }
  for (int64_t i = 0; i < n; ++i) r[i] = p[i] + static_cast<uint64_t>(static_cast<int64_t>(o[i])) * size;
}

//===----------------------------------------------------------------------===//
// load / store
//===----------------------------------------------------------------------===//

/// Whether p[i] == p[0] + i * size for all lanes.
inline bool contiguous(const uint64_t* p, int64_t n, uint64_t size) {
  uint64_t base = p[0], bad = 0;
  for (int64_t i = 0; i < n; ++i) bad |= p[i] ^ (base + static_cast<uint64_t>(i) * size);
  return bad == 0;
}

/// First and last unmasked lane; false when every lane is masked off.
inline bool maskExtent(const uint8_t* m, int64_t n, int64_t& first, int64_t& last) {
  first = 0;
  last = n - 1;
  if (!m) return n > 0;
  while (first < n && !m[first]) ++first;
  if (first == n) return false;
  while (!m[last]) --last;
  return true;
}

/// Loads of contiguous lanes [first, last] known to lie inside one allocation
/// (masked lanes in between may be read: they are inside it too).
template <class T> void loadContiguous(T* __restrict r, const T* __restrict src, const uint8_t* m,
                                       const T* other, int64_t n, int64_t first, int64_t last) {
  if (!m) {
    std::memcpy(r, src, n * sizeof(T));
    return;
  }
  for (int64_t i = 0; i < first; ++i) r[i] = other ? other[i] : T(0);
  // Branch-free selects (T is an unsigned storage type) so the loops vectorize.
  if (other) {
    for (int64_t i = first; i <= last; ++i) {
      T keep = T(T(0) - T(m[i] != 0));
      r[i] = T((src[i] & keep) | (other[i] & T(~keep)));
    }
  } else {
    for (int64_t i = first; i <= last; ++i) r[i] = T(src[i] & T(T(0) - T(m[i] != 0)));
  }
  for (int64_t i = last + 1; i < n; ++i) r[i] = other ? other[i] : T(0);
}

template <class T, bool I1> void loadOp(const Instr& in, Frame& f) {
  int64_t n = in.count * f.lanes;
  const uint64_t* p = f.in<uint64_t>(in.in[0], n, 0);
  const uint8_t* m = in.in.size() > 1 ? f.in<uint8_t>(in.in[1], n, 1) : nullptr;
  const T* other = in.in.size() > 2 ? f.in<T>(in.in[2], n, 2) : nullptr;
  T* __restrict r = f.out<T>(in.out[0], n);
  ThreadContext& ctx = *f.ctx;
  int64_t first, last;
  if (!I1 && n > 1 && contiguous(p, n, sizeof(T))) {
    if (!maskExtent(m, n, first, last)) {
      for (int64_t i = 0; i < n; ++i) r[i] = other ? other[i] : T(0);
      return;
    }
    uint64_t lo = p[first], hi = p[last];
    if (checkAccess(ctx, lo, hi - lo + sizeof(T))) {
      loadContiguous(r, reinterpret_cast<const T*>(p[0]), m, other, n, first, last);
      return;
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    if (m && !m[i]) {
      r[i] = other ? other[i] : T(0);
      continue;
    }
    uint64_t a = p[i];
    if (!checkAccess(ctx, a, sizeof(T))) accessError(in, f, "load", a, sizeof(T), i);
    T v;
    std::memcpy(&v, reinterpret_cast<const void*>(a), sizeof(T));
    r[i] = I1 ? T(v != 0) : v;
  }
}

template <class T, bool I1> void storeOp(const Instr& in, Frame& f) {
  int64_t n = in.count * f.lanes;
  const uint64_t* p = f.in<uint64_t>(in.in[0], n, 0);
  const T* v = f.in<T>(in.in[1], n, 1);
  const uint8_t* m = in.in.size() > 2 ? f.in<uint8_t>(in.in[2], n, 2) : nullptr;
  ThreadContext& ctx = *f.ctx;
  int64_t first, last;
  if (!I1 && n > 1 && contiguous(p, n, sizeof(T))) {
    if (!maskExtent(m, n, first, last)) return;
    uint64_t lo = p[first], hi = p[last];
    if (checkAccess(ctx, lo, hi - lo + sizeof(T))) {
      T* dst = reinterpret_cast<T*>(p[0]);
      int64_t off = 0;
      if (m)
        for (int64_t i = first; i <= last; ++i) off += m[i] == 0;
      if (off == 0) {
        std::memcpy(dst + first, v + first, (last - first + 1) * sizeof(T));
        return;
      }
      for (int64_t i = first; i <= last; ++i)
        if (m[i]) dst[i] = v[i];
      return;
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    if (m && !m[i]) continue;
    uint64_t a = p[i];
    if (!checkAccess(ctx, a, sizeof(T))) accessError(in, f, "store", a, sizeof(T), i);
    T x = I1 ? T(v[i] & 1) : v[i];
    std::memcpy(reinterpret_cast<void*>(a), &x, sizeof(T));
  }
}

//===----------------------------------------------------------------------===//
// Block pointers
//===----------------------------------------------------------------------===//

void makeTensorPtr(const Instr& in, Frame& f) {
  Slot& out = f.slots[in.out[0]];
  BlockPtr& bp = out.bp;
  int r = static_cast<int>(in.p[0]);
  bp.rank = r;
  bp.base = *f.slots[in.in[0]].as<uint64_t>();
  ir::Operation* op = in.op;
  for (int d = 0; d < r; ++d) {
    bp.shape[d] = readInt(f, in.in[1 + d], op->operand(1 + d).type());
    bp.strides[d] = readInt(f, in.in[1 + r + d], op->operand(1 + r + d).type());
    bp.offsets[d] = readInt(f, in.in[1 + 2 * r + d], op->operand(1 + 2 * r + d).type());
  }
  out.n = 1;
}

void advance(const Instr& in, Frame& f) {
  BlockPtr bp = f.slots[in.in[0]].bp;
  for (int d = 0; d < bp.rank; ++d)
    bp.offsets[d] += readInt(f, in.in[1 + d], in.op->operand(1 + d).type());
  Slot& out = f.slots[in.out[0]];
  out.bp = bp;
  out.n = 1;
}

/// Visits every element of a block: fn(linear index, address, in bounds of the checked dims).
template <class Fn> void forEachBlockElement(const BlockPtr& bp, const std::vector<int64_t>& shape,
                                             uint64_t checkMask, int bytes, Fn&& fn) {
  int rank = static_cast<int>(shape.size());
  int64_t idx[kMaxBlockPtrRank] = {};
  int64_t total = 1;
  for (int64_t s : shape) total *= s;
  for (int64_t i = 0; i < total; ++i) {
    // Addresses wrap modulo 2^64 like the GPU's: user strides (any i64) times
    // coordinates overflow int64; a wild address is caught by the bounds check.
    uint64_t offset = 0;
    bool inBounds = true;
    for (int d = 0; d < rank; ++d) {
      int64_t c = bp.offsets[d] + idx[d];
      offset += static_cast<uint64_t>(c) * static_cast<uint64_t>(bp.strides[d]);
      if (((checkMask >> d) & 1) && (c < 0 || c >= bp.shape[d])) inBounds = false;
    }
    fn(i, bp.base + offset * static_cast<uint64_t>(bytes), inBounds);
    for (int d = rank - 1; d >= 0; --d) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}

template <class T> void loadBlock(const Instr& in, Frame& f) {
  const BlockPtr& bp = f.slots[in.in[0]].bp;
  T* r = f.out<T>(in.out[0], in.count);
  ThreadContext& ctx = *f.ctx;
  T pad;
  std::memcpy(&pad, &in.p[1], sizeof(T));
  forEachBlockElement(bp, in.v, static_cast<uint64_t>(in.p[0]), sizeof(T), [&](int64_t i, uint64_t a, bool ok) {
    if (!ok) {
      r[i] = pad;
      return;
    }
    if (!checkAccess(ctx, a, sizeof(T))) accessError(in, f, "load", a, sizeof(T), i);
    std::memcpy(&r[i], reinterpret_cast<const void*>(a), sizeof(T));
  });
}

template <class T> void storeBlock(const Instr& in, Frame& f) {
  const BlockPtr& bp = f.slots[in.in[0]].bp;
  const T* v = f.slots[in.in[1]].as<T>();
  ThreadContext& ctx = *f.ctx;
  forEachBlockElement(bp, in.v, static_cast<uint64_t>(in.p[0]), sizeof(T), [&](int64_t i, uint64_t a, bool ok) {
    if (!ok) return;
    if (!checkAccess(ctx, a, sizeof(T))) accessError(in, f, "store", a, sizeof(T), i);
    std::memcpy(reinterpret_cast<void*>(a), &v[i], sizeof(T));
  });
}

//===----------------------------------------------------------------------===//
// Atomics
//===----------------------------------------------------------------------===//

enum class AKind { Add, FAdd, Max, UMax, Min, UMin, FMax, FMin, And, Or, Xor, Xchg };

using AtomicFn = uint64_t (*)(void* addr, uint64_t value);

template <class U, class Fn> U casLoop(std::atomic_ref<U>& ref, Fn&& update) {
  U old = ref.load(std::memory_order_relaxed);
  while (!ref.compare_exchange_weak(old, update(old), std::memory_order_acq_rel, std::memory_order_relaxed)) {
  }
  return old;
}

/// Integer atomics on T (signed type of the element width).
template <class T, AKind K> uint64_t atomicInt(void* addr, uint64_t value) {
  using UT = std::make_unsigned_t<T>;
  std::atomic_ref<UT> ref(*static_cast<UT*>(addr));
  UT v = static_cast<UT>(value);
  UT old;
  if constexpr (K == AKind::Add) old = ref.fetch_add(v, std::memory_order_acq_rel);
  else if constexpr (K == AKind::And) old = ref.fetch_and(v, std::memory_order_acq_rel);
  else if constexpr (K == AKind::Or) old = ref.fetch_or(v, std::memory_order_acq_rel);
  else if constexpr (K == AKind::Xor) old = ref.fetch_xor(v, std::memory_order_acq_rel);
  else if constexpr (K == AKind::Xchg) old = ref.exchange(v, std::memory_order_acq_rel);
  else if constexpr (K == AKind::Max) old = casLoop(ref, [&](UT o) { return T(o) > T(v) ? o : v; });
  else if constexpr (K == AKind::Min) old = casLoop(ref, [&](UT o) { return T(o) < T(v) ? o : v; });
  else if constexpr (K == AKind::UMax) old = casLoop(ref, [&](UT o) { return o > v ? o : v; });
  else old = casLoop(ref, [&](UT o) { return o < v ? o : v; });
  return old;
}

/// Float atomics on the bit patterns of codec Cd.
template <class Cd, AKind K> uint64_t atomicFloat(void* addr, uint64_t value) {
  using S = typename Cd::S;
  using UT = std::conditional_t<sizeof(S) == 8, uint64_t, std::conditional_t<sizeof(S) == 4, uint32_t, uint16_t>>;
  using ST = std::make_signed_t<UT>;
  std::atomic_ref<UT> ref(*static_cast<UT*>(addr));
  UT v = static_cast<UT>(value);
  auto toS = [](UT u) { S s; std::memcpy(&s, &u, sizeof(S)); return s; };
  auto toU = [](S s) { UT u; std::memcpy(&u, &s, sizeof(S)); return u; };
  if constexpr (K == AKind::FAdd || K == AKind::Add) {
    return casLoop(ref, [&](UT o) { return toU(Cd::enc(Cd::dec(toS(o)) + Cd::dec(toS(v)))); });
  } else if constexpr (K == AKind::Xchg) {
    return ref.exchange(v, std::memory_order_acq_rel);
  } else {
    // Like the GPU: sign-magnitude order through integer max/min on the bits.
    constexpr UT sign = UT(UT(1) << (sizeof(UT) * 8 - 1));
    bool negative = (v & sign) != 0;
    bool wantMax = K == AKind::FMax || K == AKind::Max;
    if (!negative)
      return casLoop(ref, [&](UT o) { return wantMax ? (ST(o) > ST(v) ? o : v) : (ST(o) < ST(v) ? o : v); });
    return casLoop(ref, [&](UT o) { return wantMax ? (o < v ? o : v) : (o > v ? o : v); });
  }
}

template <int Bytes> uint64_t atomicCas(void* addr, uint64_t cmp, uint64_t value) {
  using UT = std::conditional_t<Bytes == 8, uint64_t, std::conditional_t<Bytes == 4, uint32_t, std::conditional_t<Bytes == 2, uint16_t, uint8_t>>>;
  std::atomic_ref<UT> ref(*static_cast<UT*>(addr));
  UT expected = static_cast<UT>(cmp);
  ref.compare_exchange_strong(expected, static_cast<UT>(value), std::memory_order_acq_rel);
  return expected;
}

inline uint64_t readBits(const uint8_t* data, int64_t i, int bytes) {
  uint64_t v = 0;
  std::memcpy(&v, data + i * bytes, bytes);
  return v;
}
inline void writeBits(uint8_t* data, int64_t i, int bytes, uint64_t v) { std::memcpy(data + i * bytes, &v, bytes); }

void checkAtomicLane(const Instr& in, Frame& f, uint64_t a, int bytes, int64_t lane) {
  if (!checkAccess(*f.ctx, a, bytes)) accessError(in, f, "atomic", a, bytes, lane);
  if (a % bytes != 0) {
    char hex[32];
    std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(a));
    runtimeError(in, f, "misaligned atomic", std::string(": address ") + hex + " is not a multiple of " +
                                                 std::to_string(bytes));
  }
}

void atomicRmwOp(const Instr& in, Frame& f) {
  int64_t n = in.count * f.lanes;
  int bytes = in.elemBytes;
  const uint64_t* p = f.in<uint64_t>(in.in[0], n, 0);
  const uint8_t* v = n > 1 && f.slots[in.in[1]].n == 1 ? nullptr : f.slots[in.in[1]].data;
  const uint8_t* vScalar = f.slots[in.in[1]].data;
  const uint8_t* m = in.in.size() > 2 ? f.in<uint8_t>(in.in[2], n, 2) : nullptr;
  uint8_t* r = f.out<uint8_t>(in.out[0], n * bytes);
  f.slots[in.out[0]].n = n;
  auto fn = reinterpret_cast<AtomicFn>(const_cast<void*>(in.aux));
  for (int64_t i = 0; i < n; ++i) {
    if (m && !m[i]) {
      writeBits(r, i, bytes, 0);
      continue;
    }
    checkAtomicLane(in, f, p[i], bytes, i);
    uint64_t value = v ? readBits(v, i, bytes) : readBits(vScalar, 0, bytes);
    writeBits(r, i, bytes, fn(reinterpret_cast<void*>(p[i]), value));
  }
}

void atomicCasOp(const Instr& in, Frame& f) {
  int64_t n = in.count * f.lanes;
  int bytes = in.elemBytes;
  const uint64_t* p = f.in<uint64_t>(in.in[0], n, 0);
  Slot& cs = f.slots[in.in[1]];
  Slot& vs = f.slots[in.in[2]];
  uint8_t* r = f.out<uint8_t>(in.out[0], n * bytes);
  f.slots[in.out[0]].n = n;
  for (int64_t i = 0; i < n; ++i) {
    checkAtomicLane(in, f, p[i], bytes, i);
    uint64_t c = readBits(cs.data, cs.n == 1 ? 0 : i, bytes);
    uint64_t v = readBits(vs.data, vs.n == 1 ? 0 : i, bytes);
    void* a = reinterpret_cast<void*>(p[i]);
    uint64_t old;
    switch (bytes) {
    case 8: old = atomicCas<8>(a, c, v); break;
    case 4: old = atomicCas<4>(a, c, v); break;
    case 2: old = atomicCas<2>(a, c, v); break;
    default: old = atomicCas<1>(a, c, v); break;
    }
    writeBits(r, i, bytes, old);
  }
}

template <AKind K> AtomicFn pickAtomic(ir::Type t) {
  t = t.elementType();
  if (t.isFloat()) {
    if (t.isFP8()) return nullptr;
    return withFloatCodec(t.kind(), []<class Cd>(Cd) -> AtomicFn { return &atomicFloat<Cd, K>; });
  }
  if (K == AKind::FAdd || K == AKind::FMax || K == AKind::FMin) return nullptr;
  if (t.isInteger(1)) return nullptr;
  return withIntType(t, []<class T>(T) -> AtomicFn { return &atomicInt<T, K>; });
}

AtomicFn atomicFor(const std::string& kind, ir::Type t) {
  if (kind == "add") return pickAtomic<AKind::Add>(t);
  if (kind == "fadd") return pickAtomic<AKind::FAdd>(t);
  if (kind == "max") return pickAtomic<AKind::Max>(t);
  if (kind == "umax") return pickAtomic<AKind::UMax>(t);
  if (kind == "min") return pickAtomic<AKind::Min>(t);
  if (kind == "umin") return pickAtomic<AKind::UMin>(t);
  if (kind == "fmax") return pickAtomic<AKind::FMax>(t);
  if (kind == "fmin") return pickAtomic<AKind::FMin>(t);
  if (kind == "and") return pickAtomic<AKind::And>(t);
  if (kind == "or") return pickAtomic<AKind::Or>(t);
  if (kind == "xor") return pickAtomic<AKind::Xor>(t);
  if (kind == "xchg") return pickAtomic<AKind::Xchg>(t);
  return nullptr;
}

/// Bit pattern of NaN in element type t (for padding = "nan").
uint64_t nanPattern(ir::Type t) {
  switch (t.kind()) {
  case ir::TypeKind::F64: return doubleToBits(std::nan(""));
  case ir::TypeKind::F32: return floatToBits(std::nanf(""));
  default: return t.isFloat() ? encodeFloat(std::nan(""), floatFormat(t.kind())) : 0;
  }
}

bool buildLoadStore(ir::Operation* op, Instr& in) {
  bool isLoad = op->is(OpCode::Load);
  ir::Value ptr = op->operand(0);
  ir::Type valueType = isLoad ? op->result(0).type() : op->operand(1).type();
  int bytes = storageBytes(valueType);
  if (ptr.type().isBlockPointer()) {
    in.v = valueType.shape();
    if (static_cast<int>(in.v.size()) > kMaxBlockPtrRank) planError(op, "block pointer rank is too large");
    uint64_t mask = 0;
    if (op->hasAttr("boundary_check"))
      for (int64_t d : op->intArrayAttr("boundary_check")) mask |= 1ull << d;
    in.p[0] = static_cast<int64_t>(mask);
    std::string padding = op->strAttr("padding");
    uint64_t pad = padding == "nan" ? nanPattern(valueType.elementType()) : 0;
    std::memcpy(&in.p[1], &pad, 8);
    in.count = valueType.numElements();
    in.fn = withBytes(bytes, [&]<class T>(T) -> ExecFn { return isLoad ? &loadBlock<T> : &storeBlock<T>; });
    return true;
  }
  if (!isLoad) in.count = valueType.numElements();
  if (isI1(valueType)) {
    in.fn = isLoad ? &loadOp<uint8_t, true> : &storeOp<uint8_t, true>;
    return true;
  }
  in.fn = withBytes(bytes, [&]<class T>(T) -> ExecFn { return isLoad ? &loadOp<T, false> : &storeOp<T, false>; });
  return true;
}

}  // namespace

bool buildMemory(ir::Operation* op, Instr& in, PlanBuilder& b) {
  switch (op->code()) {
  case OpCode::AddPtr: {
    ir::Type pointee = op->operand(0).type().elementType().pointeeType();
    in.p[0] = storageBytes(pointee);
    in.p[1] = (in.p[0] & (in.p[0] - 1)) == 0 && in.p[0] > 0 ? __builtin_ctzll(in.p[0]) : -1;
    if (pointee.isBlockPointer() || pointee.isTensor()) planError(op, "tt.addptr on a block pointer");
    in.fn = withIntType(op->operand(1).type(), []<class T>(T) -> ExecFn { return &addPtr<T>; });
    if (isI1(op->operand(1).type())) planError(op, "tt.addptr with an i1 offset");
    return true;
  }
  case OpCode::Load:
  case OpCode::Store: return buildLoadStore(op, in);
  case OpCode::MakeTensorPtr: {
    ir::Type bt = op->result(0).type().pointeeType();
    int64_t rank = bt.rank();
    if (rank > kMaxBlockPtrRank || op->numOperands() != static_cast<unsigned>(1 + 3 * rank))
      planError(op, "tt.make_tensor_ptr: operand count does not match the block rank");
    in.p[0] = rank;
    in.fn = &makeTensorPtr;
    return true;
  }
  case OpCode::Advance: in.fn = &advance; return true;
  case OpCode::AtomicRMW: {
    std::string kind = op->strAttr("kind");
    AtomicFn fn = atomicFor(kind, op->operand(1).type());
    if (!fn)
      planError(op, "tt.atomic_rmw: kind '" + kind + "' is not supported for " +
                        op->operand(1).type().elementType().str());
    in.aux = reinterpret_cast<const void*>(fn);
    in.fn = &atomicRmwOp;
    return true;
  }
  case OpCode::AtomicCAS: in.fn = &atomicCasOp; return true;
  default: return false;
  }
}

}  // namespace tessera::interp
