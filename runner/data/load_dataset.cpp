// load_dataset: dispatch on the dataset name, download first when asked, apply the limits.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "runner/data/cifar10.h"
#include "runner/data/dataset.h"
#include "runner/data/dataset_geometry.h"
#include "runner/data/download.h"
#include "runner/data/error_location.h"
#include "runner/data/idx.h"
#include "runner/data/synthetic.h"
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

void check_root(const DatasetSpec& spec) {
  if (spec.root.empty()) {
    throw_user_error(at_field("dataset.root"),
                     fmt::format("found nothing, expected the folder of the {} files", spec.name));
  }
}

DatasetSplits load_by_name(const DatasetSpec& spec) {
  if (spec.name == "synthetic") return make_synthetic(spec.synthetic, 0);
  if (spec.name == "cifar10") {
    check_root(spec);
    if (spec.download) download_cifar10(spec);
    return load_cifar10(spec.root);
  }
  if (spec.name == "fashion_mnist" || spec.name == "mnist") {
    check_root(spec);
    const Shape image = dataset_geometry(spec).image;  // what the graph was built for
    return load_idx(spec.root, spec.name, {image.h, image.w});
  }
  const std::vector<std::string> known = {"cifar10", "fashion_mnist", "mnist", "synthetic"};
  std::string hint = fmt::format("known datasets: {}", fmt::join(known, ", "));
  if (auto near = nearest_match(spec.name, known); !near.empty()) {
    hint = fmt::format("did you mean {}? {}", near, hint);
  }
  throw_user_error(at_field("dataset.name"), fmt::format("unknown dataset '{}'", spec.name), hint);
}

}  // namespace

DatasetSplits load_dataset(const DatasetSpec& spec) {
  DatasetSplits splits = load_by_name(spec);
  keep_first(splits.train, spec.train_limit);
  keep_first(splits.test, spec.test_limit);
  return splits;
}

}  // namespace runner
