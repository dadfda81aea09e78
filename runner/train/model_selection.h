// What a run watches on its validation set between epochs: early stopping's best value and
// patience counter (Lightning's EarlyStopping) and the run's best epoch, whose weights
// checkpoint.monitor keeps (ModelCheckpoint); checkpoints carry both so a resumed run goes on.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "runner/config/experiment.h"
#include "runner/train/evaluation.h"

namespace runner {

struct MonitorProgress {
  std::optional<double> best;  // the best value so far; none before the first finite one
  int best_epoch = 0;          // 1-based; 0: none yet
  int wait = 0;                // epochs since the last improvement (early stopping's counter)
};

struct SelectionState {
  MonitorProgress early_stopping;  // training.early_stopping's own best (min_delta applies)
  MonitorProgress best;            // the run's best epoch: strictly better, as ModelCheckpoint
};

// The figure the run's best epoch is chosen by: checkpoint.monitor, else early stopping's
// monitor, else val_accuracy (max).
MonitorSpec best_epoch_monitor(const Experiment& experiment);

// Lightning's test: `value` beats `best` by more than `min_delta` in the mode's direction. A value
// that is not finite never does; any finite one beats no best at all.
bool improves(MonitorMode mode, double value, const std::optional<double>& best, double min_delta);

// The watched figure of the validation set as the weights scored it (`validation`), or for a
// monitor of training.ema's average (val_ema_accuracy) as the average did (`average`; NaN
// without one).
double monitored_value(const Monitor& monitor, const Evaluation& validation,
                       const Evaluation* average = nullptr);

struct EpochVerdict {
  bool new_best = false;  // the run's best epoch so far
  bool stop = false;      // early stopping ran out of patience
};

class ModelSelection {
 public:
  explicit ModelSelection(const Experiment& experiment, SelectionState start = {});
  // After epoch `epoch` (1-based) was evaluated on the validation set, with the weights and,
  // with training.ema, with their average.
  EpochVerdict epoch_done(int epoch, const Evaluation& validation,
                          const Evaluation* average = nullptr);
  // Early stopping has run out of patience (also: a resumed checkpoint that had).
  bool stopped() const;
  // Why it stopped: "val_accuracy did not improve by more than 0 for 3 epochs (best 0.9100 at
  // epoch 2)".
  std::string stop_text() const;
  const SelectionState& state() const { return state_; }

 private:
  EarlyStoppingSpec stopping_;
  MonitorSpec best_by_;
  SelectionState state_;
};

// The state as a checkpoint's "selection" metadata holds it, each part with the monitor and
// mode it was kept by.
nlohmann::json selection_json(const SelectionState& state, const Experiment& experiment);

// The state in a checkpoint's "selection" metadata ("" in files without one: a fresh state). A
// part kept by another monitor or mode than `experiment`'s starts afresh and `notes` says so;
// metadata the runner does not write is a UserError naming `file`.
SelectionState read_selection(const std::string& text, const Experiment& experiment,
                              const std::string& file, std::vector<std::string>& notes);

}  // namespace runner
