// Deterministic, learnable synthetic images: each class has a fixed random prototype image and
// every sample is its class prototype plus bounded noise, so a short training run can learn.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runner/data/dataset.h"

namespace runner {

// Noise added to each pixel of a prototype, uniform in [-kSyntheticNoise, kSyntheticNoise].
inline constexpr int kSyntheticNoise = 48;

// "class0", "class1", ...: the names of `classes` synthetic classes.
std::vector<std::string> synthetic_class_names(int classes);

// Both splits for `spec`; the same spec and seed give the same bytes on every platform.
// Prototypes are shared by the splits; labels are uniform over the classes.
DatasetSplits make_synthetic(const SyntheticSpec& spec, std::uint64_t seed = 0);

// The training labels make_synthetic(spec, seed) gives, drawn without its images.
std::vector<std::int32_t> synthetic_train_labels(const SyntheticSpec& spec, std::uint64_t seed = 0);

}  // namespace runner
