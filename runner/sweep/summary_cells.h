// Cells of the summary's CSV and Markdown tables, shared by the per-run and per-group renderings.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace runner {

// A CSV cell: "" for null, strings as they are, other values as JSON; quoted when it holds a
// comma, a quote or a line break.
std::string csv_cell(const nlohmann::json& value);

// The cells joined by commas, and a line break.
std::string csv_line(const std::vector<std::string>& cells);

// A number formatted with `format` after scaling, or "" when `value` is not a number.
std::string number_cell(const nlohmann::json& value, const char* format, double scale = 1.0);

// The first line of `text`, with '|' escaped for a Markdown table.
std::string markdown_text(std::string text);

// "mean ± std unit (n)" of a group's statistics (schemas/summary.schema.json#/definitions/stats),
// "mean unit (1)" for a single run, "" without runs.
std::string mean_std_cell(const nlohmann::json& stats, const char* format, double scale = 1.0,
                          const char* unit = "");

}  // namespace runner
