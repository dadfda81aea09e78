// A summary written out: summary.json, summary.csv (one row per run: a column per swept axis,
// `seed`, then every figure), summary_grouped.csv (one row per point group: a column per axis,
// then mean, std, min, max and n of each figure) and summary.md (what was run, the point groups
// when points have repeats, the runs' table, then the errors of the runs that did not complete).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace runner {

// The swept axes that need a column of their own: the summary's `axes` (older summaries: from
// their rows), without one named like a figure column (`device` is that column).
std::vector<std::string> summary_axes(const nlohmann::json& summary);

std::string summary_csv(const nlohmann::json& summary);
std::string summary_grouped_csv(const nlohmann::json& summary);
std::string summary_markdown(const nlohmann::json& summary);

// Writes the four files into `dir`, each atomically.
void write_summary_files(const std::filesystem::path& dir, const nlohmann::json& summary);

}  // namespace runner
