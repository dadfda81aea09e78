// Where training batches come from. When the program holds the training set on its device
// (Program::hold_training_set), a batch is only its rows in the epoch's order and the device
// gathers the images; otherwise a BatchLoader gathers them on the host. Both give the same
// batches in the same order, augmented alike (dataset.augment, runner/data/augment_math.h), so a
// run's numbers do not depend on which one fed it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "runner/config/experiment.h"
#include "runner/data/batch_loader.h"
#include "runner/data/dataset.h"
#include "runner/data/loader_threads.h"

namespace runner {

class TrainingFeed {
 public:
  // Offers `data` to the program; `data` must outlive the feed.
  TrainingFeed(const Dataset& data, Program& program, const Experiment& experiment);

  bool on_device() const { return !loader_; }
  int batches_per_epoch() const { return batches_per_epoch_; }
  void start_epoch(int epoch);
  // The epoch's next batch, valid until the next call; false at the epoch's end.
  bool next(TrainBatch& batch);
  // Time spent waiting for the host loader (0 on the device: there is nothing to wait for).
  double waited_seconds() const;
  // The host loader's augmentation rate per thread; 0 without one.
  double augment_images_per_second() const;
  // The host loader's background threads (0 on the device, or gathering inline).
  int loader_workers() const { return workers_.count; }
  // Where batches come from, for the run's "data:" line: held on the device, or the loader's
  // threads and why (loader_threads.h).
  const std::string& description() const { return description_; }

 private:
  const Dataset& data_;
  const int batch_size_;
  const bool shuffle_;
  const std::uint64_t seed_;
  int batches_per_epoch_ = 0;
  std::unique_ptr<BatchLoader> loader_;  // null when the program holds the set
  LoaderWorkers workers_;
  std::string description_;
  std::vector<std::uint32_t> order_;  // the epoch's order, on the device only
  std::int64_t next_batch_ = 0;
  int epoch_ = 0;
  bool started_ = false;
};

}  // namespace runner
