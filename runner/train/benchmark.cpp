// The benchmark loop.
#include "runner/train/benchmark.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "runner/train/step_times.h"
#include "runner/train/training_feed.h"
#include "runner/util/interrupt.h"
#include "runner/util/process_stats.h"

namespace runner {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Full batches without end: the feed's epochs one after another, partial last batches skipped
// so that every timed step has the same size; not augmented.
class BatchStream {
 public:
  BatchStream(const Dataset& data, Program& program, const Experiment& experiment)
      : batch_size_(experiment.training.batch_size),
        feed_(data, program, experiment, FeedAugmentation::none) {
    feed_.start_epoch(0);
  }
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

}  // namespace

BenchmarkOutcome run_benchmark(const Experiment& experiment, Program& program, const Dataset& train,
                               const BenchmarkSpec& spec, Console& console) {
  const int batch_size = experiment.training.batch_size;
  if (train.size() < static_cast<std::size_t>(batch_size)) {
    throw UserError(fmt::format(
        "training.batch_size: found {}, but the training set has only {} images; a benchmark "
        "needs at least one full batch (lower the batch size or raise the dataset's size)",
        batch_size, train.size()));
  }
  BatchStream stream(train, program, experiment);
  BenchmarkOutcome out;
  TrainingOutcome& run = out.run;
  run.warmup_steps = spec.warmup_steps;
  auto stop_requested = [&](const char* phase, int step) {
    if (!interrupt_requested()) return false;
    run.status = "interrupted";
    run.error = fmt::format("interrupted at {} step {}", phase, step + 1);
    return true;
  };

  for (int step = 0; step < spec.warmup_steps && !stop_requested("warm-up", step); ++step) {
    TrainBatch batch = stream.next();
    program.train_step(batch);
    ++run.steps;
  }
  program.take_loss();  // the warm-up's losses are not counted

  LossSum losses;
  auto read_loss = [&](int step) {  // a host-device sync point
    LossSum taken = program.take_loss();
    losses.sum += taken.sum;
    losses.count += taken.count;
    if (run.status == "completed" && !std::isfinite(taken.mean())) {
      run.status = "diverged";
      run.error = fmt::format("the loss diverged ({}) at benchmark step {}", taken.mean(), step);
    }
  };
  // Profiled steps wait for the device; timed steps next to them then do too, to compare like
  // with like. Without profiling, steps queue up as in training and the loss is read every 50.
  const bool sync_each_step = spec.profile_steps > 0;
  StepClock clock;
  std::int64_t images = 0;
  std::vector<std::vector<StepTiming>> profiled;
  const int rounds = std::max(spec.steps, spec.profile_steps);
  for (int i = 0; i < rounds && run.status == "completed" && !stop_requested("timed", i); ++i) {
    if (i < spec.steps) {
      double cpu_start = process_cpu_seconds();
      double waited_before = stream.waited_seconds();
      auto start = Clock::now();
      TrainBatch batch = stream.next();
      program.train_step(batch);
      if (sync_each_step) read_loss(i + 1);
      double seconds = seconds_since(start);
      run.cpu_seconds += process_cpu_seconds() - cpu_start;
      run.cpu_wall_seconds += seconds;
      clock.step(seconds);
      run.data_wait_seconds += stream.waited_seconds() - waited_before;
      images += batch.count;
      ++run.steps;
    }
    if (i < spec.profile_steps) {
      std::vector<StepTiming> timings;
      auto start = Clock::now();
      TrainBatch batch = stream.next();
      timings.push_back({kDataWaitLabel, seconds_since(start)});
      program.profile_train_step(batch, timings);
      profiled.push_back(std::move(timings));
      ++run.steps;
    }
    console.progress(fmt::format("benchmark: step {}/{}", i + 1, rounds));
    if (!sync_each_step && ((i + 1) % 50 == 0 || i + 1 == rounds)) {
      // On an asynchronous device the steps just timed finish here: the wait counts as their time.
      double cpu_start = process_cpu_seconds();
      auto start = Clock::now();
      read_loss(i + 1);
      double seconds = seconds_since(start);
      run.cpu_seconds += process_cpu_seconds() - cpu_start;
      run.cpu_wall_seconds += seconds;
      clock.wait(seconds);
    }
  }
  run.step_seconds = clock.seconds();
  run.train_seconds = clock.total();
  read_loss(rounds);  // what a last profiled step left
  console.end_progress();
  out.mean_loss = losses.mean();
  out.profile = median_profile(profiled);
  run.train_images_per_second = run.train_seconds > 0 ? images / run.train_seconds : 0.0;
  return out;
}

}  // namespace runner
