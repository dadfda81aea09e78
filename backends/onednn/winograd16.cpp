// Winograd F(2x2, 3x3) for 16 channels (winograd16.h), after Lavin and Gray, "Fast Algorithms for
// Convolutional Neural Networks" (2016). Output tiles of 2x2 pixels are taken a row of the image
// at a time, in groups of kTiles: their 4x4 input tiles are transformed (V = B^T d B), multiplied
// per tile position by the transformed weights (a 16x16 matrix each: U = G g G^T), and turned
// back into pixels (A^T M A). Each 16-float vector holds the 16 channels of one pixel.
#include "backends/onednn/winograd16.h"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <vector>

#define RUNNER_AVX512 __attribute__((target("avx512f")))
#define RUNNER_AVX512_INLINE __attribute__((target("avx512f"), always_inline)) inline

namespace runner::onednn::winograd16 {
namespace {

constexpr int C = kChannels;
constexpr int kPositions = 16;  // of a 4x4 tile
constexpr int kTiles = 8;       // output tiles per group: their transforms (8 KiB) stay in L1
// A group's transformed tiles: (position, tile, channel).
constexpr int kGroupFloats = kPositions * kTiles * C;

using Vec = __m512;  // the 16 channels of one pixel

struct Image {
  int h = 0, w = 0;
  RUNNER_AVX512_INLINE Vec pixel(const float* data, int y, int x) const {
    if (y < 0 || y >= h || x < 0 || x >= w) return _mm512_setzero_ps();  // padding
    return _mm512_loadu_ps(data + (static_cast<std::int64_t>(y) * w + x) * C);
  }
  std::int64_t floats() const { return static_cast<std::int64_t>(h) * w * C; }
  int tile_rows() const { return (h + 1) / 2; }
  int tile_columns() const { return (w + 1) / 2; }
};

float* at(float* group, int position, int tile) {
  return group + (position * kTiles + tile) * C;
}
const float* at(const float* group, int position, int tile) {
  return group + (position * kTiles + tile) * C;
}

// V = B^T d B of the input tile whose output tile is (ty, tx): pixels 2ty-1 .. 2ty+2 by
// 2tx-1 .. 2tx+2; B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1].
RUNNER_AVX512_INLINE void transform_input(const float* src, const Image& image, int ty, int tx,
                                          float* group, int tile) {
  Vec d[4][4], r[4][4];
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) d[i][j] = image.pixel(src, 2 * ty - 1 + i, 2 * tx - 1 + j);
  }
  for (int j = 0; j < 4; ++j) {
    r[0][j] = _mm512_sub_ps(d[0][j], d[2][j]);
    r[1][j] = _mm512_add_ps(d[1][j], d[2][j]);
    r[2][j] = _mm512_sub_ps(d[2][j], d[1][j]);
    r[3][j] = _mm512_sub_ps(d[1][j], d[3][j]);
  }
  for (int i = 0; i < 4; ++i) {
    _mm512_store_ps(at(group, 4 * i + 0, tile), _mm512_sub_ps(r[i][0], r[i][2]));
    _mm512_store_ps(at(group, 4 * i + 1, tile), _mm512_add_ps(r[i][1], r[i][2]));
    _mm512_store_ps(at(group, 4 * i + 2, tile), _mm512_sub_ps(r[i][2], r[i][1]));
    _mm512_store_ps(at(group, 4 * i + 3, tile), _mm512_sub_ps(r[i][1], r[i][3]));
  }
}

// M[tile][p] = V[p][tile] U[p]: per position, (tiles x 16) times (16 x 16), four tiles at a time
// so that the 16 rows of U[p] are loaded once per four tiles.
RUNNER_AVX512 void multiply(const float* v, const float* u, int tiles, float* m) {
  for (int p = 0; p < kPositions; ++p) {
    Vec w[C];
#pragma GCC unroll 16
    for (int c = 0; c < C; ++c) w[c] = _mm512_loadu_ps(u + (p * C + c) * C);
    int t = 0;
    for (; t + 4 <= tiles; t += 4) {
      Vec a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
      const float *v0 = at(v, p, t), *v1 = at(v, p, t + 1), *v2 = at(v, p, t + 2),
                  *v3 = at(v, p, t + 3);
#pragma GCC unroll 16  // keeps w[] in registers
      for (int c = 0; c < C; ++c) {
        a0 = _mm512_fmadd_ps(_mm512_set1_ps(v0[c]), w[c], a0);
        a1 = _mm512_fmadd_ps(_mm512_set1_ps(v1[c]), w[c], a1);
        a2 = _mm512_fmadd_ps(_mm512_set1_ps(v2[c]), w[c], a2);
        a3 = _mm512_fmadd_ps(_mm512_set1_ps(v3[c]), w[c], a3);
      }
      _mm512_store_ps(m + (t * kPositions + p) * C, a0);
      _mm512_store_ps(m + ((t + 1) * kPositions + p) * C, a1);
      _mm512_store_ps(m + ((t + 2) * kPositions + p) * C, a2);
      _mm512_store_ps(m + ((t + 3) * kPositions + p) * C, a3);
    }
    for (; t < tiles; ++t) {
      Vec a = _mm512_setzero_ps();
      const float* vt = at(v, p, t);
#pragma GCC unroll 16
      for (int c = 0; c < C; ++c) a = _mm512_fmadd_ps(_mm512_set1_ps(vt[c]), w[c], a);
      _mm512_store_ps(m + (t * kPositions + p) * C, a);
    }
  }
}

// Output tile (ty, tx) = A^T M A [+ bias] [ReLU], A^T = [1 1 1 0; 0 1 -1 -1]; pixels outside
// the image (odd sizes) are not written.
RUNNER_AVX512_INLINE void transform_output(const float* m, const float* bias, bool relu,
                                           const Image& image, int ty, int tx, float* dst) {
  Vec s[2][4];
  for (int j = 0; j < 4; ++j) {
    const Vec m0 = _mm512_load_ps(m + j * C), m1 = _mm512_load_ps(m + (4 + j) * C);
    const Vec m2 = _mm512_load_ps(m + (8 + j) * C), m3 = _mm512_load_ps(m + (12 + j) * C);
    s[0][j] = _mm512_add_ps(_mm512_add_ps(m0, m1), m2);
    s[1][j] = _mm512_sub_ps(_mm512_sub_ps(m1, m2), m3);
  }
  const Vec b = bias ? _mm512_loadu_ps(bias) : _mm512_setzero_ps(), zero = _mm512_setzero_ps();
  for (int i = 0; i < 2; ++i) {
    const int y = 2 * ty + i;
    if (y >= image.h) break;
    Vec out[2] = {_mm512_add_ps(_mm512_add_ps(s[i][0], s[i][1]), s[i][2]),
                  _mm512_sub_ps(_mm512_sub_ps(s[i][1], s[i][2]), s[i][3])};
    for (int j = 0; j < 2; ++j) {
      const int x = 2 * tx + j;
      if (x >= image.w) break;
      Vec value = bias ? _mm512_add_ps(out[j], b) : out[j];
      // max(value, 0), as a masked move (GCC 12 warns about _mm512_max_ps's undefined operand)
      if (relu) value = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(value, zero, _CMP_GT_OQ), value);
      _mm512_storeu_ps(dst + (static_cast<std::int64_t>(y) * image.w + x) * C, value);
    }
  }
}

RUNNER_AVX512 void convolve_row(const float* src, const float* u, const float* bias, bool relu,
                                const Image& image, int ty, float* dst, float* v, float* m) {
  for (int tx0 = 0; tx0 < image.tile_columns(); tx0 += kTiles) {
    const int tiles = std::min(kTiles, image.tile_columns() - tx0);
    for (int t = 0; t < tiles; ++t) transform_input(src, image, ty, tx0 + t, v, t);
    multiply(v, u, tiles, m);
    for (int t = 0; t < tiles; ++t) {
      transform_output(m + t * kPositions * C, bias, relu, image, ty, tx0 + t, dst);
    }
  }
}

// dM = A g A^T of the output-gradient tile (ty, tx) (zero outside the image), the adjoint of
// transform_output; adds the tile's pixels to `bias_sum`.
RUNNER_AVX512_INLINE void transform_output_gradient(const float* grad, const Image& image, int ty,
                                                    int tx, float* group, int tile, Vec& bias_sum) {
  Vec g[2][2], r[4][2];
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      g[i][j] = image.pixel(grad, 2 * ty + i, 2 * tx + j);
      bias_sum = _mm512_add_ps(bias_sum, g[i][j]);
    }
  }
  const Vec zero = _mm512_setzero_ps();
  for (int j = 0; j < 2; ++j) {
    r[0][j] = g[0][j];
    r[1][j] = _mm512_add_ps(g[0][j], g[1][j]);
    r[2][j] = _mm512_sub_ps(g[0][j], g[1][j]);
    r[3][j] = _mm512_sub_ps(zero, g[1][j]);
  }
  for (int i = 0; i < 4; ++i) {
    _mm512_store_ps(at(group, 4 * i + 0, tile), r[i][0]);
    _mm512_store_ps(at(group, 4 * i + 1, tile), _mm512_add_ps(r[i][0], r[i][1]));
    _mm512_store_ps(at(group, 4 * i + 2, tile), _mm512_sub_ps(r[i][0], r[i][1]));
    _mm512_store_ps(at(group, 4 * i + 3, tile), _mm512_sub_ps(zero, r[i][1]));
  }
}

// dU[p] += V[p]^T dM[p] over the group's tiles: (16 inputs x tiles) times (tiles x 16 outputs).
RUNNER_AVX512 void accumulate(const float* v, const float* dm, int tiles, float* du) {
  for (int p = 0; p < kPositions; ++p) {
    Vec acc[C];
#pragma GCC unroll 16
    for (int c = 0; c < C; ++c) acc[c] = _mm512_loadu_ps(du + (p * C + c) * C);
    for (int t = 0; t < tiles; ++t) {
      const Vec g = _mm512_load_ps(at(dm, p, t));
      const float* vt = at(v, p, t);
#pragma GCC unroll 16  // keeps acc[] in registers
      for (int c = 0; c < C; ++c) acc[c] = _mm512_fmadd_ps(_mm512_set1_ps(vt[c]), g, acc[c]);
    }
#pragma GCC unroll 16
    for (int c = 0; c < C; ++c) _mm512_storeu_ps(du + (p * C + c) * C, acc[c]);
  }
}

RUNNER_AVX512 void weight_gradient_row(const float* src, const float* grad, const Image& image,
                                       int ty, float* du, Vec& bias_sum, float* v, float* dm) {
  for (int tx0 = 0; tx0 < image.tile_columns(); tx0 += kTiles) {
    const int tiles = std::min(kTiles, image.tile_columns() - tx0);
    for (int t = 0; t < tiles; ++t) {
      transform_input(src, image, ty, tx0 + t, v, t);
      transform_output_gradient(grad, image, ty, tx0 + t, dm, t, bias_sum);
    }
    accumulate(v, dm, tiles, du);
  }
}

// The 4x4 G g G^T of a 3x3 g, G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1].
void transform_kernel(const float g[3][3], float out[4][4]) {
  float t[4][3];
  for (int k = 0; k < 3; ++k) {
    t[0][k] = g[0][k];
    t[1][k] = 0.5f * (g[0][k] + g[1][k] + g[2][k]);
    t[2][k] = 0.5f * (g[0][k] - g[1][k] + g[2][k]);
    t[3][k] = g[2][k];
  }
  for (int a = 0; a < 4; ++a) {
    out[a][0] = t[a][0];
    out[a][1] = 0.5f * (t[a][0] + t[a][1] + t[a][2]);
    out[a][2] = 0.5f * (t[a][0] - t[a][1] + t[a][2]);
    out[a][3] = t[a][2];
  }
}

// The 3x3 G^T d G of a 4x4 d: the adjoint of transform_kernel.
void untransform_kernel(const double d[4][4], float g[3][3]) {
  double t[3][4];  // G^T d
  for (int j = 0; j < 4; ++j) {
    t[0][j] = d[0][j] + 0.5 * (d[1][j] + d[2][j]);
    t[1][j] = 0.5 * (d[1][j] - d[2][j]);
    t[2][j] = 0.5 * (d[1][j] + d[2][j]) + d[3][j];
  }
  for (int a = 0; a < 3; ++a) {
    g[a][0] = static_cast<float>(t[a][0] + 0.5 * (t[a][1] + t[a][2]));
    g[a][1] = static_cast<float>(0.5 * (t[a][1] - t[a][2]));
    g[a][2] = static_cast<float>(0.5 * (t[a][1] + t[a][2]) + t[a][3]);
  }
}

RUNNER_AVX512 void convolve_images(const float* src, const float* transformed, const float* bias,
                                   bool relu, float* dst, std::int64_t n, int h, int w) {
  const Image image{h, w};
  const std::int64_t rows = n * image.tile_rows();
#pragma omp parallel
  {
    alignas(64) float v[kGroupFloats];
    alignas(64) float m[kGroupFloats];
#pragma omp for schedule(static)
    for (std::int64_t row = 0; row < rows; ++row) {
      const std::int64_t offset = row / image.tile_rows() * image.floats();
      convolve_row(src + offset, transformed, bias, relu, image,
                   static_cast<int>(row % image.tile_rows()), dst + offset, v, m);
    }
  }
}

// One thread's share of the rows (an orphaned `omp for`): its dU sums into `partial`, its bias
// gradient after them. A function of its own because clang outlines a parallel region without
// the AVX-512 target of the function around it (GCC keeps it), and refuses AVX-512 code there.
RUNNER_AVX512 void weight_gradient_share(const float* src, const float* dst_grad,
                                         const Image& image, std::int64_t rows, float* partial) {
  alignas(64) float v[kGroupFloats];
  alignas(64) float dm[kGroupFloats];
  Vec bias_sum = _mm512_setzero_ps();
#pragma omp for schedule(static)
  for (std::int64_t row = 0; row < rows; ++row) {
    const std::int64_t offset = row / image.tile_rows() * image.floats();
    weight_gradient_row(src + offset, dst_grad + offset, image,
                        static_cast<int>(row % image.tile_rows()), partial, bias_sum, v, dm);
  }
  _mm512_storeu_ps(partial + kTransformedFloats, bias_sum);
}

RUNNER_AVX512 void weight_gradient_images(const float* src, const float* dst_grad,
                                          float* weight_grad, float* bias_grad, std::int64_t n,
                                          int h, int w) {
  const Image image{h, w};
  const std::int64_t rows = n * image.tile_rows();
  constexpr int kPartial = kTransformedFloats + C;  // dU, then the bias gradient
  const int threads = omp_get_max_threads();
  std::vector<float> partials(static_cast<std::size_t>(threads) * kPartial, 0.f);
#pragma omp parallel num_threads(threads)
  weight_gradient_share(
      src, dst_grad, image, rows,
      partials.data() + static_cast<std::size_t>(omp_get_thread_num()) * kPartial);
  // The threads' sums in thread order (the same order every step), then back to 3x3 kernels.
  std::vector<double> total(kPartial, 0.0);
  for (int t = 0; t < threads; ++t) {
    for (int k = 0; k < kPartial; ++k)
      total[k] += partials[static_cast<std::size_t>(t) * kPartial + k];
  }
  for (int o = 0; o < C; ++o) {
    for (int i = 0; i < C; ++i) {
      double d[4][4];
      for (int p = 0; p < kPositions; ++p) d[p / 4][p % 4] = total[(p * C + i) * C + o];
      float g[3][3];
      untransform_kernel(d, g);
      for (int k = 0; k < 9; ++k) weight_grad[(o * C + i) * 9 + k] = g[k / 3][k % 3];
    }
  }
  if (bias_grad) {
    for (int o = 0; o < C; ++o) bias_grad[o] = static_cast<float>(total[kTransformedFloats + o]);
  }
}

bool cpu_has_avx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f");
}

}  // namespace

bool available() {
  static const bool yes = cpu_has_avx512();
  return yes;
}

void transform_weights(const float* weight, bool data_gradient, float* transformed) {
  for (int o = 0; o < C; ++o) {
    for (int i = 0; i < C; ++i) {
      const float* w = weight + (o * C + i) * 9;  // (kh, kw)
      float g[3][3], u[4][4];
      for (int ky = 0; ky < 3; ++ky) {
        for (int kx = 0; kx < 3; ++kx) {
          g[ky][kx] = data_gradient ? w[(2 - ky) * 3 + (2 - kx)] : w[ky * 3 + kx];
        }
      }
      transform_kernel(g, u);
      // The data gradient reads the output gradient's channels o and writes the input's i.
      const int in = data_gradient ? o : i, out = data_gradient ? i : o;
      for (int p = 0; p < kPositions; ++p) transformed[(p * C + in) * C + out] = u[p / 4][p % 4];
    }
  }
}

// The kernels carry the AVX-512 target themselves (so do the OpenMP regions in them); these
// entry points are plain functions.
void convolve(const float* src, const float* transformed, const float* bias, bool relu, float* dst,
              std::int64_t n, int h, int w) {
  convolve_images(src, transformed, bias, relu, dst, n, h, w);
}

void weight_gradient(const float* src, const float* dst_grad, float* weight_grad, float* bias_grad,
                     std::int64_t n, int h, int w) {
  weight_gradient_images(src, dst_grad, weight_grad, bias_grad, n, h, w);
}

}  // namespace runner::onednn::winograd16
