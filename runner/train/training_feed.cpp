// The training feed: rows of a held training set, or host batches from a BatchLoader.
#include "runner/train/training_feed.h"

#include "runner/data/augment.h"
#include "runner/util/random.h"
#include "runner/util/threads.h"

namespace runner {

TrainingFeed::TrainingFeed(const Dataset& data, Program& program, const Experiment& experiment)
    : data_(data),
      batch_size_(experiment.training.batch_size),
      shuffle_(experiment.dataset.shuffle),
      seed_(derive_seed(experiment.seed, 1)) {
  // Its own stream of the run's seed (1 is the shuffle's).
  const ImageAugmenter augmenter(experiment.dataset.augment, derive_seed(experiment.seed, 2));
  const bool balanced = experiment.dataset.balanced_sampler;
  // The balanced sampler's draws, and steps that change pixel values, are made on the host, by
  // the loader; crops and flips the device gathers itself.
  // A split decoded per epoch has no pixels to hold: its batches are decoded on the host.
  if (batch_size_ >= 1 && !balanced && augmenter.moves_pixels_only() && !data.encoded) {
    const HostImageSet set{data.images.data(), data.labels.data(),
                           static_cast<std::int64_t>(data.size()), augmenter.plan()};
    if (program.hold_training_set(set)) {
      batches_per_epoch_ = runner::batches_per_epoch(data.size(), batch_size_);
      description_ = "the training set is held on the device; batches are gathered there";
      return;
    }
  }
  // The compute threads as the session resolves them for the backend. A GPU program fed from the
  // host counts them too (its host thread mostly launches): auto stays on the cautious side.
  const LoaderDemand demand{experiment.dataset.workers,
                            !augmenter.empty() || data.encoded != nullptr, available_cores(),
                            resolve_threads(experiment.training.threads)};
  workers_ = plan_loader_workers(demand);
  description_ = loader_workers_text(demand, workers_);
  // The loader also checks the batch size and the workers, naming the field.
  if (balanced) description_ += "; balanced sampler: every class drawn equally often";
  loader_ = std::make_unique<BatchLoader>(data, batch_size_, shuffle_, seed_, workers_.count,
                                          augmenter, balanced);
  batches_per_epoch_ = loader_->batches_per_epoch();
}

void TrainingFeed::start_epoch(int epoch) {
  if (loader_) {
    loader_->start_epoch(epoch);
    return;
  }
  order_ = epoch_order(data_.size(), shuffle_, seed_, epoch);
  next_batch_ = 0;
  epoch_ = epoch;
  started_ = true;
}

bool TrainingFeed::next(TrainBatch& batch) {
  if (loader_) {
    BatchView view{};
    if (!loader_->next(view)) return false;
    batch = {view.images, view.labels, nullptr, view.size};
    return true;
  }
  if (!started_ || next_batch_ >= batches_per_epoch_) return false;
  const std::int64_t b = next_batch_++;
  batch = {nullptr, nullptr, order_.data() + b * batch_size_,
           size_of_batch(order_.size(), batch_size_, b), epoch_};
  return true;
}

double TrainingFeed::augment_images_per_second() const {
  if (!loader_ || loader_->augment_seconds() <= 0) return 0.0;
  return static_cast<double>(loader_->augmented_images()) / loader_->augment_seconds();
}

double TrainingFeed::waited_seconds() const {
  return loader_ ? loader_->waited_seconds() : 0.0;
}

}  // namespace runner
