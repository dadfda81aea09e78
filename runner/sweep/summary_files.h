// A summary written out: summary.json, summary.csv (every field, one row per point) and
// summary.md (the readable table, then the errors of the points that did not complete).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace runner {

std::string summary_csv(const nlohmann::json& summary);
std::string summary_markdown(const nlohmann::json& summary);

// Writes the three files into `dir`, each atomically.
void write_summary_files(const std::filesystem::path& dir, const nlohmann::json& summary);

}  // namespace runner
