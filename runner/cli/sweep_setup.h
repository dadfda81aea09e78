// What every form of `runner sweep` does first: the spec from the file and the options, the
// base config it runs, the plan, and how each point's previous report stands.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runner/cli/commands.h"
#include "runner/sweep/point_state.h"
#include "runner/sweep/sweep_plan.h"

namespace runner {

// The sweep file (or config) with the command line's options applied; UserError on a mistake.
SweepSpec sweep_spec(const SweepOptions& options);

// The config each point starts from: the sweep's base config, or for an embedded one a file
// next to the results (written only when absent or different, so concurrent points agree).
std::filesystem::path sweep_base_config(const SweepSpec& spec, const std::filesystem::path& dir);

// With `jobs` > 1, the points share the cores: every point gets training.threads = cores / jobs
// (at least 1) as an override, unless the config or an axis sets training.threads. A `--point`
// child plans with the same rule, so its points hash as its parent's do.
void split_threads(SweepSpec& spec, const std::filesystem::path& base_config, int jobs);

// Writes `value` to `path` atomically unless the file already holds it; false when the file
// holds something else (then it is left as it is).
bool write_json_unless_other(const std::filesystem::path& path, const nlohmann::json& value);

// Each point's state against its report under `dir` (see point_state.h).
std::vector<PointState> point_states(const std::vector<PlannedPoint>& plan,
                                     const std::filesystem::path& dir);

// "train (the config's epochs, with evaluation)" or "benchmark (5 warm-up and 30 timed ...)".
std::string mode_line(const SweepSpec& spec);

// A sweep of a config (not a sweep file) benchmarks unless --mode says otherwise: when no --mode
// is given and a --set, --grid or --zip sets what only training uses (training.epochs, early
// stopping, checkpoints, ...), the warning that says which mode runs and why; "" otherwise.
std::string unused_training_settings_warning(const SweepSpec& spec, const SweepOptions& options);

}  // namespace runner
