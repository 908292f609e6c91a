//===- HashTest.cpp - SHA-256 against FIPS 180-4 test vectors -------------===//

#include <gtest/gtest.h>

#include "tessera/runtime/Hash.h"

namespace {

using tessera::runtime::Sha256;
using tessera::runtime::sha256Hex;

TEST(Sha256, StandardVectors) {
  EXPECT_EQ(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // 448 bits: the padding spills into a second block.
  EXPECT_EQ(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, IncrementalEqualsOneShot) {
  std::string text;
  for (int i = 0; i < 1000; ++i) text += static_cast<char>(i * 7 + 3);
  // Chunk sizes that straddle block boundaries in every way.
  for (size_t chunk : {1u, 3u, 63u, 64u, 65u, 127u, 999u}) {
    Sha256 h;
    for (size_t i = 0; i < text.size(); i += chunk) h.update(std::string_view(text).substr(i, chunk));
    EXPECT_EQ(h.hexDigest(), sha256Hex(text)) << chunk;
  }
}

TEST(Sha256, FieldsAreLengthPrefixed) {
  EXPECT_NE(Sha256().field("ab").field("c").hexDigest(), Sha256().field("a").field("bc").hexDigest());
  EXPECT_EQ(Sha256().field("ab").field("c").hexDigest(), Sha256().field("ab").field("c").hexDigest());
}

}  // namespace
