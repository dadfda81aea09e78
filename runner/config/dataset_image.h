// The image shape each dataset kind has, known from the config alone (before any file is read).
// Inline: the config resolver and the data loader (which does not link the config) both use it.
#pragma once

#include <optional>

#include "runner/config/experiment.h"

namespace runner {

struct ImageShape {
  int channels = 0, height = 0, width = 0;
};

// nullopt for a dataset name the runner does not know.
inline std::optional<ImageShape> dataset_image(const DatasetSpec& spec) {
  if (spec.name == "cifar10") return ImageShape{3, 32, 32};
  if (spec.name == "mnist" || spec.name == "fashion_mnist") return ImageShape{1, 28, 28};
  if (spec.name == "synthetic") {
    const SyntheticSpec& s = spec.synthetic;
    return ImageShape{s.channels, s.height, s.width};
  }
  return std::nullopt;
}

}  // namespace runner
