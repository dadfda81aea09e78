// torchvision's GaussianBlur(kernel_size, sigma): a sigma drawn uniformly from its range, the
// same on both axes; `p` applies it with that probability (torchvision's RandomApply).
#include <fmt/format.h>

#include "runner/data/augmentation.h"
#include "runner/data/image_blur.h"

namespace runner {
namespace {

class GaussianBlur : public Augmentation {
 public:
  GaussianBlur(int kernel_size, std::pair<double, double> sigma, double p)
      : kernel_size_(kernel_size), sigma_(sigma), p_(p) {}
  nlohmann::json settings() const override {
    return {{"kernel_size", kernel_size_}, {"sigma", {sigma_.first, sigma_.second}}, {"p", p_}};
  }
  void apply(Image& image, DrawStream& draws) const override {
    if (!draws.chance(p_)) return;
    gaussian_blur(image, kernel_size_, draws.uniform(sigma_.first, sigma_.second));
  }

 private:
  int kernel_size_;
  std::pair<double, double> sigma_;
  double p_;
};

}  // namespace

RUNNER_AUGMENTATION(gaussian_blur) {
  AugmentationKind kind;
  kind.read = [](const SettingsReader& settings, const AugmentContext& context) {
    // The kernel is applied as torchvision applies it, in two dimensions (its cost grows with
    // the square of the size): 99 covers a tenth of a 990-pixel image, SimCLR's choice.
    const int smaller_side = std::min(context.image.height, context.image.width);
    const int largest = std::min(2 * smaller_side - 1, 99);
    const std::string expected = fmt::format(
        "an odd integer from 1 to {} (at most 99; the borders are reflected, so half the kernel "
        "must be smaller than the image's smaller side, {})",
        largest, smaller_side);
    if (!settings.has("kernel_size")) settings.wrong("kernel_size", expected);
    const int size = settings.integer("kernel_size", 0);
    if (size < 1 || size % 2 == 0 || size > largest) settings.wrong("kernel_size", expected);
    std::pair<double, double> sigma{0.1, 2.0};
    if (settings.has("sigma")) {
      const nlohmann::json& value = settings.raw("sigma");
      const std::string sigma_expected = "s > 0, or [low, high] with 0 < low <= high";
      if (value.is_number()) {
        sigma = {value.get<double>(), value.get<double>()};
      } else if (value.is_array() && value.size() == 2 && value[0].is_number() &&
                 value[1].is_number()) {
        sigma = {value[0].get<double>(), value[1].get<double>()};
      } else {
        settings.wrong("sigma", sigma_expected);
      }
      if (!(0 < sigma.first && sigma.first <= sigma.second && sigma.second < 1e6)) {
        settings.wrong("sigma", sigma_expected);
      }
    }
    const double p = read_probability(settings, "p", 1.0);
    return std::shared_ptr<const Augmentation>(std::make_shared<GaussianBlur>(size, sigma, p));
  };
  return kind;
}

}  // namespace runner
