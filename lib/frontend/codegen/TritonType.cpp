//===- TritonType.cpp - Triton's element types with signedness ------------===//

#include "TritonType.h"

#include <cassert>

namespace tessera::frontend {

DType DType::pointer(const DType& pointee, bool isConst, int addrSpace) {
  DType t(ScalarKind::Pointer);
  t.pointee_ = std::make_shared<const DType>(pointee);
  t.const_ = isConst;
  t.addrSpace_ = addrSpace;
  return t;
}

DType DType::blockPointer(const DType& elem, std::vector<int64_t> shape, bool isConst) {
  DType t = pointer(elem, isConst);
  t.blockShape_ = std::move(shape);
  return t;
}

DType DType::integer(unsigned bits, bool isSigned) {
  switch (bits) {
    case 1: return ScalarKind::I1;
    case 8: return isSigned ? ScalarKind::I8 : ScalarKind::U8;
    case 16: return isSigned ? ScalarKind::I16 : ScalarKind::U16;
    case 32: return isSigned ? ScalarKind::I32 : ScalarKind::U32;
    default: return isSigned ? ScalarKind::I64 : ScalarKind::U64;
  }
}

DType DType::withoutConst() const {
  DType t = *this;
  t.const_ = false;
  return t;
}

unsigned DType::bitwidth() const {
  switch (kind_) {
    case ScalarKind::Void: return 0;
    case ScalarKind::I1: return 1;
    case ScalarKind::I8: case ScalarKind::U8: return 8;
    case ScalarKind::I16: case ScalarKind::U16: return 16;
    case ScalarKind::I32: case ScalarKind::U32: return 32;
    case ScalarKind::I64: case ScalarKind::U64: return 64;
    case ScalarKind::FP8E4NV: case ScalarKind::FP8E5: case ScalarKind::FP8E4B8:
    case ScalarKind::FP8E5B16: case ScalarKind::FP8E4B15: return 8;
    case ScalarKind::FP16: case ScalarKind::BF16: return 16;
    case ScalarKind::FP32: return 32;
    case ScalarKind::FP64: return 64;
    case ScalarKind::Pointer: return 64;
  }
  return 0;
}

unsigned DType::mantissaBits() const {
  switch (kind_) {
    case ScalarKind::FP8E4NV: case ScalarKind::FP8E4B8: case ScalarKind::FP8E4B15: return 3;
    case ScalarKind::FP8E5: case ScalarKind::FP8E5B16: return 2;
    case ScalarKind::FP16: return 10;
    case ScalarKind::BF16: return 7;
    case ScalarKind::FP32: return 23;
    case ScalarKind::FP64: return 52;
    default: return 0;
  }
}

static const char* scalarName(ScalarKind k) {
  switch (k) {
    case ScalarKind::Void: return "void";
    case ScalarKind::I1: return "int1";
    case ScalarKind::I8: return "int8";
    case ScalarKind::I16: return "int16";
    case ScalarKind::I32: return "int32";
    case ScalarKind::I64: return "int64";
    case ScalarKind::U8: return "uint8";
    case ScalarKind::U16: return "uint16";
    case ScalarKind::U32: return "uint32";
    case ScalarKind::U64: return "uint64";
    case ScalarKind::FP8E4NV: return "fp8e4nv";
    case ScalarKind::FP8E5: return "fp8e5";
    case ScalarKind::FP8E4B8: return "fp8e4b8";
    case ScalarKind::FP8E5B16: return "fp8e5b16";
    case ScalarKind::FP8E4B15: return "fp8e4b15";
    case ScalarKind::FP16: return "fp16";
    case ScalarKind::BF16: return "bf16";
    case ScalarKind::FP32: return "fp32";
    case ScalarKind::FP64: return "fp64";
    case ScalarKind::Pointer: return "pointer";
  }
  return "?";
}

std::string shapeToString(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string DType::name() const {
  if (!isPtr()) return scalarName(kind_);
  if (isBlockPtr()) return "pointer<block<" + shapeToString(blockShape_) + ", " + pointee_->name() + ">>";
  return std::string(const_ ? "const_pointer<" : "pointer<") + pointee_->name() + ">";
}

std::string DType::signatureName() const {
  if (isPtr()) return std::string("*") + (const_ ? "k" : "") + pointee_->signatureName();
  switch (kind_) {
    case ScalarKind::I1: return "i1";
    case ScalarKind::I8: return "i8";
    case ScalarKind::I16: return "i16";
    case ScalarKind::I32: return "i32";
    case ScalarKind::I64: return "i64";
    case ScalarKind::U8: return "u8";
    case ScalarKind::U16: return "u16";
    case ScalarKind::U32: return "u32";
    case ScalarKind::U64: return "u64";
    default: return scalarName(kind_);
  }
}

ir::Type DType::toIR() const {
  using ir::Type;
  using ir::TypeKind;
  switch (kind_) {
    case ScalarKind::Void: return Type();
    case ScalarKind::I1: return Type::i1();
    case ScalarKind::I8: case ScalarKind::U8: return Type::i8();
    case ScalarKind::I16: case ScalarKind::U16: return Type::i16();
    case ScalarKind::I32: case ScalarKind::U32: return Type::i32();
    case ScalarKind::I64: case ScalarKind::U64: return Type::i64();
    case ScalarKind::FP8E4NV: return Type::scalar(TypeKind::F8E4M3FN);
    case ScalarKind::FP8E5: return Type::scalar(TypeKind::F8E5M2);
    case ScalarKind::FP8E4B8: return Type::scalar(TypeKind::F8E4M3FNUZ);
    case ScalarKind::FP8E5B16: return Type::scalar(TypeKind::F8E5M2FNUZ);
    case ScalarKind::FP8E4B15: return Type::scalar(TypeKind::F8E4M3B11FNUZ);
    case ScalarKind::FP16: return Type::f16();
    case ScalarKind::BF16: return Type::bf16();
    case ScalarKind::FP32: return Type::f32();
    case ScalarKind::FP64: return Type::f64();
    case ScalarKind::Pointer:
      if (isBlockPtr()) return Type::pointer(Type::tensor(blockShape_, pointee_->toIR()), addrSpace_);
      return Type::pointer(pointee_->toIR(), addrSpace_);
  }
  return Type();
}

bool DType::operator==(const DType& o) const {
  if (kind_ != o.kind_) return false;
  if (!isPtr()) return true;
  return const_ == o.const_ && addrSpace_ == o.addrSpace_ && blockShape_ == o.blockShape_ &&
         *pointee_ == *o.pointee_;
}

std::optional<DType> DType::fromName(std::string_view n) {
  if (!n.empty() && n[0] == '*') {
    n.remove_prefix(1);
    bool isConst = false;
    if (!n.empty() && n[0] == 'k') {
      isConst = true;
      n.remove_prefix(1);
    }
    auto inner = fromName(n);
    if (!inner || inner->isVoid()) return std::nullopt;
    return pointer(*inner, isConst);
  }
  for (std::string_view prefix : {"triton.language.", "tl.", "torch."})
    if (n.substr(0, prefix.size()) == prefix) n.remove_prefix(prefix.size());
  struct Entry { std::string_view name; ScalarKind kind; };
  static const Entry table[] = {
      {"i1", ScalarKind::I1}, {"u1", ScalarKind::I1}, {"B", ScalarKind::I1}, {"int1", ScalarKind::I1},
      {"bool", ScalarKind::I1},
      {"i8", ScalarKind::I8}, {"int8", ScalarKind::I8}, {"i16", ScalarKind::I16}, {"int16", ScalarKind::I16},
      {"i32", ScalarKind::I32}, {"int32", ScalarKind::I32}, {"i64", ScalarKind::I64}, {"int64", ScalarKind::I64},
      {"u8", ScalarKind::U8}, {"uint8", ScalarKind::U8}, {"u16", ScalarKind::U16}, {"uint16", ScalarKind::U16},
      {"u32", ScalarKind::U32}, {"uint32", ScalarKind::U32}, {"u64", ScalarKind::U64}, {"uint64", ScalarKind::U64},
      {"fp8e4nv", ScalarKind::FP8E4NV}, {"float8e4nv", ScalarKind::FP8E4NV}, {"float8_e4m3fn", ScalarKind::FP8E4NV},
      {"fp8e5", ScalarKind::FP8E5}, {"float8e5", ScalarKind::FP8E5}, {"float8_e5m2", ScalarKind::FP8E5},
      {"fp8e4b8", ScalarKind::FP8E4B8}, {"float8e4b8", ScalarKind::FP8E4B8},
      {"fp8e5b16", ScalarKind::FP8E5B16}, {"float8e5b16", ScalarKind::FP8E5B16},
      {"fp8e4b15", ScalarKind::FP8E4B15}, {"float8e4b15", ScalarKind::FP8E4B15},
      {"fp16", ScalarKind::FP16}, {"float16", ScalarKind::FP16}, {"half", ScalarKind::FP16},
      {"bf16", ScalarKind::BF16}, {"bfloat16", ScalarKind::BF16},
      {"fp32", ScalarKind::FP32}, {"float32", ScalarKind::FP32}, {"float", ScalarKind::FP32},
      {"fp64", ScalarKind::FP64}, {"float64", ScalarKind::FP64}, {"double", ScalarKind::FP64},
      {"void", ScalarKind::Void},
  };
  for (const auto& e : table)
    if (e.name == n) return DType(e.kind);
  return std::nullopt;
}

}  // namespace tessera::frontend
