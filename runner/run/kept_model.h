// The model a completed training run reports on: with checkpoint.monitor the best epoch's
// weights, read back from their file and tested once; else the last epoch's, as trained.
#pragma once

#include <optional>

#include "runner/report/run_record.h"
#include "runner/run/session.h"
#include "runner/train/epoch_checkpoints.h"
#include "runner/train/trainer.h"

namespace runner {

// Measures and prints the kept model (test set, when the run has one; validation set, when it
// has one) and returns the report's `metrics`. Adds to the report's checkpoint block (null
// without checkpoint.path) whether the file reloads to the same figures, and with
// checkpoint.monitor the best epoch, its value and the last epoch's file.
RecordMetrics measure_kept_model(const Session& session, Console& console,
                                 const TrainingOutcome& outcome,
                                 const EpochCheckpoints* checkpoints,
                                 std::optional<RecordCheckpoint>& block);

// checkpoint.monitor's part of the report's checkpoint block: `path` and `best_path` the best
// epoch's file, `last_path` the last epoch's (to resume from), the monitor and mode, the best
// epoch in the file (null when none was kept) and its monitored value.
void add_best_checkpoint(RecordCheckpoint& block, const EpochCheckpoints& checkpoints,
                         const MonitorSpec& by, const SelectionState& selection);

}  // namespace runner
