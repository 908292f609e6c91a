//===- Builder.cpp - OpBuilder --------------------------------------------===//
//
// Creating ops at the builder's insertion point with its current location.
//
//===----------------------------------------------------------------------===//

#include "tessera/ir/Builder.h"

#include <cmath>

#include "ir/FloatFormats.h"

namespace tessera::ir {

Operation* OpBuilder::create(OpCode code, const std::vector<Type>& resultTypes,
                             const std::vector<Value>& operands, AttrMap attrs,
                             unsigned numRegions) {
  return insert(Operation::create(code, loc_, resultTypes, operands, std::move(attrs), numRegions));
}

Operation* OpBuilder::insert(Operation* op) {
  if (block_) block_->insert(before_, op);
  return op;
}

Value OpBuilder::constantInt(Type type, int64_t value) {
  // Canonical form (Ops.def): the bits sign-extended from the type's width,
  // i1 as 0/1.
  Type element = type.elementType();
  if (element.isInteger(1)) {
    value &= 1;
  } else if (element.isInteger() && element.bitWidth() < 64) {
    unsigned shift = 64 - element.bitWidth();
    value = static_cast<int64_t>(static_cast<uint64_t>(value) << shift) >> shift;
  }
  AttrMap attrs;
  attrs.emplace("value", value);
  return create(OpCode::Constant, {type}, {}, std::move(attrs))->result();
}

Value OpBuilder::constantFloat(Type type, double value) {
  // Canonical form: the value the type holds (rounded to nearest even;
  // fp8 without infinities saturates), so that folds see what runs.
  TypeKind kind = type.elementType().kind();
  if (kind != TypeKind::F64 && type.elementType().isFloat() && !std::isnan(value)) {
    const floats::FloatFormat& f = floats::floatFormat(kind);
    value = floats::decodeFloat(floats::encodeFloat(value, f), f);
  }
  AttrMap attrs;
  attrs.emplace("value", value);
  return create(OpCode::Constant, {type}, {}, std::move(attrs))->result();
}

}  // namespace tessera::ir
