// layer_norm's and group_norm's CPU kernels (norm_kernels.h). Forward: the mean, the variance
// about it, the output; backward: the sums of dy, dy * xhat and, per set, of g = dy * weight and
// g * xhat, then dx. Each is a pass over the rows of a part of an image in memory order: a part
// is what its statistics allow to be done alone. layer_norm's sets are positions, so its parts are
// a few positions each, whose values stay in the L1 cache through the passes; group_norm's sets
// span every position, so its part is the whole image (sums per channel, then per group).
#include "backends/onednn/norm_kernels.h"

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <vector>

#include "backends/common/bf16.h"

namespace runner::onednn {
namespace {

using norm_math::NormSets;

// The per-image functions are compiled for AVX-512, AVX2 and the baseline, picked at load time
// (GCC's function multi-versioning): built for the baseline alone, their loops ran 4 values wide
// and an image took twice as long as oneDNN's batch norm on the same values. What they call is
// inlined into them, so it is compiled for the same instructions.
#define RUNNER_NORM_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#define RUNNER_NORM_INLINE __attribute__((always_inline)) inline
#define RUNNER_NORM_INLINE_LAMBDA __attribute__((always_inline))

// The values of a layer_norm part: 16 KB of FP32, so that x, dy and the sums fit in L1.
constexpr int kPartValues = 4096;

// Positions [first, end) of one image.
struct Part {
  int first = 0, end = 0;
  int size() const { return end - first; }
};

// Visits the part's rows, each `block` values of consecutive channels at one position:
// visit(the row's first channel, its position, its offset in the image).
template <typename Visit>
RUNNER_NORM_INLINE void for_each_row(const NormTensor& t, Part part, Visit visit) {
  const int blocks = t.sets.channels / t.block, positions = t.sets.positions;
  for (int cb = 0; cb < blocks; ++cb)
    for (int p = part.first; p < part.end; ++p)
      visit(cb * t.block, p, (static_cast<std::size_t>(cb) * positions + p) * t.block);
}

// Sums over the channels at each position of a part (layer_norm's sets), in FP32 as oneDNN's and
// PyTorch's norms sum. A row of a channels-last image is a whole position: summed at once.
// Otherwise each row adds into its position's `block` lanes, and a position's lanes are summed
// once at the end: one horizontal sum per position, not per row.
class PositionSums {
 public:
  PositionSums(const NormTensor& t, Part part)
      : first_(part.first),
        block_(t.block),
        whole_rows_(t.block == t.sets.channels),
        totals_(part.size(), 0.f) {
    if (!whole_rows_) lanes_.assign(totals_.size() * block_, 0.f);
  }

  // Adds value(i) for the row's i < block values at position p.
  template <typename Value>
  RUNNER_NORM_INLINE void add_row(int p, Value value) {
    if (whole_rows_) {
      float s = 0;
#pragma omp simd reduction(+ : s)
      for (int i = 0; i < block_; ++i) s += value(i);
      totals_[p - first_] += s;
      return;
    }
    float* lanes = &lanes_[static_cast<std::size_t>(p - first_) * block_];
#pragma omp simd
    for (int i = 0; i < block_; ++i) lanes[i] += value(i);
  }

  // The part's sums, one per position.
  RUNNER_NORM_INLINE const std::vector<float>& totals() {
    if (whole_rows_) return totals_;
    for (std::size_t k = 0; k < totals_.size(); ++k) {
      float s = 0;
      for (int i = 0; i < block_; ++i) s += lanes_[k * block_ + i];
      totals_[k] = s;
    }
    return totals_;
  }

 private:
  int first_, block_;
  bool whole_rows_;
  std::vector<float> totals_, lanes_;
};

// A part's sets and the slots its values' statistics are looked up by: the part's positions
// (layer_norm, kPerPosition), or the channels (group_norm: sums per channel, added per group).
template <bool kPerPosition>
class Slots {
 public:
  Slots(const NormTensor& t, Part part)
      : t_(t), part_(part), count_(kPerPosition ? part.size() : t.sets.channels) {}

  int of(int c, int p) const { return kPerPosition ? p - part_.first : c; }
  // The part's sets, and the image's index of its k-th set.
  int sets() const { return kPerPosition ? part_.size() : t_.sets.groups; }
  int set_index(int k) const { return kPerPosition ? part_.first + k : k; }

  // Sums value(c, p, offset) over the part into its slots.
  template <typename Value>
  RUNNER_NORM_INLINE std::vector<float> sum(Value value) const {
    if constexpr (kPerPosition) {
      PositionSums sums(t_, part_);
      for_each_row(t_, part_, [&](int c0, int p, std::size_t at) RUNNER_NORM_INLINE_LAMBDA {
        sums.add_row(p, [&](int i) RUNNER_NORM_INLINE_LAMBDA { return value(c0 + i, p, at + i); });
      });
      return sums.totals();
    } else {
      std::vector<float> sums(count_, 0.f);
      const int block = t_.block;
      for_each_row(t_, part_, [&](int c0, int p, std::size_t at) RUNNER_NORM_INLINE_LAMBDA {
#pragma omp simd
        for (int i = 0; i < block; ++i) sums[c0 + i] += value(c0 + i, p, at + i);
      });
      return sums;
    }
  }

  // The sum of the part's k-th set from slot sums (in double: a group's channels may be many).
  double of_set(const std::vector<float>& sums, int k) const {
    if constexpr (kPerPosition) return sums[k];
    const int per_group = t_.sets.channels / t_.sets.groups;
    double total = 0;
    for (int c = k * per_group; c < (k + 1) * per_group; ++c) total += sums[c];
    return total;
  }

  // Per slot, the value of its set in the image's `per_set`.
  std::vector<float> spread(const float* per_set) const {
    std::vector<float> per_slot(count_);
    for (int k = 0; k < count_; ++k) {
      per_slot[k] = per_set[kPerPosition ? part_.first + k : t_.sets.of(k, 0)];
    }
    return per_slot;
  }

 private:
  const NormTensor& t_;
  Part part_;
  int count_;
};

template <bool kPerPosition>
std::vector<Part> parts_of(const NormTensor& t) {
  const int positions = t.sets.positions;
  const int step = kPerPosition ? std::max(1, kPartValues / t.sets.channels) : positions;
  std::vector<Part> parts;
  for (int p = 0; p < positions; p += step) parts.push_back({p, std::min(positions, p + step)});
  return parts;
}

template <typename T, bool kPerPosition>
RUNNER_NORM_INLINE void forward_part(const NormTensor& t, Part part, const T* x, T* y,
                                     const float* w, const float* b, float eps, float* mean,
                                     float* inverse_std) {
  const Slots<kPerPosition> slots(t, part);
  const double count = t.sets.size();
  const std::vector<float> sums =
      slots.sum([&](int, int, std::size_t v) RUNNER_NORM_INLINE_LAMBDA { return to_float(x[v]); });
  for (int k = 0; k < slots.sets(); ++k) {
    mean[slots.set_index(k)] = static_cast<float>(slots.of_set(sums, k) / count);
  }
  const std::vector<float> m = slots.spread(mean);
  const std::vector<float> squares =
      slots.sum([&](int c, int p, std::size_t v) RUNNER_NORM_INLINE_LAMBDA {
        const float d = to_float(x[v]) - m[slots.of(c, p)];
        return d * d;
      });
  for (int k = 0; k < slots.sets(); ++k) {
    inverse_std[slots.set_index(k)] = norm_math::inverse_std(slots.of_set(squares, k) / count, eps);
  }
  const std::vector<float> r = slots.spread(inverse_std);
  const int block = t.block;
  for_each_row(t, part, [&](int c0, int p, std::size_t at) RUNNER_NORM_INLINE_LAMBDA {
#pragma omp simd
    for (int i = 0; i < block; ++i) {
      const int k = slots.of(c0 + i, p);
      y[at + i] = from_float<T>(
          norm_math::normalize(to_float(x[at + i]), m[k], r[k], w[c0 + i], b[c0 + i]));
    }
  });
}

template <typename T, bool kPerPosition>
RUNNER_NORM_INLINE void forward_image(const NormTensor& t, const T* x, T* y, const float* w,
                                      const float* b, float eps, float* mean, float* inverse_std) {
  for (Part part : parts_of<kPerPosition>(t)) {
    forward_part<T, kPerPosition>(t, part, x, y, w, b, eps, mean, inverse_std);
  }
}

// Adds the part's terms of the weight and bias gradients (per channel: the sums of dy * xhat and
// of dy) and writes its dx where wanted.
template <typename T, bool kPerPosition>
RUNNER_NORM_INLINE void backward_part(const NormTensor& t, Part part, const T* x, const T* dy,
                                      T* dx, const float* w, const float* mean,
                                      const float* inverse_std, std::vector<float>& sum_dy,
                                      std::vector<float>& sum_dy_xhat) {
  const Slots<kPerPosition> slots(t, part);
  const NormSets& sets = t.sets;
  const std::vector<float> m = slots.spread(mean), r = slots.spread(inverse_std);
  auto xhat = [&](int c, int p, std::size_t v) RUNNER_NORM_INLINE_LAMBDA {
    const int k = slots.of(c, p);
    return (to_float(x[v]) - m[k]) * r[k];
  };
  // layer_norm sums g and g * xhat per position, group_norm from the per-channel sums.
  PositionSums sum_g(t, kPerPosition ? part : Part{}), sum_g_xhat(t, kPerPosition ? part : Part{});
  const int block = t.block;
  for_each_row(t, part, [&](int c0, int p, std::size_t at) RUNNER_NORM_INLINE_LAMBDA {
#pragma omp simd
    for (int i = 0; i < block; ++i) {
      const float g = to_float(dy[at + i]);
      sum_dy[c0 + i] += g;
      sum_dy_xhat[c0 + i] += g * xhat(c0 + i, p, at + i);
    }
    if constexpr (kPerPosition) {
      sum_g.add_row(
          p, [&](int i) RUNNER_NORM_INLINE_LAMBDA { return to_float(dy[at + i]) * w[c0 + i]; });
      sum_g_xhat.add_row(p, [&](int i) RUNNER_NORM_INLINE_LAMBDA {
        return to_float(dy[at + i]) * w[c0 + i] * xhat(c0 + i, p, at + i);
      });
    }
  });
  if (!dx) return;
  // Per set, the means of g and g * xhat.
  std::vector<float> mean_g(slots.sets()), mean_g_xhat(slots.sets());
  const double count = sets.size();
  if constexpr (kPerPosition) {
    const std::vector<float>&g = sum_g.totals(), &g_xhat = sum_g_xhat.totals();
    for (int k = 0; k < slots.sets(); ++k) {
      mean_g[k] = static_cast<float>(g[k] / count);
      mean_g_xhat[k] = static_cast<float>(g_xhat[k] / count);
    }
  } else {
    const int per_group = sets.channels / sets.groups;
    for (int k = 0; k < sets.groups; ++k) {
      double g = 0, g_xhat = 0;
      for (int c = k * per_group; c < (k + 1) * per_group; ++c) {
        g += static_cast<double>(w[c]) * sum_dy[c];
        g_xhat += static_cast<double>(w[c]) * sum_dy_xhat[c];
      }
      mean_g[k] = static_cast<float>(g / count);
      mean_g_xhat[k] = static_cast<float>(g_xhat / count);
    }
  }
  // Spread by slot: the means are the part's (positions) or the image's (groups).
  std::vector<float> a(m.size()), b(m.size());
  for (std::size_t s = 0; s < m.size(); ++s) {
    const int k = kPerPosition ? static_cast<int>(s) : sets.of(static_cast<int>(s), 0);
    a[s] = mean_g[k];
    b[s] = mean_g_xhat[k];
  }
  for_each_row(t, part, [&](int c0, int p, std::size_t at) RUNNER_NORM_INLINE_LAMBDA {
#pragma omp simd
    for (int i = 0; i < block; ++i) {
      const int k = slots.of(c0 + i, p);
      dx[at + i] = from_float<T>(norm_math::input_gradient(
          to_float(dy[at + i]) * w[c0 + i], xhat(c0 + i, p, at + i), r[k], a[k], b[k]));
    }
  });
}

// Writes the image's weight and bias gradient terms, per channel, and its dx where wanted.
template <typename T, bool kPerPosition>
RUNNER_NORM_INLINE void backward_image(const NormTensor& t, const T* x, const T* dy, T* dx,
                                       const float* w, const float* mean, const float* inverse_std,
                                       double* weight_terms, double* bias_terms) {
  std::vector<float> sum_dy(t.sets.channels, 0.f), sum_dy_xhat(t.sets.channels, 0.f);
  for (Part part : parts_of<kPerPosition>(t)) {
    backward_part<T, kPerPosition>(t, part, x, dy, dx, w, mean, inverse_std, sum_dy, sum_dy_xhat);
  }
  for (int c = 0; c < t.sets.channels; ++c) {
    weight_terms[c] = sum_dy_xhat[c];
    bias_terms[c] = sum_dy[c];
  }
}

// The multi-versioned entry points, one per element type (clang's target_clones takes no
// templates).
template <typename T>
RUNNER_NORM_INLINE void forward_any(const NormTensor& t, const T* x, T* y, const float* w,
                                    const float* b, float eps, float* mean, float* inverse_std) {
  if (t.sets.groups) return forward_image<T, false>(t, x, y, w, b, eps, mean, inverse_std);
  forward_image<T, true>(t, x, y, w, b, eps, mean, inverse_std);
}
template <typename T>
RUNNER_NORM_INLINE void backward_any(const NormTensor& t, const T* x, const T* dy, T* dx,
                                     const float* w, const float* mean, const float* inverse_std,
                                     double* weight_terms, double* bias_terms) {
  if (t.sets.groups) {
    return backward_image<T, false>(t, x, dy, dx, w, mean, inverse_std, weight_terms, bias_terms);
  }
  backward_image<T, true>(t, x, dy, dx, w, mean, inverse_std, weight_terms, bias_terms);
}
RUNNER_NORM_CLONES void forward_f32(const NormTensor& t, const float* x, float* y, const float* w,
                                    const float* b, float eps, float* mean, float* inverse_std) {
  forward_any(t, x, y, w, b, eps, mean, inverse_std);
}
RUNNER_NORM_CLONES void forward_bf16(const NormTensor& t, const Bf16* x, Bf16* y, const float* w,
                                     const float* b, float eps, float* mean, float* inverse_std) {
  forward_any(t, x, y, w, b, eps, mean, inverse_std);
}
RUNNER_NORM_CLONES void backward_f32(const NormTensor& t, const float* x, const float* dy,
                                     float* dx, const float* w, const float* mean,
                                     const float* inverse_std, double* weight_terms,
                                     double* bias_terms) {
  backward_any(t, x, dy, dx, w, mean, inverse_std, weight_terms, bias_terms);
}
RUNNER_NORM_CLONES void backward_bf16(const NormTensor& t, const Bf16* x, const Bf16* dy, Bf16* dx,
                                      const float* w, const float* mean, const float* inverse_std,
                                      double* weight_terms, double* bias_terms) {
  backward_any(t, x, dy, dx, w, mean, inverse_std, weight_terms, bias_terms);
}

// The weight and bias when the layer has none: ones and zeros.
struct Affine {
  Affine(const float* weight, const float* bias, int channels) {
    if (!weight) ones.assign(channels, 1.f);
    if (!bias) zeros.assign(channels, 0.f);
    w = weight ? weight : ones.data();
    b = bias ? bias : zeros.data();
  }
  std::vector<float> ones, zeros;
  const float *w, *b;
};

std::size_t image_values(const NormTensor& t) {
  return static_cast<std::size_t>(t.sets.channels) * t.sets.positions;
}

}  // namespace

template <typename T>
void norm_forward(const NormTensor& t, const T* x, T* y, const float* weight, const float* bias,
                  float eps, float* mean, float* inverse_std) {
  const Affine affine(weight, bias, t.sets.channels);
  const std::size_t values = image_values(t);
  const int sets = t.sets.per_image();
#pragma omp parallel for schedule(static)
  for (int n = 0; n < t.images; ++n) {
    const std::size_t at = n * values;
    if constexpr (std::is_same_v<T, Bf16>) {
      forward_bf16(t, x + at, y + at, affine.w, affine.b, eps, mean + n * sets,
                   inverse_std + n * sets);
    } else {
      forward_f32(t, x + at, y + at, affine.w, affine.b, eps, mean + n * sets,
                  inverse_std + n * sets);
    }
  }
}

template <typename T>
void norm_backward(const NormTensor& t, const T* x, const T* dy, T* dx, const float* weight,
                   const float* mean, const float* inverse_std, float* weight_grad,
                   float* bias_grad) {
  const Affine affine(weight, nullptr, t.sets.channels);
  const std::size_t values = image_values(t);
  const int sets = t.sets.per_image(), channels = t.sets.channels;
  // (images, channels): each image's terms, summed below in image order.
  std::vector<double> weight_terms(static_cast<std::size_t>(t.images) * channels);
  std::vector<double> bias_terms(weight_terms.size());
#pragma omp parallel for schedule(static)
  for (int n = 0; n < t.images; ++n) {
    const std::size_t at = n * values;
    T* image_dx = dx ? dx + at : nullptr;
    double *weight_part = &weight_terms[n * channels], *bias_part = &bias_terms[n * channels];
    if constexpr (std::is_same_v<T, Bf16>) {
      backward_bf16(t, x + at, dy + at, image_dx, affine.w, mean + n * sets, inverse_std + n * sets,
                    weight_part, bias_part);
    } else {
      backward_f32(t, x + at, dy + at, image_dx, affine.w, mean + n * sets, inverse_std + n * sets,
                   weight_part, bias_part);
    }
  }
  for (int c = 0; c < channels; ++c) {
    double weight_sum = 0, bias_sum = 0;
    for (int n = 0; n < t.images; ++n) {
      weight_sum += weight_terms[n * channels + c];
      bias_sum += bias_terms[n * channels + c];
    }
    if (weight_grad) weight_grad[c] = static_cast<float>(weight_sum);
    if (bias_grad) bias_grad[c] = static_cast<float>(bias_sum);
  }
}

template void norm_forward<float>(const NormTensor&, const float*, float*, const float*,
                                  const float*, float, float*, float*);
template void norm_forward<Bf16>(const NormTensor&, const Bf16*, Bf16*, const float*, const float*,
                                 float, float*, float*);
template void norm_backward<float>(const NormTensor&, const float*, const float*, float*,
                                   const float*, const float*, const float*, float*, float*);
template void norm_backward<Bf16>(const NormTensor&, const Bf16*, const Bf16*, Bf16*, const float*,
                                  const float*, const float*, float*, float*);

}  // namespace runner::onednn
