// torchvision's RandomGrayscale(p): with probability p every channel becomes the pixel's luma
// (Pillow's convert('L')); a one-channel image is already grey.
#include "runner/data/augmentation.h"
#include "runner/data/image_color.h"

namespace runner {
namespace {

class RandomGrayscale : public Augmentation {
 public:
  explicit RandomGrayscale(double p) : p_(p) {}
  nlohmann::json settings() const override { return {{"p", p_}}; }
  void apply(Image& image, DrawStream& draws) const override {
    if (draws.chance(p_)) to_grayscale(image);
  }

 private:
  double p_;
};

}  // namespace

RUNNER_AUGMENTATION(random_grayscale) {
  AugmentationKind kind;
  kind.read = [](const SettingsReader& settings, const AugmentContext& context) {
    require_gray_or_rgb(context, "random_grayscale");
    return std::shared_ptr<const Augmentation>(
        std::make_shared<RandomGrayscale>(read_probability(settings, "p", 0.1)));
  };
  return kind;
}

}  // namespace runner
