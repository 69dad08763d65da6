#include "tessel/runtime/sha256.hpp"

#include <string>

#include <gtest/gtest.h>

namespace tessel::runtime {
namespace {

// The FIPS 180-2 / NIST CSRC example vectors.
TEST(Sha256, EmptyMessage) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Sha256, Abc) { EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"); }

// 448 bits: the padding does not fit after the message and needs a second block.
TEST(Sha256, TwoBlockMessage) {
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

// 896 bits: one whole block, then a tail that takes the padding in the same block.
TEST(Sha256, FullBlockThenTail) {
  EXPECT_EQ(sha256_hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
                       "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

TEST(Sha256, OneMillionA) {
  EXPECT_EQ(sha256_hex(std::string(1'000'000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, EmptyViewWithoutStorage) { EXPECT_EQ(sha256_hex(std::string_view()), sha256_hex("")); }

TEST(Sha256, BytesAreHashedNotCharacters) {
  using namespace std::string_literals;
  EXPECT_NE(sha256_hex("a\0b"s), sha256_hex("a"));
  EXPECT_EQ(sha256_hex("\xff\x00"s).size(), 64u);
}

}  // namespace
}  // namespace tessel::runtime
