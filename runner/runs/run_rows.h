// One row per run for `runner runs`: the fields of a report.json a query can name, flattened to
// dotted names: the config as resolved (training.optimizer.lr), the kept model's figures
// (val_accuracy, test_macro_f1), tags (tags.team) and the run's facts (status, epochs, device,
// images_per_second, wall_seconds).
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace runner {

using RunRow = std::map<std::string, nlohmann::json>;

// The row of `report` (a parsed report.json), its run folder given as `run` (a path relative to
// the folder queried). Fields the report lacks are absent.
RunRow run_row(const nlohmann::json& report, const std::string& run);

// The value of `field` in `row`: the name as written, or under "config." (config.training.lr);
// null when absent.
const nlohmann::json& row_field(const RunRow& row, const std::string& field);

}  // namespace runner
