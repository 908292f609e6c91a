//===- interpreter/Extern.cpp - tt.extern_elementwise (libdevice) ---------===//
//
// Runs tt.extern_elementwise: looks the symbol up in the table of Extern.h
// when the plan is built (an unknown symbol is reported then), decodes each
// operand column into Cells, calls the function per element (inside the
// entry's rounding mode, restored afterwards) and encodes the results into
// the result type. Any number of operands is accepted.
//
//===----------------------------------------------------------------------===//

#include "interpreter/Extern.h"

#include <cfenv>
#include <cmath>
#include <cstring>

#include "interpreter/Codecs.h"

namespace tessera::interp {
namespace {

using ir::OpCode;

/// Per-op data: the implementation and the operand/result types.
struct ExternData {
  ExternImpl impl;
  std::vector<ir::Type> argTypes;
  ir::Type resultType;
  bool ftz = false;  ///< flush fp32 subnormal operands and results (see flushesSubnormals)
};

/// Decodes `n` elements of slot s (element type t) into dst, broadcasting a
/// single element.
void decodeColumn(Cell* dst, const Slot& s, ir::Type t, int64_t n, bool rawBits) {
  t = t.elementType();
  bool splat = s.n == 1;
  if (t.isFloat() && rawBits) {
    int b = storageBytes(t);
    for (int64_t i = 0; i < n; ++i) {
      dst[i].bits = 0;
      std::memcpy(&dst[i].bits, s.data + (splat ? 0 : i) * b, b);
    }
    return;
  }
  if (t.isFloat()) {
    withFloatCodec(t.kind(), [&]<class Cd>(Cd) {
      const auto* src = reinterpret_cast<const typename Cd::S*>(s.data);
      for (int64_t i = 0; i < n; ++i) dst[i].f = static_cast<double>(Cd::dec(src[splat ? 0 : i]));
      return 0;
    });
    return;
  }
  withIntType(t, [&]<class T>(T) {
    const T* src = reinterpret_cast<const T*>(s.data);
    for (int64_t i = 0; i < n; ++i) dst[i].i = static_cast<int64_t>(src[splat ? 0 : i]);
    return 0;
  });
}

void encodeColumn(Slot& s, const Cell* src, ir::Type t, int64_t n, bool rawBits) {
  t = t.elementType();
  if (t.isFloat() && rawBits) {
    int b = storageBytes(t);
    for (int64_t i = 0; i < n; ++i) std::memcpy(s.data + i * b, &src[i].bits, b);
    return;
  }
  if (t.isFloat()) {
    withFloatCodec(t.kind(), [&]<class Cd>(Cd) {
      auto* dst = reinterpret_cast<typename Cd::S*>(s.data);
      if constexpr (std::is_same_v<Cd, F32C> || std::is_same_v<Cd, F64C>) {
        for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<typename Cd::S>(src[i].f);
      } else {
        const FloatFormat& fmt = floatFormat(t.kind());
        for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<typename Cd::S>(encodeFloat(src[i].f, fmt));
      }
      return 0;
    });
    return;
  }
  withIntType(t, [&]<class T>(T) {
    T* dst = reinterpret_cast<T*>(s.data);
    bool i1 = isI1(t);
    for (int64_t i = 0; i < n; ++i) dst[i] = i1 ? T(src[i].i != 0) : static_cast<T>(src[i].i);
    return 0;
  });
}

/// Sets a rounding mode for its lifetime (nothing for -1).
class RoundingScope {
 public:
  explicit RoundingScope(int mode) : saved_(mode < 0 ? -1 : std::fegetround()) {
    if (mode >= 0) std::fesetround(mode);
  }
  ~RoundingScope() {
    if (saved_ >= 0) std::fesetround(saved_);
  }
  RoundingScope(const RoundingScope&) = delete;
  RoundingScope& operator=(const RoundingScope&) = delete;

 private:
  int saved_;
};

/// libdevice's fp32 functions run flush-to-zero on the GPU (Triton compiles
/// them with __CUDA_FTZ = 1, enable_reflect_ftz): a subnormal fp32 operand or
/// result is a zero of the same sign. Measured on an H100 against Triton 3.6
/// (tests/parity, libdevice_exact and libdevice_subnormal): add_ru, mul_rd,
/// div_rz, mul_rn, sqrt_rn, rsqrt_rn, ilogb, fast_logf and double2float_*
/// flush; the accurate __nv_logf does not (it rescales subnormal inputs:
/// log(1e-40) = -92.1). Bit reinterpretation functions (rawBits) keep their
/// bits.
bool flushesSubnormals(std::string_view symbol) { return symbol != "__nv_logf"; }

double flushSubnormal32(double v) {
  float r = static_cast<float>(v);
  return std::fpclassify(r) == FP_SUBNORMAL ? std::copysign(0.0, v) : v;
}

void externOp(const Instr& in, Frame& f) {
  const auto& ed = *static_cast<const ExternData*>(in.aux);
  int64_t n = in.count * f.lanes;
  size_t arity = in.in.size();
  ThreadContext& ctx = *f.ctx;
  Slot& out = f.slots[in.out[0]];
  out.ensure(n * in.elemBytes + 8);
  out.n = n;
  // Operands interleaved per element: cells[i * arity + k].
  Cell* cells = reinterpret_cast<Cell*>(ctx.scratchBuf(12, (n * arity + 1) * sizeof(Cell)));
  Cell* column = reinterpret_cast<Cell*>(ctx.scratchBuf(13, (n + 1) * sizeof(Cell)));
  for (size_t k = 0; k < arity; ++k) {
    decodeColumn(column, f.slots[in.in[k]], ed.argTypes[k], n, ed.impl.rawBits);
    bool ftz = ed.ftz && ed.argTypes[k].elementType() == ir::Type::f32();
    for (int64_t i = 0; i < n; ++i) {
      cells[i * arity + k] = column[i];
      if (ftz) cells[i * arity + k].f = flushSubnormal32(column[i].f);
    }
  }
  Cell* res = reinterpret_cast<Cell*>(ctx.scratchBuf(11, (n + 1) * sizeof(Cell)));
  {
    RoundingScope scope(ed.impl.roundMode);
    auto fn = ed.impl.fn;
    for (int64_t i = 0; i < n; ++i) res[i] = fn(cells + i * arity);
  }
  if (ed.ftz && ed.resultType.elementType() == ir::Type::f32())
    for (int64_t i = 0; i < n; ++i) res[i].f = flushSubnormal32(res[i].f);
  encodeColumn(out, res, ed.resultType, n, ed.impl.rawBits);
}

}  // namespace

const ExternTable& externTable() {
  static const ExternTable table = [] {
    ExternTable t;
    addExternMath(t);
    addExternRounding(t);
    addExternBits(t);
    return t;
  }();
  return table;
}

bool externSymbolAvailable(std::string_view symbol, size_t arity) {
  auto it = externTable().find(symbol);
  return it != externTable().end() && static_cast<size_t>(it->second.arity) == arity;
}

bool buildExtern(ir::Operation* op, Instr& in, PlanBuilder& b) {
  if (op->is(OpCode::InlineAsm)) planError(op, "inline_asm_elementwise is not supported in the interpreter");
  if (!op->is(OpCode::ExternElementwise)) return false;
  std::string symbol = op->strAttr("symbol");
  if (op->numResults() != 1) planError(op, "extern function '" + symbol + "' must have one result");
  auto it = externTable().find(symbol);
  if (it == externTable().end())
    planError(op, "extern function '" + symbol + "' is not available in the interpreter");
  if (static_cast<size_t>(it->second.arity) != op->numOperands())
    planError(op, "extern function '" + symbol + "' takes " + std::to_string(it->second.arity) + " operand" +
                      (it->second.arity == 1 ? "" : "s") + ", got " + std::to_string(op->numOperands()));
  auto ed = std::make_shared<ExternData>();
  ed->impl = it->second;
  ed->ftz = !ed->impl.rawBits && flushesSubnormals(symbol);
  for (ir::Value v : op->operands()) ed->argTypes.push_back(v.type());
  ed->resultType = op->result(0).type();
  in.aux = ed.get();
  in.owned = ed;
  in.fn = &externOp;
  return true;
}

}  // namespace tessera::interp
