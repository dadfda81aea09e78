// Text that ends up in JSON: stray bytes of a name that is not UTF-8 are written as \xNN, and
// well-formed UTF-8 is kept as it is.
#include "runner/util/utf8.h"

#include <gtest/gtest.h>

namespace runner {
namespace {

TEST(Utf8, StrayBytesAreEscapedAndCharactersKept) {
  EXPECT_EQ(escaped_invalid_utf8("plain.png"), "plain.png");
  EXPECT_EQ(escaped_invalid_utf8("caf\xc3\xa9 \xe2\x80\xa6.png"), "caf\xc3\xa9 \xe2\x80\xa6.png");
  EXPECT_EQ(escaped_invalid_utf8("bad\xff.png"), "bad\\xff.png");
  EXPECT_EQ(escaped_invalid_utf8("cut\xc3"), "cut\\xc3");              // a cut sequence
  EXPECT_EQ(escaped_invalid_utf8("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(escaped_invalid_utf8(std::string("a\0b", 3)), std::string("a\0b", 3));  // JSON's job
  EXPECT_FALSE(first_invalid_utf8(escaped_invalid_utf8("x\x80\xfe\xff")));
}

}  // namespace
}  // namespace runner
