// BMP through Debian's stb_image (the implementation compiled here, BMP only): always asked for
// RGB, so palettes are looked up and alpha dropped; gray is computed by the caller as Pillow does.
// Rows are bottom-up, or top-down where the header's height is negative (Pillow reads both).
#include <fmt/format.h>

#include <cstdint>
#include <cstdlib>
#include <memory>

#include "runner/data/image_decode.h"
#include "runner/data/image_decoders.h"

#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_BMP
#define STBI_NO_STDIO
#define STBI_NO_LINEAR
#define STBI_NO_HDR
#define STBI_MAX_DIMENSIONS 16384
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <stb_image.h>
#pragma GCC diagnostic pop

namespace runner::image_detail {
namespace {

std::uint32_t little_endian(std::span<const std::uint8_t> bytes, std::size_t at, int size) {
  std::uint32_t value = 0;
  for (int i = size - 1; i >= 0; --i) value = value << 8 | bytes[at + i];
  return value;
}

// stb reads zeros past the end of a buffer; Pillow calls a BMP shorter than its pixel rows
// truncated, so the file's size is checked against its header first (stb reads no RLE BMPs, so
// the rows of an uncompressed one are the whole story).
void check_complete(std::span<const std::uint8_t> bytes, int width, int height,
                    const std::filesystem::path& file) {
  if (bytes.size() < 30) throw_bad_image(file, "truncated BMP: no complete header");
  const bool core = little_endian(bytes, 14, 4) == 12;  // OS/2's BITMAPCOREHEADER
  const std::uint32_t bits = little_endian(bytes, core ? 24 : 28, 2);
  const std::uint64_t stride = (std::uint64_t{static_cast<unsigned>(width)} * bits + 31) / 32 * 4;
  const std::uint64_t end = little_endian(bytes, 10, 4) + stride * static_cast<unsigned>(height);
  if (bytes.size() < end) {
    throw_bad_image(file,
                    fmt::format("truncated BMP: {} bytes, its header needs {}", bytes.size(), end));
  }
}

}  // namespace

DecodedPixels decode_bmp(std::span<const std::uint8_t> bytes, const std::filesystem::path& file,
                         const DecodeBudget& budget) {
  const int size = static_cast<int>(bytes.size());  // bytes.size() <= max_image_file_bytes
  int width = 0, header_height = 0, components = 0;
  if (!stbi_info_from_memory(bytes.data(), size, &width, &header_height, &components)) {
    throw_bad_image(file, fmt::format("not a valid BMP: {}", stbi_failure_reason()));
  }
  // stb's info gives the header's height as it is; a negative one means top-down rows, which its
  // loader reads (as Pillow does). 64 bits: -2^31 has no int magnitude.
  const std::int64_t height = std::abs(std::int64_t{header_height});
  check_image_size(width, height, "BMP", file);
  check_complete(bytes, width, static_cast<int>(height), file);
  // stb's RGB, then copied into the decoder's own.
  check_decoding_bytes(
      {"BMP", width, height, bytes.size(),
       std::uint64_t{3} * static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(height),
       3},
      budget, file);
  int loaded_height = 0;
  std::unique_ptr<stbi_uc, decltype(&stbi_image_free)> pixels(
      stbi_load_from_memory(bytes.data(), size, &width, &loaded_height, &components, 3),
      stbi_image_free);
  if (!pixels) throw_bad_image(file, fmt::format("not a valid BMP: {}", stbi_failure_reason()));
  DecodedPixels out{3, loaded_height, width, {}};
  out.data.assign(pixels.get(), pixels.get() + std::size_t{3} * width * loaded_height);
  return out;
}

}  // namespace runner::image_detail
