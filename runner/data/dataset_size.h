// How many bytes a dataset will take in memory once loaded, known before loading it: so that
// `runner validate` and the host-memory plan can refuse data larger than the machine, and a
// failed allocation can say what was needed.
#pragma once

#include <cstdint>

#include "runner/config/experiment.h"

namespace runner {

struct DatasetRecords {
  std::int64_t train = 0, test = 0;  // after dataset.train_limit and test_limit
  std::int64_t image_bytes = 0;      // channels x height x width, one byte each
  // The loaded splits' bytes: each record's pixels and its 4-byte label.
  std::int64_t bytes() const;
};

// The records `spec` will load: synthetic data from its settings, IDX files from their headers
// (the first 16 bytes, gunzipped when .gz: never the whole file), CIFAR-10 from its files' sizes.
// Files that are missing or unreadable count as the official dataset's (50,000 or 60,000 training
// and 10,000 test images): loading them names the problem. Never throws for the files' sake.
DatasetRecords planned_dataset_records(const DatasetSpec& spec);

}  // namespace runner
