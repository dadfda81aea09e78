// Mini-batches of a Dataset in a seeded order, gathered ahead of the consumer by background
// threads into a small ring of contiguous buffers.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "runner/data/augment.h"
#include "runner/data/dataset.h"

namespace runner {

// The order of the dataset's images in `epoch`: shuffled_indices(n, derive_seed(seed, epoch))
// when shuffling, else 0..n-1.
std::vector<std::uint32_t> epoch_order(std::size_t n, bool shuffle, std::uint64_t seed, int epoch);

// An epoch of n images in batches of batch_size (>= 1): how many, and the size of each (the last
// may be short).
int batches_per_epoch(std::size_t n, int batch_size);
int size_of_batch(std::size_t n, int batch_size, std::int64_t batch);

// One batch, valid until the next call to next() or start_epoch().
struct BatchView {
  const std::uint8_t* images;  // (size, C, H, W) bytes
  const std::int32_t* labels;  // (size)
  int size;
};

// Batches come out in order and are byte-identical for any number of workers. The dataset must
// outlive the loader.
class BatchLoader {
 public:
  // workers: background gathering threads; 0 gathers on the calling thread inside next().
  // augment: applied to each image as it is gathered (augment.h), with the epoch and the image's
  // index in the dataset (balanced: its draw's place in the epoch, as an image drawn twice must
  // not be cropped twice alike); count 0 copies the images as they are. balanced: the epochs are
  // balanced_order's draws instead of epoch_order's.
  BatchLoader(const Dataset& data, int batch_size, bool shuffle, std::uint64_t seed, int workers,
              ImageAugmenter augment = {}, bool balanced = false);
  ~BatchLoader();  // stops and joins the workers, also mid-epoch
  BatchLoader(const BatchLoader&) = delete;
  BatchLoader& operator=(const BatchLoader&) = delete;

  // Batches in epoch_order(n, shuffle, seed, epoch), or balanced_order(labels, seed, epoch).
  void start_epoch(int epoch);
  // The next batch of the epoch; false at its end (or before the first start_epoch). The last
  // batch may be partial.
  bool next(BatchView& out);
  // Total time next() spent waiting for a batch (with 0 workers: gathering it).
  double waited_seconds() const;
  // The time the threads spent augmenting, summed over them, and the images augmented.
  double augment_seconds() const;
  std::int64_t augmented_images() const;
  int batches_per_epoch() const { return batches_per_epoch_; }
  // Batches gathered ahead and waiting for next() (what prefetching has achieved so far).
  int ready_ahead() const;
  // The batches a loader with `workers` threads holds at once: one held by the consumer, one
  // being filled per worker, one spare ready ahead (1 when gathering inline).
  static int ring_slots(int workers) { return workers == 0 ? 1 : workers + 2; }

 private:
  struct Slot {
    std::vector<std::uint8_t> images;  // (batch_size, C, H, W)
    std::vector<std::int32_t> labels;  // (batch_size)
    std::int64_t batch = -1;           // the batch it holds, -1 when none
    // What stopped a worker's gather (a file that can no longer be read, say): next() throws it
    // in the training thread when the batch is due, instead of the worker ending the process.
    std::exception_ptr error;
  };

  void work();
  // Starts the worker threads; a failed start joins those started and is a UserError.
  void start_workers(int workers);
  void stop_workers();
  void gather(std::int64_t batch, Slot& slot) const;  // fills images and labels, not `batch`

  const Dataset& data_;
  const int batch_size_;
  const bool shuffle_;
  const bool balanced_;
  const std::uint64_t seed_;
  const int batches_per_epoch_;
  const ImageAugmenter augment_;
  std::vector<Slot> ring_;  // batch b lives in ring_[b % ring_.size()]
  std::vector<std::uint32_t> order_;
  int epoch_ = 0;  // the current epoch, which the augmentation draws from

  mutable std::mutex mutex_;
  std::condition_variable work_ready_;   // workers wait here for a batch to claim
  std::condition_variable batch_ready_;  // next() and start_epoch() wait here
  std::int64_t batches_ = 0;             // batches in the current epoch (0 between epochs)
  std::int64_t next_to_claim_ = 0;       // the next batch a worker gathers
  std::int64_t next_to_deliver_ = 0;     // the next batch next() returns
  std::int64_t released_ = 0;            // batches the consumer is done with
  int in_flight_ = 0;                    // gathers running outside the lock
  bool holding_ = false;                 // the consumer holds batch next_to_deliver_ - 1
  bool stop_ = false;
  double waited_seconds_ = 0;
  mutable std::atomic<std::int64_t> augment_nanoseconds_{0}, augmented_images_{0};
  std::vector<std::thread> workers_;
};

}  // namespace runner
