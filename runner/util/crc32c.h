// CRC-32C (Castagnoli), as TFRecord and TensorBoard event files frame their records. Debian 12
// has no C/C++ library for it (Abseil's crc32c came after its 20220623; protobuf keeps its own
// private), and it is a table and a loop.
#pragma once

#include <cstdint>
#include <string_view>

namespace runner {

std::uint32_t crc32c(std::string_view bytes);

// TFRecord's masked form: ((crc >> 15) | (crc << 17)) + 0xa282ead8, so that a CRC of data holding
// CRCs does not degenerate.
std::uint32_t masked_crc32c(std::string_view bytes);

}  // namespace runner
