// BatchLoader: every record once per epoch, seeded order, identical batches for any number of
// workers, partial last batch, clean shutdown mid-epoch, and waiting workers that sleep.
#include "runner/data/batch_loader.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "runner/util/errors.h"
#include "runner/util/random.h"
#include "test_support.h"

namespace runner {
namespace {

// n records of 1x2x2 bytes; record i holds label i and pixels derived from i, so a batch can be
// checked against the record it claims to be.
Dataset indexed_dataset(int n) {
  Dataset data;
  data.name = "indexed";
  data.channels = 1;
  data.height = 2;
  data.width = 2;
  data.class_names = {"x"};
  for (int i = 0; i < n; ++i) {
    data.labels.push_back(i);
    for (int p = 0; p < 4; ++p) data.images.push_back(static_cast<std::uint8_t>(i * 7 + p * 31));
  }
  return data;
}

struct Epoch {
  std::vector<std::int32_t> labels;  // in delivery order
  std::vector<std::uint8_t> images;  // in delivery order
  std::vector<int> sizes;            // of each batch
};

Epoch run_epoch(BatchLoader& loader, int epoch) {
  Epoch out;
  loader.start_epoch(epoch);
  BatchView batch{};
  while (loader.next(batch)) {
    out.sizes.push_back(batch.size);
    out.labels.insert(out.labels.end(), batch.labels, batch.labels + batch.size);
    out.images.insert(out.images.end(), batch.images, batch.images + batch.size * 4);
  }
  return out;
}

void expect_consistent(const Dataset& data, const Epoch& epoch) {
  for (std::size_t i = 0; i < epoch.labels.size(); ++i) {
    const int record = epoch.labels[i];
    for (int p = 0; p < 4; ++p) {
      ASSERT_EQ(epoch.images[i * 4 + p], data.images[record * 4 + p]) << "position " << i;
    }
  }
}

TEST(BatchLoader, EveryRecordExactlyOncePerEpoch) {
  Dataset data = indexed_dataset(103);
  BatchLoader loader(data, 8, true, 42, 2);
  for (int epoch = 0; epoch < 3; ++epoch) {
    Epoch out = run_epoch(loader, epoch);
    ASSERT_EQ(out.labels.size(), 103u);
    expect_consistent(data, out);
    std::vector<std::int32_t> sorted = out.labels;
    std::sort(sorted.begin(), sorted.end());
    for (int i = 0; i < 103; ++i) ASSERT_EQ(sorted[i], i) << "epoch " << epoch;
  }
}

TEST(BatchLoader, OrderIsTheSeededShuffleOfTheEpoch) {
  Dataset data = indexed_dataset(50);
  BatchLoader a(data, 7, true, 9, 1);
  BatchLoader b(data, 7, true, 9, 1);
  Epoch a1 = run_epoch(a, 1);
  EXPECT_EQ(a1.labels, run_epoch(b, 1).labels);  // same seed and epoch: same order
  Epoch a2 = run_epoch(a, 2);
  EXPECT_NE(a1.labels, a2.labels);               // another epoch: another order
  EXPECT_EQ(a1.labels, run_epoch(a, 1).labels);  // repeatable
  BatchLoader c(data, 7, true, 10, 1);
  EXPECT_NE(a1.labels, run_epoch(c, 1).labels);  // another seed: another order
  // The documented order: shuffled_indices(n, derive_seed(seed, epoch)).
  auto expected = shuffled_indices(50, derive_seed(9, 2));
  EXPECT_EQ(a2.labels, std::vector<std::int32_t>(expected.begin(), expected.end()));
}

TEST(BatchLoader, IdenticalBatchesForAnyNumberOfWorkers) {
  Dataset data = indexed_dataset(301);
  std::vector<std::vector<Epoch>> runs;
  for (int workers : {0, 1, 2, 3}) {
    BatchLoader loader(data, 16, true, 5, workers);
    runs.push_back({run_epoch(loader, 0), run_epoch(loader, 1), run_epoch(loader, 2)});
  }
  for (std::size_t r = 1; r < runs.size(); ++r) {
    for (std::size_t e = 0; e < 3; ++e) {
      EXPECT_EQ(runs[r][e].labels, runs[0][e].labels) << "run " << r << " epoch " << e;
      EXPECT_EQ(runs[r][e].images, runs[0][e].images) << "run " << r << " epoch " << e;
      EXPECT_EQ(runs[r][e].sizes, runs[0][e].sizes) << "run " << r << " epoch " << e;
    }
  }
  expect_consistent(data, runs[2][1]);
}

TEST(BatchLoader, LastBatchIsPartial) {
  Dataset data = indexed_dataset(10);
  BatchLoader loader(data, 4, true, 1, 2);
  EXPECT_EQ(loader.batches_per_epoch(), 3);
  Epoch out = run_epoch(loader, 0);
  EXPECT_EQ(out.sizes, (std::vector<int>{4, 4, 2}));
  BatchView batch{};
  EXPECT_FALSE(loader.next(batch));  // stays at the end
}

TEST(BatchLoader, WithoutShuffleKeepsTheOrder) {
  Dataset data = indexed_dataset(23);
  for (int workers : {0, 2}) {
    BatchLoader loader(data, 5, false, 3, workers);
    for (int epoch = 0; epoch < 2; ++epoch) {
      Epoch out = run_epoch(loader, epoch);
      ASSERT_EQ(out.labels.size(), 23u);
      for (int i = 0; i < 23; ++i) EXPECT_EQ(out.labels[i], i);
      EXPECT_EQ(out.images, data.images);
    }
  }
}

TEST(BatchLoader, ViewStaysValidUntilTheNextCall) {
  // Workers fill the other ring slots meanwhile; the held batch must not change under us.
  Dataset data = indexed_dataset(200);
  BatchLoader loader(data, 4, true, 2, 3);
  loader.start_epoch(0);
  BatchView batch{};
  while (loader.next(batch)) {
    std::vector<std::int32_t> labels(batch.labels, batch.labels + batch.size);
    std::vector<std::uint8_t> images(batch.images, batch.images + batch.size * 4);
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    ASSERT_EQ(labels, std::vector<std::int32_t>(batch.labels, batch.labels + batch.size));
    ASSERT_EQ(images, std::vector<std::uint8_t>(batch.images, batch.images + batch.size * 4));
  }
}

TEST(BatchLoader, RestartingAnEpochMidwayGivesTheWholeEpoch) {
  Dataset data = indexed_dataset(64);
  BatchLoader loader(data, 4, true, 8, 2);
  Epoch full = run_epoch(loader, 3);
  loader.start_epoch(0);
  BatchView batch{};
  ASSERT_TRUE(loader.next(batch));
  ASSERT_TRUE(loader.next(batch));
  EXPECT_EQ(run_epoch(loader, 3).labels, full.labels);
}

TEST(BatchLoader, NextBeforeStartEpochAndEmptyData) {
  Dataset data = indexed_dataset(0);
  BatchLoader loader(data, 4, true, 8, 1);
  BatchView batch{};
  EXPECT_FALSE(loader.next(batch));
  EXPECT_EQ(loader.batches_per_epoch(), 0);
  EXPECT_TRUE(run_epoch(loader, 0).labels.empty());
}

// Runs `body` on its own thread and fails (instead of hanging the suite) when it does not end
// within the time limit.
void expect_finishes(std::function<void()> body, std::chrono::seconds limit) {
  struct State {
    std::mutex mutex;
    std::condition_variable done_changed;
    bool done = false;
  };
  auto state = std::make_shared<State>();
  std::thread([state, body = std::move(body)] {
    body();
    std::lock_guard lock(state->mutex);
    state->done = true;
    state->done_changed.notify_all();
  }).detach();
  std::unique_lock lock(state->mutex);
  EXPECT_TRUE(state->done_changed.wait_for(lock, limit, [&] { return state->done; }))
      << "did not finish within " << limit.count() << " s";
}

TEST(BatchLoader, DestroyingMidEpochDoesNotHang) {
  auto data = std::make_shared<Dataset>(indexed_dataset(5000));
  expect_finishes(
      [data] {
        for (int workers : {1, 3}) {
          BatchLoader loader(*data, 4, true, 1, workers);
          loader.start_epoch(0);
          BatchView batch{};
          loader.next(batch);
          loader.next(batch);
        }                                        // destroyed with workers waiting for free slots
        BatchLoader idle(*data, 4, true, 1, 2);  // never started
      },
      std::chrono::seconds(20));
}

TEST(BatchLoader, WorkersGatherBatchesAheadOfTheConsumer) {
  // While the consumer holds a batch, the workers fill the free slots with the next ones.
  Dataset data = indexed_dataset(4000);
  BatchLoader loader(data, 200, true, 1, 1);
  loader.start_epoch(0);
  BatchView batch{};
  ASSERT_TRUE(loader.next(batch));
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (loader.ready_ahead() < 2 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_GE(loader.ready_ahead(), 2) << "no batches were prefetched";
  int batches = 1;
  while (loader.next(batch)) ++batches;
  EXPECT_EQ(batches, 20);
  EXPECT_EQ(loader.ready_ahead(), 0);
}

// With no workers the caller gathers each batch itself inside next(): that time is waiting
// (the step could not go on without the batch), and the consumer's own time between batches is
// not. Timed from outside, next() must then take about what waited_seconds() says: no more
// (the consumer's sleeps are left out), and most of it (the gathering is counted).
TEST(BatchLoader, ZeroWorkersCountGatheringAsWaiting) {
  Dataset data;
  data.channels = 3;
  data.height = data.width = 64;  // 12 KiB images: gathering a batch takes measurable time
  data.class_names = {"x"};
  data.labels.assign(2000, 0);
  data.images.assign(data.labels.size() * 3 * 64 * 64, 7);
  BatchLoader loader(data, 100, true, 1, 0);
  loader.start_epoch(0);
  double inside_next = 0;
  BatchView batch{};
  for (;;) {
    auto begin = std::chrono::steady_clock::now();
    bool more = loader.next(batch);
    inside_next += std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    if (!more) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // a slow step, not waiting
  }
  const double waited = loader.waited_seconds();
  EXPECT_LE(waited, inside_next) << "time outside next() counted as waiting";
  EXPECT_GE(waited, 0.5 * inside_next) << "the gathering inside next() is not counted: waited "
                                       << waited << " s of " << inside_next << " s in next()";
}

// CPU time of the whole process so far, user and system.
double process_cpu_seconds_now() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec * 1e-6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// The CPU time the process uses while this thread sleeps for `wait`.
double cpu_seconds_over(std::chrono::milliseconds wait) {
  const double before = process_cpu_seconds_now();
  std::this_thread::sleep_for(wait);
  return process_cpu_seconds_now() - before;
}

// Issue 27: a loader thread that waited by spinning would take a core from the compute threads.
// Workers with no epoch to work on, and workers that have filled every free slot, must sleep:
// four spinning workers would use most of the 200 ms on every core they get, sleeping ones
// about nothing (the bound leaves room for a loaded machine's noise, not for a spinning thread).
TEST(BatchLoader, WaitingWorkersSleep) {
  Dataset data = indexed_dataset(4000);
  BatchLoader loader(data, 10, true, 1, 4);
  const auto wait = std::chrono::milliseconds(200);
  EXPECT_LT(cpu_seconds_over(wait), 0.05) << "workers waiting for an epoch use the CPU";

  loader.start_epoch(0);
  BatchView batch{};
  ASSERT_TRUE(loader.next(batch));  // held: the workers fill the other slots, then wait
  const int free_slots = BatchLoader::ring_slots(4) - 1;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (loader.ready_ahead() < free_slots && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_EQ(loader.ready_ahead(), free_slots);
  EXPECT_LT(cpu_seconds_over(wait), 0.05) << "workers waiting for a free slot use the CPU";
}

// Issue 11: a thread that failed to start left the others joinable, and the process aborted
// ("terminate called without an active exception"). In a child process whose address space
// is too small for 1000 thread stacks, the loader must fail with a UserError and clean up.
TEST(BatchLoader, ThreadsThatCannotStartAreAUserErrorNotAnAbort) {
  // 1 GiB: about a hundred 8 MiB stacks.
  const int code = runner::testing::exit_code_with_address_space(1ull << 30, [] {
    Dataset data = indexed_dataset(8);
    try {
      BatchLoader loader(data, 2, false, 0, 1000);
      return 3;  // every thread started: the limit did not bite
    } catch (const UserError& error) {
      return std::string(error.what()).find("dataset.workers") != std::string::npos ? 0 : 4;
    }
  });
  EXPECT_EQ(code, 0) << "3: all threads started, 4: the error named no field, -1: a signal";
}

}  // namespace
}  // namespace runner
