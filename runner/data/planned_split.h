// What `runner validate` knows of dataset.validation_split before any image is read: the
// training labels the format lists, split by the rule `run` splits the loaded data by.
#pragma once

#include <cstdint>
#include <optional>

#include "runner/data/dataset_spec.h"
#include "runner/util/errors.h"

namespace runner {

// The training images left after dataset.validation_split, from the format's training_labels
// (dataset.train_limit applied as loading applies it), the split checked by hold_out_validation's
// rule: a UserError at `where` for a split `run` would refuse. nullopt: no split, or a format
// that knows its labels only once it has read its records (CIFAR).
std::optional<std::int64_t> planned_training_images(const DatasetSpec& spec,
                                                    const SourceLocation& where);

}  // namespace runner
