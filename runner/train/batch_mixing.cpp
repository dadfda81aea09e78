// Mixup and cutmix draws per step.
#include "runner/train/batch_mixing.h"

#include <algorithm>
#include <cmath>

#include "runner/data/augmentation.h"

namespace runner {
namespace {

// Keeps the mixing draws apart from the augmentation's, which hash the same seed.
constexpr std::uint64_t kMixingSalt = 0x6D69787570ull;  // "mixup"

// Gamma(shape, 1): Marsaglia and Tsang (2000); below shape 1 through Gamma(shape + 1) U^(1/shape).
double gamma_draw(double shape, DrawStream& draws) {
  if (shape < 1) {
    const double boost = std::pow(draws.uniform(), 1.0 / shape);
    return gamma_draw(shape + 1, draws) * boost;
  }
  const double d = shape - 1.0 / 3, c = 1 / std::sqrt(9 * d);
  for (;;) {
    double x = 0, v = 0;
    do {
      x = draws.normal();
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const double u = draws.uniform();
    if (u < 1 - 0.0331 * x * x * x * x) return d * v;
    if (u > 0 && std::log(u) < 0.5 * x * x + d * (1 - v + std::log(v))) return d * v;
  }
}

// timm's rand_bbox: a box of sides int(side x sqrt(1 - lam)) centred on a uniform pixel, clipped
// to the image; lam becomes the share of the image left uncovered (correct_lam).
batch_mix::BatchMix cut_box(float lam, int height, int width, DrawStream& draws) {
  const double ratio = std::sqrt(1.0 - lam);
  const int cut_h = static_cast<int>(height * ratio), cut_w = static_cast<int>(width * ratio);
  const int cy = draws.below(height), cx = draws.below(width);
  batch_mix::BatchMix mix;
  mix.cut = 1;
  mix.top = std::clamp(cy - cut_h / 2, 0, height);
  mix.bottom = std::clamp(cy + cut_h / 2, 0, height);
  mix.left = std::clamp(cx - cut_w / 2, 0, width);
  mix.right = std::clamp(cx + cut_w / 2, 0, width);
  const double area = static_cast<double>(mix.bottom - mix.top) * (mix.right - mix.left);
  mix.lam = static_cast<float>(1.0 - area / (static_cast<double>(height) * width));
  return mix;
}

}  // namespace

double symmetric_beta(double alpha, DrawStream& draws) {
  const double x = gamma_draw(alpha, draws), y = gamma_draw(alpha, draws);
  // Both can underflow to 0 for a tiny alpha: either image then, alike.
  return x + y > 0 ? x / (x + y) : (draws.chance(0.5) ? 1.0 : 0.0);
}

BatchMixer::BatchMixer(const MixingSpec& spec, std::uint64_t seed, int height, int width)
    : spec_(spec), seed_(seed), height_(height), width_(width) {}

batch_mix::BatchMix BatchMixer::choose(std::int64_t step) const {
  if (!spec_.enabled()) return {};
  DrawStream draws(augment_math::draw(seed_ ^ kMixingSalt, step, 0, 0));
  if (!draws.chance(spec_.prob)) return {};
  bool cut = spec_.mixup_alpha <= 0;
  if (spec_.mixup_alpha > 0 && spec_.cutmix_alpha > 0) cut = draws.chance(spec_.switch_prob);
  const float lam =
      static_cast<float>(symmetric_beta(cut ? spec_.cutmix_alpha : spec_.mixup_alpha, draws));
  if (!cut) return {lam};
  return cut_box(lam, height_, width_, draws);
}

}  // namespace runner
