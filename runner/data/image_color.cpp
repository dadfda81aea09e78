// Pillow 9.4's colour arithmetic, operation by operation. Where Pillow mixes float variables
// with double literals (the HSV conversions), the expressions below keep its types, so every
// intermediate rounds where Pillow's does: an all-float or all-double version differs from
// torchvision at rounding boundaries.
#include "runner/data/image_color.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

namespace runner {
namespace {

std::size_t plane_of(const Image& image) {
  return static_cast<std::size_t>(image.height) * image.width;
}

std::uint8_t clip_to_byte(float value) {
  if (value <= 0.0f) return 0;
  if (value >= 255.0f) return 255;
  return static_cast<std::uint8_t>(value);
}

// Image.point(lut) with one table for every channel.
void apply_table(Image& image, const std::array<std::uint8_t, 256>& table) {
  for (std::uint8_t& byte : image.pixels) byte = table[byte];
}

std::array<std::int64_t, 256> histogram(const std::uint8_t* plane, std::size_t count) {
  std::array<std::int64_t, 256> counts{};
  for (std::size_t i = 0; i < count; ++i) ++counts[plane[i]];
  return counts;
}

// The luma of every pixel (convert('L')), as a one-channel image.
Image luma_image(const Image& image) {
  if (image.channels == 1) return image;
  const std::size_t plane = plane_of(image);
  Image gray{1, image.height, image.width, std::vector<std::uint8_t>(plane)};
  const std::uint8_t* r = image.pixels.data();
  for (std::size_t i = 0; i < plane; ++i) {
    gray.pixels[i] = pillow_luma(r[i], r[plane + i], r[2 * plane + i]);
  }
  return gray;
}

// Image.new(mode, size, value): every byte the same.
Image constant_like(const Image& image, std::uint8_t value) {
  return {image.channels, image.height, image.width,
          std::vector<std::uint8_t>(image.pixels.size(), value)};
}

void require_gray_or_rgb(const Image& image) {
  if (image.channels != 1 && image.channels != 3) {
    throw std::invalid_argument("colour operations take 1 or 3 channels");
  }
}

// Pillow's rgb2hsv_row: float variables, double literals.
void rgb_to_hsv(int r, int g, int b, std::uint8_t& h_out, std::uint8_t& s_out) {
  const int maxc = std::max(r, std::max(g, b));
  const int minc = std::min(r, std::min(g, b));
  if (minc == maxc) {
    h_out = s_out = 0;
    return;
  }
  const float cr = static_cast<float>(maxc - minc);
  const float s = cr / static_cast<float>(maxc);
  const float rc = static_cast<float>(maxc - r) / cr;
  const float gc = static_cast<float>(maxc - g) / cr;
  const float bc = static_cast<float>(maxc - b) / cr;
  float h;
  if (r == maxc) {
    h = bc - gc;
  } else if (g == maxc) {
    h = static_cast<float>(2.0 + rc - bc);
  } else {
    h = static_cast<float>(4.0 + gc - rc);
  }
  h = static_cast<float>(std::fmod(h / 6.0 + 1.0, 1.0));
  h_out = static_cast<std::uint8_t>(std::clamp(static_cast<int>(h * 255.0), 0, 255));
  s_out = static_cast<std::uint8_t>(std::clamp(static_cast<int>(s * 255.0), 0, 255));
}

// Pillow's hsv2rgb.
void hsv_to_rgb(int h, int s, int v, std::uint8_t* rgb) {
  if (s == 0) {
    rgb[0] = rgb[1] = rgb[2] = static_cast<std::uint8_t>(v);
    return;
  }
  const int i = static_cast<int>(std::floor(static_cast<float>(h) * 6.0 / 255.0));
  const float f = static_cast<float>(static_cast<float>(h) * 6.0 / 255.0 - static_cast<float>(i));
  const float fs = static_cast<float>(static_cast<float>(s) / 255.0);
  const auto byte = [](double value) {
    return static_cast<std::uint8_t>(std::clamp(static_cast<int>(std::round(value)), 0, 255));
  };
  const float fsf = fs * f;  // float x float in Pillow
  const std::uint8_t p = byte(static_cast<float>(v) * (1.0 - fs));
  const std::uint8_t q = byte(static_cast<float>(v) * (1.0 - fsf));
  const std::uint8_t t = byte(static_cast<float>(v) * (1.0 - fs * (1.0 - f)));
  const auto u = static_cast<std::uint8_t>(v);
  switch (i % 6) {
    case 0:
      rgb[0] = u, rgb[1] = t, rgb[2] = p;
      break;
    case 1:
      rgb[0] = q, rgb[1] = u, rgb[2] = p;
      break;
    case 2:
      rgb[0] = p, rgb[1] = u, rgb[2] = t;
      break;
    case 3:
      rgb[0] = p, rgb[1] = q, rgb[2] = u;
      break;
    case 4:
      rgb[0] = t, rgb[1] = p, rgb[2] = u;
      break;
    default:
      rgb[0] = u, rgb[1] = p, rgb[2] = q;
      break;
  }
}

// ImageFilter.SMOOTH (3x3 kernel 1 1 1 / 1 5 1 / 1 1 1, divided by 13) as Pillow's
// ImagingFilter3x3 computes it: single precision, the row below first, +0.5 and truncation; the
// outermost rows and columns copied.
Image smoothed(const Image& image) {
  Image out = image;
  const int h = image.height, w = image.width;
  if (h < 3 || w < 3) return out;
  const float edge = 1.0f / 13.0f, centre = 5.0f / 13.0f;
  const float kernel[9] = {edge, edge, edge, edge, centre, edge, edge, edge, edge};
  for (int c = 0; c < image.channels; ++c) {
    const std::uint8_t* in = image.pixels.data() + c * plane_of(image);
    std::uint8_t* o = out.pixels.data() + c * plane_of(image);
    for (int y = 1; y < h - 1; ++y) {
      const std::uint8_t* rows[3] = {in + (y + 1) * w, in + y * w, in + (y - 1) * w};
      for (int x = 1; x < w - 1; ++x) {
        float sum = 0.5f;
        for (int r = 0; r < 3; ++r) {
          const float* k = kernel + 3 * r;
          sum += static_cast<float>(rows[r][x - 1]) * k[0] + static_cast<float>(rows[r][x]) * k[1] +
                 static_cast<float>(rows[r][x + 1]) * k[2];
        }
        o[y * w + x] = clip_to_byte(sum);
      }
    }
  }
  return out;
}

}  // namespace

void blend_from(const Image& degenerate, Image& image, float factor) {
  if (degenerate.pixels.size() != image.pixels.size()) {
    throw std::invalid_argument("blend_from: images of different sizes");
  }
  if (factor == 0.0f) {
    image.pixels = degenerate.pixels;
    return;
  }
  if (factor == 1.0f) return;
  const bool interpolates = factor >= 0.0f && factor <= 1.0f;
  for (std::size_t i = 0; i < image.pixels.size(); ++i) {
    const int from = degenerate.pixels[i];
    const float value =
        static_cast<float>(from) + factor * static_cast<float>(image.pixels[i] - from);
    image.pixels[i] = interpolates ? static_cast<std::uint8_t>(value) : clip_to_byte(value);
  }
}

void adjust_brightness(Image& image, float factor) {
  blend_from(constant_like(image, 0), image, factor);
}

void adjust_contrast(Image& image, float factor) {
  require_gray_or_rgb(image);
  // ImageStat's mean of convert('L'), rounded half up.
  const Image gray = luma_image(image);
  const std::array<std::int64_t, 256> counts = histogram(gray.pixels.data(), gray.pixels.size());
  double sum = 0;
  for (int v = 0; v < 256; ++v) sum += static_cast<double>(v) * static_cast<double>(counts[v]);
  const int mean = static_cast<int>(sum / static_cast<double>(gray.pixels.size()) + 0.5);
  blend_from(constant_like(image, static_cast<std::uint8_t>(mean)), image, factor);
}

void adjust_saturation(Image& image, float factor) {
  require_gray_or_rgb(image);
  if (image.channels == 1) return;
  const Image gray = luma_image(image);
  Image degenerate = image;
  const std::size_t plane = plane_of(image);
  for (int c = 0; c < 3; ++c) {
    std::copy(gray.pixels.begin(), gray.pixels.end(), degenerate.pixels.begin() + c * plane);
  }
  blend_from(degenerate, image, factor);
}

void adjust_sharpness(Image& image, float factor) {
  blend_from(smoothed(image), image, factor);
}

void adjust_hue(Image& image, double factor) {
  require_gray_or_rgb(image);
  if (image.channels == 1) return;
  // numpy's uint8(factor x 255): truncated, then wrapped.
  const auto shift = static_cast<std::uint8_t>(static_cast<int>(factor * 255));
  const std::size_t plane = plane_of(image);
  std::uint8_t* r = image.pixels.data();
  std::uint8_t* g = r + plane;
  std::uint8_t* b = g + plane;
  for (std::size_t i = 0; i < plane; ++i) {
    std::uint8_t h, s;
    rgb_to_hsv(r[i], g[i], b[i], h, s);
    const int v = std::max(r[i], std::max(g[i], b[i]));
    std::uint8_t rgb[3];
    hsv_to_rgb(static_cast<std::uint8_t>(h + shift), s, v, rgb);
    r[i] = rgb[0], g[i] = rgb[1], b[i] = rgb[2];
  }
}

void to_grayscale(Image& image) {
  require_gray_or_rgb(image);
  if (image.channels == 1) return;
  const Image gray = luma_image(image);
  const std::size_t plane = plane_of(image);
  for (int c = 0; c < 3; ++c) {
    std::copy(gray.pixels.begin(), gray.pixels.end(), image.pixels.begin() + c * plane);
  }
}

void posterize(Image& image, int bits) {
  if (bits < 1 || bits > 8) throw std::invalid_argument("posterize: bits from 1 to 8");
  const auto mask = static_cast<std::uint8_t>(~((1 << (8 - bits)) - 1));
  for (std::uint8_t& byte : image.pixels) byte &= mask;
}

void solarize(Image& image, double threshold) {
  std::array<std::uint8_t, 256> table;
  for (int v = 0; v < 256; ++v) table[v] = static_cast<std::uint8_t>(v < threshold ? v : 255 - v);
  apply_table(image, table);
}

void autocontrast(Image& image) {
  const std::size_t plane = plane_of(image);
  for (int c = 0; c < image.channels; ++c) {
    std::uint8_t* bytes = image.pixels.data() + c * plane;
    const std::array<std::int64_t, 256> counts = histogram(bytes, plane);
    int lo = 0, hi = 255;
    while (lo < 255 && counts[lo] == 0) ++lo;
    while (hi > 0 && counts[hi] == 0) --hi;
    if (hi <= lo) continue;
    const double scale = 255.0 / (hi - lo);
    const double offset = -lo * scale;
    std::array<std::uint8_t, 256> table;
    for (int v = 0; v < 256; ++v) {
      table[v] =
          static_cast<std::uint8_t>(std::clamp(static_cast<int>(v * scale + offset), 0, 255));
    }
    for (std::size_t i = 0; i < plane; ++i) bytes[i] = table[bytes[i]];
  }
}

void equalize(Image& image) {
  const std::size_t plane = plane_of(image);
  for (int c = 0; c < image.channels; ++c) {
    std::uint8_t* bytes = image.pixels.data() + c * plane;
    const std::array<std::int64_t, 256> counts = histogram(bytes, plane);
    std::int64_t total = 0, last = 0;
    int used = 0;
    for (std::int64_t count : counts) {
      if (count == 0) continue;
      total += count, last = count, ++used;
    }
    if (used <= 1) continue;
    const std::int64_t step = (total - last) / 255;
    if (step == 0) continue;
    std::array<std::uint8_t, 256> table;
    std::int64_t n = step / 2;
    for (int v = 0; v < 256; ++v) {
      table[v] = static_cast<std::uint8_t>(std::min<std::int64_t>(n / step, 255));
      n += counts[v];
    }
    for (std::size_t i = 0; i < plane; ++i) bytes[i] = table[bytes[i]];
  }
}

}  // namespace runner
