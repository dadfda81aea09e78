// torchvision's RandomRotation(degrees, NEAREST, expand=False, fill) on PIL images: an angle
// drawn uniformly, the image turned about its centre (Pillow's Image.rotate), `fill` where the
// turned image leaves the frame.
#include "runner/data/augmentation.h"
#include "runner/data/image_geometry.h"

namespace runner {
namespace {

class RandomRotation : public Augmentation {
 public:
  RandomRotation(std::pair<double, double> degrees, std::vector<std::uint8_t> fill)
      : degrees_(degrees), fill_(std::move(fill)) {}
  nlohmann::json settings() const override {
    return {{"degrees", range_json(degrees_, 0)}, {"fill", fill_json(fill_)}};
  }
  void apply(Image& image, DrawStream& draws) const override {
    rotate_nearest(image, draws.uniform(degrees_.first, degrees_.second), fill_);
  }

 private:
  std::pair<double, double> degrees_;
  std::vector<std::uint8_t> fill_;
};

}  // namespace

RUNNER_AUGMENTATION(random_rotation) {
  AugmentationKind kind;
  kind.read = [](const SettingsReader& settings, const AugmentContext& context) {
    if (!settings.has("degrees")) {
      settings.wrong("degrees", "the angles to draw from: d (from -d to d) or [low, high]");
    }
    const auto degrees = read_range(settings, "degrees", {0, 0}, 0, -360, 360);
    return std::shared_ptr<const Augmentation>(
        std::make_shared<RandomRotation>(degrees, read_fill(settings, context)));
  };
  return kind;
}

}  // namespace runner
