// torchvision's RandAugment(num_ops, magnitude, num_magnitude_bins, NEAREST, fill): num_ops ops
// drawn uniformly (with repetition), each at the fixed magnitude bin, with a random sign where
// the op has one.
#include <fmt/format.h>

#include "runner/data/augmentation.h"
#include "runner/data/autoaugment_ops.h"

namespace runner {
namespace {

class RandAugment : public Augmentation {
 public:
  RandAugment(int num_ops, int magnitude, int bins, std::vector<std::uint8_t> fill)
      : num_ops_(num_ops), magnitude_(magnitude), bins_(bins), fill_(std::move(fill)) {}
  nlohmann::json settings() const override {
    return {{"num_ops", num_ops_},
            {"magnitude", magnitude_},
            {"num_magnitude_bins", bins_},
            {"fill", fill_json(fill_)}};
  }
  void apply(Image& image, DrawStream& draws) const override {
    for (int k = 0; k < num_ops_; ++k) {
      const auto op = static_cast<AutoAugmentOp>(draws.below(kAutoAugmentOps));
      const OpMagnitudes space =
          op_magnitudes(AugmentSpace::rand_augment, op, bins_, image.height, image.width);
      double magnitude = space.values.empty() ? 0.0 : space.values[magnitude_];
      if (space.signed_op && draws.below(2) == 1) magnitude = -magnitude;
      apply_autoaugment_op(image, op, magnitude, fill_);
    }
  }

 private:
  int num_ops_, magnitude_, bins_;
  std::vector<std::uint8_t> fill_;
};

}  // namespace

RUNNER_AUGMENTATION(rand_augment) {
  AugmentationKind kind;
  kind.read = [](const SettingsReader& settings, const AugmentContext& context) {
    require_gray_or_rgb(context, "rand_augment");
    const int num_ops = settings.integer("num_ops", 2);
    if (num_ops < 1 || num_ops > 16) settings.wrong("num_ops", "an integer from 1 to 16");
    const int bins = settings.integer("num_magnitude_bins", 31);
    if (bins < 2 || bins > 1000) settings.wrong("num_magnitude_bins", "an integer from 2 to 1000");
    const int magnitude = settings.integer("magnitude", 9);
    if (magnitude < 0 || magnitude >= bins) {
      settings.wrong("magnitude",
                     fmt::format("a bin from 0 to {} (num_magnitude_bins - 1)", bins - 1));
    }
    return std::shared_ptr<const Augmentation>(
        std::make_shared<RandAugment>(num_ops, magnitude, bins, read_fill(settings, context)));
  };
  return kind;
}

}  // namespace runner
