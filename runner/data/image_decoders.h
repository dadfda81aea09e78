// The per-format decoders behind decode_image (image_png.cpp, image_jpeg.cpp, image_webp.cpp,
// image_bmp.cpp), what they hand back, and their shared checks. Internal to runner/data.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace runner::image_detail {

// Pixels as a decoder hands them back: interleaved 8-bit gray (1 band) or RGB (3 bands), already
// what Pillow's convert('RGB') starts from: alpha dropped, palette looked up, 16-bit samples
// reduced (as Pillow 9 opens them: the high byte, except 16-bit gray, which Pillow opens as mode
// "I" and then clips to 255: the peer sees that, so the runner does too).
struct DecodedPixels {
  int bands = 0, height = 0, width = 0;
  std::vector<std::uint8_t> data;  // (H, W, bands)
};

// What decoding one file may take: the channels the caller converts to, and the most bytes it may
// hold at once (dataset.max_image_bytes).
struct DecodeBudget {
  int channels = 3;
  std::int64_t max_bytes = 0;
  DraftSize draft;  // JPEG only: the least size it may be decoded down to (image_decode.h)
};

DecodedPixels decode_png(std::span<const std::uint8_t> bytes, const std::filesystem::path& file,
                         const DecodeBudget& budget);
DecodedPixels decode_jpeg(std::span<const std::uint8_t> bytes, const std::filesystem::path& file,
                          const DecodeBudget& budget);
DecodedPixels decode_webp(std::span<const std::uint8_t> bytes, const std::filesystem::path& file,
                          const DecodeBudget& budget);
DecodedPixels decode_bmp(std::span<const std::uint8_t> bytes, const std::filesystem::path& file,
                         const DecodeBudget& budget);

// "<file>: <why>" as a UserError.
[[noreturn]] void throw_bad_image(const std::filesystem::path& file, const std::string& why);

// A UserError past max_image_side or max_image_pixels (checked before any pixel is decoded).
void check_image_size(std::int64_t width, std::int64_t height, std::string_view format,
                      const std::filesystem::path& file);

// The image as a decoder's header read shows it, for the memory its decoding holds: the file's
// bytes, the decoder's own buffers (`decoder_bytes`: its samples as stored, and what else it
// allocates per pixel), `bands` (1 or 3) 8-bit samples per pixel, and the planar copy.
struct DecodeCost {
  std::string_view format;
  std::int64_t width = 0, height = 0;
  std::uint64_t file_bytes = 0, decoder_bytes = 0;
  int bands = 3;
};

// A UserError naming the file, its pixels, the bytes its decoding holds and the budget's limit
// (dataset.max_image_bytes, which raises it) when they exceed it. Called after check_image_size,
// before the decoder allocates its pixels.
void check_decoding_bytes(const DecodeCost& cost, const DecodeBudget& budget,
                          const std::filesystem::path& file);

}  // namespace runner::image_detail
