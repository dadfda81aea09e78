// The augmentation registry: the kinds of dataset.augment's steps (random_crop, color_jitter,
// trivial_augment_wide, ...). A kind is defined in its own file in augmentations/ with
// `RUNNER_AUGMENTATION(name) { ... }`; the build lists those lines (cmake/registry.cmake), as
// for dataset formats and layer kinds. A kind reads its settings from the config and makes an
// Augmentation: what it does to one training image, with draws from that image's own stream.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runner/data/augment_math.h"
#include "runner/data/dataset_spec.h"
#include "runner/data/image_decode.h"
#include "runner/data/settings_reader.h"

namespace runner {

// The random draws of one step on one image: a counter-based stream whose first 64 bits are
// augment_math::draw(seed, epoch, image, step), so the workers, a resumed run and (for crops
// and flips) the GPU's gather kernel all draw the same.
class DrawStream {
 public:
  explicit DrawStream(std::uint64_t first) : next_(first) {}
  std::uint64_t bits();
  double uniform();  // [0, 1)
  double uniform(double low, double high) { return low + (high - low) * uniform(); }
  int below(int n);                                // [0, n)
  bool chance(double p) { return uniform() < p; }  // p = 0 never, 1 always
  double normal();                                 // standard normal

 private:
  std::uint64_t next_;
};

// What a kind knows when it reads its settings: the images it will get (and, for values given
// after normalisation as torchvision's RandomErasing takes them, the normalisation).
struct AugmentContext {
  ImageShape image;
  Normalization normalize;
  SourceLocation step;  // where the step is in the config, for errors about the whole step
};

class Augmentation {
 public:
  virtual ~Augmentation() = default;
  // The settings with every default written out: the resolved config's entry.
  virtual nlohmann::json settings() const = 0;
  // Augments one image in place. Most steps keep its size; one that changes it (resize,
  // center_crop, random_crop of a larger image, random_resized_crop) makes one of output_size.
  virtual void apply(Image& image, DrawStream& draws) const = 0;
  // The size (height, width) of what the step makes from an image of `in`; (0, 0) stands for a
  // size that depends on the image (a photo as decoded, or its resize of the shorter side). The
  // config checks with it that the steps end at the model's input size.
  virtual std::pair<int, int> output_size(std::pair<int, int> in) const { return in; }
  // Crops and flips only move pixels: the step of augment_math they are, which the GPU's
  // gather kernel runs on the device. None: the step runs on the host loader.
  virtual std::optional<augment_math::Step> pixel_move() const { return std::nullopt; }
  // A step made for an image of any size (resize, center_crop, random_resized_crop): as the first
  // step it gets the image as decoded (dataset.decode: per_epoch), as torchvision's transforms
  // get the full photo; other lists get it resized to the model's input first.
  virtual bool takes_any_size() const { return false; }
  // For such a step that resizes the photo first: the least size a JPEG may be decoded at for it
  // (dataset.jpeg_draft, DraftSize); none for a crop, which takes the photo's own pixels.
  virtual DraftSize jpeg_draft() const { return {}; }
};

struct AugmentationKind {
  std::string name;  // set by the registry from the RUNNER_AUGMENTATION name
  // Reads the mapping under the kind's name (absent keys take their defaults); a wrong value is
  // a UserError naming the file, line and field.
  std::shared_ptr<const Augmentation> (*read)(const SettingsReader& settings,
                                              const AugmentContext& context) = nullptr;
};

#define RUNNER_AUGMENTATION(name) AugmentationKind augmentation_kind_##name()

const std::vector<AugmentationKind>& augmentation_kinds();
// A step built from plain JSON settings (in code, or read back from a resolved config); an
// unknown kind is a std::invalid_argument, a wrong setting a UserError naming "augment.<kind>".
AugmentStep make_augment_step(const std::string& kind, const nlohmann::json& settings,
                              const AugmentContext& context);
const AugmentationKind* find_augmentation_kind(const std::string& name);
std::vector<std::string> augmentation_kind_names();

// Reading helpers shared by the kinds: a probability, a range given as one number or a pair,
// and a fill colour (one byte, or one per channel).
double read_probability(const SettingsReader& settings, const std::string& key, double fallback);
// `key` as [low, high] with bounds <= low <= high <= upper, or one number v meaning [centre - v,
// centre + v] (clipped below at `lower`), as torchvision's ColorJitter and RandomRotation.
std::pair<double, double> read_range(const SettingsReader& settings, const std::string& key,
                                     std::pair<double, double> fallback, double centre,
                                     double lower, double upper);
// `value` (the setting under `key`, or part of it) as [low, high], lower <= low <= high <= upper;
// else a UserError saying `expected`.
std::pair<double, double> read_pair(const SettingsReader& settings, const std::string& key,
                                    const nlohmann::json& value, double lower, double upper,
                                    const std::string& expected);
// The setting `key` as [low, high] with 0 < low <= high <= upper (`meaning`: what it is).
std::pair<double, double> read_positive_pair(const SettingsReader& settings, const std::string& key,
                                             std::pair<double, double> fallback, double upper,
                                             const std::string& meaning);
std::vector<std::uint8_t> read_fill(const SettingsReader& settings, const AugmentContext& context);
nlohmann::json fill_json(const std::vector<std::uint8_t>& fill);
// A range as read_range reads it back: 0 when it is `identity` alone (the setting off), else
// [low, high].
nlohmann::json range_json(std::pair<double, double> range, double identity);
// Colour operations take grey or RGB images (as torchvision's on PIL images): a UserError at the
// step otherwise.
void require_gray_or_rgb(const AugmentContext& context, const std::string& kind);

}  // namespace runner
