// The kernel as torchvision builds it (linspace, exp, divided by its sum, the outer product of
// two), in float as it does; the convolution sums in float too, in another order than oneDNN's,
// so a pixel within a rounding step of .5 may differ by one (the golden test allows that).
#include "runner/data/image_blur.h"

#include <cmath>
#include <stdexcept>
#include <vector>

namespace runner {
namespace {

std::vector<float> kernel_1d(int size, double sigma) {
  std::vector<float> kernel(size);
  const float half = static_cast<float>(size - 1) * 0.5f;
  const float s = static_cast<float>(sigma);
  float sum = 0;
  for (int i = 0; i < size; ++i) {
    const float x = (-half + static_cast<float>(i)) / s;
    kernel[i] = std::exp(-0.5f * (x * x));
    sum += kernel[i];
  }
  for (float& k : kernel) k /= sum;
  return kernel;
}

// PyTorch's "reflect" padding: -1 reads 1, n reads n - 2.
int reflect(int i, int n) {
  if (i < 0) return -i;
  if (i >= n) return 2 * (n - 1) - i;
  return i;
}

}  // namespace

void gaussian_blur(Image& image, int kernel_size, double sigma) {
  const int h = image.height, w = image.width, half = kernel_size / 2;
  if (kernel_size < 1 || kernel_size % 2 == 0 || half >= h || half >= w || !(sigma > 0)) {
    throw std::invalid_argument("gaussian_blur: an odd kernel smaller than the image, sigma > 0");
  }
  const std::vector<float> k1 = kernel_1d(kernel_size, sigma);
  std::vector<float> k2(static_cast<std::size_t>(kernel_size) * kernel_size);
  for (int i = 0; i < kernel_size; ++i) {
    for (int j = 0; j < kernel_size; ++j) k2[i * kernel_size + j] = k1[i] * k1[j];
  }
  const Image in = image;
  const std::size_t plane = static_cast<std::size_t>(h) * w;
  for (int c = 0; c < image.channels; ++c) {
    const std::uint8_t* from = in.pixels.data() + c * plane;
    std::uint8_t* to = image.pixels.data() + c * plane;
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        float sum = 0;
        for (int i = 0; i < kernel_size; ++i) {
          const std::uint8_t* row = from + reflect(y + i - half, h) * w;
          for (int j = 0; j < kernel_size; ++j) {
            sum += k2[i * kernel_size + j] * static_cast<float>(row[reflect(x + j - half, w)]);
          }
        }
        const float rounded = std::nearbyint(sum);
        to[y * w + x] = static_cast<std::uint8_t>(rounded < 0 ? 0 : rounded > 255 ? 255 : rounded);
      }
    }
  }
}

}  // namespace runner
