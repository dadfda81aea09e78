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

Dataset make_split(const SyntheticSpec& spec, const std::vector<std::uint8_t>& prototypes,
                   int count, std::uint64_t seed) {
  Dataset split;
  split.name = "synthetic";
  split.source = "dataset.synthetic";
  split.channels = spec.channels;
  split.height = spec.height;
  split.width = spec.width;
  split.class_names = synthetic_class_names(spec.classes);
  const std::size_t image_bytes = split.image_bytes();
  split.labels.resize(count);
  split.images.resize(count * image_bytes);
  Random random(seed);
  for (int i = 0; i < count; ++i) {
    const auto label = static_cast<std::int32_t>(random.below(spec.classes));
    split.labels[i] = label;
    const std::uint8_t* prototype = prototypes.data() + label * image_bytes;
    std::uint8_t* image = split.images.data() + i * image_bytes;
    for (std::size_t p = 0; p < image_bytes; ++p) {
      const int noise = static_cast<int>(random.below(2 * kSyntheticNoise + 1)) - kSyntheticNoise;
      image[p] = static_cast<std::uint8_t>(std::clamp(prototype[p] + noise, 0, 255));
    }
  }
  return split;
}

}  // namespace

std::vector<std::string> synthetic_class_names(int classes) {
  std::vector<std::string> names;
  for (int c = 0; c < classes; ++c) names.push_back(fmt::format("class{}", c));
  return names;
}

DatasetSplits make_synthetic(const SyntheticSpec& spec, std::uint64_t seed) {
  check_spec(spec);
  const std::size_t image_bytes =
      static_cast<std::size_t>(spec.channels) * spec.height * spec.width;
  std::vector<std::uint8_t> prototypes(spec.classes * image_bytes);  // (classes, C, H, W)
  Random random(derive_seed(seed, kPrototypes));
  for (auto& pixel : prototypes) pixel = static_cast<std::uint8_t>(random.below(256));
  return {make_split(spec, prototypes, spec.train_count, derive_seed(seed, kTrain)),
          make_split(spec, prototypes, spec.test_count, derive_seed(seed, kTest)),
          {}};
}

}  // namespace runner
