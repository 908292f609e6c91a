//===- Matchers.cpp - Constant and side-effect queries ---------------------===//
//
// See tessera/ir/Matchers.h.
//
//===----------------------------------------------------------------------===//

#include "tessera/ir/Matchers.h"

namespace tessera::ir {

bool isSideEffectFree(const Operation* op) {
  if (op->hasTrait(Terminator)) return false;
  if (op->hasTrait(Pure)) return true;
  if (op->is(OpCode::ExternElementwise) || op->is(OpCode::InlineAsm)) return op->boolAttr("pure");
  return false;
}

std::optional<ConstantValue> constantOf(Value v) {
  Operation* def = v ? v.definingOp() : nullptr;
  if (!def || !def->is(OpCode::Constant)) return std::nullopt;
  const Attribute* attr = def->attr("value");
  if (!attr) return std::nullopt;
  if (auto* i = std::get_if<int64_t>(attr)) return ConstantValue(*i);
  if (auto* b = std::get_if<bool>(attr)) return ConstantValue(int64_t(*b));
  if (auto* d = std::get_if<double>(attr)) return ConstantValue(*d);
  return std::nullopt;
}

std::optional<int64_t> intConstantOf(Value v) {
  auto c = constantOf(v);
  if (!c || !v.type().elementType().isInteger()) return std::nullopt;
  if (auto* i = std::get_if<int64_t>(&*c)) return *i;
  return std::nullopt;
}

std::optional<double> floatConstantOf(Value v) {
  auto c = constantOf(v);
  if (!c || !v.type().elementType().isFloat()) return std::nullopt;
  if (auto* d = std::get_if<double>(&*c)) return *d;
  if (auto* i = std::get_if<int64_t>(&*c)) return static_cast<double>(*i);
  return std::nullopt;
}

bool isZeroConstant(Value v) {
  if (auto i = intConstantOf(v)) return *i == 0;
  if (auto f = floatConstantOf(v)) return *f == 0.0;
  return false;
}

}  // namespace tessera::ir
