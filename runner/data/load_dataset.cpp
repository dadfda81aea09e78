// load_dataset: the spec's format loads the splits (downloading first when asked), then the
// limits every format shares are applied.
#include <fmt/format.h>

#include "runner/data/dataset.h"
#include "runner/data/dataset_format.h"
#include "runner/data/error_location.h"
#include "runner/util/errors.h"

namespace runner {
namespace {

// Keeps the first `limit` records when limit > 0 and the split holds more.
void keep_first(Dataset& split, std::int64_t limit) {
  if (limit <= 0 || static_cast<std::size_t>(limit) >= split.size()) return;
  split.labels.resize(static_cast<std::size_t>(limit));
  split.images.resize(static_cast<std::size_t>(limit) * split.image_bytes());
  split.labels.shrink_to_fit();
  split.images.shrink_to_fit();
}

}  // namespace

DatasetSplits load_dataset(const DatasetSpec& spec) {
  const DatasetFormat& format = format_of(spec);
  if (format.uses_root && spec.root.empty()) {
    throw_user_error(at_field("dataset.root"),
                     fmt::format("found nothing, expected the folder of the {} files", spec.name));
  }
  if (spec.download && format.download) format.download(spec);
  DatasetSplits splits = format.load(spec);
  keep_first(splits.train, spec.train_limit);
  keep_first(splits.test, spec.test_limit);
  return splits;
}

}  // namespace runner
