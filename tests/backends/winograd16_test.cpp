// The 16-channel Winograd kernels (backends/onednn/winograd16.h) against direct convolutions in
// double precision, on image sizes with partial tiles and partial groups of tiles.
#include "backends/onednn/winograd16.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace runner::onednn::winograd16 {
namespace {

constexpr int C = kChannels;

struct Size {
  int n, h, w;
};

// (n, h, w, C) channels-last
struct Images {
  Size size;
  std::vector<float> values;
  float& at(int b, int y, int x, int c) {
    return values[((static_cast<std::size_t>(b) * size.h + y) * size.w + x) * C + c];
  }
  float get(int b, int y, int x, int c) const {
    if (y < 0 || y >= size.h || x < 0 || x >= size.w) return 0.f;
    return values[((static_cast<std::size_t>(b) * size.h + y) * size.w + x) * C + c];
  }
};

std::vector<float> random_values(std::size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  std::vector<float> v(count);
  for (float& x : v) x = normal(rng);
  return v;
}

Images random_images(Size size, unsigned seed) {
  return {size, random_values(static_cast<std::size_t>(size.n) * size.h * size.w * C, seed)};
}

float weight_at(const std::vector<float>& w, int o, int i, int ky, int kx) {
  return w[((o * C + i) * 3 + ky) * 3 + kx];
}

// Expects |got - want| within float rounding of a sum whose terms have absolute sum `scale`.
void expect_close(double got, double want, double scale, const char* what) {
  ASSERT_NEAR(got, want, 2e-6 * scale + 1e-6) << what;
}

class Winograd16 : public testing::TestWithParam<Size> {
 protected:
  void SetUp() override {
    if (!available()) GTEST_SKIP() << "no AVX-512 on this CPU";
  }
};

TEST_P(Winograd16, ForwardMatchesDirectConvolutionWithBiasAndRelu) {
  const Size size = GetParam();
  const Images src = random_images(size, 1);
  const std::vector<float> weight = random_values(C * C * 9, 2), bias = random_values(C, 3);
  std::vector<float> u(kTransformedFloats);
  transform_weights(weight.data(), false, u.data());
  for (bool relu : {false, true}) {
    Images dst{size, std::vector<float>(src.values.size(), -7.f)};
    convolve(src.values.data(), u.data(), bias.data(), relu, dst.values.data(), size.n, size.h,
             size.w);
    for (int b = 0; b < size.n; ++b) {
      for (int y = 0; y < size.h; ++y) {
        for (int x = 0; x < size.w; ++x) {
          for (int o = 0; o < C; ++o) {
            double sum = bias[o], scale = std::fabs(bias[o]);
            for (int i = 0; i < C; ++i) {
              for (int ky = 0; ky < 3; ++ky) {
                for (int kx = 0; kx < 3; ++kx) {
                  const double term = static_cast<double>(src.get(b, y + ky - 1, x + kx - 1, i)) *
                                      weight_at(weight, o, i, ky, kx);
                  sum += term;
                  scale += std::fabs(term);
                }
              }
            }
            if (relu) sum = std::max(sum, 0.0);
            expect_close(dst.at(b, y, x, o), sum, scale, relu ? "forward with ReLU" : "forward");
          }
        }
      }
    }
  }
}

TEST_P(Winograd16, DataGradientMatchesTheTransposedConvolution) {
  const Size size = GetParam();
  const Images grad = random_images(size, 4);
  const std::vector<float> weight = random_values(C * C * 9, 5);
  std::vector<float> u(kTransformedFloats);
  transform_weights(weight.data(), true, u.data());
  Images dx{size, std::vector<float>(grad.values.size(), -7.f)};
  convolve(grad.values.data(), u.data(), nullptr, false, dx.values.data(), size.n, size.h, size.w);
  // dx(y, x, i) = sum over the outputs (y', x', o) that read input (y, x) through tap (ky, kx).
  for (int b = 0; b < size.n; ++b) {
    for (int y = 0; y < size.h; ++y) {
      for (int x = 0; x < size.w; ++x) {
        for (int i = 0; i < C; ++i) {
          double sum = 0, scale = 0;
          for (int o = 0; o < C; ++o) {
            for (int ky = 0; ky < 3; ++ky) {
              for (int kx = 0; kx < 3; ++kx) {
                const double term = static_cast<double>(grad.get(b, y - ky + 1, x - kx + 1, o)) *
                                    weight_at(weight, o, i, ky, kx);
                sum += term;
                scale += std::fabs(term);
              }
            }
          }
          expect_close(dx.at(b, y, x, i), sum, scale, "data gradient");
        }
      }
    }
  }
}

TEST_P(Winograd16, WeightAndBiasGradientsMatchTheDirectSums) {
  const Size size = GetParam();
  const Images src = random_images(size, 6), grad = random_images(size, 7);
  std::vector<float> dw(C * C * 9, -7.f), db(C, -7.f);
  weight_gradient(src.values.data(), grad.values.data(), dw.data(), db.data(), size.n, size.h,
                  size.w);
  for (int o = 0; o < C; ++o) {
    double bias_sum = 0, bias_scale = 0;
    for (int b = 0; b < size.n; ++b) {
      for (int y = 0; y < size.h; ++y) {
        for (int x = 0; x < size.w; ++x) {
          bias_sum += grad.get(b, y, x, o);
          bias_scale += std::fabs(grad.get(b, y, x, o));
        }
      }
    }
    expect_close(db[o], bias_sum, bias_scale, "bias gradient");
    for (int i = 0; i < C; ++i) {
      for (int ky = 0; ky < 3; ++ky) {
        for (int kx = 0; kx < 3; ++kx) {
          double sum = 0, scale = 0;
          for (int b = 0; b < size.n; ++b) {
            for (int y = 0; y < size.h; ++y) {
              for (int x = 0; x < size.w; ++x) {
                const double term = static_cast<double>(grad.get(b, y, x, o)) *
                                    src.get(b, y + ky - 1, x + kx - 1, i);
                sum += term;
                scale += std::fabs(term);
              }
            }
          }
          expect_close(dw[((o * C + i) * 3 + ky) * 3 + kx], sum, scale, "weight gradient");
        }
      }
    }
  }
}

TEST_P(Winograd16, WeightGradientIsTheSameEveryTime) {
  const Size size = GetParam();
  const Images src = random_images(size, 8), grad = random_images(size, 9);
  std::vector<float> first(C * C * 9), again(C * C * 9);
  weight_gradient(src.values.data(), grad.values.data(), first.data(), nullptr, size.n, size.h,
                  size.w);
  weight_gradient(src.values.data(), grad.values.data(), again.data(), nullptr, size.n, size.h,
                  size.w);
  EXPECT_EQ(first, again);
}

// One pixel; odd sizes (a last tile row and column half outside); more tile columns than one
// group (8 tiles: widths above 16); CIFAR's and Fashion-MNIST's maps.
INSTANTIATE_TEST_SUITE_P(Sizes, Winograd16,
                         testing::Values(Size{1, 1, 1}, Size{2, 3, 5}, Size{3, 4, 4},
                                         Size{2, 7, 19}, Size{1, 20, 17}, Size{2, 32, 32},
                                         Size{2, 28, 28}),
                         [](const testing::TestParamInfo<Size>& info) {
                           return std::to_string(info.param.n) + "x" +
                                  std::to_string(info.param.h) + "x" + std::to_string(info.param.w);
                         });

}  // namespace
}  // namespace runner::onednn::winograd16
