// What a search's summary adds: the searched paths, and the best point by the search's metric
// (a validation figure or the training loss, never the test set), with how to reproduce it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace runner {

// The summary row's field that holds a search metric: val_accuracy, val_loss, or train_loss
// (the row's final_loss). "" for a name that is none of them.
std::string metric_field(const std::string& metric);

// summary.json's `search` from the sweep manifest's `random` block: method, trials, seed,
// metric, mode and the searched paths; null when the sweep is no search.
nlohmann::json search_summary(const nlohmann::json& manifest);

// The best completed row by the search's metric (ties: the first), as summary.json's `best`: id,
// index, values, metric, mode, value, report and the command that reruns it; null when no
// completed row reported the metric.
nlohmann::json best_point(const nlohmann::json& search, const nlohmann::json& rows);

// summary.md's section on the best point ("" when the summary is no search's).
std::string best_section(const nlohmann::json& summary);

}  // namespace runner
