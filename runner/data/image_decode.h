// Decoding one image file (PNG, JPEG, WebP or BMP, told apart by their first bytes) into planar
// 8-bit pixels with the channels Pillow's convert('RGB') or convert('L') would give.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "runner/data/dataset_spec.h"  // kDefaultMaxImageBytes
#include "runner/util/errors.h"

namespace runner {

// An image as the runner stores images: planar bytes.
struct Image {
  int channels = 0, height = 0, width = 0;
  std::vector<std::uint8_t> pixels;  // (C, H, W), row-major
};

enum class ImageFormat { png, jpeg, webp, bmp };

// A JPEG decoded at libjpeg's reduced scale, 1/2, 1/4 or 1/8 (the inverse DCT does the
// downscaling, at a fraction of the work), the smallest that still leaves it at least
// height x width: what Pillow's Image.draft('RGB', (width, height)) does before a resize
// (dataset.jpeg_draft). Zero: the full size; other formats always decode at it.
struct DraftSize {
  int height = 0, width = 0;
};

// Limits against absurd or hostile files (a "decompression bomb": a small file that claims a huge
// image). Pillow refuses images over 178,956,970 pixels; no side may exceed 16384 either.
inline constexpr int max_image_side = 16384;
inline constexpr std::int64_t max_image_pixels = 178'956'970;
// Larger files are refused before they are read.
inline constexpr std::uintmax_t max_image_file_bytes = 256u << 20;
// Under the pixel cap, an image's memory is bounded too (dataset.max_image_bytes): a small file
// may claim 16384x10922 16-bit RGBA pixels, 1.4 GB decoded. What decoding holds at once is
// counted from the header, before any pixel is allocated: the file, the decoder's samples (and
// its working buffers), their 8-bit gray or RGB and the planar copy of the channels asked for.

// Memory ran out while decoding a file (std::bad_alloc): a UserError naming the file, never a bad
// file to leave out (another run, or fewer workers, may have the memory).
class ImageOutOfMemory : public UserError {
 public:
  using UserError::UserError;
};

// The format the bytes start with, or nullopt.
std::optional<ImageFormat> sniff_image_format(std::span<const std::uint8_t> bytes);

std::string_view image_format_name(ImageFormat format);

// Decodes an image file's bytes to `channels` 1 or 3. Alpha is dropped (not composited), palette
// entries looked up, 16-bit samples reduced as Pillow reduces them (see image_decoders.h), and
// 3 channels become 1 as Pillow's convert('L') does. A file that is not a whole image of a
// known format, or whose decoding would hold more than `max_bytes`, is a UserError naming `file`
// and the reason; running out of memory is an ImageOutOfMemory naming it.
Image decode_image(std::span<const std::uint8_t> bytes, int channels,
                   const std::filesystem::path& file,
                   std::int64_t max_bytes = kDefaultMaxImageBytes, DraftSize draft = {});

// Reads `file` (a regular file of at most max_image_file_bytes) and decodes it; every failure,
// from a missing file to a truncated one, is a UserError naming the file.
Image read_image(const std::filesystem::path& file, int channels,
                 std::int64_t max_bytes = kDefaultMaxImageBytes, DraftSize draft = {});

// Reads a whole image file into `bytes` (reused between calls); the checks of read_image.
void read_image_file(const std::filesystem::path& file, std::vector<std::uint8_t>& bytes);

}  // namespace runner
