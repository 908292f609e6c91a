//===- BigInt.h - Exact Python integers for constexpr arithmetic -*- C++ -*-===//
//
// constexpr values in Triton are Python objects, so `2**100 // 2**98` is
// exactly 4. BigInt is a small sign-magnitude arbitrary-precision integer with
// Python semantics for the operators the code generator folds: floor division
// and modulo round toward negative infinity, `>>` floors, bitwise operators
// act on the infinite two's complement form.
//
// Memory stays bounded: any result wider than kMaxBits throws BigIntOverflow,
// which the code generator turns into a diagnostic.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::frontend {

/// Thrown when a result would exceed BigInt::kMaxBits or on division by zero.
struct BigIntError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class BigInt {
 public:
  static constexpr int kMaxBits = 4096;

  BigInt() = default;
  BigInt(int64_t v);  // NOLINT: implicit on purpose, ints are everywhere
  static BigInt fromUnsigned(uint64_t v);
  /// Decimal digits with an optional leading '-'; nullopt if malformed or wider
  /// than kMaxBits.
  static std::optional<BigInt> fromDecimal(std::string_view text);
  /// Truncates toward zero like Python's int(float); nullopt for nan/inf.
  static std::optional<BigInt> fromDouble(double d);

  bool isNegative() const { return neg_; }
  bool isZero() const { return mag_.empty(); }
  bool fitsInt64() const;
  bool fitsUInt64() const;
  int64_t toInt64() const;    ///< asserts fitsInt64()
  uint64_t toUInt64() const;  ///< asserts fitsUInt64()
  /// The low 64 bits in two's complement (wraps like a C cast).
  uint64_t lowBits64() const;
  double toDouble() const;
  std::string toString() const;
  /// Number of bits of |x| (0 for 0).
  int bitLength() const;

  int compare(const BigInt& o) const;
  bool operator==(const BigInt& o) const { return compare(o) == 0; }
  bool operator!=(const BigInt& o) const { return compare(o) != 0; }
  bool operator<(const BigInt& o) const { return compare(o) < 0; }
  bool operator<=(const BigInt& o) const { return compare(o) <= 0; }
  bool operator>(const BigInt& o) const { return compare(o) > 0; }
  bool operator>=(const BigInt& o) const { return compare(o) >= 0; }

  BigInt operator-() const;
  BigInt operator~() const { return -*this - BigInt(1); }
  friend BigInt operator+(const BigInt& a, const BigInt& b);
  friend BigInt operator-(const BigInt& a, const BigInt& b);
  friend BigInt operator*(const BigInt& a, const BigInt& b);
  /// Python `//` (floor) and `%` (sign of the divisor). Throw on zero.
  static BigInt floorDiv(const BigInt& a, const BigInt& b);
  static BigInt floorMod(const BigInt& a, const BigInt& b);
  /// Python `**` for a non-negative exponent.
  static BigInt pow(const BigInt& base, const BigInt& exp);
  BigInt shl(int64_t n) const;
  BigInt shr(int64_t n) const;  ///< floor shift
  static BigInt bitAnd(const BigInt& a, const BigInt& b);
  static BigInt bitOr(const BigInt& a, const BigInt& b);
  static BigInt bitXor(const BigInt& a, const BigInt& b);

 private:
  using Mag = std::vector<uint32_t>;  // little-endian limbs, no leading zeros
  static int cmpMag(const Mag& a, const Mag& b);
  static Mag addMag(const Mag& a, const Mag& b);
  static Mag subMag(const Mag& a, const Mag& b);  // requires a >= b
  static Mag mulMag(const Mag& a, const Mag& b);
  static void divModMag(const Mag& a, const Mag& b, Mag& q, Mag& r);
  static void trim(Mag& m);
  static BigInt make(Mag m, bool neg);
  std::vector<uint32_t> twos(size_t words) const;
  static BigInt fromTwos(const std::vector<uint32_t>& w);
  template <class F> static BigInt bitwise(const BigInt& a, const BigInt& b, F f);

  Mag mag_;
  bool neg_ = false;
};

}  // namespace tessera::frontend
