// A sweep's page (`runner report SWEEP_DIR --html`, and the end of every sweep): the plan, the
// best point of a search, the points in a sortable table linking to each point's own page, the
// summary plots inline, and the points that failed with their reasons.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace runner {

// The page for `summary` (as summary.json holds it) of the sweep folder `dir`, whose
// plots/*.svg it embeds.
std::string sweep_page(const nlohmann::json& summary, const std::filesystem::path& dir);

// Writes DIR/report.html and each readable point's DIR/<point>/report.html (linking back);
// returns the sweep page's path.
std::filesystem::path write_sweep_pages(const nlohmann::json& summary,
                                        const std::filesystem::path& dir);

// `text` as one relative URL path segment (a point id holds '=', ',' and more).
std::string url_segment(std::string_view text);

}  // namespace runner
