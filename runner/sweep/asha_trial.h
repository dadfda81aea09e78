// A sweep point as an ASHA trial: after each epoch that is one of its rungs, its figure is
// recorded in the sweep folder and the rule decides whether it trains on.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "runner/report/run_record.h"
#include "runner/sweep/asha.h"
#include "runner/sweep/sweep_plan.h"
#include "runner/train/trainer.h"

namespace runner {

// The epoch's figure the search watches (val_accuracy, val_loss, train_loss); none when the
// epoch has no such figure (no validation set).
std::optional<double> asha_metric_of(const std::string& metric, const EpochRecord& epoch);

// asha_line for the plan: the rungs of its first valid point's epochs (all points' when
// max_epochs is given).
std::string asha_plan_line(const AshaSpec& spec, const std::vector<PlannedPoint>& plan);

// The point's gate for TrainingPlan::stop_after_epoch: "" to go on, else why it stops.
std::function<std::string(const EpochRecord&)> asha_gate(const AshaSpec& spec,
                                                         const std::filesystem::path& sweep_dir,
                                                         const PlannedPoint& planned);

// The trial's report's `asha` block: its rungs, metric, mode and reduction factor.
RecordAsha asha_report_block(const AshaSpec& spec, const PlannedPoint& planned);

// For `runner reproduce` of a trial's report: a gate that runs the rerun as the trial ran (the test
// set after the last epoch only; a trial ASHA stopped stops after the same epoch), or an empty
// function for a report of no trial.
std::function<std::string(const EpochRecord&)> asha_replay_gate(const RunRecord& report);

}  // namespace runner
