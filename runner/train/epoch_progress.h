// The live progress bar of a training epoch on a terminal: steps done, images/s, the epoch's ETA,
// the last logged loss and the last validation accuracy, redrawn at most five times a second.
#pragma once

#include <cstdint>
#include <string>

#include "runner/train/step_times.h"
#include "runner/util/console.h"

namespace runner {

// What the bar shows at one moment.
struct EpochProgressState {
  int epoch = 0;  // 1-based
  int epochs = 0;
  std::int64_t step = 0;  // steps done in the epoch
  std::int64_t steps = 0;
  double images_per_second = 0;  // over the epoch so far
  double eta_seconds = -1;       // the rest of the epoch; < 0 when not known yet
  double loss = -1;              // the last logged running loss; < 0 before the first
  double val_accuracy = -1;      // the last epoch's validation accuracy; < 0 when none
};

// `epoch 1/2 [#####---------------]  231/5000  1234 images/s  ETA 0:42  loss 2.301`, then
// `  val acc 91.20 %` once an epoch was validated
std::string format_epoch_progress(const EpochProgressState& state);

// Feeds the bar from the training loop. step() reads the clock only when the console shows
// progress (a terminal, not --quiet) and formats a line only when a redraw is due, so the loop
// pays no more than a clock read per step.
class EpochProgress {
 public:
  EpochProgress(Console& console, int epochs, std::int64_t steps_per_epoch);
  void start_epoch(int epoch);  // 0-based
  void step(std::int64_t step, std::int64_t images_in_epoch);
  void loss(double running_loss) { loss_ = running_loss; }
  void validation(double accuracy) { state_.val_accuracy = accuracy; }

 private:
  Console& console_;
  EpochProgressState state_;
  SteadyClock::time_point epoch_start_{};
  // The first redraw of the epoch: rate and ETA count from it, so the first step's one-off
  // costs (first touch of buffers, the loader starting) do not skew them.
  SteadyClock::time_point mark_{};
  std::int64_t mark_step_ = -1, mark_images_ = 0;
  double loss_ = -1;
};

}  // namespace runner
