//===- tessera/runtime/Hash.h - SHA-256 for cache keys ----------*- C++ -*-===//
//
// Cache keys (DESIGN.md §8) must not collide across the inputs that change
// generated code: a cryptographic hash makes that a non-issue and costs
// ~microseconds for a kernel file. FIPS 180-4 SHA-256, incremental.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace tessera::runtime {

class Sha256 {
 public:
  Sha256();
  /// Feeds bytes. Use field() for key material, so that ("ab","c") and
  /// ("a","bc") hash differently.
  Sha256& update(std::string_view bytes);
  /// Feeds a length-prefixed field.
  Sha256& field(std::string_view bytes);
  /// The digest; the object must not be updated afterwards.
  std::array<uint8_t, 32> digest();
  /// The digest as 64 lower-case hex digits.
  std::string hexDigest();

 private:
  void compress(const uint8_t* block);
  std::array<uint32_t, 8> state_;
  uint8_t buffer_[64];
  size_t buffered_ = 0;
  uint64_t totalBytes_ = 0;
  bool finished_ = false;
};

/// SHA-256 of `bytes` as hex.
std::string sha256Hex(std::string_view bytes);

}  // namespace tessera::runtime
