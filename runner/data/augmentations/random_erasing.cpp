// torchvision's RandomErasing(p, scale, ratio, value): a box of a random share of the area and
// aspect ratio replaced. torchvision erases the normalised tensor, so `value` is given as it
// is there, in normalised units (0: the channel's mean; "random": standard normal noise per
// pixel); the runner erases the 8-bit image before normalising, with the byte nearest to that
// value, (value x std + mean) x 255 rounded and clipped to 0-255.
#include <fmt/format.h>

#include <cmath>

#include "runner/data/augmentation.h"

namespace runner {
namespace {

using Range = std::pair<double, double>;

class RandomErasing : public Augmentation {
 public:
  RandomErasing(double p, Range scale, Range ratio, std::vector<double> value,
                Normalization normalize)
      : p_(p),
        scale_(scale),
        ratio_(ratio),
        value_(std::move(value)),
        normalize_(std::move(normalize)) {}

  nlohmann::json settings() const override {
    nlohmann::json out = {{"p", p_},
                          {"scale", {scale_.first, scale_.second}},
                          {"ratio", {ratio_.first, ratio_.second}}};
    out["value"] = value_.empty()       ? nlohmann::json("random")
                   : value_.size() == 1 ? nlohmann::json(value_[0])
                                        : nlohmann::json(value_);
    return out;
  }

  void apply(Image& image, DrawStream& draws) const override {
    if (!draws.chance(p_)) return;
    const int height = image.height, width = image.width;
    const double area = static_cast<double>(height) * width;
    const double log_low = std::log(ratio_.first), log_high = std::log(ratio_.second);
    for (int attempt = 0; attempt < 10; ++attempt) {
      const double target = area * draws.uniform(scale_.first, scale_.second);
      const double aspect = std::exp(draws.uniform(log_low, log_high));
      const int h = static_cast<int>(std::nearbyint(std::sqrt(target * aspect)));
      const int w = static_cast<int>(std::nearbyint(std::sqrt(target / aspect)));
      if (!(h < height && w < width)) continue;
      const int top = draws.below(height - h + 1), left = draws.below(width - w + 1);
      erase(image, top, left, h, w, draws);
      return;
    }
  }

 private:
  // The byte that normalises to `value` on channel c.
  std::uint8_t byte_of(double value, int c) const {
    const auto pick = [c](const std::vector<float>& v) {
      return v[std::min<std::size_t>(c, v.size() - 1)];
    };
    const double pixel = (value * pick(normalize_.std) + pick(normalize_.mean)) * 255.0;
    return static_cast<std::uint8_t>(std::clamp(std::nearbyint(pixel), 0.0, 255.0));
  }

  void erase(Image& image, int top, int left, int h, int w, DrawStream& draws) const {
    for (int c = 0; c < image.channels; ++c) {
      const std::uint8_t fixed =
          value_.empty() ? 0 : byte_of(value_[std::min<std::size_t>(c, value_.size() - 1)], c);
      std::uint8_t* plane =
          image.pixels.data() + static_cast<std::size_t>(c) * image.height * image.width;
      for (int y = top; y < top + h; ++y) {
        for (int x = left; x < left + w; ++x) {
          plane[y * image.width + x] = value_.empty() ? byte_of(draws.normal(), c) : fixed;
        }
      }
    }
  }

  double p_;
  Range scale_, ratio_;
  std::vector<double> value_;  // empty: random; one: every channel; else one per channel
  Normalization normalize_;
};

std::vector<double> read_value(const SettingsReader& settings, int channels) {
  if (!settings.has("value")) return {0.0};
  const nlohmann::json& value = settings.raw("value");
  const std::string expected = fmt::format(
      "a number (in normalised units: 0 is the channel's mean), a list of {} (one per channel), "
      "or \"random\" (normal noise per pixel)",
      channels);
  if (value == "random") return {};
  if (value.is_number() && std::isfinite(value.get<double>())) return {value.get<double>()};
  if (!value.is_array() || value.size() != static_cast<std::size_t>(channels)) {
    settings.wrong("value", expected);
  }
  std::vector<double> out;
  for (const auto& v : value) {
    if (!v.is_number() || !std::isfinite(v.get<double>())) settings.wrong("value", expected);
    out.push_back(v.get<double>());
  }
  return out;
}

}  // namespace

RUNNER_AUGMENTATION(random_erasing) {
  AugmentationKind kind;
  kind.read = [](const SettingsReader& settings, const AugmentContext& context) {
    const double p = read_probability(settings, "p", 0.5);
    const Range scale = read_positive_pair(settings, "scale", {0.02, 0.33}, 1.0,
                                           "the share of the image's area erased");
    const Range ratio =
        read_positive_pair(settings, "ratio", {0.3, 3.3}, 1e6, "the box's height / width");
    return std::shared_ptr<const Augmentation>(std::make_shared<RandomErasing>(
        p, scale, ratio, read_value(settings, context.image.channels), context.normalize));
  };
  return kind;
}

}  // namespace runner
