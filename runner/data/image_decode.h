// Decoding one image file (PNG, JPEG, WebP or BMP, told apart by their first bytes) into planar
// 8-bit pixels with the channels Pillow's convert('RGB') or convert('L') would give.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace runner {

// An image as the runner stores images: planar bytes.
struct Image {
  int channels = 0, height = 0, width = 0;
  std::vector<std::uint8_t> pixels;  // (C, H, W), row-major
};

enum class ImageFormat { png, jpeg, webp, bmp };

// Limits against absurd or hostile files (a "decompression bomb": a small file that claims a huge
// image). Pillow refuses images over 178,956,970 pixels; no side may exceed 16384 either.
inline constexpr int max_image_side = 16384;
inline constexpr std::int64_t max_image_pixels = 178'956'970;
// Larger files are refused before they are read.
inline constexpr std::uintmax_t max_image_file_bytes = 256u << 20;

// The format the bytes start with, or nullopt.
std::optional<ImageFormat> sniff_image_format(std::span<const std::uint8_t> bytes);

std::string_view image_format_name(ImageFormat format);

// Decodes an image file's bytes to `channels` 1 or 3. Alpha is dropped (not composited), palette
// entries looked up, 16-bit samples reduced as Pillow reduces them (see image_decoders.h), and
// 3 channels become 1 as Pillow's convert('L') does. A file that is not a whole image of a
// known format is a UserError naming `file` and the reason.
Image decode_image(std::span<const std::uint8_t> bytes, int channels,
                   const std::filesystem::path& file);

// Reads `file` (a regular file of at most max_image_file_bytes) and decodes it; every failure,
// from a missing file to a truncated one, is a UserError naming the file.
Image read_image(const std::filesystem::path& file, int channels);

// Reads a whole image file into `bytes` (reused between calls); the checks of read_image.
void read_image_file(const std::filesystem::path& file, std::vector<std::uint8_t>& bytes);

}  // namespace runner
