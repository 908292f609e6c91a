//===- tessera/ir/Types.h - Tile IR types ----------------------*- C++ -*-===//
//
// Types are interned: a Type is a pointer-sized handle and two Types are equal
// iff they are the same handle. Kinds:
//
//   integers   i1 i8 i16 i32 i64             (signless, as in MLIR: the op says
//                                             whether it is signed, divsi/divui)
//   floats     f8E4M3FN f8E5M2 f8E4M3FNUZ f8E5M2FNUZ f8E4M3B11FNUZ f16 bf16 f32 f64
//   pointer    !tt.ptr<T>  or  !tt.ptr<T, 3>  (address space; 1 = global)
//   tensor     tensor<64x128xf32>, tensor<128x!tt.ptr<f16>>
//   block ptr  !tt.ptr<tensor<64x64xf16>>     (make_block_ptr's result)
//
// In Tile GPU IR a tensor type also carries an encoding (Encoding.h):
//   tensor<128xf32, #ttg.blocked<{sizePerThread = [4], ...}>>
// Two tensor types with different encodings are different types.
//
// fp8 names follow MLIR: f8E4M3FN = Triton fp8e4nv, f8E5M2 = fp8e5,
// f8E4M3FNUZ = fp8e4b8, f8E5M2FNUZ = fp8e5b16, f8E4M3B11FNUZ = fp8e4b15.
// A "scalar" is a non-tensor type. Tensors have rank >= 1.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/ir/Encoding.h"

namespace tessera::ir {

enum class TypeKind : uint8_t {
  I1, I8, I16, I32, I64,
  F8E4M3FN, F8E5M2, F8E4M3FNUZ, F8E5M2FNUZ, F8E4M3B11FNUZ, F16, BF16, F32, F64,
  Pointer, Tensor,
};

struct TypeStorage;

class Type {
 public:
  Type() = default;

  // Factories (all return interned handles; thread-safe).
  static Type i1();
  static Type i8();
  static Type i16();
  static Type i32();
  static Type i64();
  static Type integer(unsigned width);  ///< 1, 8, 16, 32 or 64
  static Type f16();
  static Type bf16();
  static Type f32();
  static Type f64();
  static Type scalar(TypeKind kind);  ///< any integer or float kind
  static Type pointer(Type pointee, int addressSpace = 1);
  static Type tensor(std::vector<int64_t> shape, Type elementType, Encoding encoding = {});

  TypeKind kind() const;
  explicit operator bool() const { return impl_ != nullptr; }
  bool operator==(Type other) const { return impl_ == other.impl_; }
  bool operator!=(Type other) const { return impl_ != other.impl_; }
  bool operator<(Type other) const { return impl_ < other.impl_; }

  bool isInteger() const;      ///< i1..i64 (scalar only)
  bool isInteger(unsigned width) const;
  bool isFloat() const;        ///< any float kind (scalar only)
  bool isFP8() const;
  bool isPointer() const;      ///< !tt.ptr<...> (scalar), incl. block pointers
  bool isBlockPointer() const; ///< !tt.ptr<tensor<...>>
  bool isTensor() const;
  bool isScalar() const { return !isTensor(); }

  /// Bit width of an integer or float scalar; 64 for pointers.
  unsigned bitWidth() const;
  /// Size in bytes in memory (i1 -> 1, pointers -> 8).
  unsigned byteWidth() const;
  /// Float format details (for conversions): mantissa bits, exponent bits.
  unsigned mantissaBits() const;
  unsigned exponentBits() const;

  // Pointer accessors.
  Type pointeeType() const;
  int addressSpace() const;

  // Tensor accessors.
  const std::vector<int64_t>& shape() const;  ///< empty for scalars
  int64_t rank() const { return static_cast<int64_t>(shape().size()); }
  int64_t numElements() const;                ///< 1 for scalars
  Type elementType() const;                   ///< the type itself for scalars

  /// The GPU layout of a tensor type (null in Tile IR and for scalars).
  Encoding encoding() const;
  /// The same tensor type with another encoding (null: none). Scalars are
  /// returned unchanged.
  Type withEncoding(Encoding encoding) const;

  /// Same shape (and encoding) as this scalar or tensor, another element type.
  Type withElementType(Type element) const;
  /// Element type of a tensor, the type itself otherwise (alias of elementType).
  Type scalarType() const { return elementType(); }

  /// Textual form, e.g. "tensor<64x!tt.ptr<f16>>".
  std::string str() const;
  /// Parses the textual form; returns a null Type on failure.
  static Type parse(std::string_view text);

  const TypeStorage* impl() const { return impl_; }

 private:
  explicit Type(const TypeStorage* impl) : impl_(impl) {}
  const TypeStorage* impl_ = nullptr;
  friend struct TypeUniquer;
};

}  // namespace tessera::ir
