// What a search's summary adds: the searched paths, and the best point by the search's metric
// (a validation figure or the training loss, never the test set), with how to reproduce it.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace runner {

// The summary row's field that holds a search metric: val_accuracy, val_loss, a metric's
// validation figure (val_macro_f1), or train_loss (the row's final_loss). "" for a name that is
// none of them.
std::string metric_field(const std::string& metric);

// summary.json's `search` from the sweep manifest's `random` block (method random: trials, seed,
// metric, mode and the searched paths) or, for a grid with ASHA, its `asha` block (method grid);
// null when the sweep is no search.
nlohmann::json search_summary(const nlohmann::json& manifest);

// search.asha: the manifest's ASHA settings, the trials recorded and gone on at each rung (from
// the records in `dir`), how many stopped early, and the epochs trained against those a search
// without stopping would have trained; null when the sweep has no ASHA.
nlohmann::json asha_summary(const nlohmann::json& manifest, const std::filesystem::path& dir,
                            const nlohmann::json& rows);

// The best completed row by the search's metric (ties: the first), as summary.json's `best`: id,
// index, values, metric, mode, value, report and the command that reruns it; null when no
// completed row reported the metric.
nlohmann::json best_point(const nlohmann::json& search, const nlohmann::json& rows);

// summary.md's section on the best point ("" when the summary is no search's).
std::string best_section(const nlohmann::json& summary);

}  // namespace runner
