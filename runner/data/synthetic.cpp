// Synthetic data: class prototypes plus bounded noise, from runner::Random streams.
#include "runner/data/synthetic.h"

#include <fmt/format.h>

#include <algorithm>

#include "runner/data/error_location.h"
#include "runner/util/errors.h"
#include "runner/util/random.h"

namespace runner {
namespace {

// Random streams derived from the seed, one per purpose, so splits do not share numbers.
enum Stream : std::uint64_t { kPrototypes = 1, kTrain = 2, kTest = 3 };

void check_spec(const SyntheticSpec& spec) {
  auto check = [](const char* field, int value, int low) {
    if (value < low) {
      throw_user_error(at_field(std::string("dataset.synthetic.") + field),
                       fmt::format("found {}, expected at least {}", value, low));
    }
  };
  check("channels", spec.channels, 1);
  check("height", spec.height, 1);
  check("width", spec.width, 1);
  check("classes", spec.classes, 1);
  check("train_count", spec.train_count, 0);
  check("test_count", spec.test_count, 0);
}

// The labels of `count` images from the stream `seed` and, when `images` is not null, their
// pixels: each its class's prototype plus noise. The noise is drawn either way, so the labels are
// the same with pixels and without.
std::vector<std::int32_t> draw_images(const SyntheticSpec& spec, const std::uint8_t* prototypes,
                                      int count, std::uint64_t seed, std::uint8_t* images) {
  const std::size_t image_bytes =
      static_cast<std::size_t>(spec.channels) * spec.height * spec.width;
  std::vector<std::int32_t> labels(static_cast<std::size_t>(count));
  Random random(seed);
  for (int i = 0; i < count; ++i) {
    const auto label = static_cast<std::int32_t>(random.below(spec.classes));
    labels[i] = label;
    const std::uint8_t* prototype = prototypes ? prototypes + label * image_bytes : nullptr;
    std::uint8_t* image = images ? images + i * image_bytes : nullptr;
    for (std::size_t p = 0; p < image_bytes; ++p) {
      const int noise = static_cast<int>(random.below(2 * kSyntheticNoise + 1)) - kSyntheticNoise;
      if (image) image[p] = static_cast<std::uint8_t>(std::clamp(prototype[p] + noise, 0, 255));
    }
  }
  return labels;
}

Dataset make_split(const SyntheticSpec& spec, const std::vector<std::uint8_t>& prototypes,
                   int count, std::uint64_t seed, const char* count_field) {
  Dataset split;
  split.name = "synthetic";
  split.source = "dataset.synthetic";
  split.setting = std::string("dataset.synthetic.") + count_field;
  split.channels = spec.channels;
  split.height = spec.height;
  split.width = spec.width;
  split.class_names = synthetic_class_names(spec.classes);
  split.images.resize(count * split.image_bytes());
  split.labels = draw_images(spec, prototypes.data(), count, seed, split.images.data());
  return split;
}

}  // namespace

std::vector<std::string> synthetic_class_names(int classes) {
  std::vector<std::string> names;
  for (int c = 0; c < classes; ++c) names.push_back(fmt::format("class{}", c));
  return names;
}

std::vector<std::int32_t> synthetic_train_labels(const SyntheticSpec& spec, std::uint64_t seed) {
  check_spec(spec);
  return draw_images(spec, nullptr, spec.train_count, derive_seed(seed, kTrain), nullptr);
}

DatasetSplits make_synthetic(const SyntheticSpec& spec, std::uint64_t seed) {
  check_spec(spec);
  const std::size_t image_bytes =
      static_cast<std::size_t>(spec.channels) * spec.height * spec.width;
  std::vector<std::uint8_t> prototypes(spec.classes * image_bytes);  // (classes, C, H, W)
  Random random(derive_seed(seed, kPrototypes));
  for (auto& pixel : prototypes) pixel = static_cast<std::uint8_t>(random.below(256));
  return {make_split(spec, prototypes, spec.train_count, derive_seed(seed, kTrain), "train_count"),
          make_split(spec, prototypes, spec.test_count, derive_seed(seed, kTest), "test_count"),
          {}};
}

}  // namespace runner
