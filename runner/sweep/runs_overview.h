// A folder of unrelated runs (`runner report results/`): one table per experiment and mode, each
// with the columns of its mode, instead of one sweep table mixing them.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace runner {

// Whether a summary's rows span more than one experiment or mode (a sweep's never do).
bool holds_unrelated_runs(const nlohmann::json& summary);

// "# Runs in <folder>", then "## <experiment> (<mode>)" and its table, per experiment and mode.
std::string runs_overview_markdown(const nlohmann::json& summary);

}  // namespace runner
