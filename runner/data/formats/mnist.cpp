// mnist: handwritten digits, the four IDX files (plain or gzipped) under dataset.root.
#include "runner/data/dataset_format.h"
#include "runner/data/idx.h"

namespace runner {
namespace {

const IdxDataset& mnist() {
  static const IdxDataset dataset{"mnist",
                                  {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"},
                                  "https://ossci-datasets.s3.amazonaws.com/mnist/"};
  return dataset;
}

}  // namespace

RUNNER_DATASET_FORMAT(mnist) {
  DatasetFormat format = idx_format_base();
  format.default_root = "data/mnist";
  format.class_names = [](const DatasetSpec&) { return mnist().class_names; };
  format.load = [](const DatasetSpec& spec) { return load_idx(spec.root, mnist(), {28, 28}); };
  return format;
}

}  // namespace runner
