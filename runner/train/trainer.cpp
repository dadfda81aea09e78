// The training loop.
#include "runner/train/trainer.h"

#include <fmt/format.h>

#include "runner/train/apply_schedule.h"
#include "runner/train/batch_mixing.h"
#include "runner/train/epoch_progress.h"
#include "runner/train/lr_schedule.h"
#include "runner/train/step_times.h"
#include "runner/train/stop_checks.h"
#include "runner/train/training_feed.h"
#include "runner/util/process_stats.h"

namespace runner {
namespace {

// Steps of the first epoch left out of the throughput figure (first-touch and cache effects).
std::int64_t warmup_steps_for(int batches_per_epoch) {
  return std::min<std::int64_t>(20, batches_per_epoch / 10);
}

// What one epoch's training steps add up to.
struct EpochTotals {
  LossSum loss;
  std::int64_t images = 0;
  double seconds = 0;        // training only, evaluation excluded
  double learning_rate = 0;  // of its last step
  std::optional<double> momentum;
};

// The state the epochs share.
struct Loop {
  const TrainingSpec& spec;
  const std::vector<MetricSpec>& metrics;  // the figures each evaluation adds
  Program& program;
  TrainingFeed& feed;
  Console& console;
  EpochProgress progress;
  TrainingOutcome& outcome;
  LearningRateSchedule schedule;
  std::int64_t run_step = 0;  // the next step's index in the whole run, resumed epochs included
  StepThreads* threads;       // may change the program's threads before a step
  StepClock clock;            // steps after the warm-up
  std::int64_t images_after_warmup = 0;
  double divergence_threshold = 0;    // a mean loss above it: diverged
  WeightAverage* ema = nullptr;       // training.ema (none: off)
  int log_every = 1;                  // steps between loss lines (log_every_for)
  const BatchMixer* mixer = nullptr;  // training.mixup / cutmix (none: off)
};

// Reading the loss is where the host waits for an asynchronous device: the wait is the steps'.
LossSum read_loss(Loop& loop) {
  auto start = SteadyClock::now();
  LossSum taken = loop.program.take_loss();
  if (loop.outcome.steps > loop.outcome.warmup_steps) loop.clock.wait(seconds_since(start));
  return taken;
}

// One training step on the epoch's next batch, timed; false at the end of the epoch.
bool train_one_step(Loop& loop, EpochTotals& totals) {
  TrainBatch batch;
  auto step_start = SteadyClock::now();
  if (!loop.feed.next(batch)) return false;
  if (loop.threads) loop.threads->before_step(loop.run_step, loop.program);
  if (loop.mixer) batch.mix = loop.mixer->choose(loop.run_step);
  const StepSchedule scheduled = apply_schedule(loop.schedule, loop.run_step++, loop.program);
  totals.learning_rate = scheduled.learning_rate;
  totals.momentum = scheduled.momentum;
  loop.program.train_step(batch);
  // Inside the step's time: folding the weights in is part of what training with EMA costs.
  if (loop.ema) loop.ema->after_step(loop.run_step, loop.program);
  double step_seconds = seconds_since(step_start);
  ++loop.outcome.steps;
  totals.images += batch.count;
  if (loop.outcome.steps > loop.outcome.warmup_steps) {
    loop.images_after_warmup += batch.count;
    loop.clock.step(step_seconds, batch.count == loop.spec.batch_size);
  }
  return true;
}

// The tutorial's line: the mean loss of the last log_every mini-batches. False when it diverged.
bool log_running_loss(Loop& loop, int epoch, int step, EpochTotals& totals) {
  LossSum running = read_loss(loop);
  totals.loss += running;
  loop.console.line(fmt::format("[{}, {:5d}] loss: {:.3f}", epoch + 1, step, running.mean()));
  loop.progress.loss(running.mean());
  loop.outcome.loss_curve.push_back(
      {loop.run_step, epoch + 1, running.mean(), totals.learning_rate});
  return !stop_if_diverged(loop.outcome, running.mean(), loop.divergence_threshold,
                           fmt::format("in epoch {} at mini-batch {}", epoch + 1, step));
}

// The steps of `epoch` (0-based); stops early on Ctrl-C or a diverged loss (outcome.status).
EpochTotals train_epoch(Loop& loop, int epoch) {
  loop.feed.start_epoch(epoch);
  loop.progress.start_epoch(epoch);
  EpochTotals totals;
  auto epoch_start = SteadyClock::now();
  double epoch_cpu_start = process_cpu_seconds();
  for (int step = 1;; ++step) {
    if (stop_if_interrupted(loop.outcome,
                            fmt::format("in epoch {} at mini-batch {}", epoch + 1, step)))
      break;
    if (!train_one_step(loop, totals)) break;
    loop.progress.step(step, totals.images);
    if (step % loop.log_every == 0 && !log_running_loss(loop, epoch, step, totals)) break;
  }
  totals.loss += read_loss(loop);
  totals.seconds = seconds_since(epoch_start);
  loop.outcome.cpu_seconds += process_cpu_seconds() - epoch_cpu_start;
  loop.outcome.cpu_wall_seconds += totals.seconds;
  stop_if_diverged(loop.outcome, totals.loss.mean(), loop.divergence_threshold,
                   fmt::format("in epoch {}", epoch + 1));
  return totals;
}

// Evaluates `set` after the epoch (when the run has one) into the record's figures and the line.
void add_evaluation(Loop& loop, const Dataset& set, const char* name, int epoch,
                    Evaluation& evaluation, std::optional<double>& loss,
                    std::optional<double>& accuracy, EpochRecord& record, std::string& line) {
  if (set.size() == 0) return;
  const auto start = SteadyClock::now();
  evaluation = evaluate(loop.program, set, loop.spec.eval_batch_size);
  loop.outcome.evaluation_seconds += seconds_since(start);
  // Weights that give an infinite or undefined loss on held-out images diverged too, though
  // the training loss may still be finite.
  stop_if_diverged(loop.outcome, evaluation.loss, loop.divergence_threshold,
                   fmt::format("on the {} set after epoch {}",
                               name == std::string("val") ? "validation" : name, epoch));
  loss = evaluation.loss;
  accuracy = evaluation.accuracy();
  line += fmt::format(", {} loss {:.4f}, {} accuracy {:.2f} %", name, *loss, name, 100 * *accuracy);
  for (auto& [figure, value] : set_figures(loop.metrics, evaluation, std::string(name) + "_")) {
    line += fmt::format(", {} {:.2f} %", figure, 100 * value);
    record.figures[figure] = value;
  }
}

// training.ema: the average's loss and accuracy on `set` (val_ema_loss, val_ema_accuracy, ...),
// with the average loaded for the evaluation and the weights put back after it.
void add_average_evaluation(Loop& loop, const Dataset& set, const std::string& name,
                            Evaluation& evaluation, EpochRecord& record, std::string& line) {
  if (set.size() == 0 || !loop.ema || loop.ema->empty()) return;
  const auto start = SteadyClock::now();
  loop.ema->with_average(
      loop.program, [&] { evaluation = evaluate(loop.program, set, loop.spec.eval_batch_size); });
  loop.outcome.evaluation_seconds += seconds_since(start);
  const std::string prefix = name + "_ema_";
  record.figures[prefix + "loss"] = evaluation.loss;
  record.figures[prefix + "accuracy"] = evaluation.accuracy();
  for (auto& [figure, value] : set_figures(loop.metrics, evaluation, prefix)) {
    record.figures[figure] = value;
  }
  line += fmt::format(", {} EMA accuracy {:.2f} %", name, 100 * evaluation.accuracy());
}

// After a completed epoch: evaluates the validation set and, when `test`, the test set (the
// weights, and their average with training.ema); records and prints it.
void record_epoch(Loop& loop, const DatasetSplits& data, int epoch, const EpochTotals& totals,
                  bool test) {
  EpochRecord record;
  record.epoch = epoch + 1;
  record.train_loss = totals.loss.mean();
  std::string line = fmt::format("epoch {}: train loss {:.4f}", record.epoch, record.train_loss);
  add_evaluation(loop, data.validation, "val", record.epoch, loop.outcome.final_validation,
                 record.val_loss, record.val_accuracy, record, line);
  if (record.val_accuracy) loop.progress.validation(*record.val_accuracy);
  if (test) {
    add_evaluation(loop, data.test, "test", record.epoch, loop.outcome.final_evaluation,
                   record.test_loss, record.test_accuracy, record, line);
  }
  add_average_evaluation(loop, data.validation, "val", loop.outcome.average_validation, record,
                         line);
  Evaluation average_test;
  if (test) add_average_evaluation(loop, data.test, "test", average_test, record, line);
  record.seconds = totals.seconds;
  record.images_per_second = totals.seconds > 0 ? totals.images / totals.seconds : 0.0;
  record.grad_norm_mean = totals.loss.grad_norm_count > 0 ? totals.loss.grad_norm_mean() : -1.0;
  record.learning_rate = totals.learning_rate;
  record.momentum = totals.momentum;
  record.step = loop.run_step;
  loop.outcome.epochs.push_back(record);
  loop.outcome.train_seconds += totals.seconds;
  loop.console.line(
      line + fmt::format(", {:.1f} s, {:.0f} images/s", record.seconds, record.images_per_second));
}

// Why the loop ended, for the report's stop_reason.
StopReason stop_reason_of(const TrainingOutcome& outcome, bool patience_ran_out) {
  if (outcome.status == RunStatus::interrupted) return StopReason::interrupted;
  if (outcome.status == RunStatus::diverged) return StopReason::diverged;
  if (outcome.status == RunStatus::stopped_early) return StopReason::asha;
  return patience_ran_out ? StopReason::early_stopping : StopReason::epochs;
}

}  // namespace

TrainingOutcome train(const Experiment& experiment, Program& program, const DatasetSplits& data,
                      Console& console, const TrainingPlan& plan) {
  TrainingFeed feed(data.train, program, experiment);
  console.line("data: " + feed.description());
  TrainingOutcome outcome;
  outcome.loader_workers = feed.loader_workers();
  outcome.warmup_steps = warmup_steps_for(feed.batches_per_epoch());
  const TrainingSpec& spec = experiment.training;
  const std::int64_t steps_per_epoch = feed.batches_per_epoch();
  Loop loop{spec,
            experiment.metrics,
            program,
            feed,
            console,
            EpochProgress(console, spec.epochs, steps_per_epoch),
            outcome,
            LearningRateSchedule(spec.schedule, spec.optimizer.lr, steps_per_epoch, spec.epochs),
            plan.first_epoch * steps_per_epoch,
            plan.threads,
            {},
            0,
            divergence_threshold(spec, data.train.classes()),
            plan.ema,
            log_every_for(spec, steps_per_epoch)};
  std::optional<BatchMixer> mixer;
  if (spec.mixing.enabled()) {
    mixer.emplace(spec.mixing, experiment.seed, data.train.height, data.train.width);
    loop.mixer = &*mixer;
  }
  // Without a validation set there is nothing to select by: the state stays as it came.
  std::optional<ModelSelection> selection;
  if (data.validation.size() > 0) selection.emplace(experiment, plan.selection);
  bool patience_ran_out = false;
  for (int epoch = plan.first_epoch; epoch < experiment.training.epochs; ++epoch) {
    EpochTotals totals = train_epoch(loop, epoch);
    if (outcome.status != RunStatus::completed) break;
    const bool last = epoch + 1 == experiment.training.epochs;
    record_epoch(loop, data, epoch, totals, plan.test_each_epoch || last);
    if (plan.progress) {
      const auto start = SteadyClock::now();
      plan.progress(outcome);
      outcome.progress_seconds += seconds_since(start);
    }
    if (outcome.status != RunStatus::completed) break;  // diverged on held-out images
    EpochVerdict verdict;
    if (selection) {
      const Evaluation* average =
          outcome.average_validation.count > 0 ? &outcome.average_validation : nullptr;
      verdict = selection->epoch_done(epoch + 1, outcome.final_validation, average);
    }
    if (plan.after_epoch) {
      const auto start = SteadyClock::now();
      plan.after_epoch(epoch + 1, selection ? selection->state() : plan.selection,
                       verdict.new_best);
      outcome.checkpoint_seconds += seconds_since(start);
    }
    if (verdict.stop) {
      console.line(
          fmt::format("early stopping after epoch {}: {}", epoch + 1, selection->stop_text()));
      patience_ran_out = true;
      break;
    }
    if (plan.stop_after_epoch && !last) {
      if (std::string why = plan.stop_after_epoch(outcome.epochs.back()); !why.empty()) {
        console.line(fmt::format("stopped after epoch {}: {}", epoch + 1, why));
        outcome.status = RunStatus::stopped_early;
        outcome.error = why;
        break;
      }
    }
  }
  // Early stopping ended a run that left the test set for its end: its last weights are tested.
  if (patience_ran_out && !plan.test_each_epoch && data.test.size() > 0) {
    outcome.final_evaluation = evaluate(program, data.test, spec.eval_batch_size);
    stop_if_diverged(outcome, outcome.final_evaluation.loss, loop.divergence_threshold,
                     "on the test set");
  }
  outcome.selection = selection ? selection->state() : plan.selection;
  outcome.stop_reason = stop_reason_of(outcome, patience_ran_out);
  outcome.data_wait_seconds = feed.waited_seconds();
  outcome.augment_images_per_second = feed.augment_images_per_second();
  outcome.step_seconds = loop.clock.seconds();
  outcome.timed_seconds = loop.clock.total();
  outcome.train_images_per_second =
      loop.clock.total() > 0 ? loop.images_after_warmup / loop.clock.total() : 0.0;
  if (plan.progress) plan.progress(outcome);
  console.end_progress();
  return outcome;
}

}  // namespace runner
