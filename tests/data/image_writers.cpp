// Encoders for test images: libspng, libjpeg (to memory), libwebp's simple API, BMP by hand.
#include "image_writers.h"

#include <spng.h>
#include <webp/encode.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <stdexcept>

extern "C" {
#include <jpeglib.h>
}

namespace runner::testing {
namespace {

// The samples packed into PNG rows: sub-byte samples MSB first, 16-bit ones in host order
// (libspng's SPNG_FMT_PNG swaps them).
std::vector<std::uint8_t> pack_rows(int width, int height, int per_pixel, int depth,
                                    const std::vector<std::uint16_t>& samples) {
  const std::size_t row_samples = static_cast<std::size_t>(width) * per_pixel;
  const std::size_t stride = (row_samples * depth + 7) / 8;
  std::vector<std::uint8_t> out(stride * height, 0);
  for (int y = 0; y < height; ++y) {
    std::uint8_t* row = out.data() + y * stride;
    for (std::size_t i = 0; i < row_samples; ++i) {
      const std::uint16_t v = samples.at(y * row_samples + i);
      if (depth == 16) {
        reinterpret_cast<std::uint16_t*>(row)[i] = v;
      } else if (depth == 8) {
        row[i] = static_cast<std::uint8_t>(v);
      } else {
        const std::size_t bit = i * depth;
        row[bit / 8] |= static_cast<std::uint8_t>(v << (8 - depth - bit % 8));
      }
    }
  }
  return out;
}

void check(int status, const char* what) {
  if (status != 0) throw std::runtime_error(std::string(what) + ": " + spng_strerror(status));
}

}  // namespace

std::string png_file(int width, int height, int color_type, int depth,
                     const std::vector<std::uint16_t>& samples,
                     const std::vector<std::array<std::uint8_t, 3>>& palette, bool interlaced) {
  static const int per_pixel[] = {1, 0, 3, 1, 2, 0, 4};
  std::unique_ptr<spng_ctx, decltype(&spng_ctx_free)> ctx(spng_ctx_new(SPNG_CTX_ENCODER),
                                                          spng_ctx_free);
  check(spng_set_option(ctx.get(), SPNG_ENCODE_TO_BUFFER, 1), "spng_set_option");
  spng_ihdr ihdr{};
  ihdr.width = static_cast<std::uint32_t>(width);
  ihdr.height = static_cast<std::uint32_t>(height);
  ihdr.bit_depth = static_cast<std::uint8_t>(depth);
  ihdr.color_type = static_cast<std::uint8_t>(color_type);
  ihdr.interlace_method = interlaced ? SPNG_INTERLACE_ADAM7 : SPNG_INTERLACE_NONE;
  check(spng_set_ihdr(ctx.get(), &ihdr), "spng_set_ihdr");
  if (!palette.empty()) {
    spng_plte plte{};
    plte.n_entries = static_cast<std::uint32_t>(palette.size());
    for (std::size_t i = 0; i < palette.size(); ++i) {
      plte.entries[i] = {palette[i][0], palette[i][1], palette[i][2], 255};
    }
    check(spng_set_plte(ctx.get(), &plte), "spng_set_plte");
  }
  std::vector<std::uint8_t> rows = pack_rows(width, height, per_pixel[color_type], depth, samples);
  check(spng_encode_image(ctx.get(), rows.data(), rows.size(), SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE),
        "spng_encode_image");
  std::size_t size = 0;
  int error = 0;
  std::unique_ptr<char, decltype(&std::free)> png(
      static_cast<char*>(spng_get_png_buffer(ctx.get(), &size, &error)), std::free);
  check(error, "spng_get_png_buffer");
  return std::string(png.get(), size);
}

std::string png_claiming(std::uint32_t width, std::uint32_t height, int color_type, int depth) {
  static const int per_pixel[] = {1, 0, 3, 1, 2, 0, 4};
  std::string png =
      png_file(1, 1, color_type, depth,
               std::vector<std::uint16_t>(static_cast<std::size_t>(per_pixel[color_type])));
  for (int i = 0; i < 4; ++i) {
    png[16 + i] = static_cast<char>(width >> (24 - 8 * i));
    png[20 + i] = static_cast<char>(height >> (24 - 8 * i));
  }
  const auto crc =
      static_cast<std::uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(png.data() + 12), 17));
  for (int i = 0; i < 4; ++i) png[29 + i] = static_cast<char>(crc >> (24 - 8 * i));
  return png;
}

std::string jpeg_file(int width, int height, int components,
                      const std::vector<std::uint8_t>& pixels, int quality) {
  jpeg_compress_struct cinfo{};
  jpeg_error_mgr errors{};
  cinfo.err = jpeg_std_error(&errors);
  jpeg_create_compress(&cinfo);
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  jpeg_mem_dest(&cinfo, &buffer, &size);
  cinfo.image_width = static_cast<JDIMENSION>(width);
  cinfo.image_height = static_cast<JDIMENSION>(height);
  cinfo.input_components = components;
  cinfo.in_color_space = components == 1 ? JCS_GRAYSCALE : components == 3 ? JCS_RGB : JCS_CMYK;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, quality, TRUE);
  jpeg_start_compress(&cinfo, TRUE);
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row = const_cast<std::uint8_t*>(pixels.data()) +
                   static_cast<std::size_t>(cinfo.next_scanline) * width * components;
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  std::string out(reinterpret_cast<char*>(buffer), size);
  std::free(buffer);
  return out;
}

std::string webp_file(int width, int height, int components,
                      const std::vector<std::uint8_t>& pixels, bool lossless, float quality) {
  std::uint8_t* output = nullptr;
  const int stride = width * components;
  std::size_t size = 0;
  if (components == 3) {
    size = lossless ? WebPEncodeLosslessRGB(pixels.data(), width, height, stride, &output)
                    : WebPEncodeRGB(pixels.data(), width, height, stride, quality, &output);
  } else {
    size = lossless ? WebPEncodeLosslessRGBA(pixels.data(), width, height, stride, &output)
                    : WebPEncodeRGBA(pixels.data(), width, height, stride, quality, &output);
  }
  if (size == 0) throw std::runtime_error("WebP encoding failed");
  std::string out(reinterpret_cast<char*>(output), size);
  WebPFree(output);
  return out;
}

std::string bmp_file(int width, int height, const std::vector<std::uint8_t>& rgb, bool top_down) {
  const int stride = (width * 3 + 3) / 4 * 4;
  const std::uint32_t pixel_bytes = static_cast<std::uint32_t>(stride) * height;
  std::string out;
  auto put = [&](std::uint32_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) out += static_cast<char>(value >> (8 * i) & 0xff);
  };
  out += "BM";
  put(14 + 40 + pixel_bytes, 4);  // file size
  put(0, 4);                      // reserved
  put(14 + 40, 4);                // offset of the pixels
  put(40, 4);                     // BITMAPINFOHEADER
  put(static_cast<std::uint32_t>(width), 4);
  put(static_cast<std::uint32_t>(top_down ? -height : height), 4);  // negative: top-down rows
  put(1, 2);                                                        // planes
  put(24, 2);                                                       // bits per pixel
  put(0, 4);                                                        // BI_RGB
  put(pixel_bytes, 4);
  put(2835, 4), put(2835, 4), put(0, 4), put(0, 4);  // 72 dpi, no palette
  for (int row = 0; row < height; ++row) {
    const int y = top_down ? row : height - 1 - row;
    for (int x = 0; x < width; ++x) {
      const std::uint8_t* p = &rgb[(static_cast<std::size_t>(y) * width + x) * 3];
      out += static_cast<char>(p[2]), out += static_cast<char>(p[1]),
          out += static_cast<char>(p[0]);
    }
    out.append(static_cast<std::size_t>(stride - width * 3), '\0');
  }
  return out;
}

void write_bytes(const std::filesystem::path& file, const std::string& bytes) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << bytes;
}

std::vector<std::uint8_t> from_hex(const std::string& hex) {
  std::vector<std::uint8_t> out(hex.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = static_cast<std::uint8_t>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  }
  return out;
}

std::vector<std::uint8_t> test_pixels(std::size_t count, std::uint32_t seed) {
  std::vector<std::uint8_t> out(count);
  std::uint32_t state = seed * 2654435761u + 1;
  for (auto& v : out) {
    state = state * 1664525u + 1013904223u;  // Numerical Recipes' LCG: plenty for test pixels
    v = static_cast<std::uint8_t>(state >> 24);
  }
  return out;
}

std::string rgb_png(int width, int height, const std::vector<std::uint8_t>& rgb) {
  return png_file(width, height, 2, 8, std::vector<std::uint16_t>(rgb.begin(), rgb.end()));
}

}  // namespace runner::testing
