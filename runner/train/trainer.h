// The training loop: epochs of seeded mini-batches, the tutorial's loss log line, per-epoch
// evaluation (test and validation sets), throughput after a warm-up, the learning rate of each
// step from training.schedule, and early stop on a diverged loss, Ctrl-C or early_stopping.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "runner/config/experiment.h"
#include "runner/data/dataset.h"
#include "runner/train/evaluation.h"
#include "runner/train/model_selection.h"
#include "runner/train/run_status.h"
#include "runner/train/step_threads.h"
#include "runner/train/weight_average.h"
#include "runner/util/console.h"

namespace runner {

struct EpochRecord {
  int epoch = 0;  // 1-based
  double train_loss = 0;
  std::optional<double> test_loss, test_accuracy;  // absent without a test set
  std::optional<double> val_loss, val_accuracy;    // absent without a validation set
  double seconds = 0;  // training time of the epoch, evaluation excluded
  double images_per_second = 0;
  double grad_norm_mean = -1;      // clip_grad_norm: the mean global gradient norm before clipping
  double learning_rate = 0;        // the lr of the epoch's last step (training.schedule)
  std::optional<double> momentum;  // its momentum, where the schedule cycles it
  std::int64_t step = 0;           // steps done in the whole run at the epoch's end
  // The `metrics` list's figures of each evaluated set, by report key (val_top5_accuracy).
  std::map<std::string, double> figures;
};

// The running loss at one log point (every training.log_every steps): the loss curve.
struct LossPoint {
  std::int64_t step = 0;  // steps done in the whole run, resumed epochs included
  int epoch = 0;          // 1-based
  double loss = 0;        // mean of the steps since the previous log point
  double learning_rate = 0;
};

struct TrainingOutcome {
  RunStatus status = RunStatus::completed;  // completed | diverged | interrupted
  std::string error;                        // why, when not completed
  StopReason stop_reason = StopReason::epochs;
  std::vector<EpochRecord> epochs;
  std::vector<LossPoint> loss_curve;
  std::int64_t steps = 0;
  std::int64_t warmup_steps = 0;
  double train_images_per_second = 0;  // after the warm-up steps, data waits included
  double train_seconds = 0;            // all training steps
  double timed_seconds = 0;  // the steps after the warm-up, device waits included: the whole run's
  double data_wait_seconds = 0;  // of which the step waited for the loader
  int loader_workers = 0;        // the host loader's background threads (0: inline or none)
  // Training images augmented per second of one loader thread (0: no host augmentation).
  double augment_images_per_second = 0;
  std::vector<double> step_seconds;  // each full-batch step after the warm-up, data wait included
  double cpu_seconds = 0;            // process CPU time (all threads) during the training steps
  double cpu_wall_seconds = 0;       // the wall time it was measured over
  // Wall time between the epochs' steps: evaluating the held-out sets, the after-epoch hook
  // (checkpoints) and the progress hook (TensorBoard).
  double evaluation_seconds = 0, checkpoint_seconds = 0, progress_seconds = 0;
  Evaluation final_evaluation;    // the last epoch's test set (count 0 without one)
  Evaluation final_validation;    // its validation set (count 0 without one)
  Evaluation average_validation;  // training.ema: the average's on it (count 0: none)
  SelectionState selection;       // early stopping and the best epoch, after the last epoch
};

struct TrainingPlan {
  // 0-based; > 0 when resuming from a checkpoint. The schedule continues at step
  // first_epoch * batches per epoch (the checkpoint's optimizer.step for an unchanged config).
  int first_epoch = 0;
  // Resuming: early stopping and the best epoch as the checkpoint left them.
  SelectionState selection;
  // Called after each completed epoch (evaluated, not diverged) with the epochs done so far,
  // the selection state and whether the epoch is the run's best so far: where checkpoints are
  // taken.
  std::function<void(int epochs_done, const SelectionState& selection, bool new_best)> after_epoch;
  // A search's early stop (ASHA), asked after each completed epoch once its checkpoint is taken:
  // "" goes on, else why the run stops there (status stopped_early, stop_reason asha).
  std::function<std::string(const EpochRecord& epoch)> stop_after_epoch;
  // Called with the outcome so far after each recorded epoch and once when training ends (the
  // steps of an epoch cut short included): where a live log (TensorBoard) writes.
  std::function<void(const TrainingOutcome& so_far)> progress;
  // False: the test set is evaluated only after the last epoch (a search's trial, which selects
  // on validation figures and must not look at the test set before it is done).
  bool test_each_epoch = true;
  // The steps' compute threads (none: the program's, unchanged).
  StepThreads* threads = nullptr;
  // training.ema: the weights' average, folded in after the steps and evaluated after each
  // epoch beside the weights (none: off). Its owner saves and restores it with the checkpoints.
  WeightAverage* ema = nullptr;
};

TrainingOutcome train(const Experiment& experiment, Program& program, const DatasetSplits& data,
                      Console& console, const TrainingPlan& plan = {});

}  // namespace runner
