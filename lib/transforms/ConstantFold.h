//===- ConstantFold.h - Evaluating ops on constant operands -----*- C++ -*-===//
//
// The folder behind "canonicalize": given an op whose operands are all
// arith.constant (scalars or splats), computes the payload of its result with
// the semantics written next to the op in Ops.def. One switch over OpCode;
// ops it does not know, and cases whose result is undefined or
// target-dependent (division by zero, signed INT_MIN / -1, out-of-range
// float -> int, fp8 overflow, NaN bit patterns), return nullopt and stay.
//
// Payloads follow the arith.constant convention: integers as int64 bits
// sign-extended from the type width (i1 as 0/1), floats as a double that is
// exactly representable in the float type.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <optional>
#include <vector>

#include "transforms/PassDetail.h"

namespace tessera::transforms {

/// Folds `op` given the payloads of its operands (one per operand).
std::optional<ir::ConstantValue> foldConstantOp(const ir::Operation* op,
                                                const std::vector<ir::ConstantValue>& operands);

/// Rounds `x` to the float type `type` (round to nearest even, or toward
/// zero). Returns nullopt when the format cannot hold the result (overflow of
/// an fp8 format without infinities). f64 returns x.
std::optional<double> roundToFloatType(double x, ir::Type type, bool towardZero = false);

/// Canonical integer payload of `value` for an integer type of `width` bits:
/// sign-extended from the width, i1 as 0/1.
int64_t normalizeInt(uint64_t value, unsigned width);

}  // namespace tessera::transforms
