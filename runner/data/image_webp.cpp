// WebP through libwebp (lossy and lossless, still images): RGB with its default decoding, which
// is what Pillow's WebP plugin gets from the same library (alpha dropped).
#include <fmt/format.h>
#include <webp/decode.h>

#include "runner/data/image_decode.h"
#include "runner/data/image_decoders.h"

namespace runner::image_detail {

DecodedPixels decode_webp(std::span<const std::uint8_t> bytes, const std::filesystem::path& file,
                          const DecodeBudget& budget) {
  // The RIFF header (sniffed: 12 bytes at least) gives the length: a shorter file is truncated.
  const std::uint64_t riff_end =
      8 + (std::uint64_t{bytes[4]} | std::uint64_t{bytes[5]} << 8 | std::uint64_t{bytes[6]} << 16 |
           std::uint64_t{bytes[7]} << 24);
  if (bytes.size() < riff_end) {
    throw_bad_image(
        file, fmt::format("truncated WebP: {} bytes, its header says {}", bytes.size(), riff_end));
  }
  WebPBitstreamFeatures features;
  const VP8StatusCode status = WebPGetFeatures(bytes.data(), bytes.size(), &features);
  if (status == VP8_STATUS_NOT_ENOUGH_DATA) throw_bad_image(file, "truncated WebP");
  if (status != VP8_STATUS_OK) throw_bad_image(file, "not a valid WebP");
  if (features.has_animation) throw_bad_image(file, "an animated WebP: expected a still image");
  check_image_size(features.width, features.height, "WebP", file);
  // The RGB is decoded in place; a lossless image is first decoded as 4-byte ARGB.
  const std::uint64_t argb = std::uint64_t{4} * static_cast<unsigned>(features.width) *
                             static_cast<unsigned>(features.height);
  check_decoding_bytes({"WebP", features.width, features.height, bytes.size(), argb, 3}, budget,
                       file);
  DecodedPixels out{3, features.height, features.width, {}};
  out.data.resize(std::size_t{3} * static_cast<unsigned>(features.width) * features.height);
  const int stride = 3 * features.width;
  if (!WebPDecodeRGBInto(bytes.data(), bytes.size(), out.data.data(), out.data.size(), stride)) {
    throw_bad_image(file, "not a valid WebP (truncated or corrupt image data)");
  }
  return out;
}

}  // namespace runner::image_detail
