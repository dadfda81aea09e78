// The training loop.
#include "runner/train/trainer.h"

#include <fmt/format.h>

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

// Steps of the first epoch left out of the throughput figure (first-touch and cache effects).
std::int64_t warmup_steps_for(int batches_per_epoch) {
  return std::min<std::int64_t>(20, batches_per_epoch / 10);
}

}  // namespace

TrainingOutcome train(const Experiment& experiment, Program& program, const DatasetSplits& data,
                      Console& console, const TrainingPlan& plan) {
  const TrainingSpec& spec = experiment.training;
  TrainingFeed feed(data.train, program, experiment);
  if (feed.on_device()) {
    console.line("data: the training set is held on the device; batches are gathered there");
  }
  TrainingOutcome outcome;
  outcome.warmup_steps = warmup_steps_for(feed.batches_per_epoch());
  std::int64_t images_after_warmup = 0;
  StepClock clock;  // steps after the warm-up
  // Reading the loss is where the host waits for an asynchronous device: the wait is the steps'.
  auto read_loss = [&] {
    auto start = Clock::now();
    LossSum taken = program.take_loss();
    if (outcome.steps > outcome.warmup_steps) clock.wait(seconds_since(start));
    return taken;
  };

  for (int epoch = plan.first_epoch; epoch < spec.epochs; ++epoch) {
    feed.start_epoch(epoch);
    LossSum epoch_loss;
    auto epoch_start = Clock::now();
    double epoch_cpu_start = process_cpu_seconds();
    std::int64_t epoch_images = 0;
    TrainBatch batch;
    for (int step = 1;; ++step) {
      if (interrupt_requested()) {
        outcome.status = "interrupted";
        outcome.error = fmt::format("interrupted in epoch {} at mini-batch {}", epoch + 1, step);
        break;
      }
      auto step_start = Clock::now();
      if (!feed.next(batch)) break;
      program.train_step(batch);
      double step_seconds = seconds_since(step_start);
      ++outcome.steps;
      epoch_images += batch.count;
      if (outcome.steps > outcome.warmup_steps) {
        images_after_warmup += batch.count;
        clock.step(step_seconds, batch.count == spec.batch_size);
      }
      console.progress(fmt::format("epoch {}/{}  {}/{}", epoch + 1, spec.epochs, step,
                                   feed.batches_per_epoch()));
      if (step % spec.log_every == 0) {
        LossSum running = read_loss();
        epoch_loss += running;
        // The tutorial's line: the mean loss of the last log_every mini-batches.
        console.line(fmt::format("[{}, {:5d}] loss: {:.3f}", epoch + 1, step, running.mean()));
        if (!std::isfinite(running.mean())) {
          outcome.status = "diverged";
          outcome.error = fmt::format("the loss diverged ({}) in epoch {} at mini-batch {}",
                                      running.mean(), epoch + 1, step);
          break;
        }
      }
    }
    epoch_loss += read_loss();
    double epoch_seconds = seconds_since(epoch_start);
    outcome.cpu_seconds += process_cpu_seconds() - epoch_cpu_start;
    outcome.cpu_wall_seconds += epoch_seconds;
    if (outcome.status == "completed" && !std::isfinite(epoch_loss.mean())) {
      outcome.status = "diverged";
      outcome.error =
          fmt::format("the loss diverged ({}) in epoch {}", epoch_loss.mean(), epoch + 1);
    }
    if (outcome.status != "completed") break;

    Evaluation test = evaluate(program, data.test, spec.eval_batch_size);
    EpochRecord record{epoch + 1,
                       epoch_loss.mean(),
                       test.loss,
                       test.accuracy(),
                       epoch_seconds,
                       epoch_seconds > 0 ? epoch_images / epoch_seconds : 0.0,
                       epoch_loss.grad_norm_count > 0 ? epoch_loss.grad_norm_mean() : -1.0};
    outcome.epochs.push_back(record);
    outcome.final_evaluation = test;
    outcome.train_seconds += epoch_seconds;
    console.line(
        fmt::format("epoch {}: train loss {:.4f}, test loss {:.4f}, test accuracy {:.2f} %, "
                    "{:.1f} s, {:.0f} images/s",
                    record.epoch, record.train_loss, record.test_loss, 100 * record.test_accuracy,
                    record.seconds, record.images_per_second));
    if (plan.after_epoch) plan.after_epoch(epoch + 1);
  }
  outcome.data_wait_seconds = feed.waited_seconds();
  outcome.step_seconds = clock.seconds();
  outcome.train_images_per_second = clock.total() > 0 ? images_after_warmup / clock.total() : 0.0;
  console.end_progress();
  return outcome;
}

}  // namespace runner
