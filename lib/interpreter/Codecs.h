//===- interpreter/Codecs.h - Typed element access for kernels --*- C++ -*-===//
//
// Codecs describe how a float element type is stored (S) and computed (C):
// f32/f64 natively, f16/bf16/fp8 as bit patterns computed in float and
// rounded once on the way back. Kernels are templates over a codec so the
// per-element loop has no dispatch. withFloatCodec / withIntType pick the
// instantiation for a type at plan time.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "interpreter/FloatFormats.h"
#include "interpreter/Runtime.h"

namespace tessera::interp {

struct F32C {
  using S = float;
  using C = float;
  static C dec(S x) { return x; }
  static S enc(C x) { return x; }
};
struct F64C {
  using S = double;
  using C = double;
  static C dec(S x) { return x; }
  static S enc(C x) { return x; }
};
struct F16C {
  using S = uint16_t;
  using C = float;
  static C dec(S x) { return halfToFloat(x); }
  static S enc(C x) { return floatToHalf(x); }
};
struct BF16C {
  using S = uint16_t;
  using C = float;
  static C dec(S x) { return bf16ToFloat(x); }
  static S enc(C x) { return floatToBF16(x); }
};
template <ir::TypeKind K> struct F8C {
  using S = uint8_t;
  using C = float;
  static C dec(S x) {
    static const float* table = fp8Table(K);
    return table[x];
  }
  static S enc(C x) { return static_cast<S>(encodeFloat(x, floatFormat(K))); }
};

/// Calls f(Codec{}) for the float kind `k`; returns what f returns.
template <class Fn> auto withFloatCodec(ir::TypeKind k, Fn&& f) {
  using K = ir::TypeKind;
  switch (k) {
  case K::F64: return f(F64C{});
  case K::F16: return f(F16C{});
  case K::BF16: return f(BF16C{});
  case K::F8E4M3FN: return f(F8C<K::F8E4M3FN>{});
  case K::F8E5M2: return f(F8C<K::F8E5M2>{});
  case K::F8E4M3FNUZ: return f(F8C<K::F8E4M3FNUZ>{});
  case K::F8E5M2FNUZ: return f(F8C<K::F8E5M2FNUZ>{});
  case K::F8E4M3B11FNUZ: return f(F8C<K::F8E4M3B11FNUZ>{});
  default: return f(F32C{});
  }
}

/// Calls f(T{}) with the signed storage type of an integer (or pointer) type;
/// i1 uses int8_t (callers handle the 0/1 convention).
template <class Fn> auto withIntType(ir::Type t, Fn&& f) {
  t = t.elementType();
  unsigned bits = t.isPointer() ? 64 : t.bitWidth();
  switch (bits) {
  case 1:
  case 8: return f(int8_t{});
  case 16: return f(int16_t{});
  case 32: return f(int32_t{});
  default: return f(int64_t{});
  }
}

/// Calls f(T{}) with an unsigned type of `bytes` bytes (1, 2, 4, 8).
template <class Fn> auto withBytes(int bytes, Fn&& f) {
  switch (bytes) {
  case 1: return f(uint8_t{});
  case 2: return f(uint16_t{});
  case 4: return f(uint32_t{});
  default: return f(uint64_t{});
  }
}

/// Whether element type `t` is stored as i1 (0/1 bytes).
inline bool isI1(ir::Type t) { return t.elementType().isInteger(1); }

}  // namespace tessera::interp
