// torchvision's RandomAffine(degrees, translate, scale, shear, NEAREST, fill) on PIL images:
// rotation, translation (a share of each side, rounded to whole pixels), scale and shear drawn
// as its get_params draws them, one affine map about the centre, nearest-neighbour sampling.
#include <fmt/format.h>

#include <cmath>

#include "runner/data/augmentation.h"
#include "runner/data/image_geometry.h"

namespace runner {
namespace {

using Range = std::pair<double, double>;

struct AffineRanges {
  Range degrees{0, 0};
  std::optional<std::pair<double, double>> translate;  // the largest shares of width, height
  std::optional<Range> scale;
  std::optional<Range> shear_x, shear_y;
};

class RandomAffine : public Augmentation {
 public:
  RandomAffine(AffineRanges ranges, std::vector<std::uint8_t> fill)
      : r_(ranges), fill_(std::move(fill)) {}

  nlohmann::json settings() const override {
    nlohmann::json out = {{"degrees", range_json(r_.degrees, 0)}};
    if (r_.translate) out["translate"] = {r_.translate->first, r_.translate->second};
    if (r_.scale) out["scale"] = {r_.scale->first, r_.scale->second};
    if (r_.shear_x) {
      out["shear"] = {r_.shear_x->first, r_.shear_x->second};
      if (r_.shear_y)
        out["shear"].insert(out["shear"].end(), {r_.shear_y->first, r_.shear_y->second});
    }
    out["fill"] = fill_json(fill_);
    return out;
  }

  void apply(Image& image, DrawStream& draws) const override {
    const double angle = draws.uniform(r_.degrees.first, r_.degrees.second);
    double tx = 0, ty = 0;
    if (r_.translate) {
      const double dx = r_.translate->first * image.width, dy = r_.translate->second * image.height;
      tx = std::nearbyint(draws.uniform(-dx, dx));
      ty = std::nearbyint(draws.uniform(-dy, dy));
    }
    const double scale = r_.scale ? draws.uniform(r_.scale->first, r_.scale->second) : 1.0;
    const double shear_x = r_.shear_x ? draws.uniform(r_.shear_x->first, r_.shear_x->second) : 0;
    const double shear_y = r_.shear_y ? draws.uniform(r_.shear_y->first, r_.shear_y->second) : 0;
    transform_nearest(image,
                      torchvision_affine(image.width * 0.5, image.height * 0.5, angle, tx, ty,
                                         scale, shear_x, shear_y),
                      fill_);
  }

 private:
  AffineRanges r_;
  std::vector<std::uint8_t> fill_;
};

// shear: s (x from -s to s), [low, high] (x), or [x low, x high, y low, y high], in degrees.
void read_shear(const SettingsReader& settings, AffineRanges& r) {
  if (!settings.has("shear")) return;
  const nlohmann::json& value = settings.raw("shear");
  const std::string expected =
      "s (an x shear from -s to s degrees), [low, high] (x) or [x low, x high, y low, y high], "
      "within -89 to 89 degrees";
  if (value.is_array() && value.size() == 4) {
    r.shear_x = read_pair(settings, "shear", {value[0], value[1]}, -89, 89, expected);
    r.shear_y = read_pair(settings, "shear", {value[2], value[3]}, -89, 89, expected);
  } else if (value.is_array()) {
    r.shear_x = read_pair(settings, "shear", value, -89, 89, expected);
  } else {
    r.shear_x = read_range(settings, "shear", {0, 0}, 0, -89, 89);
  }
}

}  // namespace

RUNNER_AUGMENTATION(random_affine) {
  AugmentationKind kind;
  kind.read = [](const SettingsReader& settings, const AugmentContext& context) {
    AffineRanges r;
    r.degrees = read_range(settings, "degrees", {0, 0}, 0, -360, 360);
    if (settings.has("translate")) {
      r.translate = read_pair(settings, "translate", settings.raw("translate"), 0, 1,
                              "[a, b]: the largest shift, a share of the width and of the height "
                              "(each from 0 to 1)");
    }
    if (settings.has("scale")) {
      r.scale = read_pair(settings, "scale", settings.raw("scale"), 1e-3, 1e3,
                          "[low, high]: the scale factors to draw from (0.001 to 1000)");
    }
    read_shear(settings, r);
    return std::shared_ptr<const Augmentation>(
        std::make_shared<RandomAffine>(r, read_fill(settings, context)));
  };
  return kind;
}

}  // namespace runner
