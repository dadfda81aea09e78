// The prefetching batch loader: workers claim batches in order and fill ring slots; a slot is
// reused only after the consumer has released the batch it held.
#include "runner/data/batch_loader.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <numeric>
#include <utility>

#include "runner/data/augment.h"
#include "runner/data/balanced_sampler.h"
#include "runner/data/encoded_images.h"
#include "runner/data/error_location.h"
#include "runner/util/errors.h"
#include "runner/util/random.h"

namespace runner {

std::vector<std::uint32_t> epoch_order(std::size_t n, bool shuffle, std::uint64_t seed, int epoch) {
  if (shuffle) return shuffled_indices(n, derive_seed(seed, static_cast<std::uint64_t>(epoch)));
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  return order;
}

int batches_per_epoch(std::size_t n, int batch_size) {
  return static_cast<int>((n + batch_size - 1) / static_cast<std::size_t>(batch_size));
}

int size_of_batch(std::size_t n, int batch_size, std::int64_t batch) {
  const std::int64_t first = batch * batch_size;
  return static_cast<int>(std::min<std::int64_t>(batch_size, static_cast<std::int64_t>(n) - first));
}

BatchLoader::BatchLoader(const Dataset& data, int batch_size, bool shuffle, std::uint64_t seed,
                         int workers, ImageAugmenter augment, bool balanced)
    : data_(data),
      batch_size_(batch_size),
      shuffle_(shuffle),
      balanced_(balanced),
      seed_(seed),
      batches_per_epoch_(batch_size > 0 ? runner::batches_per_epoch(data.size(), batch_size) : 0),
      augment_(std::move(augment)) {
  if (batch_size < 1) {
    throw_user_error(at_field("training.batch_size"),
                     fmt::format("found {}, expected at least 1", batch_size));
  }
  if (workers < 0) {
    throw_user_error(at_field("dataset.workers"),
                     fmt::format("found {}, expected 0 or more", workers));
  }
  ring_.resize(ring_slots(workers));
  for (auto& slot : ring_) {
    slot.images.resize(static_cast<std::size_t>(batch_size) * data.image_bytes());
    slot.labels.resize(batch_size);
  }
  start_workers(workers);
}

void BatchLoader::start_workers(int workers) {
  try {
    for (int w = 0; w < workers; ++w) workers_.emplace_back([this] { work(); });
  } catch (const std::system_error& error) {
    // A constructor that throws runs no destructor: stop and join what started, else the
    // joinable threads would terminate the process.
    stop_workers();
    throw_user_error(at_field("dataset.workers"),
                     fmt::format("could start only {} of {} loader threads: {}", workers_.size(),
                                 workers, error.what()),
                     "lower dataset.workers");
  }
}

void BatchLoader::stop_workers() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  work_ready_.notify_all();
  batch_ready_.notify_all();
  for (auto& worker : workers_) worker.join();
  workers_.clear();
}

BatchLoader::~BatchLoader() {
  stop_workers();
}

void BatchLoader::start_epoch(int epoch) {
  std::unique_lock lock(mutex_);
  // Stop claims of the old epoch and let gathers in flight (which read order_) finish.
  batches_ = 0;
  batch_ready_.wait(lock, [this] { return in_flight_ == 0; });
  order_ = balanced_ ? balanced_order(data_.labels, seed_, epoch)
                     : epoch_order(data_.size(), shuffle_, seed_, epoch);
  epoch_ = epoch;
  for (auto& slot : ring_) {
    slot.batch = -1;
    slot.error = nullptr;
  }
  next_to_claim_ = next_to_deliver_ = released_ = 0;
  holding_ = false;
  batches_ = batches_per_epoch_;
  lock.unlock();
  work_ready_.notify_all();
}

bool BatchLoader::next(BatchView& out) {
  std::unique_lock lock(mutex_);
  if (holding_) {
    holding_ = false;
    ++released_;
    work_ready_.notify_all();  // the released slot can take a batch ahead
  }
  if (next_to_deliver_ >= batches_) return false;
  const std::int64_t batch = next_to_deliver_;
  Slot& slot = ring_[batch % ring_.size()];
  if (workers_.empty()) {
    auto begin = std::chrono::steady_clock::now();
    gather(batch, slot);
    slot.batch = batch;
    waited_seconds_ +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  } else if (slot.batch != batch) {
    auto begin = std::chrono::steady_clock::now();
    batch_ready_.wait(lock, [&] { return slot.batch == batch || stop_; });
    waited_seconds_ +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    if (stop_) return false;
  }
  if (slot.error) {
    const std::exception_ptr error = std::exchange(slot.error, nullptr);
    ++next_to_deliver_;
    ++released_;  // the slot is free again: a caller that goes on gets the next batch
    work_ready_.notify_all();
    std::rethrow_exception(error);
  }
  ++next_to_deliver_;
  holding_ = true;
  out = {slot.images.data(), slot.labels.data(), size_of_batch(data_.size(), batch_size_, batch)};
  return true;
}

int BatchLoader::ready_ahead() const {
  std::lock_guard lock(mutex_);
  int ready = 0;
  for (const Slot& slot : ring_) ready += slot.batch >= next_to_deliver_ ? 1 : 0;
  return ready;
}

double BatchLoader::waited_seconds() const {
  std::lock_guard lock(mutex_);
  return waited_seconds_;
}

void BatchLoader::work() {
  std::unique_lock lock(mutex_);
  for (;;) {
    // A batch may be gathered once its slot's previous batch (batch - ring size) is released.
    work_ready_.wait(lock, [this] {
      return stop_ || (next_to_claim_ < batches_ &&
                       next_to_claim_ < released_ + static_cast<std::int64_t>(ring_.size()));
    });
    if (stop_) return;
    const std::int64_t batch = next_to_claim_++;
    Slot& slot = ring_[batch % ring_.size()];
    ++in_flight_;
    lock.unlock();
    std::exception_ptr error;
    try {
      gather(batch, slot);
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    slot.error = error;
    --in_flight_;
    // start_epoch waits for in_flight_ == 0 before it resets slots, so this batch is current.
    slot.batch = batch;
    batch_ready_.notify_all();
  }
}

double BatchLoader::augment_seconds() const {
  return augment_nanoseconds_.load() * 1e-9;
}

std::int64_t BatchLoader::augmented_images() const {
  return augmented_images_.load();
}

void BatchLoader::gather(std::int64_t batch, Slot& slot) const {
  const int size = size_of_batch(data_.size(), batch_size_, batch);
  const auto started = std::chrono::steady_clock::now();
  const std::size_t image_bytes = data_.image_bytes();
  const std::uint32_t* indices = order_.data() + batch * batch_size_;
  for (int i = 0; i < size; ++i) {
    const std::size_t record = indices[i];
    std::uint8_t* out = slot.images.data() + i * image_bytes;
    const std::uint64_t key =
        balanced_ ? static_cast<std::uint64_t>(batch) * batch_size_ + i : record;
    std::size_t label_of = record;
    if (data_.encoded) {  // dataset.decode: per_epoch
      auto [image, decoded] = data_.encoded->decode_or_next(record);
      label_of = decoded;  // another file took a bad one's place (on_bad_file: skip)
      augment_.apply_decoded(epoch_, key, std::move(image), out, data_.channels, data_.height,
                             data_.width);
    } else if (!augment_.empty()) {
      const std::uint8_t* image = data_.images.data() + record * image_bytes;
      augment_.apply(epoch_, key, image, out, data_.channels, data_.height, data_.width);
    } else {
      std::memcpy(out, data_.images.data() + record * image_bytes, image_bytes);
    }
    slot.labels[i] = data_.labels[label_of];
  }
  if (!augment_.empty() || data_.encoded) {
    augment_nanoseconds_ += std::chrono::duration_cast<std::chrono::nanoseconds>(
                                std::chrono::steady_clock::now() - started)
                                .count();
    augmented_images_ += size;
  }
}

}  // namespace runner
