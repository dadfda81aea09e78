// The images in each split of a run's data, for the report's `data` block and the console.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "runner/data/dataset.h"

namespace runner {

// {"train_images", "validation_images", "test_images"}: counts, 0 for a split the run lacks.
nlohmann::json split_sizes_json(const DatasetSplits& data);

// "900 training, 100 validation and 128 test images", leaving out a validation split the run
// does not have, and saying so when there is no test set.
std::string split_sizes_text(const DatasetSplits& data);

}  // namespace runner
