// How many bytes a dataset will take in memory once loaded, known before loading it: so that
// `runner validate` and the host-memory plan can refuse data larger than the machine, and a
// failed allocation can say what was needed.
#pragma once

#include <cstdint>

#include "runner/data/dataset_spec.h"

namespace runner {

struct DatasetRecords {
  std::int64_t train = 0, test = 0;  // after dataset.train_limit and test_limit
  std::int64_t image_bytes = 0;      // channels x height x width, one byte each
  // Formats of image files: the most memory decoding one image holds (dataset.max_image_bytes),
  // in each decoding worker; 0: the records are read, not decoded.
  std::int64_t decoding_bytes = 0;
  // dataset.decode: per_epoch: the training images are not held; each loader worker decodes one
  // image at a time (decoding_bytes at most) as batches are made.
  bool train_per_epoch = false;
  // The loaded splits' bytes: each record's pixels and its 4-byte label (of a training split
  // decoded per epoch, its labels).
  std::int64_t bytes() const;
};

// The records `spec` will load, as its format plans them (synthetic data from its settings, IDX
// files from their headers, CIFAR files from their sizes, image folders from their listings),
// after the limits. Files that are missing or unreadable count as the official dataset's:
// loading them names the problem. Never throws for the files' sake.
DatasetRecords planned_dataset_records(const DatasetSpec& spec);

// The threads that decode image files: dataset.workers, else every core (decoding comes before
// training, with no compute threads to share the cores with) but no more than a quarter of the
// machine's memory holds at dataset.max_image_bytes each, so that the bound a decompression bomb
// meets never makes a many-core, small-memory machine refuse a run it can do.
int image_decoding_workers(const DatasetSpec& spec);

// The workers that decode at once: image_decoding_workers, at most one per image of a split of
// `records` (the spec's planned records).
std::int64_t planned_decoding_workers(const DatasetSpec& spec, const DatasetRecords& records);

}  // namespace runner
