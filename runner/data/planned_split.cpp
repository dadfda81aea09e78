// The validation split as planned from the listed labels.
#include "runner/data/planned_split.h"

#include <numeric>

#include "runner/data/dataset_format.h"
#include "runner/data/validation_split.h"

namespace runner {

std::optional<std::int64_t> planned_training_images(const DatasetSpec& spec,
                                                    const SourceLocation& where) {
  const DatasetFormat& format = format_of(spec);
  if (spec.validation_split <= 0 || !format.training_labels) return std::nullopt;
  std::vector<std::int32_t> labels = format.training_labels(spec);
  if (spec.train_limit > 0 && static_cast<std::size_t>(spec.train_limit) < labels.size()) {
    labels.resize(static_cast<std::size_t>(spec.train_limit));  // load_dataset's keep_first
  }
  const std::vector<std::string> class_names = format.class_names(spec);
  const std::vector<std::size_t> held = held_out_per_class(
      images_per_class(labels, class_names.size()), class_names, spec.validation_split, where);
  return static_cast<std::int64_t>(labels.size() -
                                   std::accumulate(held.begin(), held.end(), std::size_t{0}));
}

}  // namespace runner
