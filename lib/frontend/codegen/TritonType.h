//===- TritonType.h - Triton's element types with signedness ---*- C++ -*-===//
//
// The Tile IR is signless (i32 is both int32 and uint32), but Triton's
// semantics depend on signedness (`//` is divsi or divui, `>>` arithmetic or
// logical, int -> float sitofp or uitofp). The code generator therefore
// tracks every value's Triton dtype itself:
//
//   scalars   int1 int8 int16 int32 int64 uint8 uint16 uint32 uint64
//             fp8e4nv fp8e5 fp8e4b8 fp8e5b16 fp8e4b15 fp16 bf16 fp32 fp64 void
//   pointers  pointer<T> (optionally const), T any dtype
//   block pointers  pointer<block<[shape], T>> (make_block_ptr's result)
//
// A value's full type is a DType plus a shape (empty = scalar), see Value.h.
// Names follow Triton's `dtype.name` ("int32", "fp16", "pointer<fp32>").
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/ir/Types.h"

namespace tessera::frontend {

enum class ScalarKind : uint8_t {
  Void, I1, I8, I16, I32, I64, U8, U16, U32, U64,
  FP8E4NV, FP8E5, FP8E4B8, FP8E5B16, FP8E4B15, FP16, BF16, FP32, FP64,
  Pointer,
};

/// A Triton dtype: a scalar kind or a (block) pointer. Cheap to copy.
class DType {
 public:
  DType() = default;
  DType(ScalarKind k) : kind_(k) {}  // NOLINT: implicit for convenience
  static DType pointer(const DType& pointee, bool isConst = false, int addrSpace = 1);
  /// make_block_ptr's result: a pointer to a block of `elem`.
  static DType blockPointer(const DType& elem, std::vector<int64_t> shape, bool isConst = false);
  static DType integer(unsigned bits, bool isSigned);

  ScalarKind kind() const { return kind_; }
  bool isVoid() const { return kind_ == ScalarKind::Void; }
  bool isInt1() const { return kind_ == ScalarKind::I1; }
  bool isInt() const { return kind_ >= ScalarKind::I1 && kind_ <= ScalarKind::U64; }
  bool isSigned() const { return kind_ >= ScalarKind::I8 && kind_ <= ScalarKind::I64; }
  /// int1 counts as unsigned, as in Triton.
  bool isUnsigned() const { return isInt() && !isSigned(); }
  bool isFloat() const { return kind_ >= ScalarKind::FP8E4NV && kind_ <= ScalarKind::FP64; }
  bool isFP8() const { return kind_ >= ScalarKind::FP8E4NV && kind_ <= ScalarKind::FP8E4B15; }
  bool isFP16() const { return kind_ == ScalarKind::FP16; }
  bool isBF16() const { return kind_ == ScalarKind::BF16; }
  bool isFP32() const { return kind_ == ScalarKind::FP32; }
  bool isFP64() const { return kind_ == ScalarKind::FP64; }
  bool isPtr() const { return kind_ == ScalarKind::Pointer; }
  bool isBlockPtr() const { return isPtr() && !blockShape_.empty(); }
  bool isConstPtr() const { return isPtr() && const_; }
  /// Kind order used by the promotion rules: 0 bool, 1 int, 2 float, 3 other.
  int kindRank() const { return isInt1() ? 0 : isInt() ? 1 : isFloat() ? 2 : 3; }

  /// Width in bits (pointers: 64).
  unsigned bitwidth() const;
  /// Mantissa bits of a float (fp32: 23).
  unsigned mantissaBits() const;
  /// Pointee (for block pointers: the element type of the block).
  const DType& pointee() const { return *pointee_; }
  int addressSpace() const { return addrSpace_; }
  const std::vector<int64_t>& blockShape() const { return blockShape_; }
  DType withoutConst() const;

  /// Triton's name: "int32", "uint8", "fp16", "pointer<fp32>".
  std::string name() const;
  /// Signature form: "i32", "u8", "fp16", "*fp32", "*kfp16".
  std::string signatureName() const;
  ir::Type toIR() const;

  bool operator==(const DType& o) const;
  bool operator!=(const DType& o) const { return !(*this == o); }

  /// Accepts Triton's spellings: "fp16", "float16", "tl.float16",
  /// "triton.language.float16", "i32", "int32", "u8", "B", "*fp32", "*kfp16".
  static std::optional<DType> fromName(std::string_view name);

 private:
  ScalarKind kind_ = ScalarKind::Void;
  std::shared_ptr<const DType> pointee_;
  std::vector<int64_t> blockShape_;
  bool const_ = false;
  int addrSpace_ = 1;
};

/// "[64, 128]" for messages.
std::string shapeToString(const std::vector<int64_t>& shape);

}  // namespace tessera::frontend
