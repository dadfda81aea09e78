// Pillow's two-pass resampling (libImaging/Resample.c, Pillow 9.4), restated for planar images:
// the weights are computed in double exactly as Pillow computes them, then rounded to fixed point.
#include "runner/data/image_resize.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace runner {
namespace {

constexpr int precision_bits = 32 - 8 - 2;  // Pillow's PRECISION_BITS

// One axis: for each output sample, the input samples it reads and their fixed-point weights.
struct Taps {
  int size = 0;                       // weights per output sample (Pillow's ksize)
  std::vector<int> first, count;      // (out): first input sample read, how many
  std::vector<std::int32_t> weights;  // (out, size)
};

double triangle(double x) {
  if (x < 0.0) x = -x;
  return x < 1.0 ? 1.0 - x : 0.0;
}

// Pillow's precompute_coeffs and normalize_coeffs_8bpc for the BILINEAR filter (support 1),
// statement by statement: the same doubles, so the same rounding.
Taps bilinear_taps(int in_size, int out_size) {
  const double scale = static_cast<double>(in_size) / out_size;
  const double filter_scale = std::max(scale, 1.0);  // shrinking widens the filter: antialiasing
  const double support = 1.0 * filter_scale;
  Taps taps;
  taps.size = static_cast<int>(std::ceil(support)) * 2 + 1;
  taps.first.resize(out_size);
  taps.count.resize(out_size);
  taps.weights.assign(static_cast<std::size_t>(out_size) * taps.size, 0);
  std::vector<double> k(taps.size);
  for (int xx = 0; xx < out_size; ++xx) {
    const double center = (xx + 0.5) * scale;
    const double ss = 1.0 / filter_scale;
    const int xmin = std::max(static_cast<int>(center - support + 0.5), 0);
    const int xmax = std::min(static_cast<int>(center + support + 0.5), in_size) - xmin;
    double ww = 0.0;
    for (int x = 0; x < xmax; ++x) {
      k[x] = triangle((x + xmin - center + 0.5) * ss);
      ww += k[x];
    }
    for (int x = 0; x < xmax; ++x) {
      if (ww != 0.0) k[x] /= ww;
      taps.weights[static_cast<std::size_t>(xx) * taps.size + x] =
          static_cast<std::int32_t>(0.5 + k[x] * (1 << precision_bits));  // k >= 0
    }
    taps.first[xx] = xmin;
    taps.count[xx] = xmax;
  }
  return taps;
}

// Pillow's clip8: the sum (with its rounding half already in) back to 8 bits.
std::uint8_t clip8(std::int32_t sum) {
  if (sum >= (1 << precision_bits << 8)) return 255;
  if (sum <= 0) return 0;
  return static_cast<std::uint8_t>(sum >> precision_bits);
}

// Each of `rows` rows of `in` (width in_width) to `taps.first.size()` samples.
void resample_rows(const std::uint8_t* in, int in_width, int rows, const Taps& taps,
                   std::uint8_t* out) {
  const int out_width = static_cast<int>(taps.first.size());
  for (int y = 0; y < rows; ++y, in += in_width) {
    for (int xx = 0; xx < out_width; ++xx, ++out) {
      const std::uint8_t* src = in + taps.first[xx];
      const std::int32_t* k = &taps.weights[static_cast<std::size_t>(xx) * taps.size];
      std::int32_t sum = 1 << (precision_bits - 1);
      for (int x = 0; x < taps.count[xx]; ++x) sum += src[x] * k[x];
      *out = clip8(sum);
    }
  }
}

// Rows of `in` (width `width`) to `taps.first.size()` rows, reading from row `offset` on. A whole
// output row is summed at once, so the inner loop runs along memory.
void resample_columns(const std::uint8_t* in, int width, int offset, const Taps& taps,
                      std::uint8_t* out) {
  std::vector<std::int32_t> sums(width);
  for (std::size_t yy = 0; yy < taps.first.size(); ++yy, out += width) {
    std::fill(sums.begin(), sums.end(), 1 << (precision_bits - 1));
    const std::int32_t* k = &taps.weights[yy * taps.size];
    for (int y = 0; y < taps.count[yy]; ++y) {
      const std::uint8_t* row = in + static_cast<std::size_t>(taps.first[yy] - offset + y) * width;
      for (int x = 0; x < width; ++x) sums[x] += row[x] * k[y];
    }
    for (int x = 0; x < width; ++x) out[x] = clip8(sums[x]);
  }
}

// One channel: horizontal pass over the rows the vertical pass reads, then the vertical pass,
// each skipped when its size does not change (as Pillow skips it).
void resize_plane(const std::uint8_t* in, int in_height, int in_width, const Taps& horizontal,
                  const Taps& vertical, std::uint8_t* out, std::vector<std::uint8_t>& scratch) {
  const int height = static_cast<int>(vertical.first.size());
  const int width = static_cast<int>(horizontal.first.size());
  const bool resize_rows = width != in_width, resize_columns = height != in_height;
  if (!resize_columns) {
    resample_rows(in, in_width, in_height, horizontal, out);
    return;
  }
  int offset = 0;
  if (resize_rows) {
    const int first = vertical.first.front();
    const int last = vertical.first.back() + vertical.count.back();
    scratch.resize(static_cast<std::size_t>(last - first) * width);
    resample_rows(in + static_cast<std::size_t>(first) * in_width, in_width, last - first,
                  horizontal, scratch.data());
    in = scratch.data();
    offset = first;
  }
  resample_columns(in, resize_rows ? width : in_width, offset, vertical, out);
}

}  // namespace

void resize_image_into(const Image& image, int height, int width, std::span<std::uint8_t> out) {
  const std::size_t plane = static_cast<std::size_t>(height) * width;
  if (height <= 0 || width <= 0 || out.size() != plane * image.channels) {
    throw std::invalid_argument("resize_image_into: the output's size does not match");
  }
  if (height == image.height && width == image.width) {
    std::memcpy(out.data(), image.pixels.data(), out.size());
    return;
  }
  const Taps horizontal = bilinear_taps(image.width, width);
  const Taps vertical = bilinear_taps(image.height, height);
  const std::size_t in_plane = static_cast<std::size_t>(image.height) * image.width;
  std::vector<std::uint8_t> scratch;
  for (int c = 0; c < image.channels; ++c) {
    resize_plane(image.pixels.data() + c * in_plane, image.height, image.width, horizontal,
                 vertical, out.data() + c * plane, scratch);
  }
}

Image resize_image(const Image& image, int height, int width) {
  Image out{image.channels, height, width, {}};
  out.pixels.resize(static_cast<std::size_t>(image.channels) * height * width);
  resize_image_into(image, height, width, out.pixels);
  return out;
}

}  // namespace runner
