// CRC-32C against its published check value and TFRecord's masking.
#include "runner/util/crc32c.h"

#include <gtest/gtest.h>

namespace runner::testing {
namespace {

TEST(Crc32c, MatchesTheCheckValueOfTheCastagnoliPolynomial) {
  EXPECT_EQ(crc32c("123456789"), 0xe3069283u);  // the CRC catalogue's check value for CRC-32C
  EXPECT_EQ(crc32c(""), 0u);
  EXPECT_EQ(crc32c(std::string(32, '\0')), 0x8a9136aau);    // RFC 3720 B.4: 32 bytes of zeros
  EXPECT_EQ(crc32c(std::string(32, '\xff')), 0x62a8ab43u);  // and of ones
}

TEST(Crc32c, TheMaskRotatesAndAddsTheTfRecordConstant) {
  const std::uint32_t crc = crc32c("123456789");
  EXPECT_EQ(masked_crc32c("123456789"), ((crc >> 15) | (crc << 17)) + 0xa282ead8u);
  EXPECT_EQ(masked_crc32c(""), 0xa282ead8u);
}

}  // namespace
}  // namespace runner::testing
