//===- tessera/ir/Matchers.h - Small queries on values and ops --*- C++ -*-===//
//
// The questions every layer above the IR asks of a value or an op: is it a
// constant, which one, is it zero, may it be moved or dropped. Shared by the
// Tile IR passes (lib/transforms), the GPU passes (lib/gpu) and the PTX
// emitter (lib/ptx), which would otherwise each grow their own.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <optional>
#include <variant>

#include "tessera/ir/IR.h"

namespace tessera::ir {

/// True if the op may be moved, merged or dropped: the Pure trait, or an
/// extern_elementwise / elementwise_inline_asm marked `pure = true`.
/// Terminators are never "removable" even when Pure.
bool isSideEffectFree(const Operation* op);

/// The scalar payload of an arith.constant (int64 bits or double), or
/// nullopt when `v` is not defined by one.
using ConstantValue = std::variant<int64_t, double>;
std::optional<ConstantValue> constantOf(Value v);
/// The integer payload of an integer arith.constant (sign-extended bits).
std::optional<int64_t> intConstantOf(Value v);
/// The payload of a float arith.constant.
std::optional<double> floatConstantOf(Value v);
/// True for an integer or float arith.constant (scalar or splat) equal to 0.
bool isZeroConstant(Value v);

}  // namespace tessera::ir
