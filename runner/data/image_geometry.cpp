// Pillow's affine engines for NEAREST (ImagingTransformAffine): a pure scale-and-shift map walks
// rows and columns separately in double precision; any other map is walked in 16.16 fixed point
// when its corners stay within +-32768, else in double precision. Coordinates are truncated
// toward zero, negatives to -1 (Pillow's COORD).
#include "runner/data/image_geometry.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numbers>
#include <stdexcept>

namespace runner {
namespace {

int coord(double v) {
  return v < 0.0 ? -1 : static_cast<int>(v);
}

int floor_int(double v) {
  return v < 0.0 ? static_cast<int>(std::floor(v)) : static_cast<int>(v);
}

// Python's radians() and float modulo.
double radians(double degrees) {
  return degrees * (std::numbers::pi / 180.0);
}
double python_mod(double x, double m) {
  double r = std::fmod(x, m);
  if (r != 0.0) {
    if ((m < 0) != (r < 0)) r += m;
  } else {
    r = std::copysign(0.0, m);
  }
  return r;
}

// Python's round(x, 15): the nearest double to x's decimal expansion cut at 15 places.
double round15(double x) {
  char text[64];
  std::snprintf(text, sizeof text, "%.15f", x);
  return std::strtod(text, nullptr);
}

Image filled_like(const Image& image, const std::vector<std::uint8_t>& fill) {
  if (fill.size() != static_cast<std::size_t>(image.channels)) {
    throw std::invalid_argument("fill needs one value per channel");
  }
  Image out{image.channels, image.height, image.width, {}};
  const std::size_t plane = static_cast<std::size_t>(image.height) * image.width;
  out.pixels.resize(plane * image.channels);
  for (int c = 0; c < image.channels; ++c) {
    std::fill_n(out.pixels.begin() + c * plane, plane, fill[c]);
  }
  return out;
}

// Each channel through `copy(channel_in, channel_out)`.
template <typename PerPlane>
void each_plane(const Image& in, Image& out, PerPlane copy) {
  const std::size_t plane = static_cast<std::size_t>(in.height) * in.width;
  for (int c = 0; c < in.channels; ++c) {
    copy(in.pixels.data() + c * plane, out.pixels.data() + c * plane);
  }
}

// ImagingScaleAffine: a[1] == a[3] == 0.
void scale_affine(const Image& in, Image& out, const AffineMap& a) {
  const int w = in.width, h = in.height;
  std::vector<int> source_x(w, 0);
  int first = w, end = 0;
  double xo = a[2] + a[0] * 0.5;
  for (int x = 0; x < w; ++x, xo += a[0]) {
    const int xin = coord(xo);
    if (xin >= 0 && xin < w) {
      end = x + 1;
      first = std::min(first, x);
      source_x[x] = xin;
    }
  }
  each_plane(in, out, [&](const std::uint8_t* from, std::uint8_t* to) {
    double yo = a[5] + a[4] * 0.5;
    for (int y = 0; y < h; ++y, yo += a[4]) {
      const int yin = coord(yo);
      if (yin < 0 || yin >= h) continue;
      for (int x = first; x < end; ++x) to[y * w + x] = from[yin * w + source_x[x]];
    }
  });
}

bool fits_fixed_point(const AffineMap& a, int x, int y) {
  return std::fabs(x * a[0] + y * a[1] + a[2]) < 32768.0 &&
         std::fabs(x * a[3] + y * a[4] + a[5]) < 32768.0;
}

// affine_fixed: 16.16 fixed point, one step per pixel and per row.
void fixed_affine(const Image& in, Image& out, const AffineMap& a) {
  const int w = in.width, h = in.height;
  const auto fix = [](double v) { return floor_int(v * 65536.0 + 0.5); };
  const int a0 = fix(a[0]), a1 = fix(a[1]), a3 = fix(a[3]), a4 = fix(a[4]);
  const int row_x = fix(a[2] + a[0] * 0.5 + a[1] * 0.5);
  const int row_y = fix(a[5] + a[3] * 0.5 + a[4] * 0.5);
  each_plane(in, out, [&](const std::uint8_t* from, std::uint8_t* to) {
    int start_x = row_x, start_y = row_y;
    for (int y = 0; y < h; ++y, start_x += a1, start_y += a4) {
      int xx = start_x, yy = start_y;
      for (int x = 0; x < w; ++x, xx += a0, yy += a3) {
        const int xin = xx >> 16, yin = yy >> 16;
        if (xin >= 0 && xin < w && yin >= 0 && yin < h) to[y * w + x] = from[yin * w + xin];
      }
    }
  });
}

// The double-precision walk, for maps too large for fixed point.
void float_affine(const Image& in, Image& out, const AffineMap& a) {
  const int w = in.width, h = in.height;
  each_plane(in, out, [&](const std::uint8_t* from, std::uint8_t* to) {
    double xo = a[2] + a[1] * 0.5 + a[0] * 0.5;
    double yo = a[5] + a[4] * 0.5 + a[3] * 0.5;
    for (int y = 0; y < h; ++y, xo += a[1], yo += a[4]) {
      double xx = xo, yy = yo;
      for (int x = 0; x < w; ++x, xx += a[0], yy += a[3]) {
        const int xin = coord(xx), yin = coord(yy);
        if (xin >= 0 && xin < w && yin >= 0 && yin < h) to[y * w + x] = from[yin * w + xin];
      }
    }
  });
}

// Image.transpose: ROTATE_90 (counter-clockwise), ROTATE_180, ROTATE_270 of a square image (or
// any image for 180).
void transpose(Image& image, int quarter_turns) {
  const Image in = image;
  const int w = image.width, h = image.height;
  each_plane(in, image, [&](const std::uint8_t* from, std::uint8_t* to) {
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        int sx = x, sy = y;
        if (quarter_turns == 1) sx = w - 1 - y, sy = x;
        if (quarter_turns == 2) sx = w - 1 - x, sy = h - 1 - y;
        if (quarter_turns == 3) sx = y, sy = h - 1 - x;
        to[y * w + x] = from[sy * w + sx];
      }
    }
  });
}

}  // namespace

Image crop_image(const Image& image, int top, int left, int height, int width) {
  if (top < 0 || left < 0 || height < 1 || width < 1 || top + height > image.height ||
      left + width > image.width) {
    throw std::invalid_argument("crop_image: the window leaves the image");
  }
  Image out{image.channels, height, width,
            std::vector<std::uint8_t>(static_cast<std::size_t>(image.channels) * height * width)};
  for (int c = 0; c < image.channels; ++c) {
    for (int y = 0; y < height; ++y) {
      const std::uint8_t* from =
          image.pixels.data() +
          (static_cast<std::size_t>(c) * image.height + top + y) * image.width + left;
      std::copy_n(from, width,
                  out.pixels.data() + (static_cast<std::size_t>(c) * height + y) * width);
    }
  }
  return out;
}

AffineMap torchvision_affine(double centre_x, double centre_y, double angle, double translate_x,
                             double translate_y, double scale, double shear_x, double shear_y) {
  const double rot = radians(angle), sx = radians(shear_x), sy = radians(shear_y);
  const double a = std::cos(rot - sy) / std::cos(sy);
  const double b = -std::cos(rot - sy) * std::tan(sx) / std::cos(sy) - std::sin(rot);
  const double c = std::sin(rot - sy) / std::cos(sy);
  const double d = -std::sin(rot - sy) * std::tan(sx) / std::cos(sy) + std::cos(rot);
  AffineMap m = {d / scale, -b / scale, 0.0 / scale, -c / scale, a / scale, 0.0 / scale};
  m[2] += m[0] * (-centre_x - translate_x) + m[1] * (-centre_y - translate_y);
  m[5] += m[3] * (-centre_x - translate_x) + m[4] * (-centre_y - translate_y);
  m[2] += centre_x;
  m[5] += centre_y;
  return m;
}

void transform_nearest(Image& image, const AffineMap& a, const std::vector<std::uint8_t>& fill) {
  Image out = filled_like(image, fill);
  const int w = image.width, h = image.height;
  if (a[1] == 0 && a[3] == 0) {
    scale_affine(image, out, a);
  } else if (fits_fixed_point(a, 0, 0) && fits_fixed_point(a, w, h) && fits_fixed_point(a, 0, h) &&
             fits_fixed_point(a, w, 0)) {
    fixed_affine(image, out, a);
  } else {
    float_affine(image, out, a);
  }
  image = std::move(out);
}

void rotate_nearest(Image& image, double angle, const std::vector<std::uint8_t>& fill) {
  angle = python_mod(angle, 360.0);
  if (angle == 0) return;
  if (angle == 180) return transpose(image, 2);
  if ((angle == 90 || angle == 270) && image.width == image.height) {
    return transpose(image, angle == 90 ? 1 : 3);
  }
  const double centre_x = image.width / 2.0, centre_y = image.height / 2.0;
  const double turn = -radians(angle);
  AffineMap m = {round15(std::cos(turn)),  round15(std::sin(turn)), 0.0,
                 round15(-std::sin(turn)), round15(std::cos(turn)), 0.0};
  m[2] = m[0] * -centre_x + m[1] * -centre_y + m[2] + centre_x;
  m[5] = m[3] * -centre_x + m[4] * -centre_y + m[5] + centre_y;
  transform_nearest(image, m, fill);
}

}  // namespace runner
