//===- BigInt.cpp - Exact Python integers for constexpr arithmetic --------===//
//
// Schoolbook algorithms on 32-bit limbs. Operands are capped at
// BigInt::kMaxBits, so quadratic multiplication and bitwise long division are
// fast enough and memory stays bounded.
//
//===----------------------------------------------------------------------===//

#include "frontend/python/BigInt.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace tessera::frontend {

void BigInt::trim(Mag& m) {
  while (!m.empty() && m.back() == 0) m.pop_back();
}

BigInt BigInt::make(Mag m, bool neg) {
  trim(m);
  if (m.size() * 32 > static_cast<size_t>(kMaxBits) + 64)
    throw BigIntError("integer too large (more than " + std::to_string(kMaxBits) + " bits)");
  BigInt r;
  r.mag_ = std::move(m);
  r.neg_ = neg && !r.mag_.empty();
  if (r.bitLength() > kMaxBits)
    throw BigIntError("integer too large (more than " + std::to_string(kMaxBits) + " bits)");
  return r;
}

BigInt::BigInt(int64_t v) {
  neg_ = v < 0;
  uint64_t u = neg_ ? (~static_cast<uint64_t>(v) + 1) : static_cast<uint64_t>(v);
  while (u) {
    mag_.push_back(static_cast<uint32_t>(u));
    u >>= 32;
  }
}

BigInt BigInt::fromUnsigned(uint64_t v) {
  BigInt r;
  while (v) {
    r.mag_.push_back(static_cast<uint32_t>(v));
    v >>= 32;
  }
  return r;
}

std::optional<BigInt> BigInt::fromDecimal(std::string_view text) {
  bool neg = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    neg = text[0] == '-';
    text.remove_prefix(1);
  }
  if (text.empty()) return std::nullopt;
  BigInt r;
  try {
    for (char c : text) {
      if (c == '_') continue;
      if (c < '0' || c > '9') return std::nullopt;
      r = r * BigInt(10) + BigInt(c - '0');
    }
  } catch (const BigIntError&) {
    return std::nullopt;  // more than kMaxBits: callers report "too large"
  }
  return neg ? -r : r;
}

std::optional<BigInt> BigInt::fromDouble(double d) {
  if (!std::isfinite(d)) return std::nullopt;
  d = std::trunc(d);
  bool neg = d < 0;
  d = std::fabs(d);
  if (d < 1) return BigInt();
  int exp = 0;
  double frac = std::frexp(d, &exp);  // d = frac * 2^exp, frac in [0.5, 1)
  uint64_t mant = static_cast<uint64_t>(std::ldexp(frac, 53));
  BigInt r = fromUnsigned(mant);
  r = exp >= 53 ? r.shl(exp - 53) : r.shr(53 - exp);
  return neg ? -r : r;
}

int BigInt::bitLength() const {
  if (mag_.empty()) return 0;
  uint32_t top = mag_.back();
  int bits = 0;
  while (top) {
    ++bits;
    top >>= 1;
  }
  return static_cast<int>((mag_.size() - 1) * 32) + bits;
}

bool BigInt::fitsInt64() const {
  int bits = bitLength();
  if (bits < 64) return true;
  // Only -2^63 has 64 bits and fits.
  return neg_ && bits == 64 && mag_[1] == 0x80000000u && mag_[0] == 0;
}

bool BigInt::fitsUInt64() const { return !neg_ && bitLength() <= 64; }

uint64_t BigInt::lowBits64() const {
  uint64_t u = 0;
  if (!mag_.empty()) u = mag_[0];
  if (mag_.size() > 1) u |= static_cast<uint64_t>(mag_[1]) << 32;
  return neg_ ? ~u + 1 : u;
}

int64_t BigInt::toInt64() const {
  assert(fitsInt64());
  return static_cast<int64_t>(lowBits64());
}

uint64_t BigInt::toUInt64() const {
  assert(fitsUInt64());
  return lowBits64();
}

double BigInt::toDouble() const {
  double r = 0;
  for (size_t i = mag_.size(); i-- > 0;) r = r * 4294967296.0 + mag_[i];
  return neg_ ? -r : r;
}

std::string BigInt::toString() const {
  if (mag_.empty()) return "0";
  std::string digits;
  Mag cur = mag_;
  while (!cur.empty()) {
    uint64_t rem = 0;
    for (size_t i = cur.size(); i-- > 0;) {
      uint64_t v = (rem << 32) | cur[i];
      cur[i] = static_cast<uint32_t>(v / 1000000000u);
      rem = v % 1000000000u;
    }
    trim(cur);
    for (int k = 0; k < 9; ++k) {
      digits.push_back(static_cast<char>('0' + rem % 10));
      rem /= 10;
      if (cur.empty() && rem == 0) break;
    }
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  if (neg_) digits.push_back('-');
  std::reverse(digits.begin(), digits.end());
  return digits;
}

int BigInt::cmpMag(const Mag& a, const Mag& b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  for (size_t i = a.size(); i-- > 0;)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

int BigInt::compare(const BigInt& o) const {
  if (neg_ != o.neg_) return neg_ ? -1 : 1;
  int c = cmpMag(mag_, o.mag_);
  return neg_ ? -c : c;
}

BigInt::Mag BigInt::addMag(const Mag& a, const Mag& b) {
  Mag r(std::max(a.size(), b.size()) + 1, 0);
  uint64_t carry = 0;
  for (size_t i = 0; i < r.size(); ++i) {
    uint64_t s = carry;
    if (i < a.size()) s += a[i];
    if (i < b.size()) s += b[i];
    r[i] = static_cast<uint32_t>(s);
    carry = s >> 32;
  }
  trim(r);
  return r;
}

BigInt::Mag BigInt::subMag(const Mag& a, const Mag& b) {
  Mag r(a.size(), 0);
  int64_t borrow = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    int64_t d = static_cast<int64_t>(a[i]) - borrow - (i < b.size() ? b[i] : 0);
    borrow = d < 0;
    r[i] = static_cast<uint32_t>(d + (borrow ? (int64_t{1} << 32) : 0));
  }
  trim(r);
  return r;
}

BigInt::Mag BigInt::mulMag(const Mag& a, const Mag& b) {
  if (a.empty() || b.empty()) return {};
  if ((a.size() + b.size()) * 32 > static_cast<size_t>(kMaxBits) + 64)
    throw BigIntError("integer too large (more than " + std::to_string(kMaxBits) + " bits)");
  Mag r(a.size() + b.size(), 0);
  for (size_t i = 0; i < a.size(); ++i) {
    uint64_t carry = 0;
    for (size_t j = 0; j < b.size(); ++j) {
      uint64_t cur = static_cast<uint64_t>(a[i]) * b[j] + r[i + j] + carry;
      r[i + j] = static_cast<uint32_t>(cur);
      carry = cur >> 32;
    }
    r[i + b.size()] += static_cast<uint32_t>(carry);
  }
  trim(r);
  return r;
}

void BigInt::divModMag(const Mag& a, const Mag& b, Mag& q, Mag& r) {
  q.assign(a.size(), 0);
  r.clear();
  for (size_t i = a.size() * 32; i-- > 0;) {
    // r = r * 2 + bit i of a
    uint32_t carry = (a[i / 32] >> (i % 32)) & 1u;
    for (auto& w : r) {
      uint32_t next = w >> 31;
      w = (w << 1) | carry;
      carry = next;
    }
    if (carry) r.push_back(carry);
    if (cmpMag(r, b) >= 0) {
      r = subMag(r, b);
      q[i / 32] |= 1u << (i % 32);
    }
  }
  trim(q);
  trim(r);
}

BigInt BigInt::operator-() const {
  BigInt r = *this;
  r.neg_ = !neg_ && !mag_.empty();
  return r;
}

BigInt operator+(const BigInt& a, const BigInt& b) {
  if (a.neg_ == b.neg_) return BigInt::make(BigInt::addMag(a.mag_, b.mag_), a.neg_);
  int c = BigInt::cmpMag(a.mag_, b.mag_);
  if (c == 0) return BigInt();
  if (c > 0) return BigInt::make(BigInt::subMag(a.mag_, b.mag_), a.neg_);
  return BigInt::make(BigInt::subMag(b.mag_, a.mag_), b.neg_);
}

BigInt operator-(const BigInt& a, const BigInt& b) { return a + (-b); }

BigInt operator*(const BigInt& a, const BigInt& b) {
  return BigInt::make(BigInt::mulMag(a.mag_, b.mag_), a.neg_ != b.neg_);
}

BigInt BigInt::floorDiv(const BigInt& a, const BigInt& b) {
  if (b.isZero()) throw BigIntError("integer division or modulo by zero");
  Mag q, r;
  divModMag(a.mag_, b.mag_, q, r);
  BigInt quot = make(q, a.neg_ != b.neg_);
  if (a.neg_ != b.neg_ && !r.empty()) quot = quot - BigInt(1);
  return quot;
}

BigInt BigInt::floorMod(const BigInt& a, const BigInt& b) {
  return a - floorDiv(a, b) * b;
}

BigInt BigInt::pow(const BigInt& base, const BigInt& exp) {
  assert(!exp.isNegative());
  if (base.isZero()) return exp.isZero() ? BigInt(1) : BigInt();
  if (base == BigInt(1)) return BigInt(1);
  if (base == BigInt(-1)) return exp.mag_.empty() || (exp.mag_[0] & 1) == 0 ? BigInt(1) : BigInt(-1);
  if (exp.bitLength() > 16) throw BigIntError("integer too large (more than " + std::to_string(kMaxBits) + " bits)");
  BigInt result(1), b = base;
  uint64_t e = exp.toUInt64();
  while (e) {
    if (e & 1) result = result * b;
    e >>= 1;
    if (e) b = b * b;
  }
  return result;
}

BigInt BigInt::shl(int64_t n) const {
  if (n < 0) return shr(-n);
  if (isZero()) return *this;
  if (n > kMaxBits) throw BigIntError("integer too large (more than " + std::to_string(kMaxBits) + " bits)");
  Mag r(mag_.size() + n / 32 + 1, 0);
  int s = static_cast<int>(n % 32);
  for (size_t i = 0; i < mag_.size(); ++i) {
    uint64_t v = static_cast<uint64_t>(mag_[i]) << s;
    r[i + n / 32] |= static_cast<uint32_t>(v);
    r[i + n / 32 + 1] |= static_cast<uint32_t>(v >> 32);
  }
  return make(std::move(r), neg_);
}

BigInt BigInt::shr(int64_t n) const {
  if (n < 0) return shl(-n);
  if (neg_) return ~((~*this).shr(n));  // floor semantics on the two's complement form
  if (n >= bitLength()) return BigInt();
  Mag r(mag_.size() - n / 32, 0);
  int s = static_cast<int>(n % 32);
  for (size_t i = 0; i < r.size(); ++i) {
    uint64_t lo = mag_[i + n / 32];
    uint64_t hi = i + n / 32 + 1 < mag_.size() ? mag_[i + n / 32 + 1] : 0;
    r[i] = static_cast<uint32_t>(((hi << 32) | lo) >> s);
  }
  return make(std::move(r), false);
}

std::vector<uint32_t> BigInt::twos(size_t words) const {
  std::vector<uint32_t> w(words, 0);
  for (size_t i = 0; i < mag_.size() && i < words; ++i) w[i] = mag_[i];
  if (neg_) {
    uint64_t carry = 1;
    for (auto& x : w) {
      uint64_t v = static_cast<uint64_t>(static_cast<uint32_t>(~x)) + carry;
      x = static_cast<uint32_t>(v);
      carry = v >> 32;
    }
  }
  return w;
}

BigInt BigInt::fromTwos(const std::vector<uint32_t>& w) {
  bool neg = !w.empty() && (w.back() >> 31);
  if (!neg) return make(Mag(w.begin(), w.end()), false);
  std::vector<uint32_t> m(w.size());
  uint64_t carry = 1;
  for (size_t i = 0; i < w.size(); ++i) {
    uint64_t v = static_cast<uint64_t>(static_cast<uint32_t>(~w[i])) + carry;
    m[i] = static_cast<uint32_t>(v);
    carry = v >> 32;
  }
  return make(std::move(m), true);
}

template <class F>
BigInt BigInt::bitwise(const BigInt& a, const BigInt& b, F f) {
  size_t words = std::max(a.mag_.size(), b.mag_.size()) + 1;
  auto x = a.twos(words), y = b.twos(words);
  for (size_t i = 0; i < words; ++i) x[i] = f(x[i], y[i]);
  return fromTwos(x);
}

BigInt BigInt::bitAnd(const BigInt& a, const BigInt& b) {
  return bitwise(a, b, [](uint32_t x, uint32_t y) { return x & y; });
}
BigInt BigInt::bitOr(const BigInt& a, const BigInt& b) {
  return bitwise(a, b, [](uint32_t x, uint32_t y) { return x | y; });
}
BigInt BigInt::bitXor(const BigInt& a, const BigInt& b) {
  return bitwise(a, b, [](uint32_t x, uint32_t y) { return x ^ y; });
}

}  // namespace tessera::frontend
