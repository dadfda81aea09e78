// torchvision's ColorJitter(brightness, contrast, saturation, hue) on PIL images: the four
// adjustments in a random order, each with a factor drawn uniformly from its range; `p` applies
// the whole step with that probability (torchvision's RandomApply, as SimCLR-style recipes use).
#include <array>

#include "runner/data/augmentation.h"
#include "runner/data/image_color.h"

namespace runner {
namespace {

using Range = std::pair<double, double>;

class ColorJitter : public Augmentation {
 public:
  ColorJitter(std::array<Range, 4> ranges, double p) : ranges_(ranges), p_(p) {}

  nlohmann::json settings() const override {
    nlohmann::json out;
    for (int k = 0; k < 4; ++k) out[kNames[k]] = range_json(ranges_[k], identity(k));
    out["p"] = p_;
    return out;
  }

  void apply(Image& image, DrawStream& draws) const override {
    if (!draws.chance(p_)) return;
    std::array<int, 4> order = {0, 1, 2, 3};
    for (int k = 3; k > 0; --k) std::swap(order[k], order[draws.below(k + 1)]);
    std::array<double, 4> factors{};
    for (int k = 0; k < 4; ++k) {
      if (active(k)) factors[k] = draws.uniform(ranges_[k].first, ranges_[k].second);
    }
    for (int k : order) {
      if (!active(k)) continue;
      const auto factor = static_cast<float>(factors[k]);
      switch (k) {
        case 0:
          adjust_brightness(image, factor);
          break;
        case 1:
          adjust_contrast(image, factor);
          break;
        case 2:
          adjust_saturation(image, factor);
          break;
        default:
          adjust_hue(image, factors[k]);
          break;
      }
    }
  }

 private:
  static constexpr const char* kNames[4] = {"brightness", "contrast", "saturation", "hue"};
  // The factor that changes nothing (the hue's is a shift of 0); torchvision leaves out an
  // adjustment whose range is its identity alone.
  static double identity(int k) { return k == 3 ? 0.0 : 1.0; }
  bool active(int k) const {
    return !(ranges_[k].first == identity(k) && ranges_[k].second == identity(k));
  }

  std::array<Range, 4> ranges_;
  double p_;
};

}  // namespace

RUNNER_AUGMENTATION(color_jitter) {
  AugmentationKind kind;
  kind.read = [](const SettingsReader& settings, const AugmentContext& context) {
    require_gray_or_rgb(context, "color_jitter");
    std::array<Range, 4> ranges;
    // A factor v means [max(0, 1 - v), 1 + v]; a hue v in [0, 0.5] means [-v, v].
    ranges[0] = read_range(settings, "brightness", {1, 1}, 1, 0, 1e6);
    ranges[1] = read_range(settings, "contrast", {1, 1}, 1, 0, 1e6);
    ranges[2] = read_range(settings, "saturation", {1, 1}, 1, 0, 1e6);
    ranges[3] = read_range(settings, "hue", {0, 0}, 0, -0.5, 0.5);
    const double p = read_probability(settings, "p", 1.0);
    return std::shared_ptr<const Augmentation>(std::make_shared<ColorJitter>(ranges, p));
  };
  return kind;
}

}  // namespace runner
