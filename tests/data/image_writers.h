// Test helpers that encode small images with the same libraries the runner decodes with
// (libspng, libjpeg-turbo, libwebp) and BMP bytes written by hand, plus hex for golden files.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace runner::testing {

// A PNG of `samples` (interleaved, row-major, each < 2^depth) through libspng's encoder;
// color_type as PNG numbers it (0 gray, 2 RGB, 3 palette, 4 gray+alpha, 6 RGBA); Adam7
// interlaced when asked.
std::string png_file(int width, int height, int color_type, int depth,
                     const std::vector<std::uint16_t>& samples,
                     const std::vector<std::array<std::uint8_t, 3>>& palette = {},
                     bool interlaced = false);

// A 1x1 PNG of `color_type` and `depth` (as png_file) whose header claims width x height (its
// CRC made right): the header of a decompression bomb, its pixel data far too short.
std::string png_claiming(std::uint32_t width, std::uint32_t height, int color_type = 0,
                         int depth = 8);

// A baseline JPEG through libjpeg: `components` 1 (gray), 3 (RGB) or 4 (CMYK), interleaved.
std::string jpeg_file(int width, int height, int components,
                      const std::vector<std::uint8_t>& pixels, int quality);

// A WebP through libwebp: interleaved RGB (3) or RGBA (4); lossless, or lossy at `quality`.
std::string webp_file(int width, int height, int components,
                      const std::vector<std::uint8_t>& pixels, bool lossless, float quality = 90);

// An uncompressed 24-bit BMP (rows padded to 4 bytes, BGR) of interleaved RGB: bottom-up rows,
// or top-down ones under a negative height in the header.
std::string bmp_file(int width, int height, const std::vector<std::uint8_t>& rgb,
                     bool top_down = false);

// An 8-bit RGB PNG of interleaved bytes (png_file of color type 2).
std::string rgb_png(int width, int height, const std::vector<std::uint8_t>& rgb);

// Writes bytes to a file, creating its folder.
void write_bytes(const std::filesystem::path& file, const std::string& bytes);

// "0aff" -> {0x0a, 0xff}.
std::vector<std::uint8_t> from_hex(const std::string& hex);

// Deterministic test pixels: `count` bytes from `seed`.
std::vector<std::uint8_t> test_pixels(std::size_t count, std::uint32_t seed);

}  // namespace runner::testing
