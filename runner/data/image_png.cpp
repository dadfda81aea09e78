// PNG through libspng: the samples as stored (SPNG_FMT_PNG), reduced to 8-bit gray or RGB the
// way Pillow 9 opens each PNG mode (checked against Pillow by tests/data/image_decode_test.cpp).
#include <fmt/format.h>
#include <spng.h>

#include <cstring>
#include <memory>

#include "runner/data/image_decode.h"
#include "runner/data/image_decoders.h"

namespace runner::image_detail {
namespace {

namespace fs = std::filesystem;

using Context = std::unique_ptr<spng_ctx, decltype(&spng_ctx_free)>;

void check(int status, const fs::path& file) {
  if (status == 0) return;
  if (status == SPNG_EOF || status == SPNG_IO_EOF) {
    throw_bad_image(file, fmt::format("truncated PNG: {}", spng_strerror(status)));
  }
  throw_bad_image(file, fmt::format("not a valid PNG: {}", spng_strerror(status)));
}

// Sample `i` of a row of `depth`-bit samples: 1, 2 and 4 bits packed MSB first as PNG packs
// them, 16 bits in host order (SPNG_FMT_PNG swaps them).
unsigned sample(const std::uint8_t* row, std::size_t i, int depth) {
  if (depth == 8) return row[i];
  if (depth == 16) {
    std::uint16_t value;
    std::memcpy(&value, row + 2 * i, 2);
    return value;
  }
  const std::size_t bit = i * static_cast<std::size_t>(depth);
  return (row[bit / 8] >> (8 - depth - bit % 8)) & ((1u << depth) - 1);
}

// A sample as Pillow's PNG modes give it: low depths scaled to 0..255 ("1", "L;2", "L;4"),
// 16-bit gray+alpha and colour the high byte ("LA;16B", "RGB;16B"), 16-bit gray clipped (mode
// "I", which convert() clips).
std::uint8_t to_8_bits(unsigned value, int depth, bool gray) {
  if (depth == 16) return gray ? static_cast<std::uint8_t>(value > 255 ? 255 : value) : value >> 8;
  if (depth < 8) return static_cast<std::uint8_t>(value * 255 / ((1u << depth) - 1));
  return static_cast<std::uint8_t>(value);
}

// Palette colours; indices past the PLTE's entries get Pillow's initial palette, a gray ramp.
void look_up(const std::vector<std::uint8_t>& png, const spng_ihdr& ihdr, const spng_plte& plte,
             std::size_t stride, DecodedPixels& out) {
  for (std::uint32_t y = 0; y < ihdr.height; ++y) {
    const std::uint8_t* row = png.data() + y * stride;
    std::uint8_t* dst = out.data.data() + std::size_t{y} * ihdr.width * 3;
    for (std::uint32_t x = 0; x < ihdr.width; ++x, dst += 3) {
      const unsigned index = sample(row, x, ihdr.bit_depth);
      if (index < plte.n_entries) {
        const spng_plte_entry& entry = plte.entries[index];
        dst[0] = entry.red, dst[1] = entry.green, dst[2] = entry.blue;
      } else {
        dst[0] = dst[1] = dst[2] = static_cast<std::uint8_t>(index);
      }
    }
  }
}

// Gray (1 sample per pixel, 1 band), gray+alpha (2, 1), RGB (3, 3) or RGBA (4, 3).
void reduce(const std::vector<std::uint8_t>& png, const spng_ihdr& ihdr, int samples,
            std::size_t stride, DecodedPixels& out) {
  const bool gray = samples == 1;  // Pillow's mode "I": 16-bit gray+alpha opens as RGBA
  std::uint8_t* dst = out.data.data();
  for (std::uint32_t y = 0; y < ihdr.height; ++y) {
    const std::uint8_t* row = png.data() + y * stride;
    for (std::size_t x = 0; x < ihdr.width; ++x) {
      for (int band = 0; band < out.bands; ++band) {
        *dst++ = to_8_bits(sample(row, x * samples + band, ihdr.bit_depth), ihdr.bit_depth, gray);
      }
    }
  }
}

int samples_per_pixel(int color_type) {
  switch (color_type) {
    case SPNG_COLOR_TYPE_GRAYSCALE:
      return 1;
    case SPNG_COLOR_TYPE_TRUECOLOR:
      return 3;
    case SPNG_COLOR_TYPE_INDEXED:
      return 1;
    case SPNG_COLOR_TYPE_GRAYSCALE_ALPHA:
      return 2;
    default:
      return 4;
  }
}

}  // namespace

DecodedPixels decode_png(std::span<const std::uint8_t> bytes, const fs::path& file,
                         const DecodeBudget& budget) {
  Context context(spng_ctx_new(0), spng_ctx_free);
  if (!context) throw std::bad_alloc();
  check(spng_set_png_buffer(context.get(), bytes.data(), bytes.size()), file);
  // Text and other ancillary chunks are kept in memory, decompressed: bounded against bombs
  // (libspng wants the cache limit no smaller than the chunk limit).
  check(spng_set_chunk_limits(context.get(), max_image_file_bytes, max_image_file_bytes), file);
  spng_ihdr ihdr{};
  check(spng_get_ihdr(context.get(), &ihdr), file);
  check_image_size(ihdr.width, ihdr.height, "PNG", file);
  std::size_t size = 0;
  check(spng_decoded_image_size(context.get(), SPNG_FMT_PNG, &size), file);
  const int samples = samples_per_pixel(ihdr.color_type);
  const bool indexed = ihdr.color_type == SPNG_COLOR_TYPE_INDEXED;
  const int bands = indexed || samples >= 3 ? 3 : 1;
  // libspng's own buffers are a few rows (its scanlines): the image is `size`.
  check_decoding_bytes({"PNG", ihdr.width, ihdr.height, bytes.size(), size, bands}, budget, file);
  std::vector<std::uint8_t> png(size);
  check(spng_decode_image(context.get(), png.data(), png.size(), SPNG_FMT_PNG, 0), file);

  const std::size_t stride = size / ihdr.height;
  DecodedPixels out{bands, static_cast<int>(ihdr.height), static_cast<int>(ihdr.width), {}};
  if (!indexed && ihdr.bit_depth == 8 && samples == out.bands) {  // 8-bit gray or RGB: as stored
    out.data = std::move(png);
    return out;
  }
  out.data.resize(std::size_t{ihdr.width} * ihdr.height * out.bands);
  if (indexed) {
    spng_plte plte{};
    check(spng_get_plte(context.get(), &plte), file);
    look_up(png, ihdr, plte, stride, out);
  } else {
    reduce(png, ihdr, samples, stride, out);
  }
  return out;
}

}  // namespace runner::image_detail
