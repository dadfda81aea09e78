// ASHA, asynchronous successive halving over epochs (Li et al., "A System for Massively Parallel
// Hyperparameter Tuning", MLSys 2020), decided as Ray Tune's ASHAScheduler does: a trial that
// reaches a rung goes on only when it is in the top 1/reduction_factor of the trials recorded at
// that rung so far, itself included; else it stops there. The first trial at a rung always goes
// on, and a stopped trial is never taken up again.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "runner/config/source_map.h"

namespace runner {

struct AshaSpec {
  std::string metric = "val_accuracy";  // val_accuracy, val_loss or train_loss
  bool maximize = true;                 // default: max for accuracy, min for a loss
  int min_epochs = 1;                   // the first rung
  std::optional<int> max_epochs;        // set: every trial's training.epochs; else the config's
  int reduction_factor = 3;
  bool metric_given = false;  // the file names the metric (else a random search's is used)
};

// Reads a sweep file's sweep.asha block (already checked against the schema); min_epochs must be
// below max_epochs. Problems are UserErrors at the field's file:line:col from `map`.
AshaSpec read_asha(const nlohmann::json& block, const SourceMap& map, const std::string& at);

// The rungs of a trial of `epochs` epochs: min_epochs * reduction_factor^k below `epochs` (the
// last epoch is no rung: the trial is done there).
std::vector<int> asha_rungs(const AshaSpec& spec, int epochs);

// One trial's figure at a rung, in the order recorded.
struct RungEntry {
  std::string id;               // the sweep point's id
  std::string point_sha;        // its config and settings (a changed point is recorded anew)
  int rung = 0;                 // epochs
  std::optional<double> value;  // none: not a finite number
  bool continued = false;
};

struct RungVerdict {
  bool continued = false;
  int rank = 0;   // 1: the best at the rung; trials recorded earlier win ties
  int of = 0;     // trials recorded at the rung, this one included
  int quota = 0;  // how many of them go on: max(1, of / reduction_factor)
};

// The rule: `value` against the values recorded earlier at the rung. A value that is not a
// finite number never goes on, and one recorded earlier ranks below every finite one.
RungVerdict asha_verdict(const std::vector<std::optional<double>>& earlier,
                         std::optional<double> value, bool maximize, int reduction_factor);

// "val_accuracy 0.4123 after epoch 3 ranks 4 of 7 trials at this rung; the top 2 (1/3) go on".
std::string verdict_text(const AshaSpec& spec, int rung, std::optional<double> value,
                         const RungVerdict& verdict);

// "rungs at epochs 1, 3, 9 of 27 by val_accuracy (max); a trial goes on past a rung when in the
// top 1/3 of those recorded there".
std::string asha_line(const AshaSpec& spec, int epochs);

// Why a point cannot be an ASHA trial ("" when it can): its config has no validation set for a
// val_* metric. `config` is the point's resolved config.
std::string asha_point_problem(const AshaSpec& spec, const nlohmann::json& config);

// The sweep manifest's `asha` block.
nlohmann::json asha_json(const AshaSpec& spec);

}  // namespace runner
