// The benchmark loop.
#include "runner/train/benchmark.h"

#include <fmt/format.h>

#include <algorithm>

#include "runner/train/apply_schedule.h"
#include "runner/train/lr_schedule.h"
#include "runner/train/step_times.h"
#include "runner/train/stop_checks.h"
#include "runner/train/training_feed.h"
#include "runner/util/process_stats.h"

namespace runner {
namespace {

// Full batches without end: the feed's epochs one after another, partial last batches skipped
// so that every timed step has the same size; augmented as in training (a benchmark times the
// recipe's steps, the augmentation's share of the cores included).
class BatchStream {
 public:
  BatchStream(const Dataset& data, Program& program, const Experiment& experiment)
      : batch_size_(experiment.training.batch_size), feed_(data, program, experiment) {
    feed_.start_epoch(0);
  }
  std::int64_t batches_per_epoch() const { return feed_.batches_per_epoch(); }
  TrainBatch next() {
    TrainBatch batch;
    for (;;) {
      if (!feed_.next(batch)) {
        feed_.start_epoch(++epoch_);
      } else if (batch.count == batch_size_) {
        return batch;
      }
    }
  }
  double waited_seconds() const { return feed_.waited_seconds(); }
  const TrainingFeed& feed() const { return feed_; }

 private:
  int batch_size_;
  TrainingFeed feed_;
  int epoch_ = 0;
};

// Per label, the median over the steps (a label missing from a step counts as 0).
std::vector<StepTiming> median_profile(const std::vector<std::vector<StepTiming>>& steps) {
  std::vector<StepTiming> out;
  if (steps.empty()) return out;
  for (const StepTiming& first : steps.front()) {
    std::vector<double> values;
    for (const auto& step : steps) {
      auto it = std::find_if(step.begin(), step.end(),
                             [&](const StepTiming& t) { return t.label == first.label; });
      values.push_back(it == step.end() ? 0.0 : it->seconds);
    }
    std::sort(values.begin(), values.end());
    out.push_back({first.label, quantile_of_sorted(values, 0.5)});
  }
  return out;
}

void check_one_full_batch(const Dataset& train, int batch_size) {
  if (train.size() < static_cast<std::size_t>(batch_size)) {
    throw UserError(fmt::format(
        "training.batch_size: found {}, but the training set has only {} images; a benchmark "
        "needs at least one full batch (lower the batch size or raise the dataset's size)",
        batch_size, train.size()));
  }
}

// The state the benchmark's phases share.
struct Bench {
  Program& program;
  BatchStream& stream;
  const BenchmarkSpec& spec;
  BenchmarkOutcome& out;
  StepThreads* threads;           // may change the program's threads before a step
  LearningRateSchedule schedule;  // followed from the first warm-up step, as a run would
  LossSum losses;                 // over the timed and profiled steps
  StepClock clock;
  std::int64_t images = 0;
  std::vector<std::vector<StepTiming>> profiled;
  double divergence_threshold = 0;  // a mean loss above it: diverged
};

// The next batch, with the learning rate of its step in the run.
TrainBatch next_batch(Bench& b) {
  if (b.threads) b.threads->before_step(b.out.run.steps, b.program);
  apply_schedule(b.schedule, b.out.run.steps, b.program);
  return b.stream.next();
}

bool stop_requested(Bench& b, const char* phase, int step) {
  return stop_if_interrupted(b.out.run, fmt::format("at {} step {}", phase, step + 1));
}

void warm_up(Bench& b) {
  for (int step = 0; step < b.spec.warmup_steps && !stop_requested(b, "warm-up", step); ++step) {
    TrainBatch batch = next_batch(b);
    b.program.train_step(batch);
    ++b.out.run.steps;
  }
  b.program.take_loss();  // the warm-up's losses are not counted
}

// A host-device sync point: the losses so far, counted and checked.
void read_loss(Bench& b, int step) {
  LossSum taken = b.program.take_loss();
  b.losses.sum += taken.sum;
  b.losses.count += taken.count;
  stop_if_diverged(b.out.run, taken.mean(), b.divergence_threshold,
                   fmt::format("at benchmark step {}", step));
}

// Process CPU time and wall time of `work` go into the run's CPU figures; returns the wall time.
template <typename Work>
double cpu_timed(Bench& b, Work&& work) {
  double cpu_start = process_cpu_seconds();
  auto start = SteadyClock::now();
  work();
  double seconds = seconds_since(start);
  b.out.run.cpu_seconds += process_cpu_seconds() - cpu_start;
  b.out.run.cpu_wall_seconds += seconds;
  return seconds;
}

// A plain step, timed (and waited for when `sync` is set).
void timed_step(Bench& b, int i, bool sync) {
  double waited_before = b.stream.waited_seconds();
  int count = 0;
  double seconds = cpu_timed(b, [&] {
    TrainBatch batch = next_batch(b);
    b.program.train_step(batch);
    if (sync) read_loss(b, i + 1);
    count = batch.count;
  });
  b.clock.step(seconds);
  b.out.run.data_wait_seconds += b.stream.waited_seconds() - waited_before;
  b.images += count;
  ++b.out.run.steps;
}

// A step timed per label by the program, the data wait first.
void profiled_step(Bench& b) {
  std::vector<StepTiming> timings;
  auto start = SteadyClock::now();
  TrainBatch batch = next_batch(b);
  timings.push_back({kDataWaitLabel, seconds_since(start)});
  b.program.profile_train_step(batch, timings);
  b.profiled.push_back(std::move(timings));
  ++b.out.run.steps;
}

// Profiled steps wait for the device; timed steps next to them then do too, to compare like
// with like. Without profiling, steps queue up as in training and the loss is read every 50.
void timed_rounds(Bench& b, Console& console) {
  const bool sync_each_step = b.spec.profile_steps > 0;
  const int rounds = std::max(b.spec.steps, b.spec.profile_steps);
  for (int i = 0;
       i < rounds && b.out.run.status == RunStatus::completed && !stop_requested(b, "timed", i);
       ++i) {
    if (i < b.spec.steps) timed_step(b, i, sync_each_step);
    if (i < b.spec.profile_steps) profiled_step(b);
    console.progress(fmt::format("benchmark: step {}/{}", i + 1, rounds));
    if (!sync_each_step && ((i + 1) % 50 == 0 || i + 1 == rounds)) {
      // On an asynchronous device the steps just timed finish here: the wait counts as their time.
      b.clock.wait(cpu_timed(b, [&] { read_loss(b, i + 1); }));
    }
  }
  b.out.run.step_seconds = b.clock.seconds();
  b.out.run.train_seconds = b.clock.total();
  b.out.run.timed_seconds = b.clock.total();
  read_loss(b, rounds);  // what a last profiled step left
}

}  // namespace

BenchmarkOutcome run_benchmark(const Experiment& experiment, Program& program, const Dataset& train,
                               const BenchmarkSpec& spec, Console& console, StepThreads* threads) {
  check_one_full_batch(train, experiment.training.batch_size);
  BatchStream stream(train, program, experiment);
  console.line("data: " + stream.feed().description());
  BenchmarkOutcome out;
  out.run.loader_workers = stream.feed().loader_workers();
  out.run.warmup_steps = spec.warmup_steps;
  const TrainingSpec& training = experiment.training;
  Bench bench{program,
              stream,
              spec,
              out,
              threads,
              LearningRateSchedule(training.schedule, training.optimizer.lr,
                                   stream.batches_per_epoch(), training.epochs),
              {},
              {},
              0,
              {},
              divergence_threshold(training, train.classes())};
  warm_up(bench);
  timed_rounds(bench, console);
  console.end_progress();
  out.mean_loss = bench.losses.mean();
  out.profile = median_profile(bench.profiled);
  TrainingOutcome& run = out.run;
  run.train_images_per_second = run.train_seconds > 0 ? bench.images / run.train_seconds : 0.0;
  return out;
}

}  // namespace runner
